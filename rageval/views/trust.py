"""Trust by measurement, as pages and the CLI show it: every claim verifier's agreement with people's
claim labels, raters' agreement on claims, and PPI estimates of a run's headline numbers.

Shared by the page views (``answers``, ``human_review``, ``correlations``, ``compare``, ``home``),
the HTML report and the CLI; each reads the library once and returns rows, sentences or text.
"""
from __future__ import annotations

from typing import Any, Sequence

from rageval.human import claim_agreement as verifiers
from rageval.human import claim_labels, estimates
from rageval.project import Project

VERDICT_SHORT = {"SUPPORTED": "S", "CONTRADICTED": "C", "NOT_MENTIONED": "NM", "UNVERIFIED": "UNV"}


def _num(v: float | None, fmt: str = "{:.2f}") -> str:
    return "n/a" if v is None else fmt.format(v)


def _ci(low: float | None, high: float | None, fmt: str = "{:.2f}") -> str:
    return "" if low is None or high is None else f" [{fmt.format(low)}, {fmt.format(high)}]"


def verifier_name(signature: str, judge: str) -> str:
    """``offline rule`` or ``judge gpt-4o-mini``, then the signature's short hash-like tail."""
    who = "offline rule" if judge in ("heuristic", "offline", "") else f"judge {judge}"
    return f"{who} ({signature})"


def verifier_rows(project: Project, run_ids: Sequence[str] | None = None, *, n_boot: int = 1000,
                  width: float = 0.2) -> list[dict[str, Any]]:
    """One row per verifier: name, labelled claims, decided n, coverage, accuracy, kappa with CI, the
    precision / recall of each verdict, and the labels a CI of ``width`` needs."""
    rows = []
    for a in verifiers.verifier_agreement(project, run_ids, n_boot=n_boot, width=width):
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
    if not row["n"]:
        return (f"{row['verifier']}: no labelled claim it decided yet; about {row['labels_for_ci']} labelled claims "
                f"would give its kappa a 95% CI {_num(row['width'])} wide.")
    cov = f", decided {row['coverage']:.0%} of {row['labelled']} labelled" if row["coverage"] is not None else ""
    return (f"{row['verifier']}: agrees with people on {row['accuracy']:.0%} of {row['n']} labelled claims{cov}; "
            f"kappa {_num(row['kappa'])}{_ci(row['kappa_low'], row['kappa_high'])}"
            + (f"; about {row['labels_for_ci']} would narrow its CI to {_num(row['width'])}." if row["n"] < row["labels_for_ci"]
               else "."))


def agreement_text(rows: list[dict[str, Any]], raters: dict[str, Any]) -> str:
    """The CLI's ``agreement --claims``: raters' agreement, then each verifier with its confusion matrix."""
    alpha = raters["alpha"]
    lines = [f"Raters on claims: {raters['raters']} rater(s), {raters['claims']} labelled claim(s), "
             f"{raters['shared']} labelled by two or more; Krippendorff's alpha (nominal) "
             f"{_num(alpha.value)}{_ci(alpha.low, alpha.high)}"]
    for k in raters["kappa"]:
        lines.append(f"  Cohen's kappa {k['a']} vs {k['b']}: {_num(k['value'])}{_ci(k['low'], k['high'])} (n {k['n']})")
    if not rows:
        lines.append("No claim verdicts in these runs.")
    for row in rows:
        lines += ["", verifier_sentence(row)]
        pr = ", ".join(f"{v}: precision {_num(row[f'precision {v}'])} recall {_num(row[f'recall {v}'])}"
                       for v in ("S", "C", "NM"))
        lines.append(f"  {pr}")
        lines.append("  confusion (rows: people; columns: verdict)")
        lines += ["    " + line for line in row["confusion"].to_string().splitlines()]
    return "\n".join(lines)


def agreement_payload(rows: list[dict[str, Any]], raters: dict[str, Any]) -> dict[str, Any]:
    return {"raters": {**{k: v for k, v in raters.items() if k != "alpha"}, "alpha": raters["alpha"].as_dict()},
            "verifiers": [{**{k: v for k, v in r.items() if k != "confusion"},
                           "confusion": r["confusion"].to_dict(orient="index")} for r in rows]}


def claim_agreement(project: Project, run_ids: Sequence[str] | None = None, *, n_boot: int = 1000,
                    width: float = 0.2) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(verifier rows, rater agreement)`` over ``run_ids`` (every run when None)."""
    run_ids = list(run_ids) if run_ids is not None else verifiers.claim_runs(project)
    raters = claim_labels.rater_agreement(claim_labels.labels_frame(project, run_ids), n_boot=n_boot)
    return verifier_rows(project, run_ids, n_boot=n_boot, width=width), raters


def estimate_rows(project: Project, run_id: str, *, metric: str | None = None, tuned: bool = True
                  ) -> list[dict[str, Any]]:
    """The run's PPI estimates as rows (what, predictor, PPI with CI, human only with CI, naive, widths,
    effective labels), or the reason there is none."""
    return [e.as_dict() for e in estimates.run_estimates(project, run_id, metric=metric, tuned=tuned)]


def estimate_sentence(row: dict[str, Any]) -> str:
    """``mean human rating (1-5): 3.41 [3.20, 3.62] by PPI++ with token_f1 ...``"""
    if row.get("estimate") is None:
        return f"{row['quantity']} (predictor {row['predictor']}): no PPI estimate — {row['reason']}."
    return (f"{row['quantity']}: {row['estimate']:.3f}{_ci(row['low'], row['high'], '{:.3f}')} with "
            f"{row['predictor']} as predictor ({row['labelled']} labelled of {row['total']}); human only "
            f"{row['human']:.3f}{_ci(row['human_low'], row['human_high'], '{:.3f}')}; predictor's naive mean "
            f"{row['naive']:.3f}; width {row['width']:.3f} vs {row['human_width']:.3f}, worth "
            f"{row['effective_n']:.0f} labels.")


def estimate_text(rows: list[dict[str, Any]], run_id: str) -> str:
    if not rows:
        return f"run {run_id}: nothing to estimate (no metric and no claims)"
    return "\n".join([f"Run {run_id}, 95% intervals:"] + [f"- {estimate_sentence(r)}" for r in rows])
