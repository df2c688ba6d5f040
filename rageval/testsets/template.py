"""The offline generator: one question per sentence that states a number, a date, a name or a
definition; the sentence is the reference and its chunk the relevant chunk. No model, no key.

It is a smoke test of the pipeline and of retrieval, not a substitute for a set written by an
LLM or a person: its questions echo their sentence (``The first line opened in what year between
Tokyo and Osaka?``), so retrieval finds them more easily than a real user's question.

What a sentence offers (its kind is ``template:<what>``):

- ``date``: a date or a year found by :func:`rageval.text.numbers.quantities` (English and
  Italian) -> the span (with a preposition before it) becomes ``when`` / ``quando``;
- ``number``: any other quantity (amounts, percentages, durations, lengths ...) -> the number
  becomes ``how many`` / ``how much`` / ``what percentage`` (``quanti``/``quante``, ``quanto``,
  ``quale percentuale``), its unit kept;
- ``name`` (English only: the shared spaCy pipeline of :mod:`rageval.aligncheck.entities` has no
  Italian model offline): a PERSON, ORG, GPE, LOC or FAC entity -> ``who`` / ``whom`` / ``which
  organisation`` / ``which place``, moved to the front when it opens the sentence;
- ``definition``: ``X is a/an/the ...`` (``X è un/una/il ...``), X at most 6 words -> ``What is X?``
  (``Che cos'è X?``).

Sentences of 6-60 words are read (no table rows); one option per sentence: a definition first,
then a number or a date, then a name (an entity next to a capitalised word or after an article is
taken for part of a longer name and skipped), drawn among equals with the seeded generator, so the same corpus, seed and size give the same questions. Chunks are visited in a
seeded shuffled order, one sentence from each chunk per round, so the questions spread over the
corpus before any chunk gives a second one.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any, Sequence

from rageval.testsets.items import Candidate
from rageval.text.lang import guess_language
from rageval.text.numbers import MONTHS, quantities
from rageval.text.sentences import split_sentences

MIN_WORDS, MAX_WORDS = 6, 60
#: sentences read per candidate wanted (most sentences offer nothing)
SENTENCES_PER_CANDIDATE = 4
NAME_LABELS = {"PERSON": ("Who", "who"), "ORG": ("Which organisation", "which organisation"),
               "GPE": ("Which place", "which place"), "LOC": ("Which place", "which place"),
               "FAC": ("Which place", "which place")}
_PREPOSITIONS_EN = frozenset("by to with for of from about against between among".split())
_DATE_DROP = {"en": frozenset("in on at during".split()), "it": frozenset("nel il in a al del l'".split())}
_DEFINITION = {
    "en": re.compile(r"^(?P<term>(?:The |An? )?[A-Z][\w'\u2019\- ]{1,60}?)\s+(?P<verb>is|are|was|were)\s+"
                     r"(?:a|an|the|one of)\s+\w"),
    "it": re.compile(r"^(?P<term>[A-Z\u00C0-\u00DE][\w'\u2019\- ]{1,60}?)\s+(?P<verb>è|sono|era|erano)\s+"
                     r"(?:un|una|uno|il|lo|la|i|gli|le|l['\u2019])\s*\w"),
}
#: a definition first, then a number or a date, then a name (spaCy's small model mislabels names often)
_PREFERENCE = {"definition": 0, "date": 1, "number": 1, "name": 2}
_NUMBER_TOKEN = re.compile(r"[\d.,\u00a0\u202f]+|[^\W\d_]+(?:-[^\W\d_]+)?")


def _clean(question: str) -> str:
    q = re.sub(r"\s+", " ", question).strip().rstrip(" .;:!?,")
    return (q[:1].upper() + q[1:] + "?") if q else ""


def _echo(sentence: str, start: int, end: int, phrase: str, *, drop_before: frozenset = frozenset()) -> str:
    """``sentence`` with ``[start, end)`` replaced by ``phrase`` (and the word before it when it
    is in ``drop_before``); at the sentence's start the phrase opens the question."""
    before, after = sentence[:start].rstrip(), sentence[end:]
    last = re.search(r"(\S+)$", before)
    if last and last.group(1).lower() in drop_before:
        before = before[:last.start()].rstrip()
    return _clean(f"{before} {phrase}{after}")


def _date_question(sentence: str, q: Any, language: str) -> str:
    if language == "it":
        before = sentence[:q.start].rstrip().lower()
        if re.search(r"\b(?:dal|dalla|da)$", before):
            return _echo(sentence, q.start, q.end, "da quando", drop_before=frozenset({"dal", "dalla", "da"}))
        return _echo(sentence, q.start, q.end, "quando", drop_before=_DATE_DROP["it"])
    return _echo(sentence, q.start, q.end, "when", drop_before=_DATE_DROP["en"])


def _number_question(sentence: str, q: Any, language: str) -> str:
    italian = language == "it"
    if q.kind == "money":
        return _echo(sentence, q.start, q.end, "quanto" if italian else "how much")
    if q.kind == "percent":
        return _echo(sentence, q.start, q.end, "quale percentuale" if italian else "what percentage")
    span = sentence[q.start:q.end]
    token = _NUMBER_TOKEN.match(span)
    rest = span[token.end():] if token else ""
    if italian:
        counted = re.match(r"\s*(\w+)", rest or sentence[q.end:])
        phrase = "quante" if counted and counted.group(1).lower().endswith("e") else "quanti"
    else:
        phrase = "how many"
    return _echo(sentence, q.start, q.end, phrase + rest)


def _name_question(sentence: str, ent: Any) -> str:
    opening, inner = NAME_LABELS[ent.label_]
    if ent.start_char == 0:
        return _clean(f"{opening}{sentence[ent.end_char:]}")
    prev = re.search(r"(\S+)\s*$", sentence[:ent.start_char])
    if inner == "who" and prev and prev.group(1).lower() in _PREPOSITIONS_EN:
        inner = "whom"
    return _echo(sentence, ent.start_char, ent.end_char, inner)


def _definition_question(sentence: str, language: str) -> str | None:
    m = _DEFINITION[language if language in _DEFINITION else "en"].match(sentence)
    if not m or len(m.group("term").split()) > 6 or any(ch.isdigit() for ch in m.group("term")):
        return None
    term, verb = m.group("term").strip(), m.group("verb")
    if term.split()[0] in ("The", "A", "An", "Il", "Lo", "La", "I", "Gli", "Le", "Un", "Una", "Uno") \
            or term.startswith(("L'", "L\u2019")):
        term = term[0].lower() + term[1:]
    if language == "it":
        return _clean(f"Che cos'è {term}" if verb in ("è", "era") else f"Che cosa sono {term}")
    return _clean(f"What {verb} {term}")


def _whole_name(sentence: str, ent: Any) -> bool:
    """False when the entity looks like part of a longer name or title ("the Tokaido [Shinkansen]",
    "[Camellia] Sinensis"): a capitalised word or an article right before or after it."""
    prev = re.search(r"(\S+)\s+$", sentence[:ent.start_char])
    nxt = re.match(r"\s+(\w+)", sentence[ent.end_char:])
    if prev and (prev.group(1)[:1].isupper() or prev.group(1).lower() in ("the", "a", "an")):
        return False
    return not (nxt and nxt.group(1)[:1].isupper())


def _plain_number(sentence: str, q: Any) -> bool:
    """False for a bare number word ("a major one in 1669": mostly a pronoun or an article), a day
    before a month with no year ("by 31 March"), a version or a code ("3.x", "70-denier")."""
    after = sentence[q.end:]
    if not any(ch.isdigit() for ch in sentence[q.start:q.end]) or re.match(r"[.\-/]\w", after):
        return False
    month = re.match(r"\s+(\w+)", after)
    return not (month and month.group(1).lower() in MONTHS)


def options(sentence: str, language: str, doc: Any = None) -> list[tuple[str, str]]:
    """``(what, question)`` for each question the sentence offers (module doc), in a fixed order."""
    out: list[tuple[str, str]] = []
    definition = _definition_question(sentence, language)
    if definition:
        out.append(("definition", definition))
    found = quantities(sentence, language)
    for q in found:
        if q.kind == "number" and not _plain_number(sentence, q):
            continue
        if q.kind in ("date", "year"):
            out.append(("date", _date_question(sentence, q, language)))
        else:
            out.append(("number", _number_question(sentence, q, language)))
    if doc is not None:
        for ent in doc.ents:
            if ent.label_ in NAME_LABELS and _whole_name(sentence, ent) and not any(
                    q.start < ent.end_char and ent.start_char < q.end for q in found):
                out.append(("name", _name_question(sentence, ent)))
    return [(what, q) for what, q in out if q]


def _readable(sentence: str) -> bool:
    """A plain prose sentence: 6-60 words, ending with . ! or ?, one sentence (no ". Next" inside),
    no markup (``|``, ``**``, ``#``), no ``Field:`` opening, not mostly capitals (a heading)."""
    n = len(sentence.split())
    letters = [ch for ch in sentence if ch.isalpha()]
    return (MIN_WORDS <= n <= MAX_WORDS and re.search(r"[.!?][\"')\u201d\u2019]*$", sentence.rstrip()) is not None
            and not re.search(r"\||\*\*|#|^\W*\w+(?:\s\w+)?:\s|[.!?]\s+[A-Z]", sentence)
            and sum(ch.isupper() for ch in letters) <= 0.3 * max(len(letters), 1))


def sentence_order(chunks: Sequence[dict[str, Any]], rng: random.Random, limit: int) -> list[tuple[int, int, str]]:
    """``(chunk index, sentence index, sentence)`` for at most ``limit`` readable sentences: chunks
    in a shuffled order, one sentence of each per round (module doc)."""
    order = list(range(len(chunks)))
    rng.shuffle(order)
    per_chunk = {}
    for ci in order:
        sentences = [(si, s.text) for si, s in enumerate(split_sentences(chunks[ci]["text"])) if _readable(s.text)]
        rng.shuffle(sentences)
        per_chunk[ci] = sentences
    out: list[tuple[int, int, str]] = []
    depth = 0
    while len(out) < limit and any(len(v) > depth for v in per_chunk.values()):
        for ci in order:
            if depth < len(per_chunk[ci]) and len(out) < limit:
                si, text = per_chunk[ci][depth]
                out.append((ci, si, text))
        depth += 1
    return out


@dataclass(frozen=True)
class Pool:
    """The template candidates of a corpus, the sentences read for them and how many of those
    offered no question."""

    candidates: list[Candidate]
    sentences_read: int
    offered_nothing: int


def template_candidates(chunks: Sequence[dict[str, Any]], *, want: int, seed: int = 0,
                        language: str | None = None) -> list[Candidate]:
    """Up to ``want`` candidates (fewer when the corpus offers fewer) from ``chunks`` (dicts with
    ``id`` and ``text``), in plan order; ``language`` None guesses it per chunk."""
    return template_pool(chunks, want=want, seed=seed, language=language).candidates


def template_pool(chunks: Sequence[dict[str, Any]], *, want: int, seed: int = 0,
                  language: str | None = None) -> Pool:
    """:func:`template_candidates` with the counts of sentences read and offering nothing."""
    rng = random.Random(seed)
    picked = sentence_order(chunks, rng, SENTENCES_PER_CANDIDATE * want)
    langs = {ci: language or guess_language(chunks[ci]["text"]) for ci, _, _ in picked}
    english = [text for ci, _, text in picked if langs[ci] == "en"]
    docs: dict[str, Any] = {}
    if english:
        from rageval.aligncheck.entities import parse

        docs = parse(english)
    out: list[Candidate] = []
    read = nothing = 0
    for ci, si, sentence in picked:
        lang = langs[ci]
        offered = options(sentence, lang, docs.get(sentence) if lang == "en" else None)
        read += 1
        if not offered:
            nothing += 1
            continue
        best = min(_PREFERENCE[what] for what, _ in offered)
        offered = [o for o in offered if _PREFERENCE[o[0]] == best]
        what, question = offered[rng.randrange(len(offered))]
        chunk_id = chunks[ci]["id"]
        out.append(Candidate(id=f"t-{chunk_id[:12]}-{si}", question=question, reference=sentence,
                             kind=f"template:{what}", chunk_ids=(chunk_id,), source_chunks=(chunk_id,),
                             sentences=(sentence,), extra={"language": lang}))
        if len(out) >= want:
            break
    return Pool(out, read, nothing)
