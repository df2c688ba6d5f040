"""``python -m rageval``: ingest documents, import QA sets, run, score and export.

Exit codes: 0 success; 1 some inputs failed but the rest were processed (or the command
failed at run time); 2 unusable arguments. ``--json`` prints one JSON object on stdout.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from rageval.errors import ConfigError, InputError, RagevalError

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse exits 2 on usage errors; keep that, without noise
        self.print_usage(sys.stderr)
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _emit(args: argparse.Namespace, payload: dict[str, Any], text: str) -> None:
    print(json.dumps(payload, ensure_ascii=False, default=str) if args.json else text)


def _progress(args: argparse.Namespace) -> Callable[[str, int, int], None] | None:
    """Progress on stderr: one updating line per phase on a terminal; with ``--progress`` (or
    RAGEVAL_PROGRESS=1) also when stderr is a file or pipe, as plain lines at most once a second."""
    import os
    import time

    forced = getattr(args, "progress", False) or os.environ.get("RAGEVAL_PROGRESS") == "1"
    tty = sys.stderr.isatty()
    if args.json and not forced or not (tty or forced):
        return None
    state = {"phase": None, "at": 0.0}

    def report(phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        if tty:
            newline = "\n" if state["phase"] not in (None, phase) else ""
            end = "\n" if done >= total else ""
            print(f"{newline}\r{phase}: {done}/{total}", end=end, file=sys.stderr, flush=True)
        elif phase != state["phase"] or done >= total or now - state["at"] >= 1.0:
            print(f"{phase}: {done}/{total}", file=sys.stderr, flush=True)
            state["at"] = now
        state["phase"] = phase

    return report


def _project(args: argparse.Namespace):
    from rageval.project import open_project

    return open_project(args.project)


def cmd_ingest(args: argparse.Namespace) -> int:
    """Load, chunk, store and index documents (PDF, TXT, MD; folders are walked)."""
    from rageval.corpus import ingest
    from rageval.ingest.chunking import ChunkingConfig

    missing = [p for p in args.paths if not Path(p).exists()]
    chunking = ChunkingConfig(method=args.chunking, size=args.chunk_size, overlap=args.chunk_overlap)
    from rageval.ingest.limits import Limits

    limits = Limits.from_env(file_mb=args.max_file_mb, pages=args.max_pages, chars=args.max_chars)
    report = ingest(_project(args), args.corpus, paths=[p for p in args.paths if Path(p).exists()],
                    chunking=chunking, embedder=args.embedder, progress=_progress(args), limits=limits)
    errors = [{"name": e.name, "reason": e.reason} for e in report.errors]
    errors += [{"name": str(p), "reason": "no such file or folder"} for p in missing]
    payload = {"corpus": args.corpus, "documents": report.documents, "errors": errors,
               "chunks_indexed": report.chunks_indexed}
    lines = [f"{d['name']}: {d['pages']} page(s), {d['chunks']} chunks{'' if d['new'] else ' (already ingested)'}"
             for d in report.documents]
    lines += [f"ERROR {e['name']}: {e['reason']}" for e in errors]
    lines.append(f"corpus {args.corpus}: {len(report.documents)} document(s) ok, {len(errors)} failed, "
                 f"{report.chunks_indexed} chunks indexed")
    _emit(args, payload, "\n".join(lines))
    if not report.documents and not errors:
        print("error: no PDF, TXT or MD files found", file=sys.stderr)
        return EXIT_PARTIAL
    return EXIT_PARTIAL if errors else EXIT_OK


def cmd_qa_import(args: argparse.Namespace) -> int:
    """Import a QA set from CSV, JSON or JSONL (id, question, reference, relevant_ids, domain)."""
    from rageval.qa import import_qa

    path = Path(args.file)
    if not path.is_file():
        raise ConfigError(f"{path}: no such file")
    result = import_qa(_project(args), path.name, path.read_bytes(), name=args.name)
    errors = [_row_problem(e) for e in result.errors]
    payload = {"name": args.name, "items": len(result.items), "errors": errors,
               "notes": [_row_problem(e) for e in result.notes]}
    text = "\n".join([f"ERROR {e}" for e in result.errors] + [f"NOTE {e}" for e in result.notes]
                     + [f"QA set {args.name}: {len(result.items)} item(s) imported, {len(errors)} row(s) rejected"])
    _emit(args, payload, text)
    if not result.items:
        return EXIT_PARTIAL
    return EXIT_PARTIAL if errors else EXIT_OK


def _row_problem(e: Any) -> dict[str, Any]:
    out = {"row": e.row, "line": e.line, "column": e.column, "reason": e.reason}
    return {k: v for k, v in out.items() if v is not None}


def cmd_run(args: argparse.Namespace) -> int:
    """Run retrieve -> generate -> evaluate over a QA set, or resume a run with --resume ID."""
    from rageval.config import DEFAULT_METRICS, RunConfig
    from rageval.ingest.chunking import ChunkingConfig
    from rageval.pipeline import execute, start_run

    project = _project(args)
    if args.resume:
        run_id = args.resume
        from rageval.store import runs as run_store

        found = run_store.get_run(project.db_path, run_id)
        if found is None:
            raise ConfigError(f"run {run_id!r} does not exist in project {project.slug!r}; see: python -m rageval runs")
        if found["status"] == "finished" and found["done"] >= found["n_items"]:
            _emit(args, {"run_id": run_id, "status": "finished", "items": found["n_items"], "done": found["done"],
                         "failed": found["failed"], "resumed": False},
                  f"run {run_id} is already finished ({found['done']}/{found['n_items']} items); nothing to resume")
            return EXIT_OK
    else:
        if not args.corpus or not args.qa:
            raise ConfigError("run needs --corpus NAME and --qa NAME (or --resume ID)")
        config = RunConfig(
            corpus=args.corpus, qa_set=args.qa,
            chunking=ChunkingConfig(method=args.chunking, size=args.chunk_size, overlap=args.chunk_overlap),
            embedder=args.embedder, top_k=args.top_k, generator=args.generator,
            temperature=args.temperature, judge=args.judge,
            metrics=tuple(m.strip() for m in args.metrics.split(",") if m.strip()) if args.metrics else DEFAULT_METRICS,
            language=args.language, concurrency=args.concurrency, use_cache=not args.no_cache,
        )
        if args.dry_run:
            from rageval.pipeline import estimate, estimate_text

            est = estimate(project, config)
            text = "no model calls: every role is offline" if est is None else estimate_text(est)
            payload = {"calls": 0} if est is None else {"calls": est.calls, "tokens_in": est.tokens_in,
                                                        "tokens_out": est.tokens_out, "cost_usd": est.cost_usd}
            _emit(args, payload, text)
            return EXIT_OK
        run_id = start_run(project, config)
    summary = execute(project, run_id, progress=_progress(args))
    payload = {"run_id": summary.run_id, "status": summary.status, "items": summary.items,
               "done": summary.done, "failed": summary.failed, "seconds": summary.seconds}
    _emit(args, payload, f"{summary.run_id}\n{summary.status}: {summary.done}/{summary.items} items, "
                         f"{summary.failed} failed, {summary.seconds} s")
    return EXIT_PARTIAL if summary.failed else EXIT_OK


def cmd_runs(args: argparse.Namespace) -> int:
    """List runs: id, status, created, items done / failed."""
    from rageval.store import owners
    from rageval.store import runs as store

    db = _project(args).db_path
    owners.reap(db)  # a run whose process is gone is shown interrupted, not running
    runs = store.runs(db)
    hint = {r["id"]: f"python -m rageval run --resume {r['id']}" for r in runs
            if r["kind"] == "pipeline" and r["status"] in ("interrupted", "failed", "pending")}
    payload = {"runs": [{**{k: r[k] for k in ("id", "kind", "status", "created", "corpus", "qa_set",
                                              "n_items", "done", "failed", "error")},
                         **({"resume": hint[r["id"]]} if r["id"] in hint else {})} for r in runs]}
    text = "\n".join(f"{r['id']}  {r['status']:<11} {r['created']:%Y-%m-%d %H:%M}  "
                     f"{r['done']}/{r['n_items']} done, {r['failed']} failed  {r['qa_set'] or r['config'].get('source', '')}"
                     + (f"\n    resume with: {hint[r['id']]}" if r["id"] in hint else "")
                     for r in runs) or "no runs yet"
    _emit(args, payload, text)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """Export a run, one row per QA item, as JSONL, CSV or Parquet."""
    from rageval.report import export_run

    text = export_run(_project(args), args.run, args.format, Path(args.out) if args.out else None)
    if text is not None:
        sys.stdout.write(text)
    elif args.json:
        print(json.dumps({"run_id": args.run, "out": args.out, "format": args.format}))
    return EXIT_OK


def cmd_score(args: argparse.Namespace) -> int:
    """Score answers from any RAG system (JSONL/CSV/JSON rows with id, question, answer, contexts, reference)."""
    from rageval.metrics.base import Resources
    from rageval.scoring import parse_answers, score

    path = Path(args.input)
    if not path.is_file():
        raise ConfigError(f"{path}: no such file")
    samples, errors = parse_answers(path.name, path.read_bytes())
    client = None
    if args.judge.startswith("openai:") or args.embedder.startswith("openai:"):
        from rageval.llm import make_llm_client

        client = make_llm_client({"judge": args.judge, "embedder": args.embedder}, store_path=_project(args).db_path,
                                 run_id=None, concurrency=args.concurrency, use_cache=not args.no_cache)
    from rageval.resources import get_embedder

    project = _project(args)
    resources = Resources(embedder_factory=lambda: get_embedder(project, args.embedder, client=client),
                          llm=client, language=args.language)
    result = score(samples, args.metrics, judge=args.judge, language=args.language, embedder=args.embedder,
                   resources=resources,
                   project=None if args.no_store else project, source=path.name, details=args.details)
    if args.out:
        from rageval.metrics.base import parse_metric_list
        from rageval.score_out import write_rows

        names = [m.name for m in parse_metric_list(args.metrics, judge=args.judge, language=args.language,
                                                   embedder=args.embedder)]
        write_rows(Path(args.out), result.rows, names, source=path.name, details=args.details)
    else:
        sys.stdout.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in result.rows))
    for e in errors:
        print(f"{'ERROR' if e.level == 'error' else 'NOTE'} {e}", file=sys.stderr)
    rejected = [e for e in errors if e.level == "error"]
    if args.out:
        summary = {"rows": len(result.rows), "errors": [_row_problem(e) for e in rejected],
                   "notes": [_row_problem(e) for e in errors if e.level != "error"],
                   "run_id": result.run_id, "out": args.out}
        _emit(args, summary, f"{len(result.rows)} row(s) scored, {len(rejected)} rejected -> {args.out}")
    return EXIT_PARTIAL if rejected else EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    """Load the bundled demo project (documents, QA set, an evaluated run)."""
    from rageval.demo import load_demo

    info = load_demo(force=args.force, progress=_progress(args))
    _emit(args, info, f"demo project ready: run {info['run_id']} ({info['items']} items)")
    return EXIT_OK


def cmd_metrics(args: argparse.Namespace) -> int:
    """List the registered metrics with what they need."""
    from rageval.metrics.base import get_metric, metric_names

    rows = []
    for name in metric_names():
        m = get_metric(name.replace("@K", "@10"))
        rows.append({"name": name, "kind": m.kind, "needs": sorted(m.needs), "range": list(m.range),
                     "higher_is_better": m.higher_is_better})
    _emit(args, {"metrics": rows}, "\n".join(f"{r['name']:<28} {r['kind']:<10} needs: {', '.join(r['needs'])}"
                                             for r in rows))
    return EXIT_OK


def _chunk_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--chunking", choices=("recursive", "chars"), default="recursive")
    p.add_argument("--chunk-size", type=int, default=1024)
    p.add_argument("--chunk-overlap", type=int, default=128)
    p.add_argument("--embedder", default="local", help="local | openai:MODEL")


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--project", help="project name (default: $RAGEVAL_PROJECT or 'default')")
    common.add_argument("--json", action="store_true", help="print JSON on stdout")
    parser = _Parser(prog="python -m rageval", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def add(name: str, func: Callable[[argparse.Namespace], int], **kw: Any) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=func.__doc__.splitlines()[0], description=func.__doc__, parents=[common], **kw)
        p.set_defaults(func=func)
        return p

    p = add("ingest", cmd_ingest)
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--corpus", required=True)
    _chunk_args(p)
    p.add_argument("--max-file-mb", type=float, help="largest file to read (default $RAGEVAL_MAX_FILE_MB or 100)")
    p.add_argument("--max-pages", type=int, help="most PDF pages per document (default $RAGEVAL_MAX_PAGES or 2000)")
    p.add_argument("--max-chars", type=int,
                   help="most characters per document (default $RAGEVAL_MAX_CHARS or 5,000,000)")
    p.add_argument("--progress", action="store_true", help="report progress on stderr even when it is not a terminal")

    qa = sub.add_parser("qa", help="QA sets: import")
    qa_sub = qa.add_subparsers(dest="qa_command", required=True, parser_class=_Parser)
    p = qa_sub.add_parser("import", help=cmd_qa_import.__doc__, description=cmd_qa_import.__doc__, parents=[common])
    p.set_defaults(func=cmd_qa_import)
    p.add_argument("file", metavar="FILE")
    p.add_argument("--name", required=True)

    p = add("run", cmd_run)
    p.add_argument("--corpus")
    p.add_argument("--qa")
    p.add_argument("--resume", metavar="ID")
    p.add_argument("--top-k", type=int, default=10)
    p.add_argument("--generator", default="extractive", help="extractive | openai:MODEL")
    p.add_argument("--temperature", type=float, default=0.0)
    p.add_argument("--judge", default="heuristic", help="heuristic | openai:MODEL")
    p.add_argument("--metrics", help="comma-separated metric names (default: a cheap offline set)")
    p.add_argument("--language", default="en")
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--no-cache", action="store_true")
    p.add_argument("--dry-run", action="store_true", help="estimate model calls, tokens and cost; run nothing")
    _chunk_args(p)

    add("runs", cmd_runs)

    p = add("export", cmd_export)
    p.add_argument("--run", required=True, metavar="ID")
    p.add_argument("--format", choices=("jsonl", "csv", "parquet"), default="jsonl")
    p.add_argument("--out", metavar="FILE")

    p = add("score", cmd_score)
    p.add_argument("input", metavar="INPUT")
    p.add_argument("--metrics", required=True)
    p.add_argument("--judge", default="heuristic", help="heuristic | openai:MODEL")
    p.add_argument("--embedder", default="local", help="local | openai:MODEL")
    p.add_argument("--language", default="en")
    p.add_argument("--out", metavar="OUT", help="FILE.jsonl, or part-NNN.parquet for sharded scoring")
    p.add_argument("--details", action="store_true", help="add each row's claims with verdicts")
    p.add_argument("--concurrency", type=int, default=16)
    p.add_argument("--no-cache", action="store_true")
    p.add_argument("--no-store", action="store_true", help="do not keep the scored answers in the project")

    p = add("demo", cmd_demo)
    p.add_argument("--force", action="store_true", help="rebuild the demo project from scratch")

    add("metrics", cmd_metrics)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (InputError, RagevalError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_PARTIAL
    except KeyboardInterrupt:
        print("\ninterrupted; resume with: python -m rageval run --resume <ID>", file=sys.stderr)
        return 130
    except Exception as exc:  # never a traceback for a user; RAGEVAL_DEBUG=1 shows it
        import os

        if os.environ.get("RAGEVAL_DEBUG"):
            raise
        print(f"error: {type(exc).__name__}: {exc} (set RAGEVAL_DEBUG=1 to see the traceback)", file=sys.stderr)
        return EXIT_PARTIAL
