"""Scoring answers produced by any RAG system ("bring your own answers").

Input rows (CSV, JSON, JSONL) carry ``id, question, answer, contexts, reference`` and optional
``retrieved_ids`` and ``relevant_ids``; RAGAS names (``user_input, response,
retrieved_contexts, reference``) work too. Each output row is ``{"id", <metric>: value}``,
with ``null`` and ``"<metric>_status"`` (the reason) where a metric could not score the row.
The scored answers are also stored in the project as an ``import`` run, so they appear in
the app exactly like generated ones.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from rageval.errors import ProjectBusyError
from rageval.metrics.base import evaluate, parse_metric_list
from rageval.types import Resources, Sample
from rageval.runs.pipeline import new_run_id, score_rows
from rageval.project import Project
from rageval.ingest.rows import RowError, as_label, as_relevance, as_text_list, read_table
from rageval.ingest.limits import RowLimits
from rageval.store import runs as store
from rageval.store.items import save_items
from rageval.text.hygiene import clean_value, display_name
from rageval.util import stable_hash


@dataclass(frozen=True)
class ScoreResult:
    run_id: str | None
    rows: list[dict[str, Any]]
    errors: list[RowError] = field(default_factory=list)


ANSWER_COLUMNS = ("id", "question", "answer", "contexts", "context_ids", "reference", "retrieved_ids", "relevant_ids",
                  "domain")


def parse_answers(source: str, data: bytes, *, limits: RowLimits | None = None) -> tuple[list[Sample], list[RowError]]:
    """Rows -> Samples; a row with unusable fields is an error, the others are kept.

    Problems of level ``note`` belong to kept rows (a lone surrogate replaced) or to the file
    (columns not used); the others name a rejected row: a field that is not text where text is
    needed (``contexts: 5``, ``id: ["x"]``, ``reference: NaN``, ``contexts: [Infinity]``), a row over
    ``limits`` (:class:`rageval.ingest.limits.RowLimits`, from the environment by default).
    """
    table = read_table(source, data, limits=limits)
    table.note_unused(ANSWER_COLUMNS)
    errors = table.problems
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    for n, rec in table.records:
        try:
            sample_id = as_label(rec.get("id"), field="id") or f"row{n}"
        except ValueError as exc:
            errors.append(table.error(n, str(exc), column="id"))
            continue
        if sample_id in seen:
            errors.append(table.error(n, f"duplicate id {sample_id!r} (first at row {seen[sample_id]}); "
                                         "this row was skipped", column="id"))
            continue
        try:
            answer = rec.get("answer")
            if answer is not None and not isinstance(answer, str):
                raise ValueError("answer must be a string")
            question = rec.get("question") or ""
            if not isinstance(question, str):
                raise ValueError("question must be a string")
            contexts = as_text_list(rec.get("contexts"), field="contexts", numbers=False)
            retrieved = as_text_list(rec.get("retrieved_ids"), field="retrieved_ids")
            named = as_text_list(rec.get("context_ids"), field="context_ids")
            sample = Sample(
                id=sample_id, question=question.strip(), answer=answer, contexts=contexts,
                references=as_text_list(rec.get("reference"), field="reference"),
                retrieved_ids=retrieved,
                # context_ids (an export's), else retrieved ids when there is one per context, name
                # the contexts (evidence then names its chunk)
                context_ids=(named if len(named) == len(contexts) else
                             retrieved if len(retrieved) == len(contexts) else ()),
                relevant_ids=as_relevance(rec.get("relevant_ids")),
                domain=as_label(rec.get("domain"), field="domain"),
            )
        except ValueError as exc:
            errors.append(table.error(n, str(exc), column=str(exc).split(" ", 1)[0]))
            continue
        seen[sample_id] = n
        samples.append(sample)
    errors.sort(key=lambda e: e.row)
    return samples, errors


def clean_sample(sample: Sample) -> Sample:
    """``sample`` with every text field through :func:`rageval.text.hygiene.clean_value`."""
    fields = {f: getattr(sample, f) for f in ("id", "question", "answer", "contexts", "references",
                                               "retrieved_ids", "context_ids", "relevant_ids", "domain")}
    cleaned, fixed = clean_value(fields)
    if not fixed.changed:
        return sample
    return dataclasses.replace(sample, **cleaned)


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
                    {**{k: c.get(k) for k in ("text", "verdict", "confidence", "evidence", "reason")},
                     "low_confidence": bool(c.get("low_confidence"))}
                    for c in score.details["claims"]
                ]
            if details and score.details and "aligncheck" in score.details and "aligncheck" not in row:
                row["aligncheck"] = aligncheck_row(score.details)
        rows.append(row)
    return rows


def aligncheck_row(details: dict[str, Any]) -> dict[str, Any]:
    """The AlignCheck facts of one scored row: TP pairs with predicate similarity, FP and FN facts."""
    facts = details["aligncheck"]
    return {"kept_types": details.get("kept_types"), "source": details.get("source"),
            "tp_pairs": facts.get("tp_pairs", []), "fp_facts": facts.get("fp_facts", []),
            "fn_facts": facts.get("fn_facts", [])}


def score(samples: Sequence[Sample], metric_names: Sequence[str] | str, *, judge: str = "heuristic",
          language: str = "en", embedder: str = "local", resources: Resources | None = None,
          project: Project | None = None,
          source: str = "answers", details: bool = False,
          metric_options: dict[str, Any] | None = None,
          progress: Callable[[str, int, int], None] | None = None) -> ScoreResult:
    """Score ``samples``; with ``project``, also store them as an import run.

    ``metric_options`` go to the metrics that take them (``aligncheck_source="contexts"``);
    ``progress(phase, done, total)`` is called as each metric finishes over all rows.
    """
    metrics = parse_metric_list(metric_names, judge=judge, language=language, embedder=embedder,
                                **(metric_options or {}))
    resources = resources or Resources(language=language)
    samples = [clean_sample(s) for s in samples]  # the public boundary: no lone surrogate, no NUL
    scores = evaluate(samples, metrics, resources, progress=None if progress is None else
                      lambda name, done, total: progress(f"scoring {len(samples)} row(s), metrics done", done, total))
    rows = output_rows(samples, scores, details=details)
    run_id = None
    if project is not None:
        source = display_name(source).name
        run_id = new_run_id()
        config = {"source": source, "metrics": [m.name for m in metrics], "judge": judge, "language": language,
                  "embedder": embedder, **{k: v for k, v in (metric_options or {}).items() if k != "rubrics"}}
        rubrics = [m.rubric.to_dict() for m in metrics if getattr(m, "rubric", None) is not None]
        if rubrics:  # the rubric text the values were judged with, kept with the run
            config["rubrics"] = rubrics
        store.create_run(project.db_path, run_id, kind="import", corpus=None, qa_set=None, config=config,
                         config_hash=stable_hash(config), n_items=len(samples))
        store.set_run_status(project.db_path, run_id, "running")
        try:
            save_items(project.db_path, run_id, (
                ({"item_id": sample.id, "ordinal": ordinal, "question": sample.question, "answer": sample.answer,
                  "references": sample.references, "contexts": sample.contexts,
                  "retrieved": [(rid, None) for rid in (sample.retrieved_ids or sample.context_ids)],
                  "status": "ok", "reason": None,
                  # kept so that an export of the import run can be scored again as it was
                  "details": {"imported": True, "domain": sample.domain, "relevant_ids": dict(sample.relevant_ids),
                              "context_ids": list(sample.context_ids)}}, score_list, claims)
                for ordinal, (sample, (score_list, claims)) in enumerate(
                    zip(samples, score_rows(samples, scores, metrics, judge, resources.llm)))))
        except BaseException as exc:  # never leave an import run 'running'
            _close_failed(project, run_id, exc)
            raise
        store.set_run_status(project.db_path, run_id, "finished")
    return ScoreResult(run_id=run_id, rows=rows, errors=[])


def _close_failed(project: Project, run_id: str, exc: BaseException) -> None:
    status = "interrupted" if isinstance(exc, (KeyboardInterrupt, ProjectBusyError)) else "failed"
    try:
        store.set_run_status(project.db_path, run_id, status, f"{type(exc).__name__}: {exc}")
    except Exception:  # the database itself is unusable; the run's owner check shows it interrupted
        pass
