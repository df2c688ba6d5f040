"""People's claim labels on the Answers page (a helper module, not a page): each verifier's agreement
with them beside the verdicts, and one button per verdict for every claim of the answer."""
from __future__ import annotations

import streamlit as st

from pages import common
from rageval.views import answers as view


def judge_agreement(p, run_id: str) -> None:
    """Beside the verdicts: how far each verifier of this run agrees with people's claim labels."""
    rows, _ = common.claim_trust(p)
    mine = [r for r in rows if run_id in r.get("runs", (run_id,))]
    if mine:
        st.caption("  \n".join(common.md(view.verifier_sentence(r)) for r in mine))


def label_claims(p, run_id: str, item_id: str) -> None:
    """One click per claim: the rater's verdict, with the evidence sentence proposed and changeable; the
    keys 1-4 label the first claim the rater has not labelled."""
    with st.expander("Label these claims: your verdict, one click each"):
        rater = st.text_input("Your name", key="ans_rater", placeholder="e.g. maria").strip()
        if not rater:
            st.caption("Type your name to label claims; Human review has a queue of every claim of the run.")
            return
        _answer, cards, options = view.claim_cards(p, run_id, item_id, rater)
        current = next((n for n, card in enumerate(cards) if card.mine is None), None)
        for n, card in enumerate(cards):
            verdicts = ", ".join(f"{judge}: {verdict}" for judge, verdict in card.verdicts)
            st.markdown(f"**{n + 1}.** {common.md(card.claim)}  \n"
                        f"verifiers: {common.md(verdicts)} · yours: **{common.md(card.mine or '—')}**")
            chosen = st.selectbox("Evidence", range(len(options)), index=card.proposed, key=f"ans_ev_{item_id}_{n}",
                                  format_func=lambda i: common.plain(options[i].label())) if options else None
            for col, (label, text, key) in zip(st.columns(len(view.LABEL_BUTTONS)), view.LABEL_BUTTONS):
                if col.button(f"{text} ({key})" if n == current else text, key=f"ans_lab_{item_id}_{n}_{label}",
                              shortcut=key if n == current else None,
                              type="primary" if card.mine == label else "secondary"):
                    view.save_claim_label(p, run_id, card, rater, label, options[chosen] if chosen is not None else None)
                    common.bump()
                    common.rerun_fragment()
