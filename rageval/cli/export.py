"""``rageval export`` (a run's rows as a file) and ``rageval report`` (a run as one HTML page)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rageval.cli.base import EXIT_OK, Commands, emit, project, summary_file
from rageval.errors import ConfigError
from rageval.project import Project


def cmd_export(args: argparse.Namespace) -> int:
    """Export a run, one row per QA item with contexts and scores, as JSONL, CSV, Parquet or RAGAS JSONL."""
    from rageval.report.exports import export_run

    text = export_run(project(args), args.run, args.format, Path(args.out) if args.out else None,
                      details=args.details)
    if text is not None:
        sys.stdout.write(text)
    elif args.json:
        emit(args, {"run_id": args.run, "out": args.out, "format": args.format}, "", summary_file(args.out))
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    """Write a one-page HTML report of a run (summary, distributions, worst answers with claims)."""
    from rageval.files import write_atomic
    from rageval.report.html import run_report_html
    from rageval.views.trust import report_section

    proj = project(args)
    per_question = None
    if args.baseline:
        from rageval.views.regressions import regressions

        per_question = regressions(proj, args.baseline, args.run,
                                   args.metric or _shared_metric(proj, args.baseline, args.run))
    page = run_report_html(proj, args.run, regressions=per_question, sections=[report_section(proj, args.run)])
    write_atomic(args.out, page)
    emit(args, {"run_id": args.run, "out": args.out, "bytes": len(page.encode()), "baseline": args.baseline},
         f"report of run {args.run} -> {args.out}", summary_file(args.out))
    return EXIT_OK


def _shared_metric(proj: Project, run_a: str, run_b: str) -> str:
    """The metric a per-question list uses when none is named: the first of the leaderboard's main
    metrics (then any metric, by name) that both runs scored."""
    from rageval.report.leaderboard import MAIN_METRICS
    from rageval.report.summary import run_summaries
    from rageval.store import runs as run_store

    for rid in (run_a, run_b):
        if run_store.get_run(proj.db_path, rid) is None:
            raise ConfigError(f"run {rid!r} does not exist in project {proj.slug!r}; see: rageval runs")

    def scored(run_id: str) -> set[str]:
        return {s.metric for s in run_summaries(proj, run_id) if s.n_ok}

    both = scored(run_a) & scored(run_b)
    for m in [*MAIN_METRICS, *sorted(both)]:
        if m in both:
            return m
    raise ConfigError(f"runs {run_a} and {run_b} have no metric scored by both; nothing to list per question")


def register(commands: Commands) -> None:
    p = commands.add("export", cmd_export)
    p.add_argument("--run", required=True, metavar="ID", help="run id (see `runs`)")
    p.add_argument("--format", choices=("jsonl", "csv", "parquet", "ragas"), default="jsonl",
                   help="ragas: JSONL with user_input, response, retrieved_contexts, reference, which `score` "
                        "reads back (default: %(default)s)")
    p.add_argument("--out", metavar="FILE",
                   help="file to write; - or a pipe streams (default: stdout; parquet needs --out)")
    p.add_argument("--details", action="store_true", help="add each row's claims: the settled verdict, who settled "
                   "it (people, a judge, a copy) and every source's verdict")
    p = commands.add("report", cmd_report)
    p.add_argument("--run", required=True, metavar="ID", help="run id (see `runs`)")
    p.add_argument("--out", required=True, metavar="FILE", help="HTML file to write, e.g. report.html (- for stdout)")
    p.add_argument("--baseline", metavar="ID", help="also list the questions that got worse / better since this run")
    p.add_argument("--metric", help="the metric of that list (default: the report's main metric)")
