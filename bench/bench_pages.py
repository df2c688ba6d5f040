"""Page speed on a big project: 10,000 answers x 20 metrics in DuckDB (two runs of 5,000).

Measures, with Streamlit's AppTest in this process (caches cleared before each page):
each page's first render, filter interactions on Answers, and on a small real project the time
from pressing Start to the first progress update (and to the first update from the pipeline
itself, after the model has loaded). Prints a Markdown table; figures go to docs/benchmarks.md.

    python -m bench.bench_pages [--answers 10000] [--metrics 20] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

METRIC_NAMES = ["exact_match", "token_f1", "rougeL", "bleu", "answer_similarity", "answer_correctness_offline",
                "recall@5", "ndcg@10", "mrr", "faithfulness", "contradicted_share", "not_mentioned_share",
                "context_relevance", "hedging", "rouge1", "rouge2", "token_precision", "token_recall", "map",
                "precision@5", "hit_rate@5", "bertscore_f1"]


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _context(i: int, k: int, sentences: int) -> str:
    """Context ``k`` of answer ``i``: the one-sentence text of old, or ``sentences`` short sentences."""
    if sentences == 1:
        return f"Context {i}.{k} " * 12
    return " ".join(f"Context {i}.{k} sentence {s} says one thing about topic {i % 97}." for s in range(sentences))


def build(project, n_answers: int, n_metrics: int, seed: int = 0, *, sentences: int = 1) -> list[str]:
    """Two imported runs of ``n_answers // 2`` answers, ``n_metrics`` metrics and 3 claims each; every
    answer has 3 contexts of ``sentences`` sentences (1: the figures of docs/benchmarks.md before the
    claim labels' evidence picker, which lists every sentence)."""
    from rageval.runs.pipeline import new_run_id
    from rageval.store.items import save_items
    from rageval.store import runs as run_store
    from rageval.util import stable_hash

    rng = random.Random(seed)
    metrics = METRIC_NAMES[:n_metrics]
    domains = ["product", "hr", "travel", "history", "science", "software"]
    run_ids = []
    per_run = n_answers // 2
    for r in range(2):
        run_id = new_run_id() + str(r)
        config = {"source": f"bench-{r}.jsonl", "metrics": metrics, "judge": "heuristic"}
        run_store.create_run(project.db_path, run_id, kind="import", corpus=None, qa_set=None, config=config,
                             config_hash=stable_hash(config), n_items=per_run)
        entries = []
        for i in range(per_run):
            item = f"q{i:05d}"
            record = {"item_id": item, "ordinal": i, "question": f"Question {i} about topic {i % 97}?",
                      "answer": f"An answer to question {i}, with a figure of {rng.randint(1, 999)} units.",
                      "references": [f"reference {i}"], "contexts": [_context(i, k, sentences) for k in range(3)],
                      "retrieved": [(f"c{i}-{k}", None) for k in range(3)], "status": "ok", "reason": None,
                      "details": {"imported": True, "domain": domains[i % len(domains)]}}
            scores, claims = [], []
            for m in metrics:
                ok = rng.random() > 0.05
                scores.append({"metric": m, "signature": f"{m}|bench|v1",
                               "value": rng.random() if ok else None, "status": "ok" if ok else "unscored",
                               "reason": None if ok else "no_reference", "details": None})
            for k in range(3):
                claims.append({"signature": "faithfulness|bench|v1", "ordinal": k,
                               "text": f"Claim {k} of answer {i}.", "verdict": rng.choice(
                                   ["SUPPORTED", "SUPPORTED", "CONTRADICTED", "NOT_MENTIONED"]),
                               "evidence": f"Context {i}.{k}", "judge": "heuristic"})
            entries.append((record, scores, claims))
        save_items(project.db_path, run_id, entries)
        run_store.set_run_status(project.db_path, run_id, "finished")
        run_ids.append(run_id)
    return run_ids


def timed(fn) -> tuple[float, float]:
    c0, t0 = cpu(), time.perf_counter()
    fn()
    return time.perf_counter() - t0, cpu() - c0


def fresh_app(project: str):
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.session_state["project"] = project
    return at


PAGES = ["home", "documents", "qa_sets", "run", "answers", "human_review", "correlations", "compare"]


def page_times(project: str, repeat: int, only: list[str] | None = None) -> dict[str, list[tuple[float, float]]]:
    out: dict[str, list[tuple[float, float]]] = {}
    pages = [f"pages/{name}.py" for name in (only or PAGES)]
    for _ in range(repeat):
        for page in pages:
            at = fresh_app(project)
            if page == "pages/home.py":
                out.setdefault(page, []).append(timed(at.run))
                assert not at.exception, at.exception
                continue
            at.run()
            import streamlit as st

            st.cache_data.clear()
            at.switch_page(page)
            out.setdefault(page, []).append(timed(at.run))
            assert not at.exception, [e.value for e in at.exception]
            out.setdefault(page + " (re-render)", []).append(timed(at.run))
        if only:
            continue
        at = fresh_app(project)
        at.run()
        at.switch_page("pages/answers.py").run()
        out.setdefault("answers: search filter", []).append(
            timed(lambda: at.text_input(key="ans_search").set_value("question 12").run()))
        out.setdefault("answers: contradicted toggle", []).append(
            timed(lambda: at.toggle(key="ans_contradicted").set_value(True).run()))
        out.setdefault("answers: domain filter", []).append(
            timed(lambda: at.selectbox(key="ans_domain").set_value("travel").run()))
        assert not at.exception, [e.value for e in at.exception]
    return out


def first_progress() -> tuple[float, float]:
    """Seconds from Start to the worker's first progress (starting phase) and to the pipeline's first."""
    from rageval.config import RunConfig
    from rageval.runs.pipeline import start_run
    from rageval.runs.worker import RunWorkers
    from devtools.projects import small_project

    project = small_project(Path(tempfile.mkdtemp()), name="progress")
    run_id = start_run(project, RunConfig(corpus="c", qa_set="qa", top_k=3, metrics=("token_f1", "faithfulness")))
    workers = RunWorkers()
    t0 = time.perf_counter()
    workers.start(project, run_id)
    first = None
    while True:
        prog = workers.progress(project, run_id)
        if prog is not None and first is None:
            first = time.perf_counter() - t0
        if prog is not None and prog.phase != "starting":
            seen = time.perf_counter() - t0
            workers.join(120)  # let the run finish before the interpreter exits
            return first, seen
        time.sleep(0.01)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=int, default=10_000)
    ap.add_argument("--metrics", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--pages", default="", help=f"comma-separated subset of {','.join(PAGES)} (no filters, no progress)"
    )
    args = ap.parse_args()
    only = [p for p in args.pages.split(",") if p] or None
    os.environ["RAGEVAL_HOME"] = tempfile.mkdtemp(prefix="rageval-bench-")
    os.environ["RAGEVAL_NO_AUTODEMO"] = "1"
    from rageval.project import open_project

    project = open_project("bench")
    wall, cpu_s = timed(lambda: build(project, args.answers, args.metrics))
    print(f"built {args.answers} answers x {args.metrics} metrics in {wall:.1f} s "
          f"({project.db_path.stat().st_size / 1e6:.0f} MB DuckDB)\n")
    from rageval import human
    from rageval.store import runs as run_store

    run_ids = [r.id for r in run_store.runs(project.db_path)]
    wall, cpu_s = timed(lambda: human.correlate_runs(project, run_ids))
    print(f"stored one correlation analysis of both runs ({args.answers} answers, metric x metric and "
          f"against the human score) in {wall:.2f} s wall, {cpu_s:.2f} CPU s\n")
    results = page_times("bench", args.repeat, only)
    print("| page / interaction | median s (wall) | min s | max s | median CPU s |")
    print("|---|---|---|---|---|")
    for name, runs in results.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(
            f"| {name} | {statistics.median(walls):.2f} | {min(walls):.2f} | {max(walls):.2f} | "
            f"{statistics.median(cpus):.2f} |"
        )
    if only:
        return
    shown, pipeline_first = first_progress()
    print(f"\nStart -> first progress shown (worker, 'loading models'): {shown:.3f} s; "
          f"-> first progress from the pipeline (model loaded): {pipeline_first:.2f} s")


if __name__ == "__main__":
    from bench.bench_common import framed

    framed(main)
