"""Scoring answers produced by any RAG system ("bring your own answers").

Input rows (CSV, JSON, JSONL) carry ``id, question, answer, contexts, reference`` and optional
``retrieved_ids`` and ``relevant_ids``; RAGAS names (``user_input, response,
retrieved_contexts, reference``) work too. Each output row is ``{"id", <metric>: value}``,
with ``null`` and ``"<metric>_status"`` (the reason) where a metric could not score the row.
The scored answers are also stored in the project as an ``import`` run, so they appear in
the app exactly like generated ones.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from rageval.metrics.base import Resources, Sample, evaluate, parse_metric_list
from rageval.pipeline import new_run_id, score_rows
from rageval.project import Project
from rageval.rows import RowError, as_relevance, as_text_list, read_records
from rageval.store import runs as store
from rageval.util import stable_hash


@dataclass(frozen=True)
class ScoreResult:
    run_id: str | None
    rows: list[dict[str, Any]]
    errors: list[RowError] = field(default_factory=list)


def parse_answers(source: str, data: bytes) -> tuple[list[Sample], list[RowError]]:
    """Rows -> Samples; a row with unusable fields is an error, the others are kept."""
    records, errors = read_records(source, data)
    samples: list[Sample] = []
    seen: set[str] = set()
    for n, rec in records:
        sample_id = str(rec.get("id") or "").strip() or f"row{n}"
        if sample_id in seen:
            errors.append(RowError(source, n, f"duplicate id {sample_id!r}"))
            continue
        try:
            answer = rec.get("answer")
            if answer is not None and not isinstance(answer, str):
                raise ValueError("answer must be a string")
            question = rec.get("question") or ""
            if not isinstance(question, str):
                raise ValueError("question must be a string")
            contexts = as_text_list(rec.get("contexts"), field="contexts")
            retrieved = as_text_list(rec.get("retrieved_ids"), field="retrieved_ids")
            sample = Sample(
                id=sample_id, question=question.strip(), answer=answer, contexts=contexts,
                references=as_text_list(rec.get("reference"), field="reference"),
                retrieved_ids=retrieved,
                # ids name the contexts when there is one per context (evidence then names its chunk)
                context_ids=retrieved if len(retrieved) == len(contexts) else (),
                relevant_ids=as_relevance(rec.get("relevant_ids")),
                domain=(str(rec["domain"]) if rec.get("domain") not in (None, "") else None),
            )
        except ValueError as exc:
            errors.append(RowError(source, n, str(exc)))
            continue
        seen.add(sample_id)
        samples.append(sample)
    errors.sort(key=lambda e: e.row)
    return samples, errors


def output_rows(samples: Sequence[Sample], scores: dict[str, list[Any]], *, details: bool = False) -> list[dict[str, Any]]:
    rows = []
    for i, sample in enumerate(samples):
        row: dict[str, Any] = {"id": sample.id}
        for name, column in scores.items():
            score = column[i]
            row[name] = score.value
            if score.status != "ok":
                row[f"{name}_status"] = f"{score.status}: {score.reason}"
            if details and score.details and "claims" in score.details and "claims" not in row:
                row["claims"] = [
                    {k: c.get(k) for k in ("text", "verdict", "evidence", "reason")}
                    for c in score.details["claims"]
                ]
        rows.append(row)
    return rows


def score(samples: Sequence[Sample], metric_names: Sequence[str] | str, *, judge: str = "heuristic",
          language: str = "en", embedder: str = "local", resources: Resources | None = None,
          project: Project | None = None,
          source: str = "answers", details: bool = False) -> ScoreResult:
    """Score ``samples``; with ``project``, also store them as an import run."""
    metrics = parse_metric_list(metric_names, judge=judge, language=language, embedder=embedder)
    resources = resources or Resources(language=language)
    scores = evaluate(samples, metrics, resources)
    rows = output_rows(samples, scores, details=details)
    run_id = None
    if project is not None:
        run_id = new_run_id()
        config = {"source": source, "metrics": [m.name for m in metrics], "judge": judge, "language": language,
                  "embedder": embedder}
        store.create_run(project.db_path, run_id, kind="import", corpus=None, qa_set=None, config=config,
                         config_hash=stable_hash(config), n_items=len(samples))
        store.set_run_status(project.db_path, run_id, "running")
        for ordinal, (sample, (score_list, claims)) in enumerate(
                zip(samples, score_rows(samples, scores, metrics, judge, resources.llm))):
            store.save_item(project.db_path, run_id, {
                "item_id": sample.id, "ordinal": ordinal, "question": sample.question, "answer": sample.answer,
                "references": sample.references, "contexts": sample.contexts,
                "retrieved": [(rid, None) for rid in (sample.retrieved_ids or sample.context_ids)],
                "status": "ok", "reason": None,
                "details": {"imported": True},
            }, score_list, claims)
        store.set_run_status(project.db_path, run_id, "finished")
    return ScoreResult(run_id=run_id, rows=rows, errors=[])
