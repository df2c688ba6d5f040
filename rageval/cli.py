"""``rageval`` (or ``python -m rageval``): ingest documents, import QA sets, run, score, export and report.

Exit codes: 0 success; 1 some inputs failed but the rest were processed (or the command
failed at run time); 2 unusable arguments. ``check`` (the CI gate): 0 every check passed, 1 a
check failed, 2 unusable arguments (an unknown run or metric, a bad threshold, an unreadable
file). ``--json`` prints one JSON object on stdout.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from rageval import settings
from rageval.config import (METHODS, ChunkingConfig, CompareConfig, CorrelateConfig, GateConfig, RayOptions,
                            RunConfig)
from rageval.errors import ConfigError, InputError, RagevalError
from rageval.types import Spec
from rageval.util import shown

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE = 0, 1, 2
_SHOW_WARNING: Callable[..., None] = print


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
    import time

    forced = getattr(args, "progress", False) or settings.value("RAGEVAL_PROGRESS")
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
    from rageval.ingest.corpus import ingest
    from rageval.config import ChunkingConfig

    missing = [p for p in args.paths if not Path(p).exists()]
    chunking = ChunkingConfig(method=args.chunking, size=args.chunk_size, overlap=args.chunk_overlap)
    from rageval.ingest.limits import Limits

    limits = Limits.from_env(file_mb=args.max_file_mb, pages=args.max_pages, chars=args.max_chars)
    project = _project(args)

    def waiting() -> None:
        print(f"waiting: another ingest into project {project.slug} is running; this one starts when it "
              "ends", file=sys.stderr, flush=True)

    report = ingest(project, args.corpus, paths=[p for p in args.paths if Path(p).exists()],
                    chunking=chunking, embedder=args.embedder, progress=_progress(args), limits=limits,
                    on_wait=waiting, workers=args.workers)
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


def _input_file(name: str, flag: str = "") -> Path:
    """``name`` as a Path to an existing file, else ConfigError ``[flag ]PATH: no such file``."""
    path = Path(name)
    if not path.is_file():
        raise ConfigError(f"{flag}{path}: no such file")
    return path


def cmd_qa_import(args: argparse.Namespace) -> int:
    """Import a QA set from CSV, JSON or JSONL (id, question, reference, relevant_ids, domain)."""
    from rageval.ingest.qa import import_qa

    path = _input_file(args.file)
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
    from rageval.config import ChunkingConfig
    from rageval.runs.pipeline import execute, start_run

    project = _project(args)
    if args.resume:
        run_id = args.resume
        from rageval.runs.context import load_context

        try:
            context = load_context(project, run_id)  # read once, handed to execute
        except ConfigError as exc:
            raise ConfigError(f"{exc}; see: python -m rageval runs") from None
        found = context.run
        if found["status"] == "finished" and found["done"] >= found["n_items"]:
            _emit(args, {"run_id": run_id, "status": "finished", "items": found["n_items"], "done": found["done"],
                         "failed": found["failed"], "seconds": 0.0, "resumed": False},
                  f"run {run_id} is already finished ({found['done']}/{found['n_items']} items); nothing to resume. "
                  f"See its scores with: rageval report --run {run_id} --out report.html")
            return EXIT_OK
    else:
        if not args.corpus or not args.qa:
            raise ConfigError("run needs --corpus NAME and --qa NAME (or --resume ID)")
        metrics = [m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else list(DEFAULT_METRICS)
        metrics, rubrics = _rubrics(args, project, metrics)
        config = RunConfig(
            corpus=args.corpus, qa_set=args.qa,
            chunking=ChunkingConfig(method=args.chunking, size=args.chunk_size, overlap=args.chunk_overlap),
            embedder=args.embedder, top_k=args.top_k, generator=args.generator,
            temperature=args.temperature, judge=args.judge,
            metrics=tuple(metrics), rubrics=rubrics,
            language=args.language, concurrency=args.concurrency, use_cache=not args.no_cache,
        )
        if args.dry_run:
            from rageval.runs.pipeline import estimate, estimate_text

            est = estimate(project, config)
            text = "no model calls: every role is offline" if est is None else estimate_text(est)
            payload = {"calls": 0} if est is None else {"calls": est.calls, "tokens_in": est.tokens_in,
                                                        "tokens_out": est.tokens_out, "cost_usd": est.cost_usd}
            _emit(args, payload, text)
            return EXIT_OK
        run_id, context = start_run(project, config), None
    summary = execute(project, run_id, progress=_progress(args), workers=args.workers, context=context)
    if _progress(args) is not None:
        print(file=sys.stderr)
    scores = _score_summary(project, run_id)
    payload = {"run_id": summary.run_id, "status": summary.status, "items": summary.items,
               "done": summary.done, "failed": summary.failed, "seconds": summary.seconds,
               "scores": [{"metric": s.metric, "mean": s.mean, "scored": s.n_ok,
                           "unscored": s.n_unscored + s.n_failed} for s in scores]}
    _emit(args, payload, f"{summary.run_id}\n{summary.status}: {summary.done}/{summary.items} items, "
                         f"{summary.failed} failed, {summary.seconds} s\n" + _score_lines(scores))
    return EXIT_PARTIAL if summary.failed else EXIT_OK


def _score_summary(project, run_id: str) -> list:
    from rageval.report.summary import run_summaries

    return run_summaries(project, run_id)


def _score_lines(scores: list) -> str:
    """``metric  mean  scored/unscored  direction`` lines, one per metric."""
    from rageval.report.meaning import info

    if not scores:
        return "no metric scores"
    lines = [f"{'metric':<28} {'mean':>7}  {'scored':>6}  {'unscored':>8}  direction"]
    for s in scores:
        mean = shown(s.mean)
        lines.append(f"{s.metric:<28} {mean:>7}  {s.n_ok:>6}  {s.n_unscored + s.n_failed:>8}  {info(s.metric).direction}"
                     + ("  (heuristic judge)" if s.heuristic else ""))
    return "\n".join(lines)


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
    header = f"{'id':<23} {'status':<11} {'created':<16}  {'items':<22} source"
    text = "\n".join([header] + [f"{r['id']:<23} {r['status']:<11} {r['created']:%Y-%m-%d %H:%M}  "
                     f"{r['done']}/{r['n_items']} done, {r['failed']} failed  {r['qa_set'] or r['config'].get('source', '')}"
                     + (f"\n    resume with: {hint[r['id']]}" if r["id"] in hint else "")
                     for r in runs]) if runs else "no runs yet"
    _emit(args, payload, text)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """Export a run, one row per QA item with contexts and scores, as JSONL, CSV, Parquet or RAGAS JSONL."""
    from rageval.report import export_run

    text = export_run(_project(args), args.run, args.format, Path(args.out) if args.out else None)
    if text is not None:
        sys.stdout.write(text)
    elif args.json:
        print(json.dumps({"run_id": args.run, "out": args.out, "format": args.format}))
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    """Write a one-page HTML report of a run (summary, distributions, worst answers with claims)."""
    from rageval.report import run_report_html

    from rageval.files import write_atomic

    project = _project(args)
    per_question = None
    if args.baseline:
        from rageval.views.regressions import regressions, shared_metric

        per_question = regressions(project, args.baseline, args.run,
                                   args.metric or shared_metric(project, args.baseline, args.run))
    page = run_report_html(project, args.run, regressions=per_question)
    write_atomic(args.out, page)
    _emit(args, {"run_id": args.run, "out": args.out, "bytes": len(page.encode()),
                 "baseline": args.baseline},
          f"report of run {args.run} -> {args.out}")
    return EXIT_OK


def cmd_sample(args: argparse.Namespace) -> int:
    """Copy the demo documents and a sample QA CSV into a folder, to try the commands on."""
    import shutil

    from rageval.demo import demo_dir

    out = Path(args.folder)
    (out / "docs").mkdir(parents=True, exist_ok=True)
    for f in sorted((demo_dir() / "corpus").iterdir()):
        if f.is_file():
            shutil.copy2(f, out / "docs" / f.name)
    shutil.copy2(demo_dir() / "sample_qa.csv", out / "questions.csv")
    _emit(args, {"docs": str(out / "docs"), "qa": str(out / "questions.csv")},
          f"{out / 'docs'}: the demo documents\n{out / 'questions.csv'}: a sample QA set "
          "(id, question, reference, relevant_ids, domain)")
    return EXIT_OK


def cmd_score(args: argparse.Namespace) -> int:
    """Score answers from any RAG system (JSONL/CSV/JSON rows with id, question, answer, contexts, reference)."""
    from rageval.types import Resources
    from rageval.runs.scoring import parse_answers, score

    if args.engine == "ray":
        return _score_ray(args)
    path = _input_file(args.input)
    from rageval.ingest.limits import RowLimits

    limits = RowLimits.from_env(field_chars=args.max_field_chars, depth=args.max_depth)
    samples, errors = parse_answers(path.name, path.read_bytes(), limits=limits)
    progress = _progress(args)
    if progress is not None:
        progress("reading rows", len(samples), len(samples))
    client = None
    if Spec.parse("judge", args.judge).online or Spec.parse("embedder", args.embedder).online:
        from rageval.llm.client import make_llm_client

        client = make_llm_client({"judge": args.judge, "embedder": args.embedder}, store_path=_project(args).db_path,
                                 run_id=None, concurrency=args.concurrency, use_cache=not args.no_cache)
    from rageval.embed.cache import get_embedder

    project = _project(args)
    resources = Resources(embedder_factory=lambda: get_embedder(project, args.embedder, client=client),
                          llm=client, language=args.language)
    metrics, rubrics = _rubrics(args, None if args.no_store else project,
                                [m.strip() for m in args.metrics.split(",") if m.strip()])
    options = {**_aligncheck_options(args), **({"rubrics": {r.name: r for r in rubrics}} if rubrics else {})}
    try:
        result = score(samples, metrics, judge=args.judge, language=args.language, embedder=args.embedder,
                       resources=resources,
                       project=None if args.no_store else project, source=path.name, details=args.details,
                       metric_options=options, progress=progress, workers=args.workers)
    finally:
        if client is not None:
            client.close()  # flushes the cache: a second score right after finds every reply
    if args.out:
        from rageval.metrics.base import parse_metric_list
        from rageval.report.score_out import write_rows

        names = [m.name for m in parse_metric_list(metrics, **options, judge=args.judge, language=args.language,
                                                   embedder=args.embedder)]
        write_rows(Path(args.out), result.rows, names, source=path.name, details=args.details,
                   records=result.records)
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


def _score_ray(args: argparse.Namespace) -> int:
    """``score --engine ray``: Parquet parts and a _SUCCESS manifest in the --out folder."""
    from rageval.scale.ray_engine import score_with_ray
    from rageval.scale.unit import Plan

    if not args.out:
        raise ConfigError("--engine ray writes Parquet parts into a folder: add --out OUT_DIR")
    if args.rubric or "rubric:" in args.metrics:
        raise ConfigError("rubric metrics are not supported with --engine ray yet; score them without --engine")
    plan = Plan.make(args.metrics, judge=args.judge, language=args.language, embedder=args.embedder,
                     details=args.details, options=_aligncheck_options(args))
    cache = None if args.no_cache else (args.llm_cache or str(_project(args).db_path))
    from rageval.ingest.limits import RowLimits

    options = RayOptions(address=args.address, workers=args.workers or RayOptions.workers, batch_size=args.batch_size,
                         part_rows=args.part_rows, num_cpus=args.cpus, concurrency=args.concurrency,
                         use_cache=not args.no_cache, llm_cache=cache,
                         limits=RowLimits.from_env(field_chars=args.max_field_chars, depth=args.max_depth))
    manifest = score_with_ray(args.input, Path(args.out), plan, options, progress=_progress(args))
    done = "already complete, nothing scored" if not manifest["scored_parts"] else \
        f"{manifest['scored_parts']} part(s) scored now"
    lines = [f"{manifest['rows']} row(s) in {manifest['parts']} part(s) -> {args.out} ({done}); "
             f"{manifest['rejected']} row(s) without scores"]
    lines += [f"  {m}: {c['ok']} ok, {c['unscored']} unscored, {c['failed']} failed" for m, c in manifest["metrics"].items()]
    lines.append(f"load them into the project with: rageval import-scores {args.out} --name NAME")
    _emit(args, manifest, "\n".join(lines))
    return EXIT_PARTIAL if manifest["rejected"] else EXIT_OK


def cmd_import_scores(args: argparse.Namespace) -> int:
    """Load the Parquet parts of `score --engine ray --out OUT_DIR` into the project as an import run."""
    from rageval.scale.imports import import_scores

    out = Path(args.out_dir)
    if not out.is_dir():
        raise ConfigError(f"{out}: no such folder")
    result = import_scores(_project(args), out, name=args.name)
    payload = {"run_id": result.run_id, "rows": result.rows, "rejected": result.rejected,
               "duplicates": result.duplicates}
    _emit(args, payload, f"run {result.run_id}: {result.rows} answer(s) imported, {result.rejected} row(s) "
                         f"without scores skipped, {result.duplicates} duplicate id(s) skipped")
    return EXIT_OK


def _rubrics(args: argparse.Namespace, project: Any, metrics: list[str]) -> tuple[list[str], tuple]:
    """``--rubric FILE`` (repeatable): each rubric parsed, stored in ``project`` (when given) and its
    metric rubric:NAME added to ``metrics``; then every rubric:NAME in ``metrics`` resolved (the files
    first, then the project's stored rubrics). Returns ``(metrics, rubrics)``."""
    from rageval.metrics.rubric import add_rubric, resolve
    from rageval.prompts.rubric import parse_rubric

    given = {}
    for name in getattr(args, "rubric", None) or ():
        path = _input_file(name, "--rubric ")
        text = path.read_text(encoding="utf-8")
        rubric = parse_rubric(text, path.name)
        if project is not None:
            add_rubric(project, rubric, text)
        given[rubric.name] = rubric
        if rubric.metric not in metrics:
            metrics.append(rubric.metric)
    return metrics, resolve(metrics, given, project)


def cmd_rubric_add(args: argparse.Namespace) -> int:
    """Store a rubric metric (a TOML file: name, description, criteria, anchors 1-5) in the project."""
    from rageval.metrics.rubric import add_rubric
    from rageval.prompts.rubric import parse_rubric

    path = _input_file(args.file)
    text = path.read_text(encoding="utf-8")
    rubric = parse_rubric(text, path.name)
    add_rubric(_project(args), rubric, text)
    _emit(args, {"metric": rubric.metric, "digest": rubric.digest(), **rubric.to_dict()},
          f"rubric {rubric.name} stored: use the metric {rubric.metric} with an LLM judge "
          f"(--metrics {rubric.metric} --judge openai:MODEL); offline it is unscored")
    return EXIT_OK


def cmd_rubric_list(args: argparse.Namespace) -> int:
    """List the project's rubric metrics."""
    from rageval.metrics.rubric import project_rubrics

    found = project_rubrics(_project(args))
    _emit(args, {"rubrics": [{"metric": r.metric, "digest": r.digest(), **r.to_dict()} for r in found.values()]},
          "\n".join(f"{r.metric:<30} {r.digest()}  {r.description}" for r in found.values()) or "no rubrics yet")
    return EXIT_OK


def _aligncheck_options(args: argparse.Namespace) -> dict[str, str]:
    """AlignCheck's options from ``score``'s flags, only where they differ from the defaults."""
    options = {}
    if args.aligncheck_source != "reference":
        options["aligncheck_source"] = args.aligncheck_source
    if args.aligncheck_types != "all":
        options["aligncheck_types"] = args.aligncheck_types
    return options


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


# --- human evaluation -----------------------------------------------------------------------

def _run_list(text: str) -> list[str]:
    runs = [r.strip() for r in (text or "").split(",") if r.strip()]
    if not runs:
        raise ConfigError("give one or more run ids: --runs ID[,ID...]")
    return runs


def cmd_ratings_import(args: argparse.Namespace) -> int:
    """Import human ratings 1-5 (CSV/JSON/JSONL: item_id or question, annotator, rating, optional run)."""
    from rageval.human import import_ratings

    path = _input_file(args.file)
    result = import_ratings(_project(args), path.name, path.read_bytes(), run=args.run)
    errors = [_row_problem(e) for e in result.errors]
    _emit(args, {"imported": result.imported, "errors": errors},
          "\n".join([f"ERROR {e}" for e in result.errors]
                    + [f"{result.imported} rating(s) imported, {len(errors)} row(s) rejected"]))
    return EXIT_PARTIAL if errors or not result.imported else EXIT_OK


def cmd_ratings_export(args: argparse.Namespace) -> int:
    """Export the human ratings of runs as CSV or JSONL."""
    from rageval.human import export_ratings

    text = export_ratings(_project(args), _run_list(args.run), args.format)
    if args.out:
        from rageval.files import write_atomic

        write_atomic(args.out, text)
        _emit(args, {"out": args.out, "rows": max(0, text.count("\n") - (args.format == "csv"))}, f"-> {args.out}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def cmd_correlate(args: argparse.Namespace) -> int:
    """Correlate every metric with the human consensus and with each other; store the analysis."""
    from rageval.human import correlate_runs, list_analyses, open_analysis
    from rageval.views.human_text import analysis_text

    project = _project(args)
    if args.list:
        rows = list_analyses(project)
        _emit(args, {"analyses": rows}, "\n".join(f"{a['id']}  {a['method']:<8} by {a['grouping']:<7} runs "
                                                  f"{','.join(a['runs'])}" for a in rows) or "no stored analyses")
        return EXIT_OK
    if args.open:
        analysis = open_analysis(project, args.open)
    else:
        filters = {"metrics": [m.strip() for m in args.metrics.split(",") if m.strip()]} if args.metrics else {}
        analysis = correlate_runs(project, _run_list(args.runs), group_by=args.group_by, method=args.method,
                                  consensus_method=args.consensus, filters=filters, n_boot=args.n_boot, seed=args.seed)
    _emit(args, analysis.as_dict(), analysis_text(analysis))
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    """Compare runs on one metric (or 'human'): Friedman, post-hoc tests, ranks; for two runs the Wilcoxon
    test and the CI of B - A in one sentence, and the questions that got worse and better."""
    from rageval.human import compare_runs
    from rageval.views.human_text import comparison_text

    project = _project(args)
    result = compare_runs(project, _run_list(args.runs), args.metric, n_boot=args.n_boot, seed=args.seed)
    payload, text = result.as_dict(), comparison_text(result)
    if len(result.runs) == 2 and args.metric != "human" and "#" not in args.metric:
        from rageval.views.regressions import regression_text, regressions

        reg = regressions(project, *result.runs, args.metric)
        payload["per_question"] = reg.as_dict()
        text += "\n\n" + regression_text(reg, limit=args.limit, names=result.names)
    _emit(args, payload, text)
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    """CI gate: fail (exit 1) when a metric's mean is under a threshold, when it dropped from a baseline
    run or file (paired Wilcoxon test and a minimum effect), or when answers are unscored; exit 0 when
    every check passes, 2 on unusable arguments."""
    from rageval import gate

    if bool(args.run) == bool(args.scores):
        raise ConfigError("check needs exactly one of --run ID or a scored FILE")
    try:
        current = gate.from_run(_project(args), args.run) if args.run else gate.from_file(Path(args.scores))
        baseline = gate.load(lambda: _project(args), args.no_regression_from) if args.no_regression_from else None
    except InputError as exc:  # an unreadable file is an unusable argument here: exit 2, not "gate failed"
        raise ConfigError(str(exc)) from exc
    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else None
    result = gate.run_gate(current, fail_under=gate.parse_thresholds(args.fail_under),
                           fail_over=gate.parse_thresholds(args.fail_over, "--fail-over"), baseline=baseline,
                           metrics=metrics, min_effect=args.min_effect, alpha=args.alpha,
                           allow_unscored=args.allow_unscored)
    from rageval.files import write_atomic

    for path, render in ((args.junit_xml, gate.junit_xml), (args.markdown, gate.markdown)):
        if path:
            write_atomic(path, render(result))
    _emit(args, result.as_dict(), gate.text(result))
    return EXIT_OK if result.passed else EXIT_PARTIAL


def cmd_agreement(args: argparse.Namespace) -> int:
    """Agreement between annotators: Krippendorff's alpha, weighted kappa, exact / within-one shares."""
    from rageval.human import agreement
    from rageval.views.human_text import agreement_text

    out = agreement(_project(args), _run_list(args.runs), by=args.by)
    _emit(args, out, agreement_text(out))
    return EXIT_OK


def _chunk_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--chunking", choices=METHODS, default=ChunkingConfig.method,
                   help="recursive: split on paragraphs, then sentences, then words; chars: fixed windows (default: %(default)s)")
    p.add_argument("--chunk-size", type=int, default=ChunkingConfig.size, help="chunk size in characters (default: %(default)s)")
    p.add_argument("--chunk-overlap", type=int, default=ChunkingConfig.overlap,
                   help="characters shared by neighbouring chunks, smaller than --chunk-size (default: %(default)s)")
    p.add_argument("--embedder", default=RunConfig.embedder,
                   help="local (all-MiniLM-L6-v2, offline) or openai:MODEL on OPENAI_BASE_URL (default: %(default)s)")
    _workers_arg(p)


def _workers_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=_workers, default=None,
                   help="processes computing offline metrics and vectors, one BLAS thread each "
                        "(default: $RAGEVAL_WORKERS, else one per core; 1 = this process only)")


def _workers(value: str) -> int:
    from rageval.embed.processes import check_workers

    try:
        return check_workers(value)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    """The ``rageval`` parser: one small builder per command; every default is a config class's
    field (:mod:`rageval.config`) or a row of :mod:`rageval.settings`."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--project", help=f"project name (default: $RAGEVAL_PROJECT or {_env_default('RAGEVAL_PROJECT')!r})")
    common.add_argument("--json", action="store_true", help="print JSON on stdout")
    prog = "rageval" if Path(sys.argv[0]).name == "rageval" else "python -m rageval"  # the console command or -m
    parser = _Parser(prog=prog, description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def add(name: str, func: Callable[[argparse.Namespace], int], **kw: Any) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=func.__doc__.splitlines()[0], description=func.__doc__, parents=[common], **kw)
        p.set_defaults(func=func)
        return p

    def group(name: str, help: str, commands: dict[str, Callable[[argparse.Namespace], int]]) -> dict:
        """``rageval NAME COMMAND``: a parser per command, each with the common flags."""
        inner = sub.add_parser(name, help=help).add_subparsers(dest=f"{name}_command", required=True,
                                                                 parser_class=_Parser)
        out = {}
        for command, func in commands.items():
            out[command] = inner.add_parser(command, help=func.__doc__, description=func.__doc__, parents=[common])
            out[command].set_defaults(func=func)
        return out

    for build in (_ingest_parser, _qa_parser, _run_parser, _export_parser, _report_parser, _score_parser,
                  _demo_parser, _human_parsers, _check_parser, _rubric_parser):
        build(add, group)
    return parser


def _env_default(name: str) -> str:
    return settings.setting(name).default


def _language_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--language", default=RunConfig.language, help="language of the texts, ISO 639-1 (default: %(default)s)")


def _ingest_parser(add, group) -> None:
    p = add("ingest", cmd_ingest)
    p.add_argument("paths", nargs="+", metavar="PATH", help="PDF, TXT or MD files, or folders to walk")
    p.add_argument("--corpus", required=True, help="name of the corpus to add the documents to (made if new)")
    _chunk_args(p)
    p.add_argument("--max-file-mb", type=float,
                   help=f"largest file to read (default $RAGEVAL_MAX_FILE_MB or {_env_default('RAGEVAL_MAX_FILE_MB')})")
    p.add_argument("--max-pages", type=int,
                   help=f"most PDF pages per document (default $RAGEVAL_MAX_PAGES or {_env_default('RAGEVAL_MAX_PAGES')})")
    p.add_argument("--max-chars", type=int, help="most characters per document (default $RAGEVAL_MAX_CHARS or "
                                                  f"{int(_env_default('RAGEVAL_MAX_CHARS')):,})")
    p.add_argument("--progress", action="store_true", help="report progress on stderr even when it is not a terminal")


def _qa_parser(add, group) -> None:
    p = group("qa", "QA sets: import", {"import": cmd_qa_import})["import"]
    p.add_argument("file", metavar="FILE", help="CSV, JSON or JSONL with id, question, reference, relevant_ids, domain")
    p.add_argument("--name", required=True, help="name of the QA set (replaces a set of that name)")


def _run_parser(add, group) -> None:
    p = add("run", cmd_run)
    p.add_argument("--corpus", help="corpus to retrieve from (see `ingest`)")
    p.add_argument("--qa", help="QA set to answer (see `qa import`)")
    p.add_argument("--resume", metavar="ID", help="continue an interrupted run; finished items are kept")
    p.add_argument("--top-k", type=int, default=RunConfig.top_k, help="chunks retrieved per question, 1-100 (default: %(default)s)")
    p.add_argument("--generator", default=RunConfig.generator, help="extractive | openai:MODEL")
    p.add_argument("--temperature", type=float, default=RunConfig.temperature,
                   help="sampling temperature of an LLM generator, 0-2 (default: %(default)s)")
    p.add_argument("--judge", default=RunConfig.judge, help="heuristic | openai:MODEL")
    p.add_argument("--metrics", help="comma-separated metric names (default: a cheap offline set)")
    _language_arg(p)
    p.add_argument("--concurrency", type=int, default=RunConfig.concurrency, help="model calls in flight at once (default: %(default)s)")
    p.add_argument("--no-cache", action="store_true", help="ask the models again instead of using cached replies")
    p.add_argument("--dry-run", action="store_true", help="estimate model calls, tokens and cost; run nothing")
    p.add_argument("--rubric", action="append", metavar="FILE",
                   help="a rubric metric (TOML; see `rubric add`), stored in the project and scored (repeatable)")
    _chunk_args(p)
    add("runs", cmd_runs)


def _export_parser(add, group) -> None:
    p = add("export", cmd_export)
    p.add_argument("--run", required=True, metavar="ID", help="run id (see `runs`)")
    p.add_argument("--format", choices=("jsonl", "csv", "parquet", "ragas"), default="jsonl",
                   help="ragas: JSONL with user_input, response, retrieved_contexts, reference, which `score` reads back (default: %(default)s)")
    p.add_argument("--out", metavar="FILE", help="file to write (default: stdout; parquet needs a file)")


def _report_parser(add, group) -> None:
    p = add("report", cmd_report)
    p.add_argument("--run", required=True, metavar="ID", help="run id (see `runs`)")
    p.add_argument("--out", required=True, metavar="FILE", help="HTML file to write, e.g. report.html")
    p.add_argument("--baseline", metavar="ID", help="also list the questions that got worse / better since this run")
    p.add_argument("--metric", help="the metric of that list (default: the report's main metric)")
    p = add("sample", cmd_sample)
    p.add_argument("folder", metavar="FOLDER", help="where to put docs/ and questions.csv")


def _score_parser(add, group) -> None:
    p = add("score", cmd_score)
    p.add_argument("input", metavar="INPUT", help="CSV, JSON or JSONL answers (our column names or RAGAS's); "
                   "with --engine ray also Parquet, a folder of shards or a glob")
    p.add_argument("--metrics", required=True, help="comma-separated metric names (see `metrics`)")
    p.add_argument("--judge", default=RunConfig.judge, help="heuristic | openai:MODEL")
    p.add_argument("--embedder", default=RunConfig.embedder, help="local | openai:MODEL")
    _language_arg(p)
    p.add_argument("--out", metavar="OUT", help="FILE.jsonl, FILE.csv, or part-NNN.parquet for sharded scoring (default: "
                   "JSONL on stdout); with --engine ray, the folder for the parts")
    p.add_argument("--details", action="store_true",
                   help="add each row's claims with verdicts, and AlignCheck's TP / FP / FN facts")
    p.add_argument("--aligncheck-source", choices=("reference", "contexts"), default=RunConfig.aligncheck_source,
                   help="AlignCheck compares the answer's facts with the reference or the joined contexts (default: %(default)s)")
    p.add_argument("--aligncheck-types", default=RunConfig.aligncheck_types, metavar="GRANULARITY",
                   help="entity types AlignCheck builds facts for: all | N (top N types by TF-IDF over the file) "
                        "| TYPES (e.g. PERSON,ORG) (default: %(default)s)")
    p.add_argument("--concurrency", type=int, default=RunConfig.concurrency,
                   help="model calls in flight at once; with --engine ray, all workers together (default: %(default)s)")
    p.add_argument("--no-cache", action="store_true", help="ask the models again instead of using cached replies")
    p.add_argument("--no-store", action="store_true", help="do not keep the scored answers in the project")
    p.add_argument("--rubric", action="append", metavar="FILE",
                   help="a rubric metric (TOML; see `rubric add`) to score too (repeatable)")
    p.add_argument("--progress", action="store_true", help="progress on stderr even when it is not a terminal")
    p.add_argument("--max-field-chars", type=int, metavar="N", help="reject a row with a field longer than N characters "
                   f"(default: $RAGEVAL_MAX_FIELD_CHARS or {_env_default('RAGEVAL_MAX_FIELD_CHARS')})")
    p.add_argument("--max-depth", type=int, metavar="N",
                   help=f"reject a row nested deeper than N levels (default: $RAGEVAL_MAX_DEPTH or {_env_default('RAGEVAL_MAX_DEPTH')})")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="local: this process; ray: Ray Data workers (needs rageval[ray]; INPUT may then be a "
                        "JSONL/Parquet file, a folder of Parquet shards or a glob; --out is a folder) (default: %(default)s)")
    p.add_argument("--workers", type=_workers, default=None,
                   help="local: processes computing offline metrics and vectors, one BLAS thread each (default: "
                        "$RAGEVAL_WORKERS, else one per core; 1 = this process only); ray: actors, each holding "
                        f"its models (default: {RayOptions.workers})")
    g = p.add_argument_group("--engine ray")
    g.add_argument("--address", help="join a running cluster: auto, or ray://HOST:10001 (default: a local cluster)")
    g.add_argument("--batch-size", type=int, default=RayOptions.batch_size, help="rows an actor scores at once (default: %(default)s)")
    g.add_argument("--part-rows", type=int, default=RayOptions.part_rows, help="rows per output part (default: %(default)s)")
    g.add_argument("--cpus", type=int, help="CPUs of the local cluster (default: this machine's)")
    g.add_argument("--llm-cache", metavar="FILE",
                   help="DuckDB file holding the LLM cache, on a path every worker sees (default: the project's database)")
    p = add("import-scores", cmd_import_scores)
    p.add_argument("out_dir", metavar="OUT_DIR", help="the --out folder of `score --engine ray` (with its _SUCCESS)")
    p.add_argument("--name", help="the run's source name in the app (default: the folder's name)")


def _demo_parser(add, group) -> None:
    """``demo`` and ``metrics``."""
    p = add("demo", cmd_demo)
    p.add_argument("--force", action="store_true", help="rebuild the demo project from scratch")
    add("metrics", cmd_metrics)


def _rubric_parser(add, group) -> None:
    p = group("rubric", "rubric metrics written without code: add, list", {"add": cmd_rubric_add, "list": cmd_rubric_list})["add"]
    p.add_argument("file", metavar="FILE", help="the rubric as TOML: name, description, criteria, [anchors] 1-5")


def _human_parsers(add, group) -> None:
    """The human-evaluation subcommands: ratings import/export, correlate, compare, agreement."""
    ratings = group("ratings", "human ratings: import, export", {"import": cmd_ratings_import, "export": cmd_ratings_export})
    p = ratings["import"]
    p.add_argument("file", metavar="FILE", help="CSV, JSON or JSONL with item_id (or question), annotator, rating")
    p.add_argument("--run", metavar="ID", help="the rated run (else each row's 'run' column)")
    p = ratings["export"]
    p.add_argument("--run", required=True, metavar="ID[,ID]", help="run id(s) whose ratings to export")
    p.add_argument("--out", metavar="FILE", help="file to write (default: stdout)")
    p.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="output format (default: %(default)s)")
    c = CorrelateConfig
    p = add("correlate", cmd_correlate)
    p.add_argument("--runs", metavar="ID[,ID...]", help="runs whose scores and ratings to correlate")
    p.add_argument("--group-by", choices=("none", "dataset", "domain", "model", "run"), default=c.group_by,
                   help="one matrix per group (default: %(default)s)")
    p.add_argument("--method", choices=("spearman", "kendall", "pearson"), default=c.method,
                   help="correlation coefficient (default: %(default)s)")
    p.add_argument("--consensus", choices=("median", "mean", "majority"), default=c.consensus,
                   help="how annotators' ratings of one item combine (default: %(default)s)")
    p.add_argument("--metrics", help="comma-separated metrics to keep (a filter stored with the analysis)")
    _bootstrap_args(p, c.n_boot, c.seed, "the 95%% CIs")
    p.add_argument("--list", action="store_true", help="list stored analyses")
    p.add_argument("--open", metavar="ANALYSIS", help="print a stored analysis")
    p = add("compare", cmd_compare)
    p.add_argument("--runs", required=True, metavar="A,B[,C...]", help="two or more runs over the same QA set")
    p.add_argument("--metric", required=True, help="a metric name, or 'human' for the consensus rating")
    _bootstrap_args(p, CompareConfig.n_boot, CompareConfig.seed, "the difference CI")
    p.add_argument("--limit", type=int, default=CompareConfig.limit,
                   help="questions listed as worse and as better for two runs (all of them in --json) (default: %(default)s)")
    p = add("agreement", cmd_agreement)
    p.add_argument("--runs", required=True, metavar="ID[,ID...]", help="runs whose ratings to compare between annotators")
    p.add_argument("--by", choices=("dataset", "domain", "model", "run"), help="also report agreement per group")


def _bootstrap_args(p: argparse.ArgumentParser, n_boot: int, seed: int, what: str) -> None:
    p.add_argument("--n-boot", type=int, default=n_boot, help=f"bootstrap resamples for {what} (default: %(default)s)")
    p.add_argument("--seed", type=int, default=seed, help="bootstrap seed (default: %(default)s)")


def _check_parser(add, group) -> None:
    p = add("check", cmd_check, epilog="exit codes: 0 every check passed, 1 a check failed, 2 unusable arguments")
    p.add_argument("scores", nargs="?", metavar="FILE",
                   help="scores to check: what `rageval score --out FILE` wrote (JSONL, CSV, JSON or Parquet)")
    p.add_argument("--run", metavar="ID", help="check a stored run instead of a file")
    p.add_argument("--fail-under", action="append", metavar="METRIC=VALUE",
                   help="fail when the metric's mean is below VALUE (repeatable)")
    p.add_argument("--fail-over", action="append", metavar="METRIC=VALUE",
                   help="fail when the metric's mean is above VALUE, for metrics where lower is better (repeatable)")
    p.add_argument("--no-regression-from", metavar="RUN_OR_FILE",
                   help="a baseline run id or scored file: fail when a metric dropped from it (paired by answer id)")
    p.add_argument("--metrics", metavar="M[,M...]",
                   help="metrics the regression check covers (default: the thresholded ones, else all shared)")
    p.add_argument("--min-effect", type=float, default=GateConfig.min_effect,
                   help="smallest mean drop that can fail the regression check (default: %(default)s)")
    p.add_argument("--alpha", type=float, default=GateConfig.alpha,
                   help="Wilcoxon significance level of a drop; 1 fails on the size alone (default: %(default)s)")
    p.add_argument("--allow-unscored", action="store_true",
                   help="do not fail on unscored answers (they are listed and left out of the means)")
    p.add_argument("--junit-xml", metavar="PATH", help="write a JUnit XML summary (one test case per check)")
    p.add_argument("--markdown", metavar="PATH", help="write a Markdown summary (e.g. $GITHUB_STEP_SUMMARY)")


def console() -> None:
    """The ``rageval`` console command (pyproject's entry point)."""
    sys.exit(main())


def _note(message, category, filename, lineno, file=None, line=None) -> None:
    """rageval's own warnings (a copied project store re-scoped) as one NOTE line on stderr."""
    from rageval.store.meta import CopiedStoreWarning

    if issubclass(category, CopiedStoreWarning):
        print(str(message), file=sys.stderr)
    else:
        _SHOW_WARNING(message, category, filename, lineno, file, line)


def main(argv: list[str] | None = None) -> int:
    import warnings

    from rageval.embed.processes import one_blas_thread

    one_blas_thread()  # before NumPy loads: the heavy work runs in one process per core instead
    args = build_parser().parse_args(argv)
    if warnings.showwarning is not _note:
        global _SHOW_WARNING
        _SHOW_WARNING, warnings.showwarning = warnings.showwarning, _note
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
        if settings.value("RAGEVAL_DEBUG"):
            raise
        print(f"error: {type(exc).__name__}: {exc} (set RAGEVAL_DEBUG=1 to see the traceback)", file=sys.stderr)
        return EXIT_PARTIAL
