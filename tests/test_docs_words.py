"""The docs and the code speak about the product as it is, not about how it was made.

A reader of README.md, docs/*.md or any Python file (comments and docstrings included) should not
meet references to the project's issue tracker ("issue 24", "issues 22/36", "#47"), words of the
work process (milestones, "branch suitespeed2", sprints, helper sessions, "stop 45", engineers,
"round five" of a review) or absolute paths of the machine the project was developed on
(``/work/...``, ``/root/...``, ``/home/<user>/...``, ``/tmp/<name>`` as a place where something
lives, ``../shared``), or design files kept outside the repository. Phrases are matched, not lone
words: "session" (Streamlit session state, the model session) and "branch" (a code branch, a
branch of an if) stay legitimate.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PY_TREES = ("rageval", "pages", "bench", "training", "validation", "devtools", "tests")

_NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
#: (what it catches, pattern); each is matched line by line, case-insensitively
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple((name, re.compile(rx, re.IGNORECASE)) for name, rx in (
    ("issue number", r"\bissues?\s*#?\d+(?:\s*(?:/|,|and|or)\s*#?\d+)*\b"),
    ("tracker reference", r"(?:\b(?:in|see|per|from|fix(?:es|ed)?|close[sd]?|by|after|since|and|or|PR|pull)\s+"
                           r"|[(\[,/]\s*)#\d{1,5}\b"),
    ("milestone", r"\bmilestones?\b"),
    ("branch name", r"\b(?:on|in|the|of|from|to|our|this)\s+branch(?:es)?\s+[`'\"]?[a-z][\w.-]*\d[\w.-]*|"
                    r"\bbranch\s+`[^`]+`"),
    ("sprint", r"\bsprints?\b"),
    ("helper session", r"\b(?:helper|work|coding|agent|review)\s+sessions?\b"
                       r"|\bsessions?\s+of\s+(?:this|the)\s+project\b"),
    ("stop number", r"\bstop\s+\d+\b"),
    ("engineers", r"\bengineers'|\b(?:an|another|other|two|three|four|five|six|several)\s+(?:other\s+)?engineers?\b|"
                  r"\bengineers?\s+(?:ran|run|running|found|measured|worked|working)\b|\bthe\s+engineer\s+who\b"),
    ("review round", rf"\bround\s+(?:{_NUMBER_WORDS}|\d+)\b|\b(?:hostile|adversarial)\s+review\b"),
    ("file outside the repository", r"\b(?:DESIGN|STYLE|BRIEF)\.md\b"),
    ("machine path", r"""(?<![\w.~-])/(?:work|root)/|(?<![\w.~-])/home/\w+|(?<![\w.~$"'-])/tmp/\w|\.\./shared\b"""),
))


def offences(line: str) -> list[str]:
    """The names of the patterns ``line`` matches."""
    return [name for name, pattern in PATTERNS if pattern.search(line)]


def checked_files(root: Path = ROOT) -> list[Path]:
    """README.md, docs/*.md, app.py and every .py under the product, script and test trees."""
    files = [root / "README.md", root / "app.py", *sorted((root / "docs").glob("*.md"))]
    for tree in PY_TREES:
        files.extend(sorted((root / tree).rglob("*.py")))
    return [f for f in files if f.is_file()]


def findings(files: list[Path], root: Path = ROOT) -> list[str]:
    """``file:line: what: text`` for every offending line; this file's own examples are exempt."""
    found = []
    for path in files:
        if path.resolve() == Path(__file__).resolve():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for name in offences(line):
                found.append(f"{path.relative_to(root)}:{number}: {name}: {line.strip()[:120]}")
    return found


def test_no_tracker_process_or_machine_path_words_in_docs_or_code():
    found = findings(checked_files())
    assert found == [], f"{len(found)} lines speak of the work, not the product:\n" + "\n".join(found)


@pytest.mark.parametrize("line, caught", [
    ("docs/architecture.md cites issue 24 for the layers", "issue number"),
    ("see issues 22/36 for the history", "issue number"),
    ("fixed in #47 last week", "tracker reference"),
    ("(#12) the verifier's floor", "tracker reference"),
    ("the third milestone closed the gap", "milestone"),
    ("measured on branch suitespeed2 while others ran", "branch name"),
    ("merged from branch `d53`", "branch name"),
    ("planned for the next sprint", "sprint"),
    ("a helper session measured it", "helper session"),
    ("as stop 45 asked", "stop number"),
    ("while three other engineers ran tests", "engineers"),
    ("another engineer found the race", "engineers"),
    ("round five of the hostile review", "review round"),
    ("the data lives in /work/shared/data/", "machine path"),
    ("a torch venv at /root/torch-venv/bin/python", "machine path"),
    ("copied to /home/alice/runs", "machine path"),
    ("the mirror sits in /tmp/mirror", "machine path"),
    ("read from ../shared/data", "machine path"),
    ("rageval follows DESIGN.md (kept by the team)", "file outside the repository"),
])
def test_the_patterns_catch_process_words(line, caught):
    assert caught in offences(line)


@pytest.mark.parametrize("line", [
    "st.session_state holds the run; the model session is shared",
    "one session of the verifier serves every call",
    "each branch of the if returns a Score",
    "the colour #1f77b4 and the header '# 3 claims'",
    "issued by the store; the issuer is named",
    "round(x, 3) rounds to three places",
    "a test that fails: python -m pytest tests/test_x.py",
    "tmp_path / 'data' holds the fixtures",
    "the data folder is given with --data DIR",
    "links to docs/benchmarks.md#suite and README.md#quick-start",
    "an engine for sessions beyond one process",
    "designed by the engineer Robert Stevenson",
    "a small exhibition about the engineers who built it",
    "One claim in words: q01 #0 CONTRADICTED (3 people)",
    'temp = f"/tmp/rg-{token}"  # a Unix socket path in code',
])
def test_the_patterns_spare_product_sentences(line):
    assert offences(line) == []


def test_findings_name_file_and_line(tmp_path):
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "page.md"
    page.write_text("# Page\n\nFine text.\nAs issue 7 said.\n", encoding="utf-8")
    assert findings([page], root=tmp_path) == ["docs/page.md:4: issue number: As issue 7 said."]
