"""The metrics whose offline path reads the learned claim verifier, beside the claim shares:
``ragas_answer_correctness`` (statements of answer and reference checked against each other) and
``groundedness`` (share of answer sentences the verifier finds SUPPORTED). Writes the
"Other metrics on the offline verifier" section of docs/validation.md.

    python -m validation.validate_verifier_metrics [--write-docs] [--summedits-limit 300]

Splits, none trained or tuned on by the verifier or these metrics: NQ301 (AUROC of
ragas_answer_correctness against the human correct/incorrect label, 95% CI by resampling
questions, beside answer_correctness_offline on the same rows); WiCE ``test`` claims against their
evidence and a seeded sample of SummEdits ``test`` summaries against their documents (AUROC of
groundedness against supported / consistent, 95% percentile bootstrap over rows).
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from rageval.claims.verifier import version as verifier_version
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Sample
from training.data import DATA, read_jsonl
from validation.docs_section import replace_section
from training.data import nq301
from training.embedding_cache import cached_resources
from validation.validate_answer_metrics import group_bootstrap, to_samples, with_ci
from training.stats import auroc
from validation.validate_claims import SEED, boot, fmt

ROOT = Path(__file__).resolve().parents[1]

DOCS = ROOT / "docs" / "validation.md"
BEGIN, END = "<!-- verifier-metrics:begin -->", "<!-- verifier-metrics:end -->"


def values(samples: list[Sample], metric: str, resources) -> np.ndarray:
    """The metric's values (NaN where unscored)."""
    scores = evaluate(samples, [get_metric(metric)], resources)[metric]
    return np.array([np.nan if s.value is None else float(s.value) for s in scores])


def nq_lines(resources) -> list[str]:
    rows = nq301()
    samples = to_samples(rows)
    t0 = time.perf_counter()
    ragas = values(samples, "ragas_answer_correctness", resources)
    seconds = time.perf_counter() - t0
    offline = values(samples, "answer_correctness_offline", resources)
    keep = ~np.isnan(ragas) & ~np.isnan(offline)
    y = np.array([r["label"] for r in rows])[keep]
    boots = group_bootstrap([r["group"] for r, k in zip(rows, keep) if k])
    lines = ["### NQ301: ragas_answer_correctness (offline)", "",
             f"{int(keep.sum())} of {len(rows)} rows scored by both ({seconds:.0f} s for ragas_answer_correctness).", "",
             "| metric | AUROC [95% CI, by question] |", "|---|---|"]
    for name, v in (("ragas_answer_correctness", ragas[keep]), ("answer_correctness_offline", offline[keep])):
        lines.append(f"| {name} | {fmt(with_ci('auroc', v, y, boots))} |")
    return lines


def groundedness_lines(resources, limit: int) -> list[str]:
    wice = [r for r in read_jsonl(DATA / "wice" / "claims.jsonl.gz") if r["split"] == "test" and r["level"] == "claim"]
    w_samples = [Sample(id=r["id"], answer=r["claim"], contexts=("\n".join(r["evidence"]),)) for r in wice]
    w_gold = np.array([r["label"] == "supported" for r in wice])
    summ = [r for r in read_jsonl(DATA / "summedits" / "items.jsonl.gz") if r["split"] == "test"]
    summ = [summ[i] for i in sorted(np.random.default_rng(SEED).choice(len(summ), min(limit, len(summ)), replace=False))]
    s_samples = [Sample(id=r["id"], answer=r["summary"], contexts=(r["document"],)) for r in summ]
    s_gold = np.array([r["label"] == 1 for r in summ])
    lines = ["", "### groundedness (offline) on WiCE and SummEdits", "",
             "| set | n scored (of) | AUROC of groundedness [95% CI] | AUROC of faithfulness (its value, the SUPPORTED share), same rows |", "|---|---|---|---|"]
    for name, samples, gold in (("WiCE test", w_samples, w_gold), (f"SummEdits test (seeded {limit})", s_samples, s_gold)):
        g, f = values(samples, "groundedness", resources), values(samples, "faithfulness", resources)
        keep = ~np.isnan(g) & ~np.isnan(f)
        lines.append(f"| {name} | {int(keep.sum())} ({len(samples)}) | {fmt(boot(auroc, g[keep], gold[keep]))} | "
                     f"{auroc(f[keep], gold[keep]):.3f} |")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--summedits-limit", type=int, default=300)
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    resources, store = cached_resources()
    lines = ["## Other metrics on the offline verifier", "",
             f"Command: `python -m validation.validate_verifier_metrics --write-docs --summedits-limit {args.summedits_limit}` "
             f"(verifier `{verifier_version()}`; 2 cores, load average {load:.1f} at the start).", ""]
    lines += nq_lines(resources)
    lines += groundedness_lines(resources, args.summedits_limit)
    store.flush()
    lines += ["", f"Total run time {time.perf_counter() - t0:.0f} s."]
    print("\n".join(lines))
    if args.write_docs:
        replace_section(DOCS, BEGIN, END, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
