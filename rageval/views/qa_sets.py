"""The QA sets page's read model and actions: the stored QA sets and one set's items, importing a QA
file, and scoring answers produced by the user's own RAG system (kept as an import run).

Metric choice for an uploaded answers file: every metric is offered; the run defaults that the file's
columns can feed are pre-selected, the others are named with what they miss
(:func:`rageval.report.meaning.applicability`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from rageval.config import TESTSET_KINDS, TestsetConfig
from rageval.demo import sample_qa_csv
from rageval.ingest.qa import import_qa
from rageval.project import Project
from rageval.report import meaning
from rageval.report.exports import table_csv
from rageval.runs.scoring import parse_answers
from rageval.store import runs as run_store
from rageval.runs.scoring import score_file
from rageval.views.run import offered_metrics, run_defaults

__all__ = ["TEMPLATE", "RELEVANT_IDS_HELP", "sample_qa_csv", "table_csv", "qa_sets", "qa_items", "item_rows",
           "item_counts", "import_file", "metric_choice", "skipped", "score_answers", "jsonl", "TESTSET_KINDS",
           "TEMPLATE_NOTE", "corpus_names", "generation_config", "generation_estimate", "generate", "review_rows",
           "generation_summary", "save_reviewed", "export_csv", "export_jsonl"]

#: an empty QA file with every column the importer reads
TEMPLATE = "id,question,reference,relevant_ids,domain\nq1,Your question?,The gold answer,document.pdf,topic\n"

RELEVANT_IDS_HELP = """**`relevant_ids`** says which documents or chunks hold the answer, so retrieval can be scored
(recall@K, precision@K, hit_rate@K, nDCG@K, MAP, MRR). Give document file names
(`leave_policy.md`) or chunk ids from the Documents page's chunk browser, separated by `;`
(`a.pdf;b.txt`), or as a JSON list (`["a.pdf", "b.txt"]`) or a JSON object of graded relevance
(`{"a.pdf": 2, "b.txt": 1}`, higher is more relevant). File names make retrieval be judged per
document. Without `relevant_ids` the retrieval metrics are not selected (they would be unscored
for every question); the answer metrics still work. An empty `reference` is allowed too: then
only reference-free metrics (faithfulness, context relevance, hedging) can score that question."""


def qa_sets(project: Project) -> list[dict[str, Any]]:
    """Every QA set: name, items, source, created."""
    return run_store.qa_sets(project.db_path)


def qa_items(project: Project, name: str) -> list[dict[str, Any]]:
    """The items of QA set ``name``: id, question, references, relevant ids, domain."""
    return run_store.qa_items(project.db_path, name)


def item_rows(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """A set's items as table rows: references joined by `` | ``, relevant ids by ``; `` (a grade other
    than 1 in brackets), no domain as ""."""
    return [{"id": it["id"], "question": it["question"], "reference": " | ".join(it["references"]),
             "relevant_ids": "; ".join(f"{k} ({g:g})" if g != 1 else k for k, g in (it["relevant"] or {}).items()),
             "domain": it["domain"] or ""} for it in items]


def item_counts(items: Sequence[dict[str, Any]]) -> str:
    """``"11 question(s); 0 without a gold answer, 2 without relevant_ids."``"""
    no_ref = sum(not it["references"] for it in items)
    no_rel = sum(not it["relevant"] for it in items)
    return f"{len(items)} question(s); {no_ref} without a gold answer, {no_rel} without relevant_ids."


def import_file(project: Project, filename: str, data: bytes, name: str = "") -> Any:
    """Import a QA file as set ``name`` (the file's stem when empty); raises InputError for an unusable file."""
    return import_qa(project, filename, data, name=name or Path(filename).stem)


def metric_choice(filename: str | None = None, data: bytes | None = None) -> tuple[list[str], list[str], dict[str,
                                                                                                              str]]:
    """(options, pre-selected, metric -> what it misses) for scoring the answers file ``filename``
    (every default pre-selected before a file is chosen); raises InputError for an unreadable file."""
    options = offered_metrics()
    cannot: dict[str, str] = {}
    if filename is not None:
        have = meaning.available_inputs(parse_answers(filename, data)[0])
        cannot = meaning.applicability(options, have)
    return options, [m for m in run_defaults(options) if m not in cannot], cannot


def skipped(options: Sequence[str], cannot: dict[str, str]) -> list[str]:
    """The run defaults left out because the file cannot feed them, sorted."""
    return sorted(m for m in run_defaults(options) if m in cannot)


def score_answers(project: Project, filename: str, data: bytes, *, metrics: Sequence[str], judge: str) -> tuple:
    """Score an answers file and store it as an import run (the call ``rageval score`` makes:
    :func:`rageval.runs.scoring.score_file`): ``(ScoreResult or None when no row was usable, row errors)``;
    raises ConfigError/InputError for unusable input."""
    result = score_file(project, filename, data, list(metrics), judge=judge, language="en")
    return (result if result.run_id is not None else None), result.errors


def jsonl(rows: Sequence[dict[str, Any]]) -> str:
    """Scored rows as JSON Lines (UTF-8 text kept as is)."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


# --- generating a set from documents (rageval.testsets) ------------------------------------

TEMPLATE_NOTE = ("The template generator works offline: a question only where a sentence surely states a date, a "
                 "number, a name, a definition or an object (most sentences offer none), the sentence as the "
                 "reference and its chunk as the relevant chunk. Its questions keep most of their sentence's words, "
                 "so retrieval finds them more easily than real users' questions: **a smoke test of the pipeline, "
                 "not a substitute for a set written by an LLM or a person.**")


def corpus_names(project: Project) -> list[str]:
    """The project's corpora, newest first."""
    from rageval.store.corpus import corpora

    return [c["name"] for c in corpora(project.db_path)]


def generation_config(corpus: str, name: str, n: int, *, generator: str = "template",
                      kinds: Sequence[str] = TESTSET_KINDS,
                      judge: str | None = None, language: str | None = None, seed: int = 0) -> TestsetConfig:
    """The :class:`TestsetConfig` of the page's choices (ConfigError names a bad one)."""
    return TestsetConfig(corpus=corpus, name=name, n=int(n), generator=generator, kinds=tuple(kinds), judge=judge,
                         language=language, seed=int(seed))


def generation_estimate(project: Project, config: TestsetConfig) -> str:
    """What the generation will cost before it starts: "no model calls" for templates, else the
    estimate's line (calls, tokens, cost; an upper bound)."""
    from rageval.runs.pipeline import estimate_text
    from rageval.testsets.generate import generate_set

    est = generate_set(project, config, dry_run=True).estimate
    if est is None:
        return "No model calls: the template generator is offline."
    text = estimate_text(est)
    return text[0].upper() + text[1:]


def generate(project: Project, config: TestsetConfig, progress: Any = None) -> Any:
    """Generate and check a set without storing it (the page stores it after review)."""
    from rageval.testsets.generate import generate_set

    return generate_set(project, config, progress=progress, store=False)


def generation_summary(result: Any) -> str:
    """``"8 question(s) kept of 11 asked. Relevant ids are chunks of chunking recursive-1024-128: run
    the set with that chunking."``; with fewer kept than wanted, the causes
    (:func:`rageval.testsets.generate.outcome`), and with none kept only those."""
    from rageval.testsets.generate import outcome

    if not result.kept:
        return outcome(result)
    return outcome(result) + f" Relevant ids are chunks of chunking {result.chunking} : run the set with that chunking."


def review_rows(project: Project, result: Any) -> list[dict[str, Any]]:
    """One editable row per kept question: keep, question, reference, kind, the source chunk's
    document and text beside it, and the id (not editable)."""
    from rageval.store.corpus import chunks_by_id

    chunks = chunks_by_id(project.db_path, sorted({cid for c in result.kept for cid in c.source_chunks}))
    rows = []
    for c in result.kept:
        source = [chunks[cid] for cid in c.source_chunks if cid in chunks]
        rows.append({"keep": True, "question": c.question, "reference": c.reference, "kind": c.kind,
                     "source": " | ".join(f"{ch['doc_name']}: {ch['text']}" for ch in source), "id": c.id})
    return rows


def save_reviewed(project: Project, config: TestsetConfig, result: Any, rows: Sequence[dict[str, Any]]) -> int:
    """Store the reviewed set: each row's edited question and reference, ``accepted`` when kept and
    ``dropped`` otherwise (a run uses the accepted ones; an empty question or reference is dropped).
    Returns how many were accepted."""
    from rageval.testsets.generate import save
    from rageval.testsets.items import qa_item

    by_id = {c.id: c for c in result.kept}
    items = []
    for row in rows:
        question, reference = str(row.get("question") or "").strip(), str(row.get("reference") or "").strip()
        keep = bool(row.get("keep")) and bool(question) and bool(reference)
        item = qa_item(by_id[row["id"]], status="accepted" if keep else "dropped")
        items.append({**item, "question": question or by_id[row["id"]].question,
                      "references": [reference] if reference else item["references"]})
    save(project, config, result, items)
    return sum(it["status"] == "accepted" for it in items)


def export_csv(project: Project, name: str) -> str:
    """QA set ``name`` (dropped rows included, with their status) as CSV the importer reads back."""
    from rageval.testsets.export import to_csv

    return to_csv(run_store.qa_items(project.db_path, name, include_dropped=True))


def export_jsonl(project: Project, name: str) -> str:
    from rageval.testsets.export import to_jsonl

    return to_jsonl(run_store.qa_items(project.db_path, name, include_dropped=True))
