"""The judged-metrics benchmark of ``bench/bench_llm.py`` (see its docstring); run that script."""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from devtools.server_process import make_llm_client, server_stats, start_server

METRICS = ("faithfulness", "ragas_answer_correctness", "ragas_answer_relevance", "context_relevance")
WORDS = ("river", "bridge", "harbour", "council", "railway", "market", "library", "festival", "museum", "tower")


def passage(i: int, k: int) -> str:
    """About 100 words about town i, passage k."""
    w = WORDS[(i + k) % len(WORDS)]
    return (f"The {w} of Town {i} was opened in {1850 + i % 150} after a long debate in the council. "
            f"Passage {k} records that it cost {100 + 7 * i} thousand pounds and that {3 + k} architects "
            f"worked on it. Visitors today can walk along the old {w}, read the plaques that tell its "
            f"history, and visit a small exhibition about the engineers who built it. The town keeps "
            f"records of every repair since the opening, and volunteers guide tours on Sundays in summer. "
            f"Local schools use the {w} in history lessons about the growth of Town {i}.")


def samples(n: int) -> list:
    from rageval.types import Sample

    out = []
    for i in range(n):
        w = WORDS[i % len(WORDS)]
        out.append(Sample(
            id=f"item-{i}", question=f"When was the {w} of Town {i} opened and what did it cost?",
            answer=(f"The {w} of Town {i} was opened in {1850 + i % 150}. It cost {100 + 7 * i} thousand pounds. "
                    "Volunteers guide tours on Sundays."),
            contexts=tuple(passage(i, k) for k in range(3)),
            references=(f"It opened in {1850 + i % 150} and cost {100 + 7 * i} thousand pounds.",),
        ))
    return out


class _TimedEmbedder:
    """The run's embedder, counting the CPU seconds its calls take (thread time)."""

    def __init__(self, inner):
        self.inner, self.cpu = inner, 0.0

    def embed(self, texts):
        start = time.thread_time()
        try:
            return self.inner.embed(texts)
        finally:
            self.cpu += time.thread_time() - start

    def __getattr__(self, name):
        return getattr(self.inner, name)


def _phase(project, items, url: str, concurrency: int, label: str):
    """Score and store ``items`` on ``project``; returns timings and the client's stats."""
    import rageval.runs.scoring as scoring
    from rageval.types import Resources
    from rageval.embed.cache import get_embedder

    embedder = _TimedEmbedder(get_embedder(project, "local"))
    embedder.embed(["warm up the model before timing"])
    embedder.cpu = 0.0
    client = make_llm_client({"judge": "openai:bench-judge"}, store_path=project.db_path, run_id=label,
                             concurrency=concurrency, env={"OPENAI_BASE_URL": url})
    timing: dict[str, float] = {}
    # the module whose evaluate the score path calls: the engine-neutral unit now, scoring before it
    try:
        import rageval.scoring.unit as where
    except ImportError:
        where = scoring
    patched = next(n for n in ("evaluate_parallel", "evaluate") if hasattr(where, n))
    real_evaluate = getattr(where, patched)

    def timed_evaluate(*args, **kwargs):
        start, cpu0 = time.perf_counter(), time.process_time()
        try:
            return real_evaluate(*args, **kwargs)
        finally:
            timing["judged"] = time.perf_counter() - start
            timing["judged_cpu"] = time.process_time() - cpu0
            timing["embed_cpu"] = embedder.cpu

    setattr(where, patched, timed_evaluate)
    cpu, start = time.process_time(), time.perf_counter()
    try:
        result = scoring.score(items, list(METRICS), judge="openai:bench-judge", project=project,
                               resources=Resources(embedder_factory=lambda: embedder, llm=client), source=label)
    finally:
        setattr(where, patched, real_evaluate)
        client.close()
    timing["total"] = time.perf_counter() - start
    timing["cpu"] = time.process_time() - cpu
    timing["stored"] = timing["total"] - timing["judged"]
    statuses: dict[str, int] = {}
    for row in result.rows:
        for m in METRICS:
            key = row.get(f"{m}_status") or ("ok" if row.get(m) is not None else "missing")
            statuses[key] = statuses.get(key, 0) + 1
    return timing, client.stats(), result, statuses


def judged_benchmark(args) -> None:
    from rageval.project import open_project

    os.environ["RAGEVAL_HOME"] = tempfile.mkdtemp(prefix="bench-llm-")
    items = samples(args.items)
    lat, conc = args.latency, args.concurrency
    half = f"{args.fault_rate / 2:g}"
    report = []

    def line(text: str) -> None:
        print(text, flush=True)
        report.append(text)

    import rageval

    line(f"rageval from {Path(rageval.__file__).parent}")
    line(f"items={args.items} metrics={','.join(METRICS)} latency={lat * 1000:.0f}ms concurrency={conc} "
         f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f}")
    clean_project = open_project("bench-clean")
    clean_url = None
    for label, project, extra in (
        ("clean", clean_project, ()),
        ("faults", open_project("bench-faults"), ("--rates", f"500={half},429={half}", "--seed", "7",
                                                   "--retry-after", args.retry_after)),
        ("cached", clean_project, ()),
    ):
        if label not in args.phases.split(","):
            continue
        if label == "cached" and clean_url:
            # the same address as the clean run: the judge cache is keyed by the server's URL
            extra = ("--port", clean_url.rsplit(":", 1)[1].split("/")[0])
        proc, url = start_server(lat, "--judge", *extra)
        if label == "clean":
            clean_url = url
        try:
            timing, stats, result, statuses = _phase(project, items, url, conc, label)
            info = server_stats(url)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        chat = info["counts"].get("/v1/chat/completions", 0)
        other = sum(n for p, n in info["counts"].items() if p != "/v1/chat/completions" and p != "/_stats")
        ideal = chat * lat / conc
        ratio = f"{timing['judged'] / ideal:.2f}x ideal" if ideal else "-"
        per = 1000 / args.items
        line(
            f"{label:7s}: judged {timing['judged']:.2f} s ({ratio}, ideal {ideal:.2f} s), stored in "
            f"{timing['stored']:.2f} s, total {timing['total']:.2f} s; chat calls {chat} "
            f"({chat / args.items:.2f} per answer), other requests {other}; peak in flight {info['peak_in_flight']}; "
            f"limiter min {stats.min_limit} decreases {stats.decreases} 429s {getattr(stats, 'throttled', '?')}; "
            f"CPU per answer: judged {timing['judged_cpu'] * per:.0f} ms (embedding {timing['embed_cpu'] * per:.0f} "
            "ms), "
            f"stored {(timing['cpu'] - timing['judged_cpu']) * per:.0f} ms, server "
            f"{info.get('cpu_seconds', 0) * per:.0f} ms; "
            f"load {os.getloadavg()[0]:.1f}; scores {statuses}; rows {len(result.rows)}"
        )
    out = Path(os.environ.get("BENCH_OUT", "")) if os.environ.get("BENCH_OUT") else None
    if out:
        out.write_text("\n".join(report) + "\n", encoding="utf-8")


def whole_process_benchmark(args) -> None:
    """``rageval score`` of the same answers with the four judged metrics as a user runs it: a fresh
    process from spawn to exit (imports, model load, scoring, storing, output), then the same command
    again in the same home against a server on the same address (every reply cached: 0 calls).
    Whole-process wall against ``ideal = chat calls x latency / concurrency``; peak in flight from the
    server. ``--root DIR``: the checkout whose ``rageval`` runs (another commit, same script and server)."""
    root = Path(args.root).resolve() if args.root else Path(__file__).resolve().parents[1]
    home = tempfile.mkdtemp(prefix="bench-llm-whole-")
    path = Path(home) / "answers.jsonl"
    path.write_text("".join(json.dumps({"id": s.id, "question": s.question, "answer": s.answer,
                                        "contexts": list(s.contexts), "reference": s.references[0]}) + "\n"
                            for s in samples(args.items)), encoding="utf-8")
    lat, conc = args.latency, args.concurrency
    print(f"items={args.items} metrics={','.join(METRICS)} latency={lat * 1000:.0f}ms concurrency={conc} "
          f"cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f} (whole process)", flush=True)
    port = None
    for label in ("clean", "cached"):
        proc, url = start_server(lat, "--judge", *(("--port", port) if port else ()))
        port = port or url.rsplit(":", 1)[1].split("/")[0]
        env = {**os.environ, "RAGEVAL_HOME": home, "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "bench",
               "PYTHONPATH": str(root)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        cmd = [sys.executable, "-m", "rageval", "score", str(path), "--metrics", ",".join(METRICS),
               "--judge", "openai:bench-judge", "--concurrency", str(conc), "--out", str(Path(home) / f"{label}.jsonl")]
        try:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            spawned, start = time.time(), time.perf_counter()
            done = subprocess.run(cmd, env=env, cwd=root, capture_output=True, text=True)
            wall = time.perf_counter() - start
            ended = time.time()
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            info = server_stats(url)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        if done.returncode != 0:
            raise SystemExit(f"score failed ({done.returncode}): {done.stderr[-1500:]}")
        chat = info["counts"].get("/v1/chat/completions", 0)
        ideal = chat * lat / conc
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        print(
            json.dumps(
                {
                    "bench": "judged_whole_process",
                    "phase": label,
                    "items": args.items,
                    "wall_s": round(wall, 2),
                    "ideal_s": round(ideal, 2),
                    "ratio": round(wall / ideal, 3) if ideal else None,
                    "chat_calls": chat,
                    "peak_in_flight": info["peak_in_flight"],
                    **_post_times(info, spawned, ended),
                    "cpu_s": round(cpu, 2),
                    "cpu_share": round(cpu / wall, 3),
                    "load_avg": [round(x, 2) for x in os.getloadavg()],
                }
            ),
            flush=True,
        )


def _post_times(info: dict, spawned: float, ended: float) -> dict:
    """From the server's /_stats: seconds from spawn to the first request, the requests in flight on
    average from then to the end of the last one, and the seconds from that end to the exit."""
    first, last = info.get("first_post"), info.get("last_post_end")
    if first is None or last is None or last <= first:
        return {}
    return {
        "first_request_s": round(first - spawned, 2),
        "mean_in_flight": round(info["post_seconds"] / (last - first), 1),
        "after_last_s": round(ended - last, 2),
    }
