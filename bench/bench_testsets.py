"""Generated QA sets on a corpus nobody on the team wrote: SQuALITY's science-fiction stories
($RAGEVAL_DATA: squality/stories.jsonl.gz, Project Gutenberg texts; Wang et al. 2022).

    python -m bench.bench_testsets [--stories 10] [--n 50] [--out docs/testsets.json]

Uses the first ``--stories`` stories of SQuALITY's ``test`` split by story id (the portion this
report reads; no rule of rageval/testsets was written or tuned while looking at any story), ingests
them with the default chunking and embedder into a fresh project, then for each generator:

- ``template`` (offline): questions kept / asked, drop reasons;
- ``llm (scripted)``: the LLM path's plumbing against the scripted test server
  (devtools/llm_server.py with devtools/testset_responder.py: a stand-in, not a model), every kind;
  model calls of the first run and of an unchanged second run, and the dry-run estimate.

For each kept set: the share of kept questions whose reference is copied from its chunks
(containment) and the share the critic found supported (contained, or by the judge); the share of
kept questions with another kept question at cosine >= 0.90 (near duplicates left); and the
default pipeline's retrieval on the generated set (``rageval run`` defaults: top-k 5, local
embedder): recall@5 and MRR over the items with relevant ids, with a 95% percentile bootstrap CI
(2,000 resamples, seed 0). Prints one JSON object; the command, load and CPU-seconds with it.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from training.data import DATA, read_jsonl

STORIES = DATA / "squality" / "stories.jsonl.gz"


def _stories(count: int) -> list[dict]:
    rows = read_jsonl(STORIES)
    test = sorted((r for r in rows if r["split"] == "test"), key=lambda r: int(r["story_id"]))
    return test[:count]


def _ci(values: list[float]) -> list[float | None]:
    from scipy.stats import bootstrap

    if len(set(values)) < 2:
        return [values[0], values[0]] if values else [None, None]
    res = bootstrap((np.asarray(values),), np.mean, n_resamples=2000, method="percentile", random_state=0)
    return [round(float(res.confidence_interval.low), 3), round(float(res.confidence_interval.high), 3)]


def _figures(project, name: str, result, seconds: float) -> dict:
    from rageval.config import RunConfig
    from rageval.embed.cache import get_embedder
    from rageval.embed.sentences import sentence_vectors
    from rageval.runs.pipeline import execute, start_run
    from rageval.store import runs as store
    from rageval.store.corpus import chunks_by_id
    from rageval.testsets import critic

    kept = result.kept
    text = {
        cid: c["text"]
        for cid, c in chunks_by_id(project.db_path, sorted({i for c in kept for i in c.chunk_ids})).items()
    }
    answerable = [c for c in kept if c.chunk_ids]
    contained = sum(critic.contained_reference(c.reference, [text[i] for i in c.chunk_ids]) for c in answerable)
    supported = sum(c.detail in ("contained", "judge") for c in answerable)
    vectors = sentence_vectors(get_embedder(project, "local"), [c.question for c in kept])
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -1.0)
    near = int((sims.max(axis=1) >= critic.DUPLICATE_COSINE).sum()) if len(kept) > 1 else 0
    run_id = start_run(project, RunConfig(corpus="squality", qa_set=name, metrics=("recall@5", "mrr")))
    execute(project, run_id)
    values: dict[str, list[float]] = {"recall@5": [], "mrr": []}
    for s in store.scores(project.db_path, run_id):
        if s["status"] == "ok":
            values[s["metric"]].append(s["value"])
    kinds: dict[str, int] = {}
    for c in kept:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    return {
        "asked": result.asked, "kept": len(kept), "drops": result.drops, "kinds": kinds, "seconds": round(seconds, 1),
        "reference_contained_share": round(contained / len(answerable), 3) if answerable else None,
        "reference_supported_share": round(supported / len(answerable), 3) if answerable else None,
        "answerable": len(answerable), "near_duplicates_left": near,
        "duplicate_drop_share_of_asked": round(result.drops.get("near_duplicate", 0) / max(result.asked, 1), 3),
        "recall@5": {"mean": round(float(np.mean(values["recall@5"])), 3), "ci95": _ci(values["recall@5"]),
                     "n": len(values["recall@5"])},
        "mrr": {"mean": round(float(np.mean(values["mrr"])), 3), "ci95": _ci(values["mrr"]), "n": len(values["mrr"])},
        "examples": [{"kind": c.kind, "question": c.question, "reference": c.reference[:160]} for c in kept[:4]],
        "dropped_examples": [{"reason": c.dropped, "question": c.question, "detail": c.detail[:120]}
                             for c in result.dropped[:4]],
    }


def _multi_hop_links(project, result) -> dict:
    """How many kept multi-hop questions pair two chunks that share a named entity (the partner rule's
    first choice, :func:`rageval.testsets.llm.multi_hop_partners`), entities read over the whole corpus."""
    from rageval.ingest.corpus import corpus_chunking, ensure_chunks
    from rageval.testsets.llm import chunk_entities

    chunks = ensure_chunks(project, "squality", corpus_chunking(project, "squality"))
    entities = dict(
        zip((c["id"] for c in chunks), chunk_entities([c["text"] for c in chunks]) or [frozenset()] * len(chunks))
    )
    pairs = [c.source_chunks for c in result.kept if c.kind == "multi_hop" and len(c.source_chunks) == 2]
    return {
        "multi_hop_kept": len(pairs),
        "multi_hop_sharing_entity": sum(bool(entities[a] & entities[b]) for a, b in pairs),
    }


def main() -> None:
    from bench.bench_common import announce, run_facts

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stories", type=int, default=10)
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--out", help="also write the JSON here")
    args = parser.parse_args()
    announce()
    os.environ["RAGEVAL_HOME"] = tempfile.mkdtemp(prefix="bench-testsets-")
    from rageval.config import TestsetConfig
    from rageval.ingest.corpus import ingest
    from rageval.project import open_project
    from rageval.testsets.generate import generate_set
    from devtools import testset_responder
    from devtools.llm_server import FakeLLMServer

    project = open_project("bench")
    stories = _stories(args.stories)
    files = [(f"{r['story_id']}.txt", f"{r['title']}\n\n{r['text']}".encode()) for r in stories]
    t0 = time.perf_counter()
    report = ingest(project, "squality", files=files)
    out = {"corpus": {"source": "SQuALITY stories, test split", "stories": [r["story_id"] for r in stories],
                      "characters": sum(len(r["text"]) for r in stories),
                      "chunks": report.chunks_indexed, "ingest_seconds": round(time.perf_counter() - t0, 1)}}

    t0 = time.perf_counter()
    result = generate_set(project, TestsetConfig(corpus="squality", name="template", n=args.n))
    out["template"] = _figures(project, "template", result, time.perf_counter() - t0)

    server = FakeLLMServer().start()
    try:
        server.script(responder=testset_responder.make())
        os.environ.update({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-bench-not-a-key"})
        config = TestsetConfig(corpus="squality", name="llm", n=args.n, generator="openai:scripted-model")
        estimate = generate_set(project, config, dry_run=True).estimate
        t0 = time.perf_counter()
        result = generate_set(project, config)
        seconds = time.perf_counter() - t0
        first_calls = server.count("/v1/chat/completions")
        again = generate_set(project, config)
        out["llm_scripted"] = {
            **_figures(project, "llm", result, seconds),
            **_multi_hop_links(project, result),
            "calls_first_run": first_calls,
            "calls_second_run": server.count("/v1/chat/completions") - first_calls,
            "second_run_same_questions": [c.question for c in again.kept] == [c.question for c in result.kept],
            "estimate_calls": estimate.calls,
        }
    finally:
        server.stop()
    out["run"] = run_facts()
    text = json.dumps(out, indent=2, ensure_ascii=False)
    print(text)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
