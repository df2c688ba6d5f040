"""Claim labelling, as the Answers page and Human review show it: one answer's claims with the
current rater's labels and the proposed evidence, the next claim of a rater's queue, and the save.

The evidence a rater can pick is any sentence of the answer's retrieved contexts (split with
:func:`rageval.text.sentences.split_sentences`, each with its chunk and span); the one proposed
is the verifier's own evidence sentence when it lies in a context, else the first sentence of
the first context.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rageval.human import claim_labels
from rageval.project import Project
from rageval.store import claim_labels as cstore
from rageval.store import runs as rstore
from rageval.store.db import session
from rageval.text.sentences import split_sentences
from rageval.views.highlight import evidence_location
from rageval.views.queries import AnswerView, answer_view_of

#: (label, button text, keyboard shortcut) of the one-click buttons, in order (Streamlit keeps C and R)
BUTTONS = (("SUPPORTED", "Supported", "1"), ("CONTRADICTED", "Contradicted", "2"),
           ("NOT_MENTIONED", "Not mentioned", "3"), ("SKIP", "Skip", "4"))


@dataclass(frozen=True)
class Evidence:
    context: int  # index in the answer's contexts
    chunk_id: str | None
    start: int
    end: int
    text: str

    def label(self) -> str:
        return f"#{self.context + 1}: {self.text[:160]}"


@dataclass(frozen=True)
class ClaimCard:
    item_id: str
    ordinal: int
    claim: str
    verdicts: list[tuple[str, str]]  # (verifier, verdict) for every verifier of the claim
    mine: str | None  # the rater's label, if any
    proposed: int | None  # index into the answer's evidence options


def evidence_options(answer: AnswerView) -> list[Evidence]:
    """Every sentence of the answer's contexts, in context and text order."""
    return [Evidence(i, ctx.chunk_id, s.start, s.end, s.text) for i, ctx in enumerate(answer.contexts)
            for s in split_sentences(ctx.text)]


def _proposed(answer: AnswerView, claim: dict[str, Any], options: list[Evidence]) -> int | None:
    if not options:
        return None
    found = evidence_location(answer, claim)
    if found:
        ctx, start, end = found
        for n, o in enumerate(options):
            if o.context == ctx and o.start <= start < o.end or (o.context == ctx and start <= o.start < end):
                return n
    return 0


def cards(project: Project, run_id: str, item_id: str, rater: str) -> tuple[AnswerView | None, list[ClaimCard],
                                                                          list[Evidence]]:
    """One answer, its claims (one card per claim text, every verifier's verdict on it) with the
    rater's labels, and the evidence options."""
    with session(project.db_path):  # the answer, its claims and the labels through one connection
        answer = answer_view_of(project, run_id, item_id)
        if answer is None:
            return None, [], []
        rows = rstore.claims(project.db_path, run_id, item_id)
        mine = {r["claim"]: r["label"] for r in cstore.labels(project.db_path, [run_id], item_id=item_id)
                if r["rater"] == rater}
    options = evidence_options(answer)
    by_text: dict[str, list[dict[str, Any]]] = {}
    for c in sorted(rows, key=lambda c: (c["ordinal"], c["signature"])):
        by_text.setdefault(c["text"], []).append(c)
    out = [ClaimCard(item_id, group[0]["ordinal"], text, [(g["judge"], g["verdict"]) for g in group], mine.get(text),
                     _proposed(answer, group[0], options)) for text, group in by_text.items()]
    return answer, out, options


def save(project: Project, run_id: str, card: ClaimCard, rater: str, label: str, evidence: Evidence | None) -> None:
    """Store ``rater``'s ``label`` of the claim with the chosen evidence sentence (none for a skip)."""
    keep = evidence is not None and label != "SKIP"
    claim_labels.label_claim(project, run_id, card.item_id, card.claim, rater, label, ordinal=card.ordinal,
                             evidence=evidence.text if keep else None,
                             evidence_chunk=evidence.chunk_id if keep else None,
                             span=(evidence.start, evidence.end) if keep else None)


@dataclass(frozen=True)
class QueueItem:
    card: ClaimCard
    question: str
    answer: AnswerView
    options: list[Evidence]
    remaining: int
    why: str  # why it comes now: "no verdict (UNVERIFIED)", "least certain (0.55)", "in answer order"


def next_claim(project: Project, run_id: str, rater: str) -> QueueItem | None:
    """The rater's next claim (UNVERIFIED first, then the verifiers' disagreements, then the least certain
    verdict, then the rest: :func:`rageval.store.claim_labels.queue`), or None when every claim of the run
    has the rater's label."""
    with session(project.db_path):
        top = cstore.queue(project.db_path, run_id, rater, limit=1)
        if not top:
            return None
        row = top[0]
        answer, found, options = cards(project, run_id, row["item_id"], rater)
    card = next(c for c in found if c.claim == row["claim"])
    why = ("no verdict yet (UNVERIFIED)" if row["unverified"] else
           f"the verifiers disagree ({row['verdicts']})" if row["disagree"] else
           f"least certain first (confidence {row['confidence']:.2f})" if row["confidence"] < 1 else "in answer order")
    return QueueItem(card, row["question"] or "", answer, options, int(row["remaining"]), why)
