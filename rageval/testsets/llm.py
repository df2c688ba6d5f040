"""The LLM generator: a plan of question slots over the corpus, one ``generator`` call per slot.

Plan (:func:`plan`). Slot ``i`` has kind ``kinds[i % len(kinds)]`` and the ``i``-th chunk of a
seeded shuffled order of the corpus's chunks (chunks under ``MIN_CHUNK_WORDS`` words skipped);
a ``numeric`` slot moves on to the next chunk in that order that states a quantity
(:func:`rageval.text.numbers.quantities`); a ``multi_hop`` slot pairs its chunk with a partner
(:func:`multi_hop_partners`): of the other chunks that share a named entity with it (spaCy,
English chunks only), the one whose vector has the highest cosine with it; when none shares one
(or spaCy is not installed), its nearest neighbour by cosine (same embedder as retrieval; a chunk
with identical text is never a partner). A slot depends only on ``i`` and the
seed, so asking for more slots extends the plan and an unchanged re-run sends the same requests,
which the LLM cache answers (zero calls).

A call renders ``rageval/prompts/testset_<kind>.txt`` with the slot's chunks as numbered passages
and the language's name; the reply must validate as :class:`rageval.prompts.schemas.GeneratedQA`
(``question``, ``answer``, ``sentences``), re-asked once when it does not (the LLM layer's strict
JSON parsing). Each quoted sentence is located in the passages and replaced by the whole sentence
that holds it (a quote not found is kept as written). The reference is the model's answer; an
``unanswerable`` question's reference is :data:`~rageval.testsets.items.NOT_IN_DOCUMENTS` and it
has no relevant chunk (its chunk is kept as its source).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from rageval.claims.judge import evidence_of
from rageval.judge.ask import numbered
from rageval.prompts import prompt_hash, prompt_text, render, reply_model
from rageval.testsets.items import KINDS, NOT_IN_DOCUMENTS, Candidate
from rageval.text.lang import guess_language
from rageval.text.numbers import quantities

LANGUAGE_NAMES = {"en": "English", "it": "Italian"}
MIN_CHUNK_WORDS = 25
PASSAGE_CHARS = 4000
#: tokens a generator reply is assumed to take, for the estimate
REPLY_TOKENS = 150


@dataclass(frozen=True)
class Slot:
    """One question to ask: its index in the plan, kind and chunk indices (two for multi-hop)."""

    index: int
    kind: str
    chunks: tuple[int, ...]


def prompt_names(kinds: Sequence[str]) -> list[str]:
    return [f"testset_{k}" for k in kinds]


def prompts_signature(kinds: Sequence[str]) -> str:
    """The hash of the prompt files (and reply schemas) of ``kinds``: what a generated set records."""
    return prompt_hash(*prompt_names(kinds))


#: spaCy entity labels that name something (numbers, dates and amounts are not shared subjects)
NAMED_LABELS = frozenset({"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW"})
#: an entity named in more than this share of the chunks (of at least 4) links nothing: skipped
COMMON_ENTITY_SHARE = 0.5


def nearest_neighbours(vectors: np.ndarray, texts: Sequence[str],
                       entities: Sequence[frozenset[str]] | None = None) -> list[int]:
    """For each row, the index of the other row with the highest cosine (rows are unit vectors),
    among the rows that share an entity with it when ``entities`` gives one such row; rows with the
    same text are never each other's neighbour; -1 when there is no other row."""
    rows = np.asarray(vectors, dtype=np.float32)
    sims = rows @ rows.T
    if entities is not None:
        # a cosine is at most 1: a bonus of 3 ranks every entity-sharing row above every other
        sims = sims + 3.0 * np.array([[bool(a & b) for b in entities] for a in entities], dtype=np.float32)
    first = {}
    ids = np.array([first.setdefault(t, len(first)) for t in texts])
    sims[ids[:, None] == ids[None, :]] = -np.inf
    return [int(np.argmax(row)) if np.isfinite(row).any() else -1 for row in sims]


def chunk_entities(texts: Sequence[str]) -> list[frozenset[str]] | None:
    """Each text's named entities (:data:`NAMED_LABELS`, lower-cased, a leading "the" dropped), by the
    shared spaCy pipeline; empty for a text not guessed English (the pipeline is English only);
    entities in more than :data:`COMMON_ENTITY_SHARE` of 4 or more texts dropped. None when spaCy
    or its pipeline is not installed."""
    from rageval.aligncheck.entities import parse
    from rageval.errors import ConfigError

    english = [t for t in texts if guess_language(t[:4000]) == "en"]
    try:
        docs = parse(english) if english else {}
    except ConfigError:
        return None
    found = [frozenset(" ".join(e.text.lower().removeprefix("the ").split()) for e in docs[t].ents
                       if e.label_ in NAMED_LABELS) if t in docs else frozenset() for t in texts]
    counts: dict[str, int] = {}
    for names in found:
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    common = {n for n, c in counts.items() if len(texts) >= 4 and c > COMMON_ENTITY_SHARE * len(texts)}
    return [names - common for names in found]


def multi_hop_partners(vectors: np.ndarray, texts: Sequence[str]) -> list[int]:
    """Each chunk's multi-hop partner (module doc): :func:`nearest_neighbours` with the chunks'
    shared named entities (:func:`chunk_entities`) preferred."""
    return nearest_neighbours(vectors, texts, chunk_entities(texts))


class Planner:
    """The slot plan of one corpus, kinds and seed (module doc)."""

    def __init__(self, chunks: Sequence[dict[str, Any]], kinds: Sequence[str], *, seed: int = 0,
                 neighbours: Sequence[int] | None = None):
        unknown = [k for k in kinds if k not in KINDS]
        if unknown or not kinds:
            raise ValueError(f"unknown kind(s) {unknown}; choose from {', '.join(KINDS)}")
        self.kinds = tuple(kinds)
        self.chunks = chunks
        usable = [i for i, c in enumerate(chunks) if len(c["text"].split()) >= MIN_CHUNK_WORDS]
        order = usable or list(range(len(chunks)))
        random.Random(seed).shuffle(order)
        self.order = order
        self.neighbours = neighbours
        self._numeric = [bool(quantities(chunks[i]["text"])) for i in order] if "numeric" in kinds else []

    def slot(self, i: int) -> Slot:
        kind = self.kinds[i % len(self.kinds)]
        at = i % len(self.order)
        if kind == "numeric" and any(self._numeric):
            while not self._numeric[at]:
                at = (at + 1) % len(self.order)
        first = self.order[at]
        if kind == "multi_hop" and self.neighbours is not None and self.neighbours[first] >= 0:
            return Slot(i, kind, (first, self.neighbours[first]))
        return Slot(i, kind, (first,))

    def slots(self, start: int, count: int) -> list[Slot]:
        return [self.slot(i) for i in range(start, start + count)]


def language_of(texts: Sequence[str], language: str | None) -> str:
    """``language`` when given, else the guess from the texts (English when not Italian)."""
    if language:
        return language
    guess = guess_language(" ".join(texts)[:4000])
    return guess if guess in LANGUAGE_NAMES else "en"


def ask_slot(llm: Any, slot: Slot, chunks: Sequence[dict[str, Any]], language: str | None) -> Candidate:
    """One generator call for ``slot`` -> a Candidate (dropped ``llm_error`` / ``no_question`` when
    the call failed or never gave a usable reply)."""
    texts = [chunks[i]["text"] for i in slot.chunks]
    ids = tuple(chunks[i]["id"] for i in slot.chunks)
    lang = language_of(texts, language)
    name = f"testset_{slot.kind}"
    content = render(name, language=LANGUAGE_NAMES.get(lang, lang), passages=numbered(texts, width=PASSAGE_CHARS))
    reply = llm.chat_json("generator", [{"role": "user", "content": content}], schema=reply_model(name))
    base = dict(id=f"g{slot.index:04d}", kind=slot.kind, source_chunks=ids, extra={"language": lang})
    if reply.status != "ok":
        reason = "llm_error" if reply.status == "failed" else "no_question"
        return Candidate(question="", reference="", chunk_ids=ids, dropped=reason, detail=reply.reason or "", **base)
    value = reply.value
    sentences = []
    for quote in value.sentences:
        _, evidence, _, _ = evidence_of(quote, texts, None)
        if evidence and evidence not in sentences:
            sentences.append(evidence)
    if slot.kind == "unanswerable":
        return Candidate(question=value.question, reference=NOT_IN_DOCUMENTS.get(lang, NOT_IN_DOCUMENTS["en"]),
                         chunk_ids=(), sentences=tuple(sentences), **base)
    return Candidate(question=value.question, reference=value.answer, chunk_ids=ids, sentences=tuple(sentences),
                     **base)


def prompt_tokens(slot: Slot, chunks: Sequence[dict[str, Any]]) -> int:
    """``ceil(characters / 4)`` of the slot's prompt before its call (the estimate's rule)."""
    chars = len(prompt_text(f"testset_{slot.kind}")) + sum(min(len(chunks[i]["text"]), PASSAGE_CHARS) + 6
                                                           for i in slot.chunks)
    return math.ceil(chars / 4)
