"""Reductions and scans (ddblas.core.reductions): exact selections (max, min, argmax, argmin)
against Fraction references and NumPy's NaN rules; prod, mean, var, std, cumsum, cumprod against
their documented bounds in exact rational arithmetic; all/any; axes, keepdims, views, empty
arrays, NEP 18 and the DDArray methods; bitwise CPU == GPU."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas
from ddblas.accuracy import bound_constant
from ddblas.core.options import Options
from ddvalues import DIV, MUL, SQRT, dd_value, exact_values, same_bits, to_ddarray

SHAPES = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


def _variant_options(variant) -> Options:
    return Options(fma=variant["fma"], add=variant["add"])


def _c_add(variant) -> Fraction:
    return bound_constant("add", _variant_options(variant))


def _sum_constant(variant, k) -> Fraction:
    return bound_constant("sum", _variant_options(variant), k)


def _c_mul(variant) -> Fraction:
    return MUL[variant["fma"]]


@st.composite
def arrays_and_axis(draw, min_exp=-300, max_exp=300, allow_zero=True, tuple_axes=True):
    """(pairs, shape, axis): DD values of a random shape and a valid axis argument."""
    shape = draw(SHAPES)
    pairs = draw(st.lists(dd_value(min_exp, max_exp, allow_zero), min_size=math.prod(shape),
                          max_size=math.prod(shape)))
    ndim = len(shape)
    choices = [None] + list(range(-ndim, ndim))
    if tuple_axes and ndim > 1:
        choices.append(tuple(range(ndim))[::-1][:2])
    return pairs, shape, draw(st.sampled_from(choices))


def _exact_array(x: ddblas.DDArray) -> np.ndarray:
    return np.array(exact_values(x), dtype=object).reshape(x.shape)


def _flat(values) -> list:
    return np.asarray(values, dtype=object).ravel().tolist()


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(a % ndim for a in (axis if isinstance(axis, tuple) else (axis,)))


# ---- selections ----
@given(arrays_and_axis())
@settings(max_examples=40)
def test_max_min_select_the_exact_extreme(device, case):
    pairs, shape, axis = case
    x = to_ddarray(pairs, device).reshape(shape)
    ex = _exact_array(x)
    for got, ref in ((ddblas.max(x, axis), ex.max(axis=axis)), (x.min(axis), ex.min(axis=axis))):
        assert exact_values(got) == _flat(ref)
    kept = ddblas.max(x, axis, keepdims=True)
    assert kept.shape == np.zeros(shape).max(axis=axis, keepdims=True).shape


@given(arrays_and_axis(tuple_axes=False))
@settings(max_examples=40)
def test_argmax_argmin_first_extreme(device, case):
    pairs, shape, axis = case
    x = to_ddarray(pairs, device).reshape(shape)
    ex = _exact_array(x)
    for func, pick in ((ddblas.argmax, max), (ddblas.argmin, min)):
        got = _host(func(x, axis))
        flat = ex.ravel() if axis is None else np.moveaxis(ex, axis, -1).reshape(-1, shape[axis])
        rows = [flat] if axis is None else list(flat)
        expected = [list(row).index(pick(row)) for row in rows]
        assert got.ravel().tolist() == expected
        assert func(x, axis, keepdims=True).shape == np.argmax(np.zeros(shape), axis,
                                                               keepdims=True).shape


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def test_selection_bits_of_the_first_extreme(device):
    # Equal values with different bits (+0 and -0): the first one's bits, as on every device.
    x = ddblas.DDArray(np.array([-0.0, 0.0, -0.0]), np.zeros(3)).to_device(device)
    assert np.signbit(float(ddblas.max(x).hi)) and np.signbit(float(ddblas.min(x).hi))
    # Equal hi, lo decides.
    y = ddblas.DDArray(np.array([1.0, 1.0, 1.0]), np.array([0.0, 2.0 ** -60, -2.0 ** -60]))
    y = y.to_device(device)
    assert (int(_host(y.argmax())), int(_host(y.argmin()))) == (1, 2)
    assert float(y.max().lo) == 2.0 ** -60 and float(y.min().lo) == -2.0 ** -60


def test_zero_sums_are_positive_as_numpy(device):
    """NumPy's sums start from +0.0, so a sum of -0.0 terms is +0.0 (np.sum, np.add.reduce,
    np.mean, the inner product np.dot; axis=() adds the identity too); the kernels start from
    the first term and gave -0.0 (review of 2026-12: np.sum of [-0.0] was -0.0). Products and
    the scans keep the sign as NumPy does: prod([-0.0]) and cumsum([-0.0, -0.0]) are -0.0."""
    host = -np.zeros((3, 2))
    x = ddblas.array(host, device=device)
    calls = [lambda m, a: m.sum(a), lambda m, a: m.sum(a, axis=0), lambda m, a: m.sum(a, axis=()),
             lambda m, a: m.sum(a, axis=(0, 1), keepdims=True), lambda m, a: m.mean(a, axis=1),
             lambda m, a: m.add.reduce(a), lambda m, a: m.dot(a[:, 0], a[:, 1]),
             lambda m, a: m.sum(a[0, 0]), lambda m, a: m.prod(a, axis=0),
             lambda m, a: m.cumsum(a, axis=0)]
    for call in calls:
        expected = np.asarray(call(np, host))
        got = call(np, x)
        assert same_bits(got.hi, expected) and same_bits(got.lo, np.zeros(expected.shape))
    assert same_bits(ddblas.sum(x).hi, np.zeros(()))
    assert same_bits(ddblas.dot(x[:, 0], x[:, 1]).hi, np.zeros(()))
    # -0.0 terms beside others change nothing; a nonzero sum keeps its sign and bits
    y = ddblas.DDArray(np.array([-0.0, -1.0, -0.0]), np.array([0.0, -2.0 ** -60, 0.0]))
    s = ddblas.sum(y.to_device(device))
    assert (float(s.hi), float(s.lo)) == (-1.0, -2.0 ** -60)


@pytest.mark.parametrize("func", ["max", "min", "argmax", "argmin"])
def test_nan_semantics_as_numpy(device, func):
    values = [[1.0, np.nan, 3.0, np.nan], [np.inf, -np.inf, 2.0, 0.5], [np.nan, 1.0, 1.0, 1.0]]
    hi = np.array(values)
    x = ddblas.DDArray(hi).to_device(device)
    for axis in (None, 0, 1):
        got = getattr(ddblas, func)(x, axis)
        expected = getattr(np, func)(hi, axis=axis)
        if func.startswith("arg"):
            assert np.array_equal(_host(got), expected)
        else:
            assert np.array_equal(_host(got.hi), expected, equal_nan=True)
            assert np.all((_host(got.lo) == 0) | np.isnan(_host(got.lo)))


def test_empty_and_axis_errors(device):
    empty = ddblas.zeros((0, 3), device=device)
    with pytest.raises(ValueError, match="zero-size array"):
        ddblas.max(empty)
    with pytest.raises(ValueError, match="zero-size array"):
        empty.min(axis=0)
    assert ddblas.max(empty, axis=1).shape == (0,)
    with pytest.raises(ValueError, match="empty sequence"):
        ddblas.argmax(empty)
    x = ddblas.random((2, 3), seed=1, device=device)
    for func in (ddblas.max, ddblas.argmin, ddblas.prod, ddblas.mean, ddblas.var, ddblas.cumsum,
                 ddblas.all):
        with pytest.raises(TypeError, match="axis"):
            func(x, axis=1.0)
        # NumPy's AxisError, also an IndexError (review of 2026-11-26: a plain ValueError, which
        # code catching IndexError or AxisError as for NumPy missed)
        with pytest.raises(np.exceptions.AxisError, match="out of bounds"):
            func(x, axis=2)
    with pytest.raises(TypeError, match="axis"):
        ddblas.argmax(x, axis=(0, 1))
    with pytest.raises(TypeError, match="ddof"):
        ddblas.var(x, ddof="1")


@pytest.mark.parametrize("name", ["sum", "prod", "mean", "var", "std", "max", "min", "argmax",
                                  "argmin", "all", "any", "cumsum", "cumprod"])
def test_axes_of_0d_arrays_as_numpy(device, name):
    """NumPy's ufunc reductions take axis 0 or -1 of a 0-d array (no axis), argmax/argmin and the
    scans too (the flattened array); mean/var/std and tuples raise (ddblas had raised for all)."""
    x, host = ddblas.array(3.0, device=device), np.array(3.0)
    scan = name.startswith("cum")
    for axis in (0, -1, np.int64(0), (0,), (), 1, -2, (0, 0), None):
        for keepdims in ((None,) if scan else (False, True)):
            kwargs = {"axis": axis} if scan else {"axis": axis, "keepdims": keepdims}
            calls = (lambda: getattr(np, name)(x, **kwargs),
                     lambda: getattr(ddblas, name)(x, **kwargs), lambda: getattr(x, name)(**kwargs))
            try:
                expected = np.asarray(getattr(np, name)(host, **kwargs))
            except (TypeError, ValueError) as exc:
                for call in calls:
                    with pytest.raises(type(exc)):
                        call()
                continue
            for call in calls:
                got = call()
                values = _host(got.hi if isinstance(got, ddblas.DDArray) else got)
                assert values.shape == expected.shape and values.tolist() == expected.tolist()


# ---- arithmetic reductions ----
@given(arrays_and_axis(min_exp=-30, max_exp=30))
@settings(max_examples=20)
def test_prod_within_bound(device, variant, case):
    pairs, shape, axis = case
    x = to_ddarray(pairs, device).reshape(shape)
    got = exact_values(ddblas.prod(x, axis, **variant))
    ex = _exact_array(x)
    n = math.prod(shape[d] for d in _axes(axis, len(shape)))
    ref = _flat(np.prod(ex, axis=axis)) if ex.size else []
    c = (1 + _c_mul(variant)) ** (n - 1) - 1
    assert all(abs(g - r) <= c * abs(r) for g, r in zip(got, ref))


def test_prod_over_chunks_and_special_cases(device, variant):
    n = 700  # three chunks of 256, then their product
    x = 1 + (ddblas.random((n,), seed=3, device=device) - 0.5) * 2 ** -8
    r = Fraction(1)
    for v in exact_values(x):
        r *= v
    (got,) = exact_values(ddblas.prod(x, **variant))
    assert abs(got - r) <= ((1 + _c_mul(variant)) ** (n - 1) - 1) * r
    assert exact_values(ddblas.prod(ddblas.zeros((2, 0), device=device), axis=1)) == [1, 1]
    specials = ddblas.DDArray(np.array([[2.0, np.inf], [np.nan, 1.0], [0.0, np.inf]]))
    got = ddblas.prod(specials.to_device(device), axis=1, **variant)
    assert np.array_equal(_host(got.hi), [np.inf, np.nan, np.nan], equal_nan=True)


@given(arrays_and_axis())
@settings(max_examples=20)
def test_mean_within_bound(device, variant, case):
    pairs, shape, axis = case
    x = to_ddarray(pairs, device).reshape(shape)
    ex = _exact_array(x)
    n = math.prod(shape[d] for d in _axes(axis, len(shape)))
    got = exact_values(ddblas.mean(x, axis, **variant))
    sums, abs_sums = _flat(ex.sum(axis=axis)), _flat(np.abs(ex).sum(axis=axis))
    for g, s, a in zip(got, sums, abs_sums):
        b = _sum_constant(variant, n) * a / n
        assert abs(g - s / n) <= b + DIV * (abs(s) / n + b)
    kept = ddblas.mean(x, axis, keepdims=True)
    assert kept.shape == np.zeros(shape).mean(axis, keepdims=True).shape


def test_var_whose_sum_of_squares_overflows_is_rescued(device, variant):
    """var([a, -a, a, -a]) = a^2 for a = 1.5 2^511: the sum of squared deviations, 4 a^2,
    passes DBL_MAX though the variance does not; it was inf. Rows of finite terms whose sum
    overflows are taken again scaled by 2^-k (2^2k back), within var's bound; a variance past
    Omega is still inf, and other rows keep their bits."""
    a = 1.5 * 2.0 ** 511
    x = ddblas.DDArray(np.array([[a, -a, a, -a], [2.0 ** 600, -2.0 ** 600, 1.0, 1.0],
                                 [1.0, 2.0, 4.0, 8.0]])).to_device(device)
    for ddof in (0, 1):
        v = ddblas.var(x, axis=1, ddof=ddof, **variant)
        row = exact_values(x[0])
        (m_hat,) = exact_values(ddblas.mean(x[0], **variant))
        variance, bound = _variance_error_bound(row, m_hat, ddof, variant)
        (v_hat,) = exact_values(v[0])
        assert variance == Fraction(a) ** 2 * 4 / (4 - ddof) and abs(v_hat - variance) <= bound
        assert math.isinf(float(v.to_device("cpu").hi[1]))   # 2^1200 / 3: past Omega
        assert same_bits(v[2], ddblas.var(x[2], ddof=ddof, **variant))
    assert exact_values(ddblas.std(x[0], **variant)) == [Fraction(a)]


def test_sum_mean_var_of_finite_terms_whose_sum_overflows(device, variant):
    """mean([DBL_MAX, DBL_MAX]) is DBL_MAX and sum([DBL_MAX, DBL_MAX, -DBL_MAX]) DBL_MAX: rows of
    finite terms whose fixed-order sum overflows are summed again scaled by 2^-k, within sum's
    and mean's bounds, and var's first pass with them (a probe of 2026-11-28: inf, or NaN where the
    partial sums overflowed with both signs, as NumPy's). Rows with inf or NaN terms, and the
    others, are as before."""
    big = np.finfo(np.float64).max
    rows = [[big, big, big, big], [big, -big, -big, 2.0 ** 1000], [big, big, -big, -big],
            [big, np.nextafter(big, 0), big, big], [-big, -big, 1.0, -big],
            [big, big, np.inf, 1.0], [big, big, np.nan, 1.0], [1.0, 2.0, 3.0, 5.0]]
    lo = np.zeros((len(rows), 4))
    lo[0, 1] = lo[3, 3] = 2.0 ** 969   # DD values past DBL_MAX (within Omega)
    lo[4, 0] = -2.0 ** 960
    x = ddblas.DDArray(np.array(rows), lo).to_device(device)
    means = ddblas.mean(x, axis=1, **variant)
    with ddblas.options(**variant):
        assert same_bits(np.mean(x, axis=1), means)
    got = exact_values(means[:5])
    for i, (row, m) in enumerate(zip(_exact_array(x[:5]).tolist(), got)):
        s, a = sum(row), sum(abs(v) for v in row)
        b = _sum_constant(variant, 4) * a / 4
        assert abs(m - s / 4) <= b + DIV * (abs(s) / 4 + b), i
    assert got[0] > np.finfo(np.float64).max and got[2] == 0
    assert math.isinf(float(means.hi[5])) and math.isnan(float(means.hi[6]))
    assert float(means.hi[7]) == 2.75
    assert same_bits(means[7], ddblas.mean(x[7], **variant))   # the plain path's bits
    v = ddblas.var(ddblas.DDArray(np.array(rows[:3])).to_device(device), axis=1, **variant)
    assert float(v.hi[0]) == 0 and math.isinf(float(v.hi[1])) and math.isinf(float(v.hi[2]))
    near = ddblas.DDArray(np.array([big, big, big]), np.array([0.0, -2.0 ** 500, 3.0 * 2.0 ** 500]))
    near = near.to_device(device)
    (m_hat,) = exact_values(ddblas.mean(near, **variant))
    for ddof in (0, 1):
        variance, bound = _variance_error_bound(exact_values(near), m_hat, ddof, variant)
        (v_hat,) = exact_values(ddblas.var(near, ddof=ddof, **variant))
        assert variance > 0 and abs(v_hat - variance) <= bound
    sums = ddblas.sum(x, axis=1, **variant)
    assert same_bits(np.add.reduce(x, axis=1), ddblas.sum(x, axis=1))
    for i, (row, total) in enumerate(zip(_exact_array(x[:5]).tolist(), sums[:5])):
        s, a = sum(row), sum(abs(v) for v in row)
        if abs(s) > 2 * Fraction(big):   # far past Omega: inf of its sign
            assert float(total.hi) == (math.inf if s > 0 else -math.inf) and float(total.lo) == 0
            continue
        (got,) = exact_values(total)
        assert abs(got - s) <= _sum_constant(variant, 4) * a, i
    assert [float(t) for t in sums.hi[1:3]] == [2.0 ** 1000 - big, 0.0]
    assert math.isinf(float(sums.hi[5])) and math.isnan(float(sums.hi[6]))
    with pytest.warns(RuntimeWarning, match="^Mean of empty slice$"):   # NumPy's message
        ddblas.mean(ddblas.zeros((0,), device=device))


def _variance_error_bound(xs, m_hat, ddof, variant) -> tuple[Fraction, Fraction]:
    """(exact variance, bound) of docs/algorithms.md "Variance" for the values xs and the
    computed mean m_hat."""
    n = len(xs)
    dof = max(n - ddof, 0)
    mu = sum(xs) / n
    c_add, c_mul = _c_add(variant), _c_mul(variant)
    d = [abs(v - m_hat) for v in xs]
    e = [c_add * (abs(v) + abs(m_hat)) for v in xs]
    grown = sum((di + ei) ** 2 for di, ei in zip(d, e)) * (1 + c_mul)
    e_s = (sum(2 * di * ei + ei ** 2 + c_mul * (di + ei) ** 2 for di, ei in zip(d, e))
           + _sum_constant(variant, n) * grown)
    s_hat_bound = sum(di ** 2 for di in d) + e_s
    variance = sum((v - mu) ** 2 for v in xs) / dof
    return variance, (e_s + n * (m_hat - mu) ** 2 + DIV * s_hat_bound) / dof


@given(st.lists(dd_value(-40, 40), min_size=1, max_size=40), st.integers(0, 2))
@settings(max_examples=20)
def test_var_std_within_bound(device, variant, pairs, ddof):
    if len(pairs) <= ddof:
        ddof = 0
    x = to_ddarray(pairs, device)
    xs = exact_values(x)
    (m_hat,) = exact_values(ddblas.mean(x, **variant))  # var's first pass, the same bits
    variance, bound = _variance_error_bound(xs, m_hat, ddof, variant)
    (v_hat,) = exact_values(ddblas.var(x, ddof=ddof, **variant))
    assert abs(v_hat - variance) <= bound
    (s_hat,) = exact_values(ddblas.std(x, ddof=ddof, **variant))
    assert abs(s_hat ** 2 - variance) <= bound + (abs(variance) + bound) * ((1 + SQRT) ** 2 - 1)


def test_var_axes_chunks_and_empty(device):
    # A large mean against the spread: where the two passes matter.
    x = ddblas.random((3, 600), seed=5, device=device) * 1000 + 1e6
    ex = _exact_array(x)
    v = ddblas.var(x, axis=1, ddof=1, keepdims=True)
    assert v.shape == (3, 1)
    m_hat = exact_values(ddblas.mean(x, axis=1))
    variant = {"fma": True, "add": "accurate"}
    for row, got, m in zip(ex, exact_values(v), m_hat):
        variance, bound = _variance_error_bound(list(row), m, 1, variant)
        assert abs(got - variance) <= bound
    with pytest.warns(RuntimeWarning):
        assert np.isnan(float(ddblas.var(ddblas.zeros((0,), device=device)).hi))
    with pytest.warns(RuntimeWarning):
        assert np.isnan(float(ddblas.mean(ddblas.zeros((0,), device=device)).hi))
    with pytest.warns(RuntimeWarning):
        assert float(ddblas.var(ddblas.ones((1,), device=device), ddof=1).hi) != 0


@given(arrays_and_axis(tuple_axes=False))
@settings(max_examples=20)
def test_cumsum_prefixes_within_bound(device, variant, case):
    pairs, shape, axis = case
    x = to_ddarray(pairs, device).reshape(shape)
    got = ddblas.cumsum(x, axis, **variant)
    ex = _exact_array(x)
    ax = 0 if axis is None else axis % len(shape)
    source = ex.ravel() if axis is None else ex
    assert got.shape == source.shape
    g = np.moveaxis(_exact_array(got), ax, -1).reshape(-1, source.shape[ax])
    s = np.moveaxis(source, ax, -1).reshape(-1, source.shape[ax])
    for grow, srow in zip(g, s):
        for i in range(len(srow)):
            bound = _sum_constant(variant, i + 1) * sum(abs(v) for v in srow[:i + 1])
            assert abs(grow[i] - sum(srow[:i + 1])) <= bound


@given(arrays_and_axis(min_exp=-30, max_exp=30, tuple_axes=False))
@settings(max_examples=20)
def test_cumprod_prefixes_within_bound(device, variant, case):
    pairs, shape, axis = case
    x = to_ddarray(pairs, device).reshape(shape)
    got = ddblas.cumprod(x, axis, **variant)
    ex = _exact_array(x)
    ax = 0 if axis is None else axis % len(shape)
    source = ex.ravel() if axis is None else ex
    g = np.moveaxis(_exact_array(got), ax, -1).reshape(-1, source.shape[ax])
    s = np.moveaxis(source, ax, -1).reshape(-1, source.shape[ax])
    for grow, srow in zip(g, s):
        p = Fraction(1)
        for i, v in enumerate(srow):
            p *= v
            assert abs(grow[i] - p) <= ((1 + _c_mul(variant)) ** i - 1) * abs(p)


def test_scans_of_views_and_empty(device):
    base = ddblas.random((5, 8), seed=9, device=device)
    view = base[::2, ::-3].T  # strided, reversed, transposed
    assert same_bits(view.cumsum(axis=1), ddblas.array(view).cumsum(axis=1))
    assert same_bits(ddblas.prod(view, axis=0), ddblas.prod(ddblas.array(view), axis=0))
    assert same_bits(ddblas.max(view, axis=1), ddblas.max(ddblas.array(view), axis=1))
    assert ddblas.cumsum(ddblas.zeros((0, 2), device=device), axis=0).shape == (0, 2)
    assert ddblas.cumprod(ddblas.zeros((2, 3), device=device)).shape == (6,)


# ---- truth ----
def test_all_any(device):
    hi = np.array([[0.0, 1.0, np.nan], [0.0, -0.0, 0.0]])
    x = ddblas.DDArray(hi).to_device(device)
    for axis in (None, 0, 1, (0, 1), -1):
        assert np.array_equal(_host(ddblas.all(x, axis)), np.all(hi, axis=axis))
        assert np.array_equal(_host(x.any(axis, keepdims=True)),
                              np.any(hi, axis=axis, keepdims=True))
    assert bool(ddblas.all(x > -1, axis=None)) is False
    assert bool(ddblas.any(ddblas.zeros((0,), device=device))) is False


def test_all_any_read_strings_and_fractions_as_numbers():
    """Strings and Fractions are numbers as everywhere in ddblas ("0" is zero; it was Python's
    truth of a non-empty string); numeric arrays keep NumPy's truth (NaN true)."""
    assert not ddblas.any(["0", "0.0", "-0e5"]) and not ddblas.all(["1", "0"])
    assert ddblas.all(["1e-300", "-2"]) and ddblas.any([Fraction(0), Fraction(1, 3)])
    assert np.array_equal(ddblas.any([["0", "1"], ["0", "0"]], axis=1), [True, False])
    assert ddblas.all(np.array([1.0, np.nan])) and not ddblas.any(np.array([0, 0]))


# ---- NumPy protocol and methods ----
def test_numpy_functions_dispatch(device):
    x = ddblas.random((4, 5), seed=11, device=device) - 0.5
    pairs = [
        (np.max(x, axis=0), ddblas.max(x, 0)), (np.amax(x), x.max()), (np.min(x, 1), x.min(1)),
        (np.amin(x, keepdims=True), ddblas.min(x, keepdims=True)),
        (np.prod(x, 1), x.prod(1)), (np.mean(x, axis=0), x.mean(0)),
        (np.cumsum(x, 1), x.cumsum(1)), (np.cumprod(x), x.cumprod()),
        (np.var(x, 0, None, None, 1), x.var(0, ddof=1)), (np.std(x, ddof=1), x.std(ddof=1)),
    ]
    for a, b in pairs:
        assert same_bits(a, b)
    assert (np.size(x), np.size(x, 1), np.size(x, -2)) == (20, 5, 4)   # axis was refused
    assert np.array_equal(_host(np.argmax(x, axis=1)), _host(x.argmax(1)))
    assert np.array_equal(_host(np.argmin(x)), _host(x.argmin()))
    assert np.array_equal(_host(np.all(x, axis=0)), _host(x.all(0)))
    assert bool(np.any(x)) is True
    with pytest.raises(TypeError, match="dtype"):
        np.mean(x, dtype=np.float32)
    with pytest.raises(ValueError, match="out= has shape"):
        np.max(x, out=x)


def test_np_sum_takes_numpys_signature(device):
    x = ddblas.random((4, 5), seed=12, device=device) - 0.5
    for got, expected in ((np.sum(x, dtype=None), ddblas.sum(x)),
                          (np.sum(x, 0, None, None, True), ddblas.sum(x, 0, keepdims=True)),
                          (np.sum(x, axis=(0, 1), out=None, keepdims=False), ddblas.sum(x))):
        assert same_bits(got, expected) and got.shape == expected.shape
    assert same_bits(np.sum(x, dtype="dd"), ddblas.sum(x))
    with pytest.raises(TypeError, match="does not support dtype=.*float64.* on DDArrays"):
        np.sum(x, dtype=np.float64)
    with pytest.raises(TypeError, match="multiple values for argument 'axis'"):
        np.sum(x, 0, axis=1)


def test_numpy_reductions_write_out_as_numpy(device):
    """out= of the NEP 18 reductions and np.dot (it was a TypeError): NumPy's rule, exactly the
    result's shape (keepdims included) or a ValueError; the operand itself may be out (the
    result is computed first); a DD result needs a DDArray, all/any take any array (NumPy's
    casts), argmax/argmin an integer one; a read-only out is a ValueError."""
    x = ddblas.array([[1, 2, 3], [4, 5, 6]], device=device) + 2.0 ** -60
    tail = Fraction(1, 2 ** 60)
    col = [5 + 2 * tail, 7 + 2 * tail, 9 + 2 * tail]
    for call in (lambda out: np.sum(x, axis=0, out=out), lambda out: np.sum(x, 0, None, out)):
        out = ddblas.zeros(3, device=device)
        assert call(out) is out and exact_values(out) == col
    out = ddblas.zeros((1, 3), device=device)
    assert np.sum(x, axis=0, keepdims=True, out=out) is out and exact_values(out) == col
    out = ddblas.zeros((), device=device)
    assert np.max(x, out=out) is out and exact_values(out) == [6 + tail]
    out = ddblas.zeros(2, device=device)
    assert np.mean(x, axis=1, out=out) is out and exact_values(out) == [2 + tail, 5 + tail]
    out = ddblas.zeros(6, device=device)
    assert np.cumsum(x, out=out) is out and exact_values(out) == [
        k + i * tail for i, k in enumerate((1, 3, 6, 10, 15, 21), 1)]
    y = x.copy()   # the operand as out: NumPy's answer, the sums of the old rows
    assert np.sum(y, axis=0, out=y[0]) is not None and exact_values(y[0]) == col
    flags = ddblas.full(3, 7, device=device)
    assert np.all(x > 2, axis=0, out=flags) is flags and exact_values(flags) == [0, 1, 1]
    if device == "cpu":
        host = np.zeros(3)
        assert np.any(x, axis=0, out=host) is host and host.tolist() == [1.0] * 3
        index = np.zeros(2, dtype=np.int32)
        assert np.argmax(x, axis=1, out=index) is index and index.tolist() == [2, 2]
        with pytest.raises(TypeError, match="integer array"):
            np.argmax(x, axis=1, out=np.zeros(2))
        with pytest.raises(ValueError, match="read-only"):
            np.sum(x, axis=0, out=ddblas.broadcast_to(ddblas.zeros(3), (3,)))
    product = ddblas.zeros((2, 2), device=device)
    assert np.dot(x, x.T, out=product) is product and same_bits(product, x @ x.T)
    for call in (lambda: np.sum(x, axis=0, out=ddblas.zeros((1, 3), device=device)),
                 lambda: np.sum(x, axis=0, keepdims=True, out=ddblas.zeros(3, device=device)),
                 lambda: np.max(x, axis=0, out=ddblas.zeros(1, device=device)),
                 lambda: np.cumsum(x, out=ddblas.zeros((2, 3), device=device)),
                 lambda: np.dot(x, x.T, out=ddblas.zeros((2, 3), device=device))):
        with pytest.raises(ValueError, match="out= has shape"):
            call()
    with pytest.raises(TypeError, match="must be a DDArray for a DD result"):
        np.sum(x, axis=0, out=np.zeros(3))
    with pytest.raises(TypeError, match="must be a DDArray or a NumPy/CuPy array"):
        np.sum(x, axis=0, out=(ddblas.zeros(3, device=device),))


def test_axis_may_be_a_0d_integer_array(device):
    """NumPy takes a 0-d integer array as an axis (np.sum(x, axis=np.array(1))); ddblas raised
    a TypeError. A bool or a 0-d float array stays a TypeError."""
    x = ddblas.array([[1, 2, 3], [4, 5, 6]], device=device)
    one = np.array(1)
    for name in ("sum", "prod", "max", "min", "mean", "var", "std", "cumsum", "cumprod"):
        f = getattr(ddblas, name)
        assert same_bits(f(x, one), f(x, 1)) and same_bits(getattr(np, name)(x, one), f(x, 1))
    assert same_bits(ddblas.sum(x, (np.int32(0), np.array(-1))), ddblas.sum(x))
    assert same_bits(ddblas.sum(x[0, 0], np.array(0)), x[0, 0])
    for name in ("argmax", "argmin", "all", "any"):
        assert _host(getattr(ddblas, name)(x, one)).tolist() == \
            _host(getattr(ddblas, name)(x, 1)).tolist()
    for bad in (np.array(1.0), True, np.array([1])):
        with pytest.raises(TypeError, match="axis"):
            ddblas.sum(x, bad)


def test_methods_take_ndarrays_signatures(device):
    """x.sum(axis, dtype, out, keepdims) and the other reduction methods take ndarray's
    positional order and out= (they took keepdims second: x.mean(0, np.float64) kept the
    reduced axis, x.max(0, out) read out as keepdims, x.sum(out=o) was a TypeError)."""
    x = ddblas.array([[1, 2, 3], [4, 5, 6]], device=device) + 2.0 ** -60
    for name in ("sum", "prod", "mean", "var", "std", "max", "min"):
        method, function = getattr(x, name), getattr(ddblas, name)
        assert same_bits(method(0), function(x, 0))
        assert same_bits(method(1, keepdims=True), function(x, 1, keepdims=True))
        out = ddblas.zeros(3, device=device)
        assert method(0, out=out) is out and same_bits(out, function(x, 0))
    assert same_bits(x.sum(0, None, None, True), ddblas.sum(x, 0, keepdims=True))
    assert same_bits(x.var(0, None, None, 1), ddblas.var(x, 0, ddof=1))
    out = ddblas.zeros(2, device=device)
    assert x.max(1, out) is out and same_bits(out, ddblas.max(x, 1))
    assert same_bits(x.cumsum(1, None, ddblas.zeros((2, 3), device=device)), x.cumsum(1))
    assert _host(x.argmax(1, keepdims=True)).tolist() == [[2], [2]]
    assert _host(x.all(0, None, True)).tolist() == [[True, True, True]]
    with pytest.raises(TypeError, match="dtype"):
        x.mean(0, np.float64)


def test_ufunc_methods_reduce_accumulate_outer(device):
    """np.add/multiply/maximum/minimum.reduce, np.add/multiply.accumulate and every binary
    ufunc's outer on DDArrays (they raised a TypeError): sum, prod, max, min, cumsum, cumprod
    with NumPy's default axis 0, and the ufunc on a[..., None] and b; at, reduceat and the
    reductions of other ufuncs stay a TypeError naming them."""
    x = ddblas.array([[1, 2, 3], [4, 5, 6]], device=device) + 2.0 ** -60
    for got, want in ((np.add.reduce(x), ddblas.sum(x, 0)),
                      (np.add.reduce(x, axis=None), ddblas.sum(x)),
                      (np.multiply.reduce(x, 1, keepdims=True), ddblas.prod(x, 1, True)),
                      (np.maximum.reduce(x, axis=(0, 1)), ddblas.max(x)),
                      (np.minimum.reduce(x), ddblas.min(x, 0)),
                      (np.add.accumulate(x), ddblas.cumsum(x, 0)),
                      (np.multiply.accumulate(x, 1), ddblas.cumprod(x, 1)),
                      (np.add.accumulate(x[0], axis=None), ddblas.cumsum(x[0])),
                      (np.subtract.outer(x[0], x[:, :2]), x[0][:, None, None] - x[:, :2])):
        assert got.shape == want.shape and same_bits(got, want)
    tail = Fraction(1, 2 ** 60)
    assert exact_values(np.add.reduce(x)) == [5 + 2 * tail, 7 + 2 * tail, 9 + 2 * tail]
    out = ddblas.zeros(3, device=device)
    assert np.add.reduce(x, out=out) is out and exact_values(out) == exact_values(x.sum(0))
    assert _host(np.less.outer(x[0], x[1] - 3)).tolist() == [[False, True, True],
                                                            [False, False, True],
                                                            [False, False, False]]
    with pytest.raises(ValueError, match="zero-size array"):
        np.maximum.reduce(ddblas.zeros((0, 2), device=device))
    with pytest.raises(ValueError, match="multiple axes"):
        np.add.accumulate(x, axis=None)
    with pytest.raises(ValueError, match="out= has shape"):
        np.add.reduce(x, out=ddblas.zeros((1, 3), device=device))
    with pytest.raises(ValueError, match="binary functions"):
        np.sqrt.outer(x, x)
    with pytest.raises(TypeError, match="non-trivial signature"):   # NumPy's error
        np.matmul.outer(x, x)
    for call, name in ((lambda: np.subtract.reduce(x), "subtract' method 'reduce"),
                       (lambda: np.add.at(x, [0], 1), "method 'at'"),
                       (lambda: np.add.reduce(x, initial=1), "initial"),
                       (lambda: np.add.reduce(x, where=[True, False, True]), "where")):
        with pytest.raises(TypeError, match=name):
            call()


@pytest.mark.gpu
def test_gpu_equals_cpu_bitwise(device):
    if device != "gpu":
        pytest.skip("compares the GPU with the CPU")
    rng = np.random.default_rng(4)
    hi = rng.standard_normal((7, 300)) * 2.0 ** rng.integers(-20, 20, (7, 300))
    hi[2, 5], hi[4, 9] = np.nan, np.inf
    cpu = ddblas.DDArray(hi, hi * 2.0 ** -60)
    gpu = cpu.to_device("gpu")
    for name in ("max", "min", "prod", "mean", "var", "std", "cumsum", "cumprod"):
        for axis in (None, 0, 1):
            for variant in ({"fma": True, "add": "accurate"}, {"fma": False, "add": "sloppy"}):
                kw = variant if name not in ("max", "min") else {}
                assert same_bits(getattr(ddblas, name)(gpu, axis, **kw),
                                 getattr(ddblas, name)(cpu, axis, **kw)), (name, axis, variant)
    for name in ("argmax", "argmin", "all", "any"):
        for axis in (None, 0, 1):
            assert np.array_equal(_host(getattr(ddblas, name)(gpu, axis)),
                                  getattr(ddblas, name)(cpu, axis))


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
def test_where_and_initial_as_numpy(device, variant, name):
    """NumPy's where= (entries left out: replaced by the identity, exact) and initial= (one
    more DD add or mul; for max/min ddblas.maximum/minimum with it) for sum, prod, max, min,
    through ddblas, np.<name> and the methods; max/min with where= need initial= (NumPy's
    ValueError); an empty max with initial gives initial."""
    host = np.array([[1.5, -2.0, 3.0], [4.0, 0.25, -6.0]])
    x = ddblas.array(host, device=device)
    masks = [np.array([True, False, True]), np.array([[True], [False]]), [[False] * 3] * 2]
    arith = {} if name in ("max", "min") else variant
    for axis in (None, 0, 1):
        for where in [True] + masks:
            for initial in (None, 7.0, -0.5):
                kwargs = {"axis": axis, "where": where}
                if initial is not None:
                    kwargs["initial"] = initial
                try:
                    expected = getattr(np, name)(host, **kwargs)
                except ValueError as exc:
                    with pytest.raises(ValueError, match="identity"):
                        getattr(np, name)(x, **kwargs)
                    assert "identity" in str(exc)
                    continue
                got = getattr(ddblas, name)(x, **kwargs, **arith)
                assert np.array_equal(_host(got.to_float64()), expected)   # exact here
                assert same_bits(getattr(np, name)(x, **kwargs), getattr(ddblas, name)(x, **kwargs))
                assert same_bits(getattr(x, name)(**kwargs), getattr(ddblas, name)(x, **kwargs))
    # bits: sum with where= is the sum of the kept terms; initial one more DD add
    y = ddblas.array(["0.1", "0.2", "0.3"], device=device)
    keep = np.array([True, False, True])
    if name == "sum":
        assert same_bits(ddblas.sum(y, where=keep, **variant), ddblas.sum(y[[0, 2]], **variant))
        assert same_bits(ddblas.sum(y, initial="0.7", **variant),
                         ddblas.add(ddblas.array("0.7", device=device), ddblas.sum(y, **variant),
                                    **variant))
    if name in ("max", "min"):
        assert exact_values(getattr(ddblas, name)(ddblas.zeros(0, device=device),
                                                  initial="0.1")) == \
            exact_values(ddblas.array("0.1"))
    with pytest.raises(ValueError):
        getattr(ddblas, name)(x, where=np.ones(4, dtype=bool), initial=0)
    with pytest.raises(TypeError):
        getattr(ddblas, name)(x, where=np.ones(3), initial=0)
