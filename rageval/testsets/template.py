"""The offline generator: questions a person would ask of the sentences that state a date, a
number, a name or a definition; the sentence is the reference and its chunk the relevant chunk.
No model, no key. Its questions stay close to their sentence's words, so retrieval finds them more
easily than a real user's question: a test of the pipeline, not a substitute for a set written by
an LLM or a person.

English (the shared spaCy pipeline of :mod:`rageval.aligncheck.entities`): a slot fires only where
it is sure (:mod:`rageval.testsets.slots`: a date, a whole number counting a noun, a name whose
type matches its question word) and the question is made by moving the question word to the
front (:func:`rageval.testsets.questions.wh_question`): ``When did the first line open between
Tokyo and Osaka?``, ``By which organisation is the zstd port in vcpkg kept up to date?``.
``definition``: ``X is a/an/the/Y's ...``, X at most 6 words -> ``What is X?``. A question that
names nothing (no capitalised word, no name with digits) gets its document's title
(:func:`document_titles`): ``What is the glob file in Shared MIME-info Database?``.

Italian (no parser offline): dates, numbers and definitions, the question word put in the place
of its phrase (``Il rimborso è previsto entro quanti giorni per tutti i clienti?``; ``Che cos'è
la garanzia?``); no name questions.

Sentences read: prose of 6-60 words (no table rows, markup, code, links) that is not boilerplate
(:mod:`rageval.testsets.boilerplate`: licence notices, addresses, tables of contents); one
question per sentence: a definition first, then a number or a date, then a name, drawn among
equals with the seeded generator, so the same corpus, seed and size give the same questions.
Chunks are visited in a seeded shuffled order, one sentence from each chunk per round, so the
questions spread over the corpus before any chunk gives a second one. A sentence that offers no
sure question is counted (:attr:`Pool.offered_nothing`), never forced.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any, Sequence

from rageval.testsets.boilerplate import boilerplate_reason
from rageval.testsets.items import Candidate
from rageval.testsets.questions import MAX_WORDS as MAX_QUESTION_WORDS, wh_question
from rageval.testsets.slots import WHAT_PREPOSITIONS, date_slots, name_slots, number_slots, object_slots
from rageval.text.lang import guess_language
from rageval.text.numbers import MONTHS, quantities
from rageval.text.sentences import split_sentences

MIN_WORDS, MAX_WORDS = 6, 60
#: sentences read per candidate wanted (most sentences offer no sure question)
SENTENCES_PER_CANDIDATE = 10
_DATE_DROP_IT = frozenset("nel il in a al del l'".split())
_DEFINITION = {
    "en": re.compile(r"^(?P<term>(?:The |An? )?[A-Z][\w'\u2019\- ]{1,60}?)\s+(?P<verb>is|are|was|were)\s+"
                     r"(?:a|an|the|one of|[A-Z]\w+['\u2019]s)\s+\w"),
    "it": re.compile(r"^(?P<term>[A-Z\u00C0-\u00DE][\w'\u2019\- ]{1,60}?)\s+(?P<verb>è|sono|era|erano)\s+"
                     r"(?:un|una|uno|il|lo|la|i|gli|le|l['\u2019])\s*\w"),
}
#: a definition first, then a number or a date, then a name (spaCy's small model mislabels names
#: often), then the main verb's object
_PREFERENCE = {"definition": 0, "date": 1, "number": 1, "name": 2, "object": 3}
_NUMBER_TOKEN = re.compile(r"[\d.,\u00a0\u202f]+|[^\W\d_]+(?:-[^\W\d_]+)?")
#: first lines that are no title
_NO_TITLE = frozenset("introduction overview readme contents abstract summary preface table of contents".split())


def _clean(question: str) -> str:
    q = re.sub(r"\s+", " ", question).strip().rstrip(" .;:!?,")
    return (q[:1].upper() + q[1:] + "?") if q else ""


def _echo(sentence: str, start: int, end: int, phrase: str, *, drop_before: frozenset = frozenset()) -> str:
    """``sentence`` with ``[start, end)`` replaced by ``phrase`` (and the word before it when it
    is in ``drop_before``): the Italian questions (no parser to move the phrase to the front)."""
    before, after = sentence[:start].rstrip(), sentence[end:]
    last = re.search(r"(\S+)$", before)
    if last and last.group(1).lower() in drop_before:
        before = before[:last.start()].rstrip()
    return _clean(f"{before} {phrase}{after}")


def _italian_date(sentence: str, q: Any) -> str:
    before = sentence[:q.start].rstrip().lower()
    if re.search(r"\b(?:dal|dalla|da)$", before):
        return _echo(sentence, q.start, q.end, "da quando", drop_before=frozenset({"dal", "dalla", "da"}))
    return _echo(sentence, q.start, q.end, "quando", drop_before=_DATE_DROP_IT)


def _italian_number(sentence: str, q: Any) -> str:
    if q.kind == "money":
        return _echo(sentence, q.start, q.end, "quanto")
    if q.kind == "percent":
        return _echo(sentence, q.start, q.end, "quale percentuale")
    span = sentence[q.start:q.end]
    token = _NUMBER_TOKEN.match(span)
    rest = span[token.end():] if token else ""
    counted = re.match(r"\s*(\w+)", rest or sentence[q.end:])
    phrase = "quante" if counted and counted.group(1).lower().endswith("e") else "quanti"
    return _echo(sentence, q.start, q.end, phrase + rest)


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


def _plain_number(sentence: str, q: Any) -> bool:
    """False for a bare number word, a day before a month with no year ("31 marzo"), a version or a code."""
    after = sentence[q.end:]
    if not any(ch.isdigit() for ch in sentence[q.start:q.end]) or re.match(r"[.\-/]\w", after):
        return False
    month = re.match(r"\s+(\w+)", after)
    return not (month and month.group(1).lower() in MONTHS)


def names_something(text: str) -> bool:
    """True when a word of ``text`` after its first names something: a capital letter in it, or
    letters mixed with digits (``httplib2``)."""
    return any(re.search(r"[A-Z]|[a-z]\d|\d[a-z]", w) for w in text.split()[1:])


def with_subject(question: str, named: bool, title: str | None) -> str:
    """``question`` with ``in TITLE`` before its question mark when its subject is not ``named``
    and the result stays within the question length limit."""
    if not title or named or title.lower() in question.lower():
        return question
    stranded = question.rsplit(None, 1)[-1][:-1].lower() in WHAT_PREPOSITIONS
    longer = f"{question[:-1]}{',' if stranded else ''} in {title}?"
    return longer if len(longer.split()) <= MAX_QUESTION_WORDS else question


def options(sentence: str, language: str, doc: Any = None, title: str | None = None) -> list[tuple[str, str]]:
    """``(what, question)`` for each question the sentence offers (module doc), in a fixed order.
    English needs the sentence's spaCy ``doc`` for all but definitions."""
    out: list[tuple[str, str, bool]] = []
    definition = _definition_question(sentence, language)
    if definition:
        out.append(("definition", definition, names_something(definition)))
    if language == "it":
        for q in quantities(sentence, language):
            if q.kind in ("date", "year"):
                out.append(("date", _italian_date(sentence, q), True))
            elif q.kind != "number" or _plain_number(sentence, q):
                out.append(("number", _italian_number(sentence, q), True))
    elif doc is not None:
        for what, slots in (("date", date_slots(doc)), ("number", number_slots(doc)), ("name", name_slots(doc)),
                            ("object", object_slots(doc))):
            for start, end, wh, kind in slots:
                question = wh_question(doc, start, end, wh, kind=kind)
                if question:
                    out.append((what, question.text, question.named))
    return [(what, with_subject(q, named, title) if language != "it" else q) for what, q, named in out if q]


def _readable(sentence: str) -> bool:
    """A plain prose sentence: 6-60 words, ending with . ! or ?, one sentence (no ". Next" inside),
    no markup (``|``, ``**``, ``#``), no ``Field:`` opening, not mostly capitals (a heading), and
    no boilerplate, markup or code (:func:`rageval.testsets.boilerplate.boilerplate_reason`)."""
    n = len(sentence.split())
    letters = [ch for ch in sentence if ch.isalpha()]
    return (MIN_WORDS <= n <= MAX_WORDS and re.search(r"[.!?][\"')\u201d\u2019]*$", sentence.rstrip()) is not None
            and not re.search(r"\||\*\*|#|^\W*\w+(?:\s\w+)?:\s|[.!?]\s+[A-Z]", sentence)
            and sum(ch.isupper() for ch in letters) <= 0.3 * max(len(letters), 1)
            and boilerplate_reason(sentence) is None)


def document_titles(chunks: Sequence[dict[str, Any]]) -> dict[str, str]:
    """``{doc_id: title}``: the first line of a document's first chunk (markup stripped, cut at a
    dash or colon that opens a subtitle) when it has 1-8 words, is not boilerplate and is not a generic heading
    ("Introduction", "README"), else
    the document's name without extension, ``README`` or separators; chunks without ``doc_id`` give none."""
    titles: dict[str, str] = {}
    for c in sorted((c for c in chunks if c.get("doc_id")), key=lambda c: c.get("ordinal") or 0):
        if c["doc_id"] in titles:
            continue
        lines = [re.sub(r"[#*_`=<>\[\]]+", " ", ln).strip(" -:") for ln in c["text"].splitlines()]
        first = next((" ".join(ln.split()) for ln in lines if re.search(r"[A-Za-z]", ln)), "")
        # "defusedxml -- defusing ..." -> "defusedxml"
        first = re.split(r"\s(?:--|\u2013|\u2014)\s|:\s", first)[0].strip()
        if 1 <= len(first.split()) <= 8 and first.lower() not in _NO_TITLE and boilerplate_reason(first) is None:
            titles[c["doc_id"]] = first.rstrip(".")
        else:
            stem = re.sub(r"\.\w+$", "", str(c.get("doc_name") or ""))
            stem = re.sub(r"(?i)[-_ .]*readme[-_ .]*", " ", stem)
            titles[c["doc_id"]] = " ".join(re.sub(r"[-_]+", " ", stem).split()) or ""
    return {k: v for k, v in titles.items() if v}


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
    """The template candidates of a corpus, the sentences read for them, how many of those offered
    no question, and whether every readable sentence of the corpus was read (``exhausted``) rather
    than the reading stopping at ``SENTENCES_PER_CANDIDATE`` per candidate wanted."""

    candidates: list[Candidate]
    sentences_read: int
    offered_nothing: int
    exhausted: bool = False


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
    english = [" ".join(text.split()) for ci, _, text in picked if langs[ci] == "en"]
    docs: dict[str, Any] = {}
    if english:
        from rageval.aligncheck.entities import parse

        docs = parse(english)
    titles = document_titles(chunks)
    out: list[Candidate] = []
    read = nothing = 0
    for ci, si, sentence in picked:
        lang = langs[ci]
        flat = " ".join(sentence.split())  # a hard-wrapped sentence is asked about as one line
        offered = options(flat, lang, docs.get(flat) if lang == "en" else None,
                          titles.get(chunks[ci].get("doc_id") or ""))
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
    return Pool(out, read, nothing, exhausted=len(out) < want and len(picked) < SENTENCES_PER_CANDIDATE * want)
