"""``rageval`` (or ``python -m rageval``): ingest documents, import QA sets, run, score, export and report.

Exit codes: 0 success; 1 some inputs failed but the rest were processed (or the command
failed at run time); 2 unusable arguments. ``check`` (the CI gate): 0 every check passed, 1 a
check failed, 2 unusable arguments (an unknown run or metric, a bad threshold, an unreadable
file). ``--json`` prints one JSON object on stdout.

One module per command group, each parser beside its handler (``register(commands)``); what
they share is in :mod:`rageval.cli.base`. Handlers are thin over the library's service
functions, and import them inside the handler so that ``rageval --help`` loads none of them.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

from rageval import settings
from rageval.cli import check, demo, export, human, ingest, members, qa, rubric, run, score, trust
from rageval.cli.base import EXIT_PARTIAL, EXIT_USAGE, Commands, Parser, env_default
from rageval.errors import ConfigError, InputError, RagevalError

#: the command modules, in the order ``rageval --help`` lists their commands
GROUPS = (ingest, qa, run, export, demo, score, human, trust, check, rubric, members)

_SHOW_WARNING: Callable[..., None] = print


def build_parser() -> argparse.ArgumentParser:
    """The ``rageval`` parser: each command module registers its commands; every default is a
    config class's field (:mod:`rageval.config`) or a row of :mod:`rageval.settings`."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--project",
                        help=f"project name (default: $RAGEVAL_PROJECT or {env_default('RAGEVAL_PROJECT')!r})")
    common.add_argument("--json", action="store_true", help="print JSON on stdout")
    common.add_argument("--as", dest="as_email", metavar="EMAIL",
                        help="act as this member of the project, where an owner allowed it (default: the local user)")
    prog = "rageval" if Path(sys.argv[0]).name == "rageval" else "python -m rageval"  # the console command or -m
    parser = Parser(prog=prog, description=__doc__.splitlines()[0])
    commands = Commands(parser.add_subparsers(dest="command", required=True, parser_class=Parser), common)
    for group in GROUPS:
        group.register(commands)
    return parser


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
    """Parse ``argv`` and run its command; the exit code (module docstring). Never a traceback for a
    user: RAGEVAL_DEBUG=1 shows it."""
    import warnings

    from rageval.embed.processes import one_blas_thread
    from rageval.text.hygiene import terminal_safe

    one_blas_thread()  # before NumPy loads: the heavy work runs in one process per core instead
    args = build_parser().parse_args(argv)
    if warnings.showwarning is not _note:
        global _SHOW_WARNING
        _SHOW_WARNING, warnings.showwarning = warnings.showwarning, _note
    try:
        return args.func(args)
    except ConfigError as exc:
        print(terminal_safe(f"error: {exc}"), file=sys.stderr)
        return EXIT_USAGE
    except (InputError, RagevalError) as exc:
        print(terminal_safe(f"error: {exc}"), file=sys.stderr)
        return EXIT_PARTIAL
    except KeyboardInterrupt:
        print("\ninterrupted; resume with: python -m rageval run --resume <ID>", file=sys.stderr)
        return 130
    except Exception as exc:  # never a traceback for a user; RAGEVAL_DEBUG=1 shows it
        if settings.value("RAGEVAL_DEBUG"):
            raise
        print(terminal_safe(f"error: {type(exc).__name__}: {exc} (set RAGEVAL_DEBUG=1 to see the traceback)"),
              file=sys.stderr)
        return EXIT_PARTIAL
