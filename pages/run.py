"""Run: choose settings, start a run in the background, watch its progress, resume stopped runs."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages import common
from rageval import app_queries as q
from rageval.config import RunConfig
from rageval.errors import ConfigError
from rageval.ingest.chunking import METHODS, ChunkingConfig
from rageval import pipeline
from rageval.pipeline import start_run
from rageval.store import corpus as corpus_store
from rageval.store import runs as run_store


def settings(corpora: list[str], sets: list[str]) -> RunConfig | None:
    c1, c2 = st.columns(2)
    corpus = c1.selectbox("Corpus", corpora, key="run_corpus")
    qa_set = c2.selectbox("QA set", sets, key="run_qa")
    c1, c2, c3, c4 = st.columns(4)
    method = c1.selectbox("Chunking", METHODS, key="run_method")
    size = c2.number_input("Chunk size", 50, 20000, 1024, step=64, key="run_size")
    overlap = c3.number_input("Overlap", 0, 10000, 128, step=16, key="run_overlap")
    top_k = int(c4.number_input("Top-k", 1, 100, 10, key="run_top_k"))
    c1, c2, c3, c4 = st.columns(4)
    embedder = common.spec_input("Embedder", "local", key="run_embedder", model="text-embedding-3-small", container=c1)
    generator = common.spec_input("Generator", "extractive", key="run_generator", model="gpt-4o-mini", container=c2)
    temperature = c3.slider("Temperature", 0.0, 2.0, 0.0, 0.1, key="run_temperature", disabled=generator == "extractive")
    judge = common.spec_input("Judge", "heuristic", key="run_judge", model="gpt-4o-mini", container=c4)
    options = q.metric_options(top_k)
    metrics = st.multiselect("Metrics", options, default=q.default_metrics(options), key="run_metrics")
    source, types = aligncheck_settings(metrics)
    try:
        q.check_metric_options(metrics, aligncheck_source=source, aligncheck_types=types)
        return RunConfig(corpus=corpus, qa_set=qa_set, embedder=embedder, top_k=top_k, generator=generator,
                         chunking=ChunkingConfig(method=method, size=int(size), overlap=int(overlap)),
                         temperature=float(temperature), judge=judge, metrics=tuple(metrics),
                         aligncheck_source=source, aligncheck_types=types)
    except ConfigError as exc:
        st.error(common.md(str(exc)))
        return None


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


@st.fragment(run_every=1.0)
def progress(p) -> None:
    """Polls the database for the runs executing in this server process."""
    active = common.workers().active(p)
    for run_id in active:
        run = run_store.get_run(p.db_path, run_id)
        c1, c2 = st.columns([5, 1])
        c1.progress(min(run["done"] / max(run["n_items"], 1), 1.0),
                    text=f"Run {run_id}: {run['done']}/{run['n_items']} items ({run['status']})")
        if c2.button("Stop", key=f"stop_{run_id}"):
            common.workers().stop(p, run_id)
    if not active:
        st.rerun(scope="app")


def main() -> None:
    p = common.project()
    st.title("Run")
    corpora = [c["name"] for c in corpus_store.corpora(p.db_path) if c["documents"]]
    sets = [s["name"] for s in run_store.qa_sets(p.db_path) if s["items"]]
    common.need(corpora, "A run needs a corpus with documents.", "documents", "Upload documents")
    common.need(sets, "A run needs a QA set.", "qa", "Import a QA set")
    with st.container(border=True):
        config = settings(corpora, sets)
        c1, c2 = st.columns([1, 4])
        start = c1.button("Start run", type="primary", key="run_start", disabled=config is None or not config.metrics)
        estimate = pipeline.estimate(p, config) if config is not None and config.metrics else None
        if estimate is not None:
            c2.caption("Estimate: " + common.md(pipeline.estimate_text(estimate)))
        elif config is not None:
            c2.caption("Everything offline: no model calls, no cost.")
    if start and config is not None:
        run_id = start_run(p, config)
        common.workers().start(p, run_id)
        common.bump()
    workers = common.workers()
    if workers.active(p):
        progress(p)
    runs = run_store.runs(p.db_path)
    for r in runs:
        if workers.error(p, r["id"]):
            st.error(f"Run {r['id']} stopped: {common.md(workers.error(p, r['id']))}")
    if not runs:
        st.info("No runs yet: choose the settings above and start one.")
        return
    st.subheader("Runs")
    st.dataframe(pd.DataFrame(q.run_rows(p)), hide_index=True, width="stretch")
    stopped = [r for r in runs if q.resumable(r, active=r["id"] in workers.active(p))]
    if stopped:
        c1, c2 = st.columns([3, 1])
        by_id = {r["id"]: r for r in stopped}
        run_id = c1.selectbox("Stopped runs", list(by_id), format_func=lambda i: q.run_label(by_id[i]),
                              key="resume_pick")
        if c2.button("Resume", key="run_resume", help="continues where it stopped; finished items are kept"):
            workers.start(p, run_id)
            common.bump()
            st.rerun()
    st.page_link(common.PAGES["answers"], label="Inspect the answers", icon=":material/fact_check:")


common.run_page(main)
