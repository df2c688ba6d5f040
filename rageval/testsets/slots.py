"""Which phrases of a parsed English sentence a template may ask about, and with which question
phrase: a slot fires only where it is sure.

- ``date``: a DATE entity that holds a year (1500-2099) or a month with a day, no piece of a
  hyphenated or dotted token -> ``when``;
- ``number``: a whole-number token (digits, thousands commas) counting the noun right after it
  (``700 files``, ``3 worker processes``), not glued to a hyphen, a dot, a slash or a letter
  (``UTF-8``, ``1.1``, ``700K``, ``60000-64999``) and not a year -> ``how many files``; a MONEY
  entity -> ``how much``;
- ``name``: a PERSON of two or more capitalised words (``who``), a GPE, LOC or FAC (``which
  place``, ``where`` after in/at), an ORG whose name says it is one (``Free Software Foundation``:
  :data:`ORG_WORDS`; ``which organisation``), a name ending in a class noun (``the Apache License``
  -> ``which licence``); any other named entity, and one that looks like code, a format's acronym
  or a keyword (``MIME``, ``WriteStream``, ``globs2``, ``SHOULD``: :func:`looks_like_code`), falls
  back to ``what``;
- ``object``: the direct object of the sentence's main verb, or the object of a preposition of it
  (``for``, ``with``, ``by`` ...: :data:`WHAT_PREPOSITIONS`), a noun phrase of 2-12 words (a bare
  noun is mostly half of an idiom: "takes precedence") headed by a noun, with no personal pronoun,
  no demonstrative and nothing that looks like code (``What does Zstandard offer?``) -> ``what``; an entity next to a
  capitalised word is taken for part of a longer name and skipped.

Where the phrase sits decides whether a question can be made (:func:`rageval.testsets.questions.wh_question`).
"""
from __future__ import annotations

import re
from typing import Any, Iterator

#: a name ending in one of these words is asked with it (``which licence``), whatever its label
CLASS_NOUNS = {"license": "licence", "licence": "licence", "foundation": "foundation", "university": "university",
               "project": "project", "library": "library", "protocol": "protocol", "format": "format",
               "standard": "standard", "company": "company", "institute": "institute", "team": "team",
               "language": "language", "system": "system", "database": "database", "specification": "specification"}
WH_OF_LABEL = {"PERSON": "who", "ORG": "which organisation", "GPE": "which place", "LOC": "which place",
               "FAC": "which place"}
#: an ORG is asked with "which organisation" only when its name says it is one (the small
#: pipeline labels products, formats and languages ORG: "Zstandard", "Perl")
ORG_WORDS = frozenset("""inc inc. corp corp. corporation ltd ltd. llc gmbh foundation university institute team group
    consortium association society committee council labs laboratory laboratories agency ministry department
    company bank press""".split())
_MONTH = re.compile(r"(?i)\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b")
#: words of RFC 2119 and similar that a parser takes for names
KEYWORDS = frozenset("MUST SHOULD MAY SHALL REQUIRED RECOMMENDED OPTIONAL NOT NOTE TODO".split())
_GLUED = re.compile(r"[-./:\w]$")


def looks_like_code(text: str) -> bool:
    """True for an identifier, a format's acronym or a keyword rather than a name: all capitals
    of at most 6 letters (``MIME``, ``CGI``), an inner capital (``WriteStream``), letters mixed
    with digits (``globs2``), or ``_ . / : @ ` < >`` inside, or a word of :data:`KEYWORDS`."""
    word = text.strip()
    return (word in KEYWORDS or bool(re.fullmatch(r"[A-Z]{2,6}s?", word))
            or bool(re.search(r"[a-z][A-Z]|[A-Za-z]\d|\d[A-Za-z]|[_./:@`<>]", word)))


def _glued(doc: Any, start: int, end: int) -> bool:
    """True when ``doc[start:end]`` touches a hyphen, dot, slash or letter with no space between."""
    text = doc.text
    a, b = doc[start].idx, doc[end - 1].idx + len(doc[end - 1].text)
    return bool((a > 0 and _GLUED.search(text[a - 1]) and text[a - 1] not in " ")
                or (b < len(text) and re.match(r"[-./:\w]\w", text[b:b + 2])))


def _whole_name(doc: Any, start: int, end: int) -> bool:
    """False when the entity looks like part of a longer name ("the Tokaido [Shinkansen]",
    "[Camellia] Sinensis"): a capitalised word right before it (not opening the sentence) or after it."""
    before = doc[start - 1] if start > 0 else None
    after = doc[end] if end < len(doc) else None
    return not ((before is not None and before.i > 0 and before.text[:1].isupper())
                or (after is not None and after.text[:1].isupper()))


def name_slots(doc: Any) -> Iterator[tuple[int, int, str, str]]:
    """``(start, end, wh, kind)`` for each named entity (module doc); ``kind`` is ``place`` or ``thing``."""
    for ent in doc.ents:
        if ent.label_ in ("DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "MONEY", "PERCENT"):
            continue
        if _glued(doc, ent.start, ent.end) or not _whole_name(doc, ent.start, ent.end):
            continue
        last = ent[-1].text.lower()
        if last in CLASS_NOUNS and len(ent) > 1:
            wh = f"which {CLASS_NOUNS[last]}"
        elif ent.label_ in WH_OF_LABEL and not any(looks_like_code(t.text) for t in ent) and _sure(ent):
            wh = WH_OF_LABEL[ent.label_]
        else:
            wh = "what"
        yield ent.start, ent.end, wh, "place" if ent.label_ in ("GPE", "LOC", "FAC") else "thing"


def _sure(ent: Any) -> bool:
    """A PERSON of two or more capitalised words, an ORG with a word of :data:`ORG_WORDS`; any place."""
    words = [t.text for t in ent if t.text.lower() not in ("the", "of", "and")]
    if ent.label_ == "PERSON":
        return len(words) >= 2 and all(t.pos_ == "PROPN" and t.text.replace(".", "").isalpha()
                                         and not t.text.endswith("ing") for t in ent
                                         if t.text.lower() not in ("the", "of", "and"))
    if ent.label_ == "ORG":
        return any(t.text.lower() in ORG_WORDS for t in ent)
    return True


def date_slots(doc: Any) -> Iterator[tuple[int, int, str, str]]:
    for ent in doc.ents:
        sure = re.search(r"\b(?:1[5-9]|20)\d\d\b", ent.text) or (_MONTH.search(ent.text) and re.search(r"\d", ent.text))
        if ent.label_ == "DATE" and sure and not _glued(doc, ent.start, ent.end):
            yield ent.start, ent.end, "when", "date"


def number_slots(doc: Any) -> Iterator[tuple[int, int, str, str]]:
    for ent in doc.ents:
        if ent.label_ == "MONEY" and not _glued(doc, ent.start, ent.end):
            yield ent.start, ent.end, "how much", "thing"
    for tok in doc:
        if not re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d+", tok.text) or tok.ent_type_ in ("DATE", "MONEY", "TIME"):
            continue
        unit = tok.head
        if tok.dep_ != "nummod" or unit.i <= tok.i or unit.pos_ != "NOUN" or not unit.text.isalpha():
            continue
        between = doc[tok.i + 1:unit.i]
        if any(t.dep_ not in ("compound", "amod") or not t.text.isalpha() for t in between):
            continue
        if _glued(doc, tok.i, tok.i + 1) or _glued(doc, unit.i, unit.i + 1):
            continue
        if any(c.i < tok.i and c.dep_ not in ("det",) for c in unit.children if c.i != tok.i):
            continue  # "the 3 files", "its 12 modules": a pre-modifier the question would lose
        start = tok.i - 1 if tok.i > 0 and doc[tok.i - 1].dep_ == "quantmod" else tok.i
        yield start, unit.i + 1, "how many " + doc[tok.i + 1:unit.i + 1].text.lower(), "thing"


DEMONSTRATIVES = frozenset("this these those such".split())
PERSONAL = frozenset("i you he she it we they me him her us them its his their our your".split())
#: prepositions whose object a "what" question may ask for, the preposition left at the end
WHAT_PREPOSITIONS = frozenset("for with by from on into to over about under through".split())


def object_slots(doc: Any) -> Iterator[tuple[int, int, str, str]]:
    for sent in doc.sents:
        objects = [c for c in sent.root.children if c.dep_ == "dobj"]
        objects += [g for c in sent.root.children if c.dep_ in ("prep", "agent") and c.text.lower() in WHAT_PREPOSITIONS
                    for g in c.children if g.dep_ == "pobj"]
        for obj in (o for o in objects if o.pos_ in ("NOUN", "PROPN")):
            start, end = obj.left_edge.i, obj.right_edge.i + 1
            span = doc[start:end]
            if 2 <= end - start <= 12 and span[-1].pos_ in ("NOUN", "PROPN", "NUM", "VERB") and not any(
                    t.lower_ in PERSONAL or t.lower_ in DEMONSTRATIVES or looks_like_code(t.text) for t in span) \
                    and not _glued(doc, start, end):
                yield start, end, "what", "thing"
