"""The settled verdict of a claim: the strongest source's verdict, with its authority.

A claim of an answer (matched on run, answer and claim text, as people's labels are) may have
several verdicts: people's labels, a judge's (an LLM named by its model), the offline rule's. The
settled verdict is the first of these that decides the claim, in the order and with the badges
:mod:`rageval.claims.settle` states.

Nothing here writes: the store keeps every source's verdict and the settlement is derived on
reading. The claim metrics computed on settled verdicts follow the stored ones' formulas
(:mod:`rageval.metrics.claims`): ``faithfulness = #SUPPORTED / #decided``, ``contradicted_share =
#CONTRADICTED / #decided``, ``not_mentioned_share = #NOT_MENTIONED / #decided``, with ``coverage =
#decided / #claims``; an answer with claims but none decided is unscored with the stored metrics' reason
(:data:`rageval.metrics.coverage.NO_DECIDED`); the pages say :data:`NO_DECIDED_PLAIN` instead, once.
With one source and no label the settled values equal the stored ones.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rageval.claims.settle import (  # noqa: F401 (the settlement, re-exported for every surface)
    AUTHORITIES, COPIED, JUDGE, OFFLINE, PEOPLE, UNDECIDED, SettledClaim, Source, machine_source, people_source,
    settle, settle_claims)
from rageval.metrics.coverage import NO_DECIDED
from rageval.project import Project
from rageval.store import claim_labels as cstore
from rageval.store import runs as run_store
from rageval.types import CONTRADICTED, NOT_MENTIONED, SUPPORTED

#: the claim metrics and the verdict each counts
CLAIM_SHARES = {"faithfulness": SUPPORTED, "contradicted_share": CONTRADICTED, "not_mentioned_share": NOT_MENTIONED}
#: the one sentence said once for an answer whose claims are all undecided
NO_DECIDED_PLAIN = ("No claim could be decided without a judge or a person: label them below, "
                    "or run with a judge.")


def settled_claims(project: Project, run_id: str, item_id: str | None = None) -> list[SettledClaim]:
    """The run's (one answer's) claims settled with its people's labels."""
    claims = run_store.claims(project.db_path, run_id, item_id)
    labels = cstore.labels(project.db_path, [run_id], item_id=item_id) if claims else []
    return settle_claims(claims, labels)


@dataclass(frozen=True)
class SettledValue:
    """One claim metric of one answer on settled verdicts: ``value`` None when nothing is decided."""

    value: float | None
    n_decided: int
    n_all: int
    by: dict[str, int]  # authority -> claims it settled

    @property
    def coverage(self) -> float | None:
        return self.n_decided / self.n_all if self.n_all else None

    @property
    def status(self) -> str:
        return "ok" if self.value is not None else "unscored"

    @property
    def reason(self) -> str | None:
        return None if self.value is not None else NO_DECIDED

    def details(self) -> dict[str, Any]:
        return {"coverage": None if self.coverage is None else round(self.coverage, 6), "n_decided": self.n_decided,
                "n_all": self.n_all, "settled_by": dict(self.by)}


def settled_values(settled: Sequence[SettledClaim]) -> dict[str, dict[str, SettledValue]]:
    """``item_id -> metric -> SettledValue`` for the three claim metrics (module docstring)."""
    per_item: dict[str, list[SettledClaim]] = {}
    for s in settled:
        per_item.setdefault(s.item_id, []).append(s)
    out: dict[str, dict[str, SettledValue]] = {}
    for item, claims in per_item.items():
        decided = [c for c in claims if c.decided]
        by = dict(Counter(c.authority for c in claims))
        out[item] = {m: SettledValue(sum(c.verdict == v for c in decided) / len(decided) if decided else None,
                                     len(decided), len(claims), by) for m, v in CLAIM_SHARES.items()}
    return out


def run_settled_values(project: Project, run_id: str) -> dict[str, dict[str, SettledValue]]:
    """:func:`settled_values` of a run, ``{}`` when settling changes nothing: no label and one
    source of verdicts (then the stored values are the settled ones)."""
    if not needs_settling(project, run_id):
        return {}
    return settled_values(settled_claims(project, run_id))


def needs_settling(project: Project, run_id: str) -> bool:
    """Whether the run has people's labels of its claims or claims from more than one judge."""
    return cstore.claim_sources(project.db_path, run_id) > 1 or run_id in cstore.labelled_runs(project.db_path)


def settled_scores(
    scores: Sequence[dict[str, Any]], values: Mapping[str, Mapping[str, SettledValue]]
) -> list[dict[str, Any]]:
    """Stored score rows (``item_id``, ``metric``, ``value``, ``status``, ``reason``, ``details``) with
    the claim metrics' replaced by their settled values where the answer has claims; the others as stored."""
    out = []
    for s in scores:
        v = values.get(s["item_id"], {}).get(s["metric"])
        if v is None:
            out.append(s)
            continue
        details = {**(s.get("details") or {}), **v.details()}
        out.append({**s, "value": v.value, "status": v.status, "reason": v.reason, "details": details})
    return out


def badge_counts(settled: Sequence[SettledClaim]) -> str:
    """``"2 by people, 1 copied, 14 unverified"``: how a set of claims was settled, strongest first."""
    counts = Counter(s.authority for s in settled)
    words = {PEOPLE: "by people", JUDGE: "by a judge", COPIED: "copied", OFFLINE: "by the offline model",
             UNDECIDED: "unverified"}
    return ", ".join(f"{counts[a]} {words[a]}" for a in AUTHORITIES if counts[a])


def claim_line(c: SettledClaim) -> str:
    """One claim in words: ``q01 #0 CONTRADICTED (3 people; also: offline rule UNVERIFIED) The ...``."""
    others = "; ".join(f"{s.name} {s.verdict}" for s in c.others())
    extra = "; ".join(x for x in (c.note, f"also: {others}" if others else "") if x)
    return f"{c.item_id} #{c.ordinal} {c.verdict} ({c.badge}{'; ' + extra if extra else ''}) {c.claim}"


def settled_text(claims: Sequence[SettledClaim], metrics: Sequence[Any] = ()) -> str:
    """The CLI's lines: the claim metrics on settled verdicts with coverage, then every claim."""
    lines = [f"{s.metric}: {'—' if s.mean is None else f'{s.mean:.3f}'}"
             f" (coverage {'—' if s.coverage is None else f'{100 * s.coverage:.0f}%'}, {s.n_ok} answers scored)"
             for s in metrics]
    if claims:
        lines.append(f"{len(claims)} claims settled: {badge_counts(claims)}")
    return "\n".join(lines + [claim_line(c) for c in claims]) or "no claims"
