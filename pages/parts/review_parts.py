"""The ratings import and the answers to discuss, for the Human review page (a helper module, not a page)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.parts import common, data
from rageval.errors import RagevalError
from rageval.views import human_review as view


def import_box(p, run_id: str) -> None:
    with st.expander("Import ratings from a file (CSV, JSON, JSONL: item_id or question, annotator, rating)"):
        up = st.file_uploader("Ratings file", type=["csv", "json", "jsonl"], key="hr_upload")
        who = st.text_input("Annotator", key="hr_import_annotator",
                            placeholder="for a file without an annotator column",
                            help="The annotator of the rows that name none (one person's ratings in a file "
                                 "without the annotator column); a row's own annotator wins.")
        if up is not None and st.button("Import", key="hr_import"):
            try:
                res = view.import_ratings(p, up.name, up.getvalue(), run_id=run_id, annotator=who)
            except RagevalError as exc:  # a file that cannot be read as a whole: the CLI's one line
                st.error(common.md(str(exc)))
                return
            data.bump()
            st.success(f"{res.imported} rating(s) imported, {len(res.errors)} row(s) rejected")
            if res.errors:
                common.dataframe(pd.DataFrame(view.rejected_rows(res)), hide_index=True)


def discussion_box(p, run_id: str) -> None:
    """Answers whose ratings span 2 or more, with the agreed score that overrides their consensus."""
    flagged = view.for_discussion(p, run_id)
    if flagged.empty:
        return
    with st.expander(f"For discussion: {len(flagged)} answer(s) whose ratings differ by 2 or more"):
        common.dataframe(flagged, hide_index=True)
        c1, c2, c3 = st.columns([2, 1, 1])
        item = c1.selectbox("Answer", list(flagged["item_id"]), key="hr_agree_item", format_func=common.plain)
        score = c2.number_input("Agreed score", 1, 5, 3, key="hr_agree_score")
        if c3.button("Set agreed score", key="hr_agree_set"):
            view.set_agreed(p, run_id, item, score)
            data.bump()
            st.rerun()


@st.fragment
def claim_queue(p, run_id: str, name: str) -> None:
    """The rater's claim queue: one claim, its answer and the sentences of its contexts (the proposed evidence
    chosen, a click choosing another); one click or key (1-4) saves the label and shows the next claim. The
    clicks act in callbacks, before this fragment's one rerun."""
    item = view.next_claim(p, run_id, name)
    if item is None:
        st.success("Every claim of this run has your label. Thank you!")
        return
    card = item.card
    st.caption(f"{item.remaining} claim(s) left for {common.md(name)} · this one comes now: {common.md(item.why)}")
    st.subheader(common.plain(item.question) or card.item_id, anchor=False)
    st.markdown("**Answer**")
    common.text_box(item.answer.answer, empty="(no answer)")
    st.markdown(f"**Claim {card.ordinal + 1}**")
    common.text_box(card.claim)
    st.caption("Verifiers: " + common.md(", ".join(f"{j}: {v}" for j, v in card.verdicts)))
    ev_key = f"hr_ev_{card.item_id}_{card.ordinal}"  # the sentence last clicked, the label takes it
    chosen = st.session_state.get(ev_key, card.evidence)
    common.sentence_picker(view.evidence_texts(item.options, card), chosen, key=ev_key,
                           on_pick=lambda k: st.session_state.__setitem__(ev_key, k))
    evidence = item.options[chosen] if chosen is not None else None
    for col, (label, text, key) in zip(st.columns(len(view.LABEL_BUTTONS)), view.LABEL_BUTTONS):
        col.button(f"{text} ({key.upper()})", key=f"hr_claim_{label}", shortcut=key, width="stretch",
                   type="primary" if label != "SKIP" else "secondary", on_click=_label,
                   args=(p, run_id, card, name, label, evidence))


def _label(p, run_id: str, card, name: str, label: str, evidence) -> None:
    view.save_claim_label(p, run_id, card, name, label, evidence)
    data.bump()
