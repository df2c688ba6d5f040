"""Claim labelling, as the Answers page and Human review show it: one answer's claims with the
current rater's labels and the proposed evidence, the next claim of a rater's queue, and the save.

The evidence a rater can pick is any sentence of the answer's retrieved contexts (split with
:func:`rageval.text.sentences.split_sentences`, each with its chunk and span), one click on a
sentence choosing it; the one proposed is the verifier's own evidence sentence when it lies in a
context, else the first sentence of the first context. A claim the rater has labelled shows the
sentence stored with the label instead, and a click on another sentence re-stores the label with it.
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
from rageval.views.answer_view import AnswerView, answer_view_of

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


@dataclass(frozen=True)
class ClaimCard:
    item_id: str
    ordinal: int
    claim: str
    verdicts: list[tuple[str, str]]  # (verifier, verdict) for every verifier of the claim
    mine: str | None  # the rater's label, if any
    proposed: int | None  # index into the answer's evidence options
    stored: int | None = None  # index of the evidence sentence stored with the rater's label, if any

    @property
    def evidence(self) -> int | None:
        """The sentence shown as this claim's evidence: the stored one, else the proposed one."""
        return self.stored if self.stored is not None else self.proposed


def evidence_options(answer: AnswerView) -> list[Evidence]:
    """Every sentence of the answer's contexts, in context and text order."""
    return [Evidence(i, ctx.chunk_id, s.start, s.end, s.text) for i, ctx in enumerate(answer.contexts)
            for s in split_sentences(ctx.text)]


def evidence_texts(options: list[Evidence], card: ClaimCard) -> list[str]:
    """The options as the evidence picker lists them: "[2] sentence" (2: the context's number), the
    proposed one marked "(proposed)"."""
    return [f"[{o.context + 1}] {o.text}" + (" (proposed)" if n == card.proposed else "")
            for n, o in enumerate(options)]


def _stored(label: dict[str, Any] | None, options: list[Evidence]) -> int | None:
    """Index of the option stored as ``label``'s evidence (same chunk and span, else same text)."""
    if not label or label.get("span_start") is None and not label.get("evidence"):
        return None
    span = (label.get("evidence_chunk"), label.get("span_start"), label.get("span_end"))
    found = [n for n, o in enumerate(options) if (o.chunk_id, o.start, o.end) == span]
    found = found or [n for n, o in enumerate(options) if o.text == label.get("evidence")]
    return found[0] if found else None


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
        mine = {r["claim"]: r for r in cstore.labels(project.db_path, [run_id], item_id=item_id)
                if r["rater"] == rater}
    options = evidence_options(answer)
    by_text: dict[str, list[dict[str, Any]]] = {}
    for c in sorted(rows, key=lambda c: (c["ordinal"], c["signature"])):
        by_text.setdefault(c["text"], []).append(c)
    out = [ClaimCard(item_id, group[0]["ordinal"], text, [(g["judge"], g["verdict"]) for g in group],
                     mine[text]["label"] if text in mine else None, _proposed(answer, group[0], options),
                     _stored(mine.get(text), options)) for text, group in by_text.items()]
    return answer, out, options


def focus(found: list[ClaimCard], wanted: int | None = None) -> int:
    """The claim the keys act on: ``wanted`` when it is one of ``found``, else the first the rater has
    not labelled, else the first."""
    if wanted is not None and 0 <= wanted < len(found):
        return wanted
    return next((n for n, c in enumerate(found) if c.mine is None), 0)


def after(found: list[ClaimCard], n: int) -> int:
    """The claim to move to once claim ``n`` of ``found`` is labelled: the next one the rater has not
    labelled (after ``n``, then from the start), else simply the next (the last stays)."""
    order = [*range(n + 1, len(found)), *range(n)]
    return next((k for k in order if found[k].mine is None), min(n + 1, max(len(found) - 1, 0)))


def save(project: Project, run_id: str, card: ClaimCard, rater: str, label: str, evidence: Evidence | None) -> None:
    """Store ``rater``'s ``label`` of the claim with the chosen evidence sentence (none for a skip); an
    earlier label of the rater's is replaced."""
    keep = evidence is not None and label != "SKIP"
    claim_labels.label_claim(project, run_id, card.item_id, card.claim, rater, label, ordinal=card.ordinal,
                             evidence=evidence.text if keep else None,
                             evidence_chunk=evidence.chunk_id if keep else None,
                             span=(evidence.start, evidence.end) if keep else None)


def choose_evidence(project: Project, run_id: str, card: ClaimCard, rater: str, evidence: Evidence) -> bool:
    """A click on another sentence: when the rater has labelled the claim (not skipped it), its label is
    stored again with ``evidence``; True when something was stored. An unlabelled claim stores nothing:
    the sentence goes with the label when it comes."""
    if card.mine is None or card.mine == "SKIP":
        return False
    save(project, run_id, card, rater, card.mine, evidence)
    return True


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
