"""Split a :class:`~rageval.ingest.loaders.Document` into chunks that map back to it exactly.

Every chunk satisfies ``chunk.text == doc.text[chunk.char_start:chunk.char_end]``, has no
leading or trailing whitespace, is at most ``config.size`` characters long, and starts on
``chunk.page``. Together the chunks cover every non-whitespace character of the document, and
their starts strictly increase. A chunk's id is
``sha256(f"{doc_id}|{config.signature()}|{ordinal}").hexdigest()[:16]``, so it is stable across
runs and changes whenever the chunking settings change.

Two methods:

``chars``
    Windows of ``size`` characters starting every ``size - overlap`` characters, trimmed of
    surrounding whitespace (a window that trims to nothing or into a span already inside the
    previous chunk is dropped; one that trims to the previous chunk's start replaces it).

``recursive``
    The text is cut at paragraph breaks; a part longer than ``size`` is cut at line breaks,
    then at sentence ends (``.``, ``!`` or ``?`` followed by a space), then at spaces, and as a
    last resort into ``chars`` windows. At each level the parts that fit are packed greedily,
    in order, into chunks of at most ``size`` characters; when a chunk is full, the next one
    starts by carrying back whole trailing parts of it totalling at most ``overlap`` characters
    (fewer if the next part would not fit). A part too long to fit closes the chunk being packed
    before it is split at the next level, so a chunk never spans a paragraph break and then
    stops in the middle of the next paragraph.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Iterable

from rageval.config import METHODS, ChunkingConfig  # noqa: F401 (METHODS: the chunking methods, named in config)
from rageval.ingest.loaders import Document

# Separators for the recursive method, coarsest first; a cut is made after each match.
_SEPARATORS = (
    re.compile(r"\n[ \t]*\n\s*"),            # paragraph break: a blank line
    re.compile(r"\n\s*"),                    # line break
    re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*[ \t]+"),  # sentence end followed by a space
    re.compile(r"\s+"),                      # any whitespace
)

Span = tuple[int, int]


@dataclass(frozen=True)
class Chunk:
    """A span of a document: ``text == doc.text[char_start:char_end]``; ``page`` is where it starts."""

    id: str
    doc_id: str
    ordinal: int
    text: str
    page: int
    char_start: int
    char_end: int


def chunk_id(doc_id: str, config: ChunkingConfig, ordinal: int) -> str:
    """First 16 hex characters of ``sha256(f"{doc_id}|{config.signature()}|{ordinal}")``."""
    key = f"{doc_id}|{config.signature()}|{ordinal}".encode("utf-8")
    return hashlib.sha256(key).hexdigest()[:16]


def chunk_document(doc: Document, config: ChunkingConfig) -> list[Chunk]:
    """Chunk one document; see the module docstring for the rules and guarantees."""
    text = doc.text
    if config.method == "chars":
        spans = _windows(text, 0, len(text), config.size, config.overlap)
    else:
        spans = _recursive(text, 0, len(text), 0, config.size, config.overlap)
    return [
        Chunk(
            id=chunk_id(doc.id, config, ordinal),
            doc_id=doc.id,
            ordinal=ordinal,
            text=text[start:end],
            page=doc.page_at(start),
            char_start=start,
            char_end=end,
        )
        for ordinal, (start, end) in enumerate(spans)
    ]


def chunk_documents(docs: Iterable[Document], config: ChunkingConfig) -> list[Chunk]:
    """All chunks of several documents, document by document."""
    return [chunk for doc in docs for chunk in chunk_document(doc, config)]


def _content(text: str, start: int, end: int) -> Span:
    """``(start, end)`` moved inwards past whitespace; an empty span when there is no content."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _windows(text: str, start: int, end: int, size: int, overlap: int) -> list[Span]:
    """Windows of ``size`` characters every ``size - overlap`` characters over text[start:end],
    each trimmed of whitespace; empty windows and windows inside the previous one are dropped,
    and a window that starts where the previous one does replaces it."""
    spans: list[Span] = []
    start, end = _content(text, start, end)
    position = start
    while position < end:
        window_end = min(position + size, end)
        s, e = _content(text, position, window_end)
        if s < e:
            if spans and spans[-1][0] == s:
                spans[-1] = (s, max(e, spans[-1][1]))  # the same start, grown: keep the longer
            elif not spans or e > spans[-1][1]:
                spans.append((s, e))
        if window_end >= end:
            break
        position += size - overlap
    return spans


def _split(text: str, start: int, end: int, separator: re.Pattern) -> list[Span]:
    """Cut text[start:end] after every match of ``separator``; the parts cover the span."""
    parts, position = [], start
    for match in separator.finditer(text, start, end):
        cut = match.end()
        if position < cut < end:
            parts.append((position, cut))
            position = cut
    parts.append((position, end))
    return parts


def _recursive(text: str, start: int, end: int, level: int, size: int, overlap: int) -> list[Span]:
    """Chunk spans of text[start:end] using the separators from ``level`` down."""
    if level == len(_SEPARATORS):
        return _windows(text, start, end, size, overlap)
    spans: list[Span] = []
    fitting: list[Span] = []  # content spans of consecutive parts that fit in one chunk
    for part_start, part_end in _split(text, start, end, _SEPARATORS[level]):
        s, e = _content(text, part_start, part_end)
        if s == e:
            continue
        if e - s <= size:
            fitting.append((s, e))
        else:
            spans += _pack(fitting, size, overlap)
            fitting = []
            spans += _recursive(text, s, e, level + 1, size, overlap)
    spans += _pack(fitting, size, overlap)
    return spans


def _pack(parts: list[Span], size: int, overlap: int) -> list[Span]:
    """Greedy packing of ordered, non-empty content spans (each at most ``size`` long).

    A chunk runs from the start of its first part to the end of its last; it takes parts while
    that length stays within ``size``. The next chunk starts at the earliest trailing part of
    the previous chunk such that the carried text (from that part to the previous chunk's end)
    is at most ``overlap`` characters and still leaves room for the next new part.
    """
    spans: list[Span] = []
    first = 0
    while first < len(parts):
        last = first + 1
        while last < len(parts) and parts[last][1] - parts[first][0] <= size:
            last += 1
        spans.append((parts[first][0], parts[last - 1][1]))
        if last == len(parts):
            break
        carry = last
        while carry - 1 > first:
            candidate = parts[carry - 1][0]
            if parts[last - 1][1] - candidate > overlap or parts[last][1] - candidate > size:
                break
            carry -= 1
        first = carry
    return spans
