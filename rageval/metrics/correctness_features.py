"""Features of one (question, reference, candidate) triple for the learned answer-correctness model.

Every feature is in [0, 1] except ``length_ratio`` (in [-1, 1]). Texts are first rewritten by
:func:`rageval.text.numbers.normalize_numbers` (so "one week" and "7 days" are the same tokens),
then tokenised by the SQuAD normaliser of the language (:func:`answer_tokens`). The language is
the metric's when it is not English, else guessed from the three texts together.

Lexical: ``contains`` (the reference occurs in the candidate as whole tokens), token
``precision`` / ``recall`` / ``f1``, ``novel_recall`` (recall of the reference tokens that are not
in the question: repeating the question earns nothing), ``stem_recall`` (recall of reference
content words compared by their first 5 characters, a crude language-free stem),
``question_overlap`` (share of candidate tokens found in the question), ``length``
(log1p(candidate tokens) / log1p(256), capped at 1) and ``length_ratio``
(log((1 + |c|) / (1 + |r|)) / log(257), clipped to [-1, 1]).

Embedding: ``similarity`` = max(cos(e(candidate), e(reference)), 0), sentence vectors.

Quantities (:func:`rageval.text.numbers.quantities`, quantities that also occur in the question
left out): ``ref_has_quantity``; ``quantity_recall`` (share of the reference's quantities that the
candidate states, 0 when the reference has none); ``quantity_conflict`` (1 when a reference
quantity is missing from the candidate and the candidate states a comparable one, same kind or a
bare number, that the reference does not have: "14 days" for "7 days").

Polarity: ``negation_mismatch`` (1 when the candidate sentence that shares most tokens with the
reference and the reference differ in whether they hold a negation word: "a receipt is not
required" for "a receipt is required"); ``abstention`` (1 when the candidate declines to answer:
"I don't know", "non lo so", "the context does not say", unless the reference itself reads as one,
as "the policy does not cover water damage" does; with a reference, an abstention is wrong).
"""
from __future__ import annotations

import math
import re
from typing import Sequence

from rageval.metrics.lexical import token_prf
from rageval.text.tokenize import answer_tokens, contains_tokens
from rageval.text.hedges import abstention_cues
from rageval.text.lang import guess_language
from rageval.text.numbers import Quantity, normalize_numbers, quantities, same_quantity

FEATURES = (
    "contains", "precision", "recall", "f1", "novel_recall", "stem_recall", "question_overlap", "length",
    "length_ratio", "similarity", "ref_has_quantity", "quantity_recall", "quantity_conflict",
    "negation_mismatch", "abstention",
)
LENGTH_CAP = 256  # tokens
STEM_CHARS = 5
_NEGATION = re.compile(
    r"(?<![\w'])(?:not|no|never|none|nobody|nothing|neither|nor|without|cannot|non|mai|nessun|nessuno|nessuna|"
    r"niente|nulla|né|senza)(?![\w'])|n['\u2019]t\b",
    re.IGNORECASE,
)
#: Italian refusals (English ones come from rageval.text.hedges.ABSTAIN_CUES), over lower-case text
ITALIAN_ABSTAIN = re.compile(
    r"\bnon (?:lo )?so\b|\bnon (?:posso|sono in grado di|riesco a) (?:rispondere|dire|trovare|determinare)"
    r"|\bnon (?:è|viene|vengono|sono) (?:specificat|indicat|menzionat|riportat|fornit|chiar)\w*"
    r"|\b(?:il|nel) (?:contesto|testo|documento|documenti) non\b|\bi documenti non\b"
    r"|\bnon ci sono informazioni\b|\bnessuna informazione\b|\binformazioni insufficienti\b|\bnon dispongo\b"
)
_EXTRA_ABSTAIN = re.compile(r"\b(?:no idea|unknown|cannot be determined|not known)\b")
_SENTENCE = re.compile(r"[^.!?;\n]+")
#: bounds that hold a negation word without negating ("no more than 8 tablets"), and a leading
#: yes/no that answers the question ("No, it is closed on Mondays")
_NOT_POLARITY = re.compile(
    r"\b(?:no|not|non) (?:[^\W\d_]+ )?(?:more|less|fewer|later|earlier|longer|sooner|più|meno|oltre|prima|dopo)\b(?: "
    r"than| di)?"
    r"|\bnot (?:exceed|exceeding|over|under|before|after)\b|^\s*(?:no|yes|sì|si)\b[,.;:!]?",
    re.IGNORECASE,
)


def feature_language(question: str, reference: str, candidate: str, language: str = "en") -> str:
    """The language the features are computed in: the metric's unless it is "en", then a guess."""
    return language if language != "en" else guess_language(" ".join((question, reference, candidate)))


def is_abstention(text: str) -> bool:
    """Whether ``text`` declines to answer (English or Italian cues).

    >>> is_abstention("I don't know."), is_abstention("Non lo so"), is_abstention("Paris")
    (True, True, False)
    """
    low = text.lower().replace("\u2019", "'")
    return bool(abstention_cues(text) or ITALIAN_ABSTAIN.search(low) or _EXTRA_ABSTAIN.search(low))


def has_negation(text: str) -> bool:
    """Whether ``text`` holds a negation word (English or Italian).

    Bounds ("no more than 8") and a leading "No," that answers a yes/no question do not count.

    >>> has_negation("A receipt is not required"), has_negation("La ricevuta non serve"), has_negation("yes")
    (True, True, False)
    >>> has_negation("No more than 8 tablets a day"), has_negation("No, it is closed on Mondays")
    (False, False)
    >>> has_negation("Luggage must not weigh more than 8 kg")
    False
    """
    return bool(_NEGATION.search(_NOT_POLARITY.sub(" ", text.strip())))


def _comparable(a: Quantity, b: Quantity) -> bool:
    dated = {"date", "year"}
    if a.kind in dated or b.kind in dated:
        return a.kind in dated and b.kind in dated
    return a.kind == b.kind or "number" in (a.kind, b.kind)


def quantity_features(question: str, reference: str, candidate: str, language: str) -> dict[str, float]:
    """``ref_has_quantity``, ``quantity_recall``, ``quantity_conflict`` (module docstring)."""
    asked = quantities(question, language)
    ref = [q for q in quantities(reference, language) if not any(same_quantity(q, a) for a in asked)]
    cand = [q for q in quantities(candidate, language) if not any(same_quantity(q, a) for a in asked)]
    if not ref:
        return {"ref_has_quantity": 0.0, "quantity_recall": 0.0, "quantity_conflict": 0.0}
    matched = [any(same_quantity(r, c) for c in cand) for r in ref]
    stray = [c for c in cand if not any(same_quantity(c, r) for r in ref)]
    conflict = any(not m and any(_comparable(r, c) for c in stray) for r, m in zip(ref, matched))
    return {"ref_has_quantity": 1.0, "quantity_recall": sum(matched) / len(ref), "quantity_conflict": float(conflict)}


def negation_mismatch(reference: str, candidate: str, language: str) -> float:
    """1.0 when the candidate sentence closest to the reference differs from it in negation."""
    gold = set(answer_tokens(reference, language))
    sentences = _SENTENCE.findall(candidate) or [candidate]
    best = max(sentences, key=lambda s: len(gold & set(answer_tokens(s, language))))
    if not gold & set(answer_tokens(best, language)):
        return 0.0
    return float(has_negation(best) != has_negation(reference))


def _stems(tokens: Sequence[str], drop: set[str]) -> list[str]:
    return [t[:STEM_CHARS] for t in tokens if t not in drop and len(t) > 2]


def correctness_features(
    question: str, reference: str, candidate: str, similarity: float, language: str = "en"
) -> dict[str, float]:
    """The features of the module docstring for one reference, in the order of :data:`FEATURES`."""
    lang = feature_language(question, reference, candidate, language)
    pred = answer_tokens(normalize_numbers(candidate, lang), lang)
    gold = answer_tokens(normalize_numbers(reference, lang), lang)
    asked = set(answer_tokens(normalize_numbers(question, lang), lang))
    p, r, f = token_prf(pred, gold) if gold else (0.0, 0.0, 0.0)
    novel = [t for t in gold if t not in asked]
    pred_set = set(pred)
    gold_stems = _stems(gold, asked)
    pred_stems = set(_stems(pred, set()))
    feats = {
        "contains": 1.0 if gold and contains_tokens(pred, gold) else 0.0,
        "precision": p,
        "recall": r,
        "f1": f,
        "novel_recall": sum(t in pred_set for t in novel) / len(novel) if novel else r,
        "stem_recall": sum(s in pred_stems for s in gold_stems) / len(gold_stems) if gold_stems else r,
        "question_overlap": sum(t in asked for t in pred) / len(pred) if pred else 0.0,
        "length": min(math.log1p(len(pred)) / math.log1p(LENGTH_CAP), 1.0),
        "length_ratio": max(-1.0, min(1.0, math.log((1 + len(pred)) / (1 + len(gold))) / math.log(1 + LENGTH_CAP))),
        "similarity": max(float(similarity), 0.0),
        **quantity_features(question, reference, candidate, lang),
        "negation_mismatch": negation_mismatch(reference, candidate, lang),
        "abstention": float(is_abstention(candidate) and not is_abstention(reference)),
    }
    return {name: feats[name] for name in FEATURES}
