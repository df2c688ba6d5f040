"""Answers: per-run metric means, a sortable filterable table of every answer, each answer's
claims, evidence and scores, plots, and the same question side by side across two runs."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.parts import answer_compare, answer_table, answer_view, common, data, nav
from rageval.views import answers as view


def exports(p, run) -> None:
    """The run as a customer-ready HTML report, and as data (with contexts) to score elsewhere."""
    with st.expander("Export this run: HTML report, JSONL, Parquet, RAGAS format, CSV"):
        st.caption("The HTML report is one self-contained page (summary, distributions, worst answers with "
                   "their claims) to mail to a customer. The data exports carry contexts and ids; the RAGAS "
                   "file (user_input, response, retrieved_contexts, reference) scores back with `rageval score`.")
        if not st.toggle("Prepare the files", key="ans_exports"):
            return
        keys = ("dl_report", "dl_run_jsonl", "dl_run_parquet", "dl_run_ragas", "dl_run_csv")
        for col, key, (what, (name, mime)) in zip(st.columns(5), keys, view.EXPORTS.items()):
            col.download_button(what, view.export(p, run.id, what), name.format(rid=run.id), mime, key=key)


@st.fragment
def question(p, run, other, rows) -> None:
    """The chosen answer (and the other run's, side by side): choosing another question reruns only this."""
    items = {i: common.plain(label) for i, label in view.question_labels(rows).items()}
    if st.session_state.get("ans_item") not in items:
        st.session_state.pop("ans_item", None)
    item_id = st.selectbox("Question", list(items), key="ans_item", format_func=items.get,
                           on_change=nav.url_write)
    answer = data.answer_view(p, run, item_id)
    if answer is None:
        st.info("This answer is no longer stored; reload the page.")
        return
    if answer.unscored():
        st.caption("Unscored here: " + common.md(view.unscored_text(answer)))
    if other is not None:
        st.subheader("Side by side")
        answer_compare.side_by_side(answer, data.answer_view(p, other, item_id),
                                    (common.run_title(run), common.run_title(other)))
        st.divider()
    answer_view.show(answer, p, run.id)


def main() -> None:
    p = data.project()
    st.title("Answers")
    runs = data.finished_runs(p)
    common.need(runs, "No finished run in this project yet.", "run", "Start a run")
    by_id = {r.id: r for r in runs}
    nav.url_state({"run": ("ans_run", ""), "run_b": ("ans_compare", ""), "question": ("ans_item", ""),
                      "tab": ("ans_tab", "Answers")})
    if st.session_state.get("ans_run") not in by_id:
        st.session_state.pop("ans_run", None)
    run = by_id[st.selectbox("Run", list(by_id), format_func=lambda i: common.run_title(by_id[i]), key="ans_run",
                             help="runs are named by what produced them and when; the id is in the address bar")]
    summaries = data.summaries(p, run)
    if summaries:
        answer_table.metric_cards(summaries, per_row=4, notes=data.card_notes(p, run), agreement=data.agreement(p))
    if lines := data.answer_ppi_lines(p, run):  # where people labelled: the estimates beside the raw means
        with st.expander("How sure these numbers are, where people labelled"):
            for line, tip in lines:
                st.caption(common.md(line), help=tip)
    else:
        st.info("This run has no metric scores.")
    reasons = view.unscored_reasons(summaries)
    if reasons:
        with st.expander(f"Unscored and why ({sum(r['items'] for r in reasons)} item-metric pairs)"):
            common.dataframe(pd.DataFrame(reasons), hide_index=True, width="stretch")
    exports(p, run)
    full = data.answer_table(p, run)
    common.need(len(full), "This run has no stored answers yet.", "run", "See the run's progress")
    others = [r for r in runs if r.id != run.id]
    if st.session_state.get("ans_compare") not in [""] + [r.id for r in others]:
        st.session_state.pop("ans_compare", None)
    other_id = st.selectbox("Compare with run", [""] + [r.id for r in others], key="ans_compare",
                            format_func=lambda i: common.run_title(by_id[i]) if i else "(none)",
                            help="the same questions answered by another run, side by side")
    other = by_id.get(other_id) if other_id else None
    if st.session_state.get("ans_tab") not in ("Answers", "Plots"):
        st.session_state.pop("ans_tab", None)
    answers_tab, plots_tab = st.tabs(["Answers", "Plots"], key="ans_tab", on_change="rerun")
    if plots_tab.open:  # drawn only when open: the plots read every value of the run
        with plots_tab:
            answer_compare.plots(p, run, other, [s.metric for s in summaries if s.mean is not None])
    if not answers_tab.open:
        return
    with answers_tab:
        rows = answer_table.table(run, full, answer_table.filters(full, summaries))
        st.caption(f"{len(rows)} of {len(full)} answers match")
        if not len(rows):
            st.info("No answer matches these filters; loosen them to see more.")
            return
        question(p, run, other, rows)


common.run_page(main)
