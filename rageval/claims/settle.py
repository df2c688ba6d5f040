"""The settled verdict of a claim from its sources: people's labels, a judge's verdict, the offline
rule's copy, else UNVERIFIED (pure; reading the store and the metrics on settled verdicts are
:mod:`rageval.report.settle`).

The first source that decides the claim settles it:

1. **people**: the label most of its raters gave (SKIP left out) when it is a strict majority;
   the badge says how many agreed ("3 people", "2 of 3 people"); a tie decides nothing and is said
   ("people split: 1 SUPPORTED, 1 CONTRADICTED");
2. **judge**: an LLM judge's verdict other than UNVERIFIED ("judge gpt-4o-mini");
3. **copied**: the offline rule's SUPPORTED for a claim found as stated in a context ("copied");
   any other offline verdict that decides (none ships today: a verifier kept for stored runs) is
   "offline model";
4. otherwise **UNVERIFIED** ("unverified").
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from rageval.types import LABELS, SUPPORTED, UNVERIFIED

PEOPLE, JUDGE, COPIED, OFFLINE, UNDECIDED = "people", "judge", "copied", "offline model", "unverified"
#: authorities, strongest first
AUTHORITIES = (PEOPLE, JUDGE, COPIED, OFFLINE, UNDECIDED)
SKIP = "SKIP"
OFFLINE_JUDGE = "heuristic"
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


def settle(
    item_id: str, claim: str, ordinal: int, rows: Sequence[Mapping[str, Any]], labels: Iterable[str]
) -> SettledClaim:
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
