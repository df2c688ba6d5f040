"""The settled verdict of a claim: the strongest source's verdict, with its authority.

A claim of an answer (matched on run, answer and claim text, as people's labels are) may have
several verdicts: people's labels, a judge's (an LLM named by its model), the offline rule's. The
settled verdict is the first of these that decides the claim:

1. **people**: the label most of its raters gave (SKIP left out) when it is a strict majority;
   the badge says how many agreed ("3 people", "2 of 3 people"); a tie decides nothing and is said
   ("people split: 1 SUPPORTED, 1 CONTRADICTED");
2. **judge**: an LLM judge's verdict other than UNVERIFIED ("judge gpt-4o-mini");
3. **copied**: the offline rule's SUPPORTED for a claim found as stated in a context ("copied");
   any other offline verdict that decides (the opt-in cross-encoder's) is "offline model";
4. otherwise **UNVERIFIED** ("unverified").

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
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from rageval.metrics.coverage import NO_DECIDED
from rageval.project import Project
from rageval.store import claim_labels as cstore
from rageval.store import runs as run_store
from rageval.types import CONTRADICTED, LABELS, NOT_MENTIONED, SUPPORTED, UNVERIFIED

PEOPLE, JUDGE, COPIED, OFFLINE, UNDECIDED = "people", "judge", "copied", "offline model", "unverified"
#: authorities, strongest first
AUTHORITIES = (PEOPLE, JUDGE, COPIED, OFFLINE, UNDECIDED)
SKIP = "SKIP"
OFFLINE_JUDGE = "heuristic"
#: the claim metrics and the verdict each counts
CLAIM_SHARES = {"faithfulness": SUPPORTED, "contradicted_share": CONTRADICTED, "not_mentioned_share": NOT_MENTIONED}
#: the one sentence said once for an answer whose claims are all undecided
NO_DECIDED_PLAIN = ("No claim could be decided without a judge or a person: label them below, "
                    "or run with a judge.")


@dataclass(frozen=True)
class Source:
    """One source's verdict of a claim: ``kind`` is an authority, ``name`` what the badge says."""

    kind: str
    name: str
    verdict: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "name": self.name, "verdict": self.verdict}


@dataclass(frozen=True)
class SettledClaim:
    """A claim with its settled verdict, the authority that settled it, the badge and every source."""

    item_id: str
    claim: str
    ordinal: int
    verdict: str
    authority: str
    badge: str
    sources: tuple[Source, ...]
    note: str = ""  # people's disagreement, in words ("" when none)
    record: Mapping[str, Any] = field(default_factory=dict, compare=False)  # a stored row (evidence, reason)

    @property
    def decided(self) -> bool:
        return self.verdict in LABELS

    def others(self) -> list[Source]:
        """The sources other than the one that settled it (one click away on the page)."""
        return [s for s in self.sources if s.name != self.badge]

    def as_dict(self) -> dict[str, Any]:
        """What every surface shows of it (exports, ``--details``, the CLI's JSON)."""
        return {"item_id": self.item_id, "claim_index": self.ordinal, "claim": self.claim, "verdict": self.verdict,
                "by": self.badge, "authority": self.authority, "note": self.note,
                "sources": [s.as_dict() for s in self.sources]}


def people_source(labels: Iterable[str]) -> tuple[Source | None, str]:
    """People's source of a claim from its raters' labels (SKIP left out) and the note on any
    disagreement. A strict majority decides; a tie gives a source with verdict UNVERIFIED.

    >>> people_source(["CONTRADICTED"] * 3)
    (Source(kind='people', name='3 people', verdict='CONTRADICTED'), '')
    >>> people_source(["SUPPORTED", "SUPPORTED", "NOT_MENTIONED"])[0].name
    '2 of 3 people'
    >>> people_source(["SUPPORTED", "CONTRADICTED"])
    (Source(kind='people', name='people split', verdict='UNVERIFIED'), 'people split: 1 CONTRADICTED, 1 SUPPORTED')
    """
    counts = Counter(x for x in labels if x in LABELS).most_common()
    if not counts:
        return None, ""
    total = sum(n for _, n in counts)
    note = "" if len(counts) == 1 else ", ".join(f"{n} {v}" for v, n in sorted(counts, key=lambda c: (-c[1], c[0])))
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return Source(PEOPLE, "people split", UNVERIFIED), f"people split: {note}"
    verdict, agreed = counts[0]
    name = f"{total} {'person' if total == 1 else 'people'}" if agreed == total else f"{agreed} of {total} people"
    return Source(PEOPLE, name, verdict), (f"people disagree: {note}" if note else "")


def is_copied(verdict: str, details: Mapping[str, Any] | None) -> bool:
    """A SUPPORTED verdict of the containment check (a claim found as stated in a context): certain
    (confidence 1.0), evidence role ``support`` and the exact span of the copy."""
    d = details or {}
    return (verdict == SUPPORTED and d.get("confidence") == 1.0 and d.get("evidence_role") == "support"
            and d.get("quote_span") is not None)


def judge_name(judge: str) -> str:
    """``openai:gpt-4o-mini`` -> ``gpt-4o-mini`` (the model a badge names)."""
    return str(judge).split(":", 1)[1] if ":" in str(judge) else str(judge)


def machine_source(row: Mapping[str, Any]) -> Source:
    """A stored claim row's source: a judge's (``judge gpt-4o-mini``), a copy, another offline verdict."""
    verdict, judge = row["verdict"], str(row.get("judge") or OFFLINE_JUDGE)
    if is_copied(verdict, row.get("details")):
        return Source(COPIED, COPIED, verdict)
    if judge != OFFLINE_JUDGE:
        return Source(JUDGE, f"judge {judge_name(judge)}", verdict)
    return Source(OFFLINE, OFFLINE if verdict in LABELS else "offline rule", verdict)


def settle(item_id: str, claim: str, ordinal: int, rows: Sequence[Mapping[str, Any]], labels: Iterable[str]) -> SettledClaim:
    """The settled claim (module docstring) from its stored rows (one per verifier signature) and its
    raters' labels."""
    person, note = people_source(labels)
    machines: list[Source] = []
    for row in rows:
        src = machine_source(row)
        if src not in machines:
            machines.append(src)
    sources = ([person] if person else []) + sorted(machines, key=lambda s: (AUTHORITIES.index(s.kind), s.name))
    chosen = next((s for s in sources if s.verdict in LABELS), None)
    record = dict(rows[0]) if rows else {}
    if chosen is None:
        return SettledClaim(item_id, claim, ordinal, UNVERIFIED, UNDECIDED, UNDECIDED, tuple(sources), note, record)
    if chosen.kind != PEOPLE:
        record = next((dict(r) for r in rows if machine_source(r) == chosen), record)
    return SettledClaim(item_id, claim, ordinal, chosen.verdict, chosen.kind, chosen.name, tuple(sources), note, record)


def settle_claims(claims: Sequence[Mapping[str, Any]], labels: Sequence[Mapping[str, Any]]) -> list[SettledClaim]:
    """Settle stored claim rows (``item_id``, ``text``, ``ordinal``, ``verdict``, ``judge``, ``details``)
    with label rows (``item_id``, ``claim``, ``label``): one per (answer, claim text), in answer
    and claim order."""
    grouped: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for c in claims:
        grouped.setdefault((c["item_id"], c["text"]), []).append(c)
    by_claim: dict[tuple[str, str], list[str]] = {}
    for lab in labels:
        by_claim.setdefault((lab["item_id"], lab["claim"]), []).append(lab["label"])
    out = [settle(item, text, min(int(r["ordinal"]) for r in rows), rows, by_claim.get((item, text), ()))
           for (item, text), rows in grouped.items()]
    return sorted(out, key=lambda s: (s.item_id, s.ordinal, s.claim))


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


def settled_scores(scores: Sequence[dict[str, Any]], values: Mapping[str, Mapping[str, SettledValue]]) -> list[dict[str, Any]]:
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
