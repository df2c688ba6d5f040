"""Words of a text: accent folding, tokens, a light stemmer, stop words and negation cues of
English and Italian, and content stems.

Shared by the claim engine, the triad, AlignCheck and the cue lists; these word lists are part
of the claim verifier's version (:func:`word_lists_text`).
"""
from __future__ import annotations

import functools
import re
import unicodedata

from rageval.text.numbers import is_number_word

STOPWORDS = frozenset(
    """a an the and or but if of at by for with about against between into through during before
    after above below to from up down in out on off over under again further then once here there
    when where why how all any both each few more most other some such only own same so than too
    very s t can will just don should now is are was were be been being have has had having do
    does did doing i me my we our you your he him his she her it its they them their what which
    who whom this that these those am would could also may might must shall as per via within
    while although though because since until unless whether yet however therefore thus etc
    one's itself themselves himself herself ourselves yourself get got gets""".split()
)
NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor without cannot n't nowhere".split()
)
#: Italian elided forms (accent-folded, without the apostrophe): ``dell'Area`` is the two words
#: ``dell`` and ``area`` for every helper, as ``della area`` would be; they are stop words
ELISIONS = frozenset(
    """l un dell nell all dall sull coll pell quell quest c d s m t v n gl anch tutt sant bell
    nessun senz dov com cos ch""".split()
)
IT_STOPWORDS = frozenset(
    """il lo la i gli le un uno una di a da in con su per tra fra e o ma se che chi cui del
    dello della dei degli delle al allo alla ai agli alle dal dallo dalla dai dagli dalle nel
    nello nella nei negli nelle sul sullo sulla sui sugli sulle col e' sono era erano essere
    stato stata stati state ha hanno aveva avevano avere questo questa questi queste quello
    quella quelli quelle come anche piu molto suo sua suoi sue loro ogni dopo prima quando
    dove ci si ne gia solo viene vengono puo possono deve devono""".split()
) | ELISIONS  # accent-folded, as :func:`words` gives them
IT_NEGATIONS = frozenset("non mai nessun nessuno nessuna niente nulla senza ne neanche nemmeno".split())
ALL_NEGATIONS = NEGATIONS | IT_NEGATIONS
_IRREGULAR = {
    "won": "win", "lost": "lose", "rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall",
    "grew": "grow", "grown": "grow", "began": "begin", "begun": "begin", "wrote": "write",
    "written": "write", "made": "make", "took": "take", "taken": "take", "gave": "give",
    "given": "give", "held": "hold", "led": "lead", "sold": "sell", "bought": "buy",
    "built": "build", "became": "become", "ran": "run", "chose": "choose", "chosen": "choose",
    "paid": "pay", "said": "say", "met": "meet", "left": "leave", "sent": "send", "spent": "spend",
    "kept": "keep", "brought": "bring", "taught": "teach", "thought": "think", "known": "know",
    "knew": "know", "shown": "show", "beat": "beat", "beaten": "beat", "struck": "strike",
    "children": "child", "men": "man", "women": "woman", "people": "person", "mice": "mouse",
}
_WORD = re.compile(r"[A-Za-z\u00C0-\u024F]+(?:['\u2019][A-Za-z]+)?|\d+(?:[.,]\d+)*")


@functools.lru_cache(maxsize=4096)  # a run folds each context once per claim read against it
def fold(text: str) -> str:
    """Lower case without accents (``Mbappé`` -> ``mbappe``)."""
    norm = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in norm if not unicodedata.combining(ch)).lower()


def words(text: str) -> list[str]:
    """Lower-cased, accent-folded word tokens; ``don't`` -> ``do``, ``n't``; an Italian elision is
    two words (``dell'Area`` -> ``dell``, ``area``: :data:`ELISIONS`).

    >>> words("Il direttore dell'Area non c'è; don't")
    ['il', 'direttore', 'dell', 'area', 'non', 'c', 'e', 'do', "n't"]
    """
    out: list[str] = []
    for tok in _WORD.findall(fold(text).replace("\u2019", "'")):
        head, _, tail = tok.partition("'")
        if tok.endswith("n't"):
            out.extend([tok[:-3] or "not", "n't"])
        elif tail and head in ELISIONS:
            out.extend([head, tail])
        elif tok.endswith("'s"):
            out.append(tok[:-2])
        else:
            out.append(tok)
    return out


@functools.lru_cache(maxsize=32_768)
def stem(word: str) -> str:
    """A light suffix stripper so ``released``/``releases``/``release`` meet (no dictionary).

    >>> [stem(w) for w in ("released", "studies", "increasing", "won", "boxes", "permitted")]
    ['releas', 'study', 'increas', 'win', 'box', 'permit']
    """
    w = _IRREGULAR.get(word, word)
    if len(w) <= 3 or w[0].isdigit():
        return w
    for suffix, repl, min_len in (
        ("ies", "y", 5), ("ied", "y", 5), ("sses", "ss", 5), ("xes", "x", 4), ("ches", "ch", 5),
        ("shes", "sh", 5), ("ing", "", 6), ("edly", "", 7), ("ed", "", 5), ("ly", "", 6),
        ("es", "e", 5), ("s", "", 4),
    ):
        if w.endswith(suffix) and len(w) >= min_len and not w.endswith(("ss", "us", "is")):
            w = w[: len(w) - len(suffix)] + repl
            if suffix in ("ed", "ing") and len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]  # permitted -> permit, stopped -> stop
            break
    return w.rstrip("e") if len(w) > 4 else w


def content_stems(text: str) -> list[str]:
    """Stems of the words that carry content: not stop words (English or Italian), negations or
    numbers (digits or number words: numbers are compared separately, :mod:`rageval.text.numbers`)."""
    return [
        stem(w) for w in words(text)
        if w not in STOPWORDS and w not in IT_STOPWORDS and w not in ALL_NEGATIONS and not w[0].isdigit()
        and len(w) > 1 and not is_number_word(w)
    ]


def keys(text: str) -> frozenset[str]:
    """Matching keys of ``text``: its content stems cut to 6 letters, so that English and Italian
    inflections meet (``aumentato`` / ``aumentata`` -> ``aument``)."""
    return frozenset(s[:6] for s in content_stems(text))


def negation_count(text: str) -> int:
    """How many negation cues of either language (``not``, ``never``, ``n't``, ``without``, ``non``,
    ``mai``, ``senza`` ...) occur."""
    return sum(1 for w in words(text) if w in ALL_NEGATIONS)


def word_lists_text() -> str:
    """The stop-word and negation lists as one string (hashed into the claim verifier's version)."""
    return "\n".join(" ".join(sorted(s)) for s in (STOPWORDS, IT_STOPWORDS, NEGATIONS, IT_NEGATIONS, ELISIONS))


def pattern_text() -> str:
    """The word pattern and the elision rule's version (hashed into :func:`rageval.text.version`)."""
    return _WORD.pattern + "\nelisions:split"
