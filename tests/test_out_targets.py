"""Writes that respect the target: ``--out`` to a symbolic link replaces the file it
points to; to ``-`` or a FIFO it streams; a temporary file left by a killed write is removed by the
next write into the same folder. Through ``score``, ``export`` and ``report``, which share
:func:`rageval.files.atomic_write`."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rageval import files
from rageval.cli import main

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RAGEVAL_PROJECT", raising=False)
    answers = tmp_path / "answers.jsonl"
    answers.write_text("".join(json.dumps({"id": f"a{i}", "question": "q?", "answer": "the cat sat",
                                           "reference": "the cat sat" if i else "a dog"}) + "\n" for i in range(3)))
    return tmp_path


def _run_id(capsys, home) -> str:
    assert main(["score", str(home / "answers.jsonl"), "--metrics", "token_f1", "--json", "--out",
                 str(home / "s.jsonl")]) == 0
    return json.loads(capsys.readouterr().out)["run_id"]


def test_out_to_a_symlink_replaces_the_file_it_points_to(home, capsys):
    run_id = _run_id(capsys, home)
    real = home / "real"
    real.mkdir()
    for name, argv in [("scores.jsonl", ["score", str(home / "answers.jsonl"), "--metrics", "token_f1", "--no-store"]),
                       ("export.csv", ["export", "--run", run_id, "--format", "csv"]),
                       ("report.html", ["report", "--run", run_id])]:
        target = real / name
        target.write_text("old", encoding="utf-8")
        os.chmod(target, 0o640)
        link = home / f"link-{name}"
        link.symlink_to(target)
        assert main([*argv, "--out", str(link)]) == 0, name
        assert link.is_symlink() and os.readlink(link) == str(target)  # still a link, to the same file
        assert target.read_text(encoding="utf-8") != "old" and len(target.read_text(encoding="utf-8")) > 10
        assert oct(target.stat().st_mode & 0o777) == oct(0o640)  # the file keeps its mode
        assert [p.name for p in real.iterdir() if p.name.endswith(".tmp")] == []
    capsys.readouterr()
    dangling = home / "dangling.jsonl"
    dangling.symlink_to(real / "new.jsonl")
    assert (
        main(["score", str(home / "answers.jsonl"), "--metrics", "token_f1", "--no-store", "--out", str(dangling)]) == 0
    )
    assert dangling.is_symlink() and len((real / "new.jsonl").read_text().splitlines()) == 3


def test_out_dash_streams_to_stdout_and_the_summary_goes_to_stderr(home, capsys):
    run_id = _run_id(capsys, home)
    assert main(["score", str(home / "answers.jsonl"), "--metrics", "token_f1", "--no-store", "--out", "-"]) == 0
    out = capsys.readouterr()
    assert [json.loads(x)["id"] for x in out.out.splitlines()] == ["a0", "a1", "a2"]
    assert "3 row(s) scored" in out.err and not (home / "-").exists()
    assert main(["report", "--run", run_id, "--out", "-"]) == 0
    out = capsys.readouterr()
    assert out.out.lstrip().lower().startswith("<!doctype html") and f"report of run {run_id} -> -" in out.err
    assert main(["export", "--run", run_id, "--format", "csv", "--out", "-", "--json"]) == 0
    out = capsys.readouterr()
    assert out.out.splitlines()[0].startswith("id,") and json.loads(out.err)["out"] == "-"


def _reader(path: Path, got: list[bytes]) -> threading.Thread:
    def read() -> None:
        with open(path, "rb") as fh:
            got.append(fh.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("via_link", [False, True])
def test_out_to_a_fifo_streams_to_its_reader(home, capsys, via_link):
    run_id = _run_id(capsys, home)
    fifo = home / "pipe"
    os.mkfifo(fifo)
    out = home / "to-pipe.jsonl"
    if via_link:
        out.symlink_to(fifo)
    else:
        out = fifo
    for argv, check in [(["score", str(home / "answers.jsonl"), "--metrics", "token_f1", "--no-store"],
                         lambda data: len(data.splitlines()) == 3),
                        (["export", "--run", run_id, "--format", "parquet"], lambda data: data.startswith(b"PAR1")),
                        (["report", "--run", run_id], lambda data: b"<html" in data.lower())]:
        got: list[bytes] = []
        thread = _reader(fifo, got)
        assert main([*argv, "--out", str(out)]) == 0, argv
        thread.join(30)
        assert got and check(got[0]), argv
        assert fifo.is_fifo() and (not via_link or out.is_symlink())  # never replaced by a regular file
    assert files.is_stream("/dev/stdout") and files.is_stream("/dev/null") and files.is_stream("-")
    assert not files.is_stream(home / "answers.jsonl") and not files.is_stream(home / "absent.jsonl")


def _temp_name(target: str, host: str, pid: int) -> str:
    return f".{target}.{host}-{pid}.abc123xy.tmp"


def test_a_killed_writes_temp_file_is_removed_by_the_next_write(home, capsys):
    out = home / "out"
    out.mkdir()
    killed = subprocess.run(
        [sys.executable, "-c", "import os, sys\nfrom rageval.files import atomic_write\n"
         "cm = atomic_write(sys.argv[1])\nfh = cm.__enter__()\nfh.write('partial')\nfh.flush()\n"
         "os.kill(os.getpid(), 9)", str(out / "s.jsonl")], cwd=ROOT, timeout=120)
    assert killed.returncode == -9
    left = [p.name for p in out.iterdir()]
    assert len(left) == 1 and files.TEMP_NAME.match(left[0]), left  # what a SIGKILL leaves behind
    host = files.TEMP_NAME.match(left[0])["host"]
    other = "0" * 6 if host != "000000" else "1" * 6
    keep = [_temp_name("live.jsonl", host, os.getpid()),          # a write of a process still running
            _temp_name("remote.jsonl", other, 12345),              # another machine's, recent
            ".notes.tmp", "part-1.jsonl.tmp"]                      # not our pattern
    old = _temp_name("stale.jsonl", other, 12345)                  # another machine's, two days old
    for name in keep + [old]:
        (out / name).write_text("x")
    two_days = time.time() - 2 * 86400
    os.utime(out / old, (two_days, two_days))
    assert main(["score", str(home / "answers.jsonl"), "--metrics", "token_f1", "--no-store",
                 "--out", str(out / "s.jsonl")]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(keep + ["s.jsonl"])
    assert len((out / "s.jsonl").read_text().splitlines()) == 3


def test_out_dev_stdout_in_a_real_process_streams_into_the_pipe(home):
    """``score --out /dev/stdout`` from a shell: the rows come down the pipe and /dev/stdout stays what it
    was (the guard first: a regression must fail here, not replace /dev/stdout on the machine)."""
    assert files.is_stream("/dev/stdout")
    before = os.lstat("/dev/stdout")
    done = subprocess.run([sys.executable, "-m", "rageval", "score", str(home / "answers.jsonl"), "--metrics",
                           "token_f1", "--no-store", "--out", "/dev/stdout"], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "RAGEVAL_HOME": str(home / "home")})
    assert done.returncode == 0, done.stderr
    assert [json.loads(x)["id"] for x in done.stdout.splitlines()] == ["a0", "a1", "a2"]
    assert "3 row(s) scored" in done.stderr
    after = os.lstat("/dev/stdout")
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
