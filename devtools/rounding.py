"""Comparing results computed under different batch shapes, processes or shards.

A float32 matrix product's row can depend on how many rows the product has and where the row
sits in it: BLAS sums in an order chosen by the product's shape on some CPUs (OpenBLAS on an AMD
EPYC, for one), and not on others. A text embedded with other texts, alone, or in another
worker therefore gets the same vector within float32 rounding, not always the same bits, and so
do the metric values made from it. These helpers compare such results: every number within an
absolute tolerance, everything discrete (statuses, reasons, verdicts, evidence texts, ids,
counts, order) exactly. Results made twice under the same batch shape are compared with ``==``.
The packed pass aligns texts to the BLAS's row period where it has one
(:func:`rageval.embed.forward.row_period`), which makes one process's vectors the same bits in
any pack there: :func:`assert_same_in_any_pack` asks for the bits then.
"""
from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

#: the largest difference allowed between two unit vectors of one text, per component
VECTOR_ATOL = 1e-6
#: the largest difference allowed between two metric values (or any other float) of one row
VALUE_ATOL = 1e-6
#: details show some figures rounded to 6 decimals: two values under 1e-6 apart round to the same
#: or to neighbouring 6-decimal numbers, whose difference in binary is 1e-6 give or take 1e-16
_DECIMAL_SLACK = 1e-12


def assert_vectors_close(got: np.ndarray, want: np.ndarray, atol: float = VECTOR_ATOL, err_msg: str = "") -> None:
    """``|got - want| <= atol`` component by component, same shape (``rtol=0``)."""
    np.testing.assert_allclose(got, want, rtol=0, atol=atol, err_msg=err_msg)


def assert_states_close(got: np.ndarray, want: np.ndarray) -> None:
    """Raw token states (not normalised, magnitudes up to about 6): within ``VECTOR_ATOL`` times
    the largest magnitude of ``want``."""
    np.testing.assert_allclose(got, want, rtol=0, atol=VECTOR_ATOL * max(float(np.abs(want).max(initial=0.0)), 1.0))


def pack_independent_bits() -> bool:
    """Whether this process's BLAS has a row period the packed pass aligns texts to
    (:func:`rageval.embed.forward.row_period` > 1), so that one process gives a text the same bits
    in any pack; where it has none, only the same values within float32 rounding."""
    from rageval.embed.forward import row_period

    return row_period() > 1


def assert_same_in_any_pack(got: np.ndarray, want: np.ndarray, states: bool = False) -> None:
    """Vectors (or raw token states, ``states=True``) of the same texts made in other packs of one
    process: the same bits where :func:`pack_independent_bits`, else within rounding."""
    if pack_independent_bits():
        np.testing.assert_array_equal(got, want)
    elif states:
        assert_states_close(got, want)
    else:
        assert_vectors_close(got, want)


def assert_same_within_rounding(got: Any, want: Any, atol: float = VALUE_ATOL, where: str = "") -> None:
    """``got`` and ``want`` (dicts, lists, tuples, arrays, scalars, nested) have the same keys,
    lengths, strings, ints, bools and Nones, and floats within ``atol`` (two NaNs are equal).
    A string holding a JSON object or list (a parquet ``claims`` or ``record`` column, a stored
    ``details``) is compared decoded. ``where`` names the element in the failure message."""
    if isinstance(got, str) and isinstance(want, str):
        got_json, want_json = _json_or_none(got), _json_or_none(want)
        if got_json is not None and want_json is not None:
            assert_same_within_rounding(got_json, want_json, atol, where)
        else:
            assert got == want, f"{where}: {got!r} != {want!r}"
    elif isinstance(got, dict) and isinstance(want, dict):
        assert list(got) == list(want), f"{where}: keys {list(got)} != {list(want)}"
        for key in got:
            assert_same_within_rounding(got[key], want[key], atol, f"{where}[{key!r}]")
    elif isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), f"{where}: {got!r} != {want!r}"
        for i, (a, b) in enumerate(zip(got, want)):
            assert_same_within_rounding(a, b, atol, f"{where}[{i}]")
    elif isinstance(got, np.ndarray) or isinstance(want, np.ndarray):
        np.testing.assert_allclose(got, want, rtol=0, atol=atol, err_msg=where)
    elif _is_float(got) or _is_float(want):
        assert _is_float(got) and _is_float(want), f"{where}: {got!r} != {want!r}"
        both_nan = math.isnan(got) and math.isnan(want)
        assert both_nan or abs(got - want) <= atol + _DECIMAL_SLACK, (
            f"{where}: {got!r} != {want!r} (more than {atol} apart)"
        )
    else:
        assert type(got) is type(want) and got == want, f"{where}: {got!r} != {want!r}"


def largest_float_difference(got: Any, want: Any) -> float:
    """The largest ``|a - b|`` over the floats of two results of the same structure (0.0 when
    none differ); used by bench/float_rounding.py to measure what the tolerance has to cover."""
    if isinstance(got, str) and isinstance(want, str):
        got_json, want_json = _json_or_none(got), _json_or_none(want)
        return 0.0 if got_json is None or want_json is None else largest_float_difference(got_json, want_json)
    if isinstance(got, dict) and isinstance(want, dict):
        return max((largest_float_difference(got[k], want[k]) for k in got if k in want), default=0.0)
    if isinstance(got, (list, tuple)) and isinstance(want, (list, tuple)):
        return max((largest_float_difference(a, b) for a, b in zip(got, want)), default=0.0)
    if isinstance(got, np.ndarray) and isinstance(want, np.ndarray):
        return float(np.abs(got.astype(np.float64) - want).max(initial=0.0))
    if _is_float(got) and _is_float(want) and not (math.isnan(got) or math.isnan(want)):
        return abs(got - want)
    return 0.0


def _is_float(x: Any) -> bool:
    return isinstance(x, (float, np.floating))


def _json_or_none(text: str) -> Any:
    if text[:1] not in ("{", "["):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None
