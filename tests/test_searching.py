"""Sorting, searching, counting and clipping by DD order (ddblas.core.building, core.reductions):
partition, argpartition, searchsorted, unique and NumPy 2's unique_*, clip, nonzero, argwhere,
flatnonzero, count_nonzero, and their methods. Against NumPy on float64 data (values, shapes,
errors), then on DD values that float64 cannot tell apart (equal hi, different lo), NaN and
inf in either part, -0.0, odd layouts, 0-d and empty arrays; the inputs are never modified."""
from __future__ import annotations

import bisect
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas
from ddvalues import dd_value, exact_values, same_bits, to_ddarray

E = 2.0 ** -60
# float64 data with repeats, zeros of both signs, infinities and NaNs
DATA = np.array([[3.0, np.nan, 1.0, -0.0, 2.0, 1.0],
                 [np.inf, 0.0, -np.inf, 3.0, np.nan, -2.5],
                 [1.0, 1.0, -0.0, 7.0, np.inf, 0.0]])


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _dd(values, device, lo=None) -> ddblas.DDArray:
    hi = np.asarray(values, dtype=np.float64)
    return ddblas.DDArray(hi, np.zeros_like(hi) if lo is None else np.asarray(lo)).to_device(device)


def _same_floats(got: ddblas.DDArray, want) -> bool:
    """got (lo all zero) equals the float64 array want: shape, values, NaNs and signs of zero."""
    hi, want = _host(got.hi), np.asarray(want, dtype=np.float64)
    return (hi.shape == want.shape and np.array_equal(hi, want, equal_nan=True)
            and np.array_equal(np.signbit(hi), np.signbit(want)) and not _host(got.lo).any())


def _same_ints(got, want) -> bool:
    got, want = _host(got), np.asarray(want)
    return got.shape == want.shape and got.dtype == np.intp and np.array_equal(got, want)


def _unchanged(x: ddblas.DDArray):
    """A check that x still has its current bits."""
    before = x.to_device("cpu").copy()
    return lambda: same_bits(x, before)


def _error(call):
    try:
        call()
    except Exception as error:   # noqa: BLE001  (whatever NumPy raises)
        return error
    raise AssertionError("NumPy raised nothing")


def _raises_numpys(call, x, data):
    """call(x) raises what call(data) raises in NumPy: the type and the whole message."""
    want = _error(lambda: call(data))
    with pytest.raises(type(want), match=f"^{re.escape(str(want))}$"):
        call(x)


# ---- unique ----
@pytest.mark.parametrize("equal_nan", [True, False])
@pytest.mark.parametrize("view", ["whole", "strided", "row", "0d", "empty"])
def test_unique_against_numpy(device, view, equal_nan):
    pick = {"whole": lambda a: a, "strided": lambda a: a[::-2, ::-3], "row": lambda a: a[1],
            "0d": lambda a: a[0, 3, ...], "empty": lambda a: a[:, :0]}[view]
    data = pick(DATA)
    x = pick(_dd(DATA, device))
    unchanged = _unchanged(x)
    # return_index: NumPy's stable sort, so the same first occurrences (-0.0 or 0.0) as ours
    got = ddblas.unique(x, True, True, True, equal_nan=equal_nan)
    want = np.unique(data, True, True, True, equal_nan=equal_nan)
    assert _same_floats(got[0], want[0])
    assert all(_same_ints(g, w) for g, w in zip(got[1:], want[1:]))
    plain = np.unique(x, equal_nan=equal_nan)
    assert same_bits(plain, got[0])
    rebuilt = got[0][got[2]]   # values[inverse] is x (but for the signs of zeros, as NumPy's)
    assert np.array_equal(_host(rebuilt.hi), data, equal_nan=True)
    for result, numpy_result in ((np.unique_all(x), np.unique_all(data)),
                                 (np.unique_counts(x), np.unique_counts(data)),
                                 (np.unique_inverse(x), np.unique_inverse(data))):
        assert type(result).__name__ == type(numpy_result).__name__
        assert result._fields == numpy_result._fields
        assert np.array_equal(_host(result.values.hi), numpy_result.values, equal_nan=True)
        for field in result._fields[1:]:
            got_field, want_field = _host(getattr(result, field)), getattr(numpy_result, field)
            if field == "inverse_indices":   # NaNs kept apart: NumPy's unique_inverse (an
                numbers = ~np.isnan(data)    # unstable sort) may number them otherwise
                assert np.array_equal(_host(result.values.hi)[got_field], data, equal_nan=True)
                got_field, want_field = got_field[numbers], want_field[numbers]
            assert _same_ints(got_field, want_field), field
    assert np.array_equal(_host(np.unique_values(x).hi), np.unique_values(data),
                          equal_nan=True)
    assert unchanged()


def test_unique_tells_dd_values_apart(device):
    """Values equal in hi and different in lo are different values; -0.0 and 0.0 are one (with
    the first one's bits); a NaN in lo (a pair wrapped unnormalised) is a NaN."""
    hi = np.array([1.0, 1.0, 1.0, 1.0, -0.0, 0.0, 1.0, np.inf])
    lo = np.array([E, 0.0, E, -E, 0.0, 0.0, np.nan, 0.0])
    x = ddblas.DDArray(hi, lo, normalize=False).to_device(device)
    values, index, inverse, counts = ddblas.unique(x, return_index=True, return_inverse=True,
                                                   return_counts=True)
    assert values.shape == (6,)
    assert exact_values(values[:4]) == [0, 1 - Fraction(E), 1, 1 + Fraction(E)]
    assert np.signbit(_host(values.hi)[0]) and math.isinf(float(values[4].hi))
    assert math.isnan(float(values[5].hi))
    assert _host(index).tolist() == [4, 3, 1, 0, 7, 6]
    assert _host(counts).tolist() == [2, 1, 1, 2, 1, 1]
    assert _host(inverse).tolist() == [3, 2, 3, 1, 0, 0, 5, 4]
    swapped = ddblas.unique(ddblas.array([0.0, -0.0], device=device))
    assert not np.signbit(_host(swapped.hi)).any() and swapped.shape == (1,)


@given(st.lists(st.one_of(dd_value(-3, 3), st.sampled_from([(math.nan, 0.0), (-0.0, 0.0)])),
                max_size=12), st.booleans())
@settings(max_examples=40)
def test_unique_is_the_set_of_exact_values(device, pairs, equal_nan):
    x = to_ddarray(pairs, device) if pairs else ddblas.zeros(0, device=device)
    values, counts = ddblas.unique(x, return_counts=True, equal_nan=equal_nan)
    exact = [Fraction(h) + Fraction(lo) for h, lo in pairs if not math.isnan(h)]
    nans = sum(math.isnan(h) for h, _ in pairs)
    numbers = sorted(set(exact))
    assert exact_values(values[:len(numbers)]) == numbers
    assert _host(counts).tolist() == [exact.count(v) for v in numbers] + \
        ([nans] if equal_nan and nans else [1] * nans)


# rows with repeats (one differing only in the sign of a zero), NaN rows, and columns to sort by
SLICES = np.array([[1.0, 2.0, 3.0, -0.0], [0.0, 5.0, 1.0, 2.0], [1.0, 2.0, 3.0, 0.0],
                   [np.nan, 1.0, 1.0, 1.0], [np.nan, 1.0, 1.0, 1.0], [1.0, -np.inf, 3.0, 0.0]])


@pytest.mark.parametrize("equal_nan", [True, False])
@pytest.mark.parametrize("shape, axis", [((6, 4), 0), ((6, 4), 1), ((6, 4), -1), ((3, 2, 4), 1),
                                         ((3, 0), 0), ((0, 3), 1), ((3, 0), 1)])
def test_unique_slices_against_numpy(device, shape, axis, equal_nan):
    """unique along an axis: NumPy's sorted slices, first indices, 1-D inverse and counts (NaN
    slices all distinct, -0.0 like 0.0)."""
    data = SLICES.ravel()[:math.prod(shape)].reshape(shape)
    x = _dd(data, device)
    unchanged = _unchanged(x)
    got = ddblas.unique(x, True, True, True, axis=axis, equal_nan=equal_nan)
    want = np.unique(data, True, True, True, axis=axis, equal_nan=equal_nan)
    assert _host(got[0].hi).shape == want[0].shape
    assert np.array_equal(_host(got[0].hi), want[0], equal_nan=True)
    assert all(_same_ints(g, w) for g, w in zip(got[1:], want[1:]))
    assert np.array_equal(_host(got[0].take(got[2], axis=axis).hi), data, equal_nan=True)
    assert same_bits(np.unique(x, axis=axis), got[0])
    assert unchanged()


def test_unique_slices_tell_dd_values_apart(device):
    """Slices equal in hi and different in lo differ, and sort by their lo parts."""
    hi = np.ones((3, 2))
    lo = np.array([[0.0, E], [0.0, -E], [0.0, E]])
    values, counts = ddblas.unique(_dd(hi, device, lo), return_counts=True, axis=0)
    assert [exact_values(row) for row in values] == [[1, 1 - Fraction(E)], [1, 1 + Fraction(E)]]
    assert _host(counts).tolist() == [1, 2]


@pytest.mark.parametrize("axis", [2, -3, (0, 1), 1.5])
def test_unique_axis_errors(device, axis):
    want = _error(lambda: np.unique(SLICES[:2, :3], axis=axis))
    with pytest.raises(type(want)):
        ddblas.unique(_dd(SLICES[:2, :3], device), axis=axis)
    if not isinstance(axis, (tuple, float)):
        _raises_numpys(lambda a: np.unique(a, axis=axis), _dd(SLICES[:2, :3], device),
                       SLICES[:2, :3])
    x = _dd(DATA, device)
    assert same_bits(np.unique(x, sorted=False), np.unique(x))


# ---- searchsorted ----
SORTED = np.array([-np.inf, -2.0, -0.0, 0.0, 1.0, 1.0, 1.0, 3.0, np.inf, np.nan, np.nan])
KEYS = np.array([[1.0, -0.0, np.nan, 5.0], [-np.inf, np.inf, -3.0, 0.0]])


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_against_numpy(device, side):
    a, v = _dd(SORTED, device), _dd(KEYS, device)
    unchanged = (_unchanged(a), _unchanged(v))
    assert _same_ints(np.searchsorted(a, v, side), np.searchsorted(SORTED, KEYS, side))
    assert _same_ints(a.searchsorted(v[0, 2], side=side),
                      np.searchsorted(SORTED, KEYS[0, 2], side=side))   # 0-d
    assert _same_ints(ddblas.searchsorted(a[:0], v, side), np.searchsorted(SORTED[:0], KEYS, side))
    assert _same_ints(np.searchsorted(a, v[:, :0], side), np.zeros((2, 0), dtype=np.intp))
    shuffled = np.array([3.0, np.nan, -1.0, 1.0, 1.0, 0.5])
    sorter = np.argsort(shuffled)
    assert _same_ints(np.searchsorted(_dd(shuffled, device), v, side, sorter=sorter),
                      np.searchsorted(shuffled, KEYS, side, sorter=sorter))
    assert _same_ints(np.searchsorted(a[::-1][::-1], "1", side),
                      np.searchsorted(SORTED, 1.0, side))
    # a float64 array with DD keys: dispatched to ddblas
    sorted_there = SORTED if device == "cpu" else v.xp.asarray(SORTED)
    assert _same_ints(np.searchsorted(sorted_there, v, side),
                      np.searchsorted(SORTED, KEYS, side))
    assert all(check() for check in unchanged)


@given(st.lists(dd_value(-2, 2), max_size=10), st.lists(dd_value(-2, 2), min_size=1,
                                                        max_size=4))
@settings(max_examples=40)
def test_searchsorted_counts_exact_values(device, pairs, keys):
    a = ddblas.sort(to_ddarray(pairs, device) if pairs else ddblas.zeros(0, device=device))
    v = to_ddarray(keys, device)
    exact = exact_values(a)
    for side, search in (("left", bisect.bisect_left), ("right", bisect.bisect_right)):
        got = _host(ddblas.searchsorted(a, v, side)).tolist()
        assert got == [search(exact, k) for k in exact_values(v)]


def test_searchsorted_tells_dd_values_apart(device):
    a = ddblas.DDArray(np.array([1.0, 1.0, 1.0]), np.array([-E, 0.0, E])).to_device(device)
    v = ddblas.DDArray(np.array([1.0, 1.0, 1.0, 1.0]),
                       np.array([0.0, E / 2, -E, 2 * E])).to_device(device)
    assert _host(np.searchsorted(a, v)).tolist() == [1, 2, 0, 3]
    assert _host(np.searchsorted(a, v, "right")).tolist() == [2, 2, 1, 3]


@pytest.mark.parametrize("call", [
    lambda a: np.searchsorted(a, 1.0, side="x"),
    lambda a: np.searchsorted(a, 1.0, side="LEFT"),
    lambda a: np.searchsorted(a, 1.0, side=None),
    lambda a: np.searchsorted(a.reshape(1, -1), 1.0),
    lambda a: np.searchsorted(a[0], 1.0),
    lambda a: np.searchsorted(a, 1.0, sorter=np.arange(3)),
    lambda a: np.searchsorted(a, 1.0, sorter=np.arange(11.0)),
    lambda a: np.searchsorted(a, 1.0, sorter=[list(range(11))]),
    lambda a: np.searchsorted(a, 1.0, sorter=np.full(11, 11)),
], ids=["side", "side-case", "side-type", "2d", "0d", "sorter-size", "sorter-float",
        "sorter-2d", "sorter-range"])
def test_searchsorted_errors_are_numpys(device, call):
    _raises_numpys(call, _dd(SORTED, device), SORTED)


# ---- partition ----
@pytest.mark.parametrize("kth, axis", [(2, -1), ([0, 5], 1), (-1, 0), (np.array([1, 2]), 0),
                                       (7, None), (np.uint8(4), -1)])
def test_partition_meets_numpys_contract(device, kth, axis):
    x = _dd(DATA, device)
    unchanged = _unchanged(x)
    got, order = np.partition(x, kth, axis), np.argpartition(x, kth, axis)
    want = np.partition(DATA, kth, axis)
    flat = axis is None
    axis = 0 if flat else axis
    kths = np.atleast_1d(kth)
    # the values at kth are NumPy's (the sorted array's), smaller before and larger after
    assert np.array_equal(np.take(_host(got.hi), kths, axis), np.take(want, kths, axis),
                          equal_nan=True)
    sorted_x = np.sort(x, axis=None if flat else axis)
    assert same_bits(got, sorted_x)
    source = x.ravel() if flat else x
    assert same_bits(np.take_along_axis(source, order, axis), got)
    assert same_bits(x.argpartition(kth, None if flat else axis), order)
    assert unchanged()


def test_partition_of_0d_and_empty_arrays(device):
    x = _dd(DATA, device)
    assert _host(np.argpartition(x[0, 0, ...], 0)).tolist() == [0]
    assert np.partition(x[:, :0], 5).shape == (3, 0)
    with pytest.raises(np.exceptions.AxisError, match="dimension 0"):
        np.partition(x[0, 0, ...], 0)
    assert same_bits(np.partition(x[0, 0, ...], 0, axis=None), x[0, :1])


@pytest.mark.parametrize("call", [
    lambda a: np.partition(a, 6), lambda a: np.partition(a, -7),
    lambda a: np.partition(a, [1, 6], axis=1), lambda a: np.argpartition(a, 3, axis=0),
    lambda a: np.partition(a, 1.0), lambda a: np.partition(a, []),
    lambda a: np.partition(a, True), lambda a: np.partition(a, [[1]]),
    lambda a: np.partition(a, 1, kind="quick"), lambda a: np.partition(a, 1, kind=None),
    lambda a: np.partition(a, 1, order="x"), lambda a: np.argpartition(a, 1, axis=2),
], ids=["above", "below", "list", "axis0", "float", "empty", "bool", "2d", "kind",
        "kind-type", "order", "axis"])
def test_partition_errors_are_numpys(device, call):
    _raises_numpys(call, _dd(DATA, device), DATA)


# ---- clip ----
@pytest.mark.parametrize("bounds", [
    (1.0, 2.0), (None, 1.0), (-1.0, None), (None, None), (2.0, 1.0), (np.nan, 3.0),
    (0.0, 0.0), (-0.0, -0.0), (np.array([0.0, 1.0, -5.0, np.nan, 2.0, 0.0]), 2.5),
    (np.zeros((2, 1, 1)), np.inf),
], ids=["both", "above", "below", "none", "swapped", "nan", "zero", "negative-zero", "array",
        "broadcast"])
def test_clip_against_numpy(device, bounds):
    """clip(x, low, high) is NumPy's minimum(maximum(x, low), high) (None: no bound), bit for
    bit: np.clip's values, and its zeros' signs but where np.clip keeps x's zero against a
    zero bound."""
    x = _dd(DATA, device)
    unchanged = _unchanged(x)
    low, high = bounds
    want = DATA if low is None else np.maximum(DATA, low)
    want = want if high is None else np.minimum(want, high)
    assert np.array_equal(want, np.clip(DATA, low, high), equal_nan=True)
    if device != "cpu":   # array bounds on x's device (a NumPy array beside a GPU one: an error)
        low, high = (x.xp.asarray(b) if isinstance(b, np.ndarray) else b for b in (low, high))
    assert _same_floats(np.clip(x, low, high), want)
    assert _same_floats(ddblas.clip(x, low, high), want)
    assert _same_floats(x.clip(low, high), want)
    if low is not None and high is not None:
        assert _same_floats(np.clip(x, min=low, max=high), want)
        a = DATA if device == "cpu" else x.xp.asarray(DATA)
        assert _same_floats(np.clip(a, _dd(bounds[0], device), high), want)  # DD bound, float a
    assert unchanged()
    assert np.clip(x, 1, 2) is not x and np.clip(x, None, None) is not x


def test_clip_with_dd_bounds_and_out(device):
    x = ddblas.DDArray(np.array([1.0, 1.0, 1.0, 0.05, np.nan]),
                       np.array([E, -E, 0.0, 0.0, 0.0])).to_device(device)
    got = np.clip(x, "0.1", 1)
    tenth = exact_values(ddblas.array("0.1"))[0]
    assert exact_values(got[:4]) == [1, 1 - Fraction(E), 1, tenth]
    assert math.isnan(float(got[4].hi))
    assert exact_values(x.clip(max=ddblas.array(1, device=device) - E)[:3]) == [
        1 - Fraction(E)] * 3
    out = ddblas.zeros((2, 5), device=device)
    assert np.clip(x, 1, None, out=out) is out and same_bits(out[1], np.clip(x, 1, None))
    assert np.clip(x, 0, 1, out=x) is x and same_bits(x, got.__class__(
        np.array([1.0, 1.0, 1.0, 0.05, np.nan]), np.array([0.0, -E, 0.0, 0.0, 0.0])))


@pytest.mark.parametrize("call", [
    lambda a: np.clip(a, 1), lambda a: np.clip(a, a_max=1),
    lambda a: np.clip(a, 1, 2, min=1),
], ids=["a_max-missing", "a_min-missing", "min-and-a_min"])
def test_clip_argument_errors_are_numpys(device, call):
    x = _dd(DATA, device)
    _raises_numpys(call, x, DATA)
    with pytest.raises(TypeError, match="keyword"):
        np.clip(x, 1, 2, casting="unsafe")
    with pytest.raises(ValueError, match=r"^ddblas: clip\(\): out= has shape \(3,\)"):
        np.clip(x, 1, 2, out=ddblas.zeros(3, device=device))


# ---- truth: nonzero, argwhere, flatnonzero, count_nonzero ----
@pytest.mark.parametrize("view", ["whole", "strided", "row", "empty"])
def test_truth_functions_against_numpy(device, view):
    pick = {"whole": lambda a: a, "strided": lambda a: a[::-2, 1::2], "row": lambda a: a[1],
            "empty": lambda a: a[:0]}[view]
    data, x = pick(DATA), pick(_dd(DATA, device))
    unchanged = _unchanged(x)
    for got, want in zip(np.nonzero(x), np.nonzero(data)):
        assert _same_ints(got, want)
    for got, want in zip(x.nonzero(), data.nonzero()):
        assert _same_ints(got, want)
    assert _same_ints(np.argwhere(x), np.argwhere(data))
    assert _same_ints(np.flatnonzero(x), np.flatnonzero(data))
    assert int(np.count_nonzero(x)) == np.count_nonzero(data)
    for axis in range(data.ndim):
        for keepdims in (False, True):
            assert _same_ints(np.count_nonzero(x, axis=axis, keepdims=keepdims),
                              np.count_nonzero(data, axis=axis, keepdims=keepdims))
    assert _same_ints(np.count_nonzero(x, keepdims=True), np.count_nonzero(data, keepdims=True))
    assert [_same_ints(g, w) for g, w in zip(ddblas.where(x), np.where(data))] == \
        [True] * data.ndim
    assert unchanged()


def test_truth_of_dd_values_and_0d_arrays(device):
    """A value with a tiny lo (hi nonzero) is nonzero; a NaN or inf lo of a pair wrapped
    unnormalised is nonzero (as normalisation reads it); -0.0 is zero; 0-d arrays follow
    NumPy."""
    x = ddblas.DDArray(np.array([0.0, -0.0, 1e-300, 0.0, 0.0]),
                       np.array([0.0, 0.0, 1e-317, np.nan, np.inf]), normalize=False)
    x = x.to_device(device)
    assert _host(np.flatnonzero(x)).tolist() == [2, 3, 4]
    assert int(ddblas.count_nonzero(x)) == 3
    for value in (0.0, 2.0):
        data = np.array(value)
        zero_d = _dd(data, device)
        assert _same_ints(np.argwhere(zero_d), np.argwhere(data))
        assert _same_ints(np.flatnonzero(zero_d), np.flatnonzero(data))
        assert int(np.count_nonzero(zero_d, axis=0)) == np.count_nonzero(data, axis=0)
        _raises_numpys(np.nonzero, zero_d, data)
    _raises_numpys(lambda a: np.count_nonzero(a, axis=2), _dd(DATA, device), DATA)
    with pytest.raises(TypeError, match="axis"):   # the reductions' message
        np.count_nonzero(_dd(DATA, device), axis=1.0)


@pytest.mark.gpu
def test_gpu_equals_cpu(device):
    if device != "gpu":
        pytest.skip("compares the GPU with the CPU")
    cpu = ddblas.DDArray(DATA, np.where(np.isfinite(DATA), DATA * E, 0.0))
    gpu = cpu.to_device("gpu")
    for func in (lambda x: ddblas.unique(x), lambda x: ddblas.partition(x, 2),
                 lambda x: ddblas.clip(x, "0.5", 2), lambda x: ddblas.take(x, [3, -1], axis=1),
                 lambda x: ddblas.repeat(x, [1, 0, 2], axis=0), lambda x: np.tile(x, 2)):
        assert same_bits(func(gpu), func(cpu))
    for func in (lambda x: ddblas.searchsorted(ddblas.sort(x, axis=None), x),
                 lambda x: ddblas.unique(x, return_inverse=True)[1],
                 lambda x: ddblas.argwhere(x)):
        assert np.array_equal(_host(func(gpu)), func(cpu))
