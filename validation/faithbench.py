"""FaithBench (Bao et al., NAACL 2025) as read by the offline-verdicts validation: summaries written
by ten modern LLMs of short source texts, each read by human annotators who marked every span of
the summary not consistent with the source (``data_for_release/batch_*.json`` of the repository
snapshot ``vectara+FaithBench``).

Fixed here before any verdict figure of this source was computed:

- **units**: one per sample (source, summary, annotations); a sample is *consistent* when no
  annotator marked any span (any label, ``Benign`` and ``Questionable`` included: conservative);
- **excluded**: a sample whose source text also opens a QAGS or SummEdits document (both already
  read by the offline-verdicts validation; matched on its first ``OVERLAP_CHARS`` characters,
  whitespace-collapsed and lower case);
- **split**: by source text, ``DEV_SHARE`` percent of the sources to the development portion and
  the rest to the report portion, by a seeded sha256 of the normalised source (every summary of
  one source in one portion);
- **gold**: every claim of a consistent summary is gold supported; every claim of a summary with
  an annotated span counts as not supported, though the span may lie in another claim (each
  SUPPORTED verdict there is listed with the annotated spans for reading);
- **span gold** (a second reading, since the annotations carry their offsets in the summary): a
  claim is gold supported when it is found in its summary (normalised as containment normalises)
  and no annotated span of any label overlaps it; a claim not found there counts as not supported.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from rageval.claims.containment import normalise
from training.data import snapshot_file, snapshot_names
from validation.portions import norm, require_portion, seeded_portion, take

REPO = "vectara+FaithBench"
SEED = 33
DEV_SHARE = 30
OVERLAP_CHARS = 120


def portion_of(source: str) -> str:
    """``dev`` for DEV_SHARE percent of source texts (seeded sha256 of the normalised text), else ``report``."""
    return seeded_portion(SEED, norm(source), DEV_SHARE)


def samples(mirror: Path) -> list[dict]:
    """Every sample of every released batch, ``{batch, source, summary, summarizer, spans, offsets,
    consistent}`` (``offsets``: each annotated span's ``(start, end)`` in the summary)."""
    names = snapshot_names(mirror, REPO, "data_for_release")
    out = []
    for name in sorted(n for n in names if re.fullmatch(r"data_for_release/batch_\d+\.json", n)):
        for s in json.loads(snapshot_file(mirror, REPO, name))["samples"]:
            spans = [f"{'/'.join(a['label'])}: {a['summary_span']!r}" for a in s.get("annotations") or []]
            out.append({"batch": name.rsplit("/", 1)[1], "source": s["source"], "summary": s["summary"],
                        "summarizer": s["metadata"]["summarizer"], "spans": sorted(set(spans)),
                        "offsets": [(a["summary_start"], a["summary_end"]) for a in s.get("annotations") or []],
                        "consistent": not spans})
    return out


def units(mirror: Path, portion: str, read_before: list[str]) -> tuple[list[dict], Counter]:
    """The samples of ``portion`` (``dev`` or ``report``) and the counts left out by reason;
    ``read_before``: the documents of the sets already read (QAGS, SummEdits)."""
    require_portion(portion, "FaithBench")
    left_out: Counter = Counter()
    out = take(samples(mirror), portion, lambda s: portion_of(s["source"]), left_out, read_before,
               overlap=lambda s: norm(s["source"])[:OVERLAP_CHARS],
               why_read=lambda s: "source also a QAGS or SummEdits document")
    return out, left_out


def span_gold(summary: str, offsets: list[tuple[int, int]]):
    """The span gold of the claims of one summary (module docstring): a function of the claim."""
    norm, index = normalise(summary)

    def gold(claim: str) -> bool:
        needle = normalise(claim)[0].strip().rstrip(".!?;:, ")
        at = norm.find(needle) if needle else -1
        if at < 0:
            return False
        start, end = index[at], index[at + len(needle) - 1] + 1
        return not any(a < end and start < b for a, b in offsets)
    return gold
