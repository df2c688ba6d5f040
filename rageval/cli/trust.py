"""Trust by measurement: ``rageval claim-labels import | export``, ``agreement --claims`` (its handler is
here, the flag on ``agreement``) and ``estimate``."""
from __future__ import annotations

import argparse

from rageval.cli.base import EXIT_OK, Commands, emit, input_file, names, project, report_import, write_export


def cmd_labels_import(args: argparse.Namespace) -> int:
    """Import people's claim labels (CSV/JSON/JSONL: item_id or question, claim or claim_index, rater,
    label SUPPORTED/CONTRADICTED/NOT_MENTIONED/skip, optional run, evidence, evidence_chunk, span_start, span_end)."""
    from rageval.human.claim_labels import import_claim_labels
    from rageval.ingest.rows import read_label_file

    path = input_file(args.file)
    result = import_claim_labels(project(args), path.name, read_label_file(path), run=args.run)
    return report_import(args, result, "claim label(s)")


def cmd_labels_export(args: argparse.Namespace) -> int:
    """Export people's claim labels of runs as CSV or JSONL (it imports back as is)."""
    from rageval.errors import ConfigError
    from rageval.human.claim_labels import export_claim_labels

    runs = names(args.run)
    if not runs:
        raise ConfigError("give one or more run ids: --run ID[,ID...]")
    text = export_claim_labels(project(args), runs, args.format)
    return write_export(args, text)


def cmd_labels_settled(args: argparse.Namespace) -> int:
    """Each claim's settled verdict: people's consensus, else a judge's, else a copy, else UNVERIFIED;
    with who settled it and every source's verdict, and the claim metrics on settled verdicts."""
    from rageval.errors import ConfigError
    from rageval.report.settle import settled_claims, settled_text
    from rageval.report.summary import run_summaries
    from rageval.store import runs as rstore

    proj = project(args)
    if rstore.get_run(proj.db_path, args.run) is None:
        raise ConfigError(f"no run {args.run!r} in project {proj.slug}; list them with: python -m rageval runs")
    claims = settled_claims(proj, args.run, args.item)
    metrics = [s for s in run_summaries(proj, args.run) if s.metric in ("faithfulness", "contradicted_share",
                                                                          "not_mentioned_share")]
    payload = {"run": args.run, "claims": [c.as_dict() for c in claims],
               "metrics": {s.metric: {"mean": s.mean, "coverage": s.coverage, "n_ok": s.n_ok} for s in metrics}}
    emit(args, payload, settled_text(claims, metrics))
    return EXIT_OK


def cmd_claim_agreement(args: argparse.Namespace) -> int:
    """Raters' agreement on claims and every claim verifier's agreement with people's labels."""
    from rageval.cli.text import claim_agreement_payload, claim_agreement_text
    from rageval.views.trust import claim_agreement

    rows, raters = claim_agreement(project(args), names(args.runs) or None, n_boot=args.n_boot, width=args.width,
                                   as_of=_timestamp(args.as_of) if args.as_of else None)
    emit(args, claim_agreement_payload(rows, raters), claim_agreement_text(rows, raters))
    return EXIT_OK


def _timestamp(text: str) -> str:
    """``--as-of``'s text as an ISO timestamp (a date alone is its midnight); ConfigError when it is none."""
    from datetime import datetime

    from rageval.errors import ConfigError

    try:
        return datetime.fromisoformat(text.strip()).replace(tzinfo=None).isoformat(sep=" ")
    except ValueError:
        raise ConfigError(f"--as-of {text!r} is not a date or time; give e.g. 2026-12-05 or 2026-12-05T14:30") from None


def cmd_estimate(args: argparse.Namespace) -> int:
    """Prediction-powered estimates (PPI++, or classic PPI with --classic) of a run's headline numbers:
    mean human rating with a metric as predictor, share of claims a person calls SUPPORTED per verifier."""
    from rageval.cli.text import estimate_text
    from rageval.errors import ConfigError
    from rageval.store import runs as rstore
    from rageval.views.trust import estimate_rows

    proj = project(args)
    if rstore.get_run(proj.db_path, args.run) is None:
        raise ConfigError(f"no run {args.run!r} in project {proj.slug}; list them with: python -m rageval runs")
    rows = estimate_rows(proj, args.run, metric=args.metric, tuned=not args.classic)
    emit(args, {"run": args.run, "estimates": rows}, estimate_text(rows, args.run))
    return EXIT_OK


def add_agreement_flags(p: argparse.ArgumentParser) -> None:
    """``agreement``'s claim flags (the command itself lives in :mod:`rageval.cli.human`)."""
    p.add_argument("--claims", action="store_true",
                   help="agreement on claim labels: raters, and every claim verifier against people (all runs "
                        "when --runs is not given)")
    p.add_argument("--as-of", metavar="TIME",
                   help="with --claims: the labels as they stood at TIME (e.g. 2026-12-05T14:30, the label history; "
                        "the store's clock, UTC here)")
    p.add_argument("--width", type=float, default=0.2,
                   help="with --claims: the kappa CI width to size the labels needed for (default: %(default)s)")


def register(commands: Commands) -> None:
    labels = commands.group("claim-labels", "people's claim labels: import, export, settled verdicts",
                            {"import": cmd_labels_import, "export": cmd_labels_export, "settled": cmd_labels_settled})
    p = labels["settled"]
    p.add_argument("--run", required=True, metavar="ID", help="the run whose claims to show")
    p.add_argument("--item", metavar="ID", help="one answer's claims only (default: every answer's)")
    p = labels["import"]
    p.add_argument("file", metavar="FILE", help="CSV, JSON or JSONL of claim labels")
    p.add_argument("--run", metavar="ID", help="the labelled run (else each row's 'run' column)")
    p = labels["export"]
    p.add_argument("--run", required=True, metavar="ID[,ID]", help="run id(s) whose claim labels to export")
    p.add_argument("--out", metavar="FILE", help="file to write (default: stdout)")
    p.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="output format (default: %(default)s)")
    p = commands.add("estimate", cmd_estimate)
    p.add_argument("--run", required=True, metavar="ID", help="the run whose headline numbers to estimate")
    p.add_argument("--metric", help="the predictor of the mean human rating (default: answer_correctness_offline, "
                                    "faithfulness, answer_similarity or token_f1, the first the run has)")
    p.add_argument("--classic", action="store_true", help="classic PPI (lambda = 1) instead of PPI++")
