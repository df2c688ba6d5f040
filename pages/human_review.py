"""Human review: rate a run's answers 1-5 (Very Poor ... Very Good), resuming where you stopped."""
from __future__ import annotations

import streamlit as st

from pages.parts import common, data, nav, review_parts
from rageval.views import human_review as view


@st.fragment
def rating_form(p, run: dict, name: str, show_ctx: bool, blind: bool) -> None:
    """One answer and its rating form; saving reruns this fragment only (the rest of the page stays)."""
    items = data.review_queue(p, run, name)
    common.need(items, "This run has no answers.")
    run_id, total = run.id, len(items)
    pos_key = f"hr_pos_{run_id}_{name}"
    wanted = st.session_state.pop("hr_question", None)  # from the URL: open that question
    st.session_state[pos_key] = view.position(items, st.session_state.get(pos_key), wanted)
    i = min(st.session_state[pos_key], total - 1)
    item = items[i]
    st.session_state["hr_item"] = item.item_id  # written to the URL as question=
    done, _ = view.progress(items)
    st.progress(done / total, text=f"{name}: {done} of {total} answers rated")
    st.subheader(f"{item.ordinal + 1}. {item.question}", anchor=False)
    st.markdown("**Answer**")
    common.text_box(item.answer, empty="(no answer)")
    st.markdown("**Gold answer**")
    common.text_box(" | ".join(item.references), empty="(no gold answer)")
    if show_ctx:
        with st.expander("Retrieved context", expanded=True):
            for ctx in item.contexts:
                common.text_box(ctx)
    if not blind:
        st.caption(common.md(view.unblinded(item)))
    with st.form(key=f"hr_form_{run_id}_{item.item_id}", border=False):
        rating = st.radio("Rating", list(view.LABELS), format_func=lambda v: f"{v} {view.LABELS[v]}",
                          index=None if item.mine is None else item.mine - 1, horizontal=True,
                          key=f"hr_rating_{run_id}_{item.item_id}")
        saved = st.form_submit_button("Save and next", type="primary")
    if saved:
        common.need(rating is not None, "Pick a rating from 1 (Very Poor) to 5 (Very Good) first.")
        view.rate(p, run_id, item.item_id, name, rating)
        data.bump()
        step(pos_key, view.next_index(view.rated(items, i, rating), (i + 1) % total), items)
    b1, b2, _ = st.columns([1, 1, 4])
    if b1.button("Previous", key="hr_prev", disabled=i == 0):
        step(pos_key, i - 1, items)
    if b2.button("Skip", key="hr_next", disabled=i == total - 1):
        step(pos_key, i + 1, items)


def step(pos_key: str, i: int, items) -> None:
    """Move to answer ``i``: this fragment reruns, and the address bar follows."""
    st.session_state[pos_key] = i
    st.session_state["hr_item"] = items[i].item_id
    nav.url_write()
    common.rerun_fragment()


def main() -> None:
    p = data.project()
    st.title("Human review")
    runs = data.finished_runs(p)
    common.need(runs, "No finished run to review yet.", "run", "Start a run")
    by_id = {r.id: r for r in runs}
    nav.url_state({"run": ("hr_run", ""), "rater": ("hr_annotator", ""), "question": ("hr_question", ""),
                      "blind": ("hr_blind", True), "context": ("hr_ctx", False)})
    nav.url_state({"question": ("hr_item", "")})  # what the fragment shows is written back as question=
    if st.session_state.get("hr_run") not in by_id:
        st.session_state.pop("hr_run", None)
    run_id = st.selectbox("Run", list(by_id), format_func=lambda i: common.run_title(by_id[i]), key="hr_run")
    if p.slug == "demo":
        st.caption("The demo's ratings and claim labels by ann_a, ann_b and ann_c are illustrative, written for "
                   "the demo.")
    known = data.review_annotators(p, by_id[run_id])
    c1, c2, c3 = st.columns([2, 1, 1])
    name = common.rater_name("rate", key="hr_annotator", container=c1, placeholder="e.g. maria",
                             help="Known annotators: " + (", ".join(known) or "none yet"))
    st.session_state.setdefault("hr_blind", True)
    blind = c2.toggle("Blinded", key="hr_blind", help="hide metric scores and other annotators' ratings")
    show_ctx = c3.toggle("Show retrieved context", key="hr_ctx")
    if data.can("upload"):
        review_parts.import_box(p, run_id)
    if not blind and data.can("rate"):
        review_parts.discussion_box(p, run_id)
    mode = st.segmented_control("Review", ["Answers (1-5)", "Claims"], key="hr_mode", default="Answers (1-5)")
    common.need(name, "Type your name to start rating (it resumes where you stopped)." if data.identity().local
                else "Rating and labelling need the annotator role: ask an owner of this project.")
    if mode == "Claims":
        review_parts.claim_queue(p, run_id, name)
    else:
        rating_form(p, by_id[run_id], name, show_ctx, blind)


common.run_page(main)
