"""The CLI as a product: every option documented, headers, score summaries, resume of a finished
run, the HTML report, the sample files, and the `rageval` command from package metadata."""
from __future__ import annotations

import argparse
import html.parser
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from rageval.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    return tmp_path


def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield name, sub
                yield from ((f"{name} {n}", s) for n, s in _subparsers(sub))


def test_every_option_of_every_command_has_help_text():
    missing = [f"{name}: {'/'.join(a.option_strings) or a.dest}"
               for name, sub in _subparsers(build_parser()) for a in sub._actions
               if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) and not a.help]
    assert missing == []


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The README's path on the bundled sample files: sample, ingest, qa import, run (once)."""
    import contextlib
    import io

    tmp = tmp_path_factory.mktemp("cli")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RAGEVAL_HOME", str(tmp / "home"))
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["sample", str(tmp / "try")]) == 0
            assert main(["ingest", str(tmp / "try" / "docs"), "--corpus", "handbook"]) == 0
            assert main(["qa", "import", str(tmp / "try" / "questions.csv"), "--name", "handbook-qa"]) == 0
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["run", "--corpus", "handbook", "--qa", "handbook-qa", "--top-k", "3",
                         "--metrics", "token_f1,faithfulness,recall@3,hedging"]) == 0
    return tmp, buf.getvalue()


@pytest.fixture()
def sample_run(built, monkeypatch):
    tmp, out = built
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp / "home"))
    return out.splitlines()[0], out


def test_run_prints_a_score_summary_and_runs_have_a_header(sample_run, capsys):
    run_id, out = sample_run
    lines = out.splitlines()
    assert lines[1].startswith("finished: 11/11 items, 0 failed")
    assert lines[2].split() == ["metric", "mean", "scored", "unscored", "direction"]
    recall = next(line for line in lines if line.startswith("recall@3"))
    # the sample's Tokyo question has no relevance labels: scored 10, unscored 1, never a 0
    assert recall.split()[2:4] == ["10", "1"] and "higher is better" in recall
    assert "lower is better" in next(line for line in lines if line.startswith("hedging"))
    assert main(["runs"]) == 0
    table = capsys.readouterr().out.splitlines()
    # the module's home is shared: a test before this one may have made a newer run, listed above it
    assert table[0].split()[:3] == ["id", "status", "created"] and any(r.startswith(run_id) for r in table[1:])


def test_resume_of_a_finished_run_says_so_and_runs_nothing(sample_run, capsys, built):
    run_id, _ = sample_run
    db = built[0] / "home" / "projects" / "default" / "rageval.duckdb"
    before = db.stat().st_mtime_ns
    assert main(["run", "--resume", run_id]) == 0
    assert "already finished" in capsys.readouterr().out
    assert db.stat().st_mtime_ns == before


class _Collect(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.urls = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.urls += [v for k, v in attrs if k in ("src", "href") and v]


def test_report_command_writes_a_self_contained_page(sample_run, tmp_path, capsys):
    run_id, _ = sample_run
    out = tmp_path / "report.html"
    assert main(["report", "--run", run_id, "--out", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    parsed = _Collect()
    parsed.feed(page)
    assert "script" not in parsed.tags and parsed.urls == [], "no script and no outside asset"
    assert "<svg" in page and "Worst answers by faithfulness" in page
    assert "What is the packed weight of the Trailhead 2 tent?" in page
    assert main(["report", "--run", "nope", "--out", str(out)]) == 2


def test_export_ragas_from_the_cli_scores_back(sample_run, tmp_path, capsys):
    run_id, _ = sample_run
    out = tmp_path / "answers.jsonl"
    assert main(["export", "--run", run_id, "--format", "ragas", "--out", str(out)]) == 0
    assert main(["score", str(out), "--metrics", "token_f1,recall@3", "--out", str(tmp_path / "s.jsonl")]) == 0
    rows = [json.loads(x) for x in (tmp_path / "s.jsonl").read_text().splitlines()]
    assert len(rows) == 11 and rows[-1]["recall@3"] is None and rows[-1]["recall@3_status"].startswith("unscored")


def test_wheel_has_the_command_and_the_data_files(tmp_path):
    # built from a copy of the tracked sources (a build in the checkout would leave build/ there, whose
    # stale files a later build would ship), with the venv's own setuptools: no network
    src = tmp_path / "src"
    tracked = subprocess.run(["git", "ls-files", "rageval", "pyproject.toml", "README.md", "requirements.txt"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for name in tracked:
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, src / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(src)], check=True, timeout=300,
                   env={**os.environ, "PIP_NO_INDEX": "1"}, cwd=tmp_path)
    wheel = next(tmp_path.glob("rageval-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("rageval/prompts/generator.txt", "rageval/store/migrations/001_init.sql", "rageval/prices.json",
                   "rageval/demo/corpus/travel_expense_policy.pdf", "rageval/demo/sample_qa.csv",
                   "rageval/models/answer_correctness.json",
                   "rageval/aligncheck/__init__.py", "rageval/prompts/aligncheck_triples.txt", "rageval/demo/qa.jsonl"):
        assert needed in names, needed
    assert not any("claim_xenc" in n or "claim_verifier" in n for n in names)  # no learned claim verifier ships
    meta = next(n for n in names if n.endswith("entry_points.txt"))
    assert "rageval = rageval.cli:console" in zipfile.ZipFile(wheel).read(meta).decode()
    requires = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("METADATA"))).decode()
    deps = [line for line in requires.splitlines() if line.startswith("Requires-Dist:")]
    assert "Requires-Dist: streamlit==1.67.0" in deps and not any("torch" in d for d in deps)
    assert any(d.startswith("Requires-Dist: ray[data]==2.60.0") and 'extra == "ray"' in d for d in deps)  # rageval[ray]
