"""Scored answers into a project as an ``import`` run: what ``score`` stores, and ``import-scores``.

Both store the ``records`` that :func:`rageval.scale.unit.score_samples` made (the answer, its
metric score rows with their signatures, its claim rows) through the same
:func:`save_import_run`, so a run imported from Parquet parts scored on a cluster is stored
exactly as the same answers scored by ``score`` in one process, and shows on the Answers,
Correlations and Compare pages like any other run.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from rageval.config import ImportConfig
from rageval.errors import ConfigError, ProjectBusyError
from rageval.project import Project
from rageval.store import runs as store
from rageval.store.runs import new_run_id
from rageval.store.items import save_items
from rageval.text.hygiene import display_name
from rageval.util import stable_hash


def save_import_run(project: Project, records: Sequence[dict[str, Any]], config: dict[str, Any]) -> str:
    """Store ``records`` (in order: their position is the ordinal) as a finished import run; its id.

    A failure on the way leaves the run ``failed`` (or ``interrupted``) with the reason, never
    ``running``.
    """
    run_id = new_run_id()
    store.create_run(project.db_path, run_id, kind="import", corpus=None, qa_set=None, config=config,
                     config_hash=stable_hash(config), n_items=len(records))
    store.set_run_status(project.db_path, run_id, "running")
    try:
        save_items(project.db_path, run_id, (
            ({**rec["item"], "ordinal": ordinal}, rec["scores"], rec["claims"])
            for ordinal, rec in enumerate(records)))
    except BaseException as exc:  # never leave an import run 'running'
        _close_failed(project, run_id, exc)
        raise
    store.set_run_status(project.db_path, run_id, "finished")
    return run_id


def _close_failed(project: Project, run_id: str, exc: BaseException) -> None:
    status = "interrupted" if isinstance(exc, (KeyboardInterrupt, ProjectBusyError)) else "failed"
    try:
        store.set_run_status(project.db_path, run_id, status, f"{type(exc).__name__}: {exc}")
    except Exception:  # the database itself is unusable; the run's owner check shows it interrupted
        pass


def import_config(source: str, plan: dict[str, Any]) -> dict[str, Any]:
    """The stored config of an import run: what ``score`` stores, from a plan's settings."""
    return ImportConfig(source=display_name(source).name, metrics=tuple(plan["metric_names"]), judge=plan["judge"],
                        language=plan["language"], embedder=plan["embedder"],
                        options=tuple(sorted((plan.get("options") or {}).items()))).to_dict()


@dataclass(frozen=True)
class Imported:
    run_id: str
    rows: int          # answers stored
    rejected: int      # rows with no record (unreadable input rows, rows of a batch that failed)
    duplicates: int    # later rows whose id was already imported (the first is kept)


def import_scores(project: Project, out_dir: Path, *, name: str | None = None) -> Imported:
    """Load the Parquet parts of ``out_dir`` (``score --engine ray --out OUT_DIR``) as an import run.

    Parts are read in name order and rows in part order, so ordinals follow the input. Rows
    without a record are counted as rejected; an id seen in an earlier part is counted as a
    duplicate and skipped (the first is kept, as ``score`` keeps the first of a file).
    """
    from rageval.scale.parts import read_manifest, part_files

    manifest = read_manifest(out_dir)
    files = part_files(out_dir)
    if not files:
        raise ConfigError(f"{out_dir}: no part-*.parquet files; score into it first with "
                          "`rageval score INPUT --engine ray --out DIR`")
    records, rejected, duplicates, seen = [], 0, 0, set()
    for rec in _records(files):
        if rec is None:
            rejected += 1
            continue
        item_id = rec["item"]["item_id"]
        if item_id in seen:
            duplicates += 1
            continue
        seen.add(item_id)
        records.append(rec)
    config = import_config(name or out_dir.name, manifest["plan"])
    return Imported(save_import_run(project, records, config), len(records), rejected, duplicates)


def _records(files: Iterable[Path]) -> Iterable[dict[str, Any] | None]:
    import pyarrow.parquet as pq

    for path in files:
        column = pq.read_table(path, columns=["record"]).column("record").to_pylist()
        for text in column:
            yield None if text is None else json.loads(text)
