"""Text hygiene at the boundary: surrogates, NUL, display names (controls, bidi, ../, length)."""
from __future__ import annotations

import json
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from rageval.ingest.loaders import Document, IngestProblem, load_file
from rageval.text.hygiene import MAX_NAME, clean_text, clean_value, display_name, escaped

NAMES = [
    ("report.pdf", "report.pdf", None),
    ("../../etc/passwd.txt", "passwd.txt", "../../etc/passwd.txt"),
    ("C:\\Users\\me\\notes.md", "notes.md", "C:\\\\Users\\\\me\\\\notes.md"),
    ("invoice\u202egpj.txt", "invoicegpj.txt", "invoice\\u202egpj.txt"),
    ("a\x00b\nc\td.txt", "ab c d.txt", "a\\x00b\\nc\\td.txt"),
    ("  spaced   out .txt ", "spaced out .txt", "  spaced   out .txt "),
    ("\u2066\u2067", "unnamed", "\\u2066\\u2067"),
    ("bad\ud800.txt", "bad\ufffd.txt", "bad\\ud800.txt"),
]


@pytest.mark.parametrize("raw,name,original", NAMES)
def test_display_names(raw, name, original):
    assert display_name(raw) == (display_name(raw).__class__(name, original))


def test_long_names_are_cut_keeping_the_extension():
    shown = display_name("x" * 300 + ".pdf")
    assert len(shown.name) == MAX_NAME and shown.name.endswith("\u2026.pdf")
    assert shown.original == "x" * 300 + ".pdf"


def test_clean_text_counts_what_it_changes():
    c = clean_text("a\ud800b\x00\udfffc")
    assert (c.text, c.surrogates, c.nuls) == ("a\ufffdb\ufffdc", 2, 1)
    assert c.note() == "2 lone surrogate(s) replaced by U+FFFD, 1 NUL character(s) removed"
    assert not clean_text("plain \U0001F600 text").changed  # a real astral character is kept


def test_clean_value_walks_lists_and_dicts():
    value, c = clean_value({"k\ud800": ["x\x00", ("y\udc00",)], "n": 3})
    assert value == {"k\ufffd": ["x", ("y\ufffd",)], "n": 3} and (c.surrogates, c.nuls) == (2, 1)


def test_loader_keeps_a_clean_display_name_and_the_escaped_original():
    doc = load_file("../up/\u202eevil\nname.txt", b"Some text.")
    assert isinstance(doc, Document)
    assert doc.name == "evil name.txt" and doc.original_name == "../up/\\u202eevil\\nname.txt"
    err = load_file("x\u202e.exe", b"MZ")
    assert isinstance(err, IngestProblem) and err.name == "x.exe"


_FORBIDDEN = {"Cc", "Cf", "Zl", "Zp", "Cs", "Cn"}


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(codec=None), max_size=400))
@example(".\x1b")  # found by hypothesis: a dropped control character left the name "."
def test_display_name_property(raw):
    shown = display_name(raw)
    assert 1 <= len(shown.name) <= MAX_NAME
    assert "/" not in shown.name and "\\" not in shown.name and shown.name not in (".", "..")
    assert not any(unicodedata.category(ch) in _FORBIDDEN for ch in shown.name)
    assert shown.name == shown.name.strip()
    shown.name.encode("utf-8")  # always encodable
    if shown.original is not None:
        assert shown.original.isascii() and escaped(raw) == shown.original


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(codec=None), max_size=300))
def test_clean_text_property(raw):
    c = clean_text(raw)
    c.text.encode("utf-8")
    json.dumps(c.text, ensure_ascii=False).encode("utf-8")
    assert "\x00" not in c.text and len(c.text) == len(raw) - c.nuls
    assert clean_text(c.text).text == c.text  # idempotent
