"""Documents: upload files into a corpus, see per-file results and errors, browse chunks."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.parts import common, data, doc_repairs
from rageval.views import documents as view


def upload(p) -> None:
    corpora = view.corpora(p)
    with st.container(border=True):
        st.markdown("**Add documents** (PDF, TXT, Markdown)")
        c1, c2, c3, c4 = st.columns([2, 1, 1, 1])
        corpus = c1.text_input("Corpus", value=view.default_corpus(p, corpora), key="doc_corpus",
                               help="A name for this set of documents; runs retrieve from one corpus.").strip()
        method = c2.selectbox("Chunking", view.METHODS, key="doc_method")
        size = c3.number_input("Chunk size", 50, 20000, view.CHUNK_SIZE, step=64, key="doc_size")
        overlap = c4.number_input("Overlap", 0, 10000, view.CHUNK_OVERLAP, step=16, key="doc_overlap")
        files = st.file_uploader("Files", type=["pdf", "txt", "md"], accept_multiple_files=True,
                                 key="doc_upload")
        if st.button("Ingest", type="primary", key="doc_ingest", disabled=not files or not corpus):
            chunking = view.chunking(method, size, overlap)  # runs in the background: leaving the page is fine
            common.ingests().start(p, corpus, [(f.name, f.getvalue()) for f in files], chunking=chunking)
            st.session_state["doc_chunking"] = chunking.signature()
            st.rerun()
    for job in common.ingests().take_finished(p):
        st.session_state["doc_report"] = job.report if job.error is None else job.error
    report = st.session_state.get("doc_report")
    if isinstance(report, str):
        st.error(f"The ingest failed: {common.md(report)}", icon=":material/error:")
    elif report is not None:
        for d in report.documents:
            state = "added" if d["new"] else "already in the corpus"
            st.success(f"{common.md(d['name'])}: {d['pages']} page(s), {d['chunks']} chunk(s), {state}",
                       icon=":material/check_circle:")
        for e in report.errors:
            st.error(f"{common.md(e.name)}: {common.md(e.reason)}", icon=":material/error:")


def main() -> None:
    p = data.project()
    st.title("Documents")
    if view.is_demo(p):
        st.info("This is the demo project. To evaluate your own files apart from it, create a project in the "
                "sidebar first (a new project starts empty).")
    if data.can("upload"):
        upload(p)
    corpora = view.corpora(p)
    common.need(corpora, "No corpus yet: upload documents above to create one.")
    corpus = st.selectbox("Corpus to inspect", corpora, key="doc_view_corpus")
    docs = view.documents(p, corpus)
    common.dataframe(pd.DataFrame(docs, columns=["name", "kind", "pages", "chars", "size_bytes", "id"]),
                 hide_index=True, width="stretch")
    doc_repairs.repairs_block(p, corpus)
    errors = view.ingest_errors(p, corpus)
    if errors:
        st.markdown(f"**Files that could not be ingested** ({len(errors)})")
        common.dataframe(pd.DataFrame(errors, columns=["name", "reason", "created"]), hide_index=True,
                     width="stretch")
    st.subheader("Chunk browser")
    if not docs:
        st.info("This corpus has no documents yet.")
        return
    extra = [st.session_state["doc_chunking"]] if "doc_chunking" in st.session_state else []
    c1, c2 = st.columns([2, 1])
    names = {d["id"]: d["name"] for d in docs}
    doc_id = c1.selectbox("Document", list(names), format_func=names.get, key="doc_browse")
    sigs = view.chunkings(p, corpus, extra)
    if not sigs:
        st.info("No chunks stored for this corpus yet.")
        return
    sig = c2.selectbox("Chunking", sigs, key="doc_browse_chunking")
    chunks = view.chunks(p, corpus, sig, doc_id)
    if not chunks:
        st.info("This document has no chunks under this chunking; pick another one.")
        return
    st.caption(f"{len(chunks)} chunk(s); offsets are characters in the document's text")
    common.dataframe(pd.DataFrame(chunks, columns=["ordinal", "page", "char_start", "char_end", "text", "id"]),
                 hide_index=True, width="stretch", height=min(38 + 35 * len(chunks), 320),
                 column_config={"text": st.column_config.TextColumn("text", width="large")})
    chunk = chunks[st.selectbox("Read chunk", range(len(chunks)), key="doc_chunk",
                                format_func=lambda i: f"#{chunks[i]['ordinal']} · page {chunks[i]['page']} · "
                                                      f"characters {chunks[i]['char_start']}-{chunks[i]['char_end']}")]
    common.text_box(chunk["text"])


common.run_page(main)
