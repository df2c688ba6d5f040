"""Read-side helpers for the app's pages: summaries, per-answer views, filters, highlight spans.

Pure functions over ``rageval.store``; nothing here imports streamlit, so the numbers a page
shows can be checked (and reused by a script) without a browser.

- A metric's mean is over the items it scored (status ``ok``) only:
  ``mean = sum(value_i for ok items) / n_ok``; unscored and failed items are counted, never
  averaged in as 0.
- A score is "heuristic" when its signature contains ``judge:heuristic``.
- Highlight spans (claims in answers, evidence in chunks) are in :mod:`rageval.views.highlight`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from rageval.config import DEFAULT_METRICS
from rageval.config import ChunkingConfig, stored_config
from rageval.metrics.base import metric_names, parse_metric_list
from rageval.project import Project
# run summaries live in rageval.report.summary (the CLI and the HTML report show them too)
from rageval.report.summary import MetricSummary, is_heuristic, run_summaries  # noqa: F401
from rageval.report.summary import OFFLINE_VERDICT_NOTE, claim_hints, evidence_prefix  # noqa: F401
from rageval.report.summary import (CLAIM_METRICS, LOW_CONFIDENCE, is_low_confidence, low_confidence_claims,
                                    low_confidence_text)
from rageval.ingest.rows import RowProblem
from rageval.store import corpus as corpus_store
from rageval.store import runs as run_store

_K_CHOICES = (1, 3, 5, 10)


# --- project and runs --------------------------------------------------------------------

def project_counts(project: Project) -> dict[str, int]:
    """Corpora, documents, QA sets, QA items, runs and finished runs of a project."""
    corpora = corpus_store.corpora(project.db_path)
    sets = run_store.qa_sets(project.db_path)
    runs = run_store.runs(project.db_path)
    return {
        "corpora": len(corpora), "documents": sum(c["documents"] for c in corpora),
        "qa_sets": len(sets), "qa_items": sum(s["items"] for s in sets),
        "runs": len(runs), "finished_runs": sum(r["status"] == "finished" for r in runs),
    }


def data_stamp(project: Project) -> tuple:
    """Changes whenever the project's database does (any process); cheap: no connection opened."""
    from rageval.store.db import change_stamp

    return change_stamp(project.db_path)


def finished_runs(project: Project) -> list[dict[str, Any]]:
    """Finished runs (pipeline and imported answers), newest first."""
    return [r for r in run_store.runs(project.db_path) if r["status"] == "finished"]


def ended_runs(project: Project) -> list[dict[str, Any]]:
    """Runs that finished or failed (the ones a page announces), newest first."""
    return [r for r in run_store.runs(project.db_path) if r["status"] in ("finished", "failed")]


# --- metrics -------------------------------------------------------------------------------

def metric_options(top_k: int = 10) -> list[str]:
    """Metric names a user can pick: ``@K`` families offered at K = 1, 3, 5, 10 and ``top_k``."""
    out: list[str] = []
    for name in metric_names():
        if name.endswith("@K"):
            base = name[:-2]
            out += [f"{base}@{k}" for k in sorted(set(_K_CHOICES) | {top_k})]
        else:
            out.append(name)
    return out


def check_metric_options(metrics: Sequence[str], **options: Any) -> None:
    """ConfigError when the chosen metrics reject an option value (e.g. ``aligncheck_types="0"``)."""
    if metrics:
        parse_metric_list(list(metrics), **options)


#: the rubric the Run page's form starts from (rageval.prompts.rubric describes the format)
RUBRIC_EXAMPLE = """name = "politeness"
description = "Is the answer polite and professional towards a customer?"
criteria = ["greets or thanks where natural", "never blames the customer", "no slang"]
needs = []  # add "reference" or "contexts" to show them to the judge

[anchors]
1 = "rude or dismissive"
2 = "curt, or blames the customer"
3 = "neutral: neither polite nor rude"
4 = "polite, with a small lapse"
5 = "polite, warm and professional throughout"
"""


def rubric_metrics(project: Project) -> list[str]:
    """``rubric:NAME`` of each rubric stored in the project."""
    from rageval.metrics.rubric import project_rubrics

    return [r.metric for r in project_rubrics(project).values()]


def add_rubric_text(project: Project, text: str) -> Any:
    """Parse a rubric written as TOML and store it in the project (the call ``rageval rubric add``
    makes: :func:`rageval.metrics.rubric.add_rubric_text`); ConfigError says what to fix."""
    from rageval.metrics.rubric import add_rubric_text

    return add_rubric_text(project, text)


def run_rubrics(project: Project, metrics: Sequence[str]) -> tuple:
    """The stored rubrics that ``metrics`` name (``rubric:NAME``), for a RunConfig."""
    from rageval.metrics.rubric import resolve

    return resolve(list(metrics), {}, project)


def default_metrics(options: Sequence[str]) -> list[str]:
    """The run defaults (config.DEFAULT_METRICS) that are available in ``options``."""
    return [m for m in DEFAULT_METRICS if m in options]


# --- scoring uploaded answers -----------------------------------------------------------------

def score_upload(project: Project, source: str, data: bytes, *, metrics: Sequence[str], judge: str,
                 language: str = "en") -> tuple[Any, list[RowProblem]]:
    """Parse and score an uploaded answers file, storing it as an import run (the call ``rageval score``
    makes: :func:`rageval.runs.scoring.score_file`).

    Returns ``(ScoreResult, row errors)``, the result None when no row was usable; raises
    ConfigError/InputError for unusable input.
    """
    from rageval.runs.scoring import score_file

    result = score_file(project, source, data, list(metrics), judge=judge, language=language)
    return (result if result.run_id is not None else None), result.errors


# --- documents ---------------------------------------------------------------------------------

def chunkings(project: Project, corpus: str, extra: Sequence[str] = ()) -> list[str]:
    """Chunking signatures that have chunks in ``corpus``: the default, those of its runs, ``extra``."""
    candidates = [*extra, ChunkingConfig().signature()]
    for r in run_store.runs(project.db_path):
        if r["kind"] == "pipeline" and r["corpus"] == corpus:
            candidates.append(stored_config(r).chunking.signature())
    seen: list[str] = []
    for sig in candidates:
        if sig not in seen and corpus_store.chunks(project.db_path, corpus, sig):
            seen.append(sig)
    return seen


# --- answers -------------------------------------------------------------------------------

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


def display_claims(claims: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One metric's claims per answer (the faithfulness ones when present), in order.

    Several claim metrics store the same claims under their own signatures; showing them once
    keeps the page readable.
    """
    if not claims:
        return []
    signatures = [c["signature"] for c in claims]
    chosen = next((s for s in signatures if s.startswith("faithfulness|")), signatures[0])
    return sorted((c for c in claims if c["signature"] == chosen), key=lambda c: c["ordinal"])


# --- plain-language summaries of the hedging and diagnosis details ------------------------------

def cause_text(cause: Any) -> str:
    """``"long_context_dilution"`` -> ``"long context dilution"``; empty for no cause."""
    return str(cause).replace("_", " ") if cause else ""


def hedging_text(score: dict[str, Any] | None) -> str:
    """One line from the 'hedging' score: flagged or not, its cues, and whether abstaining was right."""
    if score is None:
        return ""
    if score["status"] != "ok":
        return f"hedging not checked ({score['status']}: {score['reason']})"
    d = score.get("details") or {}
    if not score["value"]:
        return "no hedging or abstention"
    text = "hedges or abstains: flagged for review"
    if d.get("cues"):
        text += " (" + ", ".join(f"“{c}”" for c in d["cues"]) + ")"
    if d.get("abstained") and d.get("abstention_right") is not None:
        text += ("; abstaining was right: the gold answer is in no retrieved chunk" if d["abstention_right"]
                 else "; abstaining was wrong: the gold answer was retrieved")
    return text


def diagnosis_text(score: dict[str, Any] | None) -> str:
    """One line from the faithfulness diagnosis: the likely cause and where the gold answer was."""
    d = ((score or {}).get("details") or {}).get("diagnosis")
    if not isinstance(d, dict):
        return ""
    parts = []
    if d.get("answer_cause"):
        parts.append(f"likely cause of the unsupported claims: {cause_text(d['answer_cause'])}")
    ranks = d.get("gold_ranks")
    if d.get("gold_in_contexts") is True and ranks:
        parts.append("gold answer retrieved at rank " + ", ".join(str(r) for r in ranks))
    elif d.get("gold_in_contexts") is False:
        parts.append("gold answer in no retrieved chunk")
    return "; ".join(parts)


# --- claim confidence and evidence role ----------------------------------------------------------

def offline_verdicts(claims: Sequence[dict[str, Any]]) -> bool:
    """Whether any of ``claims`` was judged by the offline verifier (not an LLM judge)."""
    return any(str(c.get("judge") or "").startswith("heuristic") for c in claims)


def claim_confidence(claim: dict[str, Any]) -> str:
    """The verifier's probability of the claim's verdict as "0.93", "0.61 · low confidence" below the
    verifier's threshold, or "" (LLM judges give none)."""
    conf = (claim.get("details") or {}).get("confidence")
    text = f"{conf:.2f}" if isinstance(conf, (int, float)) else ""
    return f"{text} · {LOW_CONFIDENCE}" if is_low_confidence(claim) else text


def card_notes(project: Project, run_id: str) -> dict[str, str]:
    """Notes under the claim metrics' cards: how many of the run's claims are low confidence."""
    text = low_confidence_text(*low_confidence_claims(project, run_id))
    return {m: text for m in CLAIM_METRICS} if text else {}




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
    from rageval.store import reports as report_store
    from rageval.store.db import session

    db = project.db_path
    with session(db):  # four reads, one connection
        a = report_store.answer_of(db, run_id, item_id)
        if a is None:
            return None
        chunk_info = corpus_store.chunks_by_id(db, [cid for cid, _ in a["retrieved"] if cid])
        scores = report_store.scores_of(db, run_id, item_id)
        claims = run_store.claims(db, run_id, item_id)
    return AnswerView(
        item_id=a["item_id"], ordinal=a["ordinal"], question=a["question"], references=list(a["references"]),
        answer=a["answer"], status=a["status"], reason=a["reason"], contexts=_contexts(a, chunk_info),
        scores={s["metric"]: s for s in scores}, claims=display_claims(claims),
    )
