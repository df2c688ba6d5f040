"""Property tests of hostile input: every importer (documents, QA sets, answers to score, ratings) and every
CSV writer take arbitrary hostile rows (huge numbers, deep nesting, long strings, formulas, NaN and
Infinity, controls, bidi) without an exception escaping; every row is either kept or rejected by its
number; what a writer writes reads back equal. Example counts are small: the file runs in well under
a minute on 2 cores."""
from __future__ import annotations

import csv
import io
import json
import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from rageval.errors import InputError
from rageval.files import csv_text, read_cell, safe_cell
from rageval.ingest.chunking import chunk_document
from rageval.config import ChunkingConfig
from rageval.ingest.limits import RowLimits
from rageval.ingest.loaders import Document, IngestProblem, load_file
from rageval.ingest.qa import parse_qa
from rageval.ingest.rows import read_table
from rageval.runs.scoring import parse_answers
from rageval.text.numbers import normalize_numbers

# no shrinking phase: shrinking hostile rows (5,000-digit numbers, 3,000-deep lists) can take minutes;
# a failure is reported as generated, with its seed
HEALTH = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]
FAST = settings(max_examples=30, deadline=None, suppress_health_check=HEALTH,
                phases=[Phase.explicit, Phase.reuse, Phase.generate])
DEEP = "__DEEP__"  # replaced by 3,000 nested lists in the JSON text (json.dumps itself cannot nest that deep)
TEXT = st.text(alphabet=st.characters(codec=None), max_size=40)  # surrogates, NUL, bidi, controls, all planes
FORMULA = st.sampled_from(["=HYPERLINK(\"http://x\")", "+cmd|' /C calc'!A0", "@SUM(1)", "-2+3", "\tx", "\rx",
                           "'=x", "''-y", "=", "-"])
BIGINT = "__BIGINT__"  # replaced by a 5,000-digit integer literal (past Python's 4,300-digit int limit)
HUGE = st.integers(min_value=309, max_value=1200).map(lambda d: int("9" * d)) | st.just(BIGINT)
NUMBER = st.floats(allow_nan=True, allow_infinity=True) | st.integers() | HUGE
LONG = st.sampled_from(["x" * 150_001, "7 " * 80_000])
SCALAR = TEXT | FORMULA | NUMBER | st.booleans() | st.none() | LONG | st.just(DEEP) | st.just("9" * 400)
VALUE = st.recursive(SCALAR, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
                     max_leaves=6)
COLUMNS = ["id", "question", "answer", "contexts", "reference", "domain", "relevant_ids", "annotator", "rating",
           "item_id"]
ROW = st.dictionaries(st.sampled_from(COLUMNS) | TEXT, VALUE, max_size=7)
ROWS = st.lists(ROW, min_size=1, max_size=5)
LIMITS = RowLimits(max_field_chars=100_000, max_depth=32)


def _json_row(row: dict) -> str:
    text = json.dumps(row, allow_nan=True, default=str)
    return text.replace(json.dumps(DEEP), "[" * 3000 + "]" * 3000).replace(json.dumps(BIGINT), "9" * 5000)


def _files(rows: list[dict]) -> dict[str, bytes]:
    """The same rows as JSONL, JSON and CSV (cells as their text; lists and objects as JSON)."""
    jsonl = "".join(_json_row(r) + "\n" for r in rows)
    columns = list(dict.fromkeys(str(k).replace("\x00", "") for r in rows for k in r))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerow(columns or ["id"])
    for r in rows:
        cells = {str(k).replace("\x00", ""): v for k, v in r.items()}
        writer.writerow(["" if cells.get(c) is None else
                         cells[c] if isinstance(cells.get(c), str) else _json_row(cells[c]) for c in columns] or [""])
    return {"rows.jsonl": jsonl.encode("utf-8", "surrogatepass"),
            "rows.json": ("[" + ",".join(_json_row(r) for r in rows) + "]").encode("utf-8", "surrogatepass"),
            "rows.csv": buf.getvalue().encode("utf-8", "surrogatepass")}


def _every_row_named(n_rows: int, kept: int, errors) -> None:
    """Each row was kept or rejected by its number (1..n_rows), never lost, never both."""
    rejected = {e.row for e in errors if e.level == "error"}
    assert all(1 <= r <= n_rows for r in rejected), [str(e) for e in errors]
    assert kept + len(rejected) == n_rows, [str(e) for e in errors]


def _read_or_whole_file_error(parse, name: str, data: bytes):
    try:
        return parse(name, data)
    except InputError as exc:  # the file as a whole (bad encoding, no header, a JSON too deep): one message
        assert str(exc)
        return None


@FAST
@given(ROWS)
def test_qa_import_and_answers_to_score_keep_or_name_every_row(rows):
    for name, data in _files(rows).items():
        got = _read_or_whole_file_error(lambda s, d: parse_answers(s, d, limits=LIMITS), name, data)
        if got is not None:
            samples, errors = got
            _every_row_named(len(rows), len(samples), errors)
            assert all(isinstance(s.id, str) and all(isinstance(c, str) for c in s.contexts) for s in samples)
        got = _read_or_whole_file_error(parse_qa, name, data)
        if got is not None:
            items, errors = got
            _every_row_named(len(rows), len(items), errors)
            assert all(isinstance(i["question"], str) and i["question"] for i in items)


@pytest.fixture(scope="module")
def rated_project(tmp_path_factory):
    import os

    from tests.human_fixtures import make_runs

    saved = os.environ.get("RAGEVAL_HOME")
    os.environ["RAGEVAL_HOME"] = str(tmp_path_factory.mktemp("home"))
    try:
        project, _ = make_runs("h", n=4, runs=("r0",))
        yield project
    finally:
        if saved is None:
            os.environ.pop("RAGEVAL_HOME", None)
        else:
            os.environ["RAGEVAL_HOME"] = saved


RATING_ROW = st.fixed_dictionaries({"item_id": st.sampled_from(["q00", "q01", "q02", "q03"]) | TEXT | NUMBER,
                                    "annotator": TEXT | FORMULA | st.sampled_from(["ann", "zoe"]),
                                    "rating": NUMBER | TEXT | st.sampled_from([1, 2, 3, 4, 5, "4", "4.0", "inf",
                                                                               "1e400", "-Infinity"]) | st.just(DEEP)})


@settings(FAST, max_examples=20)
@given(st.lists(RATING_ROW, min_size=1, max_size=5))
def test_ratings_import_keeps_or_names_every_row(rated_project, rows):
    from rageval.human.ratings import parse_ratings

    for name, data in _files(rows).items():
        got = _read_or_whole_file_error(lambda s, d: parse_ratings(rated_project, s, d, run="r0"), name, data)
        if got is None:
            continue
        _every_row_named(len(rows), got.imported, got.errors)
        assert all(1 <= rating <= 5 and isinstance(rating, int) for *_, rating in got.rows)


@FAST
@given(st.lists(SCALAR.filter(lambda v: v != DEEP).map(lambda v: v if isinstance(v, str) else str(v)),
                min_size=1, max_size=6), st.sampled_from(["a.txt", "b.md"]))
def test_documents_load_chunk_and_normalise_numbers(parts, name):
    data = " ".join(parts).encode("utf-8", "surrogatepass")
    got = load_file(name, data)
    assert isinstance(got, (Document, IngestProblem))
    if isinstance(got, Document):
        chunk_document(got, ChunkingConfig(size=200, overlap=20))
        for page in got.pages:
            normalize_numbers(page.text[:5000])


CELL = (st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30)
        | FORMULA | st.sampled_from(["9" * 400, "NaN", "Infinity", "1e999"]))


@FAST
@given(st.lists(st.tuples(CELL, CELL, st.floats(allow_nan=False, allow_infinity=False, width=32)), min_size=1,
                max_size=6))
def test_csv_writers_neutralise_formulas_and_read_back_equal(rows):
    from rageval.report.exports import table_csv

    frame = pd.DataFrame(rows, columns=["question", "answer", "value"])
    for text in (csv_text(frame), table_csv(frame), table_csv(frame.to_dict("records"))):
        cells = list(csv.reader(io.StringIO(text, newline="")))
        assert not [c for row in cells[1:] for c in row[:2] if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
        table = read_table("back.csv", text.encode("utf-8"))
        back = [(rec["question"], rec["answer"], float(rec["value"])) for _, rec in table.records]
        assert back == [(q, a, float(f"{v!r}")) for q, a, v in rows]  # equal text; numbers stay numbers


@FAST
@given(st.lists(st.tuples(CELL, st.floats(allow_nan=False, allow_infinity=False) | st.none(), CELL | st.none()),
                min_size=1, max_size=5))
def test_score_outputs_read_back_equal(tmp_path_factory, rows):
    import pyarrow.parquet as pq

    from rageval.report.score_out import write_rows

    out = tmp_path_factory.mktemp("out")
    scored = [{"id": i, "m": v, **({"m_status": s} if s is not None else {})} for i, v, s in rows]
    for suffix in (".jsonl", ".csv", ".parquet"):
        path = out / f"part{suffix}"
        write_rows(path, scored, ["m"], source="src")
        if suffix == ".jsonl":
            back = [json.loads(x) for x in path.read_text(encoding="utf-8").split("\n") if x]  # JSONL: "\n" only
            assert back == scored
        elif suffix == ".parquet":
            back = pq.read_table(path).to_pylist()
            assert [(r["id"], r["m"], r["m_status"]) for r in back] == [(i, v, s) for i, v, s in rows]
        else:
            table = read_table("part.csv", path.read_bytes())
            got = [(rec["id"], rec["m"], rec["m_status"]) for _, rec in table.records]
            want = [(i, "" if v is None else repr(float(v)), s or "") for i, v, s in rows]
            assert [(i, m if m == "" else repr(float(m)), s or "") for i, m, s in got] == want


@pytest.mark.parametrize("value", ["=1", "'=1", "''@a", "'", "a", "", "\tx", "-", 5, -1.5, None, math.pi])
def test_safe_cell_inverts(value):
    assert read_cell(safe_cell(value)) == value
