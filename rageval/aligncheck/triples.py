"""Facts as (subject, predicate, object) triples from a spaCy dependency parse.

For every verb (and copula) of a parsed text:

- **subject-verb-object**: ``nsubj`` -> verb -> ``dobj`` / ``dative`` / ``attr`` / ``oprd``
  ("Steve Jobs founded Apple" -> (Steve Jobs, founded, Apple));
- **prepositional objects**: ``verb -> prep -> pobj`` ("founded Apple in 1976" adds
  (Steve Jobs, founded in, 1976)), also behind a non-entity object or a copular complement
  ("Tim Cook is the CEO of Apple" -> (Tim Cook, is ceo of, Apple));
- **passive voice** is turned active: the ``agent``'s object is the subject and the passive
  subject the object ("Apple was founded by Steve Jobs" -> (Steve Jobs, founded, Apple)); a
  passive without an agent keeps its grammatical subject ("Obama was born in Hawaii" ->
  (Obama, born in, Hawaii));
- conjoined subjects and objects each give a triple; a conjoined verb without a subject of its
  own inherits its head verb's; a ``neg`` child puts "not" in front of the predicate.

Subjects are named entities (the paper's "subject named entity"): the entity covering the
token, never a pronoun or a common noun. Objects are named entities of any type (the paper's
"type-free object named entity"); candidates also carry common-noun objects (``object_type``
empty), which :func:`facts` keeps only with ``objects="nouns"``. The
predicate is the lowercased surface words (negation, verb, particle, non-entity complement,
preposition). :class:`Candidate` keeps the raw spans and types; :func:`facts` filters subjects
to the kept types and normalises entity strings with :func:`normalise` and :class:`Aliases`.
"""
from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Sequence

from rageval.aligncheck import entities
from rageval.types import Memo

_SUBJECTS = ("nsubj", "nsubjpass")
_OBJECTS = ("dobj", "dative", "attr", "oprd", "acomp")
_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_POSSESSIVE = re.compile(r"\s*['\u2019]s?$")
_EDGE_PUNCT = re.compile(r"^[\W_]+|[\W_]+$")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Candidate:
    """A triple as read from the parse, before type filtering and normalisation."""

    subject: str
    subject_type: str
    predicate: str
    object: str
    object_type: str
    sentence: str


@dataclass(frozen=True)
class Fact:
    """A normalised triple; equality (and set membership) is on (subject, predicate, object)."""

    subject: str
    predicate: str
    object: str
    subject_type: str = field(default="", compare=False)
    sentence: str = field(default="", compare=False)

    @property
    def pair(self) -> tuple[str, str]:
        return (self.subject, self.object)

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def normalise(text: str) -> str:
    """Entity string for matching: lowercase, no possessive, no edge punctuation, no leading article, single spaces.

    >>> normalise("  The  United Nations' ")
    'united nations'
    """
    t = _SPACE.sub(" ", text.lower()).strip()
    t = _POSSESSIVE.sub("", t)
    t = _EDGE_PUNCT.sub("", t)
    while _ARTICLE.match(t):
        t = _ARTICLE.sub("", t, count=1)
    return t.strip()


class Aliases:
    """A bare surname stands for the one full PERSON name (two words or more) ending with it.

    Built from every PERSON name of the texts compared (source first, then target); a surname
    shared by two different full names stays as it is (ambiguous).

    >>> Aliases(["steve jobs", "jobs", "steve wozniak"]).resolve("jobs")
    'steve jobs'
    """

    def __init__(self, person_names: Iterable[str]):
        self._by_last: dict[str, set[str]] = defaultdict(set)
        for name in person_names:
            parts = name.split()
            if len(parts) >= 2:
                self._by_last[parts[-1]].add(name)

    def resolve(self, name: str) -> str:
        full = self._by_last.get(name, set()) if " " not in name else set()
        return next(iter(full)) if len(full) == 1 else name


def _with_conj(token: Any) -> list[Any]:
    out = [token]
    for child in token.children:
        if child.dep_ == "conj":
            out.extend(_with_conj(child))
    return out


def _subjects(verb: Any) -> list[Any]:
    found = [t for c in verb.children if c.dep_ in _SUBJECTS for t in _with_conj(c)]
    if not found and verb.dep_ == "conj" and verb.head.pos_ in ("VERB", "AUX") and verb.head is not verb:
        return _subjects(verb.head)
    return found


def _is_passive(verb: Any) -> bool:
    if any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children):
        return True
    return verb.dep_ == "conj" and not any(c.dep_ in _SUBJECTS for c in verb.children) and verb.head is not verb \
        and verb.head.pos_ in ("VERB", "AUX") and _is_passive(verb.head)


def _pobjs(prep: Any) -> list[Any]:
    return [t for c in prep.children if c.dep_ == "pobj" for t in _with_conj(c)]


def _objects(verb: Any, base: list[str], ent_of: dict[int, Any]) -> list[tuple[str, Any]]:
    """(predicate, object token) for the direct, complement and prepositional objects of ``verb``."""
    out: list[tuple[str, Any]] = []
    for child in verb.children:
        if child.dep_ in _OBJECTS:
            for obj in _with_conj(child):
                out.append((" ".join(base), obj))
                if obj.i in ent_of:
                    continue
                # a non-entity complement ("the CEO") carries prepositional objects ("of Apple")
                words = [w.text.lower() for w in obj.children if w.dep_ in ("compound", "amod") and w.i < obj.i]
                for prep in (c for c in obj.children if c.dep_ == "prep"):
                    out.extend(
                        (" ".join([*base, *words, obj.text.lower(), prep.text.lower()]), p) for p in _pobjs(prep)
                    )
        elif child.dep_ == "prep":
            out.extend((" ".join([*base, child.text.lower()]), p) for p in _pobjs(child))
    return out


def candidates(doc: Any) -> list[Candidate]:
    """Every entity-to-entity triple of a parsed text, in text order (see the module docstring)."""
    ent_of = {t.i: ent for ent in doc.ents for t in ent}
    out: list[Candidate] = []
    for verb in doc:
        if verb.pos_ not in ("VERB", "AUX") or verb.dep_ in ("aux", "auxpass"):
            continue
        subjects = _subjects(verb)
        if not subjects:
            continue
        base = [*(["not"] if any(c.dep_ == "neg" for c in verb.children) else []), verb.text.lower(),
                *(c.text.lower() for c in verb.children if c.dep_ == "prt")]
        pairs: list[tuple[Any, str, Any]] = []
        agents = [p for c in verb.children if c.dep_ == "agent" for p in _pobjs(c)]
        if _is_passive(verb) and agents:
            # active reading: the agent acts on the passive subject
            pairs += [(a, " ".join(base), s) for a in agents for s in subjects]
            pairs += [(a, pred, o) for a in agents for pred, o in _objects(verb, base, ent_of)]
        else:
            pairs += [(s, pred, o) for s in subjects for pred, o in _objects(verb, base, ent_of)]
        for subj, pred, obj in pairs:
            s_ent, o_ent = ent_of.get(subj.i), ent_of.get(obj.i)
            if s_ent is None or s_ent == o_ent:
                continue
            if o_ent is not None:
                out.append(Candidate(s_ent.text, s_ent.label_, pred, o_ent.text, o_ent.label_, verb.sent.text.strip()))
            elif obj.pos_ in ("NOUN", "PROPN", "NUM"):
                out.append(Candidate(s_ent.text, s_ent.label_, pred, _noun_phrase(obj), "", verb.sent.text.strip()))
    return out


def _noun_phrase(token: Any) -> str:
    """A common-noun object: its compounds, modifiers and numbers, then the noun ("net sales")."""
    mods = [c.text for c in token.children if c.dep_ in ("compound", "amod", "nummod", "poss") and c.i < token.i]
    return " ".join([*mods, token.text])


def person_names(cands: Sequence[Candidate], doc: Any | None = None) -> list[str]:
    """Normalised PERSON names of a text (all its entities when ``doc`` is given), for :class:`Aliases`."""
    names = [normalise(e.text) for e in doc.ents if e.label_ == "PERSON"] if doc is not None else []
    names += [normalise(c.subject) for c in cands if c.subject_type == "PERSON"]
    names += [normalise(c.object) for c in cands if c.object_type == "PERSON"]
    return list(dict.fromkeys(n for n in names if n))


OBJECTS = ("entities", "nouns")


def facts(cands: Sequence[Candidate], kept: Iterable[str] | None, aliases: Aliases, *,
          objects: str = "entities") -> list[Fact]:
    """The distinct normalised facts whose subject type is kept (``kept=None``: every type).

    ``objects="entities"`` (the paper's definition) keeps named-entity objects only;
    ``"nouns"`` also keeps common-noun objects ("Apple cut prices" -> (apple, cut, prices)).
    """
    allowed = None if kept is None else set(kept)
    out: dict[Fact, None] = {}
    for c in cands:
        if allowed is not None and c.subject_type not in allowed:
            continue
        if objects == "entities" and not c.object_type:
            continue
        s, o = normalise(c.subject), normalise(c.object)
        s = aliases.resolve(s) if c.subject_type == "PERSON" else s
        o = aliases.resolve(o) if c.object_type == "PERSON" else o
        if s and o and s != o:
            out.setdefault(Fact(s, c.predicate, o, c.subject_type, c.sentence), None)
    return list(out)


@dataclass(frozen=True)
class Reading:
    """What the metrics keep of one parsed text: its candidate triples, type bag and PERSON names."""

    candidates: tuple[Candidate, ...]
    type_bag: dict[str, int]
    person_names: tuple[str, ...]


def read_texts(texts: Sequence[str], memo: Memo | None = None) -> dict[str, Reading]:
    """``{text: Reading}``; a text read before in the same ``memo`` (one ``evaluate`` call's,
    :class:`rageval.types.Memo`) is not parsed again. Nothing is kept by the process."""
    distinct = list(dict.fromkeys(texts))

    def parse(indices: list[int]) -> list[Reading]:
        docs = entities.parse([distinct[i] for i in indices])
        out = []
        for i in indices:
            doc = docs[distinct[i]]
            cands = tuple(candidates(doc))
            out.append(Reading(cands, dict(entities.type_bag(doc)), tuple(person_names(cands, doc))))
        return out

    readings = (memo or Memo()).many([("aligncheck.reading", t) for t in distinct], parse)
    return dict(zip(distinct, readings))

