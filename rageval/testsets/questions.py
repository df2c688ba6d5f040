"""Turn an English statement into the question a person would ask of one of its phrases, from
spaCy's dependency parse: the question word goes to the front, the auxiliary is inverted or
``do`` supplied, and the asked phrase leaves the sentence.

    The zstd port is kept up to date by Microsoft.  ->  By which organisation is the zstd port kept up to date?
    The first line opened in 1964 between Tokyo and Osaka.  ->  When did the first line open between Tokyo and Osaka?
    The base package contains 700 files.  ->  How many files does the base package contain?

:func:`wh_question` fires only where the shape is sure (else None, and the sentence offers no
question of that phrase):

- the sentence's root is a verb (or a copula) with a subject before it, and nothing but the asked
  phrase (and a comma after it) stands before the subject;
- the asked phrase is exactly one argument of the root: its subject (not with ``what``: a thing of
  unsure type as the subject is mostly the document's own product), its object (``dobj``,
  ``attr``, ``dative``; not one of a list, followed by a comma or a conjunction, nor followed by a
  participle or a clause that may describe it), or the object of
  a preposition attached to the root (the preposition moves with a name, ``By whom``, ``Under
  which ...``, and stays behind for ``what`` when it ends the sentence: ``What is the word size
  used for?``; ``in``/``on``/``at``/``during`` before a date give ``When``, ``in``/``at`` before a
  place ``Where``);
- an adverb or prepositional aside before the subject, closed by a comma ("For example,", "In
  particular,"), is dropped;
- a question not about the subject needs an auxiliary to invert (``is``, ``has``, ``can`` ...) or a
  finite root verb to take ``do``/``does``/``did`` (its lemma then replaces it; a root tagged as a
  past participle with no auxiliary is a past tense the tagger misread: ``did``);
- no word left in the question depends on a word taken out of it;
- the root does not join a second clause (:func:`_two_clauses`), the subject is no pronoun;
- the result has at most :data:`MAX_WORDS` words, no empty quotes or brackets and none unpaired.
"""
from __future__ import annotations

import re
from typing import Any, NamedTuple

MAX_WORDS = 40
_SUBJECTS = ("nsubj", "nsubjpass")
_OBJECTS = ("dobj", "attr", "dative", "oprd")
_DO = {"VBD": "did", "VBZ": "does", "VBP": "do"}
#: prepositions a date or place drops in favour of When / Where
DATE_PREPOSITIONS = frozenset("in on at during".split())
PLACE_PREPOSITIONS = frozenset("in at".split())


def _subtree(token: Any) -> tuple[int, int]:
    return token.left_edge.i, token.right_edge.i + 1


def _argument(doc: Any, start: int, end: int) -> Any | None:
    """The token heading the phrase ``doc[start:end]`` when the phrase is its whole subtree (a
    leading determiner aside), else None."""
    heads = [t for t in doc[start:end] if not (start <= t.head.i < end) or t.head.i == t.i]
    if len(heads) != 1:
        return None
    head = heads[0]
    left, right = _subtree(head)
    if right != end or not (left == start or (left == start - 1 and doc[left].dep_ in ("det", "poss"))):
        return None
    return head


def _text(tokens: list[Any]) -> str:
    return "".join(t.text_with_ws for t in tokens).strip()


class Question(NamedTuple):
    """A question and whether its subject is named: the sentence's subject holds a proper noun or a
    named entity (for a question about the subject, what is left of the sentence holds one)."""

    text: str
    named: bool


_NO_NAMES = frozenset({"", "ORDINAL", "CARDINAL", "QUANTITY", "PERCENT"})


def _named(tokens: Any) -> bool:
    """A proper noun or a named entity among ``tokens`` (a number or an ordinal names nothing)."""
    return any(t.pos_ == "PROPN" or t.ent_type_ not in _NO_NAMES for t in tokens)


def wh_question(doc: Any, start: int, end: int, wh: str, *, kind: str = "thing") -> Question | None:
    """The question asking for ``doc[start:end]`` with question phrase ``wh`` (``who``, ``which
    organisation``, ``how many files`` ...; ``kind`` ``date`` or ``place`` lets a preposition
    give ``When``/``Where``), or None when the shape is not sure (module doc)."""
    sents = list(doc.sents)
    if len(sents) != 1:
        return None
    root = sents[0].root
    if root.pos_ not in ("VERB", "AUX"):
        return None
    subject = next((c for c in root.children if c.dep_ in _SUBJECTS and c.i < root.i), None)
    head = _argument(doc, start, end)
    if subject is None or head is None or _two_clauses(root) or subject.pos_ not in ("NOUN", "PROPN", "PRON"):
        return None
    s_left, s_right = _subtree(subject)
    if head.i != subject.i and subject.pos_ == "PRON":
        return None  # "It is kept up to date by ...": the question would not say what "it" is
    if head.i == subject.i:
        if wh == "what":
            return None  # a thing of unsure type as the subject: mostly the document's own product
        if s_left < start - 1 or any(not t.is_punct for t in doc[:s_left]):
            return None
        rest = [t for t in doc[s_right:] if not (t.is_punct and t.i == len(doc) - 1)]
        return _finish(f"{wh} {_text(rest)}", _named(rest))
    # the phrase leaving the sentence: an object of the root, or a preposition's object with its preposition
    stranded = ""
    if head.dep_ in _OBJECTS and head.head.i == root.i:
        gone = set(range(min(start, head.left_edge.i), end))
        front = wh
        if end < len(doc) and (doc[end].text == "," or doc[end].dep_ == "cc"):
            return None  # a list of objects: the question would keep the rest of the list
        if end < len(doc) and (doc[end].tag_ in ("VBN", "VBG") or doc[end].dep_ in ("advcl", "acl")):
            return None  # "... the officials [gathered on the platform]": a participle that described the object
    elif head.dep_ == "pobj" and head.head.dep_ in ("prep", "agent") and head.head.head.i == root.i:
        prep = head.head
        if _subtree(prep) != (prep.i, end):
            return None
        gone = set(range(prep.i, end))
        word = prep.text.lower()
        if kind == "date" and word in DATE_PREPOSITIONS:
            front = "when"
        elif kind == "place" and word in PLACE_PREPOSITIONS:
            front = "where"
        elif wh == "what":
            if any(not t.is_punct for t in doc[end:]):
                return None  # stranded only at the sentence's end
            front, stranded = "what", word
        else:
            front = f"{word} {'whom' if wh == 'who' else wh}"
    else:
        return None
    before = [t for t in doc[:s_left] if t.i not in gone and not t.is_punct]
    if before and not _opening_aside(doc, before, root):
        return None
    gone |= {t.i for t in doc[:s_left]}
    auxes = [c for c in root.children if c.dep_ in ("aux", "auxpass") and c.i < root.i and c.i > s_right - 1]
    body = [t for t in doc[s_left:] if t.i not in gone and not (t.is_punct and t.i == len(doc) - 1)]
    if any(doc[t].head.i in gone for t in range(len(doc)) if t not in gone and doc[t].head.i != t):
        return None  # a word left behind hangs on the phrase taken out ("... toward the officials [gathered]")
    negation = next((c for c in root.children if c.dep_ == "neg" and c.text.lower() in ("n't", "n’t")), None)
    if negation is not None:
        body = [t for t in body if t.i != negation.i]
    if auxes:
        moved, body = auxes[0].text.lower(), [t for t in body if t.i != auxes[0].i]
        words = _words(body, subject)
    elif root.pos_ == "AUX" or root.lemma_ == "be":
        moved, body = root.text.lower(), [t for t in body if t.i != root.i]
        words = _words(body, subject)
    elif root.tag_ in _DO or root.tag_ == "VBN":  # a bare VBN root is a past tense the tagger misread
        moved = _DO.get(root.tag_, "did")
        words = _words(body, subject, replace={root.i: root.lemma_})
    else:
        return None
    if not words.strip():
        return None
    if negation is not None:
        moved += "n't"
    return _finish(f"{front} {moved} {words} {stranded}", _named(doc[s_left:s_right]))


def _opening_aside(doc: Any, before: list[Any], root: Any) -> bool:
    """True when what stands before the subject is an aside that a question may drop: an adverb or
    a prepositional phrase of the root followed by a comma ("For example,", "In particular,",
    "Also,"), not a condition ("If ...") or a clause."""
    last = before[-1].i
    if last + 1 >= len(doc) or doc[last + 1].text != ",":
        return False
    heads = [t for t in before if t.head.i == root.i]
    return bool(heads) and all(t.dep_ in ("advmod", "prep") for t in heads) and not any(
        t.dep_ in ("mark", "advcl", "nsubj") for t in before)


def _two_clauses(root: Any) -> bool:
    """True when the root joins another clause (``is 50, and the maximum is 100``; ``...; a major
    one destroyed ...``): taking a phrase out of one leaves the other hanging."""
    return any(c.dep_ in ("conj", "parataxis", "ccomp") and c.pos_ in ("VERB", "AUX") for c in root.children)


def _words(tokens: list[Any], subject: Any, replace: dict[int, str] | None = None) -> str:
    """The tokens as text, the subject's sentence-initial capital lowered unless it names something,
    and ``replace``'s tokens swapped for the given words."""
    replace = replace or {}
    out = []
    for t in tokens:
        text = replace.get(t.i, t.text)
        if t.i == 0 and t.pos_ != "PROPN" and not t.ent_type_ and not (text[1:2].isupper()):
            text = text[:1].lower() + text[1:]
        out.append(text + t.whitespace_)
    return "".join(out).strip()


def _finish(question: str, named: bool) -> Question | None:
    q = re.sub(r"\s+", " ", question).strip().rstrip(" .;:!?,")
    q = re.sub(r"\s+([,;:])", r"\1", q)
    if not q or len(q.split()) > MAX_WORDS or re.search(r"\(\s*\)|\"\s*\"|\u201c\s*\u201d|,\s*,", q):
        return None  # too long, or the phrase left an empty pair of quotes or brackets behind
    if q.count("(") != q.count(")") or q.count("[") != q.count("]") or q.count('"') % 2:
        return None
    return Question(q[:1].upper() + q[1:] + "?", named)
