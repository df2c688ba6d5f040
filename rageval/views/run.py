"""The Run page's read model and actions: what a run can start from, its settings (presets, metric
choice, rubrics, the estimate), starting it, and the run list.

The run list first marks ``interrupted`` every ``running`` run whose owner process is gone
(:func:`rageval.store.owners.reap`), so a run killed with its process never shows ``running``
forever; each stopped pipeline run carries the command that resumes it.

Metric choice: every metric (``@K`` families at K = 1, 3, 5, 10 and the run's top-k) and the
project's rubrics are offered; the run defaults the QA set can feed are pre-selected, the others
named with what they miss (:func:`rageval.report.meaning.applicability`).
"""
from __future__ import annotations

from typing import Any, Sequence

from rageval.config import DEFAULT_METRICS, METHODS, ChunkingConfig, RunConfig, run_model
from rageval.errors import ConfigError
from rageval.llm.roles import missing_settings
from rageval.metrics.base import metric_names, parse_metric_list
from rageval.project import Project
from rageval.report import meaning
from rageval.report.exports import table_csv
from rageval.report.leaderboard import judge_label, run_name
from rageval.runs import listing, pipeline
from rageval.runs import presets as preset_store
from rageval.store import corpus as corpus_store
from rageval.store import runs as run_store
from rageval.store.record import Run
from rageval.types import Spec

__all__ = ["RunConfig", "METHODS", "CHUNK_SIZE", "CHUNK_OVERLAP", "TOP_K", "RUBRIC_EXAMPLE", "sources", "presets",
           "preset_state",
           "save_preset", "metric_options", "metric_defaults", "build_config", "add_rubric", "llm_warnings",
           "check_models", "start_run", "estimate_text", "runs", "get_run", "resume_command",
           "resumable", "run_rows", "run_name", "table_csv"]

#: the defaults the settings form starts from (rageval.config: defaults live there only)
CHUNK_SIZE, CHUNK_OVERLAP, TOP_K = ChunkingConfig.size, ChunkingConfig.overlap, RunConfig.top_k
#: the widget key of each model role's choice (``<key>_model`` holds an online model's name)
ROLE_KEYS = {"embedder": "run_embedder", "generator": "run_generator", "judge": "run_judge"}
#: the K values offered for every ``@K`` metric family (beside the run's top-k)
K_CHOICES = (1, 3, 5, 10)

#: the rubric the Run page's form starts from (rageval.prompts.rubric describes the format)
RUBRIC_EXAMPLE = """name = "politeness"
description = "Is the answer polite and professional towards a customer?"
criteria = ["greets or thanks where natural", "never blames the customer", "no slang"]
needs = []  # add "reference" or "contexts" to show them to the judge

[anchors]
1 = "rude or dismissive"
2 = "curt, or blames the customer"
3 = "neutral: neither polite nor rude"
4 = "polite, with a small lapse"
5 = "polite, warm and professional throughout"
"""


def sources(project: Project) -> tuple[list[str], list[str]]:
    """(corpora with documents, QA sets with items): what a new run can be started from."""
    corpora = [c["name"] for c in corpus_store.corpora(project.db_path) if c["documents"]]
    sets = [s["name"] for s in run_store.qa_sets(project.db_path) if s["items"]]
    return corpora, sets


def preset_spec(role: str, text: Any) -> Spec | None:
    """The spec a saved preset holds for ``role``, None when it holds none (or an unusable one)."""
    try:
        return Spec.parse(role, str(text)) if text else None
    except ConfigError:
        return None


def llm_warnings(config: RunConfig | None) -> list[str]:
    """What to set for each online role of the config (generator, judge, embedder) that has neither a key
    nor a server (:func:`rageval.llm.roles.missing_settings`); none without a config."""
    if config is None:
        return []
    return missing_settings(config.roles())


def presets(project: Project) -> dict[str, dict[str, Any]]:
    """The project's saved presets: name -> settings (everything but the corpus and QA set)."""
    return preset_store.presets(project)


def preset_state(chosen: dict[str, Any]) -> dict[str, Any]:
    """The settings form's widget values (key -> value) for the saved preset ``chosen``; a role's online
    model sets ``<key>`` to ``"openai"`` and ``<key>_model`` to the model; ``run_metrics_pending`` holds
    the metrics, applied once the options are known."""
    ch = chosen.get("chunking") or {}
    state: dict[str, Any] = {
        "run_method": ch.get("method", ChunkingConfig.method), "run_size": int(ch.get("size", ChunkingConfig.size)),
        "run_overlap": int(ch.get("overlap", ChunkingConfig.overlap)),
        "run_top_k": int(chosen.get("top_k", RunConfig.top_k)), "run_temperature": float(chosen.get("temperature",
                                                                                                    0.0))}
    for role, key in ROLE_KEYS.items():
        spec = preset_spec(role, chosen.get(role))
        if spec is not None and spec.online:
            state[key], state[f"{key}_model"] = "openai", spec.model
        elif spec is not None:
            state[key] = str(spec)
    state["run_metrics_pending"] = list(chosen.get("metrics") or [])
    return state


def save_preset(project: Project, name: str, config: RunConfig) -> None:
    """Save ``config`` as preset ``name``; ConfigError names a name that cannot be used."""
    preset_store.save_preset(project, name, config.to_dict())


def offered_metrics(top_k: int = 10) -> list[str]:
    """Metric names a user can pick (here and when scoring a file): ``@K`` families offered at
    :data:`K_CHOICES` and ``top_k``."""
    out: list[str] = []
    for name in metric_names():
        if name.endswith("@K"):
            out += [f"{name[:-2]}@{k}" for k in sorted(set(K_CHOICES) | {top_k})]
        else:
            out.append(name)
    return out


def run_defaults(options: Sequence[str]) -> list[str]:
    """The run defaults (config.DEFAULT_METRICS) that are available in ``options``."""
    return [m for m in DEFAULT_METRICS if m in options]


def metric_options(project: Project, top_k: int) -> list[str]:
    """Every metric a run can compute (:func:`offered_metrics`), then the project's rubrics (``rubric:NAME``)."""
    from rageval.runs.rubrics import project_rubrics

    return offered_metrics(top_k) + [r.metric for r in project_rubrics(project).values()]


def metric_defaults(project: Project, qa_set: str, options: Sequence[str]) -> tuple[list[str], list[str], dict[str,
                                                                                                               str]]:
    """(pre-selected metrics, defaults left out, metric -> what the QA set lacks for it)."""
    cannot = meaning.applicability(options, meaning.available_inputs(run_store.qa_items(project.db_path, qa_set),
                                                                     pipeline=True))
    defaults = run_defaults(options)
    return [m for m in defaults if m not in cannot], sorted({m for m in defaults if m in cannot}), cannot


def build_config(project: Project, *, metrics: Sequence[str], aligncheck_source: str, aligncheck_types: str,
                 method: str, size: int, overlap: int, **settings: Any) -> RunConfig:
    """The RunConfig of the form's settings, with the rubrics its metrics name; ConfigError says what to fix."""
    from rageval.runs.rubrics import resolve

    rubrics = resolve(list(metrics), {}, project)
    if metrics:  # ConfigError when a metric rejects an option value (e.g. aligncheck_types="0")
        parse_metric_list(list(metrics), aligncheck_source=aligncheck_source, aligncheck_types=aligncheck_types,
                          rubrics={r.name: r for r in rubrics})
    return RunConfig(chunking=ChunkingConfig(method=method, size=int(size), overlap=int(overlap)),
                     metrics=tuple(metrics), aligncheck_source=aligncheck_source, aligncheck_types=aligncheck_types,
                     rubrics=rubrics, **settings)


def add_rubric(project: Project, text: str) -> Any:
    """Parse a rubric written as TOML and store it in the project (offered as ``rubric:NAME``; the call
    ``rageval rubric add`` makes); ConfigError says what to fix."""
    from rageval.runs.rubrics import add_rubric_text

    return add_rubric_text(project, text)


def check_models(project: Project, config: RunConfig) -> None:
    """Refuse a config whose LLM roles lack a key or a reachable server (ConfigError, LLMError)."""
    pipeline.check_models(project, config)


def start_run(project: Project, config: RunConfig) -> str:
    """Record a pending run of ``config``; returns its id (the page hands it to the background worker)."""
    return pipeline.start_run(project, config)


def estimate_text(project: Project, config: RunConfig) -> str | None:
    """The upper-bound estimate of model calls, tokens and cost, None when every role is offline."""
    est = pipeline.estimate(project, config)
    return None if est is None else pipeline.estimate_text(est)


def runs(project: Project) -> list[Run]:
    """Every run, newest first, after dead runs are marked ``interrupted`` (as ``rageval runs`` lists them)."""
    return listing.listed_runs(project)


def get_run(project: Project, run_id: str) -> Run | None:
    return run_store.get_run(project.db_path, run_id)


def _when(moment: Any) -> str:
    """``2026-12-03 12:49:42`` for a time, "" for none."""
    return f"{moment:%Y-%m-%d %H:%M:%S}" if hasattr(moment, "strftime") else ""


def resume_command(run: Run) -> str:
    """``python -m rageval run --resume ID`` for a stopped pipeline run, else "" (:mod:`rageval.runs.listing`)."""
    return listing.resume_command(run)


def resumable(run: Run, *, active: bool) -> bool:
    """A pipeline run that stopped before finishing and is not being executed right now."""
    return run.kind == "pipeline" and run.status != "finished" and not active


def run_rows(project: Project, listed: list[Run] | None = None, *,
             live: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The run list as table rows with a readable name; empty cells are "", never the text "None".

    ``listed`` is :func:`runs` when the caller already has it (dead runs are reaped there).
    ``live`` maps the ids of runs executing in this process to their progress
    (:class:`rageval.runs.worker.Progress`): their status is what the progress bar says
    (``answering 3/10``), so the table and the bar never disagree.
    """
    rows = []
    live = live or {}
    for r in runs(project) if listed is None else listed:
        rows.append({
            "name": run_name(r), "status": live[r.id].short() if r.id in live else r.status,
                     "done": f"{r.done}/{r.n_items}",
            "failed": r.failed, "judge": judge_label(r), "generator": run_model(r.config),
            # times as text, one type per column: a running run's empty "finished" beside datetimes made
            # Streamlit log an Arrow conversion traceback on every redraw of the table
            "started": _when(r.started or r.created), "finished": _when(r.finished),
            "error": r.error or "", "resume": resume_command(r), "run": r.id,
        })
    return rows
