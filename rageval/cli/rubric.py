"""``rageval rubric add | list``, and ``--rubric FILE`` of ``run`` and ``score``."""
from __future__ import annotations

import argparse
from typing import Any

from rageval.cli.base import EXIT_OK, Commands, emit, input_file, project


def rubric_files(args: argparse.Namespace, proj: Any, metrics: list[str]) -> tuple[list[str], tuple]:
    """``--rubric FILE`` (repeatable): each rubric parsed, stored in ``proj`` (when given) and its
    metric rubric:NAME added to ``metrics``; then every rubric:NAME in ``metrics`` resolved (the files
    first, then the project's stored rubrics). Returns ``(metrics, rubrics)``."""
    from rageval.runs.rubrics import add_rubric_text, resolve
    from rageval.prompts.rubric import parse_rubric, read_rubric_text

    given = {}
    for name in getattr(args, "rubric", None) or ():
        path = input_file(name, "--rubric ")
        text = read_rubric_text(path)  # its size checked first, then its encoding
        rubric = parse_rubric(text, path.name) if proj is None else add_rubric_text(proj, text, path.name)
        given[rubric.name] = rubric
        if rubric.metric not in metrics:
            metrics.append(rubric.metric)
    return metrics, resolve(metrics, given, proj)


def cmd_rubric_add(args: argparse.Namespace) -> int:
    """Store a rubric metric (a TOML file: name, description, criteria, anchors 1-5) in the project."""
    from rageval.runs.rubrics import add_rubric_text
    from rageval.prompts.rubric import read_rubric_text

    path = input_file(args.file)
    rubric = add_rubric_text(project(args), read_rubric_text(path), path.name)
    emit(args, {"metric": rubric.metric, "digest": rubric.digest(), **rubric.to_dict()},
         f"rubric {rubric.name} stored: use the metric {rubric.metric} with an LLM judge "
         f"(--metrics {rubric.metric} --judge openai:MODEL); offline it is unscored")
    return EXIT_OK


def cmd_rubric_list(args: argparse.Namespace) -> int:
    """List the project's rubric metrics."""
    from rageval.runs.rubrics import project_rubrics

    found = project_rubrics(project(args))
    emit(args, {"rubrics": [{"metric": r.metric, "digest": r.digest(), **r.to_dict()} for r in found.values()]},
         "\n".join(f"{r.metric:<30} {r.digest()}  {r.description}" for r in found.values()) or "no rubrics yet")
    return EXIT_OK


def rubric_arg(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--rubric", action="append", metavar="FILE",
                   help=f"a rubric metric (TOML; see `rubric add`){what} (repeatable)")


def register(commands: Commands) -> None:
    p = commands.group("rubric", "rubric metrics written without code: add, list",
                       {"add": cmd_rubric_add, "list": cmd_rubric_list})["add"]
    p.add_argument("file", metavar="FILE", help="the rubric as TOML: name, description, criteria, [anchors] 1-5")
