"""Regressions per question: which answers got worse (and better) from run A to run B.

For one metric, over the questions both runs answered (matched by item id):

- ``change = B - A`` (the value of run B minus the value of run A);
- ``gain = change`` when higher is better, ``-change`` when lower is better, so a negative gain
  is always a regression, whatever the metric's direction;
- an answer is *worse* when ``gain < -tolerance``, or when its score did not move but it has more
  contradicted claims in B than in A (a verdict that got worse); *better* the other way round;
  worse rows are sorted by gain (largest drop first), better rows by gain (largest rise first),
  ties by the change in contradicted claims;
- an answer scored in A but unscored in B is *lost* (and the reverse *gained*): counted, never
  read as a 0;
- the claim verdicts travel with each row (contradicted claims in A and in B), so a verdict that
  got worse is visible beside the score.

Each row carries the link to the side-by-side view of that question on the Answers page
(:func:`answer_link`), with the query parameter names the app reads: ``project``, ``run``,
``run_b``, ``question``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote_plus, urlencode

import pandas as pd

from rageval.errors import ConfigError
from rageval.project import Project
from rageval.views.answer_table import answer_table
from rageval.report.meaning import info

#: the page and query parameters of the side-by-side view (pages/answers.py reads them)
ANSWERS_PAGE = "answers"
COLUMNS = ["#", "item_id", "question", "a", "b", "change", "gain", "contradicted_a", "contradicted_b", "link"]


def answer_link(project: str, run_a: str, run_b: str | None, item_id: str, *, page: str = ANSWERS_PAGE) -> str:
    """The app-relative address of one question side by side in two runs.

    >>> answer_link("demo", "r1", "r2", "q 7")
    'answers?project=demo&run=r1&run_b=r2&question=q+7'
    """
    params = {"project": project, "run": run_a, **({"run_b": run_b} if run_b else {}), "question": item_id}
    return f"{page}?{urlencode(params)}"


def answer_links(project: str, run_a: str, run_b: str | None, item_ids: Any) -> list[str]:
    """:func:`answer_link` of many questions: the address up to ``question=`` is made once and
    each id quoted once (``urlencode`` quoted all eight parts for every row)."""
    prefix = answer_link(project, run_a, run_b, "")  # the question parameter comes last
    return [prefix + quote_plus(str(i)) for i in item_ids]


@dataclass(frozen=True)
class Regressions:
    run_a: str
    run_b: str
    metric: str
    higher_is_better: bool
    worse: pd.DataFrame   # COLUMNS, largest drop first
    better: pd.DataFrame  # COLUMNS, largest rise first
    unchanged: int
    lost: int    # scored in A, unscored in B
    gained: int  # unscored in A, scored in B
    paired: int  # scored in both

    def as_dict(self) -> dict[str, Any]:
        def rows(df: pd.DataFrame) -> list[dict[str, Any]]:
            return [{k: (None if isinstance(v, float) and v != v else v) for k, v in r.items()}
                    for r in df.to_dict("records")]

        return {"run_a": self.run_a, "run_b": self.run_b, "metric": self.metric,
                "higher_is_better": self.higher_is_better, "change": "B - A", "paired": self.paired,
                "unchanged": self.unchanged, "lost": self.lost, "gained": self.gained,
                "worse": rows(self.worse), "better": rows(self.better)}


def regressions(project: Project, run_a: str, run_b: str, metric: str, *, tolerance: float = 1e-9,
                a_table: pd.DataFrame | None = None, b_table: pd.DataFrame | None = None) -> Regressions:
    """The answers whose ``metric`` got worse or better from ``run_a`` to ``run_b`` (module
    docstring); ``a_table`` / ``b_table``: the runs' :func:`answer_table` when the caller has them."""
    _exists(project, run_a, run_b)
    a = answer_table(project, run_a) if a_table is None else a_table
    b = answer_table(project, run_b) if b_table is None else b_table
    if metric not in a.columns and metric not in b.columns:
        known = sorted(set(c for c in a.columns if c not in _META) & set(c for c in b.columns if c not in _META))
        raise ConfigError(f"no metric {metric!r} in runs {run_a} and {run_b}; scored by both: {', '.join(known)}")
    hib = bool(info(metric).higher_is_better)
    left = _side(a, metric, "a")
    right = _side(b, metric, "b")
    both = left.merge(right, on="item_id", how="inner", suffixes=("", "_b"))
    has_a, has_b = both["a"].notna(), both["b"].notna()
    lost, gained = int((has_a & ~has_b).sum()), int((~has_a & has_b).sum())
    paired = both[has_a & has_b].copy()
    paired["change"] = paired["b"] - paired["a"]
    paired["gain"] = paired["change"] if hib else -paired["change"]
    paired["link"] = answer_links(project.slug, run_a, run_b, paired["item_id"])
    paired = paired[COLUMNS]
    flat = paired["gain"].abs() <= tolerance
    more = paired["contradicted_b"] - paired["contradicted_a"]
    paired = paired.assign(_more=more)
    worse = paired[(paired["gain"] < -tolerance) | (flat & (more > 0))]
    better = paired[(paired["gain"] > tolerance) | (flat & (more < 0))]
    worse = worse.sort_values(["gain", "_more", "#"], ascending=[True, False, True])[COLUMNS]
    better = better.sort_values(["gain", "_more", "#"], ascending=[False, True, True])[COLUMNS]
    return Regressions(run_a, run_b, metric, hib, worse.reset_index(drop=True), better.reset_index(drop=True),
                       unchanged=len(paired) - len(worse) - len(better), lost=lost, gained=gained,
                       paired=len(paired))


_META = {"#", "id", "question", "answer", "status", "domain", "supported", "contradicted", "not_mentioned",
         "diagnosis", "hedging_flag"}


def _exists(project: Project, *run_ids: str) -> None:
    from rageval.store import runs as run_store

    for rid in run_ids:
        if run_store.get_run(project.db_path, rid) is None:
            raise ConfigError(f"run {rid!r} does not exist in project {project.slug!r}; see: rageval runs")


def _side(table: pd.DataFrame, metric: str, name: str) -> pd.DataFrame:
    out = pd.DataFrame({"item_id": table["id"].astype(str), "#": table["#"], "question": table["question"],
                        name: table[metric].astype(float) if metric in table else float("nan"),
                        f"contradicted_{name}": table["contradicted"].astype(int)})
    return out if name == "a" else out[["item_id", name, f"contradicted_{name}"]]
