"""The Answers page's read model: a run's metric cards, its answers table, one answer's claims,
evidence and scores, the same question in two runs, the plots and the run's exports.

Built from :mod:`rageval.report.summary` (summaries), :mod:`rageval.views.answer_view` (one answer's
view), :mod:`rageval.views.answer_table` (the table and its filters), :mod:`rageval.views.highlight`
(spans) and :mod:`rageval.views.charts` (figures); the page and its helpers (pages/answers.py,
pages/parts/answer_table.py, answer_view.py, answer_compare.py, answer_claims.py) import this module only.

- A card's mean is over the items the metric scored; unscored and failed items are counted beside it.
- The plots offer the leaderboard's main metrics first, then the others in the run's order.
- Score difference of two runs: ``B - A`` per metric both scored (:func:`answer_table.score_diff`).
"""
from __future__ import annotations

from typing import Any, Sequence

import pandas as pd

from rageval.metrics.aligncheck import ALIGNCHECK_METRICS, fact_tables
from rageval.project import Project
from rageval.report import meaning
from rageval.report.exports import export_run, run_table, table_csv, to_parquet_bytes
from rageval.report.html import run_report_html
from rageval.report.leaderboard import MAIN_METRICS, domain_means, item_values, paired
from rageval.views.answer_table import (answer_table, bounds, default_metric_columns, filter_scores, filter_table,
                                        metric_columns, score_diff)
from rageval.views.claim_review import BUTTONS as LABEL_BUTTONS
from rageval.views.claim_review import after as claim_after
from rageval.views.claim_review import cards as claim_cards
from rageval.views.claim_review import choose_evidence, evidence_texts
from rageval.views.claim_review import focus as claim_focus
from rageval.views.claim_review import save as save_claim_label
from rageval.views.charts import distributions, domain_bars, run_scatter
from rageval.views.frame import metric_label, shown
from rageval.human.trust_rows import AGREEMENT_HELP, verifier_sentence
from rageval.views.trust import judge_line, report_section, verifier_frame
from rageval.types import LABELS, VERDICTS
from rageval.views.highlight import answer_segments, evidence_location, segments, shown_verdict
from rageval.report.summary import (CLAIM_METRICS, LOW_CONFIDENCE, OFFLINE_VERDICT_NOTE, MetricSummary, claim_hints,
                                    coverage_text, evidence_prefix, is_heuristic, is_low_confidence,
                                    low_confidence_claims, low_confidence_text, run_summaries)
from rageval.views.answer_view import AnswerView, answer_view_of
from rageval.report.settle import NO_DECIDED_PLAIN, PEOPLE

__all__ = [
    # reads (cached by pages/parts/data.py)
    "answer_table", "card_notes", "summaries", "answer_view", "item_values",
    # the table and its filters
    "bounds", "filter_scores", "filter_table", "metric_columns", "default_metric_columns", "table_csv",
    "unscored_reasons", "question_labels",
    # one answer
    "AnswerView", "MetricSummary", "VERDICTS", "OFFLINE_VERDICT_NOTE", "answer_segments", "evidence_spans",
    "segments", "claim_rows", "flag_lines", "all_undecided", "NO_DECIDED_PLAIN", "unscored_text", "aligncheck_facts",
    "metric_rows", "offline_verdicts",
    "is_low_confidence", "verdict_counts", "card_note", "ppi_lines",
    # people's claim labels and every verifier's agreement with them
    "LABEL_BUTTONS", "claim_cards", "claim_focus", "claim_after", "evidence_texts", "choose_evidence",
    "save_claim_label", "verifier_sentence", "verifier_frame", "AGREEMENT_HELP", "judge_line",
    # two runs, plots, exports
    "score_diff", "plot_metrics", "distributions", "domain_bars", "run_scatter", "domain_means", "paired",
    "EXPORTS", "export",
    # numbers as the page shows them
    "shown",
]


def summaries(project: Project, run_id: str) -> list[MetricSummary]:
    """One summary per metric of the run: mean over scored items, counts, unscored reasons."""
    return run_summaries(project, run_id)


def card_notes(project: Project, run_id: str) -> dict[str, str]:
    """Notes under the claim metrics' cards: how many of the run's claims are low confidence, among
    those whose verdict carries a probability (an LLM judge's, the opt-in cross-encoder's); none
    for a run the offline rules decided, where the card's coverage is what counts."""
    text = low_confidence_text(*low_confidence_claims(project, run_id))
    return {m: text for m in CLAIM_METRICS} if text else {}


def answer_view(project: Project, run_id: str, item_id: str) -> AnswerView | None:
    """One answer's view (question, answer, contexts, scores, claims), read for that item only."""
    return answer_view_of(project, run_id, item_id)


def ppi_lines(project: Project, run_id: str) -> list[tuple[str, str]]:
    """Under the cards, where people labelled this run: its prediction-powered estimates in words,
    ``(line, tooltip)`` each (:func:`rageval.views.trust.plain_estimate`); [] when nobody labelled."""
    from rageval.views.trust import labelled_run_ids, plain_headlines

    return plain_headlines(project, run_id) if labelled_run_ids(project, [run_id]) else []


def card_note(s: MetricSummary) -> str:
    """The line under a metric's card: ``coverage 40% · 28 scored · 2 unscored`` (the coverage of a
    claim metric first, `` · 1 failed`` when any)."""
    cov = coverage_text(s.coverage)
    return (f"{cov} · " if cov else "") + f"{s.n_ok} scored · {s.n_unscored} unscored" + (
        f" · {s.n_failed} failed" if s.n_failed else "")


def unscored_reasons(items: Sequence[MetricSummary]) -> list[dict[str, Any]]:
    """One row per (metric, reason) with how many items that metric left unscored for it."""
    return [{"metric": metric_label(s.metric), "reason": r, "items": n} for s in items for r, n in s.reasons.items()]


def question_labels(rows: pd.DataFrame) -> dict[str, str]:
    """item id -> ``"3. <question, first 90 characters>"`` for the question picker."""
    return dict(zip(rows["id"], rows["#"].astype(str) + ". " + rows["question"].str.slice(0, 90)))


def plot_metrics(metrics: Sequence[str]) -> list[str]:
    """``metrics`` with the leaderboard's main metrics first (in their order), then the rest."""
    return [m for m in MAIN_METRICS if m in metrics] + [m for m in metrics if m not in MAIN_METRICS]


# --- one answer's claims, hedging and diagnosis in plain words ---------------------------------

def cause_text(cause: Any) -> str:
    """``"long_context_dilution"`` -> ``"long context dilution"``; empty for no cause."""
    return str(cause).replace("_", " ") if cause else ""


def hedging_text(score: dict[str, Any] | None) -> str:
    """One line from the 'hedging' score: flagged or not, its cues, and whether abstaining was right."""
    if score is None:
        return ""
    if score["status"] != "ok":
        return f"hedging not checked ({score['status']}: {score['reason']})"
    d = score.get("details") or {}
    if not score["value"]:
        return "no hedging or abstention"
    text = "hedges or abstains: flagged for review"
    if d.get("cues"):
        text += " (" + ", ".join(f"“{c}”" for c in d["cues"]) + ")"
    if d.get("abstained") and d.get("abstention_right") is not None:
        text += ("; abstaining was right: the gold answer is in no retrieved chunk" if d["abstention_right"]
                 else "; abstaining was wrong: the gold answer was retrieved")
    return text


def diagnosis_text(score: dict[str, Any] | None) -> str:
    """One line from the faithfulness diagnosis: the likely cause and where the gold answer was."""
    d = ((score or {}).get("details") or {}).get("diagnosis")
    if not isinstance(d, dict):
        return ""
    parts = []
    if d.get("answer_cause"):
        parts.append(f"likely cause of the unsupported claims: {cause_text(d['answer_cause'])}")
    ranks = d.get("gold_ranks")
    if d.get("gold_in_contexts") is True and ranks:
        parts.append("gold answer retrieved at rank " + ", ".join(str(r) for r in ranks))
    elif d.get("gold_in_contexts") is False:
        parts.append("gold answer in no retrieved chunk")
    return "; ".join(parts)


def offline_verdicts(claims: Sequence[dict[str, Any]]) -> bool:
    """Whether any of ``claims`` shows the offline verifier's verdict (not an LLM judge's, nor people's:
    their settled verdict is shown instead)."""
    return any(str(c.get("judge") or "").startswith("heuristic") and c.get("authority") != PEOPLE for c in claims)


def claim_confidence(claim: dict[str, Any]) -> str:
    """The verifier's probability of the claim's verdict as "0.93", "0.61 · low confidence" below the
    verifier's threshold, or "" (LLM judges give none)."""
    conf = (claim.get("details") or {}).get("confidence")
    text = f"{conf:.2f}" if isinstance(conf, (int, float)) else ""
    return f"{text} · {LOW_CONFIDENCE}" if is_low_confidence(claim) else text


def _plain(value: Any) -> str:
    """A details value (text, list or mapping) as one line of text."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_plain(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value)
    return "" if value is None else str(value)


def claim_rows(view: AnswerView) -> list[dict[str, Any]]:
    """The claims table's cells as text: the settled verdict, who settled it (the badge: "3 people",
    "judge gpt-4o-mini", "copied", "unverified"), the other sources' verdicts, low confidence, confidence, claim,
    evidence (with its
    "closest passage: " / "likely evidence: " prefix, None when there is none), reason (with an
    UNVERIFIED claim's hints after "hints: ") and likely cause."""
    return [{"verdict": c["verdict"], "settled_by": c.get("settled_by") or "",
             "others": "; ".join(x for x in [c.get("note") or "",
                                             *(f"{name}: {verdict}" for name, verdict in c.get("others") or ())] if x),
             "low_confidence": is_low_confidence(c), "confidence": claim_confidence(c),
             "claim": c["text"], "evidence": (evidence_prefix(c), c["evidence"]) if c.get("evidence") else None,
             "reason": "; ".join(x for x in (c.get("reason") or "",
                                              "hints: " + "; ".join(claim_hints(c)) if claim_hints(c) else "") if x),
             "cause": cause_text(_plain((c.get("details") or {}).get("cause")))}
            for c in view.claims]


def all_undecided(view: AnswerView) -> bool:
    """Whether the answer has claims and none is decided (no person, judge or copy settled one)."""
    return bool(view.claims) and all(c["verdict"] not in LABELS for c in view.claims)


def flag_lines(view: AnswerView) -> tuple[str, str, str]:
    """(hedging line, diagnosis line, why faithfulness did not score: "status: reason", or for an
    answer whose claims are all undecided the one plain sentence :data:`NO_DECIDED_PLAIN`), "" when none."""
    faith = view.scores.get("faithfulness")
    failed = f"{faith['status']}: {faith['reason']}" if faith is not None and faith["status"] != "ok" else ""
    if all_undecided(view):
        failed = NO_DECIDED_PLAIN
    return hedging_text(view.scores.get("hedging")), diagnosis_text(faith), failed


def unscored_text(view: AnswerView) -> str:
    """"Unscored here" as one line: each metric with its reason, the claim metrics that decided no
    claim named together once ("Faithfulness, Contradicted claims: no claim decided, see the claims")."""
    undecided = [m for m, s in view.scores.items() if s["status"] != "ok" and _reason(s["reason"]) != s["reason"]]
    rest = [f"{metric_label(m)} ({r})" for m, r in view.unscored().items() if m not in undecided]
    if undecided:
        rest.append(f"{', '.join(metric_label(m) for m in undecided)}: no claim decided, see the claims below")
    return "; ".join(rest)


def _reason(reason: str | None) -> str | None:
    """A metric's reason as the metric table shows it: the long no-decided text said once above."""
    return "no claim decided (see above)" if str(reason or "").startswith("no_decided_claims") else reason


def evidence_spans(view: AnswerView) -> dict[int, list[tuple[int, int, str, int]]]:
    """context index -> (start, end, shown verdict, claim number) of each claim's evidence in it; a
    closest passage (a NOT_MENTIONED claim's nearest sentence) is not evidence and is left out."""
    spans: dict[int, list[tuple[int, int, str, int]]] = {}
    for n, claim in enumerate(view.claims, start=1):
        found = evidence_location(view, claim)
        if found and not evidence_prefix(claim):
            spans.setdefault(found[0], []).append((found[1], found[2], shown_verdict(claim), n))
    return spans


def aligncheck_facts(view: AnswerView) -> tuple[str, dict[str, Any], dict[str, list[dict[str, Any]]]] | None:
    """(metric, its score, fact tables ``matched`` / ``added`` (FP) / ``dropped`` (FN)) of the first
    AlignCheck metric that scored this answer's item; None when the run has none."""
    name = next((m for m in ALIGNCHECK_METRICS if m in view.scores), None)
    if name is None:
        return None
    score = view.scores[name]
    return name, score, fact_tables(view.details(name)) if score["status"] == "ok" else {}


def metric_rows(view: AnswerView) -> list[dict[str, Any]]:
    """Every metric's value for this answer with its status, direction, range, judge and signature."""
    return [{"metric": meaning.label(m), "id": m, "value": s["value"], "status": s["status"],
             "reason": _reason(s["reason"]),
             "direction": meaning.info(m).direction, "range": meaning.info(m).range_text,
             "judge": "heuristic" if is_heuristic(s["signature"]) else "", "what it measures": meaning.info(m).what,
             "signature": s["signature"]}
            for m, s in view.scores.items()]


def verdict_counts(view: AnswerView) -> str:
    """``"2 supported · 1 contradicted · 0 not mentioned · 3 unverified"``."""
    counts = {k: sum(c["verdict"] == k for c in view.claims) for k in VERDICTS}
    return " · ".join(f"{n} {k.lower().replace('_', ' ')}" for k, n in counts.items())


#: the run's exports: label -> (file name pattern, MIME type)
EXPORTS = {"HTML report": ("report-{rid}.html", "text/html"), "JSONL": ("run-{rid}.jsonl", "application/json"),
           "Parquet": ("run-{rid}.parquet", "application/octet-stream"),
           "RAGAS JSONL": ("ragas-{rid}.jsonl", "application/json"), "CSV": ("run-{rid}.csv", "text/csv")}


def export(project: Project, run_id: str, what: str) -> str | bytes:
    """The run as one of :data:`EXPORTS`: the HTML report, or data (with contexts) to score elsewhere."""
    if what == "HTML report":
        return run_report_html(project, run_id, sections=[report_section(project, run_id)])
    if what == "Parquet":
        return to_parquet_bytes(run_table(project, run_id))
    return export_run(project, run_id, {"JSONL": "jsonl", "RAGAS JSONL": "ragas", "CSV": "csv"}[what])
