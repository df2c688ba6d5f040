"""The Human review page's read model and actions: one annotator's queue over a run's answers, saving
a rating, importing a ratings file, and the answers whose ratings differ by 2 or more (with the
agreed score that overrides their consensus).

The queue opens at the first answer this annotator has not rated (:func:`next_index`, wrapping);
ratings are 1-5 (:data:`LABELS`, Very Poor ... Very Good). The claim queue (people's claim labels) is
:mod:`rageval.views.claim_review`'s, re-exported here.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import pandas as pd

from rageval import human
from rageval.human import LABELS, RatingsImport
from rageval.project import Project
from rageval.store import human as hstore
from rageval.store import runs as rstore
from rageval.views.claim_review import BUTTONS as LABEL_BUTTONS
from rageval.views.claim_review import QueueItem, evidence_texts, next_claim
from rageval.views.claim_review import save as save_claim_label
from rageval.views.frame import metric_label


@dataclass(frozen=True)
class ReviewItem:
    item_id: str
    ordinal: int
    question: str
    answer: str | None
    references: list[str]
    contexts: list[str]
    mine: int | None  # this annotator's rating, if given
    others: dict[str, int] = field(default_factory=dict)  # other annotators' ratings
    scores: dict[str, float] = field(default_factory=dict)  # metric -> value (ok scores only)


def answers_and_scores(project: Project, run_id: str) -> list[ReviewItem]:
    """The run's answers in QA order with their ok metric values, no ratings (what never changes once a
    run is finished: the app caches it per run)."""
    from rageval.store.db import session

    scores: dict[str, dict[str, float]] = {}
    with session(project.db_path):
        values = hstore.metric_values(project.db_path, [run_id])
        answers = rstore.answers(project.db_path, run_id)
    for _, item, metric, _, value in values:
        scores.setdefault(item, {})[metric] = float(value)
    return [ReviewItem(a["item_id"], a["ordinal"], a["question"], a["answer"], a["references"], a["contexts"],
                       None, {}, scores.get(a["item_id"], {})) for a in answers]


def ratings_by_item(project: Project, run_id: str) -> dict[str, dict[str, int]]:
    """``{item_id: {annotator: rating}}`` of the run (what changes with every rating saved)."""
    by_item: dict[str, dict[str, int]] = {}
    for r in hstore.ratings(project.db_path, [run_id]):
        by_item.setdefault(r["item_id"], {})[r["annotator"]] = int(r["rating"])
    return by_item


def with_ratings(base: list[ReviewItem], ratings: dict[str, dict[str, int]], annotator: str) -> list[ReviewItem]:
    """``base`` (:func:`answers_and_scores`) with this annotator's rating and the others' on each item."""
    out = []
    for b in base:
        given = ratings.get(b.item_id, {})
        out.append(replace(b, mine=given.get(annotator), others={k: v for k, v in given.items() if k != annotator}))
    return out


def rated(items: list[ReviewItem], index: int, rating: int) -> list[ReviewItem]:
    """``items`` with this annotator's ``rating`` on item ``index`` (after saving it: no re-read needed)."""
    return [replace(it, mine=rating) if i == index else it for i, it in enumerate(items)]


def next_index(items: list[ReviewItem], start: int = 0) -> int:
    """Where to resume: the first unrated answer at or after ``start`` (wrapping), else ``start``."""
    n = len(items)
    for step in range(n):
        i = (start + step) % n
        if items[i].mine is None:
            return i
    return min(start, max(0, n - 1))


def position(items: list[ReviewItem], current: int | None, wanted: str | None = None) -> int:
    """Which answer to show: the item ``wanted`` (a question id from a link) when it is in the queue, else
    the ``current`` position, else where to resume (:func:`next_index`)."""
    ids = [it.item_id for it in items]
    if wanted in ids:
        return ids.index(wanted)
    return next_index(items) if current is None else current


def unblinded(item: ReviewItem) -> str:
    """What a rater sees when not blinded: ``Scores: Token F1 0.50, ...; others: ann_a 4, ...`` ("none" when empty)."""
    scores = ", ".join(f"{metric_label(m)} {v:.2f}" for m, v in item.scores.items()) or "none"
    return f"Scores: {scores}; others: " + (", ".join(f"{a} {r}" for a, r in item.others.items()) or "none")


def progress(items: list[ReviewItem]) -> tuple[int, int]:
    return sum(1 for i in items if i.mine is not None), len(items)




def rate(project: Project, run_id: str, item_id: str, annotator: str, rating: int) -> None:
    """Store ``annotator``'s ``rating`` (1-5) of one answer of the run."""
    human.rate(project, run_id, item_id, annotator, rating)


def import_ratings(project: Project, source: str, data: bytes, *, run_id: str,
                   annotator: str | None = None) -> RatingsImport:
    """Parse, check and store a ratings file (CSV, JSON, JSONL) for the run; good rows are kept when others
    fail; ``annotator`` (the page's Annotator field, blank: none) names the annotator of rows that give none."""
    return human.import_ratings(project, source, data, run=run_id, annotator=(annotator or "").strip() or None)


def rejected_rows(result: RatingsImport) -> list[dict]:
    """The rows of a ratings file that were rejected: row, line, reason."""
    return [{"row": e.row, "line": e.line, "reason": e.reason} for e in result.errors]


def for_discussion(project: Project, run_id: str) -> pd.DataFrame:
    """The run's answers whose ratings span 2 or more: item_id, n, consensus, spread, agreed."""
    cons = human.consensus(project, [run_id])
    return cons[cons["flagged"]][["item_id", "n", "consensus", "spread", "agreed"]]


def set_agreed(project: Project, run_id: str, item_id: str, score: int) -> None:
    """Set the agreed score (1-5) that overrides an answer's consensus, noted as set on the page."""
    human.set_agreed(project, run_id, item_id, score, "set on the Human review page")


__all__ = ["LABELS", "ReviewItem", "answers_and_scores", "ratings_by_item", "with_ratings", "rated",
           "next_index", "position", "unblinded", "progress", "rate", "import_ratings", "rejected_rows",
           "for_discussion", "set_agreed",
           # the claim queue's (rageval.views.claim_review), for the page's claim labelling
           "LABEL_BUTTONS", "QueueItem", "evidence_texts", "next_claim", "save_claim_label"]
