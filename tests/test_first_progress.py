"""A user sees work start at once: the loaders report ``documents 0/N`` before the first file
is read, and an offline run stores its first answers in a small first batch (batch_bounds)."""
from __future__ import annotations

import pytest

from rageval.ingest.loaders import load_paths
from rageval.runs.pipeline import FIRST_BATCH, batch_bounds


def test_loaders_report_before_the_first_file(tmp_path):
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(f"{name} is a document.", encoding="utf-8")
    calls = []
    load_paths([tmp_path], progress=lambda *a: calls.append(a))
    assert calls == [("documents", 0, 2), ("documents", 1, 2), ("documents", 2, 2)]


@pytest.mark.parametrize(
    "n, size, ramp, expected",
    [
        (43, 16, True, [(0, 2), (2, 6), (6, 14), (14, 30), (30, 43)]),
        (43, 16, False, [(0, 16), (16, 32), (32, 43)]),
        (1, 16, True, [(0, 1)]),
        (0, 16, True, []),
        (5, 1, True, [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]),  # never above batch_size
        (7, 3, True, [(0, 2), (2, 5), (5, 7)]),
    ],
)
def test_batch_bounds(n, size, ramp, expected):
    bounds = batch_bounds(n, size, ramp=ramp)
    assert bounds == expected
    assert all(b - a <= size for a, b in bounds)
    assert [i for a, b in bounds for i in range(a, b)] == list(range(n))
    if ramp and n:
        assert bounds[0][1] - bounds[0][0] == min(FIRST_BATCH, size, n)
