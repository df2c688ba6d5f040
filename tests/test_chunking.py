"""Chunking: invariants (hypothesis), boundary preference, overlap, ids, config validation."""
from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rageval.errors import ConfigError
from rageval.ingest.chunking import Chunk, chunk_document, chunk_id
from rageval.config import ChunkingConfig
from rageval.ingest.loaders import Document, Page

DOC_ID = "d" * 64


def make_doc(*page_texts: str, doc_id: str = DOC_ID) -> Document:
    pages = tuple(Page(i + 1, text) for i, text in enumerate(page_texts))
    return Document(id=doc_id, name="doc.txt", kind="txt", pages=pages, size_bytes=1)


def check_invariants(doc: Document, config: ChunkingConfig, chunks: list[Chunk]) -> None:
    text = doc.text
    covered = bytearray(len(text))
    for ordinal, chunk in enumerate(chunks):
        assert chunk.ordinal == ordinal
        assert chunk.doc_id == doc.id
        assert chunk.id == chunk_id(doc.id, config, ordinal)
        assert 0 < len(chunk.text) <= config.size
        assert chunk.text == text[chunk.char_start:chunk.char_end]
        assert chunk.text == chunk.text.strip()
        assert chunk.page == doc.page_at(chunk.char_start)
        covered[chunk.char_start:chunk.char_end] = b"\x01" * len(chunk.text)
    for previous, current in zip(chunks, chunks[1:]):
        assert previous.char_start < current.char_start
        assert previous.char_end < current.char_end
        assert previous.char_end - current.char_start <= config.overlap
    missing = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i]]
    assert missing == []
    assert len({chunk.id for chunk in chunks}) == len(chunks)


page_text = st.text(alphabet="ab .!?\n\t\u00e9", max_size=300)


@st.composite
def configs(draw):
    size = draw(st.integers(min_value=1, max_value=90))
    overlap = draw(st.integers(min_value=0, max_value=size - 1))
    method = draw(st.sampled_from(["recursive", "chars"]))
    return ChunkingConfig(method=method, size=size, overlap=overlap)


@settings(max_examples=300, deadline=None)
@given(pages=st.lists(page_text, min_size=1, max_size=3), config=configs())
def test_invariants_hold_for_any_text(pages, config):
    doc = make_doc(*pages)
    chunks = chunk_document(doc, config)
    check_invariants(doc, config, chunks)
    assert chunk_document(doc, config) == chunks  # deterministic


@settings(max_examples=60, deadline=None)
@given(words=st.lists(st.sampled_from(["alpha", "beta.", "gamma!", "\n", "\n\n", "delta,"]),
                      max_size=400),
       config=configs())
def test_invariants_hold_for_wordy_text(words, config):
    doc = make_doc(" ".join(words))
    check_invariants(doc, config, chunk_document(doc, config))


def sentences(prefix: str, count: int, width: int = 48) -> list[str]:
    """Sentences of exactly ``width`` characters, numbered so each is distinct."""
    out = []
    for i in range(count):
        body = f"{prefix} sentence {i:02d} "
        out.append(body + "x" * (width - len(body) - 1) + ".")
    return out


def test_paragraph_break_is_preferred():
    first = " ".join(sentences("First", 12))   # 587 characters
    second = " ".join(sentences("Second", 12))
    doc = make_doc(first + "\n\n" + second)
    chunks = chunk_document(doc, ChunkingConfig(size=1000, overlap=100))
    assert [c.text for c in chunks] == [first, second]
    chars = chunk_document(doc, ChunkingConfig(method="chars", size=1000, overlap=100))
    assert chars[0].text == doc.text[:1000].strip()  # the fixed window ignores the break


def test_sentence_end_is_preferred_inside_a_long_paragraph():
    paragraph = " ".join(sentences("Only", 20))
    chunks = chunk_document(make_doc(paragraph), ChunkingConfig(size=300, overlap=0))
    assert len(chunks) > 3
    for chunk in chunks:
        assert chunk.text.endswith(".")
        assert chunk.text.startswith("Only sentence")
    assert " ".join(c.text for c in chunks) == paragraph  # no overlap: the pieces tile the text


def test_line_break_is_preferred_over_sentence_end():
    lines = [f"line {i} has a sentence. And a second one here" for i in range(10)]
    chunks = chunk_document(make_doc("\n".join(lines)), ChunkingConfig(size=100, overlap=0))
    for chunk in chunks:
        assert chunk.text.startswith("line ")
        assert chunk.text.endswith("second one here")


def test_overlap_carries_whole_trailing_sentences():
    parts = sentences("Run", 12)
    doc = make_doc(" ".join(parts))
    chunks = chunk_document(doc, ChunkingConfig(size=200, overlap=60))
    assert len(chunks) >= 4
    for previous, current in zip(chunks, chunks[1:]):
        last_sentence = previous.text.rsplit(". ", 1)[-1]
        assert last_sentence in parts
        assert current.text.startswith(last_sentence)  # exactly one 48-char sentence carried
        assert previous.char_end - current.char_start == 48
    no_overlap = chunk_document(doc, ChunkingConfig(size=200, overlap=0))
    for previous, current in zip(no_overlap, no_overlap[1:]):
        assert previous.char_end < current.char_start


def test_overlap_smaller_than_a_piece_carries_nothing():
    doc = make_doc(" ".join(sentences("Big", 10)))
    chunks = chunk_document(doc, ChunkingConfig(size=200, overlap=40))
    for previous, current in zip(chunks, chunks[1:]):
        assert previous.char_end < current.char_start


def test_chars_windows_step_by_size_minus_overlap():
    doc = make_doc("abcdefghij" * 5)
    chunks = chunk_document(doc, ChunkingConfig(method="chars", size=20, overlap=5))
    assert [(c.char_start, c.char_end) for c in chunks] == [(0, 20), (15, 35), (30, 50)]


def test_unbreakable_text_falls_back_to_character_windows():
    doc = make_doc("z" * 250)
    chunks = chunk_document(doc, ChunkingConfig(size=100, overlap=10))
    assert [(c.char_start, c.char_end) for c in chunks] == [(0, 100), (90, 190), (180, 250)]


def test_whitespace_is_trimmed_and_blank_documents_give_no_chunks():
    doc = make_doc("\n\n   hello world   \n\n")
    chunks = chunk_document(doc, ChunkingConfig(size=50, overlap=0))
    assert [(c.text, c.char_start) for c in chunks] == [("hello world", 5)]
    assert chunk_document(make_doc("  \n\t "), ChunkingConfig()) == []
    assert chunk_document(make_doc(""), ChunkingConfig(method="chars")) == []


def test_chunks_report_the_page_they_start_on():
    doc = make_doc("one " * 30, "two " * 30, "three " * 30)
    chunks = chunk_document(doc, ChunkingConfig(size=60, overlap=0))
    for chunk in chunks:
        expected = chunk.text.split()[0]
        assert chunk.page == {"one": 1, "two": 2, "three": 3}[expected]
    assert {c.page for c in chunks} == {1, 2, 3}


def test_ids_are_stable_and_depend_on_document_settings_and_ordinal():
    expected = hashlib.sha256(f"{DOC_ID}|recursive-1024-128|0".encode()).hexdigest()[:16]
    doc = make_doc("Some text. " * 20)
    assert chunk_document(doc, ChunkingConfig())[0].id == expected
    other_settings = chunk_document(doc, ChunkingConfig(size=1000))[0].id
    other_doc = chunk_document(make_doc("Some text. " * 20, doc_id="e" * 64), ChunkingConfig())
    assert len({expected, other_settings, other_doc[0].id}) == 3


def test_signature():
    assert ChunkingConfig().signature() == "recursive-1024-128"
    assert ChunkingConfig(method="chars", size=500, overlap=0).signature() == "chars-500-0"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"size": 512, "overlap": 600}, "chunk_overlap=600 must be smaller than chunk_size=512"),
        ({"size": 512, "overlap": 512}, "chunk_overlap=512 must be smaller than chunk_size=512"),
        ({"size": 0, "overlap": 0}, "chunk_size=0 must be at least 1"),
        ({"overlap": -1}, "chunk_overlap=-1 must not be negative"),
        ({"size": 100.5}, "chunk_size=100.5 must be a whole number of characters"),
        ({"overlap": True}, "chunk_overlap=True must be a whole number of characters"),
        ({"method": "tokens"}, "chunking method='tokens' is not one of recursive, chars"),
    ],
)
def test_config_validation_messages(kwargs, message):
    with pytest.raises(ConfigError) as info:
        ChunkingConfig(**kwargs)
    assert str(info.value) == message
