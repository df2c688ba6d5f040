"""Hedging and abstention cues: the phrase lists behind the ``hedging`` metric, the claim
extractor (an abstention is not a claim) and the diagnosis (a hedged answer is not "invented
confidence"). English only; matched on accent-folded lower-case text at word boundaries.
"""
from __future__ import annotations

import re

from rageval.text.words import fold

HEDGE_CUES = (
    "i think", "i believe", "i guess", "i suppose", "it seems", "it appears", "seemingly",
    "probably", "possibly", "perhaps", "maybe", "likely", "unlikely", "might", "may be",
    "could be", "not sure", "not certain", "not entirely sure", "uncertain", "as far as i know",
    "to my knowledge", "if i recall", "i'm not sure", "it is possible", "presumably",
    "roughly", "approximately", "around", "about", "it is unclear", "unclear",
)
#: patterns (regular expressions over folded text) of a refusal or "the sources do not say"
ABSTAIN_CUES = (
    r"i (?:do not|don't) know", r"i (?:cannot|can't|am unable to|am not able to) (?:answer|say|tell|find|determine)",
    r"(?:i'm|i am) (?:unable|not able) to", r"unable to (?:answer|find|determine)",
    r"(?:cannot|can't|could not|couldn't) (?:find|determine|be determined|answer)",
    r"no (?:relevant |specific |such )?information", r"not enough information",
    r"insufficient (?:information|context|evidence)",
    r"(?:does|do|did)(?: not|n't) (?:say|mention|specify|provide|contain|state|include|indicate|cover)",
    r"(?:is|are|was|were) not (?:mentioned|specified|provided|stated|given|available|included)",
    r"not (?:in|covered by) the (?:provided |given )?(?:context|documents?|passages?|sources?)",
    r"no answer", r"there is no mention",
)
_APPROXIMATIONS = ("roughly", "approximately", "around", "about", "likely", "unlikely")
_STRONG_HEDGES = tuple(c for c in HEDGE_CUES if c not in _APPROXIMATIONS)


def _cue_hits(text: str, cues: tuple[str, ...], *, regex: bool = False) -> list[str]:
    low = " " + re.sub(r"\s+", " ", fold(text).replace("\u2019", "'")) + " "
    hits = []
    for cue in cues:
        m = re.search(rf"(?<![\w']){cue if regex else re.escape(cue)}(?![\w'])", low)
        if m:
            hits.append(m.group().strip())
    return hits


def hedge_cues(text: str) -> list[str]:
    """Hedging phrases in ``text`` (``probably``, ``I think``, ``might``), excluding mere
    approximations such as ``about 70 degrees``."""
    return _cue_hits(text, _STRONG_HEDGES)


def abstention_cues(text: str) -> list[str]:
    """Phrases that decline to answer (``I don't know``, ``the context does not say``)."""
    return _cue_hits(text, ABSTAIN_CUES, regex=True)
