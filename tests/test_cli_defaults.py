"""The CLI's defaults are the config classes' (rageval.config), and every command's --help works."""
from __future__ import annotations

import argparse
import dataclasses

import pytest

from rageval.cli import build_parser
from rageval.config import ChunkingConfig, CompareConfig, CorrelateConfig, GateConfig, RayOptions, RunConfig


def _commands(parser: argparse.ArgumentParser, path=()) -> list[tuple[str, ...]]:
    out = [tuple(path)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _commands(sub, (*path, name))
    return out


COMMANDS = _commands(build_parser())


def test_every_command_is_reached():
    leaves = {c for c in COMMANDS if c}
    assert {("run",), ("score",), ("ingest",), ("qa", "import"), ("check",), ("compare",), ("correlate",),
            ("rubric", "add"), ("ratings", "export")} <= leaves


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "rageval")
def test_every_help_works(command, capsys):
    with pytest.raises(SystemExit) as done:
        build_parser().parse_args([*command, "--help"])
    assert done.value.code == 0
    assert "usage:" in capsys.readouterr().out


def _defaults(*argv: str) -> dict:
    return vars(build_parser().parse_args(list(argv)))


def _same(args: dict, config, names: dict[str, str]) -> None:
    for flag, field in names.items():
        assert args[flag] == getattr(config, field), (flag, args[flag], getattr(config, field))


def test_run_and_ingest_defaults_are_run_config_and_chunking_config():
    run = _defaults("run", "--corpus", "c", "--qa", "q")
    _same(run, RunConfig, {f: f for f in ("top_k", "generator", "temperature", "judge", "language",
                                          "concurrency", "embedder")})
    for args in (run, _defaults("ingest", "x.pdf", "--corpus", "c")):
        _same(args, ChunkingConfig, {"chunking": "method", "chunk_size": "size", "chunk_overlap": "overlap"})
    default = RunConfig(corpus="c", qa_set="q")
    assert (default.top_k, default.chunking) == (run["top_k"], ChunkingConfig(run["chunking"], run["chunk_size"],
                                                                              run["chunk_overlap"]))


def test_score_defaults_are_run_config_and_ray_options():
    score = _defaults("score", "a.jsonl", "--metrics", "token_f1")
    _same(score, RunConfig, {f: f for f in ("judge", "embedder", "language", "concurrency", "aligncheck_source",
                                            "aligncheck_types")})
    _same(score, RayOptions, {"batch_size": "batch_size", "part_rows": "part_rows"})


def test_analysis_and_gate_defaults_are_their_config_classes():
    corr = _defaults("correlate", "--runs", "a")
    _same(corr, CorrelateConfig, {"group_by": "group_by", "method": "method", "consensus": "consensus",
                                  "n_boot": "n_boot", "seed": "seed"})
    _same(_defaults("compare", "--runs", "a,b", "--metric", "m"), CompareConfig,
          {f.name: f.name for f in dataclasses.fields(CompareConfig)})
    _same(_defaults("check", "f.jsonl"), GateConfig, {f.name: f.name for f in dataclasses.fields(GateConfig)})


def test_the_library_functions_default_to_the_same_config():
    import inspect

    from rageval.gate import run_gate
    from rageval.human import compare_runs, correlate_runs

    def kw(func):
        return {k: p.default for k, p in inspect.signature(func).parameters.items()}

    assert kw(compare_runs)["n_boot"] == CompareConfig.n_boot and kw(compare_runs)["seed"] == CompareConfig.seed
    c = kw(correlate_runs)
    assert (c["group_by"], c["method"], c["consensus_method"], c["n_boot"], c["seed"]) == \
        (CorrelateConfig.group_by, CorrelateConfig.method, CorrelateConfig.consensus, CorrelateConfig.n_boot,
         CorrelateConfig.seed)
    g = kw(run_gate)
    assert (g["min_effect"], g["alpha"]) == (GateConfig.min_effect, GateConfig.alpha)
