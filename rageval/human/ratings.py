"""Human ratings in and out: import from CSV / JSON / JSONL with row-level messages, and export.

A row names the rated answer by ``item_id`` (or by its ``question`` text, matched after trimming
and ignoring case), the ``annotator`` and the ``rating``, and optionally its ``run`` (else the
run given to the import). Ratings are whole numbers 1-5, the seed paper's scale (Very Poor ...
Very Good): ``4`` and ``4.0`` are accepted, a half point such as ``3.5`` is rejected with its
row (never rounded), and so are values outside 1-5, infinities (``inf``, ``1e400``, JSON
``1e999``) and text that is not a number. Rows are named ``row N (line L)`` as in every import. A second row
for the same (answer, annotator) in one file is rejected as a duplicate; importing a file again
replaces an annotator's earlier rating of that answer. A missing column is reported once, with
the columns found, and nothing is imported. Good rows are stored and counted. A file of one
annotator's ratings may leave the column out and be imported with that annotator named
(``annotator=``: ``--annotator NAME``, the app's Annotator field), which also fills blank cells.
An annotator's name is stored as :func:`rageval.text.hygiene.person_name` cleans it (no control or
bidi character); a name of nothing else is refused.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from rageval.errors import ConfigError, InputError
from rageval.files import csv_text
from rageval.project import Project
from rageval.ingest.rows import RowProblem, read_label_table
from rageval.text.hygiene import person_name
from rageval.store import human as hstore
from rageval.store import runs as rstore

LABELS = {1: "Very Poor", 2: "Poor", 3: "Fair", 4: "Good", 5: "Very Good"}
COLUMNS = ("item_id", "annotator", "rating")
_ALIASES = {"item": "item_id", "id": "item_id", "rater": "annotator", "annotator_id": "annotator",
            "score": "rating", "run_id": "run"}


@dataclass(frozen=True)
class RatingsImport:
    """What an import stored (``rows``: run, item, annotator, rating) and what it rejected."""

    rows: list[tuple[str, str, str, int]]
    errors: list[RowProblem] = field(default_factory=list)

    @property
    def imported(self) -> int:
        return len(self.rows)


def parse_rating(value: Any) -> int:
    """A whole-number rating 1-5 from a cell; ValueError naming the problem otherwise."""
    if isinstance(value, bool) or value is None or (isinstance(value, str) and not value.strip()):
        raise ValueError("missing rating")
    try:
        number = float(value)
    except OverflowError:  # an integer of 309+ digits (JSON): as infinite as 1e400
        number = math.inf
    except (TypeError, ValueError):
        raise ValueError(f"rating {_short(value)} is not a number") from None
    if math.isnan(number):
        raise ValueError(f"rating {_short(value)} is not a number")
    if not math.isfinite(number):
        raise ValueError(f"rating {_short(value)} is not a whole number 1-5")
    if number != int(number):
        raise ValueError(f"rating {_short(value)} is not a whole number: ratings are 1-5 without half points")
    if not 1 <= number <= 5:
        raise ValueError(f"rating {_short(value)} is out of range: ratings are 1-5")
    return int(number)


def _short(value: Any) -> str:
    """``repr(value)`` cut to 40 characters (a 400-digit rating is named, not printed whole)."""
    text = (
        repr(value)
        if not isinstance(value, int) or abs(value) < 10**40
        else f"{str(value)[:20]}... ({len(str(value))} digits)"
    )
    return text if len(text) <= 40 else text[:37] + "..."


def _norm(text: str) -> str:
    return " ".join(str(text).split()).casefold()


class _Lookup:
    """Answers of the runs a file may name, by item id and by question text."""

    def __init__(self, project: Project, run_ids: Sequence[str]):
        self.known_runs = {r.id for r in rstore.runs(project.db_path)}
        self.by_id: dict[str, set[str]] = {}
        self.by_question: dict[str, dict[str, list[str]]] = {}
        for it in hstore.items(project.db_path, [r for r in run_ids if r in self.known_runs]):
            self.by_id.setdefault(it["run_id"], set()).add(it["item_id"])
            self.by_question.setdefault(it["run_id"], {}).setdefault(_norm(it["question"]), []).append(it["item_id"])

    def item(self, run: str, rec: dict[str, Any]) -> str:
        item_id = str(rec.get("item_id") or "").strip()
        if item_id:
            if item_id not in self.by_id.get(run, set()):
                raise ValueError(f"unknown item {item_id!r}: run {run} has no answer with that id")
            return item_id
        question = rec.get("question")
        matches = self.by_question.get(run, {}).get(_norm(question or ""), [])
        if not matches:
            raise ValueError(f"no answer of run {run} has the question {str(question)[:60]!r}")
        if len(matches) > 1:
            raise ValueError(f"the question {str(question)[:60]!r} matches {len(matches)} items; give item_id")
        return matches[0]


def parse_ratings(project: Project, source: str, data: bytes, *, run: str | None = None,
                  annotator: str | None = None) -> RatingsImport:
    """Validate the rows of a ratings file against the project's runs (nothing is stored).

    ``annotator``: the annotator of the rows that name none (a file without the column, or a blank
    cell); a row's own annotator wins.
    """
    default = None
    if annotator is not None:
        default = person_name(annotator)
        if not default:
            raise ConfigError(f"--annotator {annotator!r} is not a name (empty, or control characters only)")
    table = read_label_table(source, data)
    records, errors = table.records, table.problems
    records = [(n, {_ALIASES.get(k, k): v for k, v in rec.items()}) for n, rec in records]
    found = sorted({k for _, rec in records for k in rec})
    missing = [c if c != "annotator" else "annotator (or name the file's annotator: --annotator NAME, the app's "
               "Annotator field)" for c in ("annotator", "rating")
               if records and c not in found and not (c == "annotator" and default)]
    if records and "item_id" not in found and "question" not in found:
        missing.insert(0, "item_id (or question)")
    if records and run is None and "run" not in found:
        missing.append("run (or give the run to the import)")
    if missing:
        raise InputError(f"missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)};"
                         f" columns found: {', '.join(found)}", source=source)
    runs = {str(rec.get("run") or run or "").strip() for _, rec in records}
    lookup = _Lookup(project, sorted(runs))
    rows: list[tuple[str, str, str, int]] = []
    seen: dict[tuple[str, str, str], int] = {}
    for n, rec in records:
        try:
            row_run = str(rec.get("run") or run or "").strip()
            if row_run not in lookup.known_runs:
                raise ValueError(f"unknown run {row_run!r}")
            item_id = lookup.item(row_run, rec)
            who = person_name(rec.get("annotator")) or default
            if not who:
                raise ValueError("missing annotator (or a name of control characters only); --annotator NAME "
                                 "names the annotator of the rows that give none")
            rating = parse_rating(rec.get("rating"))
        except ValueError as exc:
            errors.append(table.error(n, str(exc)))
            continue
        key = (row_run, item_id, who)
        if key in seen:
            errors.append(table.error(n, f"duplicate rating of item {item_id!r} by {who!r}"
                                         f" (first given in row {seen[key]})"))
            continue
        seen[key] = n
        rows.append((row_run, item_id, who, rating))
    errors.sort(key=lambda e: e.row)
    return RatingsImport(rows, errors)


def require_run(project: Project, run: str | None) -> None:
    """ConfigError when ``run`` is given and ``project`` has no such run (the run an import names)."""
    if run is not None and rstore.get_run(project.db_path, run) is None:
        raise ConfigError(f"no run {run!r} in project {project.slug}; list them with: python -m rageval runs")


def import_ratings(project: Project, source: str, data: bytes, *, run: str | None = None,
                   annotator: str | None = None) -> RatingsImport:
    """Parse, validate and store a ratings file; the good rows are stored even when others fail
    (``annotator``: the annotator of the rows that name none, :func:`parse_ratings`). Each row keeps
    the file's rater (``file_rater``) and who imported it (``imported_by``); signed in, the rows are
    counted as :func:`file_rater` (``file:NAME``), never as a member who signs their own."""
    from rageval.access import acting

    with acting(project, "upload", "ratings_import", run, file=Path(source).name) as audit:
        require_run(project, run)
        result = parse_ratings(project, Path(source).name, data, run=run, annotator=annotator)
        if result.rows:
            hstore.save_ratings(project.db_path, [(*r[:2], file_rater(project, r[2]), r[3], r[2]) for r in result.rows],
                                imported_by=project.actor.email)
        audit.update(rows=len(result.rows), rejected=len(result.errors))
    return result


def file_rater(project: Project, name: str) -> str:
    """The rater a file's row is counted as: its own rater column for the local user (no sign-in), else
    ``file:NAME``, marked as a name nobody signed, so an import never speaks for a signed-in person."""
    return name if project.actor.local else f"file:{name}"


def rate(project: Project, run: str, item_id: str, annotator: str, rating: int) -> None:
    """Store one annotator's rating of one answer (the Human review page). Signed in, the rating is
    signed with the actor's e-mail (:func:`rageval.access.signer`), whatever name is typed."""
    from rageval.access import acting, signer

    with acting(project, "rate", "rate", f"{run}/{item_id}", rating=rating) as audit:
        annotator = signer(project, person_name(annotator))
        if not annotator:
            raise ConfigError("an annotator name is needed (one that is not only control characters)")
        audit["rater"] = annotator
        hstore.save_ratings(project.db_path, [(run, item_id, annotator, parse_rating(rating))])


def export_ratings(project: Project, run_ids: Sequence[str], fmt: str = "csv") -> str:
    """The ratings of runs as CSV (or JSONL): run, item_id, question, annotator, rating, created."""
    rows = hstore.ratings(project.db_path, run_ids)
    cols = ("run", "item_id", "question", "annotator", "rating", "created")
    # a name stored before names were cleaned where they enter goes out cleaned: no control or bidi
    # character reaches the terminal that prints the file (formula cells: csv_text)
    recs = [{"run": r["run_id"], **{k: r[k] for k in cols[1:]}, "annotator": person_name(r["annotator"])}
            for r in rows]
    if fmt == "jsonl":
        return "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in recs)
    return csv_text(pd.DataFrame(recs, columns=list(cols)))
