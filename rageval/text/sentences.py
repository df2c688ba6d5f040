"""Sentences and table rows of a text, each with its character span in the text.

Shared by the claim extractor and verifier, the triad's context relevance, the offline
generator and AlignCheck: one splitter, so that a span found by one part can be located by
another (``source[span.start:span.end] == span.text``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_ABBREV = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "no", "fig",
    "inc", "ltd", "co", "corp", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
    "oct", "nov", "dec", "u.s", "u.k", "approx", "dept", "est", "vol", "art", "sec", "gen", "gov",
}
_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*\s+|\n+|\s+[•·]\s+")


@dataclass(frozen=True)
class Span:
    """A piece of a text with its character offsets: ``text == source[start:end]``."""

    text: str
    start: int
    end: int


def split_sentences(text: str) -> list[Span]:
    """Sentences of ``text`` with their character spans (split on . ! ? and line breaks).

    A full stop after a known abbreviation, a single capital (``J. Smith``) or a digit followed
    by a digit (``3.5``) does not end a sentence.

    >>> [s.text for s in split_sentences("Dr. Smith arrived. He left at 3.5 pm!\\nBye")]
    ['Dr. Smith arrived.', 'He left at 3.5 pm!', 'Bye']
    """
    spans: list[Span] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        piece = text[start:m.start()]
        if "\n" not in m.group() and m.group().startswith("."):
            last = re.search(r"(\S+)$", piece)
            word = last.group(1).lower().lstrip("(\"'") if last else ""
            nxt = text[m.end():m.end() + 1]
            list_marker = re.fullmatch(r"\s*\(?(?:\d+|[a-z])", piece) is not None
            if word in _ABBREV or re.fullmatch(r"[a-z]", word) or nxt.islower() or list_marker:
                continue
        _add(spans, text, start, m.end())
        start = m.end()
    _add(spans, text, start, len(text))
    return spans


def _add(spans: list[Span], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    body = piece.strip()
    if body and re.search(r"\w", body):
        spans.append(Span(body, start + lead, start + lead + len(body)))


_TABLE_LINE = re.compile(r"^[^\n]*\|[^\n]*$", re.M)


def table_rows(text: str) -> list[Span]:
    """Rows of each ``a | b | c`` table in ``text``, spelled out with their column headers.

    A table is a run of two or more consecutive lines holding a ``|``; its first line
    is the header. Each later row becomes ``"Header1: cell1; Header2: cell2."`` (rule rows such as
    ``---|---`` are skipped) with ``start``/``end`` of the row's own line, so that evidence found
    in a spelled-out row can still be located in the original text.

    >>> [r.text for r in table_rows("City | Cap\\nOslo | 190 EUR")]
    ['City: Oslo; Cap: 190 EUR.']
    """
    lines = [(m.start(), m.end(), m.group()) for m in _TABLE_LINE.finditer(text)]
    rows: list[Span] = []
    run: list[tuple[int, int, str]] = []
    for line in lines + [(-1, -1, "")]:
        if run and line[0] != run[-1][1] + 1:  # the run of adjacent table lines ended
            if len(run) >= 2:
                header = _cells(run[0][2])
                for start, end, raw in run[1:]:
                    cells = _cells(raw)
                    if all(set(c) <= set("-: ") for c in cells):
                        continue
                    body = ("; ".join(f"{h}: {c}" for h, c in zip(header, cells)) + "."
                            if len(cells) == len(header) else " | ".join(cells))
                    rows.append(Span(body, start, end))
            run = []
        if line[0] >= 0:
            run.append(line)
    return rows


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]
