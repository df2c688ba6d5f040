"""Claim-level faithfulness: every answer split into atomic claims, each labelled SUPPORTED,
CONTRADICTED or NOT_MENTIONED against the retrieved contexts by a judge, with quoted evidence.
Offline (no judge) a claim copied from a context is SUPPORTED and every other claim UNVERIFIED
(:mod:`rageval.claims.offline`).

The three metrics count *decided* claims only (every verdict but UNVERIFIED) and report
``coverage = #decided / #claims`` in ``Score.details``; an answer with claims but none decided is
unscored (:data:`NO_DECIDED`), never 0 or 1 by default.

The claim engine is the package :mod:`rageval.claims`; one analysis per answer
(:func:`rageval.claims.analysis.analyse`: extraction, verification by the learned offline
verifier, whose version is in the signature, or by the judge, then diagnosis) is shared by the
three metrics below, which only count verdicts.

``Score.details`` of all three metrics holds ``claims``: a list of ``{"text", "verdict",
"evidence", "evidence_chunk", "span", "reason", "cause"}`` (plus ``mismatch`` and
``conflict``) where ``evidence_chunk`` is ``Sample.context_ids[i]`` (or ``"context[i]"``),
``span`` the ``[start, end]`` character offsets of the evidence inside that context string (or
null), and ``cause`` the hallucination diagnosis of an unsupported claim (or null). Offline
claims also carry ``confidence`` (the model's probability of the verdict; 1.0 for a claim copied
from a context, found by containment before the model runs), ``low_confidence`` (below the
verifier's threshold), ``probabilities`` and ``evidence_role``: ``support``, ``refutes`` or
``closest passage`` (a NOT_MENTIONED claim's evidence is only the closest passage, never
support) or ``likely evidence`` (an UNVERIFIED claim's most likely sentence, with ``hints``: what
the checks noticed, for a person to decide). ``evidence`` is always a whole sentence or table row;
``quote_span`` is the exact span of a copied claim (or of a judge's quote) inside it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from rageval.claims import judge as judge_path
from rageval.claims.analysis import PROMPTS, analyse
from rageval.claims.verdict import CONTRADICTED, NOT_MENTIONED, SUPPORTED
from rageval.metrics.coverage import coverage_score
from rageval.types import OFFLINE_JUDGE, Resources, Sample, Score, Spec
from rageval.judge.ask import signature
from rageval.metrics.judged import offline_parts
from rageval.text import version as text_version


@dataclass(frozen=True)
class _ClaimShare:
    """Shared behaviour: share of claims with one verdict among all claims of the answer."""

    label = SUPPORTED
    needs = frozenset({"answer", "contexts"})
    range = (0.0, 1.0)
    kind = "claims"
    languages = ("en", "it")  # the offline verifier reads Italian numbers, negations and opposites too
    needs_llm = True
    judge: Spec = OFFLINE_JUDGE
    embedder: str = "local"  # the sentence embedder of the offline path (pinned in the signature)

    llm_family = "claims"  # the three shares read one claim analysis per evaluate call: the estimate counts it once

    def signature(self) -> str:
        """With a judge the text rules are pinned too: copied claims are found by containment over
        the contexts' sentences before the judge sees the others (offline through :func:`offline_parts`)."""
        text = () if not self.judge.online else (text_version(),)
        return signature(self.name, self.judge, PROMPTS, *offline_parts(self.judge, self.embedder), *text)

    def llm_calls(self, shape: Any) -> int:
        """At most 1 extraction + ``ceil(MAX_CLAIMS / CLAIMS_PER_CALL)`` verification calls."""
        if not shape.passages:
            return 0
        return 1 + math.ceil(judge_path.MAX_CLAIMS / judge_path.CLAIMS_PER_CALL)

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        scores = []
        for a in analyse(samples, resources, self.judge, self.name):
            details = a.details() if a.status == "ok" else {"claims": list(a.claims), **a.meta}
            if a.status == "unscored":
                scores.append(Score.unscored(a.reason or "unscored", details))
            elif a.status == "failed":
                scores.append(Score.failed(a.reason or "failed", details))
            elif not a.claims:
                scores.append(Score.unscored(a.meta.get("no_claims") or "no_claims", details))
            else:
                scores.append(coverage_score(a.count(self.label), a.decided, len(a.claims), details))
        return scores


@dataclass(frozen=True)
class Faithfulness(_ClaimShare):
    """Share of the answer's claims that the retrieved context supports.

    ``faithfulness = #SUPPORTED / #decided`` with ``coverage = #decided / #claims``; an answer
    with no claims (only greetings, questions or "I don't know") is unscored with reason
    ``no_claims: ...`` saying why, one whose claims are all UNVERIFIED with ``no_decided_claims``.

    >>> Faithfulness().signature()  # doctest: +ELLIPSIS
    'faithfulness|judge:heuristic|emb:local|verifier:...|v1'
    """

    name = "faithfulness"
    higher_is_better = True
    label = SUPPORTED


@dataclass(frozen=True)
class ContradictedShare(_ClaimShare):
    """Share of the answer's claims that the retrieved context refutes (hallucinations).

    ``contradicted_share = #CONTRADICTED / #decided`` (coverage as for faithfulness); no claims ->
    unscored ``no_claims``, none decided -> ``no_decided_claims``. Offline no claim is CONTRADICTED.
    """

    name = "contradicted_share"
    higher_is_better = False
    label = CONTRADICTED


@dataclass(frozen=True)
class NotMentionedShare(_ClaimShare):
    """Share of the answer's claims that the retrieved context neither supports nor refutes
    (extrapolation).

    ``not_mentioned_share = #NOT_MENTIONED / #decided`` (coverage as for faithfulness); no claims
    -> unscored ``no_claims``, none decided -> ``no_decided_claims``.
    """

    name = "not_mentioned_share"
    higher_is_better = False
    label = NOT_MENTIONED


