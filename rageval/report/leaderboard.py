"""Runs side by side: readable run names, a leaderboard of main metrics, per-item values for plots.

Best per column: among the runs whose metric has a mean, the highest (or lowest, for metrics
where lower is better), marked only when at least two runs have a value and all of them carry
the same signature (values with different signatures are not comparable). Answers scored from a
file (``score``, ``import-scores``: kind ``import``) are marked ``scored file`` in the ``kind``
column and are never the best while the board holds a pipeline run: a two-row ad hoc test is not
a system to beat.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import pandas as pd

from rageval.config import ImportConfig, run_model
from rageval.errors import ConfigError
from rageval.project import Project
from rageval.report.exports import table_csv  # noqa: F401  (pages download every table through it)
from rageval.report.meaning import info
from rageval.store import reports as report_store
from rageval.store import runs as run_store
from rageval.store.record import Run
from rageval.types import Spec

#: columns shown first when a run has them (the rest follow in name order)
MAIN_METRICS = (
    "answer_correctness_offline", "ragas_answer_correctness", "answer_equivalence", "faithfulness",
    "contradicted_share", "token_f1", "answer_similarity", "context_relevance", "groundedness",
    "answer_relevance", "recall@5", "ndcg@10", "mrr", "hedging",
)


def _model(role: str, spec: Any) -> str | None:
    """The model of a stored ``openai:MODEL`` spec, None for an offline one (or unreadable text)."""
    try:
        return Spec.parse(role, str(spec or "")).model
    except ConfigError:
        return None


def judge_label(run: Run) -> str:
    """``heuristic judge (offline)`` or ``LLM judge gpt-4o``."""
    model = _model("judge", run.config.judge)
    return f"LLM judge {model}" if model else "heuristic judge (offline)"


def kind_label(run: Run) -> str:
    """``pipeline run`` (retrieve, generate, score) or ``scored file`` (answers scored from a file)."""
    return "pipeline run" if run.kind == "pipeline" else "scored file"


def run_name(run: Run) -> str:
    """A name a person reads: what produced the answers, on what, when (the id stays in the tooltip).

    ``extractive generator · top-10 · handbook / handbook-qa · Dec 01 07:30`` or
    ``imported answers.jsonl · Dec 01 07:30``.
    """
    when = run.created
    stamp = f" · {when:%b %d %H:%M}" if hasattr(when, "strftime") else ""
    cfg = run.config
    if isinstance(cfg, ImportConfig):
        return cfg.source[5:].strip() + stamp if cfg.source.startswith("demo:") else run_model(cfg) + stamp
    model = _model("generator", cfg.generator)
    gen_text = f"LLM {model}" if model else f"{cfg.generator} generator"
    return f"{gen_text} · top-{cfg.top_k} · {run.corpus} / {run.qa_set}{stamp}"


@dataclass(frozen=True)
class Leaderboard:
    runs: list[Run]
    metrics: list[str]
    table: pd.DataFrame  # one row per run: name, judge, then one column per metric (mean)
    best: dict[str, str] = field(default_factory=dict)  # metric -> run id of the best value
    unscored: dict[tuple[str, str], int] = field(default_factory=dict)  # (run id, metric) -> count
    incomparable: list[str] = field(default_factory=list)  # metrics whose signatures differ across runs
    coverage: dict[tuple[str, str], float] = field(default_factory=dict)  # (run id, metric) -> decided / all claims


def _settle_cells(project: Project, runs: Sequence[Run], cell: dict[tuple[str, str], dict[str, Any]]) -> None:
    """The claim metrics' cells of the runs where settling changes them (people's labels, or more than
    one source of verdicts) on settled verdicts (:func:`rageval.report.summary.run_summaries`)."""
    from rageval.report.settle import CLAIM_SHARES, needs_settling
    from rageval.report.summary import run_summaries

    for r in runs:
        if not any((r.id, m) in cell for m in CLAIM_SHARES) or not needs_settling(project, r.id):
            continue
        for s in run_summaries(project, r.id):
            if s.metric in CLAIM_SHARES and (r.id, s.metric) in cell:
                cell[(r.id, s.metric)] = {**cell[(r.id, s.metric)], "mean": s.mean, "n_ok": s.n_ok,
                                          "n_unscored": s.n_unscored, "n_failed": s.n_failed, "coverage": s.coverage}


def leaderboard(project: Project, runs: Sequence[Run] | None = None, *,
                metrics: Sequence[str] | None = None, main_only: bool = True) -> Leaderboard:
    """The finished runs (or ``runs``) as rows and their metric means as columns."""
    if runs is None:
        runs = [r for r in run_store.runs(project.db_path) if r.status == "finished"]
    runs = list(runs)
    stats = report_store.metric_stats(project.db_path, [r.id for r in runs])
    present = sorted({s["metric"] for s in stats})
    if metrics is None:
        order = [m for m in MAIN_METRICS if m in present] + [m for m in present if m not in MAIN_METRICS]
        metrics = order[:10] if main_only else order  # main metrics first, then others, up to 10 columns
    metrics = list(metrics)
    cell: dict[tuple[str, str], dict[str, Any]] = {}
    for s in stats:
        key = (s["run_id"], s["metric"])
        if key not in cell or s["n_ok"] > cell[key]["n_ok"]:
            cell[key] = s
    _settle_cells(project, runs, cell)
    rows, unscored, coverage = [], {}, {}
    for r in runs:
        row: dict[str, Any] = {"run": run_name(r), "kind": kind_label(r), "judge": judge_label(r), "items": r.done,
                               "id": r.id}
        for m in metrics:
            s = cell.get((r.id, m))
            row[m] = None if s is None or s["mean"] is None else float(s["mean"])
            if s is not None and s.get("coverage") is not None:  # settled (_settle_cells)
                coverage[(r.id, m)] = s["coverage"]
            elif s is not None and s.get("n_all"):
                coverage[(r.id, m)] = (s.get("n_decided") or 0) / s["n_all"]
            if s is not None and (s["n_unscored"] or s["n_failed"]):
                unscored[(r.id, m)] = int(s["n_unscored"]) + int(s["n_failed"])
        rows.append(row)
    best, incomparable = {}, []
    contenders = [r for r in runs if r.kind == "pipeline"] or runs  # scored files only among themselves
    for m in metrics:
        have = [(r.id, cell[(r.id, m)]) for r in contenders
                if (r.id, m) in cell and cell[(r.id, m)]["mean"] is not None]
        if len({s["signature"] for _, s in have}) > 1:
            incomparable.append(m)
            continue
        if len(have) >= 2:
            pick = max if info(m).higher_is_better else min
            best[m] = pick(have, key=lambda x: x[1]["mean"])[0]
    table = pd.DataFrame(rows, columns=["run", "kind", "judge", "items", "id", *metrics])
    return Leaderboard(runs=runs, metrics=metrics, table=table, best=best, unscored=unscored,
                       incomparable=incomparable, coverage=coverage)


def item_values(project: Project, run_ids: Sequence[str], metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """Long table ``run_id, item_id, metric, value, status, reason, domain`` for plots, the report and
    comparisons; the claim metrics on settled verdicts (:mod:`rageval.report.settle`)."""
    from rageval.report.settle import CLAIM_SHARES, run_settled_values

    rows = report_store.score_values(project.db_path, run_ids, metrics)
    frame = pd.DataFrame(rows, columns=["run_id", "item_id", "metric", "value", "status", "reason"])
    claim_rows = frame["metric"].isin(list(CLAIM_SHARES))
    for rid in dict.fromkeys(run_ids) if claim_rows.any() else ():
        settled = run_settled_values(project, rid)
        for i in frame.index[claim_rows & (frame["run_id"] == rid)] if settled else ():
            found = settled.get(frame.at[i, "item_id"], {}).get(frame.at[i, "metric"])
            if found is not None:
                frame.loc[i, ["value", "status", "reason"]] = [found.value, found.status, found.reason]
    domains = pd.DataFrame(report_store.item_domains(project.db_path, run_ids), columns=["run_id", "item_id", "domain"])
    return frame.merge(domains, on=["run_id", "item_id"], how="left")


def domain_means(values: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per run and domain: mean of ``metric`` over scored items, and how many were scored."""
    ok = values[(values["metric"] == metric) & (values["status"] == "ok")].copy()
    ok["domain"] = ok["domain"].fillna("(no domain)")
    out = ok.groupby(["run_id", "domain"], as_index=False).agg(mean=("value", "mean"), n=("value", "size"))
    return out


def paired(values: pd.DataFrame, metric: str, run_a: str, run_b: str) -> pd.DataFrame:
    """Items both runs scored on ``metric``: ``item_id, a, b, diff = b - a``."""
    ok = values[(values["metric"] == metric) & (values["status"] == "ok")]
    a = ok[ok["run_id"] == run_a].set_index("item_id")["value"].rename("a")
    b = ok[ok["run_id"] == run_b].set_index("item_id")["value"].rename("b")
    both = pd.concat([a, b], axis=1, join="inner").reset_index()
    both["diff"] = both["b"] - both["a"]
    return both
