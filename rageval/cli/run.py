"""``rageval run`` (retrieve -> generate -> evaluate, or resume) and ``rageval runs``."""
from __future__ import annotations

import argparse
import sys

from rageval.cli.base import (EXIT_OK, EXIT_PARTIAL, Commands, chunk_args, emit, judge_help, language_arg, names,
                              progress, project)
from rageval.cli.rubric import rubric_arg, rubric_files
from rageval.config import ImportConfig, RunConfig
from rageval.errors import ConfigError
from rageval.util import shown


def cmd_run(args: argparse.Namespace) -> int:
    """Run retrieve -> generate -> evaluate over a QA set, or resume a run with --resume ID."""
    from rageval.runs.label_chunking import chunking_note
    from rageval.runs.pipeline import execute, start_run

    proj = project(args)
    notes: list[str] = []
    if args.resume:
        run_id, context = args.resume, _resume_context(proj, args.resume)
        found = context.run
        if found.status == "finished" and found.done >= found.n_items:
            emit(args, {"run_id": run_id, "status": "finished", "items": found.n_items, "done": found.done,
                        "failed": found.failed, "seconds": 0.0, "resumed": False},
                 f"run {run_id} is already finished ({found.done}/{found.n_items} items); nothing to resume. "
                 f"See its scores with: rageval report --run {run_id} --out report.html")
            return EXIT_OK
    else:
        config = _config(args, proj)
        if args.dry_run:
            return _dry_run(args, proj, config)
        run_id, context = start_run(proj, config), None
        notes = [n for n in [chunking_note(proj, config)] if n]
        for note in notes:
            print(f"NOTE {note}", file=sys.stderr)
    summary = execute(proj, run_id, progress=progress(args), workers=args.workers, context=context)
    if progress(args) is not None:
        print(file=sys.stderr)
    from rageval.report.summary import run_summaries

    scores = run_summaries(proj, run_id)
    payload = {"run_id": summary.run_id, "status": summary.status, "items": summary.items,
               "done": summary.done, "failed": summary.failed, "seconds": summary.seconds,
               "scores": [{"metric": s.metric, "mean": s.mean, "scored": s.n_ok,
                           "unscored": s.n_unscored + s.n_failed} for s in scores], "notes": notes}
    emit(args, payload, f"{summary.run_id}\n{summary.status}: {summary.done}/{summary.items} items, "
                        f"{summary.failed} failed, {summary.seconds} s\n" + score_lines(scores))
    return EXIT_PARTIAL if summary.failed else EXIT_OK


def _resume_context(proj, run_id: str):
    """The stored run's context, read once and handed to ``execute``."""
    from rageval.runs.context import load_context

    try:
        return load_context(proj, run_id)
    except ConfigError as exc:
        raise ConfigError(f"{exc}; see: python -m rageval runs") from None


def _config(args: argparse.Namespace, proj) -> RunConfig:
    """The new run's RunConfig from the flags (the metrics default to config.DEFAULT_METRICS)."""
    from rageval.config import DEFAULT_METRICS, ChunkingConfig

    if not args.corpus or not args.qa:
        raise ConfigError("run needs --corpus NAME and --qa NAME (or --resume ID)")
    metrics, rubrics = rubric_files(args, proj, names(args.metrics) if args.metrics else list(DEFAULT_METRICS))
    return RunConfig(
        corpus=args.corpus, qa_set=args.qa,
        chunking=ChunkingConfig(method=args.chunking, size=args.chunk_size, overlap=args.chunk_overlap),
        embedder=args.embedder, top_k=args.top_k, generator=args.generator,
        temperature=args.temperature, judge=args.judge,
        metrics=tuple(metrics), rubrics=rubrics,
        language=args.language, concurrency=args.concurrency, use_cache=not args.no_cache,
    )


def _dry_run(args: argparse.Namespace, proj, config: RunConfig) -> int:
    """``run --dry-run``: the model calls, tokens and cost the run would take; nothing is run."""
    from rageval.runs.pipeline import estimate, estimate_text

    est = estimate(proj, config)
    text = "no model calls: every role is offline" if est is None else estimate_text(est)
    payload = {"calls": 0} if est is None else {"calls": est.calls, "tokens_in": est.tokens_in,
                                                "tokens_out": est.tokens_out, "cost_usd": est.cost_usd}
    emit(args, payload, text)
    return EXIT_OK


def score_lines(scores: list) -> str:
    """``metric  mean  scored/unscored  direction`` lines, one per metric."""
    from rageval.report.meaning import info

    if not scores:
        return "no metric scores"
    lines = [f"{'metric':<28} {'mean':>7}  {'scored':>6}  {'unscored':>8}  direction"]
    for s in scores:
        lines.append(f"{s.metric:<28} {shown(s.mean):>7}  {s.n_ok:>6}  {s.n_unscored + s.n_failed:>8}  "
                     f"{info(s.metric).direction}" + ("  (heuristic judge)" if s.heuristic else ""))
    return "\n".join(lines)


def _source(run) -> str:
    """What a run scored: an import's file name, else its QA set."""
    return run.config.source if isinstance(run.config, ImportConfig) else run.qa_set


def cmd_runs(args: argparse.Namespace) -> int:
    """List runs: id, status, created, items done / failed."""
    from rageval.runs.listing import listed_runs, resume_command

    runs = listed_runs(project(args))
    hint = {r.id: resume_command(r) for r in runs if resume_command(r)}
    payload = {"runs": [{**{k: getattr(r, k) for k in ("id", "kind", "status", "created", "corpus", "qa_set",
                                                       "n_items", "done", "failed", "error")},
                         **({"resume": hint[r.id]} if r.id in hint else {})} for r in runs]}
    header = f"{'id':<23} {'status':<11} {'created':<16}  {'items':<22} source"
    text = "\n".join([header] + [f"{r.id:<23} {r.status:<11} {r.created:%Y-%m-%d %H:%M}  "
                     f"{r.done}/{r.n_items} done, {r.failed} failed  {_source(r)}"
                     + (f"\n    resume with: {hint[r.id]}" if r.id in hint else "")
                     for r in runs]) if runs else "no runs yet"
    emit(args, payload, text)
    return EXIT_OK


def cmd_reindex(args: argparse.Namespace) -> int:
    """Give the project Chroma collections of its own (after a restore or a copy shares them): a new id."""
    from rageval.store.meta import reindex

    proj = project(args)
    new = reindex(proj.db_path)
    emit(args, {"project": proj.slug, "project_id": new},
         f"project {proj.slug} now has the id {new}: its next ingest or run indexes its chunks into "
         "collections of its own (vectors from the embedding cache)")
    return EXIT_OK


def register(commands: Commands) -> None:
    p = commands.add("run", cmd_run)
    p.add_argument("--corpus", help="corpus to retrieve from (see `ingest`)")
    p.add_argument("--qa", help="QA set to answer (see `qa import`)")
    p.add_argument("--resume", metavar="ID", help="continue an interrupted run; finished items are kept")
    p.add_argument("--top-k", type=int, default=RunConfig.top_k,
                   help="chunks retrieved per question, 1-100 (default: %(default)s)")
    p.add_argument("--generator", default=RunConfig.generator, help="extractive | openai:MODEL")
    p.add_argument("--temperature", type=float, default=RunConfig.temperature,
                   help="sampling temperature of an LLM generator, 0-2 (default: %(default)s)")
    p.add_argument("--judge", default=RunConfig.judge, help=judge_help())
    p.add_argument("--metrics", help="comma-separated metric names (default: a cheap offline set)")
    language_arg(p)
    p.add_argument("--concurrency", type=int, default=RunConfig.concurrency,
                   help="model calls in flight at once (default: %(default)s)")
    p.add_argument("--no-cache", action="store_true", help="ask the models again instead of using cached replies")
    p.add_argument("--dry-run", action="store_true", help="estimate model calls, tokens and cost; run nothing")
    rubric_arg(p, ", stored in the project and scored")
    chunk_args(p)
    commands.add("runs", cmd_runs)
    commands.add("reindex", cmd_reindex)
