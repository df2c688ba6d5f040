"""People's claim labels on the Answers page (a helper module, not a page): each verifier's agreement
with them beside the verdicts, and one button per verdict for every claim of the answer."""
from __future__ import annotations

import streamlit as st

from pages.parts import common, data
from rageval.views import answers as view


def judge_agreement(p, run_id: str) -> None:
    """Beside the verdicts: how far each verifier of this run agrees with people's claim labels."""
    rows, _ = data.claim_trust(p)
    mine = [r for r in rows if run_id in r.get("runs", (run_id,))]
    if mine:
        st.caption("  \n".join(common.md(view.verifier_sentence(r)) for r in mine), help=view.AGREEMENT_HELP)
        if view.judge_line(mine):
            st.caption(common.md(view.judge_line(mine)))
        if any(r["n"] for r in mine):
            with st.expander("Each verifier against people: n, accuracy, kappa, precision and recall per verdict"):
                common.dataframe(view.verifier_frame(mine), hide_index=True)
                st.caption(common.md("  \n".join(f"{r['verifier']}: {r['signature']}" for r in mine)))


@st.fragment
def label_claims(p, run_id: str, item_id: str) -> None:
    """One click per claim: the rater's verdict. The claim in the box is the one the keys 1-4 act on, with
    its evidence sentence proposed and changed by a click on another; a label moves the box to the next
    claim, a click on a claim's text moves it there. The clicks act in callbacks, before one rerun of
    this fragment (inside the answer's: the verifiers' agreement above, 0.5 s to recompute on 10,000
    answers, follows when the answer's view reruns)."""
    if not data.can("label"):
        return  # a viewer reads the verdicts above; labelling needs the annotator role
    with st.expander("Label these claims: your verdict, one click or key each"):
        rater = common.rater_name("label", key="ans_rater", placeholder="e.g. maria")
        if not rater:
            st.caption("Type your name to label claims; Human review has a queue of every claim of the run.")
            return
        _answer, cards, options = view.claim_cards(p, run_id, item_id, rater)
        focus_key = f"ans_focus_{run_id}_{item_id}"
        current = view.claim_focus(cards, st.session_state.get(focus_key))
        st.caption("The keys 1-4 (" + ", ".join(t for _, t, _ in view.LABEL_BUTTONS) + ") label the claim in the "
                   "box, then the box moves to the next claim; click a claim's text to move the box to it.")
        for n, card in enumerate(cards):
            verdicts = ", ".join(f"{judge}: {verdict}" for judge, verdict in card.verdicts)
            about = f"verifiers: {common.md(verdicts)} · yours: **{common.md(card.mine or '—')}**"
            ev_key = f"ans_ev_{item_id}_{n}"  # the sentence last clicked for this claim
            chosen = card.stored if card.stored is not None else st.session_state.get(ev_key, card.evidence)
            with st.container(border=n == current, key="ans_claim_current" if n == current else None):
                if n == current:
                    st.markdown(f"**▶ {n + 1}. {common.md(card.claim)}** (the keys act on this claim)  \n{about}")
                    common.sentence_picker(view.evidence_texts(options, card), chosen, key=ev_key,
                                           on_pick=lambda k, card=card, key=ev_key: _pick(p, run_id, card, rater,
                                                                                          options, key, k))
                else:
                    st.button(f"{n + 1}. {common.md(card.claim)}", key=f"ans_focus_{item_id}_{n}", type="tertiary",
                              help="make this the claim the keys act on, with its evidence sentences",
                              on_click=st.session_state.__setitem__, args=(focus_key, n))
                    st.caption(about)
                evidence = options[chosen] if chosen is not None else None
                for col, (label, text, key) in zip(st.columns(len(view.LABEL_BUTTONS)), view.LABEL_BUTTONS):
                    col.button(f"{text} ({key})" if n == current else text, key=f"ans_lab_{item_id}_{n}_{label}",
                               shortcut=key if n == current else None,
                               type="primary" if card.mine == label else "secondary", on_click=_label,
                               args=(p, run_id, card, rater, label, evidence, focus_key, view.claim_after(cards, n)))


def _pick(p, run_id: str, card, rater: str, options, key: str, k: int) -> None:
    """A click on sentence ``k``: it becomes the claim's evidence, and the rater's label (if any) is stored
    again with it."""
    st.session_state[key] = k
    if view.choose_evidence(p, run_id, card, rater, options[k]):
        data.bump()


def _label(p, run_id: str, card, rater: str, label: str, evidence, focus_key: str, next_claim: int) -> None:
    view.save_claim_label(p, run_id, card, rater, label, evidence)
    st.session_state[focus_key] = next_claim
    data.bump()
