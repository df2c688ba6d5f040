"""``rageval check``: the CI gate (exit 0 every check passed, 1 a check failed, 2 unusable arguments)."""
from __future__ import annotations

import argparse
from pathlib import Path

from rageval.cli.base import EXIT_OK, EXIT_PARTIAL, Commands, emit, names, project, summary_file
from rageval.config import GateConfig
from rageval.errors import ConfigError, InputError


def cmd_check(args: argparse.Namespace) -> int:
    """CI gate: fail (exit 1) when a metric's mean is under a threshold, when it dropped from a baseline
    run or file (paired Wilcoxon test and a minimum effect), or when answers are unscored; exit 0 when
    every check passes, 2 on unusable arguments."""
    from rageval import gate
    from rageval.files import write_atomic

    if bool(args.run) == bool(args.scores):
        raise ConfigError("check needs exactly one of --run ID or a scored FILE")
    named = {*gate.parse_thresholds(args.fail_under), *gate.parse_thresholds(args.fail_over, "--fail-over"),
             *(names(args.metrics) if args.metrics else [])}
    shares = bool(named & set(gate.CLAIM_GATE_METRICS))
    try:
        current = (gate.from_run(project(args), args.run, claim_shares=shares) if args.run
                   else gate.from_file(Path(args.scores)))
        baseline = (gate.load(lambda: project(args), args.no_regression_from, claim_shares=shares)
                    if args.no_regression_from else None)
    except InputError as exc:  # an unreadable file is an unusable argument here: exit 2, not "gate failed"
        raise ConfigError(str(exc)) from exc
    result = gate.run_gate(current, fail_under=gate.parse_thresholds(args.fail_under),
                           fail_over=gate.parse_thresholds(args.fail_over, "--fail-over"), baseline=baseline,
                           metrics=names(args.metrics) if args.metrics else None, min_effect=args.min_effect,
                           alpha=args.alpha, allow_unscored=args.allow_unscored)
    for path, render in ((args.junit_xml, gate.junit_xml), (args.markdown, gate.markdown)):
        if path:
            write_atomic(path, render(result))
    emit(args, result.as_dict(), gate.text(result), summary_file(args.junit_xml) or summary_file(args.markdown))
    return EXIT_OK if result.passed else EXIT_PARTIAL


def register(commands: Commands) -> None:
    p = commands.add("check", cmd_check,
                     epilog="exit codes: 0 every check passed, 1 a check failed, 2 unusable arguments")
    p.add_argument("scores", nargs="?", metavar="FILE",
                   help="scores to check: what `rageval score --out FILE` wrote (JSONL, CSV, JSON or Parquet)")
    p.add_argument("--run", metavar="ID", help="check a stored run instead of a file")
    p.add_argument("--fail-under", action="append", metavar="METRIC=VALUE",
                   help="fail when the metric's mean is below VALUE (repeatable); a stored run also has copied_share "
                        "(claims copied from a context / claims), a keyless gate")
    p.add_argument("--fail-over", action="append", metavar="METRIC=VALUE",
                   help="fail when the metric's mean is above VALUE, for metrics where lower is better (repeatable); a "
                        "stored run also has unverified_share (claims no person, judge or copy settled / claims)")
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
    p.add_argument("--junit-xml", metavar="PATH",
                   help="write a JUnit XML summary (one test case per check; - for stdout)")
    p.add_argument("--markdown", metavar="PATH",
                   help="write a Markdown summary (e.g. $GITHUB_STEP_SUMMARY; - for stdout)")
