"""Human evaluation: ``rageval ratings import | export``, ``correlate``, ``compare`` and ``agreement``."""
from __future__ import annotations

import argparse

from rageval.cli.base import EXIT_OK, Commands, emit, input_file, names, project, report_import, write_export
from rageval.cli.trust import add_agreement_flags
from rageval.config import CompareConfig, CorrelateConfig
from rageval.errors import ConfigError


def _run_list(text: str) -> list[str]:
    runs = names(text)
    if not runs:
        raise ConfigError("give one or more run ids: --runs ID[,ID...]")
    return runs


def cmd_ratings_import(args: argparse.Namespace) -> int:
    """Import human ratings 1-5 (CSV/JSON/JSONL: item_id or question, annotator (or --annotator), rating,
    optional run)."""
    from rageval.human import import_ratings
    from rageval.ingest.rows import read_label_file

    path = input_file(args.file)
    result = import_ratings(project(args), path.name, read_label_file(path), run=args.run, annotator=args.annotator)
    return report_import(args, result, "rating(s)")


def cmd_ratings_export(args: argparse.Namespace) -> int:
    """Export the human ratings of runs as CSV or JSONL."""
    from rageval.human import export_ratings

    text = export_ratings(project(args), _run_list(args.run), args.format)
    return write_export(args, text)


def cmd_correlate(args: argparse.Namespace) -> int:
    """Correlate every metric with the human consensus and with each other; store the analysis."""
    from rageval.human import correlate_runs, list_analyses, open_analysis
    from rageval.cli.text import analysis_text

    proj = project(args)
    if args.list:
        rows = list_analyses(proj)
        emit(args, {"analyses": rows}, "\n".join(f"{a['id']}  {a['method']:<8} by {a['grouping']:<7} runs "
                                                 f"{','.join(a['runs'])}" for a in rows) or "no stored analyses")
        return EXIT_OK
    if args.open:
        analysis = open_analysis(proj, args.open)
    else:
        filters = {"metrics": names(args.metrics)} if args.metrics else {}
        analysis = correlate_runs(proj, _run_list(args.runs), group_by=args.group_by, method=args.method,
                                  consensus_method=args.consensus, filters=filters, n_boot=args.n_boot, seed=args.seed)
    emit(args, analysis.as_dict(), analysis_text(analysis))
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    """Compare runs on one metric (or 'human'): Friedman, post-hoc tests, ranks; for two runs the Wilcoxon
    test and the CI of B - A in one sentence, and the questions that got worse and better."""
    from rageval.human import compare_runs
    from rageval.cli.text import comparison_text

    proj = project(args)
    result = compare_runs(proj, _run_list(args.runs), args.metric, n_boot=args.n_boot, seed=args.seed)
    payload, text = result.as_dict(), comparison_text(result)
    if len(result.runs) == 2 and args.metric != "human" and "#" not in args.metric:
        from rageval.cli.text import regression_text
        from rageval.views.regressions import regressions

        reg = regressions(proj, *result.runs, args.metric)
        payload["per_question"] = reg.as_dict()
        text += "\n\n" + regression_text(reg, limit=args.limit, names=result.names)
    emit(args, payload, text)
    return EXIT_OK


def cmd_agreement(args: argparse.Namespace) -> int:
    """Agreement between annotators: Krippendorff's alpha, weighted kappa, exact / within-one shares
    (with --claims: on claim labels, and every claim verifier against people)."""
    if args.claims:
        from rageval.cli.trust import cmd_claim_agreement

        return cmd_claim_agreement(args)
    from rageval.human import agreement
    from rageval.cli.text import rating_agreement_text

    out = agreement(project(args), _run_list(args.runs), by=args.by)
    emit(args, out, rating_agreement_text(out))
    return EXIT_OK


def _bootstrap_args(p: argparse.ArgumentParser, n_boot: int, seed: int, what: str) -> None:
    p.add_argument("--n-boot", type=int, default=n_boot, help=f"bootstrap resamples for {what} (default: %(default)s)")
    p.add_argument("--seed", type=int, default=seed, help="bootstrap seed (default: %(default)s)")


def register(commands: Commands) -> None:
    ratings = commands.group("ratings", "human ratings: import, export",
                             {"import": cmd_ratings_import, "export": cmd_ratings_export})
    p = ratings["import"]
    p.add_argument("file", metavar="FILE", help="CSV, JSON or JSONL with item_id (or question), annotator, rating")
    p.add_argument("--run", metavar="ID", help="the rated run (else each row's 'run' column)")
    p.add_argument("--annotator", metavar="NAME",
                   help="the annotator of the rows that name none (a file of one person's ratings without the column)")
    p = ratings["export"]
    p.add_argument("--run", required=True, metavar="ID[,ID]", help="run id(s) whose ratings to export")
    p.add_argument("--out", metavar="FILE", help="file to write (default: stdout)")
    p.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="output format (default: %(default)s)")
    c = CorrelateConfig
    p = commands.add("correlate", cmd_correlate)
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
    p = commands.add("compare", cmd_compare)
    p.add_argument("--runs", required=True, metavar="A,B[,C...]", help="two or more runs over the same QA set")
    p.add_argument("--metric", required=True, help="a metric name, or 'human' for the consensus rating")
    _bootstrap_args(p, CompareConfig.n_boot, CompareConfig.seed, "the difference CI")
    p.add_argument("--limit", type=int, default=CompareConfig.limit,
                   help="questions listed as worse and as better for two runs (all of them in --json) "
                        "(default: %(default)s)")
    p = commands.add("agreement", cmd_agreement)
    p.add_argument("--runs", metavar="ID[,ID...]", help="runs whose ratings to compare between annotators")
    add_agreement_flags(p)
    _bootstrap_args(p, 1000, 0, "the agreement CIs (with --claims)")
    p.add_argument("--by", choices=("dataset", "domain", "model", "run"), help="also report agreement per group")
