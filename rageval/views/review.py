"""The read model of the Human review page: one annotator's queue over a run's answers."""
from __future__ import annotations

from dataclasses import dataclass, field

from rageval.project import Project
from rageval.store import human as hstore
from rageval.store import runs as rstore


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


def annotators(project: Project, run_id: str) -> list[str]:
    return sorted({r["annotator"] for r in hstore.ratings(project.db_path, [run_id])})


def queue(project: Project, run_id: str, annotator: str) -> list[ReviewItem]:
    """Every answer of the run in QA order with this annotator's rating, the others' and the scores."""
    ratings = hstore.ratings(project.db_path, [run_id])
    by_item: dict[str, dict[str, int]] = {}
    for r in ratings:
        by_item.setdefault(r["item_id"], {})[r["annotator"]] = int(r["rating"])
    scores: dict[str, dict[str, float]] = {}
    for _, item, metric, _, value in hstore.metric_values(project.db_path, [run_id]):
        scores.setdefault(item, {})[metric] = float(value)
    out = []
    for a in rstore.answers(project.db_path, run_id):
        given = by_item.get(a["item_id"], {})
        out.append(ReviewItem(a["item_id"], a["ordinal"], a["question"], a["answer"], a["references"], a["contexts"],
                              given.get(annotator), {k: v for k, v in given.items() if k != annotator},
                              scores.get(a["item_id"], {})))
    return out


def next_index(items: list[ReviewItem], start: int = 0) -> int:
    """Where to resume: the first unrated answer at or after ``start`` (wrapping), else ``start``."""
    n = len(items)
    for step in range(n):
        i = (start + step) % n
        if items[i].mine is None:
            return i
    return min(start, max(0, n - 1))


def progress(items: list[ReviewItem]) -> tuple[int, int]:
    return sum(1 for i in items if i.mine is not None), len(items)


