"""Hints for a person deciding an UNVERIFIED claim: what the offline checks notice between the
claim and its most likely evidence sentence, phrased as observations, never as a verdict.

Each check adds at most one hint, in this order:

1. quantities and dates (:func:`rageval.text.numbers.quantities`, compared with
   :func:`~rageval.text.numbers.same_quantity`): "the claim says 24 hours; the sentence says
   2 days" when the sentence gives other ones, else "a number not in the sentence: 24 hours";
2. names (:func:`rageval.claims.cues.names`): "a name found in no context: anna keller" when no
   context has it, "a name not in the sentence: anna keller" when the sentence names another;
3. negation: "one of the two is negated" when the parity of negation words differs
   (:func:`rageval.claims.cues.negation_parity`);
4. opposite words (:func:`rageval.claims.cues.antonym_clash`): "the claim says cheaper; the
   sentence says more expensive";
5. a quantifier or temporal word replaced by another of its group: "the claim and the sentence
   use different quantifiers (all, some ...)".

A number the claim derives correctly (a difference, a sum) is still "not in the sentence": that is
why these are hints. No hint means only that no check fired, never that the claim is right.
"""
from __future__ import annotations

from rageval.claims import cues
from rageval.text.numbers import Quantity, quantities, same_quantity
from rageval.text.words import words

MAX_SHOWN = 3  # values quoted per hint


def _quoted(text: str, qs: list[Quantity]) -> str:
    return ", ".join(dict.fromkeys(text[q.start:q.end] for q in qs[:MAX_SHOWN]))


def _quantity_hint(claim: str, sentence: str, lang: str | None) -> str | None:
    cq, sq = quantities(claim, lang), quantities(sentence, lang)
    missing = [q for q in cq if not any(same_quantity(q, s) for s in sq)]
    if not missing:
        return None
    kinds = {q.kind for q in missing}
    rivals = [s for s in sq if not any(same_quantity(s, q) for q in cq)
              and (s.kind in kinds or "number" in kinds or s.kind == "number"
                   or {s.kind, *kinds} <= {"date", "year"})]
    if rivals:
        return f"the claim says {_quoted(claim, missing)}; the sentence says {_quoted(sentence, rivals)}"
    return f"a number not in the sentence: {_quoted(claim, missing)}"


def hints(claim: str, sentence: str | None, lang: str | None = None, context: str = "") -> tuple[str, ...]:
    """The hints of ``claim`` against its evidence ``sentence`` (none without a sentence), in the
    order of the module docstring; ``context`` is every context's text joined (for names).

    >>> hints("The wall stood for 30 years.", "It divided the city for 28 years.")
    ('the claim says 30 years; the sentence says 28 years',)
    """
    if not sentence:
        return ()
    out = []
    found = _quantity_hint(claim, sentence, lang)
    if found:
        out.append(found)
    have, anywhere = set(words(sentence)), set(words(context)) | set(words(sentence))
    absent = [n for n in sorted(cues.names(claim)) if not set(n.split()) <= have]
    nowhere = [n for n in absent if not set(n.split()) <= anywhere]
    if nowhere:
        out.append("a name found in no context: " + ", ".join(nowhere[:MAX_SHOWN]))
    elif absent and cues.names(sentence) - cues.names(claim):
        out.append("a name not in the sentence: " + ", ".join(absent[:MAX_SHOWN]))
    if cues.negation_parity(claim) != cues.negation_parity(sentence):
        out.append("one of the two is negated and the other is not")
    clash = cues.antonym_clash(claim, sentence)
    if clash:
        out.append(f"the claim says {clash[0]}; the sentence says {clash[1]}")
    elif cues.it_antonym_clash(claim, sentence):
        out.append("the claim and the sentence use opposite words")
    if cues.group_clash(claim, sentence, cues.QUANTIFIERS):
        out.append("the claim and the sentence use different quantifiers (all, some, most ...)")
    if cues.group_clash(claim, sentence, cues.TEMPORAL):
        out.append("the claim and the sentence order events differently (before, after ...)")
    return tuple(out)
