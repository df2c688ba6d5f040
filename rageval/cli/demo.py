"""``rageval sample``, ``rageval demo`` and ``rageval metrics``: things to try the other commands on."""
from __future__ import annotations

import argparse
from pathlib import Path

from rageval.cli.base import EXIT_OK, Commands, emit, progress


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
    emit(args, {"docs": str(out / "docs"), "qa": str(out / "questions.csv")},
         f"{out / 'docs'}: the demo documents\n{out / 'questions.csv'}: a sample QA set "
         "(id, question, reference, relevant_ids, domain)")
    return EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    """Load the bundled demo project (documents, QA set, an evaluated run)."""
    from rageval.demo import load_demo

    info = load_demo(force=args.force, progress=progress(args))
    emit(args, info, f"demo project ready: run {info['run_id']} ({info['items']} items)")
    return EXIT_OK


def cmd_metrics(args: argparse.Namespace) -> int:
    """List the registered metrics with what they need."""
    from rageval.metrics.base import get_metric, metric_names

    rows = []
    for name in metric_names():
        m = get_metric(name.replace("@K", "@10"))
        rows.append({"name": name, "kind": m.kind, "needs": sorted(m.needs), "range": list(m.range),
                     "higher_is_better": m.higher_is_better})
    emit(args, {"metrics": rows}, "\n".join(f"{r['name']:<28} {r['kind']:<10} needs: {', '.join(r['needs'])}"
                                            for r in rows))
    return EXIT_OK


def register(commands: Commands) -> None:
    p = commands.add("sample", cmd_sample)
    p.add_argument("folder", metavar="FOLDER", help="where to put docs/ and questions.csv")
    p = commands.add("demo", cmd_demo)
    p.add_argument("--force", action="store_true", help="rebuild the demo project from scratch")
    commands.add("metrics", cmd_metrics)
