"""Text helpers shared by every layer: one sentence segmenter with spans, words, numbers, names.

:func:`version` pins the rules that decide sentence boundaries and word tokens; every metric
whose values depend on them puts it into its signature.
"""
from __future__ import annotations

import hashlib


def version() -> str:
    """``text-<8 hex>``: a hash of the segmenter's rules and of the word lists and word pattern."""
    from rageval.text import sentences, words

    raw = "\0".join([sentences.rules_text(), words.word_lists_text(), words.pattern_text()])
    return "text-" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:8]
