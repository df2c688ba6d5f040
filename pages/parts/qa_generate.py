"""Generating a QA set from ingested documents, for the QA sets page (a helper module, not a page):
choose, see the estimate, generate, review in an editable table, save."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.parts import common, data, nav
from rageval.errors import ConfigError
from rageval.views import qa_sets as view

GENERATORS = ["template (offline smoke test)", "LLM (openai)"]


def _config(p, corpora: list[str]):
    c1, c2, c3 = st.columns([2, 1, 2])
    corpus = c1.selectbox("Corpus", corpora, key="qa_gen_corpus")
    n = c2.number_input("Questions", min_value=1, max_value=500, value=20, step=1, key="qa_gen_n")
    name = c3.text_input("Name of the new set", value="generated", key="qa_gen_name").strip()
    kind = st.radio("Generator", GENERATORS, horizontal=True, key="qa_gen_kind")
    if kind == GENERATORS[0]:
        st.caption(view.TEMPLATE_NOTE)
        return view.generation_config(corpus, name, n)
    c1, c2, c3 = st.columns([1, 2, 1])
    model = c1.text_input("Model", value="gpt-4o-mini", key="qa_gen_model").strip()
    kinds = c2.multiselect("Kinds", view.TESTSET_KINDS, default=list(view.TESTSET_KINDS), key="qa_gen_kinds")
    language = c3.selectbox("Language", ["each chunk's own", "en", "it"], key="qa_gen_language")
    config = view.generation_config(corpus, name, n, generator=f"openai:{model}", kinds=kinds,
                                    language=None if language.startswith("each") else language)
    st.info(common.md(view.generation_estimate(p, config)), icon=":material/payments:")
    return config


def choose(p) -> None:
    corpora = view.corpus_names(p)
    if not corpora:
        st.info("Ingest documents on the Documents page first; questions are written from their chunks.")
        return
    try:
        config = _config(p, corpora)
    except ConfigError as exc:
        st.error(common.md(str(exc)))
        return
    if st.button("Generate", type="primary", key="qa_gen_go"):
        bar = st.progress(0.0, text="starting")

        def report(phase: str, done: int, total: int) -> None:
            bar.progress(min(done / total, 1.0) if total else 0.0, text=f"{phase} {done}/{total}")

        result = view.generate(p, config, progress=report)
        bar.empty()
        st.session_state["qa_gen"] = (config, result, view.review_rows(p, result))
        st.session_state.pop("qa_gen_saved", None)


def review(p) -> None:
    config, result, rows = st.session_state["qa_gen"]
    if not rows:
        st.warning(common.md(view.generation_summary(result)))
        return
    st.markdown(f"**Review {common.md(config.name)}**: {common.md(view.generation_summary(result))} Edit a "
                "question or reference in place; untick **keep** to drop a row. Nothing is stored until you save.")
    edited = st.data_editor(
        pd.DataFrame(rows), key="qa_gen_editor", hide_index=True, width="stretch", num_rows="fixed",
        disabled=["kind", "source", "id"],
        column_config={"keep": st.column_config.CheckboxColumn("keep", width="small"),
                       "question": st.column_config.TextColumn("question", width="medium"),
                       "reference": st.column_config.TextColumn("reference", width="medium"),
                       "source": st.column_config.TextColumn("source chunk", width="large")},
        column_order=["keep", "question", "reference", "source", "kind", "id"])
    if st.button("Save the set", type="primary", key="qa_gen_save"):
        accepted = view.save_reviewed(p, config, result, edited.to_dict("records"))
        st.session_state["qa_gen_saved"] = (config.name, accepted, len(rows) - accepted)
        data.bump()
    saved = st.session_state.get("qa_gen_saved")
    if saved:
        st.success(f"Saved {common.md(saved[0])}: {saved[1]} accepted, {saved[2]} dropped.")
        c1, c2, c3 = st.columns([1, 1, 2])
        c1.download_button("CSV", view.export_csv(p, saved[0]), f"{saved[0]}.csv", "text/csv", key="qa_gen_csv")
        c2.download_button("JSONL", view.export_jsonl(p, saved[0]), f"{saved[0]}.jsonl", "application/json",
                           key="qa_gen_jsonl")
        c3.page_link(nav.PAGES["run"], label="Next: run it against its corpus", icon=":material/play_circle:")


def generate_section(p) -> None:
    with st.expander("Generate from documents", expanded="qa_gen" in st.session_state):
        choose(p)
        if "qa_gen" in st.session_state:
            review(p)
