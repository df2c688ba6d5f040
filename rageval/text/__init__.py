"""Text helpers shared by every layer: one sentence segmenter with spans, words, numbers, names.

:func:`version` pins the rules that decide sentence boundaries and word tokens, and every table
of numbers, units, dates and hedging phrases; every metric whose values depend on them puts it
into its signature.
"""
from __future__ import annotations

import hashlib


def version() -> str:
    """``text-<8 hex>``: a hash of the segmenter's rules, the word lists and word pattern, the word
    tokenizer's rule (:func:`rageval.text.tokenize.word_tokens`), and the tables of :mod:`~rageval.text.numbers` and
    :mod:`~rageval.text.hedges`."""
    from rageval.text import hedges, numbers, sentences, tokenize, words
    from rageval.util import tables_hash

    raw = "\0".join([sentences.rules_text(), words.word_lists_text(), words.pattern_text(),
                      tables_hash(numbers, hedges), tokenize.pattern_text()])
    return "text-" + hashlib.sha256(raw.encode("utf-8")).hexdigest()[:8]
