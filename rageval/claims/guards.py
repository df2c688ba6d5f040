"""Whole-context guards: a copied claim is SUPPORTED only when nothing else in its context
withdraws, re-frames or re-targets it.

Containment (:mod:`rageval.claims.containment`) finds a claim copied from a sentence that asserts
it as it stands. Each guard here then reads the rest of that context and, when it finds a cue,
returns a hint naming the cue and where it is; the claim is then UNVERIFIED with that hint (never
CONTRADICTED: a withdrawal is a reason to doubt the copy, not proof of the opposite). English and
Italian, accent-folded. The guards, in the order they run (:data:`GUARDS`):

- ``header``: the nearest header above the copy (a ``#`` or title heading, a short line of its
  own, or a line ending in ``:`` or ``?`` that is not a list item) negates or relabels what follows
  (:data:`NEGATING_HEADER`: myths, misconceptions, not included, excluded, rejected, deprecated,
  old version ...; ``miti``, ``non incluso``, ``scartate`` ...), unless it also names the true side
  (:data:`TRUE_SIDE`: "Myths and facts");
- ``quiz``: the nearest header, the copy's sentence or the sentence next to it asks for a verdict
  (:data:`QUIZ`: "true or false", "vero o falso", "quiz");
- ``hypothetical``: one of the two sentences before it sets up a hypothesis (:data:`HYPOTHETICAL`:
  imagine, suppose, assume, what if; ``immagina``, ``supponiamo``, ``ipotizziamo`` ...);
- ``quotation``: the copy lies inside quotation marks (an odd number of ``"`` before it in its
  paragraph, or more opening than closing curly or angled quotes): someone's words, not the
  document's;
- ``later correction``: a later sentence corrects, retracts or doubts it: anywhere after it for a
  strong cue (:data:`STRONG_CORRECTION`: "Correction:", "Editor's note", retracted, erratum,
  ``rettifica``, ``errata corrige``), within the next ``NEAR`` sentences for the others
  (:data:`NEAR_CORRECTION`: "Update:", "Actually,", "this is incorrect", "not confirmed",
  "is unlikely", ``in realtà``, ``aggiornamento:``, ``è falsa`` ...);
- ``another entity``: the claim's subject is a pronoun or a bare definite description ("It",
  "They", "This model", "The battery", ``Il sindaco``), the question or the answer names something,
  and the nearest earlier sentence of the context that names something (:func:`entities`:
  capitalised runs, function words left out) names nothing the question or the answer names: the
  copy is not self-contained, and its referent is another one. Names are read by capitals in both
  languages (no tagger), so a lower-case referent ("the premium plan") is not seen.

A guard only removes SUPPORTED (``tests/test_claim_rules.py`` checks each one's direction on the
development set).
"""
from __future__ import annotations

import re
from typing import Callable, NamedTuple

from rageval.text.sentences import OPENERS, Span, blocks, split_sentences
from rageval.text.words import IT_STOPWORDS, STOPWORDS, fold, words

#: later sentences read for a cue of :data:`NEAR_CORRECTION`
NEAR = 3
#: header words and phrases (accent-folded) that negate or relabel what follows
NEGATING_HEADER = re.compile(
    r"\b(?:myths?|misconceptions?|misbeliefs?|hoax(?:es)?|false|untrue|wrong|incorrect|not (?:included|covered|true)|"
    r"excluded|exclusions?|rejected|discarded|deprecated|obsolete|outdated|old version|previous versions?|legacy|"
    r"what (?:is|isn't|is not) (?:not )?included|don'?ts|"
    r"miti|mito|bufale?|leggende|fals[oaie]|sbagliat[oaie]|errat[oaie]|non inclus[oaie]|esclus[oaie]|esclusioni|"
    r"scartat[oaie]|respint[oaie]|deprecat[oaie]|obsolet[oaie]|vecchia versione|versioni? precedent[ei])\b")
#: header words that name the true side too ("Myths and facts"): such a header relabels nothing
TRUE_SIDE = re.compile(r"\b(?:facts?|truths?|true|correct|vero|veri|fatti|verita)\b")
QUIZ = re.compile(r"\b(?:true or false|false or true|vero o falso|quiz|which of the following|quale delle seguenti)\b")
HYPOTHETICAL = re.compile(
    r"^(?:[^.:!?]{0,30}:\s*)?(?:imagine|suppose|supposing|assume|assuming|let'?s say|let us say|what if|"
    r"hypothetically|immagina|immaginate|immaginiamo|supponiamo|supponi|ipotizziamo|poniamo|mettiamo che)\b"
    r"|\b(?:hypothetical|ipotetic[oaie])\b")
STRONG_CORRECTION = re.compile(
    r"\b(?:corrections?\s*:|editor'?s note|erratum|errata corrige|retract(?:ed|ion|s)?|rettifica)\b")
NEAR_CORRECTION = re.compile(
    r"\b(?:corrected|correction|updated?\s*:|withdr[ae]wn?|(?:this|that|it) (?:is|was) (?:incorrect|wrong|false|"
    r"not true|untrue|unlikely|a mistake|an error)|(?:is|was) (?:a mistake|an error)|not (?:been )?confirmed|"
    r"no \w*\s*(?:trial|study|studies|evidence) (?:has |have )?(?:shown|found|supports?|confirmed) (?:this|that|it)|"
    r"in realta|aggiornamento\s*:|smentit[oaie]|non (?:e|sono) (?:vero|vera|veri|corrett[oaie])|"
    r"non (?:e|sono) stat[oaie] confermat[oaie]|non confermat[oaie]|(?:e|sono) fals[oaie]|ritirat[oaie]|"
    r"annullat[oaie])\b|^(?:actually|in fact, (?:no|not)|no, |in realta)\b")
#: a claim subject that points back: a pronoun, or a definite article or demonstrative before a
#: lower-case noun ("The battery", "This model", "Il sindaco")
POINTING = re.compile(
    r"^(?:(?:yes|no|si), )?(?:(?:it|they|he|she|this|these|that|those|its|their|his|her|esso|essa|essi|esse|egli|"
    r"lui|lei|loro)\b(?!\s+[A-Z])|(?:the|this|that|these|those|il|lo|la|i|gli|le|l'|questo|questa|questi|queste|"
    r"quel|quella|quei|quelle)\s*[a-z\u00e0-\u00ff])")
_CAPITALISED = re.compile(r"[A-Z\u00C0-\u00DE][\w\u00C0-\u024F'\-]*(?:\s+(?:of|de|di|del|della|van|von|du|la)?\s*"
                          r"[A-Z\u00C0-\u00DE0-9][\w\u00C0-\u024F'\-]*)*")
_LIST_MARK = re.compile(r"^[ \t]*(?:[-*+\u2022\u00b7]|\d{1,3}[.)])[ \t]+$")
_NOT_NAMES = STOPWORDS | IT_STOPWORDS | OPENERS | {"yes", "no", "si", "q", "a"}


class Copy(NamedTuple):
    """Where a claim was found: its context, the copied span and its sentence(s)."""

    context: str
    start: int
    end: int
    evidence: Span


class Asked(NamedTuple):
    """What the claim answers: the question and the whole answer."""

    claim: str
    question: str
    answer: str


def _quote(text: str, most: int = 90) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= most else flat[: most - 3].rstrip() + "..."


def nearest_header(text: str, at: int) -> str | None:
    """The nearest header above offset ``at`` (module docstring), or None."""
    found = None
    for start, end, kind in blocks(text):
        if start >= at:
            break
        body = text[start:end].strip()
        line_start = text.rfind("\n", 0, start) + 1
        if _LIST_MARK.match(text[line_start:start] + " ") or end >= at:
            continue
        short = len(body.split()) <= 12 and "\n" not in body
        if kind == "heading" or (kind == "prose" and short and (body.endswith((":", "?")) or body[-1] not in ".!;,")):
            found = body
    return found


def header(copy: Copy, asked: Asked) -> str | None:
    head = nearest_header(copy.context, copy.evidence.start)
    if head and NEGATING_HEADER.search(fold(head)) and not TRUE_SIDE.search(fold(head)):
        return f"the header above it says: '{_quote(head)}'"
    return None


def _neighbours(copy: Copy) -> tuple[list[Span], list[Span]]:
    """The sentences of the copy's context before and after its evidence."""
    spans = split_sentences(copy.context)
    return ([s for s in spans if s.end <= copy.evidence.start], [s for s in spans if s.start >= copy.evidence.end])


def quiz(copy: Copy, asked: Asked) -> str | None:
    before, after = _neighbours(copy)
    near = [copy.evidence.text] + [s.text for s in before[-1:] + after[:1]]
    head = nearest_header(copy.context, copy.evidence.start)
    for text in ([head] if head else []) + near:
        if QUIZ.search(fold(text)):
            return f"a quiz frame: '{_quote(text)}'"
    return None


def hypothetical(copy: Copy, asked: Asked) -> str | None:
    before, _ = _neighbours(copy)
    for s in reversed(before[-2:]):
        if HYPOTHETICAL.search(fold(" ".join(s.text.split()))):
            return f"an earlier sentence sets up a hypothesis: '{_quote(s.text)}'"
    return None


def quotation(copy: Copy, asked: Asked) -> str | None:
    para = copy.context.rfind("\n\n", 0, copy.start)
    before = copy.context[para + 1 if para >= 0 else 0: copy.start]
    inside = (before.count('"') % 2 == 1 or before.count("\u201c") > before.count("\u201d")
              or before.count("\u00ab") > before.count("\u00bb"))
    return "it is inside a quotation: someone's words, not the document's" if inside else None


def later_correction(copy: Copy, asked: Asked) -> str | None:
    _, after = _neighbours(copy)
    for i, s in enumerate(after):
        text = fold(" ".join(s.text.split()))
        if STRONG_CORRECTION.search(text) or (i < NEAR and NEAR_CORRECTION.search(text)):
            return f"a later sentence says: '{_quote(s.text)}'"
    return None


def entities(text: str) -> list[str]:
    """The capitalised runs of ``text`` that look like names, folded, function words left out; a
    single capitalised word that starts a sentence is no name (it is capitalised anyway), a run of
    two or more is.

    >>> entities("The Eagle 300 is our flagship drone. Status: sold in London.")
    ['eagle 300', 'london']
    """
    out = []
    for m in _CAPITALISED.finditer(text):
        before = text[: m.start()].rstrip()
        opens = before == "" or before[-1] in ".!?:;\n\"'(" or _LIST_MARK.match(before[-3:] + " ") is not None
        toks = [t for t in words(m.group()) if t not in _NOT_NAMES]
        if toks and not (opens and len(m.group().split()) == 1):
            out.append(" ".join(toks))
    return out


def another_entity(copy: Copy, asked: Asked) -> str | None:
    claim = " ".join(asked.claim.split())
    if not claim or not POINTING.match(claim[0].lower() + claim[1:]):
        return None
    asked_about = set(entities(asked.question) + entities(asked.answer)) - set(entities(claim))
    if not asked_about:
        return None  # the question and the answer name nothing: no referent to compare with
    before, _ = _neighbours(copy)
    named = set(words(asked.question)) | set(words(asked.answer))
    for s in reversed(before):
        found = entities(s.text)
        if found:
            if any(set(e.split()) <= named for e in found):
                return None
            return (f"its subject points back to an earlier sentence, which names {', '.join(found[:3])}: "
                    f"'{_quote(s.text)}', not what the question or the answer names")
    return None


#: (name, guard, what it withdraws) in the order they run; each guard returns a hint or None
GUARDS: tuple[tuple[str, Callable[[Copy, Asked], str | None], str], ...] = (
    ("header", header, "a copy under a header that negates or relabels it (myths, not included, deprecated ...)"),
    ("quiz", quiz, "a copy in a quiz frame (true or false, vero o falso)"),
    ("hypothetical", hypothetical, "a copy after a hypothesis (imagine, suppose, supponiamo ...)"),
    ("quotation", quotation, "a copy inside quotation marks"),
    ("later correction", later_correction, "a copy that a later sentence corrects, retracts or doubts"),
    ("another entity", another_entity, "a copy whose pronoun or bare definite subject points at another entity"))


def withdrawal(copy: Copy, asked: Asked, skip: frozenset[str] = frozenset()) -> str | None:
    """The hint of the first guard of :data:`GUARDS` (those not in ``skip``) that withdraws the copy."""
    for name, guard, _ in GUARDS:
        if name not in skip:
            hint = guard(copy, asked)
            if hint:
                return hint
    return None
