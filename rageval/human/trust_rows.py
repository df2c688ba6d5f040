"""Every claim verifier's agreement with people and a run's PPI estimates as rows and sentences: what
the pages (through :mod:`rageval.views.trust`), the HTML report and the CLI print."""
from __future__ import annotations

from typing import Any, Sequence

from rageval.human import claim_agreement as verifiers
from rageval.project import Project

VERDICT_SHORT = {"SUPPORTED": "S", "CONTRADICTED": "C", "NOT_MENTIONED": "NM", "UNVERIFIED": "UNV"}


def fmt_num(v: float | None, fmt: str = "{:.2f}") -> str:
    return "n/a" if v is None else fmt.format(v)


def fmt_ci(low: float | None, high: float | None, fmt: str = "{:.2f}") -> str:
    return "" if low is None or high is None else f" [{fmt.format(low)}, {fmt.format(high)}]"


def verifier_name(signature: str, judge: str) -> str:
    """``offline rule`` or ``judge gpt-4o-mini``; the signature stays in the row's ``signature`` (shown
    in the pages' expanders, never in a sentence)."""
    return "offline rule" if judge in ("heuristic", "offline", "") else f"judge {judge.split(':', 1)[-1]}"


#: the words for agreement beyond chance (Cohen's kappa), from the bands of Landis and Koch (1977)
#: with "good" for their "substantial": the upper bound of each band, then its word
KAPPA_WORDS = ((0.0, "none"), (0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "good"), (1.01, "very good"))
#: what a page says in the tooltip of a sentence that speaks of agreement beyond chance
AGREEMENT_HELP = ("Agreement beyond chance is Cohen's kappa between the verifier's verdicts and people's labels on "
                  "the claims both decided: 1 = always the same, 0 = no better than chance; words from Landis and "
                  "Koch (1977): up to 0.2 slight, 0.4 fair, 0.6 moderate, 0.8 good, above very good. The interval "
                  "is a 95% bootstrap interval over claims.")


def kappa_word(kappa: float) -> str:
    """``good`` for 0.71 (:data:`KAPPA_WORDS`).

    >>> kappa_word(0.71), kappa_word(-0.1), kappa_word(0.95)
    ('good', 'none', 'very good')
    """
    return next(word for top, word in KAPPA_WORDS if kappa <= top)


def verifier_rows(project: Project, run_ids: Sequence[str] | None = None, *, n_boot: int = 1000,
                  width: float = 0.2, as_of: Any = None) -> list[dict[str, Any]]:
    """One row per verifier: name, labelled claims, decided n, coverage, accuracy, kappa with CI, the
    precision / recall of each verdict, and the labels a CI of ``width`` needs (``as_of``: against the
    labels as they stood at that time)."""
    rows = []
    for a in verifiers.verifier_agreement(project, run_ids, n_boot=n_boot, width=width, as_of=as_of):
        row = {"verifier": verifier_name(a.signature, a.judge), "claims": a.claims, "labelled": a.labelled, "n": a.n,
               "coverage": a.coverage, "accuracy": a.accuracy, "kappa": a.kappa.value, "kappa_low": a.kappa.low,
               "kappa_high": a.kappa.high, "labels_for_ci": a.needed, "width": a.width, "signature": a.signature,
               "runs": a.runs}
        for verdict, m in a.per_verdict.items():
            row[f"precision {VERDICT_SHORT[verdict]}"] = m["precision"]
            row[f"recall {VERDICT_SHORT[verdict]}"] = m["recall"]
        row["confusion"] = a.confusion
        rows.append(row)
    return rows


def verifier_sentence(row: dict[str, Any]) -> str:
    """One line beside a verifier's verdicts: its agreement with people, or how many labels it needs."""
    needed = row["labels_for_ci"]
    if not row["n"]:
        if needed is None:
            return f"{row['verifier']}: no labelled claim it decided yet."
        return (f"{row['verifier']}: no labelled claim it decided yet; about {needed} labelled claims "
                f"would give its kappa a 95% CI {fmt_num(row['width'])} wide.")
    cov = f", decided {row['coverage']:.0%} of {row['labelled']} labelled" if row["coverage"] is not None else ""
    head = f"{row['verifier']}: agrees with people on {row['accuracy']:.0%} of {row['n']} labelled claims{cov}; "
    if needed is None:
        return (
            head
            + "it gives one verdict only, so agreement beyond chance is undefined: read its precision and coverage."
        )
    if row["kappa"] is None:
        return head + "agreement beyond chance n/a."
    return (head + f"agreement beyond chance {kappa_word(row['kappa'])}, {fmt_num(row['kappa'])}"
            f"{fmt_ci(row['kappa_low'], row['kappa_high'])}"
            + (f"; about {needed} would narrow its CI to {fmt_num(row['width'])}." if row["n"] < needed else "."))


def estimate_sentence(row: dict[str, Any]) -> str:
    """``mean human rating (1-5): 3.41 [3.20, 3.62] by PPI++ with token_f1 ...``"""
    if row.get("estimate") is None and row.get("point") is not None:
        return (f"{row['quantity']}: {row['point']:.3f} with {row['predictor']} as predictor ({row['labelled']} "
                f"labelled of {row['total']}), no interval yet — {row['reason']}.")
    if row.get("estimate") is None:
        return f"{row['quantity']} (predictor {row['predictor']}): no PPI estimate — {row['reason']}."
    return (f"{row['quantity']}: {row['estimate']:.3f}{fmt_ci(row['low'], row['high'], '{:.3f}')} with "
            f"{row['predictor']} as predictor ({row['labelled']} labelled of {row['total']}); human only "
            f"{row['human']:.3f}{fmt_ci(row['human_low'], row['human_high'], '{:.3f}')}; predictor's naive mean "
            f"{row['naive']:.3f}; width {row['width']:.3f} vs {row['human_width']:.3f}, worth "
            f"{row['effective_n']:.0f} labels"
            + (f"; interval: {row['method']}" if row.get("method") and row["method"] != "normal" else "")
            + (f"; {row['note']}" if row.get("note") else "")
            + ("; every label is the same, so the interval has no width: label more items."
               if row["human_width"] == 0 else "."))
