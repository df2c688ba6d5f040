"""Rendering of one answer for the Answers page (a helper module, not a page).

Every piece of document or model text goes through ``common.esc`` / ``common.md`` or a
plain-text widget; the only HTML tags are the ones built here.
"""
from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from pages import common
from rageval.views import highlight as hl
from rageval.views import queries as q
from rageval.metrics.aligncheck import ALIGNCHECK_METRICS, fact_tables
from rageval.report import meaning

_TABLE = "width:100%;border-collapse:collapse;font-size:0.92rem"
_CELL = "padding:0.35rem 0.5rem;border-bottom:1px solid #e8ebf1;vertical-align:top;text-align:left"


def _plain(value: Any) -> str:
    """A details value (text, list or mapping) as one line of text."""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_plain(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(v) for v in value)
    return "" if value is None else str(value)


def _cause(claim: dict[str, Any]) -> str:
    return q.cause_text(_plain((claim.get("details") or {}).get("cause")))


def claims_table(view: q.AnswerView) -> str:
    head = "".join(f'<th style="{_CELL}">{h}</th>' for h in ("#", "verdict", "confidence", "claim", "evidence",
                                                             "reason", "likely cause"))
    rows = []
    for n, c in enumerate(view.claims, start=1):
        evidence = (f"{common.esc(q.evidence_prefix(c))}“{common.esc(c['evidence'])}”" if c.get("evidence") else "—")
        cells = (str(n), common.badge(c["verdict"], low_confidence=q.is_low_confidence(c)), common.esc(q.claim_confidence(c)), common.esc(c["text"]), evidence,
                 common.esc(c.get("reason") or ""), common.esc(_cause(c)))
        rows.append("<tr>" + "".join(f'<td style="{_CELL}">{x}</td>' for x in cells) + "</tr>")
    return f'<table style="{_TABLE}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def flags(view: q.AnswerView) -> None:
    """The hedging flag and the hallucination diagnosis (details of 'hedging' and 'faithfulness')."""
    hedging = q.hedging_text(view.scores.get("hedging"))
    diagnosis = q.diagnosis_text(view.scores.get("faithfulness"))
    faith = view.scores.get("faithfulness")
    lines = [f"**Hedging** {common.md(hedging)}" if hedging else "",
             f"**Diagnosis** {common.md(diagnosis)}" if diagnosis else "",
             f"**Faithfulness** {common.md(faith['status'])}: {common.md(faith['reason'])}"
             if faith is not None and faith["status"] != "ok" else ""]
    if any(lines):
        st.markdown("  \n".join(x for x in lines if x))
    details = {m: view.details(m) for m in ("hedging", "faithfulness") if view.details(m)}
    if details:
        with st.expander("Hedging and diagnosis details"):
            st.json(details, expanded=2)


def contexts(view: q.AnswerView) -> None:
    """Retrieved chunks in rank order with each claim's evidence highlighted in its verdict colour."""
    spans: dict[int, list[tuple[int, int, str, int]]] = {}
    for n, claim in enumerate(view.claims, start=1):
        found = hl.evidence_location(view, claim)
        if found and not q.evidence_prefix(claim):  # a closest passage is not evidence: not highlighted
            spans.setdefault(found[0], []).append((found[1], found[2], hl.shown_verdict(claim), n))
    if not view.contexts:
        st.info("No retrieved context was stored for this answer.")
    for i, ctx in enumerate(view.contexts):
        score = "—" if ctx.score is None else f"{ctx.score:.3f}"
        where = f" · {ctx.doc_name}" + (f" p.{ctx.page}" if ctx.page else "") if ctx.doc_name else ""
        label = f"#{ctx.rank} · score {score}{where}" + (" · evidence" if i in spans else "")
        with st.expander(common.md(label), expanded=i in spans):
            st.html(common.highlight_html(hl.segments(ctx.text, spans.get(i, []))))


def aligncheck_facts(view: q.AnswerView) -> None:
    """AlignCheck's facts beside the claim verdicts: matched pairs, added (FP) and dropped (FN) facts."""
    name = next((m for m in ALIGNCHECK_METRICS if m in view.scores), None)
    if name is None:
        return
    score = view.scores[name]
    if score["status"] != "ok":
        st.caption(f"AlignCheck: {common.md(score['status'])}: {common.md(score['reason'])}")
        return
    tables = fact_tables(view.details(name))
    with st.expander(f"AlignCheck facts: {len(tables['matched'])} matched, {len(tables['added'])} added by the answer "
                     f"(possible fabrication), {len(tables['dropped'])} dropped"):
        for title, rows in (("Matched (subject, object) pairs", tables["matched"]),
                            ("Added by the answer (FP)", tables["added"]), ("Dropped from the source (FN)", tables["dropped"])):
            if rows:
                st.markdown(f"**{title}**")
                common.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def metrics_table(view: q.AnswerView) -> None:
    rows = [{"metric": meaning.label(m), "id": m, "value": s["value"], "status": s["status"], "reason": s["reason"],
             "direction": meaning.info(m).direction, "range": meaning.info(m).range_text,
             "judge": "heuristic" if q.is_heuristic(s["signature"]) else "", "what it measures": meaning.info(m).what,
             "signature": s["signature"]}
            for m, s in view.scores.items()]
    if rows:
        common.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch",
                     column_config={"value": st.column_config.NumberColumn(format="%.3f", width="small"),
                                    "id": st.column_config.TextColumn("identifier", width="small"),
                                    "signature": st.column_config.TextColumn(width="small"),
                                    "what it measures": st.column_config.TextColumn(width="large")})
    else:
        st.info("No metric scored this answer.")


def answer_box(view: q.AnswerView) -> None:
    """The answer with each claim highlighted in its verdict colour (or why there is none)."""
    if view.status != "ok":
        st.error(f"Generation failed: {common.md(view.reason)}")
    if view.answer:
        segments, lost = hl.answer_segments(view.answer, view.claims)
        st.html(common.highlight_html(segments))
        if lost:
            st.caption(f"Claim(s) {', '.join(map(str, lost))} are rewordings not found verbatim in the answer.")
    else:
        common.text_box(None, empty="(no answer)")


def show(view: q.AnswerView) -> None:
    left, right = st.columns(2)
    with left:
        st.markdown("**Question**")
        common.text_box(view.question)
    with right:
        st.markdown("**Gold answer**")
        common.text_box("\n".join(view.references), empty="(no gold answer)")
    head, key = st.columns([1, 3], vertical_alignment="bottom")
    head.markdown("**Answer**")
    with key:
        common.legend()
    answer_box(view)
    flags(view)
    if view.claims:
        st.markdown(f"**Claims** ({len(view.claims)}, checked against the retrieved chunks)")
        st.html(claims_table(view))
        if q.offline_verdicts(view.claims):
            st.caption(q.OFFLINE_VERDICT_NOTE)
    else:
        st.caption("No claims stored for this answer (no claim metric in the run, or nothing factual to check).")
    aligncheck_facts(view)
    chunks_tab, metrics_tab = st.tabs(["Retrieved chunks", "Metric values"])
    with chunks_tab:
        contexts(view)
    with metrics_tab:
        metrics_table(view)
