"""Property tests: ``check``, ``import-scores`` and rubric files take arbitrary hostile
input (NaN, infinities, 5,000-digit numbers, booleans, text, controls, deep nesting, repeated ids)
without an exception escaping; every value the gate averages or stores is a finite number inside
its metric's range; every row is kept or rejected by its number; the reports always parse. Small
example counts (the module runs in about a minute on 2 cores); the conftest profile draws the same
examples on every run."""
from __future__ import annotations

import json
import math
import shutil
from xml.dom import minidom

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from rageval import gate
from rageval.cli import main
from rageval.errors import ConfigError
from rageval.metrics.ranges import bounds
from rageval.prompts.rubric import FIELDS, MAX_CRITERIA, MAX_FIELD_CHARS, MAX_TEXT_CHARS, Rubric, parse_rubric
from rageval.text.hygiene import BIDI_CONTROLS
from tests.test_hostile_properties import FAST, NUMBER, TEXT, VALUE, _files

METRICS = ["token_f1", "bleu", "answer_similarity"]
CELL = NUMBER | TEXT | st.booleans() | st.none() | st.sampled_from([0.0, 0.5, 1.0, -1.0, "0.25", "inf", "NaN", ""])
SCORED_ROW = st.fixed_dictionaries(
    {"id": st.sampled_from([f"q{i}" for i in range(8)]) | TEXT | st.integers() | st.none()},
    optional={m: CELL for m in METRICS} | {f"{METRICS[0]}_status": TEXT | st.just("unscored: no_contexts"),
                                            "notes": TEXT})
ESCAPES = "".join(map(chr, [*range(0, 9), *range(11, 32), *range(127, 160)]))


def _sound(scored: gate.ScoreSet) -> None:
    for m in scored.metrics:
        lo, hi = bounds(m)
        col = scored.values[m].dropna()
        assert all(math.isfinite(v) and lo <= v <= hi for v in col), (m, list(col))


@settings(FAST, max_examples=25)
@given(st.lists(SCORED_ROW, min_size=1, max_size=6))
def test_check_reads_only_sound_numbers_and_names_every_row(tmp_path_factory, monkeypatch, rows):
    folder = tmp_path_factory.mktemp("check")
    monkeypatch.setenv("RAGEVAL_HOME", str(folder / "home"))
    for name, data in _files(rows).items():
        path = folder / name
        path.write_bytes(data)
        try:
            scored = gate.from_file(path)
        except ConfigError as exc:  # the file as a whole (repeated ids, no id, no metric column): one message
            assert str(exc).startswith(str(path))
            event("refused as a whole")
            continue
        event("read")
        _sound(scored)
        assert len(scored.values) == len(rows) or name.endswith(".csv")  # CSV drops fully blank lines
        unreadable = {r.where for r in scored.rejected if r.metric is None}
        assert all(" row " in w for w in unreadable)
        for m in scored.metrics:
            assert sum(scored.reasons.get(m, {}).values()) == scored.unscored(m)
        junit, md = folder / "g.xml", folder / "g.md"
        rc = main(["check", str(path), "--fail-under", f"{scored.metrics[0]}=0", "--allow-unscored", "--json",
                   "--junit-xml", str(junit), "--markdown", str(md)])
        assert rc in (0, 1)
        minidom.parse(str(junit))
        text = md.read_text(encoding="utf-8")
        assert not any(ch in ESCAPES for ch in text) and not BIDI_CONTROLS.search(text)


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """An OUT_DIR of two parts (tests/test_gate_sound.py builds it the way `score --engine ray` does)."""
    import os

    from tests.test_gate_sound import _parts

    class _Capsys:
        def readouterr(self):
            return None

    folder = tmp_path_factory.mktemp("parts")
    saved = os.environ.get("RAGEVAL_HOME")
    os.environ["RAGEVAL_HOME"] = str(folder / "home")
    try:
        rows = [{"id": f"a{i}", "question": "q?", "answer": "the cat sat", "reference": "the cat"} for i in range(6)]
        yield _parts(folder, _Capsys(), rows), folder / "home"
    finally:
        if saved is None:
            os.environ.pop("RAGEVAL_HOME", None)
        else:
            os.environ["RAGEVAL_HOME"] = saved


TAMPER = st.dictionaries(st.integers(0, 2), NUMBER | TEXT | st.booleans() | st.none() | st.just("{not json"),
                         max_size=3)


@settings(FAST, max_examples=15)
@given(TAMPER, TAMPER)
def test_import_scores_stores_only_sound_values(parts, tmp_path_factory, monkeypatch, capsys, first, second):
    from rageval.project import open_project
    from rageval.store import runs as store
    from tests.test_gate_sound import _tamper

    source, home = parts
    monkeypatch.setenv("RAGEVAL_HOME", str(home))
    out = tmp_path_factory.mktemp("tampered") / "out"
    shutil.copytree(source, out)
    _tamper(out / "part-00000-00000.parquet", first)
    _tamper(out / "part-00001-00000.parquet", second)
    capsys.readouterr()
    rc = main(["import-scores", str(out), "--json", "--project", "prop"])
    got = json.loads(capsys.readouterr().out)
    assert rc in (0, 1) and got["rows"] + sum(1 for p in got["problems"] if p["metric"] is None) == 6
    db = open_project("prop").db_path
    for row in store.scores(db, got["run_id"]):
        if row["status"] == "ok":
            lo, hi = bounds(row["metric"])
            assert math.isfinite(row["value"]) and lo <= row["value"] <= hi, row
    assert main(["check", "--project", "prop", "--run", got["run_id"], "--fail-under", "token_f1=0.5",
                 "--allow-unscored"]) in (0, 1)
    capsys.readouterr()


RUBRIC_VALUE = VALUE | st.lists(TEXT, max_size=25) | st.sampled_from(["reference", "contexts", "x" * 2500])
RUBRIC_DATA = st.dictionaries(st.sampled_from(FIELDS) | TEXT, RUBRIC_VALUE, max_size=6)


def _valid(rubric: Rubric) -> None:
    texts = [rubric.description, *rubric.criteria, *rubric.anchors]
    assert 1 <= len(rubric.criteria) <= MAX_CRITERIA and len(rubric.anchors) == 5
    assert all(isinstance(t, str) and t.strip() and len(t) <= MAX_FIELD_CHARS for t in texts)
    assert sum(map(len, texts)) <= MAX_TEXT_CHARS and set(rubric.needs) <= {"reference", "contexts"}


@settings(FAST, max_examples=40)
@given(RUBRIC_DATA)
def test_rubric_data_is_a_valid_rubric_or_a_message(data):
    try:
        _valid(Rubric.from_dict(data, "r.toml"))
    except ConfigError as exc:
        assert str(exc).startswith("r.toml") and len(str(exc)) < 600


def _toml_value(value) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=True, default=str)


@settings(FAST, max_examples=25)
@given(RUBRIC_DATA, st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "latin-1"]), st.integers(0, 3000))
def test_rubric_files_through_the_cli(tmp_path_factory, monkeypatch, capsys, data, encoding, depth):
    folder = tmp_path_factory.mktemp("rubric")
    monkeypatch.setenv("RAGEVAL_HOME", str(folder / "home"))
    lines = [f"{json.dumps(str(k))} = {_toml_value(v)}" for k, v in data.items()]
    if depth:
        lines.append("deep = " + "[" * depth + "]" * depth)
    text = "\n".join(lines)
    try:
        raw = text.encode(encoding, "surrogatepass")
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogatepass")
    path = folder / "r.toml"
    path.write_bytes(raw)
    rc = main(["rubric", "add", str(path), "--project", "rb"])
    err = capsys.readouterr().err
    assert rc in (0, 2) and "Traceback" not in err and (rc == 0 or err.startswith("error: r.toml"))
    if rc == 0:
        _valid(parse_rubric(raw.decode("utf-8-sig"), "r.toml"))
