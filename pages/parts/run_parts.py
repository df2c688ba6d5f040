"""Pieces of the Run page (a helper module, not a page): settings, presets, progress, finish."""
from __future__ import annotations

import streamlit as st

from pages.parts import common, data
from rageval.errors import ConfigError
from rageval.views import run as view

HELP = {
    "corpus": "The documents to retrieve from (Documents page).",
    "qa": "The questions to answer, with gold answers and optional relevance labels (QA sets page).",
    "method": "recursive: split at paragraphs, then lines, sentences and words; chars: fixed windows.",
    "size": f"Largest chunk, in characters (default {view.CHUNK_SIZE}). Smaller chunks retrieve more precisely, "
            "larger ones carry more context.",
    "overlap": f"Characters shared by neighbouring chunks (default {view.CHUNK_OVERLAP}); "
               "must be smaller than the chunk size.",
    "top_k": f"Chunks retrieved per question and handed to the generator (default {view.TOP_K}).",
    "temperature": "Sampling temperature of an LLM generator (0 = deterministic).",
    "metrics": "What to compute for every answer. Hover a metric's column on the Answers page for its "
               "meaning; cards in docs/metrics.md.",
}


def presets(p) -> None:
    """Pick a saved preset (applied through a callback, before the widgets are drawn)."""
    saved = view.presets(p)
    if not saved:
        return

    def apply() -> None:
        chosen = saved.get(st.session_state.get("run_preset") or "")
        if chosen:
            st.session_state.update(view.preset_state(chosen))

    st.selectbox("Preset", [""] + sorted(saved), key="run_preset", on_change=apply,
                 format_func=lambda n: n or "(choose a saved preset)",
                 help="Saved settings (everything but the corpus and QA set); saved below the Start button.")


def settings(p, corpora: list[str], sets: list[str]) -> view.RunConfig | None:
    c1, c2 = st.columns(2)
    corpus = c1.selectbox("Corpus", corpora, key="run_corpus", help=HELP["corpus"])
    qa_set = c2.selectbox("QA set", sets, key="run_qa", help=HELP["qa"])
    c1, c2, c3, c4 = st.columns(4)
    method = c1.selectbox("Chunking", view.METHODS, key="run_method", help=HELP["method"])
    size = c2.number_input("Chunk size", 50, 20000, view.CHUNK_SIZE, step=64, key="run_size", help=HELP["size"])
    overlap = c3.number_input("Overlap", 0, 10000, view.CHUNK_OVERLAP, step=16, key="run_overlap", help=HELP["overlap"])
    top_k = int(c4.number_input("Top-k", 1, 100, view.TOP_K, key="run_top_k", help=HELP["top_k"]))
    c1, c2, c3, c4 = st.columns(4)
    embedder = common.spec_input("Embedder", "local", key="run_embedder", model="text-embedding-3-small", container=c1)
    generator = common.spec_input("Generator", "extractive", key="run_generator", model="gpt-4o-mini", container=c2)
    temperature = c3.slider("Temperature", 0.0, 2.0, 0.0, 0.1, key="run_temperature",
                            disabled=generator == "extractive", help=HELP["temperature"])
    judge = common.spec_input("Judge", "heuristic", key="run_judge", model="gpt-4o-mini", container=c4)
    options = view.metric_options(p, top_k)
    default, skipped, cannot = view.metric_defaults(p, qa_set, options)
    pending = st.session_state.pop("run_metrics_pending", None)
    if pending is not None:
        st.session_state["run_metrics"] = [m for m in pending if m in options]
    metrics = st.multiselect("Metrics", options, default=default, key="run_metrics", help=HELP["metrics"])
    if skipped:
        st.caption("Not selected: " + common.md(", ".join(skipped)) + " — " + common.md(cannot[skipped[0]])
                   + " in this QA set (relevance labels are explained on the QA sets page).")
    source, types = aligncheck_settings(metrics)
    try:
        return view.build_config(p, metrics=metrics, aligncheck_source=source, aligncheck_types=types, method=method,
                                 size=size, overlap=overlap, corpus=corpus, qa_set=qa_set, embedder=embedder,
                                 top_k=top_k, generator=generator, temperature=float(temperature), judge=judge)
    except ConfigError as exc:
        st.error(common.md(str(exc)))
        return None


def rubric_form(p) -> None:
    """Define a rubric metric without code: TOML in, stored in the project, offered as rubric:NAME above."""
    with st.expander("Rubric metrics: your own criteria, judged by the LLM"):
        st.caption("Write a rubric (name, what it measures, criteria, what a 1-5 answer looks like). It becomes "
                   "the metric rubric:NAME in the list above; it needs an LLM judge (offline it is unscored).")
        text = st.text_area("Rubric (TOML)", view.RUBRIC_EXAMPLE, height=260, key="rubric_text")
        saved = st.session_state.pop("rubric_saved", None)
        if saved:
            st.success(f"Saved: choose {common.md(saved)} in Metrics above.")
        if st.button("Save rubric", key="rubric_save"):
            try:
                rubric = view.add_rubric(p, text)
            except ConfigError as exc:
                st.error(common.md(str(exc)))
                return
            data.bump()
            st.session_state["rubric_saved"] = rubric.metric
            st.rerun()  # the Metrics list above is drawn again with the new rubric in it


def aligncheck_settings(metrics: list[str]) -> tuple[str, str]:
    """AlignCheck's source and entity-type granularity, asked only when an aligncheck metric is chosen."""
    if not any(m.startswith("aligncheck_") for m in metrics):
        return "reference", "all"
    c1, c2 = st.columns(2)
    source = c1.selectbox("AlignCheck source", ("reference", "contexts"), key="run_aligncheck_source",
                          help="compare the answer's facts with the gold answer, or with the retrieved chunks")
    types = c2.text_input("AlignCheck entity types", "all", key="run_aligncheck_types",
                          help="all | N (top N types by TF-IDF over the batch) | types such as PERSON,ORG")
    return source, types.strip() or "all"


def save_preset(p, config: view.RunConfig | None) -> None:
    with st.popover("Save as preset", disabled=config is None):
        name = st.text_input("Preset name", key="preset_name", placeholder="e.g. small chunks, LLM judge")
        if st.button("Save", key="preset_save", disabled=not name.strip()):
            try:
                view.save_preset(p, name, config)
                st.success(f"Saved preset {common.md(name.strip())}.")
            except ConfigError as exc:
                st.error(common.md(str(exc)))


def progress(p) -> None:
    """Live progress of the runs executing in this server process (any tab sees them)."""
    workers = common.workers()
    for run_id, prog in workers.live(p).items():
        c1, c2 = st.columns([5, 1])
        label = f"Run {run_id}: " + prog.text()
        if workers.stopping(p, run_id):
            label += " · cancelling after the current batch"
        c1.progress(prog.fraction(), text=label)
        if data.can("run") and c2.button("Cancel", key=f"stop_{run_id}",
                                         help="stops after the current batch; Resume continues it"):
            workers.stop(p, run_id)


def finished(p) -> None:
    """What became of each run this session started that ended without finishing (a finished or failed
    run is announced on every page by pages.parts.common.announce_finished)."""
    for run_id in list(st.session_state.get("run_watch", [])):
        if run_id in common.workers().active(p):
            continue
        run = view.get_run(p, run_id)
        if run is None or run.status == "finished":
            continue
        error = common.workers().error(p, run_id)
        if error:
            st.error(f"Run {common.md(common.run_title(run))} stopped: {common.md(error)}  \n"
                     "Fix what the message names, then Resume it below or start a new run with other settings.")
        else:
            st.info(f"Run {common.md(common.run_title(run))} is {run.status}: resume it below.")
