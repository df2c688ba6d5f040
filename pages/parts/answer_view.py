"""Rendering of one answer for the Answers page (a helper module, not a page).

Every piece of document or model text goes through ``common.esc`` / ``common.md`` or a
plain-text widget; the only HTML tags are the ones built here.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.parts import answer_claims, common
from rageval.views import answers as view

_TABLE = "width:100%;border-collapse:collapse;font-size:0.92rem"
_CELL = "padding:0.35rem 0.5rem;border-bottom:1px solid #e8ebf1;vertical-align:top;text-align:left"


def claims_table(answer: view.AnswerView) -> str:
    head = "".join(f'<th style="{_CELL}">{h}</th>' for h in ("#", "verdict", "settled by", "confidence", "claim",
                                                             "evidence", "reason", "likely cause"))
    rows = []
    for n, c in enumerate(view.claim_rows(answer), start=1):
        evidence = f"{common.esc(c['evidence'][0])}“{common.esc(c['evidence'][1])}”" if c["evidence"] else "—"
        by = common.esc(c["settled_by"]) + (f"<details><summary>other sources</summary><div>{common.esc(c['others'])}"
                                            "</div></details>" if c["others"] else "")
        cells = (str(n), common.badge(c["verdict"], low_confidence=c["low_confidence"]), by,
                 common.esc(c["confidence"]),
                 common.esc(c["claim"]), evidence, common.esc(c["reason"]), common.esc(c["cause"]))
        rows.append("<tr>" + "".join(f'<td style="{_CELL}">{x}</td>' for x in cells) + "</tr>")
    return f'<table style="{_TABLE}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def flags(answer: view.AnswerView) -> None:
    """The hedging flag and the hallucination diagnosis (details of 'hedging' and 'faithfulness')."""
    hedging, diagnosis, faith = view.flag_lines(answer)
    lines = [f"**Hedging** {common.md(hedging)}" if hedging else "",
             f"**Diagnosis** {common.md(diagnosis)}" if diagnosis else "",
             f"**Faithfulness** {common.md(faith)}" if faith else ""]
    if any(lines):
        st.markdown("  \n".join(x for x in lines if x))
    details = {m: answer.details(m) for m in ("hedging", "faithfulness") if answer.details(m)}
    if details:
        with st.expander("Hedging and diagnosis details"):
            st.json(details, expanded=2)


def contexts(answer: view.AnswerView) -> None:
    """Retrieved chunks in rank order with each claim's evidence highlighted in its verdict colour."""
    spans = view.evidence_spans(answer)
    if not answer.contexts:
        st.info("No retrieved context was stored for this answer.")
    for i, ctx in enumerate(answer.contexts):
        score = "—" if ctx.score is None else f"{ctx.score:.3f}"
        where = f" · {ctx.doc_name}" + (f" p.{ctx.page}" if ctx.page else "") if ctx.doc_name else ""
        label = f"#{ctx.rank} · score {score}{where}" + (" · evidence" if i in spans else "")
        with st.expander(common.md(label), expanded=i in spans):
            st.html(common.highlight_html(view.segments(ctx.text, spans.get(i, []))))


def aligncheck_facts(answer: view.AnswerView) -> None:
    """AlignCheck's facts beside the claim verdicts: matched pairs, added (FP) and dropped (FN) facts."""
    found = view.aligncheck_facts(answer)
    if found is None:
        return
    _name, score, tables = found
    if score["status"] != "ok":
        st.caption(f"AlignCheck: {common.md(score['status'])}: {common.md(score['reason'])}")
        return
    with st.expander(f"AlignCheck facts: {len(tables['matched'])} matched, {len(tables['added'])} added by the answer "
                     f"(possible fabrication), {len(tables['dropped'])} dropped"):
        for title, rows in (("Matched (subject, object) pairs", tables["matched"]),
                            ("Added by the answer (FP)", tables["added"]),
                            ("Dropped from the source (FN)", tables["dropped"])):
            if rows:
                st.markdown(f"**{title}**")
                common.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def metrics_table(answer: view.AnswerView) -> None:
    rows = view.metric_rows(answer)
    if rows:
        table = pd.DataFrame(rows)
        common.dataframe(table.drop(columns=["signature"]), hide_index=True, width="stretch",
                         column_config={"value": st.column_config.NumberColumn(format="%.3f", width="small"),
                                        "id": st.column_config.TextColumn("identifier", width="small"),
                                        "what it measures": st.column_config.TextColumn(width="large")})
        with st.expander("Signatures: the settings that produced each value"):
            common.dataframe(table[["id", "signature"]], hide_index=True, width="stretch")
    else:
        st.info("No metric scored this answer.")


def answer_box(answer: view.AnswerView) -> None:
    """The answer with each claim highlighted in its verdict colour (or why there is none)."""
    if answer.status != "ok":
        st.error(f"Generation failed: {common.md(answer.reason)}")
    if answer.answer:
        segments, lost = view.answer_segments(answer.answer, answer.claims)
        st.html(common.highlight_html(segments))
        if lost:
            st.caption(f"Claim(s) {', '.join(map(str, lost))} are rewordings not found verbatim in the answer.")
    else:
        common.text_box(None, empty="(no answer)")


def show(answer: view.AnswerView, p=None, run_id: str | None = None) -> None:
    left, right = st.columns(2)
    with left:
        st.markdown("**Question**")
        common.text_box(answer.question)
    with right:
        st.markdown("**Gold answer**")
        common.text_box("\n".join(answer.references), empty="(no gold answer)")
    head, key = st.columns([1, 3], vertical_alignment="bottom")
    head.markdown("**Answer**")
    with key:
        common.legend()
    answer_box(answer)
    flags(answer)
    if answer.claims:
        st.markdown(f"**Claims** ({len(answer.claims)}, checked against the retrieved chunks)")
        st.html(claims_table(answer))
        if view.offline_verdicts(answer.claims) and not view.all_undecided(answer):
            st.caption(view.OFFLINE_VERDICT_NOTE)
        if p is not None and run_id is not None:
            answer_claims.judge_agreement(p, run_id)
            answer_claims.label_claims(p, run_id, answer.item_id)
    else:
        st.caption("No claims stored for this answer (no claim metric in the run, or nothing factual to check).")
    aligncheck_facts(answer)
    chunks_tab, metrics_tab = st.tabs(["Retrieved chunks", "Metric values"])
    with chunks_tab:
        contexts(answer)
    with metrics_tab:
        metrics_table(answer)
