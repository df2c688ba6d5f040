"""Load figures: ingest at scale, a big judged run with faults, kill-and-resume.

Three parts (each prints one JSON line; ``--parts`` picks them):

* ``ingest``: the SQuALITY stories (``$RAGEVAL_DATA/squality/stories.jsonl.gz``; 127 unique
  stories) written as .txt files and ingested into a fresh project: documents, chunks,
  seconds, CPU seconds, peak memory (``ru_maxrss``). ``--embedder local`` runs MiniLM;
  ``--embedder fake`` sends embeddings to the fake OpenAI-compatible server (load, chunk,
  store and index without the model's cost).
* ``judged``: ``--items`` (1000) QA items over the demo corpus, generator and judge
  ``openai:test-model`` on the fake LLM server (devtools/llm_server.py, scripted by
  devtools/judge_responder.py) with ``--fault-rate`` (10%) of calls failing (429/500/503, drops,
  truncated / prose / empty replies), at ``--concurrency`` 16: items completed, failed with a
  reason, lost (items without a stored row: must be 0), scores without value or reason (0).
* ``kill``: the same kind of run (``--kill-items``) in a child process, SIGKILLed when 40% of
  its calls are made, listed (must show ``interrupted``), resumed in a new process: items
  before the kill, after the resume, duplicated (0), lost (0), calls whose cached reply was
  fetched again (0).

    python -m bench.bench_load                                  # all three parts
    python -m bench.bench_load --parts ingest --embedder local --stories 127
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from devtools.judge_responder import respond
from devtools.llm_server import FakeLLMServer

ROOT = Path(__file__).resolve().parents[1]

SQUALITY = ROOT.parent.parent / "shared" / "data" / "squality" / "stories.jsonl.gz"
FAULTS = ("429", "500", "503", "drop", "truncated", "prose", "empty")


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _fresh_home() -> Path:
    home = Path(tempfile.mkdtemp(prefix="rageval-load-"))
    os.environ["RAGEVAL_HOME"] = str(home)
    return home


def _use_server(server: FakeLLMServer) -> None:
    os.environ["OPENAI_BASE_URL"] = server.url
    os.environ["OPENAI_API_KEY"] = "sk-bench-not-a-key"


def bench_ingest(args, server: FakeLLMServer) -> dict:
    from rageval.ingest.corpus import ingest
    from rageval.project import open_project

    path = Path(args.squality)
    stories: dict[str, str] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            stories.setdefault(str(row["story_id"]), row["text"])
    folder = Path(tempfile.mkdtemp(prefix="squality-"))
    for sid, text in list(stories.items())[: args.stories]:
        (folder / f"{sid}.txt").write_text(text, encoding="utf-8")
    _fresh_home()
    embedder = "local" if args.embedder == "local" else "openai:bench-embed"
    t0, c0 = time.monotonic(), _cpu()
    report = ingest(open_project("load"), "squality", paths=[folder], embedder=embedder)
    seconds, cpu = time.monotonic() - t0, _cpu() - c0
    chunks = sum(d["chunks"] for d in report.documents)
    return {"part": "ingest", "embedder": args.embedder, "documents": len(report.documents),
            "errors": len(report.errors), "characters": sum(len(t) for t in list(stories.values())[: args.stories]),
            "chunks": chunks, "chunks_indexed": report.chunks_indexed, "seconds": round(seconds, 1),
            "cpu_seconds": round(cpu, 1), "cpu_ms_per_chunk": round(1000 * cpu / max(chunks, 1), 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def _judged_project(items: int):
    from rageval.ingest.corpus import ingest
    from rageval.demo import DEMO_CORPUS, demo_dir
    from rageval.project import open_project
    from rageval.ingest.qa import import_qa

    project = open_project("load")
    ingest(project, DEMO_CORPUS, paths=[demo_dir() / "corpus"], embedder="openai:bench-embed")
    base = [json.loads(line) for line in (demo_dir() / "qa.jsonl").read_text(encoding="utf-8").splitlines() if line]
    rows = []
    for i in range(items):
        row = dict(base[i % len(base)])
        row["id"] = f"q{i:05d}"
        row["question"] = f"{row['question']} (variant {i // len(base)})" if i >= len(base) else row["question"]
        rows.append(json.dumps(row))
    import_qa(project, "load.jsonl", "\n".join(rows).encode(), name="load")
    return project


def _config(concurrency: int):
    from rageval.config import RunConfig
    from rageval.demo import DEMO_CORPUS

    return RunConfig(corpus=DEMO_CORPUS, qa_set="load", generator="openai:test-model", judge="openai:test-model",
                     embedder="openai:bench-embed", metrics=("faithfulness", "token_f1"), top_k=4,
                     concurrency=concurrency)


def _rates(rate: float) -> dict[str, float]:
    return {f: rate / len(FAULTS) for f in FAULTS}


def bench_judged(args, server: FakeLLMServer) -> dict:
    from rageval.runs.pipeline import execute, start_run
    from rageval.store import runs as store

    _fresh_home()
    project = _judged_project(args.items)
    server.reset()
    server.script(responder=respond, seed=17, rates=_rates(args.fault_rate), latency=args.latency)
    t0, c0 = time.monotonic(), _cpu()
    run_id = start_run(project, _config(args.concurrency))
    summary = execute(project, run_id)
    seconds, cpu = time.monotonic() - t0, _cpu() - c0
    answers = store.answers(project.db_path, run_id)
    scores = store.scores(project.db_path, run_id)
    faults = Counter(kind for _, kind in server.faults_seen())
    return {"part": "judged", "status": summary.status, "items": args.items, "concurrency": args.concurrency,
            "fault_rate": args.fault_rate, "requests": server.count(), "faults_injected": dict(faults),
            "completed": sum(a["status"] == "ok" for a in answers),
            "failed_with_reason": sum(a["status"] == "failed" and bool(a["reason"]) for a in answers),
            "failed_without_reason": sum(a["status"] == "failed" and not a["reason"] for a in answers),
            "lost": args.items - len({a["item_id"] for a in answers}),
            "scores_ok": sum(s["status"] == "ok" for s in scores),
            "scores_unscored_with_reason": sum(s["status"] != "ok" and bool(s["reason"]) for s in scores),
            "scores_silent": sum(s["status"] != "ok" and not s["reason"] for s in scores),
            "seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def _child(home: Path, *argv: str) -> subprocess.Popen:
    env = {**os.environ, "RAGEVAL_HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "rageval", *argv, "--project", "load"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def bench_kill(args, server: FakeLLMServer) -> dict:
    from rageval.runs.pipeline import start_run
    from rageval.store import llm_cache, owners
    from rageval.store import runs as store

    home = _fresh_home()
    project = _judged_project(args.kill_items)
    run_id = start_run(project, _config(args.concurrency))
    # calls an uninterrupted run makes: about 1 generation + 2 judge calls per item
    expected_posts = 3 * args.kill_items
    server.reset()
    server.script(responder=respond, seed=23, rates=_rates(args.fault_rate), latency=args.latency)
    t0 = time.monotonic()
    child = _child(home, "run", "--resume", run_id)
    while server.count("/v1/chat/completions") < 0.4 * expected_posts and child.poll() is None:
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    killed_after = time.monotonic() - t0
    before = len(store.finished_item_ids(project.db_path, run_id))
    cached = set(llm_cache.load_index(project.db_path, ["test-model"], 10**9)[1])
    fetched_before = Counter(c["key"] for c in llm_cache.call_rows(project.db_path, run_id) if not c["cached"])
    owners.reap(project.db_path)
    listed = store.get_run(project.db_path, run_id).status
    t1 = time.monotonic()
    child = _child(home, "run", "--resume", run_id, "--json")
    out, err = child.communicate()
    resume_seconds = time.monotonic() - t1
    answers = store.answers(project.db_path, run_id)
    fetched = Counter(c["key"] for c in llm_cache.call_rows(project.db_path, run_id) if not c["cached"])
    return {"part": "kill", "items": args.kill_items, "killed_after_s": round(killed_after, 1),
            "items_before_kill": before, "status_after_kill": listed,
            "resume_exit": child.returncode, "resume_status": json.loads(out)["status"] if out.strip() else err[-300:],
            "items_after_resume": len(answers),
            "failed_with_reason": sum(a["status"] == "failed" and bool(a["reason"]) for a in answers),
            "duplicated": len(answers) - len({a["item_id"] for a in answers}),
            "lost": args.kill_items - len({a["item_id"] for a in answers}),
            "cached_calls_made_again": sum(1 for k in cached if fetched[k] != fetched_before[k]),
            "resume_seconds": round(resume_seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="ingest,judged,kill")
    parser.add_argument("--squality", default=str(SQUALITY))
    parser.add_argument("--stories", type=int, default=127)
    parser.add_argument("--embedder", choices=("local", "fake"), default="fake")
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--kill-items", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--fault-rate", type=float, default=0.10)
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    server = FakeLLMServer().start()
    _use_server(server)
    try:
        for part in args.parts.split(","):
            result = {"ingest": bench_ingest, "judged": bench_judged, "kill": bench_kill}[part.strip()](args, server)
            print(json.dumps(result), flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    from bench.bench_common import framed

    framed(main)
