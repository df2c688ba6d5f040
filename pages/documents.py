"""Documents: upload files into a corpus, see per-file results and errors, browse chunks."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from pages import common
from rageval.views import queries as q
from rageval.ingest.corpus import ingest
from rageval.demo import DEMO_CORPUS, DEMO_PROJECT
from rageval.config import METHODS, ChunkingConfig
from rageval.views import documents as doc_view


def default_corpus(p, corpora: list[str]) -> str:
    """The user's own corpus (the project's first), never the demo's: files never join the demo corpus."""
    mine = [c for c in corpora if not (p.slug == DEMO_PROJECT and c == DEMO_CORPUS)]
    return mine[0] if mine else "my-docs"


def upload(p) -> None:
    corpora = doc_view.corpora(p)
    with st.container(border=True):
        st.markdown("**Add documents** (PDF, TXT, Markdown)")
        c1, c2, c3, c4 = st.columns([2, 1, 1, 1])
        corpus = c1.text_input("Corpus", value=default_corpus(p, corpora), key="doc_corpus",
                               help="A name for this set of documents; runs retrieve from one corpus.").strip()
        method = c2.selectbox("Chunking", METHODS, key="doc_method")
        size = c3.number_input("Chunk size", 50, 20000, 1024, step=64, key="doc_size")
        overlap = c4.number_input("Overlap", 0, 10000, 128, step=16, key="doc_overlap")
        files = st.file_uploader("Files", type=["pdf", "txt", "md"], accept_multiple_files=True,
                                 key="doc_upload")
        if st.button("Ingest", type="primary", key="doc_ingest", disabled=not files or not corpus):
            chunking = ChunkingConfig(method=method, size=int(size), overlap=int(overlap))
            bar = st.progress(0.0, text="Reading files…")
            report = ingest(p, corpus, files=[(f.name, f.getvalue()) for f in files], chunking=chunking,
                            progress=lambda _ph, d, t: bar.progress(min(d / max(t, 1), 1.0),
                                                                    text=f"Embedding chunks {d}/{t}"))
            bar.empty()
            st.session_state["doc_report"] = report
            st.session_state["doc_chunking"] = chunking.signature()
            common.bump()
    report = st.session_state.get("doc_report")
    if report is not None:
        for d in report.documents:
            state = "added" if d["new"] else "already in the corpus"
            st.success(f"{common.md(d['name'])}: {d['pages']} page(s), {d['chunks']} chunk(s), {state}",
                       icon=":material/check_circle:")
        for e in report.errors:
            st.error(f"{common.md(e.name)}: {common.md(e.reason)}", icon=":material/error:")


def main() -> None:
    p = common.project()
    st.title("Documents")
    if p.slug == DEMO_PROJECT:
        st.info("This is the demo project. To evaluate your own files apart from it, create a project in the "
                "sidebar first (a new project starts empty).")
    upload(p)
    corpora = doc_view.corpora(p)
    common.need(corpora, "No corpus yet: upload documents above to create one.")
    corpus = st.selectbox("Corpus to inspect", corpora, key="doc_view_corpus")
    docs = doc_view.documents(p, corpus)
    common.dataframe(pd.DataFrame(docs, columns=["name", "kind", "pages", "chars", "size_bytes", "id"]),
                 hide_index=True, width="stretch")
    errors = doc_view.ingest_errors(p, corpus)
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
    sigs = q.chunkings(p, corpus, extra)
    if not sigs:
        st.info("No chunks stored for this corpus yet.")
        return
    sig = c2.selectbox("Chunking", sigs, key="doc_browse_chunking")
    chunks = doc_view.chunks(p, corpus, sig, doc_id)
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
