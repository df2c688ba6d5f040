"""Long answers and answer length in the answer-metrics validation (validate_answer_metrics.py).

Every data set is split by question into a development and a report portion
(:func:`validation.portions.seeded_portion`, seed :data:`SEED`, :data:`DEV_SHARE` percent to
development): the long-answer route of answer_correctness_offline (sentence alignment, pooled
references, the 40-token switch) was chosen on SQuALITY's development portion only; the report
portion is read once, for the figures in docs. The graded 1-5 set is a development set as a whole.

- :func:`head_only`: the learned head's probability on every row, long references included (what
  answer_correctness_offline v2 scored), to measure what the route changes.
- :func:`long_lines`: SQuALITY per portion, and answer_correctness_offline minus ROUGE-L and minus
  BERTScore on the report portion with paired bootstrap CIs by question.
- :func:`dev_loss_lines`: on the development portions of NQ301, EVOUNA-NQ and the graded set, the
  route's change against the head alone (target: a loss of at most 0.01 AUROC / Spearman).
- :func:`band_lines`: the figure per answer-length band (answer tokens), report portions.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from rageval.metrics.correctness import score_references
from rageval.metrics.lexical import references_of
from rageval.metrics.semantic import reference_cosines
from rageval.text.tokenize import answer_tokens
from rageval.types import Resources, Sample
from validation.portions import seeded_portion

SEED, DEV_SHARE = 52, 50
ACS, HEAD = "answer_correctness_offline", "learned head alone (v2)"
BANDS = ((0, 10), (11, 50), (51, 150), (151, 10**9))
CARD_MARKERS = ("<!-- correctness-bands:start -->", "<!-- correctness-bands:end -->")  # docs/metrics.md
COMPARED = (ACS, HEAD, "token_f1", "rougeL", "bertscore_f1", "answer_similarity")


def portion_of(row: dict) -> str:
    """``dev`` for DEV_SHARE percent of questions (seeded sha256 of the row's group), else ``report``."""
    return seeded_portion(SEED, str(row["group"]), DEV_SHARE)


def head_only(samples: Sequence[Sample], resources: Resources) -> list[float]:
    """The learned head's max-over-references probability of every sample, whatever its reference length."""
    sims = reference_cosines(resources.embedder, samples)
    return [score_references(s.question or "", s.answer or "", references_of(s), [min(max(c, -1.0), 1.0) for c in c_],
                             "en")[0] for s, c_ in zip(samples, sims)]


def answer_length(row: dict) -> int:
    return len(answer_tokens(row["answer"] or "", "en"))


def _band(n: int) -> str:
    lo, hi = next(b for b in BANDS if b[0] <= n <= b[1])
    return f"{lo}-{hi}" if hi < 10**9 else f"over {lo - 1}"


def long_lines(sq: dict, vam) -> list[str]:
    """SQuALITY figures per portion and the report portion's differences (``vam``: the validation module)."""
    v, y, rows = sq["values"], sq["y"], sq["rows"]
    report = np.array([portion_of(r) == "report" for r in rows])
    boots = vam.group_bootstrap([r["group"] for r, k in zip(rows, report) if k])
    names = [m for m in COMPARED if m in v]
    out = [
        "### Long answers: SQuALITY by portion",
        "",
        f"Split by question (seed {SEED}, {DEV_SHARE}% to development): {int((~report).sum())} development rows "
        f"({len({r['group'] for r, k in zip(rows, report) if not k})} questions), {int(report.sum())} report rows "
        f"({len({r['group'] for r, k in zip(rows, report) if k})} questions). The long-answer route was chosen on the "
        "development rows only; the report rows were scored once, at the end. Spearman against mean human "
        "correctness, 95% CI by question.",
        "",
        "| metric | report portion [95% CI] | development portion |",
        "|---|---|---|",
    ]
    for m in names:
        x = v[m]
        out.append(f"| {m} | {vam.fmt(vam.with_ci('spearman', x[report], y[report], boots))} "
                   f"| {vam.num(vam._stat('spearman', x[~report], y[~report]))} |")
    out.append("")
    for other in ("rougeL", "bertscore_f1"):
        if other in v:
            d = vam.diff_ci("spearman", v[ACS][report], v[other][report], y[report], boots)
            out.append(f"- Report portion, {ACS} minus {other}: {vam.fmt(d)} (paired bootstrap by question).")
    return out + [""]


def dev_loss_lines(summaries: dict[str, tuple[str, dict]], vam) -> list[str]:
    """Per data set (name -> (statistic, summary)): on the development portion, v3 minus the head alone."""
    out = [
        "### Short answers: what the long-answer route changes (development portions)",
        "",
        f"{ACS} (v3) against the learned head alone (v2) on the development portions; rows whose longest "
        "reference has more than 40 tokens take the long-answer route, all others are scored by the head alone.",
        "",
        "| data set | statistic | rows (long route) | v3 | head alone (v2) | difference |",
        "|---|---|---|---|---|---|",
    ]
    for name, (stat, s) in summaries.items():
        dev = np.array([portion_of(r) == "dev" for r in s["rows"]])
        x, h, y = s["values"][ACS][dev], s["values"][HEAD][dev], s["y"][dev]
        routed = sum(r.get("route") == "long" for r, k in zip(s["rows"], dev) if k)
        a, b = vam._stat(stat, x, y), vam._stat(stat, h, y)
        out.append(f"| {name} | {stat} | {int(dev.sum())} ({routed}) | {a:.3f} | {b:.3f} | {a - b:+.3f} |")
    return out + [""]


def band_lines(summaries: dict[str, tuple[str, dict]], vam) -> list[str]:
    """The figure of each compared metric per answer-length band, report portions (the graded set: all of it)."""
    names = [m for m in COMPARED if all(m in s["values"] for _, s in summaries.values())]
    out = ["### Answer correctness per answer-length band", "",
           "Answer length in tokens (SQuAD normalisation). AUROC for the 0/1 sets, Spearman for SQuALITY and the "
           "graded set; report portions, except the graded set (a development set, all of it). Bands with fewer "
           "than 20 rows or one class only are left out.", "",
           "| data set | band | rows | " + " | ".join(names) + " |", "|---|---|---|" + "---|" * len(names)]
    for name, (stat, s) in summaries.items():
        rows = s["rows"]
        take = np.array([name.startswith("graded") or portion_of(r) == "report" for r in rows])
        bands = np.array([_band(answer_length(r)) for r in rows])
        for lo, hi in BANDS:
            label = _band(lo)
            mask = take & (bands == label)
            if mask.sum() < 20 or np.ptp(s["y"][mask]) == 0:
                continue
            cells = [vam.num(vam._stat(stat, s["values"][m][mask], s["y"][mask])) for m in names]
            out.append(f"| {name} | {label} | {int(mask.sum())} | " + " | ".join(cells) + " |")
    return out + [""]
