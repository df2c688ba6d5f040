"""What one unit of work on a project database costs: a DuckDB instance per unit against one
attached file on a per-process instance (rageval.store.db).

    python -m bench.bench_connect [--repeat 200]

Builds the small test project (tests/test_app.py: three documents, a QA set, a finished run) in a
temporary RAGEVAL_HOME, then times ``--repeat`` units of work that each read the run list:

1. **instance per unit** (rageval before the store kept one instance per process): ``duckdb.connect(file)``, the
   query, ``close()``;
2. **attach per unit** (now): ``rageval.store.db.connect(file)``: ``ATTACH`` to the process's
   in-memory instance, ``USE``, the query, ``DETACH``;
3. the same two with one write each (an INSERT and a DELETE), so the detach checkpoints.

Prints one JSON line: milliseconds per unit, median of five blocks of ``--repeat / 5``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def per_unit_ms(unit, repeat: int) -> float:
    blocks = []
    for _ in range(5):
        n = max(1, repeat // 5)
        start = time.perf_counter()
        for _ in range(n):
            unit()
        blocks.append((time.perf_counter() - start) / n * 1000)
    return round(statistics.median(blocks), 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    os.environ["RAGEVAL_HOME"] = tempfile.mkdtemp(prefix="bench-connect-")
    os.environ["RAGEVAL_NO_AUTODEMO"] = "1"
    import duckdb

    from devtools.projects import small_project
    from rageval.config import RunConfig
    from rageval.runs.pipeline import run
    from rageval.store import db

    project = small_project(Path(tempfile.mkdtemp(prefix="bench-connect-project-")), name="connect")
    run(project, RunConfig(corpus="c", qa_set="qa", top_k=3, metrics=("exact_match", "token_f1")))
    path = str(project.db_path)
    read = "SELECT id, status FROM runs ORDER BY created"
    write = ("INSERT INTO project_meta VALUES ('bench', 'x')", "DELETE FROM project_meta WHERE key = 'bench'")

    def instance_read():
        con = duckdb.connect(path)
        con.execute(read).fetchall()
        con.close()

    def attach_read():
        with db.connect(path) as con:
            con.execute(read).fetchall()

    def instance_write():
        con = duckdb.connect(path)
        for sql in write:
            con.execute(sql)
        con.close()

    def attach_write():
        with db.connect(path) as con:
            for sql in write:
                con.execute(sql)

    out = {"file_bytes": Path(path).stat().st_size, "duckdb": duckdb.__version__, "load": os.getloadavg()[0]}
    for name, unit in (("instance_read", instance_read), ("attach_read", attach_read),
                       ("instance_write", instance_write), ("attach_write", attach_write)):
        out[f"{name}_ms"] = per_unit_ms(unit, args.repeat)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
