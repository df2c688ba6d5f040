"""A generated question (:class:`Candidate`), the kinds, and how one becomes a stored QA item."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from rageval.config import TESTSET_KINDS as KINDS  # noqa: F401 (the LLM generator's kinds: prompt testset_<kind>.txt each)
from rageval.ingest.qa import STATUSES  # noqa: F401 (a reviewer's decision; runs use every item not dropped)

#: what a template question asks about (its kind is ``template:<what>``)
TEMPLATE_KINDS = ("number", "date", "name", "definition", "object")
#: the reference of an ``unanswerable`` question, per language
NOT_IN_DOCUMENTS = {"en": "The documents do not say.", "it": "I documenti non lo dicono."}

#: why the critic (or the generator) dropped a candidate; counted and shown
DROP_REASONS = {
    "not_standalone": "the question needs the passage to make sense (\"according to the text\", a bare pronoun)",
    "content_free": "the question has no content word beyond its question word",
    "self_answering": "the question already holds its answer",
    "empty_reference": "the reference says nothing (\"No content.\", \"N/A\")",
    "boilerplate_reference": "the reference is a licence notice, an address or a table of contents",
    "garbled_reference": "the reference holds mojibake or undecodable characters",
    "unsupported": "its reference is not supported by its chunks",
    "near_duplicate": "a near duplicate of a question already kept",
    "no_question": "the model gave no usable question (reply unparsable or empty)",
    "llm_error": "the model call failed",
}
#: how the shortfall message names each reason ("15 dropped as unsupported, 4 as near duplicates")
DROP_LABELS = {
    "not_standalone": "not standalone",
    "content_free": "content-free",
    "self_answering": "self-answering",
    "empty_reference": "empty references",
    "boilerplate_reference": "boilerplate references",
    "garbled_reference": "garbled references",
    "unsupported": "unsupported",
    "near_duplicate": "near duplicates",
    "no_question": "unusable replies",
    "llm_error": "failed model calls",
}


@dataclass(frozen=True)
class Candidate:
    """One generated question before (and after) the critic.

    ``chunk_ids`` are the chunks that hold the reference (empty for ``unanswerable``);
    ``source_chunks`` the chunks the question was written from (always set); ``sentences`` the
    source sentences; ``dropped`` the reason the critic dropped it (None: kept).
    """

    id: str
    question: str
    reference: str
    kind: str
    chunk_ids: tuple[str, ...]
    source_chunks: tuple[str, ...]
    sentences: tuple[str, ...] = ()
    dropped: str | None = None
    detail: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def drop(self, reason: str, detail: str = "") -> "Candidate":
        return replace(self, dropped=reason, detail=detail)


def qa_item(c: Candidate, status: str = "new") -> dict[str, Any]:
    """The stored QA item of a kept candidate: the shape :func:`rageval.store.runs.save_qa_set` takes."""
    return {"id": c.id, "question": c.question, "references": [c.reference],
            "relevant": {cid: 1.0 for cid in c.chunk_ids}, "domain": None, "kind": c.kind,
            "sources": {"chunks": list(c.source_chunks), "sentences": list(c.sentences)},
            "status": status}
