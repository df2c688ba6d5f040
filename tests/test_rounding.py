"""The comparison the cross-batch tests use (devtools/rounding.py) lets floats move within 1e-6 and
nothing else: a changed status, verdict, evidence text, count, key or None fails it."""
import json

import numpy as np
import pytest

from devtools.rounding import assert_same_within_rounding, assert_states_close, assert_vectors_close

ROW = {"id": "r1", "faithfulness": 0.5, "faithfulness_status": None, "n_claims": 3,
       "claims": json.dumps([{"text": "Etna is high.", "verdict": "SUPPORTED", "cosine": 0.328811}]),
       "details": {"chunks": [{"chunk": "context[0]", "rank": 1, "score": 0.623134}]}}


def _with(**changes):
    return {**ROW, **changes}


def test_floats_within_one_millionth_pass():
    assert_same_within_rounding(_with(faithfulness=0.5 + 9e-7), ROW)
    moved = json.dumps([{"text": "Etna is high.", "verdict": "SUPPORTED", "cosine": 0.32881}])  # 6-decimal rounding
    assert_same_within_rounding(_with(claims=moved), ROW)
    assert_same_within_rounding([float("nan"), 1.0], [float("nan"), 1.0])


@pytest.mark.parametrize("changed", [
    _with(faithfulness=0.5 + 2e-6),
    _with(faithfulness=None),
    _with(faithfulness_status="unscored: no_contexts"),
    _with(n_claims=4),
    _with(id="r2"),
    _with(claims=json.dumps([{"text": "Etna is high.", "verdict": "UNVERIFIED", "cosine": 0.328811}])),
    _with(claims=json.dumps([{"text": "Etna is tall.", "verdict": "SUPPORTED", "cosine": 0.328811}])),
    _with(details={"chunks": [{"chunk": "context[1]", "rank": 1, "score": 0.623134}]}),
    _with(details={"chunks": []}),
    {k: v for k, v in ROW.items() if k != "n_claims"},
])
def test_anything_discrete_or_a_float_beyond_one_millionth_fails(changed):
    with pytest.raises(AssertionError):
        assert_same_within_rounding(changed, ROW)


def test_vectors_and_states():
    v = np.array([[0.6, 0.8]], np.float32)
    assert_vectors_close(v + np.float32(5e-7), v)
    with pytest.raises(AssertionError):
        assert_vectors_close(v + np.float32(3e-6), v)
    with pytest.raises(AssertionError):
        assert_vectors_close(v[:, ::-1], v)  # another order
    states = np.array([[6.0, -2.0]], np.float32)
    assert_states_close(states + np.float32(4e-6), states)  # 1e-6 of the largest magnitude (6)
    with pytest.raises(AssertionError):
        assert_states_close(states + np.float32(1e-5), states)


def test_any_pack_asks_for_the_bits_only_where_the_blas_has_a_row_period(monkeypatch):
    import devtools.rounding as rounding

    v = np.array([[0.6, 0.8]], np.float32)
    monkeypatch.setattr(rounding, "pack_independent_bits", lambda: True)
    with pytest.raises(AssertionError):
        rounding.assert_same_in_any_pack(v + np.float32(5e-7), v)
    monkeypatch.setattr(rounding, "pack_independent_bits", lambda: False)
    rounding.assert_same_in_any_pack(v + np.float32(5e-7), v)
    with pytest.raises(AssertionError):
        rounding.assert_same_in_any_pack(v + np.float32(3e-6), v)
