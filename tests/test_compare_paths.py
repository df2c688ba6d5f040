"""The Compare page's faster paths give what the plain ones gave: the blocked paired
bootstrap the same CI as one (n_boot, n) array, the shared-metric test the same columns as a
per-column count of runs, DuckDB's Arrow result the same frame as ``.df()``, and the answer links
the same address as ``urlencode``."""
from __future__ import annotations

from urllib.parse import urlencode

import numpy as np
import pandas as pd
import pytest

from rageval.human.frame import metric_columns, shared_metric_columns
from rageval.stats.systems import paired_bootstrap
from rageval.store.db import arrow_frame, connect
from rageval.views.regressions import answer_link, answer_links


@pytest.mark.parametrize("n,n_boot", [(3, 100), (100, 2000), (4500, 2000), (257, 130)])
def test_blocked_bootstrap_equals_one_array_of_resamples(n, n_boot):
    rng = np.random.default_rng(n)
    a, b = rng.random(n), rng.random(n)
    d = a - b
    idx = np.random.default_rng(0).integers(0, n, size=(n_boot, n))
    means = d[idx].mean(axis=1)
    lo, hi = np.quantile(means, [0.5 - 0.95 / 2.0, 0.5 + 0.95 / 2.0])
    got = paired_bootstrap(a, b, n_boot=n_boot, seed=0)
    assert (got.diff, got.ci_low, got.ci_high, got.n) == (float(d.mean()), float(lo), float(hi), n)


def _shared_per_column(frame: pd.DataFrame) -> list[str]:
    """The definition, column by column: some item scored by every run."""
    runs = frame["run_id"].nunique()
    out = []
    for col in metric_columns(frame):
        per_item = frame.loc[frame[col].notna(), ["run_id", "item_id"]].groupby("item_id")["run_id"].nunique()
        if runs and (per_item == runs).any():
            out.append(col)
    return out


def test_shared_metric_columns_equal_the_per_column_definition():
    rng = np.random.default_rng(3)
    rows = [{"run_id": r, "item_id": f"q{i}", "question": "?", "dataset": "d", "domain": "x", "model": "m"}
            for r in ("A", "B", "C") for i in range(40)]
    frame = pd.DataFrame(rows)
    frame["everywhere"] = rng.random(len(frame))
    frame["only_a"] = np.where(frame["run_id"] == "A", 1.0, np.nan)
    frame["disjoint"] = np.where((frame["run_id"] == "A") & (frame["item_id"] == "q1"), 1.0,
                                 np.where((frame["run_id"] != "A") & (frame["item_id"] == "q2"), 2.0, np.nan))
    frame["one_shared_item"] = np.where(frame["item_id"] == "q7", 0.5, np.nan)
    frame["sparse"] = np.where(rng.random(len(frame)) < 0.3, 1.0, np.nan)
    frame["human"] = np.nan
    assert shared_metric_columns(frame) == _shared_per_column(frame)
    assert "everywhere" in shared_metric_columns(frame) and "only_a" not in shared_metric_columns(frame)
    assert shared_metric_columns(frame.iloc[:0]) == []


def test_arrow_frame_equals_duckdb_df(tmp_path):
    path = tmp_path / "x.duckdb"
    with connect(path) as con:
        rows = [("r1", f"q{i}", "m" if i % 3 else "ü-metric", f"sig|{i % 2}", None if i % 7 == 0 else i / 3)
                for i in range(500)]
        con.execute(
            "CREATE TEMP TABLE t (run_id VARCHAR, item_id VARCHAR, metric VARCHAR, signature VARCHAR, value DOUBLE)"
        )
        con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", rows)
        sql = "SELECT * FROM t WHERE run_id = ? ORDER BY item_id"
        pd.testing.assert_frame_equal(arrow_frame(con, sql, ["r1"]), con.execute(sql, ["r1"]).df())


@pytest.mark.parametrize("item", ["q 7", "a&b=c", "ü/%x#?", "", "plain"])
def test_answer_links_equal_urlencode(item):
    want = "answers?" + urlencode({"project": "my proj", "run": "r1", "run_b": "r2", "question": item})
    assert answer_link("my proj", "r1", "r2", item) == want
    assert answer_links("my proj", "r1", "r2", [item, "q 1"]) == [want, answer_link("my proj", "r1", "r2", "q 1")]
