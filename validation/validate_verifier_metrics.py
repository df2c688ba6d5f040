"""The metrics whose offline path reads claim verdicts, with the offline rule (SUPPORTED only when
copied, every other claim UNVERIFIED; the metrics count decided claims and report coverage):
``faithfulness``, ``groundedness`` and ``ragas_answer_correctness``. Writes the "Other metrics on
the offline verifier" section of docs/validation.md.

    python -m validation.validate_verifier_metrics [--write-docs] [--summedits-limit 300]

Splits, none tuned on: NQ301 (ragas_answer_correctness against the human correct / incorrect
label); WiCE ``test`` claims against their whole cited article and a seeded sample of SummEdits
``test`` summaries against their documents (faithfulness and groundedness against supported /
consistent). Offline a value exists only where some claim is decided (copied), and it is then 1
for faithfulness and groundedness, so the figures are: how many answers are scored (the rest
``no_decided_claims``); the precision of "scored" as a prediction of the positive class, with a
Wilson 95% interval, beside the positive class's share (always predicting positive) and the
majority class; and the AUROC of the per-answer coverage (decided / all claims) as a score, with a
95% percentile bootstrap over rows (over questions on NQ301), beside chance (0.5).
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from rageval.claims.offline import version as verifier_version
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Sample
from training.data import DATA, read_jsonl
from validation.docs_section import replace_section
from training.data import nq301
from training.embedding_cache import cached_resources
from validation.validate_answer_metrics import group_bootstrap, to_samples, with_ci
from training.stats import auroc
from validation.validate_claims import SEED, boot, fmt
from validation.validate_offline_verdicts import wilson

ROOT = Path(__file__).resolve().parents[1]

DOCS = ROOT / "docs" / "validation.md"
BEGIN, END = "<!-- verifier-metrics:begin -->", "<!-- verifier-metrics:end -->"


def scores(samples: list[Sample], metric: str, resources) -> tuple[np.ndarray, np.ndarray]:
    """The metric's values and coverages (NaN where it has none)."""
    got = evaluate(samples, [get_metric(metric)], resources)[metric]
    value = np.array([np.nan if s.value is None else float(s.value) for s in got])
    cover = np.array([np.nan if (s.details or {}).get("coverage") is None else float(s.details["coverage"])
                      for s in got])
    return value, cover


def row_line(name: str, metric: str, value: np.ndarray, cover: np.ndarray, gold: np.ndarray, auc: str) -> str:
    scored = ~np.isnan(value)
    k, n = int(gold[scored].sum()), int(scored.sum())
    lo, hi = wilson(k, n)
    prec = f"{k / n:.3f} [{lo:.3f}, {hi:.3f}] ({k}/{n})" if n else "-"
    share = gold.mean()
    majority = f"{'positive' if share >= 0.5 else 'negative'} {max(share, 1 - share):.3f}"
    mean_value = f"{np.nanmean(value):.3f}" if n else "-"
    return (f"| {name} | {metric} | {n} of {len(value)} | {mean_value} | {np.nanmean(cover):.3f} | {prec} | "
            f"{share:.3f} | {majority} | {auc} |")


HEADER = ["| set | metric | answers scored | mean value (scored) | mean coverage | precision of \"scored\" for the "
          "positive class [Wilson 95%] | positive share (always positive) | majority class | AUROC of coverage "
          "[95% CI] (chance 0.5) |", "|---|---|---|---|---|---|---|---|---|"]


def nq_lines(resources) -> list[str]:
    rows = nq301()
    samples = to_samples(rows)
    t0 = time.perf_counter()
    value, cover = scores(samples, "ragas_answer_correctness", resources)
    seconds = time.perf_counter() - t0
    y = np.array([r["label"] for r in rows]).astype(bool)
    keep = ~np.isnan(cover)
    boots = group_bootstrap([r["group"] for r, k in zip(rows, keep) if k])
    auc = fmt(with_ci("auroc", cover[keep], y[keep], boots)) if keep.sum() and len(set(y[keep])) > 1 else "-"
    scored = ~np.isnan(value)
    acc = ""
    if scored.any():
        right = int(((value[scored] >= 0.5) == y[scored]).sum())
        acc = (f" On the {int(scored.sum())} scored answers, value >= 0.5 agrees with the human label on {right} "
               f"({right / scored.sum():.3f}); the majority class of those answers scores "
               f"{max(y[scored].mean(), 1 - y[scored].mean()):.3f}.")
    return ["### NQ301: ragas_answer_correctness (offline)", "",
            f"{len(rows)} answers ({seconds:.0f} s).{acc} `answer_correctness_offline` (its own model, not claims) "
            "is not affected: AUROC 0.851 (the answer metrics section).", "", *HEADER,
            row_line("NQ301", "ragas_answer_correctness", value, cover, y, auc)]


def claim_set_lines(resources, limit: int) -> list[str]:
    wice = [r for r in read_jsonl(DATA / "wice" / "claims.jsonl.gz") if r["split"] == "test" and r["level"] == "claim"]
    w_samples = [Sample(id=r["id"], answer=r["claim"], contexts=("\n".join(r["evidence"]),)) for r in wice]
    w_gold = np.array([r["label"] == "supported" for r in wice])
    summ = [r for r in read_jsonl(DATA / "summedits" / "items.jsonl.gz") if r["split"] == "test"]
    summ = [
        summ[i] for i in sorted(np.random.default_rng(SEED).choice(len(summ), min(limit, len(summ)), replace=False))
    ]
    s_samples = [Sample(id=r["id"], answer=r["summary"], contexts=(r["document"],)) for r in summ]
    s_gold = np.array([r["label"] == 1 for r in summ])
    lines = ["", "### faithfulness and groundedness (offline) on WiCE and SummEdits", "", *HEADER]
    for name, samples, gold in (
        ("WiCE test", w_samples, w_gold),
        (f"SummEdits test (seeded {limit})", s_samples, s_gold),
    ):
        for metric in ("faithfulness", "groundedness"):
            value, cover = scores(samples, metric, resources)
            keep = ~np.isnan(cover)
            auc = fmt(boot(auroc, cover[keep], gold[keep])) if len(set(gold[keep])) > 1 else "-"
            lines.append(row_line(name, metric, value, cover, gold, auc))
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--summedits-limit", type=int, default=300)
    args = ap.parse_args(argv)
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    resources, store = cached_resources()
    lines = [
        "## Other metrics on the offline verifier",
        "",
        "Command: `python -m validation.validate_verifier_metrics --write-docs --summedits-limit "
        f"{args.summedits_limit}` "
        f"(offline check `{verifier_version()}`; 2 cores shared with other work, load average {load:.1f} at the "
        "start).",
        "",
    ]
    lines += nq_lines(resources)
    lines += claim_set_lines(resources, args.summedits_limit)
    store.flush()
    lines += ["", f"Total run time {time.perf_counter() - t0:.0f} s."]
    print("\n".join(lines))
    if args.write_docs:
        replace_section(DOCS, BEGIN, END, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
