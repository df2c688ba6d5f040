"""The critic: a generated question is kept only when it stands alone, has content and does not
answer itself, its reference is usable (not empty, boilerplate or garbled:
:mod:`rageval.testsets.content`) and supported by its chunks, and it is not a near duplicate of a
question already kept.

Stands alone (:func:`standalone_problem`): no phrase that points at a passage the reader of a QA
set never sees (``according to the text``, ``in this passage``, ``the author``, ``secondo il
testo``, ``nel brano`` ...: :data:`POINTERS`), no demonstrative (``this``, ``these``, ``those``:
:data:`DEMONSTRATIVE`), at least ``MIN_WORDS`` words, and, for a question
copied from a sentence (``from_sentence``), a sentence that does not open on a pronoun or a
demonstrative (``It``, ``This``, ``They``, ``Esso`` ...), whose antecedent was in the sentence before.

Supported (:func:`check_support`): offline, the reference is copied from one of its chunks
(:func:`rageval.claims.containment.contained`: verbatim up to case, quotes, dashes and spaces, in
one or two adjacent sentences, not under a negation or an "if"); anything else is not proven and
is dropped. With an LLM judge, each sentence of the reference is a claim the judge verifies
against the chunks (:func:`rageval.claims.judge.verify`, the claim_verify prompt); kept only when
every claim is SUPPORTED. A copied reference needs no call. ``unanswerable`` questions have no
supporting chunk by design and are not checked here.

Near duplicate (:func:`near_duplicate`): cosine similarity of the two questions' sentence vectors
(:func:`rageval.embed.sentences.sentence_vectors`, unit MiniLM vectors by default) at least
``DUPLICATE_COSINE`` = 0.90, a fixed threshold (not tuned on any set): on MiniLM, rewordings of one
question typically score above 0.9 and two questions about different facts of one passage below it.
Candidates are checked in their plan order, so the first of two duplicates is kept.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Sequence

import numpy as np

from rageval.claims.containment import contained
from rageval.embed.sentences import sentence_vectors
from rageval.testsets.content import question_problem, reference_problem
from rageval.testsets.items import Candidate
from rageval.text.sentences import split_sentences

DUPLICATE_COSINE = 0.90
MIN_WORDS = 3
POINTERS = re.compile(
    r"\b(?:according to|as (?:stated|described|mentioned|shown) in|based on|in|from|per)\s+the\s+"
    r"(?:passage|text|document|context|excerpt|article|story|extract|paragraph|above|section|chunk)s?\b"
    r"|\b(?:this|that|the given|the above|the following)\s+(?:passage|text|document|context|excerpt|"
    r"article|story|extract|paragraph|section|chunk)s?\b"
    r"|\bthe (?:passage|excerpt|extract|context|text)s?\b(?! of)"
    r"|\bthe (?:author|narrator|writer)\b|\bmentioned above\b|\babove-mentioned\b"
    r"|\b(?:secondo|in base a|stando a)\s+(?:il|lo|la|l'|questo|questa)\s*(?:testo|brano|passaggio|documento|"
    r"estratto|articolo|paragrafo|contesto)\b"
    r"|\b(?:nel|nello|nella|questo|questa|del|dal)\s+(?:testo|brano|passaggio|documento|estratto|paragrafo|"
    r"contesto)\b|\bl'autore\b",
    re.IGNORECASE)
#: "this specification", "if this is greater": a thing named only by pointing at the passage
DEMONSTRATIVE = re.compile(r"\b(?:this|these|those|questo|questa|questi|queste)\b", re.IGNORECASE)
#: words that, opening a sentence, point back to the sentence before it
OPENING_POINTERS = frozenset(
    """it its this that these those he she they them his her their there such
    esso essa essi esse questo questa questi queste quello quella lui lei loro ciò tale tali""".split())


def standalone_problem(question: str, *, source_sentence: str | None = None) -> str | None:
    """Why ``question`` does not stand alone (a short reason), or None when it does (module doc)."""
    if len(question.split()) < MIN_WORDS:
        return f"fewer than {MIN_WORDS} words"
    found = POINTERS.search(question)
    if found:
        return f"points at a passage: {found.group(0)!r}"
    found = DEMONSTRATIVE.search(question)
    if found:
        return f"{found.group(0)!r} points at something the reader has not seen"
    if source_sentence is not None:
        first = re.match(r"\W*(\w+)", source_sentence)
        if first and first.group(1).lower() in OPENING_POINTERS:
            return f"its sentence opens on {first.group(1)!r}, which needs the sentence before"
    return None


def near_duplicate(vectors: np.ndarray, kept: Sequence[int], i: int,
                   threshold: float = DUPLICATE_COSINE) -> tuple[int, float] | None:
    """``(j, cosine)`` of the kept question most similar to question ``i`` when at least
    ``threshold`` (rows of ``vectors`` are unit vectors), else None."""
    if not kept:
        return None
    sims = vectors[list(kept)] @ vectors[i]
    best = int(np.argmax(sims))
    return (kept[best], float(sims[best])) if sims[best] >= threshold else None


def contained_reference(reference: str, chunks: Sequence[str]) -> bool:
    """True when every sentence of ``reference`` is copied from ``chunks`` (containment)."""
    parts = [s.text for s in split_sentences(reference)] or [reference]
    return all(contained(p, chunks) is not None for p in parts)


def check_support(candidates: Sequence[Candidate], chunk_text: dict[str, str], *, llm: Any = None
                  ) -> list[tuple[bool, str]]:
    """``(supported, how)`` per candidate: ``how`` is ``contained``, ``judge``, or why not (module doc).

    ``llm`` (an LLM client with a judge role) verifies the references that are not copied; without
    it they are not supported. An ``unanswerable`` candidate gives ``(True, "not checked")``.
    """
    out: list[tuple[bool, str] | None] = []
    jobs, where = [], []
    for i, c in enumerate(candidates):
        texts = [chunk_text[cid] for cid in c.chunk_ids if cid in chunk_text]
        if c.kind == "unanswerable":
            out.append((True, "not checked (unanswerable)"))
        elif not texts:
            out.append((False, "no chunk text"))
        elif contained_reference(c.reference, texts):
            out.append((True, "contained"))
        elif llm is None:
            out.append((False, "not copied from its chunks, and no LLM judge to verify it"))
        else:
            out.append(None)
            claims = [s.text for s in split_sentences(c.reference)] or [c.reference]
            jobs.append((claims, texts))
            where.append(i)
    if jobs:
        from rageval.claims.judge import Failure, verify

        for i, got in zip(where, verify(llm, jobs)):
            if isinstance(got, Failure):
                out[i] = (False, f"judge failed: {got.reason}")
            else:
                bad = [v.label for v in got if v.label != "SUPPORTED"]
                out[i] = (not bad, "judge" if not bad else f"judge: {', '.join(bad)}")
    return [o for o in out if o is not None]


def first_problem(c: Candidate) -> Candidate:
    """``c`` dropped for the first reason a reader would reject it without its chunks, in this
    order: ``not_standalone``, ``content_free``, ``self_answering``, then (not for ``unanswerable``)
    ``empty_reference``, ``garbled_reference``, ``boilerplate_reference``
    (:mod:`rageval.testsets.content`); else ``c`` unchanged."""
    template = c.kind.startswith("template:")
    source = c.sentences[0] if template and c.sentences else None
    problem = standalone_problem(c.question, source_sentence=source)
    if problem:
        return c.drop("not_standalone", problem)
    found = question_problem(c.question, None if template or c.kind == "unanswerable" else c.reference)
    if found is None and c.kind != "unanswerable":
        found = reference_problem(c.reference)
    return c.drop(*found) if found else c


def review(candidates: Sequence[Candidate], chunk_text: dict[str, str], embedder: Any, *, want: int,
           llm: Any = None, threshold: float = DUPLICATE_COSINE, kept: Sequence[Candidate] = ()
           ) -> list[Candidate]:
    """Every candidate, in order, with ``dropped`` set where the critic drops it, until ``want``
    are kept (counting ``kept``, questions kept before); the ones after that are not returned.

    Order of the checks: a candidate already dropped by the generator stays dropped; then
    :func:`first_problem` (stands alone, has content, does not answer itself, a usable reference),
    supported, not a near duplicate of a kept question (this call's or ``kept``).
    """
    alone = [c if c.dropped else first_problem(c) for c in candidates]
    pending = [c for c in alone if not c.dropped]
    verdicts = dict(zip((c.id for c in pending), check_support(pending, chunk_text, llm=llm)))
    questions = [c.question for c in kept] + [c.question for c in alone]
    vectors = sentence_vectors(embedder, questions) if questions else np.zeros((0, 1))
    taken = list(range(len(kept)))
    out: list[Candidate] = []
    for n, c in enumerate(alone):
        if len(taken) >= want:
            break
        if not c.dropped:
            ok, how = verdicts[c.id]
            if not ok:
                c = c.drop("unsupported", how)
            else:
                dup = near_duplicate(vectors, taken, len(kept) + n, threshold)
                if dup is not None:
                    c = c.drop("near_duplicate", f"cosine {dup[1]:.3f} with {questions[dup[0]]!r}")
                else:
                    taken.append(len(kept) + n)
                    c = replace(c, detail=how)
        out.append(c)
    return out
