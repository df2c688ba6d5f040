"""``rageval qa import``: a QA set from a file."""
from __future__ import annotations

import argparse

from rageval.cli.base import EXIT_OK, EXIT_PARTIAL, Commands, emit, input_file, project, row_problem


def cmd_qa_import(args: argparse.Namespace) -> int:
    """Import a QA set from CSV, JSON or JSONL (id, question, reference, relevant_ids, domain)."""
    from rageval.ingest.qa import import_qa

    path = input_file(args.file)
    result = import_qa(project(args), path.name, path.read_bytes(), name=args.name)
    errors = [row_problem(e) for e in result.errors]
    payload = {"name": args.name, "items": len(result.items), "errors": errors,
               "notes": [row_problem(e) for e in result.notes]}
    text = "\n".join([f"ERROR {e}" for e in result.errors] + [f"NOTE {e}" for e in result.notes]
                     + [f"QA set {args.name}: {len(result.items)} item(s) imported, {len(errors)} row(s) rejected"])
    emit(args, payload, text)
    if not result.items:
        return EXIT_PARTIAL
    return EXIT_PARTIAL if errors else EXIT_OK


def register(commands: Commands) -> None:
    p = commands.group("qa", "QA sets: import", {"import": cmd_qa_import})["import"]
    p.add_argument("file", metavar="FILE", help="CSV, JSON or JSONL with id, question, reference, relevant_ids, domain")
    p.add_argument("--name", required=True, help="name of the QA set (replaces a set of that name)")
