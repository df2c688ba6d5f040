"""What each metric means, in words a page can show: what it measures, range, direction, card.

Everything comes from the metric itself: the first line of its docstring says what it
measures, ``range`` and ``higher_is_better`` are its metadata, ``needs`` its inputs; the card
is the section of ``docs/metrics.md`` for its kind. :func:`applicability` says which metrics
cannot apply to a data set (a QA set without gold answers, answers without relevance labels)
and why, so they are not selected by default.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from rageval.errors import RagevalError
from rageval.metrics.base import get_metric

CARDS = {  # metric kind -> section of docs/metrics.md
    "retrieval": "Retrieval metrics", "lexical": "Lexical answer metrics", "semantic": "Semantic answer metrics",
    "claims": "Claim-level faithfulness", "judged": "LLM-derived metrics (RAGAS and the RAG triad)",
}
_NEED_WORDS = {
    "answer": "an answer", "reference": "a gold answer (reference)", "contexts": "retrieved contexts",
    "retrieved_ids": "retrieved ids", "relevant_ids": "relevance labels (relevant_ids)", "question": "a question",
}


@dataclass(frozen=True)
class MetricInfo:
    name: str
    what: str
    kind: str
    needs: tuple[str, ...]
    low: float
    high: float
    higher_is_better: bool

    @property
    def direction(self) -> str:
        return "higher is better" if self.higher_is_better else "lower is better"

    @property
    def range_text(self) -> str:
        def f(x: float) -> str:
            return ("-∞" if x < 0 else "∞") if math.isinf(x) else f"{x:g}"
        return f"{f(self.low)} to {f(self.high)}"

    @property
    def card(self) -> str:
        return f"docs/metrics.md § {CARDS.get(self.kind, self.kind)}"

    def help(self, n_unscored: int | None = None) -> str:
        """One paragraph for a tooltip: what, range, direction, inputs, unscored count, card."""
        text = (f"{self.what} Range {self.range_text}, {self.direction}. "
                f"Needs {', '.join(_NEED_WORDS.get(n, n) for n in self.needs)}.")
        if n_unscored:
            text += f" {n_unscored} item(s) unscored (missing input or judge failure), not counted in the mean."
        return f"{text} Card: {self.card}."


LABELS = {  # metric identifier -> the name a page shows (the identifier stays in the tooltip)
    "aligncheck_f1": "AlignCheck F1", "aligncheck_precision": "AlignCheck precision",
    "aligncheck_recall": "AlignCheck recall", "answer_correctness_offline": "Answer correctness (offline)",
    "answer_equivalence": "Answer equivalence", "answer_relevance": "Answer relevance",
    "answer_similarity": "Answer similarity", "bertscore_f1": "BERTScore F1",
    "bertscore_precision": "BERTScore precision", "bertscore_recall": "BERTScore recall", "bleu": "BLEU",
    "context_relevance": "Context relevance", "contradicted_share": "Contradicted claims",
    "exact_match": "Exact match", "faithfulness": "Faithfulness", "groundedness": "Groundedness",
    "hedging": "Hedging", "map": "MAP", "mrr": "MRR", "not_mentioned_share": "Unsupported claims",
    "ragas_answer_correctness": "Answer correctness (RAGAS)", "ragas_answer_relevance": "Answer relevance (RAGAS)",
    "rouge1": "ROUGE-1", "rouge2": "ROUGE-2", "rougeL": "ROUGE-L", "rougeLsum": "ROUGE-Lsum",
    "token_f1": "Token F1", "token_precision": "Token precision", "token_recall": "Token recall",
    "human": "Human rating",
}
_AT_K = {"hit_rate": "Hit rate", "ndcg": "nDCG", "precision": "Context precision", "recall": "Context recall"}


def label(name: str) -> str:
    """The readable name of metric ``name``: ``Faithfulness``, ``Context recall@10``, ``nDCG@5``.

    A name without a label (a metric added later, a rubric) reads as itself with spaces and a capital.

    >>> label("recall@10"), label("token_f1"), label("my_rubric")
    ('Context recall@10', 'Token F1', 'My rubric')
    """
    if name in LABELS:
        return LABELS[name]
    base, at, k = name.partition("@")
    if at and base in _AT_K:
        return f"{_AT_K[base]}@{k}"
    text = name.replace("_", " ").strip()
    return text[:1].upper() + text[1:] if text else name


def info(name: str) -> MetricInfo:
    """The metric's meaning; a name no longer registered gets a plain description, never an error."""
    if name.startswith("rubric:"):  # a project's own rubric (rageval.prompts.rubric): judged 1-5, stored as (r - 1) / 4
        return MetricInfo(name, f"The team's rubric {name[7:]!r}, rated 1-5 by the LLM judge and stored as "
                          "(rating - 1) / 4.", "judged", ("question", "answer"), 0.0, 1.0, True)
    try:
        m = get_metric(name)
    except RagevalError:
        return MetricInfo(name, f"{name} (not a registered metric)", "other", (), -math.inf, math.inf, True)
    doc = (type(m).__doc__ or "").strip()
    what = " ".join(doc.split("\n\n")[0].replace("``", "").split()) if doc else name
    if len(what) > 240:
        what = what[:237].rsplit(" ", 1)[0] + "…"
    low, high = (float(x) for x in m.range)
    return MetricInfo(name, what, m.kind, tuple(sorted(m.needs)), low, high, bool(m.higher_is_better))


def available_inputs(samples: Iterable[Any], *, pipeline: bool = False) -> set[str]:
    """Inputs that at least one sample (a Sample or a QA item dict) carries.

    A pipeline run always provides question, answer, contexts and retrieved ids; gold answers
    and relevance labels come only from the QA set.
    """
    have = {"question", "answer", "contexts", "retrieved_ids"} if pipeline else set()
    for s in samples:
        if isinstance(s, dict):  # a QA item
            if any(str(r).strip() for r in s.get("references") or ()):
                have.add("reference")
            if any(g > 0 for g in (s.get("relevant") or {}).values()):
                have.add("relevant_ids")
            have.add("question")
            continue
        for need in ("answer", "reference", "contexts", "retrieved_ids", "relevant_ids", "question"):
            if need not in have and s.has(need):
                have.add(need)
    return have


def applicability(names: Sequence[str], have: set[str]) -> dict[str, str]:
    """metric -> why it cannot apply (no item carries an input it needs); applicable ones are absent."""
    out = {}
    for name in names:
        try:
            needs = get_metric(name).needs
        except RagevalError:
            continue
        missing = sorted(n for n in needs if n not in have)
        if missing:
            out[name] = "no item has " + " or ".join(_NEED_WORDS.get(n, n) for n in missing)
    return out
