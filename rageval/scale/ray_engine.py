"""``score --engine ray``: the unit of work over Ray Data, on a local cluster or an existing one.

The input is cut into deterministic parts (:mod:`rageval.scoring.parts`); the parts not yet in
OUT_DIR become a Ray dataset of part descriptions, mapped by a fixed pool of actors
(``map_batches`` with a callable class and ``ActorPoolStrategy(size=workers)``), each holding
its models (MiniLM, spaCy, the learned verifier, an LLM client) for its whole life. An actor
reads its part's rows itself, scores them ``batch_size`` at a time with
:func:`rageval.scoring.unit.score_rows_table`, and writes the part file; the driver only streams
one small summary row per part, for progress. So memory on the driver stays flat whatever the
input size, and every value is the one ``score`` gives in one process.

Failures, from small to large:

- a batch that raises (beyond a metric's own failure, which :func:`evaluate` already turns into
  ``failed`` scores) is retried ``retries`` times, then its rows are written ``failed:
  batch_error: ...``;
- an actor that dies (killed, out of memory) is restarted by Ray and its part retried up to
  ``retries`` times; a part still without a file after that is written by the driver with every
  row ``failed: worker_lost: ...``, so no row is ever dropped;
- an interrupted run leaves whole part files only; the same command again scores only the rest.

Judged metrics: each of the ``workers`` actors gets ``concurrency // workers`` calls in flight
and ``1/workers`` of each role's ``RAGEVAL_<ROLE>_RPM`` / ``_TPM`` cap, so the pool together never
exceeds the limits given for one process (``workers`` is lowered to ``concurrency`` when it
is larger). The actors share one LLM cache, a DuckDB file every worker can open (``llm_cache``,
by default the project's database), so a second run makes no calls.

Ray is imported here only, when this engine is used; without it, :func:`require_ray` says how
to install the extra.
"""
from __future__ import annotations

import logging
import os
import secrets
import shutil
import time
import warnings
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from rageval.config import RayOptions, RunConfig
from rageval.errors import ConfigError
from rageval.ingest.limits import RowLimits
from rageval.scoring.parts import (
    Part, finish, list_inputs, part_path, plan_parts, read_manifest, read_part, start_plan, write_part,
)
from rageval.scoring.unit import Plan, failed_table, score_rows_table, to_arrow
from rageval.types import Spec

INSTALL_HINT = 'pip install "rageval[ray]"  (Ray Data 2.60.0)'
#: the environment an actor needs to reach the models (per role, then shared), and nothing else
ROLE_VARIABLES = ("BASE_URL", "API_KEY", "RPM", "TPM")


def require_ray() -> Any:
    """The ``ray`` module, or a ConfigError saying how to install it."""
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError:
        raise ConfigError(f"--engine ray needs Ray, which is not installed; install it with: {INSTALL_HINT}") from None
    return ray


def llm_settings(plan: Plan, options: RayOptions, env: Mapping[str, str] = os.environ) -> dict[str, Any] | None:
    """What each actor needs to build its LLM client (None when every role is offline): the
    models, its share of ``concurrency`` and of the roles' RPM/TPM caps, and the environment."""
    models = {role: spec for role, spec in (("judge", plan.judge), ("embedder", plan.embedder))
              if Spec.parse(role, spec).online}
    if not models:
        return None
    workers = min(options.workers, options.concurrency)
    names = [f"OPENAI_{v}" for v in ("BASE_URL", "API_KEY")]
    names += [f"RAGEVAL_{role.upper()}_{v}" for role in models for v in ROLE_VARIABLES]
    share = {k: env[k] for k in names if env.get(k)}
    for role in models:
        for cap in ("RPM", "TPM"):
            key = f"RAGEVAL_{role.upper()}_{cap}"
            if share.get(key):
                share[key] = str(max(1, int(float(share[key])) // workers))
    return {"models": models, "concurrency": max(1, options.concurrency // workers), "env": share,
            "store_path": options.llm_cache, "use_cache": options.use_cache}


class ScoreActor:
    """One Ray actor: its models, loaded once; ``__call__`` scores and writes the parts it is given."""

    def __init__(self, plan: dict[str, Any], out_dir: str, batch_size: int, retries: int,
                 llm: dict[str, Any] | None = None, limits: RowLimits | None = None):
        from rageval.llm.session import ModelSession

        if llm is not None:  # the driver's server settings (and this actor's caps) before any metric
            os.environ.update(llm["env"])  # reads them: a judged signature names its server
        self.plan = Plan.from_dict(plan)
        self.metrics = self.plan.build()
        self.out_dir = Path(out_dir)
        self.batch_size, self.retries, self.limits = batch_size, retries, limits
        shared = llm or {}  # this actor's share of the calls in flight, the shared cache file
        self.session = ModelSession.open({"judge": self.plan.judge, "embedder": self.plan.embedder},
                                         store_path=shared.get("store_path"),
                                         concurrency=shared.get("concurrency", RunConfig.concurrency),
                                         use_cache=shared.get("use_cache", True))
        self.resources = self.session.resources(self.plan.language)

    def __call__(self, batch: Any) -> Any:
        import pyarrow as pa

        out = []
        for desc in batch.to_pylist():
            part = Part(**desc)
            started = time.monotonic()
            if not part_path(self.out_dir, part.name).exists():  # an earlier attempt may have finished it
                write_part(self.out_dir, part.name, self.score_part(part))
                self.session.flush()  # the part's replies reach the shared cache before the next part
            out.append({"name": part.name, "rows": part.rows, "seconds": time.monotonic() - started,
                        "pid": os.getpid()})
        return pa.Table.from_pylist(out)

    def score_part(self, part: Part) -> Any:
        """Every row of ``part`` scored, ``batch_size`` row numbers at a time, in order."""
        import pyarrow as pa

        table = read_part(part, self.limits)
        pieces = []
        for lo in range(part.first_row, part.first_row + part.rows, self.batch_size):
            piece = _slice(table, lo, lo + self.batch_size)
            if piece.records or piece.problems:
                pieces.append(self.score_batch(piece))
        if not pieces:  # a part of blank lines only
            return to_arrow([], [], [m.name for m in self.metrics], source=table.source, details=self.plan.details)
        return pa.concat_tables(pieces)

    def score_batch(self, piece: Any) -> Any:
        """One batch through the unit; retried, then every row ``failed: batch_error: ...``."""
        error: Exception | None = None
        for _ in range(self.retries + 1):
            try:
                return score_rows_table(piece, self.plan, self.resources, metrics=self.metrics)
            except Exception as exc:  # noqa: BLE001 - reported in the rows, never dropped
                error = exc
        ids = sorted((n, str(rec.get("id") or "").strip() or f"row{n}") for n, rec in piece.records)
        return failed_table([i for _, i in ids], [m.name for m in self.metrics],
                            f"batch_error: {type(error).__name__}: {str(error)[:300]}", source=piece.source,
                            details=self.plan.details)


def _slice(table: Any, lo: int, hi: int) -> Any:
    """The rows of ``table`` numbered ``lo .. hi - 1`` (records and their problems)."""
    from rageval.ingest.rows import Table

    piece = Table(table.source, columns=table.columns)
    piece.records = [(n, r) for n, r in table.records if lo <= n < hi]
    piece.problems = [p for p in table.problems if lo <= p.row < hi]
    return piece


def score_with_ray(input_spec: str, out_dir: Path, plan: Plan, options: RayOptions, *,
                   progress: Callable[[str, int, int], None] | None = None,
                   actor: type = ScoreActor) -> dict[str, Any]:
    """Score ``input_spec`` into ``out_dir`` (see the module docstring); returns the manifest
    plus ``"scored_parts"`` (parts scored by this call; 0 when everything was already there)."""
    if options.workers < 1 or options.batch_size < 1 or not 0 < options.cpus_per_worker:
        raise ConfigError(f"workers={options.workers} and batch_size={options.batch_size} must be at least 1 "
                          f"and cpus_per_worker={options.cpus_per_worker} above 0")
    _check_batch_free(plan)
    files = list_inputs(input_spec)
    parts = plan_parts([f.resolve() for f in files], options.part_rows)
    info = {**plan.to_dict(), "metric_names": plan.names(), "part_rows": options.part_rows}
    start_plan(out_dir, info, parts)
    todo = [p for p in parts if not part_path(out_dir, p.name).exists()]
    started = time.monotonic()
    if not todo and (out_dir / "_SUCCESS").exists():
        return {**read_manifest(out_dir), "scored_parts": 0}
    if todo:
        ray = require_ray()
        temp = _init(ray, options)
        try:
            errors = _run(ray, todo, out_dir, info, options, progress, actor)
        finally:
            if temp is not None:
                ray.shutdown()
                shutil.rmtree(temp, ignore_errors=True)
        for part in todo:
            if not part_path(out_dir, part.name).exists():
                _write_lost(out_dir, part, info, errors or "the part's worker died after every retry",
                            options.limits)
    manifest = finish(out_dir, info, parts, time.monotonic() - started)
    return {**manifest, "scored_parts": len(todo)}


def _check_batch_free(plan: Plan) -> None:
    """Refuse settings whose values depend on the rows scored together (not split-exact)."""
    types = dict(plan.options).get("aligncheck_types", "all")
    if str(types).strip().isdigit():
        raise ConfigError(f"aligncheck_types={types!r} picks the top entity types over the whole file, so its "
                          "values depend on how rows are split; with --engine ray name the types "
                          "(e.g. --aligncheck-types PERSON,ORG) or use 'all'")


def _init(ray: Any, options: RayOptions) -> str | None:
    """Join ``options.address``, or start a local cluster bound to 127.0.0.1 (returns its temp dir,
    to remove at the end). A cluster already started in this process is used as it is. A local
    cluster's folder is marked with this driver and watched (:mod:`rageval.scale.ray_cleanup`), so a
    driver killed with SIGKILL leaves no Ray process or folder behind."""
    if ray.is_initialized():
        return None
    quiet = {"logging_level": "WARNING", "log_to_driver": False}
    if options.address:
        ray.init(address=options.address, **quiet)
        return None
    from rageval.scale import ray_cleanup

    ray_cleanup.clean_orphans()  # the leftovers of a driver killed before its watcher could act
    # Unix socket paths are capped at 107 bytes, so the session folder must be short
    temp = options.temp_dir or f"/tmp/{ray_cleanup.PREFIX}{secrets.token_hex(3)}"
    ray_cleanup.mark(Path(temp))
    ray_cleanup.watch(Path(temp))  # removes the cluster's processes and folder if this process is killed
    ray.init(num_cpus=options.num_cpus or os.cpu_count() or 2, _node_ip_address="127.0.0.1", _temp_dir=temp,
             include_dashboard=False, **quiet)
    return temp


def _run(ray: Any, todo: Sequence[Part], out_dir: Path, info: dict[str, Any], options: RayOptions,
         progress: Callable[[str, int, int], None] | None, actor: type) -> str | None:
    """Map the parts over the actor pool, streaming one summary row per part; the error, if any."""
    from ray.data import ActorPoolStrategy, DataContext

    logging.getLogger("ray.data").setLevel(logging.WARNING)  # our progress on stderr, not Ray's plan logs
    ctx = DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.max_errored_blocks = -1  # a part that fails after its retries is reported; the others go on
    plan = Plan.from_dict(info)
    llm = llm_settings(plan, options)
    workers = min(options.workers, options.concurrency) if llm else options.workers
    workers = min(workers, len(todo))
    ds = ray.data.from_items([asdict(p) for p in todo], override_num_blocks=len(todo))
    with warnings.catch_warnings():
        # max_task_retries has no named parameter in Ray 2.60; without it Ray Data retries a part
        # whose worker keeps dying for ever (-1), so it goes through the deprecated **ray_remote_args
        warnings.filterwarnings("ignore", message=".*ray_remote_args.*deprecated")
        ds = ds.map_batches(
            actor, batch_size=1, batch_format="pyarrow", compute=ActorPoolStrategy(size=workers),
            num_cpus=options.cpus_per_worker, max_restarts=-1, max_task_retries=options.retries,
            fn_constructor_kwargs={"plan": plan.to_dict(), "out_dir": str(out_dir.resolve()),
                                   "batch_size": options.batch_size, "retries": options.retries, "llm": llm,
                                   "limits": options.limits},
        )
    total_rows = sum(p.rows for p in todo)
    done_rows = 0
    try:
        for row in ds.iter_rows():
            done_rows += int(row["rows"])
            if progress is not None:
                progress("rows", done_rows, total_rows)
    except Exception as exc:  # noqa: BLE001 - the parts not written are marked failed by the caller
        return f"worker_lost: {type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}"
    return None


def _write_lost(out_dir: Path, part: Part, info: dict[str, Any], reason: str, limits: RowLimits | None) -> None:
    """Part ``part`` written with every row failed (its worker kept dying): ids kept, nothing dropped."""
    table = read_part(part, limits)
    ids = sorted([(n, str(rec.get("id") or "").strip() or f"row{n}") for n, rec in table.records]
                 + [(p.row, f"row{p.row}") for p in table.problems if p.level == "error" and p.row])
    reason = reason if reason.startswith("worker_lost") else f"worker_lost: {reason}"
    write_part(out_dir, part.name, failed_table([i for _, i in ids], info["metric_names"], reason, source=table.source,
                                                details=bool(info["details"])))

