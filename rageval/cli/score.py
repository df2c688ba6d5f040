"""``rageval score`` (answers from any RAG system, in this process or on Ray) and ``rageval import-scores``."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rageval.cli.base import (EXIT_OK, EXIT_PARTIAL, Commands, emit, env_default, input_file, judge_help, language_arg,
                              names, progress, project, row_problem, summary_file, workers)
from rageval.cli.rubric import rubric_arg, rubric_files
from rageval.config import RayOptions, RunConfig
from rageval.errors import ConfigError


def cmd_score(args: argparse.Namespace) -> int:
    """Score answers from any RAG system (JSONL/CSV/JSON rows with id, question, answer, contexts, reference)."""
    from rageval.ingest.limits import RowLimits
    from rageval.runs.scoring import score_file

    if not args.metrics and not args.resume:
        raise ConfigError("score needs --metrics NAMES (or --resume ID)")
    if args.engine == "ray":
        if args.resume:
            raise ConfigError("--engine ray resumes by itself: run the same command again (finished parts are kept)")
        return _score_ray(args)
    path = input_file(args.input)
    proj = project(args)
    if args.resume:  # the stored run's settings, not the flags' defaults
        from rageval.scoring.imports import resumed_settings

        vars(args).update(resumed_settings(proj, args.resume, args.metrics))
    metrics, rubrics = rubric_files(args, None if args.no_store else proj, names(args.metrics))
    result = score_file(proj, path.name, path.read_bytes(), metrics, judge=args.judge, embedder=args.embedder,
                        language=args.language, rubrics=rubrics, metric_options=aligncheck_options(args),
                        limits=RowLimits.from_env(field_chars=args.max_field_chars, depth=args.max_depth),
                        store=not args.no_store, details=args.details, concurrency=args.concurrency,
                        use_cache=not args.no_cache, progress=progress(args), workers=args.workers,
                        input_path=str(path.resolve()), resume=args.resume)
    if args.out:
        from rageval.report.score_out import write_rows

        write_rows(Path(args.out), result.rows, result.metrics, source=path.name, details=args.details,
                   records=result.records)
    else:
        sys.stdout.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in result.rows))
    from rageval.text.hygiene import terminal_safe

    for e in result.errors:
        print(terminal_safe(f"{'ERROR' if e.level == 'error' else 'NOTE'} {e}"), file=sys.stderr)
    rejected = [e for e in result.errors if e.level == "error"]
    if args.out:
        summary = {"rows": len(result.rows), "errors": [row_problem(e) for e in rejected],
                   "notes": [row_problem(e) for e in result.errors if e.level != "error"],
                   "run_id": result.run_id, "out": args.out}
        emit(args, summary, f"{len(result.rows)} row(s) scored, {len(rejected)} rejected -> {args.out}",
             summary_file(args.out))
    return EXIT_PARTIAL if rejected else EXIT_OK


def aligncheck_options(args: argparse.Namespace) -> dict[str, str]:
    """AlignCheck's options from ``score``'s flags, only where they differ from the defaults."""
    options = {}
    if args.aligncheck_source != "reference":
        options["aligncheck_source"] = args.aligncheck_source
    if args.aligncheck_types != "all":
        options["aligncheck_types"] = args.aligncheck_types
    return options


def _score_ray(args: argparse.Namespace) -> int:
    """``score --engine ray``: Parquet parts and a _SUCCESS manifest in the --out folder."""
    from rageval.ingest.limits import RowLimits
    from rageval.scale.ray_engine import score_with_ray
    from rageval.scoring.unit import Plan

    if not args.out:
        raise ConfigError("--engine ray writes Parquet parts into a folder: add --out OUT_DIR")
    if args.rubric or "rubric:" in args.metrics:
        raise ConfigError("rubric metrics are not supported with --engine ray yet; score them without --engine")
    plan = Plan.make(args.metrics, judge=args.judge, language=args.language, embedder=args.embedder,
                     details=args.details, options=aligncheck_options(args))
    cache = None if args.no_cache else (args.llm_cache or str(project(args).db_path))
    options = RayOptions(address=args.address, workers=args.workers or RayOptions.workers, batch_size=args.batch_size,
                         part_rows=args.part_rows, num_cpus=args.cpus, concurrency=args.concurrency,
                         use_cache=not args.no_cache, llm_cache=cache,
                         limits=RowLimits.from_env(field_chars=args.max_field_chars, depth=args.max_depth))
    manifest = score_with_ray(args.input, Path(args.out), plan, options, progress=progress(args))
    done = "already complete, nothing scored" if not manifest["scored_parts"] else \
        f"{manifest['scored_parts']} part(s) scored now"
    lines = [f"{manifest['rows']} row(s) in {manifest['parts']} part(s) -> {args.out} ({done}); "
             f"{manifest['rejected']} row(s) without scores"]
    lines += [f"  {m}: {c['ok']} ok, {c['unscored']} unscored, {c['failed']} failed"
              for m, c in manifest["metrics"].items()]
    lines.append(f"load them into the project with: rageval import-scores {args.out} --name NAME")
    emit(args, manifest, "\n".join(lines))
    return EXIT_PARTIAL if manifest["rejected"] else EXIT_OK


def cmd_import_scores(args: argparse.Namespace) -> int:
    """Load the Parquet parts of `score --engine ray --out OUT_DIR` into the project as an import run."""
    from rageval.scoring.imports import import_scores

    out = Path(args.out_dir)
    if not out.is_dir():
        raise ConfigError(f"{out}: no such folder")
    result = import_scores(project(args), out, name=args.name)
    payload = {"run_id": result.run_id, "rows": result.rows, "rejected": result.rejected,
               "duplicates": result.duplicates, "problems": [p.as_dict() for p in result.problems]}
    lines = [f"REJECTED {p}" for p in result.problems]
    lines.append(f"run {result.run_id}: {result.rows} answer(s) imported, {result.rejected} row(s) without scores "
                 f"skipped, {result.duplicates} duplicate id(s) skipped, {len(result.problems)} rejection(s)")
    emit(args, payload, "\n".join(lines))
    return EXIT_PARTIAL if result.problems else EXIT_OK


def register(commands: Commands) -> None:
    p = commands.add("score", cmd_score)
    p.add_argument("input", metavar="INPUT", help="CSV, JSON or JSONL answers (our column names or RAGAS's); "
                   "with --engine ray also Parquet, a folder of shards or a glob")
    p.add_argument("--metrics", help="comma-separated metric names (see `metrics`); required unless --resume")
    p.add_argument("--resume", metavar="ID", help="continue a stored score that stopped (see `runs`): the same INPUT, "
                   "its settings; stored rows are kept, the others scored")
    p.add_argument("--judge", default=RunConfig.judge, help=judge_help())
    p.add_argument("--embedder", default=RunConfig.embedder, help="local | openai:MODEL")
    language_arg(p)
    p.add_argument("--out", metavar="OUT",
                   help="FILE.jsonl, FILE.csv, or part-NNN.parquet for sharded scoring (default: "
                   "JSONL on stdout); with --engine ray, the folder for the parts")
    p.add_argument("--details", action="store_true",
                   help="add each row's claims with verdicts, and AlignCheck's TP / FP / FN facts")
    p.add_argument("--aligncheck-source", choices=("reference", "contexts"), default=RunConfig.aligncheck_source,
                   help="AlignCheck compares the answer's facts with the reference or the joined contexts "
                        "(default: %(default)s)")
    p.add_argument("--aligncheck-types", default=RunConfig.aligncheck_types, metavar="GRANULARITY",
                   help="entity types AlignCheck builds facts for: all | N (top N types by TF-IDF over the file) "
                        "| TYPES (e.g. PERSON,ORG) (default: %(default)s)")
    p.add_argument("--concurrency", type=int, default=RunConfig.concurrency,
                   help="model calls in flight at once; with --engine ray, all workers together (default: %(default)s)")
    p.add_argument("--no-cache", action="store_true", help="ask the models again instead of using cached replies")
    p.add_argument("--no-store", action="store_true", help="do not keep the scored answers in the project")
    rubric_arg(p, " to score too")
    p.add_argument("--progress", action="store_true", help="progress on stderr even when it is not a terminal")
    p.add_argument("--max-field-chars", type=int, metavar="N",
                   help="reject a row with a field longer than N characters "
                   f"(default: $RAGEVAL_MAX_FIELD_CHARS or {env_default('RAGEVAL_MAX_FIELD_CHARS')})")
    p.add_argument("--max-depth", type=int, metavar="N",
                   help="reject a row nested deeper than N levels "
                        f"(default: $RAGEVAL_MAX_DEPTH or {env_default('RAGEVAL_MAX_DEPTH')})")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local: this process; ray: Ray Data workers (needs rageval[ray]; INPUT may then be a "
                        "JSONL/Parquet file, a folder of Parquet shards or a glob; --out is a folder) "
                        "(default: %(default)s)")
    p.add_argument("--workers", type=workers, default=None,
                   help="local: processes computing offline metrics and vectors, one BLAS thread each (default: "
                        "$RAGEVAL_WORKERS, else one per core; 1 = this process only); ray: actors, each holding "
                        f"its models (default: {RayOptions.workers})")
    g = p.add_argument_group("--engine ray")
    g.add_argument("--address", help="join a running cluster: auto, or ray://HOST:10001 (default: a local cluster)")
    g.add_argument("--batch-size", type=int, default=RayOptions.batch_size,
                   help="rows an actor scores at once (default: %(default)s)")
    g.add_argument("--part-rows", type=int, default=RayOptions.part_rows,
                   help="rows per output part (default: %(default)s)")
    g.add_argument("--cpus", type=int, help="CPUs of the local cluster (default: this machine's)")
    g.add_argument("--llm-cache", metavar="FILE",
                   help="DuckDB file holding the LLM cache, on a path every worker sees "
                        "(default: the project's database)")
    p = commands.add("import-scores", cmd_import_scores)
    p.add_argument("out_dir", metavar="OUT_DIR", help="the --out folder of `score --engine ray` (with its _SUCCESS)")
    p.add_argument("--name", help="the run's source name in the app (default: the folder's name)")
