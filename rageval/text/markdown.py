"""Markdown's inline marks: where they are in a text, and the text without them.

The marks are the delimiters of code (between backtick runs with no apostrophe inside: ```quoted'``
is a quotation, as news corpora write it), of emphasis (between a pair of ``*``/``_`` runs, not
inside a word) and a link's or image's brackets and target (``[text](url)``, ``[text][ref]``); the
text they mark stays. The offline claim check drops them on both sides before it compares a claim
with a context, and the claim extractor drops them from a sentence before it splits the sentence
into clauses (a bold span cut in two would leave each clause an unmatched ``**``).
"""
from __future__ import annotations

import functools
import re

_MD_CODE = re.compile(r"(`+)(?=[^`\n]*?[^`\s])([^`'\n]+?)\1(?!`)")
_MD_EMPHASIS = re.compile(r"(?<![\w*\\])(\*{1,3}|_{1,3})(?=[^\s*_])([^\n]*?[^\s*_\\])\1(?![\w*])")
_MD_LINK = re.compile(r"(!?\[)([^\[\]\n]+)(\]\([^()\s]*(?:\s+\"[^\"\n]*\")?\)|\]\[[^\[\]\n]*\])")


@functools.lru_cache(maxsize=512)
def markup(text: str) -> frozenset[int]:
    """Offsets of Markdown's inline marks in ``text``: the delimiters of code and emphasis, a
    link's brackets and target; the text they mark stays.

    >>> t = "**Pay** [here](https://x.io) in `EUR`"
    >>> "".join(ch for i, ch in enumerate(t) if i not in markup(t))
    'Pay here in EUR'
    """
    drop: set[int] = set()
    code: set[int] = set()
    for m in _MD_CODE.finditer(text):
        drop.update(range(m.start(), m.start(2)), range(m.end(2), m.end()))
        code.update(range(m.start(2), m.end(2)))
    for m in _MD_LINK.finditer(text):
        if m.start() not in code:
            drop.update(range(*m.span(1)), range(*m.span(3)))
    for m in _MD_EMPHASIS.finditer(text):
        if m.start() not in code and m.end() - 1 not in code:
            drop.update(range(m.start(), m.start(2)), range(m.end(2), m.end()))
    return frozenset(drop)


def unmarked(text: str, start: int = 0, end: int | None = None) -> str:
    """``text[start:end]`` without the Markdown marks of ``text`` (:func:`markup`).

    >>> unmarked("**The reset takes 3 min; the light turns green.**")
    'The reset takes 3 min; the light turns green.'
    """
    marks = markup(text)
    stop = len(text) if end is None else end
    return "".join(ch for i, ch in enumerate(text[start:stop], start) if i not in marks)


def rules_text() -> str:
    """The patterns as one string (hashed into the offline checker's signature)."""
    return "\n".join([_MD_CODE.pattern, _MD_EMPHASIS.pattern, _MD_LINK.pattern])
