"""Scored answers into a project as an ``import`` run: what ``score`` stores, and ``import-scores``.

Both store the ``records`` that :func:`rageval.scoring.unit.score_samples` made (the answer, its
metric score rows with their signatures, its claim rows) through the same
:func:`save_import_run`, so a run imported from Parquet parts scored on a cluster is stored
exactly as the same answers scored by ``score`` in one process, and shows on the Answers,
Correlations and Compare pages like any other run.
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from rageval.config import ImportConfig
from rageval.errors import ConfigError, ProjectBusyError, RagevalError, StoreFullError
from rageval.metrics.ranges import Rejection, problem, sound
from rageval.project import Project
from rageval.store import owners
from rageval.store import runs as store
from rageval.store.runs import new_run_id
from rageval.store.items import save_items
from rageval.text.hygiene import display_name
from rageval.util import stable_hash


def save_import_run(project: Project, records: Sequence[dict[str, Any]], config: dict[str, Any]) -> str:
    """Store ``records`` (in order: their position is the ordinal) as a finished import run; its id.

    A failure on the way leaves the run ``failed`` (or ``interrupted``) with the reason, never
    ``running``; a process killed on the way leaves it to :func:`rageval.store.owners.reap`.
    """
    stored = StoredImport.begin(project, config, len(records))
    with stored.owned():
        stored.save(list(enumerate(records)))
    return stored.run_id


@dataclass
class StoredImport:
    """An import run being written batch by batch by this process (its owner, with a heartbeat).

    ``score`` stores each batch of scored rows as it is done, so a ``score`` killed mid-way keeps
    what it stored; the dead owner is found by :func:`rageval.store.owners.reap` (the run is shown
    ``interrupted`` with ``score INPUT --resume ID``) and :meth:`resume` continues it, skipping the
    stored ids. ``done_ids`` are the ids stored so far.
    """

    project: Project
    run_id: str
    done_ids: set[str]
    config: dict[str, Any]

    @classmethod
    def begin(cls, project: Project, config: dict[str, Any], n_items: int) -> "StoredImport":
        run_id = new_run_id()
        store.create_run(project.db_path, run_id, kind="import", corpus=None, qa_set=None, config=config,
                         config_hash=stable_hash(config), n_items=n_items)
        return cls(project, run_id, set(), config)

    @classmethod
    def resume(cls, project: Project, run_id: str, config: dict[str, Any]) -> "StoredImport":
        """The stopped import run ``run_id``, checked against the ``config`` it is resumed with."""
        state = store.run_state(project.db_path, run_id)
        if state is None:
            raise ConfigError(f"run {run_id!r} does not exist in project {project.slug!r}; see: python -m rageval runs")
        run, _, done = state
        if not isinstance(run.config, ImportConfig):
            raise ConfigError(f"run {run_id} is a pipeline run, not a stored `score`; resume it with: "
                              f"python -m rageval run --resume {run_id}")
        info = owners.other_live_owner(project.db_path, run_id)
        if info is not None:
            raise ConfigError(f"run {run_id} is being scored by process {info['pid']} on {info['host']}; wait for "
                              "it to finish, or stop that process and resume")
        stored = run.config.to_dict()
        for key in ("input_sha256", "metrics", "judge", "language", "embedder"):
            if key in stored and stored[key] != config.get(key):
                raise ConfigError(f"run {run_id} was scored with {key} = {stored[key]!r}, not "
                                  f"{config.get(key)!r}; resume it with the same input and settings, or score "
                                  "it as a new run (leave out --resume)")
        return cls(project, run_id, set(done), stored)

    @contextmanager
    def owned(self) -> Iterator["StoredImport"]:
        """Own the run while the block runs: ``running`` with this process's heartbeat, then
        ``finished``; an exception leaves it ``interrupted`` (Ctrl-C, a busy or full store) or
        ``failed``, with the reason and the command that resumes it."""
        db = self.project.db_path
        store.set_run_status(db, self.run_id, "running")
        owners.claim(db, self.run_id)
        heartbeat = owners.Heartbeat(db, self.run_id).start()
        try:
            yield self
        except StoreFullError as exc:  # say how to go on, with the disk
            _close_stopped(self, exc)
            raise StoreFullError(f"{exc}; then resume with: {self.resume_hint}") from exc
        except BaseException as exc:
            _close_stopped(self, exc)
            raise
        finally:
            heartbeat.stop()
        store.set_run_status(db, self.run_id, "finished")

    @property
    def resume_hint(self) -> str:
        return owners.resume_hint(self.run_id, ImportConfig.from_dict(self.config))

    def save(self, numbered: Sequence[tuple[int, dict[str, Any]]]) -> None:
        """Store ``(ordinal, record)`` pairs in one transaction."""
        save_items(self.project.db_path, self.run_id, (
            ({**rec["item"], "ordinal": ordinal}, rec["scores"], rec["claims"]) for ordinal, rec in numbered))
        self.done_ids.update(rec["item"]["item_id"] for _, rec in numbered)


def _close_stopped(run: StoredImport, exc: BaseException) -> None:
    stopped = isinstance(exc, (KeyboardInterrupt, ProjectBusyError, StoreFullError))
    reason = str(exc) if isinstance(exc, RagevalError) else f"{type(exc).__name__}: {exc}"
    try:
        store.set_run_status(run.project.db_path, run.run_id, "interrupted" if stopped else "failed",
                             f"{reason}; resume with: {run.resume_hint}")
    except Exception:  # the database itself is unusable (a full disk): reap shows it interrupted
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
    problems: tuple[Rejection, ...] = ()  # rows, values and parts refused, with the reason of each


def import_scores(project: Project, out_dir: Path, *, name: str | None = None) -> Imported:
    """Load the Parquet parts of ``out_dir`` (``score --engine ray --out OUT_DIR``) as an import run.

    Parts are read in name order and rows in part order, so ordinals follow the input. Rows
    without a record are counted as rejected; an id seen in an earlier part is counted as a
    duplicate and skipped (the first is kept, as ``score`` keeps the first of a file). Every part
    is validated as ``check`` validates a scored file (:mod:`rageval.metrics.ranges`): a part that
    cannot be read, or a record that is not the JSON ``score`` writes, is rejected with its reason
    (the other parts and rows are kept); an ``ok`` value that is not a finite number inside its
    metric's range is stored ``failed`` with the reason ``rejected: ...``, so ``check --run``
    counts that answer as unscored on that metric.
    """
    from rageval.scoring.parts import read_manifest, part_files

    manifest = read_manifest(out_dir)
    files = part_files(out_dir)
    if not files:
        raise ConfigError(f"{out_dir}: no part-*.parquet files; score into it first with "
                          "`rageval score INPUT --engine ray --out DIR`")
    records, rejected, duplicates, seen, problems = [], 0, 0, set(), []
    for where, rec, why in _records(files):
        if rec is None:
            rejected += 1
            if why:
                problems.append(Rejection(where, None, None, why))
            continue
        item_id = rec["item"]["item_id"]
        if item_id in seen:
            duplicates += 1
            continue
        seen.add(item_id)
        problems += _validate_scores(rec, where)
        records.append(rec)
    config = import_config(name or out_dir.name, manifest["plan"])
    return Imported(save_import_run(project, records, config), len(records), rejected, duplicates, tuple(problems))


def _validate_scores(rec: dict[str, Any], where: str) -> list[Rejection]:
    """Each ``ok`` score of ``rec`` that is not sound becomes ``failed: rejected: ...`` (in place)."""
    out = []
    for row in rec["scores"]:
        if row.get("status") != "ok":
            continue
        found = problem(row["metric"], row.get("value"))
        if found is None:
            row["value"] = sound(row["metric"], row["value"])
            continue
        out.append(Rejection(where, rec["item"]["item_id"], row["metric"], found[1]))
        row.update(value=None, status="failed", reason=f"rejected: {found[1]}")
    return out


def _record_problem(rec: Any) -> str | None:
    """Why ``rec`` is not a record ``score`` writes (an item with an id, a list of score rows), or None."""
    if not isinstance(rec, dict) or not isinstance(rec.get("item"), dict):
        return "the record is not an object with an 'item'"
    item_id = rec["item"].get("item_id")
    if not isinstance(item_id, str) or not item_id.strip():
        return "the record's item has no item_id"
    scores = rec.get("scores")
    if not isinstance(scores, list) or not all(isinstance(s, dict) and isinstance(s.get("metric"), str)
                                               and isinstance(s.get("status"), str) for s in scores):
        return "the record's scores are not a list of rows with a metric and a status"
    if not isinstance(rec.get("claims", []), list):
        return "the record's claims are not a list"
    rec.setdefault("claims", [])
    return None


def _records(files: Iterable[Path]) -> Iterable[tuple[str, dict[str, Any] | None, str | None]]:
    """``(where, record, why not)`` per row of each part; a part that cannot be read is one rejection."""
    import pyarrow.parquet as pq

    for path in files:
        try:
            column = pq.read_table(path, columns=["record"]).column("record").to_pylist()
        except Exception as exc:  # noqa: BLE001 - a damaged or foreign file: pyarrow raises several types
            yield path.name, None, (f"the part cannot be read ({type(exc).__name__}: {str(exc)[:200]}); "
                                    "its rows are skipped")
            continue
        for n, text in enumerate(column, start=1):
            where = f"{path.name} row {n}"
            if text is None:
                yield where, None, None  # scored without a record: an input row the part already rejected
                continue
            try:
                rec = json.loads(text)
            except (ValueError, RecursionError) as exc:
                yield where, None, f"the record is not valid JSON ({str(exc)[:120]})"
                continue
            why = _record_problem(rec)
            yield where, (rec if why is None else None), why


def resumed_settings(project: Project, run_id: str, metrics: str | None) -> dict[str, Any]:
    """``score --resume ID``'s settings, from the stored run: ``metrics`` (comma-separated),
    ``judge``, ``language``, ``embedder`` and AlignCheck's options; ``metrics`` given on the
    command line must be the stored ones. ConfigError for an unknown run or a pipeline run."""
    run = store.get_run(project.db_path, run_id)
    if run is None:
        raise ConfigError(f"run {run_id!r} does not exist in project {project.slug!r}; see: python -m rageval runs")
    config = run.config
    if not isinstance(config, ImportConfig):
        raise ConfigError(f"run {run_id} is a pipeline run, not a stored `score`; resume it with: "
                          f"python -m rageval run --resume {run_id}")
    stored = ",".join(config.metrics)
    if metrics and [m.strip() for m in metrics.split(",") if m.strip()] != list(config.metrics):
        raise ConfigError(f"run {run_id} was scored with --metrics {stored}; leave --metrics out to resume it")
    options = dict(config.options)
    return {"metrics": stored, "judge": config.judge, "language": config.language, "embedder": config.embedder,
            **{key: options[key] for key in ("aligncheck_source", "aligncheck_types") if key in options}}
