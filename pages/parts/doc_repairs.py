"""The Documents page's text-repair block (a helper module, not a page): per document, how many
characters of mojibake ingest repaired, and a warning for a document whose text still looks garbled."""
from __future__ import annotations

import streamlit as st

from pages.parts import common
from rageval.views import documents as view


def repairs_block(p, corpus: str) -> None:
    rows = view.text_repairs(p, corpus)
    for row in rows:
        text = f"{common.md(row['name'])}: {common.md(row['note'])}"
        if row["garbled"] == "yes":
            st.warning(text, icon=":material/warning:")
        else:
            st.caption(text)
