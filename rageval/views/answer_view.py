"""One answer's view, as the Answers page and claim labelling show it: the question, the answer, its
contexts (each with the chunk, document and page it came from), its scores and the claims shown, read
for that one answer only (fast on runs of any size).

Each claim is shown once with its settled verdict (:mod:`rageval.report.settle`: people's labels,
then a judge, then a copy, else UNVERIFIED), the stored row of the source that settled it, who settled
it (``settled_by``, the badge) and the other sources (``others``); the claim metrics' scores are the
settled ones.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rageval.project import Project
from rageval.report.settle import PEOPLE, SettledClaim, settle_claims, settled_scores, settled_values
from rageval.store import claim_labels as label_store
from rageval.store import corpus as corpus_store
from rageval.store import reports as report_store
from rageval.store import runs as run_store
from rageval.store.db import session

__all__ = ["Context", "AnswerView", "shown_claim", "answer_view_of"]


@dataclass(frozen=True)
class Context:
    rank: int
    chunk_id: str | None
    score: float | None
    text: str
    doc_name: str | None = None
    page: int | None = None


@dataclass(frozen=True)
class AnswerView:
    """Everything the Answers page shows for one QA item."""

    item_id: str
    ordinal: int
    question: str
    references: list[str]
    answer: str | None
    status: str
    reason: str | None
    contexts: list[Context]
    scores: dict[str, dict[str, Any]]
    claims: list[dict[str, Any]]

    @property
    def verdicts(self) -> set[str]:
        return {c["verdict"] for c in self.claims}

    def unscored(self) -> dict[str, str]:
        """metric -> "status: reason" for every metric that did not score this item."""
        return {m: f"{s['status']}: {s['reason']}" for m, s in self.scores.items() if s["status"] != "ok"}

    def details(self, metric: str) -> dict[str, Any]:
        s = self.scores.get(metric)
        return dict(s["details"]) if s and s.get("details") else {}


def shown_claim(c: SettledClaim) -> dict[str, Any]:
    """A settled claim as the page's claim record: the settling source's stored row (evidence, span,
    reason, details) with the settled ``verdict``, ``settled_by`` (the badge), ``authority``,
    ``others`` (``[(name, verdict)]``) and ``note`` (people's disagreement). A verdict people settled
    is never "low confidence"."""
    row = dict(c.record)
    details = dict(row.get("details") or {})
    if c.authority == PEOPLE:
        details["low_confidence"] = False
        if row.get("verdict") != c.verdict:  # the machine's evidence role and reason are not people's
            details["evidence_role"] = "likely evidence"  # the machine's sentence, not what people quoted
            row["reason"] = f"settled by {c.badge}" + (f" ({c.note})" if c.note else "")
    return {**row, "text": c.claim, "ordinal": c.ordinal, "verdict": c.verdict, "details": details,
            "settled_by": c.badge, "authority": c.authority, "note": c.note,
            "others": [(o.name, o.verdict) for o in c.others()]}


def _contexts(a: dict[str, Any], chunk_info: dict[str, dict[str, Any]]) -> list[Context]:
    """One answer's contexts in rank order, with the chunk id, score, document and page each came from."""
    contexts = []
    for i, text in enumerate(a["contexts"]):
        cid, score = a["retrieved"][i] if i < len(a["retrieved"]) else (None, None)
        info = chunk_info.get(cid or "", {})
        contexts.append(Context(rank=i + 1, chunk_id=cid, score=score, text=text,
                                doc_name=info.get("doc_name"), page=info.get("page")))
    return contexts


def answer_view_of(project: Project, run_id: str, item_id: str) -> AnswerView | None:
    """One answer's view (question, answer, contexts, scores, the claims shown), read for that item only."""
    db = project.db_path
    with session(db):  # four reads, one connection
        a = report_store.answer_of(db, run_id, item_id)
        if a is None:
            return None
        chunk_info = corpus_store.chunks_by_id(db, [cid for cid, _ in a["retrieved"] if cid])
        scores = report_store.scores_of(db, run_id, item_id)
        claims = run_store.claims(db, run_id, item_id)
        labels = label_store.labels(db, [run_id], item_id=item_id) if claims else []
    settled = settle_claims(claims, labels)
    return AnswerView(
        item_id=a["item_id"], ordinal=a["ordinal"], question=a["question"], references=list(a["references"]),
        answer=a["answer"], status=a["status"], reason=a["reason"], contexts=_contexts(a, chunk_info),
        scores={s["metric"]: s for s in settled_scores(scores, settled_values(settled))},
        claims=[shown_claim(c) for c in settled],
    )
