"""What every command module shares: exit codes, the parser class, the command registry, output
(``emit``, ``progress``) and the flags several commands take.

Kept light: it imports only the standard library, :mod:`rageval.settings` and
:mod:`rageval.config`, so that ``rageval --help`` loads no model, store or NumPy.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from rageval import settings
from rageval.config import METHODS, ChunkingConfig, RunConfig
from rageval.errors import ConfigError

EXIT_OK, EXIT_PARTIAL, EXIT_USAGE = 0, 1, 2

Handler = Callable[[argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse exits 2 on usage errors; keep that, without noise
        self.print_usage(sys.stderr)
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


class Commands:
    """The subcommand registry each command module adds its parsers to (``register(commands)``).

    ``add`` makes ``rageval NAME``; ``group`` makes ``rageval NAME COMMAND`` for each command. A
    handler's docstring is its help; every parser takes the common flags (``--project``, ``--json``).
    """

    def __init__(self, sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
        self._sub, self._common = sub, common

    def add(self, name: str, func: Handler, **kw: Any) -> argparse.ArgumentParser:
        p = self._sub.add_parser(name, help=func.__doc__.splitlines()[0], description=func.__doc__,
                                 parents=[self._common], **kw)
        p.set_defaults(func=func)
        return p

    def group(self, name: str, help: str, commands: dict[str, Handler]) -> dict[str, argparse.ArgumentParser]:
        inner = self._sub.add_parser(name, help=help).add_subparsers(dest=f"{name}_command", required=True,
                                                                      parser_class=Parser)
        out = {}
        for command, func in commands.items():
            out[command] = inner.add_parser(command, help=func.__doc__, description=func.__doc__,
                                            parents=[self._common])
            out[command].set_defaults(func=func)
        return out


def emit(args: argparse.Namespace, payload: dict[str, Any], text: str, file: Any = None) -> None:
    """``payload`` as one JSON object with ``--json``, else ``text``, on stdout (or ``file``: stderr
    when stdout is an ``--out`` stream, :func:`summary_file`), made safe for a terminal or CI log:
    no escape sequence from data (:func:`rageval.text.hygiene.terminal_safe`; in JSON, the C1 and
    bidi controls escaped)."""
    from rageval.text.hygiene import json_for_terminal, terminal_safe

    print(json_for_terminal(json.dumps(payload, ensure_ascii=False, default=str)) if args.json else terminal_safe(text),
          file=file or sys.stdout)


def write_export(args: argparse.Namespace, text: str) -> int:
    """An export's CSV or JSONL ``text`` to ``--out`` (written atomically, or streamed into a pipe or
    device) with a one-line summary of its rows, else to stdout: the ratings and claim-labels exports."""
    if not args.out:
        sys.stdout.write(text)
        return EXIT_OK
    from rageval.files import write_atomic

    write_atomic(args.out, text)
    rows = max(0, text.count("\n") - (args.format == "csv"))
    emit(args, {"out": args.out, "rows": rows}, f"-> {args.out}", file=summary_file(args.out))
    return EXIT_OK


def summary_file(out: Any) -> Any:
    """Where a command's summary goes: stderr when its ``--out`` streams to stdout, a pipe or a device."""
    from rageval.files import is_stream

    return sys.stderr if out and is_stream(out) else None


def progress(args: argparse.Namespace) -> Callable[[str, int, int], None] | None:
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


def project(args: argparse.Namespace):
    """The project that ``--project`` names (default: $RAGEVAL_PROJECT), made if new; acted on by the
    member ``--as`` names (where the project allows it), else by the local user."""
    from rageval.project import open_project

    found = open_project(args.project)
    if getattr(args, "as_email", None):
        from rageval.access import act_as

        return act_as(found, args.as_email)
    return found


def input_file(name: str, flag: str = "") -> Path:
    """``name`` as a Path to an existing file, else ConfigError ``[flag ]PATH: no such file``."""
    path = Path(name)
    if not path.is_file():
        raise ConfigError(f"{flag}{path}: no such file")
    return path


def row_problem(e: Any) -> dict[str, Any]:
    """A rejected row (or a note) as JSON: row, line, column and reason, where known."""
    out = {"row": e.row, "line": e.line, "column": e.column, "reason": e.reason}
    return {k: v for k, v in out.items() if v is not None}


def names(text: str | None) -> list[str]:
    """``a, b,,c`` -> ``["a", "b", "c"]``."""
    return [m.strip() for m in (text or "").split(",") if m.strip()]


def env_default(name: str) -> str:
    """The default of the setting ``name`` (:mod:`rageval.settings`), for a flag's help."""
    return settings.setting(name).default


def judge_help() -> str:
    """The help of ``--judge``: what the offline default decides (docs/claim-rules.md)."""
    return ("heuristic | openai:MODEL; heuristic has no judge: a claim copied from a context that lets the copy "
            "stand is SUPPORTED and every other claim UNVERIFIED (never CONTRADICTED or NOT_MENTIONED; "
            "docs/claim-rules.md)")


def language_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--language", default=RunConfig.language,
                   help="language of the texts, ISO 639-1 (default: %(default)s)")


def chunk_args(p: argparse.ArgumentParser) -> None:
    """``--chunking --chunk-size --chunk-overlap --embedder --workers`` (ingest and run)."""
    p.add_argument("--chunking", choices=METHODS, default=ChunkingConfig.method,
                   help="recursive: split on paragraphs, then sentences, then words; chars: fixed windows "
                        "(default: %(default)s)")
    p.add_argument("--chunk-size", type=int, default=ChunkingConfig.size,
                   help="chunk size in characters (default: %(default)s)")
    p.add_argument("--chunk-overlap", type=int, default=ChunkingConfig.overlap,
                   help="characters shared by neighbouring chunks, smaller than --chunk-size (default: %(default)s)")
    p.add_argument("--embedder", default=RunConfig.embedder,
                   help="local (all-MiniLM-L6-v2, offline) or openai:MODEL on OPENAI_BASE_URL (default: %(default)s)")
    workers_arg(p)


def workers_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--workers", type=workers, default=None,
                   help="processes computing offline metrics and vectors, one BLAS thread each "
                        "(default: $RAGEVAL_WORKERS, else one per core; 1 = this process only)")


def workers(value: str) -> int:
    """``--workers`` as a number of processes; argparse reports a bad one as a usage error."""
    from rageval.embed.processes import check_workers

    try:
        return check_workers(value)
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def report_import(args: argparse.Namespace, result: Any, noun: str) -> int:
    """Print a ratings or claim-labels import: each rejected row, then ``"N <noun> imported, M row(s)
    rejected"`` and, when the import replaced earlier labels (``result.replaced``: rater -> count),
    how many of whose (``{"imported", "errors", "replaced"}`` with ``--json``). EXIT_PARTIAL when a
    row was rejected or nothing was imported."""
    errors = [row_problem(e) for e in result.errors]
    replaced = dict(getattr(result, "replaced", None) or {})
    lines = [f"ERROR {e}" for e in result.errors]
    lines.append(f"{result.imported} {noun} imported, {len(errors)} row(s) rejected")
    if replaced:
        whose = ", ".join(f"{rater} {n}" for rater, n in sorted(replaced.items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"{sum(replaced.values())} earlier label(s) replaced ({whose}); the earlier ones are kept in "
                     "the label history (agreement --claims --as-of TIME)")
    emit(args, {"imported": result.imported, "errors": errors, **({"replaced": replaced} if replaced else {})},
         "\n".join(lines))
    return EXIT_PARTIAL if errors or not result.imported else EXIT_OK

