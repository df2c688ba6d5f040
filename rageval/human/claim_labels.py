"""People's claim labels: one click in the app, import and export (JSONL, CSV), agreement of raters.

A label is a rater's verdict on one claim of one answer: ``SUPPORTED``, ``CONTRADICTED``,
``NOT_MENTIONED``, or ``SKIP`` (seen, not decided: the claim leaves that rater's queue and counts
in no agreement). A row of a file names its answer by ``item_id`` (or its ``question``), its run by
``run`` (or the run given to the import), its claim by ``claim`` (the text, compared after trimming
and collapsing white space) or ``claim_index`` (the claim's position in the answer's claim list,
from 0, as exported), the ``rater`` (or ``annotator``) and the ``label`` (case ignored; ``S``,
``C``, ``NM`` and ``skipped`` accepted). Optional: ``evidence`` (the sentence), ``evidence_chunk``,
``span_start`` and ``span_end`` (both or neither, start <= end). Bad rows are named ``row N (line
L)`` with their reason and the good rows are stored; a second row for the same (claim, rater) in
one file is a duplicate; importing again replaces a rater's earlier label: the import says how many
of whose labels it replaced, and the earlier label is kept in the label history (with when and by
which file it was replaced), so agreement can be recomputed as of a time (``labels_frame(as_of=)``).

Agreement between raters on claims (SKIP left out): Krippendorff's alpha (nominal) over claims with
two or more labels, and Cohen's kappa (unweighted) for every pair of raters, each with a seeded
bootstrap CI over claims (:mod:`rageval.stats.agreement`). The label a person would give a claim
(``gold``) is the label most of its raters gave; a tie leaves the claim without one.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from itertools import combinations
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from rageval import stats
from rageval.errors import ConfigError, InputError
from rageval.files import csv_text
from rageval.human.ratings import _Lookup, file_rater, require_run
from rageval.ingest.rows import RowProblem, read_label_table
from rageval.text.hygiene import person_name
from rageval.project import Project
from rageval.store import claim_labels as cstore

LABELS = ("SUPPORTED", "CONTRADICTED", "NOT_MENTIONED")
SKIP = "SKIP"
_SPELLINGS = {"s": "SUPPORTED", "c": "CONTRADICTED", "nm": "NOT_MENTIONED", "not mentioned": "NOT_MENTIONED",
              "skip": SKIP, "skipped": SKIP, **{v.lower(): v for v in LABELS}}
_ALIASES = {"run_id": "run", "item": "item_id", "id": "item_id", "annotator": "rater", "text": "claim",
            "claim_text": "claim", "index": "claim_index", "ordinal": "claim_index", "verdict": "label"}
EXPORT_COLUMNS = ("run", "item_id", "question", "claim_index", "claim", "rater", "label", "evidence",
                  "evidence_chunk", "span_start", "span_end", "created")


def norm_claim(text: Any) -> str:
    """A claim's text as files and stored claims are matched: trimmed, white space runs as one space."""
    return " ".join(str(text).split())


def parse_label(value: Any) -> str:
    """``SUPPORTED`` / ``CONTRADICTED`` / ``NOT_MENTIONED`` / ``SKIP`` from a cell (module docstring)."""
    key = " ".join(str(value if value is not None else "").replace("_", " ").split()).lower()
    key = "not_mentioned" if key == "not mentioned" else key
    if key not in _SPELLINGS:
        shown = repr(value)[:40]
        raise ValueError(f"label {shown} is not one of SUPPORTED, CONTRADICTED, NOT_MENTIONED, skip")
    return _SPELLINGS[key]


@dataclass(frozen=True)
class ClaimLabelsImport:
    """What an import stored (label rows), what it rejected, and whose earlier labels it replaced
    (``replaced``: rater -> how many of that rater's labels now differ; the earlier ones are kept in
    the label history)."""

    rows: list[dict[str, Any]]
    errors: list[RowProblem] = field(default_factory=list)
    replaced: dict[str, int] = field(default_factory=dict)

    @property
    def imported(self) -> int:
        return len(self.rows)


class _Claims:
    """The stored claims of one run, by answer: normalised text -> stored text, index -> texts."""

    def __init__(self, project: Project, run: str):
        self.by_text: dict[str, dict[str, str]] = {}
        self.by_index: dict[str, dict[int, set[str]]] = {}
        for c in cstore.claim_texts(project.db_path, run):
            self.by_text.setdefault(c["item_id"], {})[norm_claim(c["claim"])] = c["claim"]
            self.by_index.setdefault(c["item_id"], {}).setdefault(int(c["ordinal"]), set()).add(c["claim"])

    def resolve(self, run: str, item_id: str, rec: dict[str, Any]) -> tuple[str, int | None]:
        text = rec.get("claim")
        if text is not None and str(text).strip():
            stored = self.by_text.get(item_id, {}).get(norm_claim(text))
            if stored is None:
                raise ValueError(f"answer {item_id!r} of run {run} has no claim {norm_claim(text)[:60]!r}")
            index = next((i for i, texts in self.by_index[item_id].items() if stored in texts), None)
            return stored, index
        raw = rec.get("claim_index")
        try:
            index = int(str(raw).strip())
            if str(index) != str(raw).strip().removesuffix(".0"):
                raise ValueError
        except (TypeError, ValueError):
            raise ValueError("give the claim's text (claim) or its index (claim_index, a whole number)") from None
        texts = self.by_index.get(item_id, {}).get(index)
        if not texts:
            raise ValueError(f"answer {item_id!r} of run {run} has no claim with index {index}")
        if len(texts) > 1:
            raise ValueError(f"claim index {index} of answer {item_id!r} names {len(texts)} different claims "
                             "(verifiers split the answer differently); give the claim's text")
        return next(iter(texts)), index


def _span(rec: dict[str, Any]) -> tuple[int | None, int | None]:
    start, end = rec.get("span_start"), rec.get("span_end")
    blank = [v is None or (isinstance(v, str) and not v.strip()) or (isinstance(v, float) and np.isnan(v))
             for v in (start, end)]
    if all(blank):
        return None, None
    if any(blank):
        raise ValueError("give both span_start and span_end, or neither")
    try:
        a, b = int(float(start)), int(float(end))
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"span {start!r}-{end!r} is not two whole numbers") from None
    if not 0 <= a <= b:
        raise ValueError(f"span {a}-{b} must have 0 <= span_start <= span_end")
    return a, b


def _text(rec: dict[str, Any], key: str) -> str | None:
    v = rec.get(key)
    return None if v is None or (isinstance(v, float) and np.isnan(v)) or not str(v).strip() else str(v)


def parse_claim_labels(project: Project, source: str, data: bytes, *, run: str | None = None) -> ClaimLabelsImport:
    """Validate a claim-labels file against the project's runs and claims (nothing is stored)."""
    table = read_label_table(source, data)
    records = [(n, {_ALIASES.get(k, k): v for k, v in rec.items()}) for n, rec in table.records]
    errors = list(table.problems)
    found = sorted({k for _, rec in records for k in rec})
    missing = [c for c in ("rater", "label") if records and c not in found]
    if records and "item_id" not in found and "question" not in found:
        missing.insert(0, "item_id (or question)")
    if records and "claim" not in found and "claim_index" not in found:
        missing.append("claim (or claim_index)")
    if records and run is None and "run" not in found:
        missing.append("run (or give the run to the import)")
    if missing:
        raise InputError(f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)};"
                         f" columns found: {', '.join(found)}", source=source)
    runs = sorted({str(rec.get("run") or run or "").strip() for _, rec in records})
    lookup = _Lookup(project, runs)
    claims = {r: _Claims(project, r) for r in runs if r in lookup.known_runs}
    rows: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    for n, rec in records:
        try:
            row_run = str(rec.get("run") or run or "").strip()
            if row_run not in lookup.known_runs:
                raise ValueError(f"unknown run {row_run!r}")
            item_id = lookup.item(row_run, rec)
            claim, index = claims[row_run].resolve(row_run, item_id, rec)
            rater = person_name(rec.get("rater"))
            if not rater:
                raise ValueError("missing rater (or a name of control characters only)")
            label = parse_label(rec.get("label"))
            start, end = _span(rec)
        except ValueError as exc:
            errors.append(table.error(n, str(exc)))
            continue
        key = (row_run, item_id, claim, rater)
        if key in seen:
            errors.append(table.error(n, f"duplicate label of claim {claim[:40]!r} of item {item_id!r} by "
                                         f"{rater!r} (first given in row {seen[key]})"))
            continue
        seen[key] = n
        rows.append({"run_id": row_run, "item_id": item_id, "claim": claim, "ordinal": index, "rater": rater,
                     "label": label, "evidence": _text(rec, "evidence"), "evidence_chunk": _text(rec, "evidence_chunk"),
                     "span_start": start, "span_end": end})
    errors.sort(key=lambda e: e.row)
    return ClaimLabelsImport(rows, errors)


def import_claim_labels(project: Project, source: str, data: bytes, *, run: str | None = None) -> ClaimLabelsImport:
    """Parse, validate and store a claim-labels file; the good rows are stored even when others fail.
    Signed in, the file's raters are stored as ``file:NAME`` (:func:`~rageval.human.ratings.file_rater`)
    and the import, with who made it, is in the audit trail."""
    from rageval.access import acting

    with acting(project, "upload", "claim_labels_import", run, file=Path(source).name) as audit:
        require_run(project, run)
        result = parse_claim_labels(project, Path(source).name, data, run=run)
        if result.rows:
            replaced = cstore.save_labels(project.db_path,
                                          [{**r, "rater": file_rater(project, r["rater"])} for r in result.rows],
                                          source=f"import {Path(source).name}")
            result = replace(result, replaced=replaced)
        audit.update(rows=len(result.rows), rejected=len(result.errors))
    return result


def label_claim(project: Project, run: str, item_id: str, claim: str, rater: str, label: str, *,
                ordinal: int | None = None, evidence: str | None = None, evidence_chunk: str | None = None,
                span: tuple[int, int] | None = None) -> None:
    """Store one rater's label of one claim (the app's buttons); ``label=None``-like values are refused.
    Signed in, the label is signed with the actor's e-mail (:func:`rageval.access.signer`)."""
    from rageval.access import record, require, signer

    require(project, "label")
    rater = signer(project, person_name(rater))
    if not rater:
        raise ConfigError("a rater name is needed (one that is not only control characters)")
    try:
        label = parse_label(label)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    start, end = span if span is not None else (None, None)
    cstore.save_labels(project.db_path, [{"run_id": run, "item_id": item_id, "claim": claim, "ordinal": ordinal,
                                          "rater": rater, "label": label, "evidence": evidence,
                                          "evidence_chunk": evidence_chunk, "span_start": start, "span_end": end}])
    record(project, "label", f"{run}/{item_id}", claim=claim, label=label, rater=rater)


def export_claim_labels(project: Project, run_ids: Sequence[str], fmt: str = "csv") -> str:
    """The claim labels of runs as CSV (or JSONL), columns ``EXPORT_COLUMNS``; it imports back as is."""
    # a name stored before names were cleaned where they enter goes out cleaned (as in export_ratings)
    recs = [{"run": r["run_id"], "claim_index": r["ordinal"], **{k: r[k] for k in EXPORT_COLUMNS
                                                                 if k not in ("run", "claim_index")},
             "rater": person_name(r["rater"])}
            for r in cstore.labels(project.db_path, run_ids)]
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in recs)
    frame = pd.DataFrame(recs, columns=list(EXPORT_COLUMNS))
    for col in ("claim_index", "span_start", "span_end"):
        frame[col] = frame[col].astype("Int64")
    return csv_text(frame)


def labels_frame(project: Project, run_ids: Sequence[str], *, as_of: Any = None) -> pd.DataFrame:
    """Long-form labels: run_id, item_id, claim, ordinal, rater, label, evidence ..., question; with
    ``as_of`` (a timestamp) the labels as they stood then, from the label history."""
    rows = (cstore.labels(project.db_path, run_ids) if as_of is None
            else cstore.labels_as_of(project.db_path, run_ids, as_of))
    return pd.DataFrame(rows, columns=[*cstore.LABEL_COLUMNS, "question"])


def gold_labels(long: pd.DataFrame) -> dict[tuple[str, str, str], str]:
    """``(run_id, item_id, claim)`` -> the label most raters gave (SKIP left out; ties give none): the
    people's verdict of the settlement (:func:`rageval.report.settle.people_source`)."""
    from rageval.report.settle import people_source

    out = {}
    decided = long[long["label"] != SKIP] if not long.empty else long
    for key, group in decided.groupby(["run_id", "item_id", "claim"], sort=False):
        source, _ = people_source(group["label"])
        if source is not None and source.verdict in LABELS:
            out[key] = source.verdict
    return out


def rater_agreement(long: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0) -> dict[str, Any]:
    """Alpha (nominal) over claims with 2+ labels and Cohen's kappa of every pair of raters, with
    bootstrap CIs; counts of raters, labelled claims and claims labelled twice or more."""
    decided = long[long["label"] != SKIP] if not long.empty else long
    if decided.empty:
        return {"raters": 0, "claims": 0, "shared": 0, "alpha": stats.AgreementCI(None, None, None, 0, 0),
                "kappa": []}
    code = {v: float(i) for i, v in enumerate(LABELS)}
    key = decided["run_id"] + "/" + decided["item_id"] + "/" + decided["claim"]
    wide = decided.assign(key=key, code=decided["label"].map(code)).pivot_table(
        index="rater", columns="key", values="code", aggfunc="first")
    arr = wide.to_numpy(dtype=float)
    alpha = stats.alpha_ci(arr, level="nominal", n_boot=n_boot, seed=seed)
    pairs = [{"a": str(wide.index[i]), "b": str(wide.index[j]),
              **stats.kappa_ci(arr[i], arr[j], labels=list(code.values()), n_boot=n_boot, seed=seed).as_dict()}
             for i, j in combinations(range(arr.shape[0]), 2)]
    return {"raters": int(arr.shape[0]), "claims": int(arr.shape[1]),
            "shared": int((np.isfinite(arr).sum(axis=0) >= 2).sum()), "alpha": alpha, "kappa": pairs}
