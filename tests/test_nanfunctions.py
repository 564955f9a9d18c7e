"""NaN-ignoring reductions and the median (ddblas.core.nanfunctions): bits equal to the plain
reduction of the non-NaN terms (one chunk: the added zeros are exact), bounds against exact
Fraction values, NumPy's shapes, warnings and errors, NEP 18 dispatch and out=."""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas
from ddblas.accuracy import bound_constant
from ddblas.core.options import Options
from ddvalues import dd_value, exact_values, same_bits, to_ddarray

NAN_FUNCS = ["nansum", "nanprod", "nanmax", "nanmin", "nanmean", "nanvar", "nanstd"]


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


@st.composite
def rows_with_nans(draw):
    """(pairs, nan_mask): a 1-D row of DD values, some of them to be made NaN."""
    n = draw(st.integers(1, 12))
    pairs = draw(st.lists(dd_value(-30, 30), min_size=n, max_size=n))
    mask = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return pairs, mask


def _with_nans(pairs, mask, device):
    x = to_ddarray(pairs, device)
    nan = np.array(mask)
    hi = np.where(nan, np.nan, _host(x.hi))
    lo = np.where(nan, np.nan, _host(x.lo))
    return ddblas.DDArray(hi, lo).to_device(device), x[np.flatnonzero(~nan).tolist()] \
        if (~nan).any() else None


@given(rows_with_nans())
@settings(max_examples=30, deadline=None)
def test_bits_are_the_plain_reduction_of_the_non_nan_terms(device, variant, case):
    """Within one chunk the NaNs' replacements (0 in sums, 1 in products, the mean in var's
    squares) are exact, so each result has the bits of the plain reduction of the others; the
    sum is within sum's bound with n = their count."""
    pairs, mask = case
    x, kept = _with_nans(pairs, mask, device)
    if kept is None:
        assert exact_values(ddblas.nansum(x)) == [0]
        assert exact_values(ddblas.nanprod(x)) == [1]
        return
    for nan_name, name in (("nansum", "sum"), ("nanprod", "prod"), ("nanmean", "mean"),
                           ("nanvar", "var"), ("nanstd", "std"), ("nanmax", "max"),
                           ("nanmin", "min")):
        kwargs = {} if name in ("max", "min") else variant
        got = getattr(ddblas, nan_name)(x, **kwargs)
        assert same_bits(got, getattr(ddblas, name)(kept, **kwargs)), nan_name
    for nan_name, name in (("nanargmax", "argmax"), ("nanargmin", "argmin")):
        index = int(_host(getattr(ddblas, nan_name)(x)))
        assert same_bits(x[index], getattr(ddblas, name.replace("arg", ""))(kept))
    terms = exact_values(kept)
    n = len(terms)
    (s,) = exact_values(ddblas.nansum(x, **variant))
    c = bound_constant("sum", Options(fma=variant["fma"], add=variant["add"]), n)
    assert abs(s - sum(terms)) <= c * sum(abs(t) for t in terms)


def test_bound_over_chunks_with_nans(device, variant):
    """Past one chunk (zeros among the terms change the grouping): still sum's bound with n the
    count of non-NaN terms, and nanmean's mean bound."""
    rng = np.random.default_rng(5)
    hi = rng.standard_normal(1000) * 2.0 ** rng.integers(-20, 20, 1000)
    lo = hi * 2.0 ** -60 * rng.standard_normal(1000)
    x = ddblas.DDArray(hi, lo)
    hi = np.where(rng.random(1000) < 0.3, np.nan, x.hi)
    y = ddblas.DDArray(hi, np.where(np.isnan(hi), np.nan, x.lo)).to_device(device)
    terms = [t for t, h in zip(exact_values(x), hi) if not np.isnan(h)]
    n = len(terms)
    c = bound_constant("sum", Options(fma=variant["fma"], add=variant["add"]), n)
    (s,) = exact_values(ddblas.nansum(y, **variant))
    assert abs(s - sum(terms)) <= c * sum(abs(t) for t in terms)
    (m,) = exact_values(ddblas.nanmean(y, **variant))
    b = c * sum(abs(t) for t in terms) / n
    div = bound_constant("div")
    assert abs(m - sum(terms) / n) <= b + div * (abs(sum(terms)) / n + b)


VALUES = np.array([[[1.0, np.nan, 3.0, 0.5], [np.nan] * 4, [2.0, -1.0, np.nan, 7.0]],
                   [[np.inf, 1.0, np.nan, -2.0], [4.0, 4.0, 4.0, np.nan], [0.0, -0.0, 1.0, 2.0]]])


def _numpy_outcome(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = call()
        except (ValueError, TypeError) as exc:
            return type(exc), str(exc), None
    return None, sorted({str(w.message) for w in caught if w.category is RuntimeWarning
                         and "encountered in" not in str(w.message)}), value


@pytest.mark.parametrize("name", NAN_FUNCS + ["nanargmax", "nanargmin", "median"])
def test_values_shapes_warnings_errors_as_numpy(device, name):
    x = ddblas.array(VALUES, device=device)
    arg = name.startswith("nanarg")
    axes = [None, 0, 1, 2, -1] + ([] if arg else [(0, 2), (1, 2)])
    for axis in axes:
        for keepdims in (False, True):
            kwargs = {"axis": axis, "keepdims": keepdims}
            if name in ("nanvar", "nanstd"):
                kwargs["ddof"] = 1
            error, messages, expected = _numpy_outcome(
                lambda: getattr(np, name)(VALUES, **kwargs))
            if error is not None:
                with pytest.raises(error, match=messages.replace(".", r"\.")):
                    getattr(np, name)(x, **kwargs)
                with pytest.raises(error):
                    getattr(ddblas, name)(x, **kwargs)
                continue
            got_error, got_messages, got = _numpy_outcome(lambda: getattr(np, name)(x, **kwargs))
            assert got_error is None and got_messages == messages, (axis, messages)
            values = _host(got) if arg else _host(got.to_float64())
            assert values.shape == np.shape(expected)
            assert np.allclose(values, expected, rtol=1e-15, equal_nan=True), (axis, values)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                again = getattr(ddblas, name)(x, **kwargs)
            assert same_bits(again, got) if not arg else np.array_equal(_host(again), values)


def test_empty_slices_as_numpy(device):
    empty = ddblas.zeros((0, 3), device=device)
    host = np.zeros((0, 3))
    for name in ("nanmax", "nanmin"):
        with pytest.raises(ValueError, match="zero-size array to reduction operation fm"):
            getattr(ddblas, name)(empty, axis=0)
        assert getattr(ddblas, name)(empty, axis=1).shape == (0,)
    for name in ("nanargmax", "nanargmin"):
        with pytest.raises(ValueError, match="empty sequence"):
            getattr(np, name)(empty)
    for name in ("nanmean", "median"):
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            got = getattr(np, name)(empty, axis=0)
        assert np.isnan(_host(got.hi)).all() and got.shape == (3,)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        assert np.isnan(_host(ddblas.nanvar(empty, axis=0).hi)).all()
    assert exact_values(ddblas.nansum(empty)) == [np.sum(host)]
    assert exact_values(ddblas.nanprod(empty, axis=0)) == [1, 1, 1]


def test_out_and_dtype(device):
    x = ddblas.array(VALUES[1], device=device)
    out = ddblas.zeros(3, device=device)
    assert np.nansum(x, axis=1, out=out) is out
    assert same_bits(out, ddblas.nansum(x, axis=1))
    index = np.zeros(3, dtype=np.int64) if device == "cpu" else x.xp.zeros(3, dtype=np.int64)
    assert np.nanargmax(x, axis=1, out=index) is index
    assert _host(index).tolist() == [0, 0, 3]
    assert same_bits(np.nanvar(x, 1, ddblas.dd, None, 1), ddblas.nanvar(x, axis=1, ddof=1))
    assert same_bits(np.median(x, 1, None, True), ddblas.median(x, axis=1))
    with pytest.raises(TypeError, match="dtype"):
        np.nanmean(x, dtype=np.float32)
    with pytest.raises(TypeError, match="out="):
        np.nanmax(x, out=np.zeros(()))


@given(st.lists(dd_value(-30, 30), min_size=1, max_size=15))
@settings(max_examples=30, deadline=None)
def test_median_exact_middle_or_one_rounding(device, variant, pairs):
    x = to_ddarray(pairs, device)
    terms = sorted(exact_values(x))
    n = len(terms)
    (got,) = exact_values(ddblas.median(x, **variant))
    if n % 2:
        assert got == terms[n // 2]
    else:
        a, b = terms[n // 2 - 1], terms[n // 2]
        c = bound_constant("add", Options(fma=variant["fma"], add=variant["add"]))
        assert abs(got - (a + b) / 2) <= c * (abs(a) + abs(b)) / 2


def test_median_nan_inf_and_overflow(device):
    big = np.finfo(np.float64).max
    x = ddblas.array([[1.0, np.nan, 2.0, 3.0], [big, big, 1.0, big], [-np.inf, np.inf, 0.0, 1.0],
                      [5.0, 1.0, 4.0, 2.0]], device=device)
    got = _host(ddblas.median(x, axis=1).to_float64())
    assert np.isnan(got[0]) and got[1] == big and got[2] == 0.5 and got[3] == 3.0
    assert np.isnan(float(ddblas.median(ddblas.array([-np.inf, np.inf], device=device)).hi))
    assert exact_values(ddblas.median(ddblas.array(["0.1", "0.2"], device=device))) == \
        exact_values(ddblas.array("0.1", device=device) * 0 + (ddblas.array("0.1") +
                     ddblas.array("0.2")).to_device(device) * 0.5)
    with np.errstate(over="ignore"):
        assert math.isinf(np.median(np.array([big, big, 1.0, big])))   # NumPy's, not ours


@given(st.lists(dd_value(-30, 30), min_size=1, max_size=15),
       st.lists(st.fractions(0, 1, max_denominator=1000), min_size=1, max_size=4))
@settings(max_examples=30, deadline=None)
def test_quantile_linear_within_bound(device, variant, pairs, qs):
    """NumPy's linear method with the exact virtual index q (n - 1) = j + g: x_j exactly for
    g = 0, else within (2 c_add + c_mul) GROWTH (|x_j| + |x_j+1|) of x_j + g (x_j+1 - x_j)."""
    x = to_ddarray(pairs, device)
    terms = sorted(exact_values(x))
    n = len(terms)
    q = [float(f) for f in qs]
    got = exact_values(ddblas.quantile(x, q, **variant))
    opts = Options(fma=variant["fma"], add=variant["add"])
    c = (2 * bound_constant("add", opts) + bound_constant("mul", opts)) * (1 + Fraction(1, 2 ** 40))
    for value, qi in zip(got, q):
        virtual = Fraction(qi) * (n - 1)
        j = int(virtual)
        g = virtual - j
        if g == 0:
            assert value == terms[j]
        else:
            exact = terms[j] + g * (terms[j + 1] - terms[j])
            assert abs(value - exact) <= c * (abs(terms[j]) + abs(terms[j + 1]))
    assert same_bits(ddblas.percentile(x, [100 * v for v in (0.0, 0.5, 1.0)], **variant),
                     ddblas.quantile(x, [0.0, 0.5, 1.0], **variant))


def test_quantile_percentile_as_numpy(device):
    host = np.array([[3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]])
    x = ddblas.array(host, device=device)
    for q in (0.5, [0.1, 0.9], [[0.25], [1.0]], 0.0):
        for axis in (None, 0, 1, (0, 1)):
            for keepdims in (False, True):
                got = np.quantile(x, q, axis=axis, keepdims=keepdims)
                expected = np.quantile(host, q, axis=axis, keepdims=keepdims)
                assert got.shape == expected.shape
                assert np.allclose(_host(got.to_float64()), expected, rtol=1e-15)
                pct = np.percentile(x, np.multiply(q, 100), axis, None, False, "linear",
                                    keepdims)
                assert np.allclose(_host(pct.to_float64()), expected, rtol=1e-15)
    assert same_bits(np.median(x, axis=1), ddblas.quantile(x, 0.5, axis=1))
    nan = ddblas.array([1.0, np.nan, 2.0], device=device)
    assert np.isnan(_host(np.quantile(nan, [0.1, 0.5]).hi)).all()
    with pytest.raises(ValueError, match="'nearst' is not a valid method. Use one of: "):
        np.quantile(x, 0.5, method="nearst")
    with pytest.raises(ValueError, match="'Linear' is not a valid method"):
        ddblas.percentile(x, 50, method="Linear")
    with pytest.raises(ValueError, match="interpolation= is not supported"):
        ddblas.quantile(x, 0.5, interpolation="linear")
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        np.quantile(x, 1.5)
    with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\]"):
        np.percentile(x, [-1, 50])
    with pytest.raises(ValueError, match="Only method 'inverted_cdf' supports weights. Got: "
                                         "linear."):
        ddblas.quantile(x, 0.5, weights=np.ones((2, 5)))
    with pytest.raises(IndexError):
        np.quantile(ddblas.zeros((2, 0), device=device), 0.5, axis=1)
    out = ddblas.zeros((2, 2), device=device)
    assert np.quantile(x, [0.1, 0.9], axis=1, out=out) is out
    assert same_bits(out, ddblas.quantile(x, [0.1, 0.9], axis=1))
