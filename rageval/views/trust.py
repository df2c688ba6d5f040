"""Trust by measurement, as the pages show it: every claim verifier's agreement with people's
claim labels, raters' agreement on claims, and PPI estimates of a run's headline numbers.

Shared by the page views (``answers``, ``human_review``, ``correlations``, ``compare``, ``home``),
the HTML report and the CLI (whose plain text is :mod:`rageval.cli.text`); each reads the library
once and returns rows, sentences or text.
"""
from __future__ import annotations

from typing import Any, Sequence

from rageval.human import claim_agreement as verifiers
from rageval.human import claim_labels, estimates
from rageval.human.trust_rows import estimate_sentence, fmt_ci, fmt_num, verifier_name, verifier_rows
from rageval.project import Project


def claim_agreement(project: Project, run_ids: Sequence[str] | None = None, *, n_boot: int = 1000,
                    width: float = 0.2, as_of: Any = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(verifier rows, rater agreement)`` over ``run_ids`` (every run when None); ``as_of`` (a
    timestamp): with the labels as they stood then, from the label history."""
    run_ids = list(run_ids) if run_ids is not None else verifiers.claim_runs(project)
    raters = claim_labels.rater_agreement(claim_labels.labels_frame(project, run_ids, as_of=as_of), n_boot=n_boot)
    return verifier_rows(project, run_ids, n_boot=n_boot, width=width, as_of=as_of), raters


def estimate_rows(project: Project, run_id: str, *, metric: str | None = None, tuned: bool = True
                  ) -> list[dict[str, Any]]:
    """The run's PPI estimates as rows (what, predictor, PPI with CI, human only with CI, naive, widths,
    effective labels), or the reason there is none."""
    return [e.as_dict() for e in estimates.run_estimates(project, run_id, metric=metric, tuned=tuned)]


def verifier_frame(rows: list[dict[str, Any]]):
    """The verifiers' table for a page: one row each, the numbers rounded, the CI as text."""
    import pandas as pd

    cols = ["verifier", "labelled", "n", "coverage", "accuracy", "kappa", "kappa 95% CI", "precision S", "recall S",
            "precision C", "recall C", "precision NM", "recall NM", "labels for CI"]
    out = [{**{k: r.get(k) for k in cols}, "labels for CI": r["labels_for_ci"],
            "kappa 95% CI": fmt_ci(r["kappa_low"], r["kappa_high"]).strip() or "n/a"} for r in rows]
    return pd.DataFrame(out, columns=cols)


def raters_sentence(raters: dict[str, Any]) -> str:
    """One line: how far people agree with each other on claims."""
    if not raters["raters"]:
        return "No claim labels yet: label claims on the Answers page or in Human review's claim queue."
    alpha = raters["alpha"]
    kappas = "; ".join(f"kappa {k['a']} vs {k['b']} {fmt_num(k['value'])}{fmt_ci(k['low'], k['high'])}"
                       f" (n {k['n']})" for k in raters["kappa"])
    return (f"{raters['raters']} rater(s) labelled {raters['claims']} claim(s), {raters['shared']} by two or more: "
            f"Krippendorff's alpha {fmt_num(alpha.value)}{fmt_ci(alpha.low, alpha.high)}"
            + (f"; {kappas}" if kappas else ""))


def difference_row(project: Project, run_a: str, run_b: str, metric: str | None,
                   frame: Any = None) -> dict[str, Any]:
    """The PPI estimate of mean human rating B - A (Compare), as :func:`estimate_sentence` reads it;
    ``frame``: the two runs' per-answer frame when the page has it (not built again)."""
    return estimates.difference_estimate(project, run_a, run_b, metric, frame=frame).as_dict()


#: under the verifiers' agreement when no judge checked the run: what one would add (never its verdicts)
JUDGE_WOULD_ADD = ("No judge has checked these claims. A judge (an LLM: --judge openai:MODEL, or the Run page's "
                   "Judge) would decide the claims nobody settled, and its agreement with your people would be "
                   "measured here, claim by claim.")


def judge_line(rows: Sequence[dict[str, Any]]) -> str:
    """:data:`JUDGE_WOULD_ADD` when none of the verifier ``rows`` is a judge, else ``""``."""
    return "" if any(str(r["verifier"]).startswith("judge ") for r in rows) else JUDGE_WOULD_ADD


def predictor_name(predictor: str) -> str:
    """A PPI row's predictor in words: a verifier's signature as ``offline rule`` / ``judge M``, a
    metric's name as is (the signature stays in the tooltip)."""
    if "|" not in predictor:
        return predictor
    judge = next((part.split(":", 1)[1] for part in predictor.split("|") if part.startswith("judge:")), "")
    return verifier_name(predictor, judge)


def plain_estimate(row: dict[str, Any]) -> tuple[str, str]:
    """``(sentence, tooltip)`` of one PPI row for a page: the sentence in words, the method, the
    predictor's signature and the naive mean in the tooltip. A share's people-only interval is
    Wilson's (inside [0, 1], with width when every label agrees: :func:`rageval.stats.shares.
    wilson_interval`); a PPI interval of a share that leaves [0, 1] is clipped to it, and the
    tooltip says so and gives the interval as computed."""
    from rageval.stats.shares import wilson_interval

    name = predictor_name(str(row["predictor"]))
    if row.get("estimate") is None and row.get("point") is not None:  # too few labels for an interval
        return (f"{row['quantity']} ({name}): {row['point']:.3f} with {row['labelled']} of {row['total']} "
                f"labelled by people; no interval yet",
                f"Prediction-powered inference (PPI++), the estimate alone: {row['reason']}. "
                f"Predictor: {row['predictor']}.")
    if row.get("estimate") is None:
        return f"{row['quantity']} ({name}): no estimate yet: {row['reason']}.", f"predictor: {row['predictor']}"
    share = "share" in str(row["quantity"])
    low, high = row["low"], row["high"]
    help_lines = [f"Prediction-powered inference (PPI++): people's labels on {row['labelled']} of {row['total']} "
                  f"items correct the predictor's values on all of them; 95% interval. Predictor: {row['predictor']}. "
                  f"The predictor's own mean: {row['naive']:.3f}; worth {row['effective_n']:.0f} labels."]
    people = f"{row['human']:.3f}{fmt_ci(row['human_low'], row['human_high'], '{:.3f}')}"
    if share:
        if low < 0 or high > 1:
            help_lines.append(f"The interval as computed, [{low:.3f}, {high:.3f}], leaves [0, 1]; it is shown clipped.")
        low, high = max(0.0, low), min(1.0, high)
        k = round(row["human"] * row["labelled"])
        people = f"{row['human']:.3f}{fmt_ci(*wilson_interval(k, row['labelled']), '{:.3f}')}"
        help_lines.append("People's interval alone is Wilson's score interval for a share.")
    sentence = (f"{row['quantity']} ({name}): {row['estimate']:.3f} [{low:.3f}, {high:.3f}] with "
                f"{row['labelled']} of {row['total']} labelled by people; people alone {people}")
    return sentence, " ".join(help_lines)


def plain_headlines(project: Project, run_id: str) -> list[tuple[str, str]]:
    """The run's PPI estimates that exist, as :func:`plain_estimate` says them (with too few labels for an
    interval, the estimate alone and how many more labels one needs)."""
    return [plain_estimate(r) for r in estimate_rows(project, run_id)
            if r.get("estimate") is not None or r.get("point") is not None]


def labelled_run_ids(project: Project, run_ids: Sequence[str]) -> list[str]:
    """Of ``run_ids``, those with people's claim labels or answer ratings (where a PPI estimate can exist)."""
    from rageval.store import human as hstore
    from rageval.store.claim_labels import labelled_runs

    claims = labelled_runs(project.db_path)
    rated = {r["run_id"] for r in hstore.ratings(project.db_path, list(run_ids))}
    return [r for r in run_ids if r in claims or r in rated]


def report_section(project: Project, run_id: str) -> str:
    """The HTML report's section on trust: every claim verifier's agreement with people's labels on this
    run and the run's PPI estimates; empty when it has neither (pass it to ``run_report_html(sections=)``)."""
    from html import escape

    from rageval.human.estimates import run_estimates
    from rageval.store import runs as rstore

    if rstore.get_run(project.db_path, run_id) is None:
        return ""  # run_report_html names the missing run

    rows = [r for r in verifier_rows(project, [run_id], n_boot=1000) if r["labelled"]]
    found = [e.as_dict() for e in run_estimates(project, run_id)]
    found = [e for e in found if e.get("estimate") is not None or e.get("point") is not None]
    if not rows and not found:
        return ""
    out = ["<h2>How far to trust the verdicts and the numbers</h2>"]
    if rows:
        out.append("<p class='muted'>Each claim verifier against the claims people labelled (the label most raters "
                   "gave): accuracy and Cohen's kappa (95% bootstrap CI) over the claims it decided; coverage is the "
                   "share of labelled claims it decided (UNVERIFIED is no decision); precision and recall of "
                   "each verdict (S SUPPORTED, C CONTRADICTED, NM NOT_MENTIONED).</p><table><tr><th>verifier</th>"
                   "<th class='num'>labelled</th><th class='num'>coverage</th><th class='num'>accuracy</th>"
                   "<th>kappa [95% CI]</th>" + "".join(f"<th class='num'>{m} {v}</th>" for v in ("S", "C", "NM")
                                                        for m in ("precision", "recall")) + "</tr>")
        out += [f"<tr><td>{escape(r['verifier'])}</td><td class='num'>{r['labelled']}</td>"
                f"<td class='num'>{fmt_num(r['coverage'])}</td><td class='num'>{fmt_num(r['accuracy'])}</td>"
                f"<td>{fmt_num(r['kappa'])}{fmt_ci(r['kappa_low'], r['kappa_high'])}</td>"
                + "".join(f"<td class='num'>{fmt_num(r[f'{m} {v}'])}</td>" for v in ("S", "C", "NM")
                          for m in ("precision", "recall")) + "</tr>"
                for r in rows]
        out.append("</table>")
    if found:
        out.append("<p class='muted'>Prediction-powered estimates (PPI++, Angelopoulos et al. 2023): the human "
                   "labels correct the predictor's mean on every item; beside each, the human-only interval.</p><ul>")
        out += [f"<li>{escape(estimate_sentence(e))}</li>" for e in found]
        out.append("</ul>")
    return "".join(out)
