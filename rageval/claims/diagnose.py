"""Hallucination diagnosis: the likely cause of each unsupported claim, after the common
triggers listed in seed paper 001.

For a claim a judge found unsupported (CONTRADICTED or NOT_MENTIONED; a SUPPORTED or UNVERIFIED
claim has no cause: nothing says it is wrong), the first rule that applies gives its cause:

1. ``conflicting_sources``: retrieved chunks disagree on the claim: the verifier's ``conflict``
   flag, which the offline verifier sets only when one context contradicts the claim's figures
   while another states all of them;
2. ``sparse_retrieval``: the sample has a gold answer and it is in no retrieved chunk;
3. ``long_context_dilution``: the gold answer is retrieved, but only at rank > 3;
4. ``over_specification``: the claim adds numbers, years or names found in no chunk, while the
   rest of it matches the context (>= 0.6 of its other content words occur in the chunks);
5. ``invented_confidence``: the answer uses no hedging or abstention language, yet the claim is
   unsupported;
6. none (``null``): a hedged answer with an unsupported claim.

A gold answer is *in* a chunk when :func:`holds_answer` says so for one of the references (the
same rule as the retrieval metrics' evidence mode, plus >= 0.8 of a longer reference's content
words). The answer's cause is the most common
cause among its unsupported claims (ties in the order above).
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Any, Mapping, Sequence

from rageval.claims.cues import name_heads
from rageval.types import Sample
from rageval.text.tokenize import answer_tokens, contains_tokens
from rageval.text.hedges import abstention_cues, hedge_cues
from rageval.text.lang import guess_language
from rageval.text.numbers import quantities, same_quantity
from rageval.text.words import content_stems, fold, stem, words

CAUSES = (
    "conflicting_sources",
    "sparse_retrieval",
    "long_context_dilution",
    "over_specification",
    "invented_confidence",
)
DILUTION_RANK = 3


def normalise(text: str) -> str:
    """Lower case, accents, punctuation and articles removed, whitespace collapsed."""
    text = re.sub(r"[^\w\s]", " ", fold(text))
    return " ".join(t for t in text.split() if t not in ("a", "an", "the"))


def gold_ranks(sample: Sample) -> list[int] | None:
    """1-based ranks of the contexts that hold a gold answer; None when there is no reference."""
    refs = [r for r in sample.references if r.strip()]
    if not refs:
        return None
    ranks = []
    for rank, ctx in enumerate(sample.contexts, 1):
        if any(holds_answer(ctx, ref) for ref in refs):
            ranks.append(rank)
    return ranks


def holds_answer(context: str, reference: str) -> bool:
    """Whether ``context`` contains ``reference``: the rule of the retrieval metrics'
    ``relevance="evidence"`` mode (the SQuAD-normalised reference is a run of whole tokens of the
    normalised context, :func:`rageval.text.tokenize.contains_tokens`), or, for a reference
    longer than 6 words, >= 0.8 of its content words in the context. The diagnosis, the hedging
    metric and the app's "gold answer retrieved" line all use this one function."""
    if contains_tokens(answer_tokens(context), answer_tokens(reference)):
        return True
    ref = normalise(reference)
    if not ref:
        return False
    if f" {ref} " in f" {normalise(context)} ":
        return True
    stems = set(content_stems(reference))
    if len(reference.split()) > 6 and stems:
        have = set(content_stems(context))
        return len(stems & have) / len(stems) >= 0.8
    return False


def specifics_missing(claim: str, contexts: Sequence[str]) -> list[str]:
    """Quantities, dates and names of ``claim`` that occur in none of ``contexts``: a quantity is
    found when one of the contexts' agrees with it (:func:`rageval.text.numbers.same_quantity`,
    so "EUR 1.5 billion" finds "1.500 milioni di euro"), a name when its last word occurs (as a
    stem). Quantities are given in canonical form (``1500000000 eur``, ``2021-03-03``)."""
    joined = "\n".join(contexts)
    lang = guess_language(claim + " " + joined[:2000])
    have = quantities(joined, lang)
    out = list(dict.fromkeys(q.canonical for q in quantities(claim, lang)
                             if not any(same_quantity(q, h) for h in have)))
    ctx_stems = {stem(w) for w in words(joined)}
    out += sorted(name for head, name in name_heads(claim).items() if stem(head) not in ctx_stems)
    return out


def _rest_matches(claim: str, missing: Sequence[str], contexts: Sequence[str]) -> bool:
    drop = {stem(w) for m in missing for w in words(m)}
    rest = [s for s in dict.fromkeys(content_stems(claim)) if s not in drop]
    if not rest:
        return True
    have = set(content_stems("\n".join(contexts)))
    return sum(s in have for s in rest) / len(rest) >= 0.6


def diagnose(sample: Sample, claims: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Causes for ``claims`` (dicts with ``text``, ``verdict`` and optionally ``conflict``) of
    ``sample``'s answer: ``{"answer_cause", "claim_causes", "hedged", "gold_in_contexts",
    "gold_ranks"}``; ``claim_causes[i]`` is None for supported claims."""
    answer = sample.answer or ""
    hedged = bool(hedge_cues(answer) or abstention_cues(answer))
    ranks = gold_ranks(sample)
    causes: list[str | None] = []
    for claim in claims:
        if claim.get("verdict") not in ("CONTRADICTED", "NOT_MENTIONED"):
            causes.append(None)
            continue
        missing = specifics_missing(claim.get("text", ""), sample.contexts)
        if claim.get("conflict"):
            cause = "conflicting_sources"
        elif ranks is not None and not ranks:
            cause = "sparse_retrieval"
        elif ranks and min(ranks) > DILUTION_RANK:
            cause = "long_context_dilution"
        elif missing and _rest_matches(claim.get("text", ""), missing, sample.contexts):
            cause = "over_specification"
        elif not hedged:
            cause = "invented_confidence"
        else:
            cause = None
        causes.append(cause)
    counted = Counter(c for c in causes if c)
    answer_cause = min(counted, key=lambda c: (-counted[c], CAUSES.index(c))) if counted else None
    return {
        "answer_cause": answer_cause,
        "claim_causes": causes,
        "hedged": hedged,
        "gold_in_contexts": None if ranks is None else bool(ranks),
        "gold_ranks": ranks,
    }
