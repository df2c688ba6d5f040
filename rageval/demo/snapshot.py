"""The demo project's derived data, computed once and shipped in ``rageval/demo/snapshot/``.

Building the demo from nothing embeds its corpus, runs and scores it (about 10 CPU-seconds, the
model load included); its inputs are fixed, so the result is shipped instead: one Parquet file per
table of :data:`TABLES` (zstd; the rows as the build stored them, the embedding cache included, so
a later run on the demo corpus embeds nothing) and ``manifest.json`` (the signature and each
table's rows). :func:`load_snapshot` copies them into a new demo project when the manifest's
signature equals :func:`signature` of the code now, and says no otherwise (the caller then builds
from nothing). The Chroma collection is not shipped: the first run on the demo corpus makes it
from the cached vectors. The runs' times are moved to the load, in the order the build made them.

The signature is a sha256 over what makes the demo's values: the demo's input files, the
database schema (the migrations' names), the run's config hash and index signature, the
signature of every metric the demo scores (they pin the judge, the embedder, the verifier's
rules, the text rules and the shipped models), the embedding model's package version and the
source of the steps whose values carry no signature (chunking, loading, retrieval, the
extractive generator). ``tests/test_demo_snapshot.py`` builds the demo from nothing and checks
that the shipped snapshot equals it; ``python -m devtools.demo_snapshot`` writes it again.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from rageval.config import RunConfig
from rageval.project import Project

#: the tables shipped, in the order they are loaded (every table the demo writes)
TABLES = ("corpora", "documents", "corpus_documents", "chunks", "qa_sets", "qa_items", "runs", "answers",
          "retrievals", "metric_scores", "claims", "human_ratings", "claim_labels", "correlations",
          "embedding_cache")
#: the demo's input files, relative to the demo folder (the corpus folder's files are added)
INPUTS = ("qa.jsonl", "llm_answers.jsonl", "ratings.csv", "claim_labels.csv")
#: sources of steps whose values carry no signature of their own, relative to the package root
UNSIGNED = ("ingest/chunking.py", "ingest/loaders.py", "ingest/corpus.py", "index.py", "generate/generators.py",
            "runs/pipeline.py", "demo/__init__.py")


def snapshot_dir() -> Path:
    return Path(__file__).with_name("snapshot")


def signature(config: RunConfig) -> str:
    """The sha256 (module docstring) that a snapshot of the demo run with ``config`` must carry to be loaded."""
    from importlib import metadata

    from rageval.config import DEFAULT_METRICS
    from rageval.embed.minilm import MINILM_PACKAGE
    from rageval.metrics.base import parse_metric_list
    from rageval.store import migrations

    folder, package = Path(__file__).resolve().parent, Path(__file__).resolve().parents[1]
    h = hashlib.sha256()

    def part(name: str, data: bytes) -> None:
        h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())

    for f in sorted((folder / "corpus").rglob("*")):
        if f.is_file():
            part(f"corpus/{f.relative_to(folder / 'corpus').as_posix()}", f.read_bytes())
    for name in INPUTS:
        part(name, (folder / name).read_bytes())
    for name in UNSIGNED:
        part(name, (package / name).read_bytes())
    part("schema", "\n".join(sorted(p.name for p in Path(migrations.__file__).parent.glob("*.sql"))).encode())
    sigs = [m.signature() for m in parse_metric_list(list(config.metrics), **config.metric_options())]
    sigs += [m.signature() for m in parse_metric_list(list(DEFAULT_METRICS), judge="heuristic")]
    part("run", json.dumps([config.config_hash(), config.index_signature(), sorted(set(sigs))]).encode())
    try:
        part("minilm", metadata.version(MINILM_PACKAGE).encode())
    except metadata.PackageNotFoundError:
        part("minilm", b"")
    return h.hexdigest()


def write_snapshot(project: Project, config: RunConfig, folder: Path | None = None) -> dict[str, Any]:
    """Write the built demo project's tables and the manifest into ``folder`` (the shipped one by default)."""
    from rageval.files import write_atomic
    from rageval.store.db import connect

    folder = folder or snapshot_dir()
    folder.mkdir(parents=True, exist_ok=True)
    rows = {}
    with connect(project.db_path) as con:
        for table in TABLES:
            target = folder / f"{table}.parquet"
            con.execute(f"COPY (SELECT * FROM {table} ORDER BY ALL) TO '{target}' (FORMAT PARQUET, COMPRESSION ZSTD)")
            rows[table] = int(con.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
    manifest = {"signature": signature(config), "rows": rows}
    write_atomic(folder / "manifest.json", json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return manifest


def shipped_manifest(folder: Path | None = None) -> dict[str, Any] | None:
    """The shipped manifest, None when there is none or it cannot be read."""
    path = (folder or snapshot_dir()) / "manifest.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def load_snapshot(project: Project, config: RunConfig, folder: Path | None = None) -> bool:
    """Copy the shipped tables into ``project`` (an empty demo project) when the snapshot's
    signature is the code's; False (nothing written) when it is missing or made by other code."""
    from rageval.store.db import connect

    folder = folder or snapshot_dir()
    manifest = shipped_manifest(folder)
    if manifest is None or manifest.get("signature") != signature(config):
        return False
    files = [folder / f"{t}.parquet" for t in TABLES]
    if not all(f.is_file() for f in files):
        return False
    with connect(project.db_path) as con:
        if any(con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("corpora", "runs")):
            return False  # a build under way (or done): never mixed with the shipped rows
        con.execute("BEGIN TRANSACTION")
        try:
            for table, f in zip(TABLES, files):
                con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM read_parquet(?)", [str(f)])
            # the runs as made now, in the order they were made (run titles and lists show when)
            con.execute("UPDATE runs SET created = created + d, started = started + d, finished = finished + d,"
                        " heartbeat = heartbeat + d FROM (SELECT current_timestamp::TIMESTAMP - max(finished) AS d"
                        " FROM runs) AS shift")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return True
