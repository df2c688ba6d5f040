"""The unit of work: a batch of answer rows in, a table of scores out, and nothing written anywhere.

``score`` in one process, each Ray actor, and a Spark ``mapInPandas`` all call the same
:func:`score_samples` (through :func:`score_table` for a batch of rows), which is a thin layer
over :func:`rageval.metrics.base.evaluate`; so their values are equal by construction, and equal
across any split of the rows because every metric's value depends only on its own row
(``tests/test_properties.py``). The function is deterministic: the same rows, plan and models
give the same table, whatever the batch they came in.

Rows carry ``id, question, answer, contexts, reference`` and optional ``retrieved_ids``,
``relevant_ids``, ``context_ids``, ``domain`` (RAGAS names work too: ``user_input``,
``response``, ``retrieved_contexts``, ...; see :data:`rageval.ingest.rows.ALIASES`). A row that cannot
be read (a field of the wrong type, an id seen earlier in the batch) is never dropped: it comes
out with every metric ``failed: input: <reason>`` and no ``record``.

The output table (:func:`output_schema`) has one row per input row, in input order: ``id``,
``source``, per metric ``<metric>`` (double, null when not scored) and ``<metric>_status``
(``"<status>: <reason>"``, null when ok), ``claims`` (JSON text, with ``details``) and ``record``
(JSON text: what a project stores for the answer, read back by ``import-scores``).
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from rageval.metrics.base import Metric, parse_metric_list
from rageval.metrics.coverage import COVERAGE_METRICS, coverage_of
from rageval.claims.settle import settle
from rageval.scoring.parallel import evaluate_parallel
from rageval.scoring.records import score_rows
from rageval.ingest.fields import as_label, as_relevance, as_text_list
from rageval.ingest.rows import RowProblem, Table, add_records
from rageval.text.hygiene import clean_value
from rageval.types import Resources, Sample, Score

#: the input columns a row may carry (after RAGAS names are mapped to ours)
ANSWER_COLUMNS = ("id", "question", "answer", "contexts", "reference", "retrieved_ids", "relevant_ids",
                  "context_ids", "domain")


@dataclass(frozen=True)
class Plan:
    """What to score with: the settings of ``score`` that change a value (picklable, engine-neutral)."""

    metrics: tuple[str, ...]
    judge: str = "heuristic"
    language: str = "en"
    embedder: str = "local"
    details: bool = False
    options: tuple[tuple[str, str], ...] = ()  # metric options, e.g. (("aligncheck_source", "contexts"),)

    @classmethod
    def make(cls, metrics: str | Sequence[str], *, judge: str = "heuristic", language: str = "en",
             embedder: str = "local", details: bool = False, options: Mapping[str, str] | None = None) -> "Plan":
        names = [m.strip() for m in metrics.split(",")] if isinstance(metrics, str) else list(metrics)
        return cls(tuple(n for n in names if n), judge, language, embedder, details,
                   tuple(sorted((options or {}).items())))

    def build(self) -> list[Metric]:
        """The configured metrics (raises ConfigError for an unknown name or option)."""
        return parse_metric_list(list(self.metrics), judge=self.judge, language=self.language,
                                 embedder=self.embedder, **dict(self.options))

    def names(self) -> list[str]:
        return [m.name for m in self.build()]

    def to_dict(self) -> dict[str, Any]:
        return {"metrics": list(self.metrics), "judge": self.judge, "language": self.language,
                "embedder": self.embedder, "details": self.details, "options": dict(self.options)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Plan":
        return cls.make(d["metrics"], judge=d["judge"], language=d["language"], embedder=d["embedder"],
                        details=bool(d["details"]), options=d.get("options") or {})


@dataclass(frozen=True)
class Scored:
    """Scored samples: ``rows`` as ``score`` prints them, ``records`` as a project stores them."""

    samples: list[Sample]
    rows: list[dict[str, Any]]
    records: list[dict[str, Any]] = field(default_factory=list)


# ---------------------------------------------------------------- rows -> samples

def sample_from_record(rec: Mapping[str, Any], sample_id: str) -> Sample:
    """One normalised row (see :func:`rageval.ingest.rows.add_records`) -> Sample; ValueError names a
    bad field (a field that is not text where text is needed, ``reference: NaN``, ...)."""
    answer = rec.get("answer")
    if answer is not None and not isinstance(answer, str):
        raise ValueError("answer must be a string")
    question = rec.get("question") or ""
    if not isinstance(question, str):
        raise ValueError("question must be a string")
    contexts = as_text_list(rec.get("contexts"), field="contexts", numbers=False)
    retrieved = as_text_list(rec.get("retrieved_ids"), field="retrieved_ids")
    named = as_text_list(rec.get("context_ids"), field="context_ids")
    return Sample(
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


def samples_from_table(table: Table) -> tuple[list[tuple[int, Sample]], list[RowProblem]]:
    """``(row number, Sample)`` for the usable rows of ``table``, and its problems plus one error
    per rejected row (a bad id or field, an id seen earlier), sorted by row."""
    errors = list(table.problems)
    out: list[tuple[int, Sample]] = []
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
            sample = sample_from_record(rec, sample_id)
        except ValueError as exc:
            errors.append(table.error(n, str(exc), column=str(exc).split(" ", 1)[0]))
            continue
        seen[sample_id] = n
        out.append((n, sample))
    errors.sort(key=lambda e: e.row)
    return out, errors


def clean_sample(sample: Sample) -> Sample:
    """``sample`` with every text field through :func:`rageval.text.hygiene.clean_value`."""
    fields = {f: getattr(sample, f) for f in ("id", "question", "answer", "contexts", "references",
                                               "retrieved_ids", "context_ids", "relevant_ids", "domain")}
    cleaned, fixed = clean_value(fields)
    if not fixed.changed:
        return sample
    return dataclasses.replace(sample, **cleaned)


# ---------------------------------------------------------------- the unit

def score_samples(samples: Sequence[Sample], metrics: Sequence[Metric], resources: Resources, *,
                  judge: str = "heuristic", details: bool = False,
                  progress: Callable[[str, int, int], None] | None = None, workers: int | None = 1) -> Scored:
    """Clean, evaluate and shape ``samples``: the one scoring step of every engine.

    ``progress(phase, done, total)`` is called as each metric finishes over all the samples (or
    as each shard of rows comes back from the worker processes). ``workers``: 1 (the default,
    what an engine's own worker runs) evaluates here; more, or None for one per core, runs the
    same ``evaluate`` in worker processes (:mod:`rageval.scoring.parallel`, equal values).
    """
    samples = [clean_sample(s) for s in samples]  # the public boundary: no lone surrogate, no NUL
    scores = evaluate_parallel(samples, metrics, resources, workers=workers, progress=None if progress is None else
                               lambda unit, done, total: progress(f"scoring {len(samples)} row(s), {unit} done",
                                                                  done, total))
    rows = output_rows(samples, scores, details=details)
    stored = score_rows(samples, scores, metrics, judge, resources.llm)
    records = [{"item": item_record(s), "scores": sc, "claims": cl} for s, (sc, cl) in zip(samples, stored)]
    return Scored(samples, rows, records)


def score_table(batch: Any, plan: Plan, resources: Resources | None = None, *, source: str = "",
                first_row: int = 1, metrics: Sequence[Metric] | None = None) -> Any:
    """A batch of answer rows (Arrow table, pandas DataFrame, or list of dicts) -> Arrow table
    of :func:`output_schema`, one row per input row in order; row numbers start at ``first_row``."""
    table = add_records(Table(source), enumerate(batch_records(batch), start=first_row))
    return score_rows_table(table, plan, resources, metrics=metrics)


def score_rows_table(table: Table, plan: Plan, resources: Resources | None = None, *,
                     metrics: Sequence[Metric] | None = None) -> Any:
    """:func:`score_table` for rows already read into a :class:`rageval.ingest.rows.Table`."""
    metrics = list(metrics) if metrics is not None else plan.build()
    resources = resources or Resources(language=plan.language)
    numbered, errors = samples_from_table(table)
    scored = score_samples([s for _, s in numbered], metrics, resources, judge=plan.judge, details=plan.details)
    names = [m.name for m in metrics]
    ids = {n: rec.get("id") for n, rec in table.records}
    out: list[tuple[int, dict[str, Any], dict[str, Any] | None]] = [
        (n, row, rec) for (n, _), row, rec in zip(numbered, scored.rows, scored.records)]
    for e in errors:
        if e.level == "error":
            given = str(ids.get(e.row) or "").strip() or f"row{e.row}"
            reason = f"failed: input: {e.reason}"
            out.append((e.row, {"id": given, **{m: None for m in names}, **{f"{m}_status": reason for m in names}},
                        None))
    out.sort(key=lambda t: t[0])
    return to_arrow([r for _, r, _ in out], [rec for _, _, rec in out], names, source=table.source,
                    details=plan.details)


def failed_table(ids: Sequence[str], names: Sequence[str], reason: str, *, source: str, details: bool) -> Any:
    """Rows ``ids`` with every metric ``failed: <reason>`` (a batch that could not be scored)."""
    status = f"failed: {reason}"
    rows = [{"id": i, **{m: None for m in names}, **{f"{m}_status": status for m in names}} for i in ids]
    return to_arrow(rows, [None] * len(rows), names, source=source, details=details)


# ---------------------------------------------------------------- shapes

def batch_records(batch: Any) -> list[dict[str, Any]]:
    """Rows of an Arrow table, a pandas DataFrame or a list of dicts, as plain Python dicts
    (Arrow maps become dicts, so ``relevant_ids`` may be a ``map<string, double>`` column)."""
    if isinstance(batch, list):
        return batch
    import pyarrow as pa

    if not isinstance(batch, (pa.Table, pa.RecordBatch)):  # pandas, or anything Arrow can take
        batch = pa.Table.from_pandas(batch, preserve_index=False)
    maps = [f.name for f in batch.schema if pa.types.is_map(f.type)]
    rows = batch.to_pylist()
    for row in rows:
        for name in maps:
            if row[name] is not None:
                row[name] = dict(row[name])
    return rows


def item_record(sample: Sample) -> dict[str, Any]:
    """What a project stores for one imported answer (``save_items``'s item, without its ordinal)."""
    return {"item_id": sample.id, "question": sample.question, "answer": sample.answer,
            "references": list(sample.references), "contexts": list(sample.contexts),
            "retrieved": [(rid, None) for rid in (sample.retrieved_ids or sample.context_ids)],
            "status": "ok", "reason": None,
            # kept so that an export of the import run can be scored again as it was
            "details": {"imported": True, "domain": sample.domain, "relevant_ids": dict(sample.relevant_ids),
                        "context_ids": list(sample.context_ids)}}


def output_rows(samples: Sequence[Sample], scores: dict[str, list[Score]], *,
                details: bool = False) -> list[dict[str, Any]]:
    """``{"id", <metric>: value, "<metric>_status": "status: reason" (not ok only), "<metric>_coverage"
    (decided / all claims, for a metric that counts decided claims), "claims"?, "aligncheck"?}``; each
    claim's ``by`` says who decided it, as the settled verdicts of a stored run do before anyone
    labels it (:func:`rageval.claims.settle.settle`: ``copied``, ``judge M``, ``unverified``)."""
    rows = []
    for i, sample in enumerate(samples):
        row: dict[str, Any] = {"id": sample.id}
        for name, column in scores.items():
            score = column[i]
            row[name] = score.value
            if score.status != "ok":
                row[f"{name}_status"] = f"{score.status}: {score.reason}"
            if name in COVERAGE_METRICS:
                row[f"{name}_coverage"] = coverage_of(score.details)
            if details and score.details and "claims" in score.details and "claims" not in row:
                judge = score.details.get("judge")
                row["claims"] = [
                    {**{k: c.get(k) for k in ("text", "verdict", "confidence", "evidence", "reason")},
                     "by": settle(sample.id, c.get("text"), 0, [{"verdict": c.get("verdict"), "judge": judge,
                                                                  "details": c}], ()).badge,
                     "low_confidence": bool(c.get("low_confidence")), "hints": list(c.get("hints") or [])}
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


def output_schema(names: Sequence[str], *, details: bool = False) -> Any:
    """The fixed schema of a scored part, whatever its rows hold, so parts always union."""
    import pyarrow as pa

    fields = [pa.field("id", pa.string()), pa.field("source", pa.string())]
    for m in names:
        fields += [pa.field(m, pa.float64()), pa.field(f"{m}_status", pa.string())]
        if m in COVERAGE_METRICS:
            fields.append(pa.field(f"{m}_coverage", pa.float64()))
    if details:
        fields.append(pa.field("claims", pa.string()))
    fields.append(pa.field("record", pa.string()))
    return pa.schema(fields)


def to_arrow(rows: Sequence[dict[str, Any]], records: Iterable[dict[str, Any] | None], names: Sequence[str], *,
             source: str, details: bool = False) -> Any:
    """Output ``rows`` (and their stored ``records``) as an Arrow table of :func:`output_schema`."""
    import pyarrow as pa

    schema = output_schema(names, details=details)
    columns: dict[str, list[Any]] = {f.name: [] for f in schema}
    for r, rec in zip(rows, records):
        columns["id"].append(r["id"])
        columns["source"].append(source)
        for m in names:
            columns[m].append(r.get(m))
            columns[f"{m}_status"].append(r.get(f"{m}_status"))
            if m in COVERAGE_METRICS:
                columns[f"{m}_coverage"].append(r.get(f"{m}_coverage"))
        if details:
            claims = r.get("claims")
            columns["claims"].append(None if claims is None else json.dumps(claims, ensure_ascii=False))
        columns["record"].append(None if rec is None else json.dumps(rec, ensure_ascii=False))
    return pa.table(columns, schema=schema)
