"""Reports that cannot be turned against their reader: ``check --junit-xml`` always
parses with a strict XML parser, ``--markdown`` escapes HTML, links, images, bidi and control
characters in every cell, and the terminal never receives an escape sequence from data."""
from __future__ import annotations

import json
import re
from xml.dom import minidom
from xml.etree import ElementTree as ET

import pytest

from rageval.cli import main
from rageval.text.hygiene import BIDI_CONTROLS

HOSTILE = ["m\x1b]0;pwned\x07\x01\x0b<b>", "x<img src=http://evil.test/p.png>", "![i](http://evil.test/i.png)",
           "[click](javascript:alert(1))", "r\u202eevil\u2066", "t\x1b[2J\x1b[31m\x9b0m\x00\ud800"]
ESCAPES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _file(tmp_path):
    """Three metric columns named by hostile text, each with a hostile status on one row."""
    rows = []
    for i in range(6):
        row = {"id": f"q{i}\x1b[1m"}
        for j, name in enumerate(HOSTILE[:3]):
            row[name] = None if i == j else 0.5
            if i == j:
                row[f"{name}_status"] = "unscored: " + HOSTILE[3 + j]
        rows.append(row)
    path = tmp_path / "s<img src=x>.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_junit_markdown_and_terminal_are_safe_whatever_the_names(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    path = _file(tmp_path)
    junit, md = tmp_path / "gate.xml", tmp_path / "gate.md"
    argv = ["check", str(path), "--no-regression-from", str(path), "--junit-xml", str(junit), "--markdown", str(md)]
    for name in HOSTILE[:3]:
        argv += ["--fail-under", f"{name}=0.1"]
    assert main(argv) == 1  # unscored answers on each metric
    out = capsys.readouterr()
    for text in (out.out, out.err):
        assert not ESCAPES.search(text) and not BIDI_CONTROLS.search(text), repr(text[:500])
    assert "FAIL  m]0;pwned<b>: every answer scored: 1 of 6 answers unscored" not in out.out  # the payload goes too
    assert (
        "FAIL  m<b>: every answer scored: 1 of 6 answers unscored on m<b> ([click](javascript:alert(1)) 1)" in out.out
    )
    dom = minidom.parse(str(junit))  # strict: a control character would raise here
    cases = dom.getElementsByTagName("testcase")
    assert len(cases) == 3 * 3 + 0 and dom.documentElement.tagName == "testsuites"
    root = ET.parse(junit).getroot()
    names = [c.get("name") for c in root.iter("testcase")]
    assert "m<b>: every answer scored" in names and "x<img src=http://evil.test/p.png> >= 0.1" in names
    text = md.read_text(encoding="utf-8")
    assert not ESCAPES.search(text) and not BIDI_CONTROLS.search(text)
    assert "<img" not in text and "<b>" not in text and "](" not in text.replace("\\](", "")
    assert "![" not in text.replace("\\!\\[", "") and "javascript:alert\\(1\\)" in text
    assert "&lt;img src=http://evil.test/p.png&gt;" in text and "Scores: s&lt;img src=x&gt;.jsonl" in text
    for line in text.splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            assert len(re.findall(r"(?<!\\)\|", line)) == 4, line  # every row keeps its three cells


def test_a_rejected_id_or_reason_cannot_escape_either(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    path = tmp_path / "s.jsonl"
    evil = "\x1b]8;;http://evil.test\x07click\x1b]8;;\x07\u202e"
    path.write_text(json.dumps({"id": evil, "token_f1": 7}) + "\n" + json.dumps({"id": "ok", "token_f1": 0.5}) + "\n",
                    encoding="utf-8")
    md, junit = tmp_path / "g.md", tmp_path / "g.xml"
    assert main(["check", str(path), "--fail-under", "token_f1=0.1", "--markdown", str(md), "--junit-xml",
                 str(junit)]) == 1
    out = capsys.readouterr().out
    assert not ESCAPES.search(out) and not BIDI_CONTROLS.search(out) and "REJECTED s.jsonl row 1" in out
    minidom.parse(str(junit))
    assert "7.0 is outside token_f1" in ET.parse(junit).getroot().find("testsuite/system-err").text
    text = md.read_text(encoding="utf-8")
    assert "1 value(s) rejected" in text and not ESCAPES.search(text) and not BIDI_CONTROLS.search(text)


def test_json_output_escapes_what_a_terminal_would_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "c1\x9b2J\u202e": 0.5}, ensure_ascii=False) + "\n"
                            for i in range(3)), encoding="utf-8")
    assert main(["check", str(path), "--fail-under", "c1\x9b2J\u202e=0.1", "--json"]) == 0
    out = capsys.readouterr().out
    assert not ESCAPES.search(out) and not BIDI_CONTROLS.search(out)
    assert json.loads(out)["checks"][1]["metric"] == "c1\x9b2J\u202e"  # the same value, escaped


@pytest.mark.parametrize("error_text", ["\x1b]0;title\x07", "\x1b[2J"])
def test_error_messages_are_terminal_safe(tmp_path, monkeypatch, capsys, error_text):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    assert main(["check", str(tmp_path / f"missing{error_text}.jsonl"), "--fail-under", "token_f1=0.5"]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and not ESCAPES.search(err)


def test_junit_to_stdout_keeps_the_verdict_apart(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps({"id": f"q{i}", "token_f1": 0.5}) + "\n" for i in range(3)), encoding="utf-8")
    assert main(["check", str(path), "--fail-under", "token_f1=0.4", "--junit-xml", "-"]) == 0
    out = capsys.readouterr()
    assert minidom.parseString(out.out).documentElement.tagName == "testsuites" and "gate passed" in out.err


def test_other_commands_print_data_without_escapes(tmp_path, monkeypatch, capsys):
    """A rubric's description and a scored row's problems reach the terminal through the same filter."""
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    rubric = tmp_path / "r.toml"
    rubric.write_text('name = "tone"\ndescription = "Polite?\\u001b]0;owned\\u0007\\u001b[31m red \\u202e"\n'
                      'criteria = "c"\nanchors = ["a", "b", "c", "d", "e"]\n', encoding="utf-8")
    assert main(["rubric", "add", str(rubric), "--project", "t"]) == 0
    assert main(["rubric", "list", "--project", "t"]) == 0
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps({"id": "a", "question": "q", "answer": "x", "\x1b[2Jcol": 1}) + "\n"
                       + json.dumps({"id": "\x1b]0;t\x07", "question": 5}) + "\n", encoding="utf-8")
    main(["score", str(answers), "--metrics", "token_f1", "--no-store"])
    out = capsys.readouterr()
    for text in (out.out, out.err):
        assert not ESCAPES.search(text) and not BIDI_CONTROLS.search(text), repr(text)
    assert "Polite? red" in out.out and "NOTE" in out.err
