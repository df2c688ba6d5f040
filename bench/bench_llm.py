"""Benchmark of the LLM layer against the fake OpenAI-compatible server (devtools/llm_server.py).

Default (judged metrics): N answers (question, answer, reference, 3 contexts of about
100 words) scored and stored through ``rageval.runs.scoring.score`` with four LLM-judged metrics
(faithfulness, ragas_answer_correctness, ragas_answer_relevance, context_relevance) at
``--latency`` per call and ``--concurrency`` in flight; the server answers with the scripted
judge of devtools/judge_responder.py and runs in ANOTHER process (its threads do not share this
process's GIL). Three phases: clean; with ``--fault-rate`` random 500/429 (half each,
Retry-After ``--retry-after`` s) on a fresh project; the clean project's cached re-run.
Reported: wall of the judged scoring (and of storing), ``ideal = calls x latency /
concurrency``, calls per answer, peak in flight, CPU-seconds per answer, items lost.

    python -m bench.bench_llm                     # N=200, 100 ms, concurrency 16, 10% faults
    python -m bench.bench_llm --items 50 --latency 0.05
    python -m bench.bench_llm --whole-process    # the same through `rageval score`, spawn to exit

``--raw`` runs the older client-only benchmark instead: each item makes ``--calls`` sequential ``chat_json`` calls
shaped like a claim-level judge
(claim extraction, claim verification against the contexts, answer relevance), with messages of
realistic length (~3 KB: instructions, question, answer, five context passages). Items run
concurrently on the client's pool. The fake OpenAI-compatible server (devtools/llm_server.py) runs
in ANOTHER process, so its threads do not share this process's GIL, and answers every call
after ``--latency`` seconds.

Reported: measured wall time against the ideal ``calls * latency / concurrency`` (target <=
1.25x at N=200, latency 100 ms, concurrency 16), then the same run again with a fresh client on
the same project database: wall time and calls made (target 0).

    python -m bench.bench_llm --raw                # N=200, 3 calls per item, 100 ms, concurrency 16
"""
from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

from bench.bench_judged import judged_benchmark, whole_process_benchmark
from devtools.server_process import make_llm_client, posts, start_server


PASSAGE = ("The Eiffel Tower was completed in 1889 for the World's Fair in Paris. It is 330 metres "
           "tall and was the tallest man-made structure until 1930. Gustave Eiffel's company "
           "designed and built it; it is made of wrought iron and weighs about 10,100 tonnes. ")
STEPS = (
    ("Extract the atomic factual claims made by the answer. Reply in JSON: "
     '{"claims": ["...", ...]}.', "claims"),
    ("For each claim, decide whether the contexts SUPPORT, CONTRADICT or do not mention it, "
     'quoting the evidence. Reply in JSON: {"verdicts": [{"claim", "verdict", "evidence"}]}.', "verdicts"),
    ("Rate from 1 to 5 how directly the answer addresses the question. Reply in JSON: "
     '{"score": n, "reason": "..."}.', "score"),
)


def messages_for(item: int, step: int) -> list[dict]:
    instructions, _ = STEPS[step % len(STEPS)]
    contexts = "\n\n".join(f"[{k + 1}] {PASSAGE}" for k in range(5))
    return [
        {"role": "system", "content": "You are a careful evaluator of question answering systems. " + instructions},
        {"role": "user", "content": (
            f"Question {item}: When was the Eiffel Tower completed and how tall is it?\n\n"
            f"Answer: It was completed in 1889 and is about 330 metres tall (item {item}).\n\n"
            f"Contexts:\n{contexts}\n\nReply in JSON only.")},
    ]


def validate(value):
    if not isinstance(value, dict) or not value:
        raise ValueError("expected a non-empty JSON object")
    return value


def run(url: str, store: Path, run_id: str, items: int, calls: int, concurrency: int) -> tuple[float, list]:
    client = make_llm_client({"judge": "openai:bench-judge"}, store, run_id, concurrency,
                             env={"OPENAI_BASE_URL": url})

    def judge_item(i: int) -> list:
        return [client.chat_json("judge", messages_for(i, s), validate=validate) for s in range(calls)]

    start = time.perf_counter()
    results = client.map(judge_item, range(items))
    wall = time.perf_counter() - start
    client.close()  # flushes the cache and call log
    return wall, [r for item in results for r in item]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--calls", type=int, default=3, help="--raw: chat_json calls per item")
    parser.add_argument("--latency", type=float, default=0.1, help="server seconds per call")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--fault-rate", type=float, default=0.1, help="share of calls failing (half 500, half 429)")
    parser.add_argument("--retry-after", default="1", help="Retry-After seconds sent with the 429s")
    parser.add_argument("--phases", default="clean,faults,cached", help="which of clean,faults,cached to run")
    parser.add_argument("--raw", action="store_true", help="the client-only benchmark of --calls calls per item")
    parser.add_argument("--whole-process", action="store_true",
                        help="the judged metrics through `rageval score` in a fresh process, then its cached re-run")
    parser.add_argument(
        "--root", default=None, help="--whole-process: the checkout whose rageval runs (default this one)"
    )
    args = parser.parse_args()
    if args.whole_process:
        return whole_process_benchmark(args)
    if not args.raw:
        return judged_benchmark(args)

    proc, url = start_server(args.latency)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            store = Path(tmp) / "bench.duckdb"
            n_calls = args.items * args.calls
            ideal = n_calls * args.latency / args.concurrency
            # items are sequences of dependent calls: each worker runs ceil(items/concurrency) of them
            floor = math.ceil(args.items / args.concurrency) * args.calls * args.latency
            wall, replies = run(url, store, "bench-1", args.items, args.calls, args.concurrency)
            made = posts(url)
            ok = sum(r.status == "ok" for r in replies)
            wall2, replies2 = run(url, store, "bench-2", args.items, args.calls, args.concurrency)
            made2 = posts(url) - made
            same = [r.value for r in replies2] == [r.value for r in replies]
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    print(f"items={args.items} calls/item={args.calls} latency={args.latency * 1000:.0f}ms "
          f"concurrency={args.concurrency}")
    print(f"first run : {n_calls} calls ({made} made, {ok} ok), wall {wall:.2f} s, ideal {ideal:.2f} s, "
          f"ratio {wall / ideal:.2f}x (target <= 1.25x); packing floor {floor:.2f} s ({floor / ideal:.2f}x)")
    print(f"cached run: wall {wall2:.2f} s, calls made {made2} (target 0), same values: {same}")


if __name__ == "__main__":
    from bench.bench_common import framed

    framed(main)
