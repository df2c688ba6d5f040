"""`score --engine ray` against single-process `score`: equality of every value, wall time, memory;
and the judged path over the scripted test server with two workers: calls, cache hits, peak
concurrency.

    python -m bench.bench_ray [--n 20000] [--shards 4] [--workers 2] [--cpus 2] [--judged-n 200]

Answers come from ``bench/bench_offline.py``'s generator (question, answer of one or two
sentences, reference), each with only its gold context (about 100 words), so that lexical,
MiniLM and claim metrics all score. Both sides run as a fresh ``python -m rageval score`` process
(``--no-store``, ``--details``); the Ray side reads ``--shards`` Parquet shards and starts a local
cluster of ``--cpus`` CPUs with ``--workers`` actors. Memory is the peak of the summed resident
set of the command's whole process tree (Ray's raylet, GCS and workers included), sampled every
0.2 s from /proc. Equality compares every column of every row (values, statuses with their
reasons, claims, stored records) except ``source``.

The judged part scores ``--judged-n`` rows with ``faithfulness`` judged by ``openai:judge-model``
on ``devtools/llm_server.py`` (scripted by ``devtools/judge_responder.py``, 20 ms a call), with
``--concurrency 4`` over two workers and a fresh shared LLM cache, then again into a new folder:
the first run's calls and the server's peak requests in flight, the second run's calls and cache
hits (``llm_calls`` rows marked cached in the cache file).

Prints one JSON line per figure, with the load average before and after.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

METRICS = "token_f1,bleu,rougeL,answer_similarity,bertscore_f1,faithfulness"


def _tree_rss(pid: int) -> int:
    """Resident bytes of ``pid`` and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                with open(f"/proc/{entry.name}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
            except (OSError, ValueError, IndexError):
                continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(children.get(p, []))
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def timed(cmd: list[str], env: dict[str, str]) -> dict:
    """Run ``cmd``; its wall seconds and the peak resident memory of its process tree."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = [0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            time.sleep(0.2)

    watcher = threading.Thread(target=sample, daemon=True)
    watcher.start()
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    watcher.join()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err[-3000:]}")
    return {"wall_s": round(wall, 1), "peak_rss_mb": round(peak[0] / 2**20), "stdout": out}


def _rows(n: int) -> list[dict]:
    from bench.bench_offline import make_rows

    rows = make_rows(n)
    for r in rows:  # only the context that holds the answer's facts (the one sentence with "reached")
        r["contexts"] = [c for c in r["contexts"] if " reached " in c]
    return rows


def _write(folder: Path, rows: list[dict], shards: int) -> tuple[Path, Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    whole = folder / "answers.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    parts = folder / "shards"
    parts.mkdir()
    size = -(-len(rows) // shards)
    for i in range(shards):
        pq.write_table(pa.Table.from_pylist(rows[i * size:(i + 1) * size]), parts / f"shard-{i:03d}.parquet")
    return whole, parts


def _table(path: Path) -> list[dict]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    files = sorted(path.glob("part-*.parquet")) if path.is_dir() else [path]
    rows = pa.concat_tables([pq.read_table(f) for f in files]).to_pylist()
    return [{k: v for k, v in r.items() if k != "source"} for r in rows]


def offline(args: argparse.Namespace, tmp: Path) -> None:
    rows = _rows(args.n)
    whole, shards = _write(tmp, rows, args.shards)
    env = {**os.environ, "RAGEVAL_HOME": str(tmp / "home"), "PYTHONPATH": str(ROOT)}
    base = [sys.executable, "-m", "rageval", "score"]
    load0 = os.getloadavg()
    one = timed(base + [str(whole), "--metrics", args.metrics, "--details", "--no-store",
                        "--out", str(tmp / "one.parquet")], env)
    ray = timed(base + [str(shards), "--metrics", args.metrics, "--details", "--engine", "ray", "--workers",
                        str(args.workers), "--cpus", str(args.cpus), "--batch-size", "64",
                        "--part-rows", str(args.part_rows), "--out", str(tmp / "out"), "--json"], env)
    a, b = _table(tmp / "one.parquet"), _table(tmp / "out")
    unequal = sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))
    values = sum(
        1 for r in a for k, v in r.items() if k not in ("id", "claims", "record") and not k.endswith("_status")
    )
    print(json.dumps({"bench": "ray_offline", "answers": args.n, "metrics": args.metrics, "shards": args.shards,
                      "workers": args.workers, "cpus": args.cpus,
                      "single": {k: v for k, v in one.items() if k != "stdout"},
                      "ray": {k: v for k, v in ray.items() if k != "stdout"},
                      "rows_compared": len(a), "values_compared": values, "rows_unequal": unequal,
                      "load_before": [round(x, 1) for x in load0],
                      "load_after": [round(x, 1) for x in os.getloadavg()]}), flush=True)


def judged(args: argparse.Namespace, tmp: Path) -> None:
    import duckdb

    from devtools.judge_responder import respond
    from devtools.llm_server import FakeLLMServer

    rows = _rows(args.judged_n)
    (tmp / "j").mkdir()
    _, shards = _write(tmp / "j", rows, 2)
    cache = tmp / "llm-cache.duckdb"
    with FakeLLMServer() as server:
        server.script(responder=respond, latency=0.02)
        env = {**os.environ, "RAGEVAL_HOME": str(tmp / "home-j"), "PYTHONPATH": str(ROOT),
               "OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-bench-not-a-key"}
        cmd = [sys.executable, "-m", "rageval", "score", str(shards), "--metrics", "faithfulness",
               "--judge", "openai:judge-model", "--concurrency", "4", "--engine", "ray", "--workers", "2",
               "--cpus", str(args.cpus), "--batch-size", "16", "--part-rows", "50", "--llm-cache", str(cache)]
        first = timed(cmd + ["--out", str(tmp / "j-out")], env)
        calls, peak = server.count("/v1/chat/completions"), server.peak_in_flight
        server.reset()
        server.script(responder=respond, latency=0.02)
        second = timed(cmd + ["--out", str(tmp / "j-again")], env)
        again = server.count()
    with duckdb.connect(str(cache), read_only=True) as con:
        hits = con.execute("SELECT count(*) FILTER (WHERE cached), count(*) FILTER (WHERE NOT cached) "
                           "FROM llm_calls").fetchone()
    print(json.dumps({"bench": "ray_judged", "answers": args.judged_n, "workers": 2, "concurrency": 4,
                      "first": {"wall_s": first["wall_s"], "calls": calls, "peak_in_flight": peak},
                      "second": {"wall_s": second["wall_s"], "calls": again},
                      "cache_hits_logged": hits[0], "network_calls_logged": hits[1],
                      "same_values": _table(tmp / "j-out") == _table(tmp / "j-again"),
                      "load_after": [round(x, 1) for x in os.getloadavg()]}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--metrics", default=METRICS)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--part-rows", type=int, default=1000)
    parser.add_argument("--judged-n", type=int, default=200)
    parser.add_argument("--skip-offline", action="store_true")
    parser.add_argument("--skip-judged", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="rg-bench-") as tmp:
        if not args.skip_offline:
            offline(args, Path(tmp))
        if not args.skip_judged:
            judged(args, Path(tmp))


if __name__ == "__main__":
    from bench.bench_common import framed

    framed(main)
