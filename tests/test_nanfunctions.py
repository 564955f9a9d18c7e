"""NaN-ignoring reductions and the order statistics (ddblas.core.nanfunctions): bits equal to
the plain reduction of the non-NaN terms (one chunk: the added zeros are exact), bounds against
exact Fraction values, NumPy's shapes, warnings and errors, NEP 18 dispatch and out=; every
quantile method against NumPy on exact float64 cases and against exact Fractions on DD data,
weights=, nanmedian, nanquantile and nanpercentile."""
from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas
from ddblas.accuracy import GROWTH, bound_constant
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


@pytest.mark.parametrize("name", NAN_FUNCS + ["nanargmax", "nanargmin", "median",
                                  "nanmedian"])
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


# numpy.quantile's methods (NumPy 2.x)
METHODS = ["inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "midpoint", "nearest"]
# m of the continuous methods, from the Notes of numpy.quantile's documentation (H&F 4-9)
CONTINUOUS_M = {"interpolated_inverted_cdf": lambda q: 0, "hazen": lambda q: Fraction(1, 2),
                "weibull": lambda q: q, "linear": lambda q: 1 - q,
                "median_unbiased": lambda q: q / 3 + Fraction(1, 3),
                "normal_unbiased": lambda q: q / 4 + Fraction(3, 8)}


def _reference_quantile(terms, q, method):
    """(exact value, a, b, g) of the q-th quantile of the sorted exact terms by `method`, as
    NumPy's documentation defines it: j = floor(q n + m - 1), g its fraction (the methods' own
    g for the discontinuous ones), the value (1 - g) a + g b with a = y[j], b = y[j + 1], the
    indices clipped to [0, n - 1]; lower/higher/midpoint/nearest from (n - 1) q: floor, ceil,
    their mean, rounded half to even (np.around)."""
    n = len(terms)

    def y(i):
        return terms[min(max(i, 0), n - 1)]

    if method in ("lower", "higher", "midpoint", "nearest"):
        v = (n - 1) * q
        j = {"lower": math.floor(v), "higher": math.ceil(v), "nearest": round(v),
             "midpoint": math.floor(v)}[method]
        g = Fraction(1, 2) if method == "midpoint" and v != j else Fraction(0)
    else:
        m = {"inverted_cdf": 0, "averaged_inverted_cdf": 0, "closest_observation": Fraction(-1, 2)}
        index = q * n + (m[method] if method in m else CONTINUOUS_M[method](q)) - 1
        j = math.floor(index)
        g = index - j
        if method == "inverted_cdf":
            g = Fraction(int(g > 0))
        elif method == "averaged_inverted_cdf":
            g = Fraction(1 + int(g > 0), 2)
        elif method == "closest_observation":
            g = Fraction(1 - int(index == j and j % 2 == 1))
    return (1 - g) * y(j) + g * y(j + 1), y(j), y(j + 1), g


def _quantile_constant(variant) -> Fraction:
    """(2 c_add + c_mul) GROWTH: quantile's documented bound relative to |a| + |b|."""
    opts = Options(fma=variant["fma"], add=variant["add"])
    return (2 * bound_constant("add", opts) + bound_constant("mul", opts)) * GROWTH


def _check_quantiles(got, terms, qs, method, variant):
    """Each got[i] equals the exact reference where no interpolation is needed (g in {0, 1}
    or a = b), else lies within the documented bound of it."""
    c = _quantile_constant(variant)
    for value, q in zip(got, qs):
        exact, a, b, g = _reference_quantile(terms, q, method)
        if g in (0, 1) or a == b:
            assert value == exact, (method, q)
        else:
            assert abs(value - exact) <= c * (abs(a) + abs(b)), (method, q)


@given(st.lists(dd_value(-30, 30), min_size=1, max_size=15),
       st.lists(st.one_of(st.fractions(0, 1, max_denominator=1000),
                          st.integers(0, 64).map(lambda k: Fraction(k, 64))),
                min_size=1, max_size=5))
@settings(max_examples=25, deadline=None)
def test_every_method_exact_or_within_bound(device, variant, pairs, qs):
    """Against exact Fraction arithmetic on 106-bit DD values: for every method, the value
    NumPy's documentation defines with the exact virtual index (q taken exactly: a float64
    here) is returned exactly where it is an entry, else within (2 c_add + c_mul) GROWTH
    (|x_j| + |x_j+1|)."""
    x = to_ddarray(pairs, device)
    terms = sorted(exact_values(x))
    q = [float(f) for f in qs]
    exact_q = [Fraction(v) for v in q]
    for method in METHODS:
        got = exact_values(ddblas.quantile(x, q, method=method, **variant))
        _check_quantiles(got, terms, exact_q, method, variant)
    dyadic = [0.0, 0.0625, 0.5, 0.8125, 1.0]   # 100 q and q are exact: the same Fractions
    for method in ("linear", "nearest", "weibull"):
        assert same_bits(ddblas.percentile(x, [100 * v for v in dyadic], method=method, **variant),
                         ddblas.quantile(x, dyadic, method=method, **variant))


def test_dd_q_taken_exactly(device):
    """q as a DD (the DD nearest 0.1, not a float64) is taken exactly, and median_unbiased's
    and normal_unbiased's constants are exact: the exact reference's values (within the bound),
    which q rounded to float64 would miss by about 10^-17."""
    x = ddblas.arange(0, 10, device=device)
    (q,) = exact_values(ddblas.array("0.1"))
    variant = {"fma": True, "add": "accurate"}
    for method in METHODS:
        got = exact_values(ddblas.quantile(x, "0.1", method=method, **variant))
        _check_quantiles(got, list(range(10)), [q], method, variant)
    (got,) = exact_values(ddblas.quantile(x, 0.5, method="median_unbiased"))
    assert got == Fraction(9, 2)   # (10 + 1/3)/2 - 2/3 = 4.5: the mean of 4 and 5, exactly


SMALL = np.array([[7.0, -3.0, 2.0, 2.0, 11.0, -8.0, 5.0, 0.0],
                  [1.0, 4.0, -6.0, 9.0, 3.0, 3.0, -2.0, 8.0],
                  [-5.0, 6.0, 12.0, -1.0, 4.0, 10.0, -7.0, 2.0]])


@pytest.mark.parametrize("method", METHODS)
def test_every_method_as_numpy_on_small_integers(device, method):
    """numpy.quantile on float64 small integers with q = k/16 (NumPy's virtual index and lerp
    are then exact, but for median_unbiased's rounded 1/3): the same values, shapes (q scalar,
    1-D, 2-D; 0 and 1; axis, keepdims) through NumPy's dispatch, and percentile's."""
    x = ddblas.array(SMALL, device=device)
    for q in (0.0, 1.0, 0.3125, np.arange(17) / 16, [[0.25, 0.5], [0.75, 1.0]]):
        for axis in (None, 0, 1, (0, 1), -1):
            for keepdims in (False, True):
                got = np.quantile(x, q, axis=axis, method=method, keepdims=keepdims)
                assert isinstance(got, ddblas.DDArray)
                expected = np.quantile(SMALL, q, axis=axis, method=method, keepdims=keepdims)
                values = _host(got.to_float64())
                assert values.shape == np.shape(expected)
                if method == "median_unbiased":
                    assert np.allclose(values, expected, rtol=0, atol=1e-13)
                else:
                    assert np.array_equal(values, expected), (q, axis, keepdims)
                pct = np.percentile(x, np.multiply(q, 100), axis, None, False, method, keepdims)
                assert same_bits(pct, got)
    for n in range(1, 9):   # every length, so every clamping and rounding case is met
        row = SMALL[1, :n]
        got = ddblas.quantile(ddblas.array(row, device=device), np.arange(33) / 32, method=method)
        expected = np.quantile(row, np.arange(33) / 32, method=method)
        assert np.allclose(_host(got.to_float64()), expected, rtol=0,
                           atol=1e-13 if method == "median_unbiased" else 0), n


def test_rounding_rules_of_nearest_and_closest_observation(device):
    """'nearest' rounds (n - 1) q half to even (np.around, not the documented g > 1/2);
    'closest_observation' takes the even 1-based order statistic where n q - 1/2 is an
    integer; 'averaged_inverted_cdf' averages where n q is an integer."""
    x = ddblas.array([10.0, 20.0, 30.0, 40.0, 50.0], device=device)    # n = 5
    got = _host(ddblas.quantile(x, [0.125, 0.375, 0.625, 0.875], method="nearest").to_float64())
    assert got.tolist() == [10.0, 30.0, 30.0, 50.0]   # 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 3.5 -> 4
    y = ddblas.array([10.0, 20.0, 30.0, 40.0], device=device)          # n = 4
    got = _host(ddblas.quantile(y, [0.375, 0.625, 0.875], method="closest_observation")
                .to_float64())
    assert got.tolist() == [20.0, 20.0, 40.0]   # n q - 1/2 = 1 (odd: x_2), 2 (even: x_2), 3
    got = _host(ddblas.quantile(y, [0.25, 0.5, 0.3], method="averaged_inverted_cdf")
                .to_float64())
    assert got.tolist() == [15.0, 25.0, 20.0]
    for q in (0.125, 0.375, 0.625, 0.875):
        assert float(ddblas.quantile(x, q, method="nearest").hi) == \
            np.quantile([10.0, 20.0, 30.0, 40.0, 50.0], q, method="nearest")


def test_methods_nan_and_empty(device):
    """A slice holding a NaN gives NaN for every method (weighted too); nanquantile leaves the
    NaNs out; an empty slice is NumPy's IndexError for every method; q outside the range, with
    3 dimensions, and unknown methods are NumPy's ValueErrors."""
    x = ddblas.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], device=device)
    for method in METHODS:
        got = _host(ddblas.quantile(x, [0.0, 0.5, 1.0], axis=1, method=method).to_float64())
        expected = np.quantile(_host(x.to_float64()), [0.0, 0.5, 1.0], axis=1, method=method)
        assert np.array_equal(got, expected, equal_nan=True) and np.isnan(got[:, 0]).all()
        nan_got = ddblas.nanquantile(x, [0.0, 0.5, 1.0], axis=1, method=method)
        assert same_bits(nan_got[:, 0], ddblas.quantile(x[0, [0, 2]], [0.0, 0.5, 1.0],
                                                         method=method))
        with pytest.raises(IndexError):
            np.quantile(ddblas.zeros((2, 0), device=device), 0.5, axis=1, method=method)
    assert np.isnan(_host(ddblas.quantile(x, 0.5, axis=1, method="inverted_cdf",
                                          weights=[1, 2, 3]).hi))[0]
    assert ddblas.quantile(ddblas.zeros((0, 3), device=device), [0.5, 1.0], axis=1,
                           method="lower").shape == (2, 0)
    with pytest.raises(ValueError, match=r"Quantiles must be in the range \[0, 1\]"):
        ddblas.nanquantile(x, [0.5, 1.25])
    with pytest.raises(ValueError, match=r"Percentiles must be in the range \[0, 100\]"):
        np.nanpercentile(x, 101)
    with pytest.raises(ValueError, match="q must be a scalar or 1d"):
        ddblas.quantile(x, np.full((1, 1, 1), 0.5))
    for bad in ("Linear", "median", ""):
        with pytest.raises(ValueError, match=f"'{bad}' is not a valid method. Use one of: "
                                             r"dict_keys\(\['inverted_cdf'"):
            np.nanquantile(x, 0.5, method=bad)


def test_weights_as_numpy(device):
    """weights= with 'inverted_cdf': small integer weights (NumPy's cdf is then exact at every
    q = k/16 boundary) over every axis layout NumPy takes, nanquantile's too (the NaNs' weights
    left out); unit weights give the unweighted values; NumPy's validation messages."""
    rng = np.random.default_rng(7)
    host = rng.integers(-9, 9, (3, 4, 5)).astype(np.float64)
    weights = rng.integers(0, 4, host.shape).astype(np.float64)
    weights[0, 0] = [0, 0, 2, 0, 1]   # leading zero weights: q = 0 picks the first positive
    x = ddblas.array(host, device=device)
    q = np.arange(17) / 16
    for axis, w in [(None, weights), (2, weights), ((0, 2), weights), (2, weights[0, 0] + 1),
                    ((2, 0), weights[:, 0].T + 1), (1, weights[0, :, 0] + 1),
                    ((2, 0, 1), np.transpose(weights, (2, 0, 1)) + 1)]:
        got = np.quantile(x, q, axis=axis, method="inverted_cdf", weights=w)
        expected = np.quantile(host, q, axis=axis, method="inverted_cdf", weights=w)
        assert np.array_equal(_host(got.to_float64()), expected), axis
        assert same_bits(np.percentile(x, q * 100, axis=axis, method="inverted_cdf",
                                       weights=w), got)
    with_nan = host.copy()
    with_nan[rng.random(host.shape) < 0.3] = np.nan
    with_nan[1, 1] = np.nan
    y = ddblas.array(with_nan, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for axis in (None, 2, (0, 2)):
            got = np.nanquantile(y, q, axis=axis, method="inverted_cdf", weights=weights + 1)
            expected = np.nanquantile(with_nan, q, axis=axis, method="inverted_cdf",
                                      weights=weights + 1)
            assert np.array_equal(_host(got.to_float64()), expected, equal_nan=True), axis
    assert same_bits(ddblas.quantile(x, q, axis=1, method="inverted_cdf", weights=np.ones(4)),
                     ddblas.quantile(x, q, axis=1, method="inverted_cdf"))
    messages = [({"weights": np.ones(5)}, ValueError,
                 r"Only method 'inverted_cdf' supports weights\. Got: linear\."),
                ({"weights": np.ones(5), "method": "inverted_cdf"}, TypeError,
                 "Axis must be specified when shapes of a and weights differ"),
                ({"weights": np.ones(4), "axis": 2, "method": "inverted_cdf"}, ValueError,
                 "Shape of weights must be consistent with shape of a along specified axis"),
                ({"weights": -weights, "method": "inverted_cdf"}, ValueError,
                 "Weights must be non-negative"),
                ({"weights": 0 * weights, "method": "inverted_cdf"}, ValueError,
                 "Weights included NaN, inf or were all zero"),
                ({"weights": np.where(weights == 3, np.inf, weights), "method": "inverted_cdf"},
                 ValueError, "Weights included NaN, inf or were all zero")]
    for kwargs, error, message in messages:
        for target in (host, x):
            with pytest.raises(error, match=message), np.errstate(all="ignore"):
                np.quantile(target, 0.5, **kwargs)


@given(st.lists(st.tuples(dd_value(-30, 30), dd_value(-20, 20, allow_zero=True)), min_size=1,
                max_size=12),
       st.lists(st.fractions(0, 1, max_denominator=100), min_size=1, max_size=4))
@settings(max_examples=25, deadline=None)
def test_weighted_inverted_cdf_exact(device, pairs, qs):
    """Against exact Fractions: the value x_i (exactly) of the first i, in sorted order, whose
    cumulative weight reaches q times the total and is positive (106-bit DD weights)."""
    values = to_ddarray([p for p, _ in pairs], device)
    weights = abs(to_ddarray([w for _, w in pairs], "cpu"))
    terms, wts = exact_values(values), exact_values(weights)
    if sum(wts) == 0:
        with pytest.raises(ValueError, match="all zero"):
            ddblas.quantile(values, 0.5, method="inverted_cdf", weights=weights)
        return
    q = [float(f) for f in qs]
    got = exact_values(ddblas.quantile(values, q, method="inverted_cdf", weights=weights))
    ranked = sorted(zip(terms, wts), key=lambda tw: tw[0])
    total = sum(wts)
    for value, qi in zip(got, q):
        cumulative = Fraction(0)
        for term, w in ranked:
            cumulative += w
            if cumulative >= Fraction(qi) * total and cumulative > 0:
                break
        assert value == term


def test_nan_quantiles_as_numpy(device):
    """nanquantile / nanpercentile / nanmedian against NumPy's on small integers with NaNs
    (rows of different non-NaN counts in one call, all-NaN slices with NumPy's warning) for
    every method, q = k/16; row by row the bits of quantile of the row's non-NaN values.
    (VALUES' inf is made finite: NumPy's lerp gives NaN at g = 0 or 1 next to an inf, ddblas
    the entry; test_infinite_neighbours.)"""
    host = np.where(np.isinf(VALUES), 9.0, VALUES)
    x = ddblas.array(host, device=device)
    q = np.arange(17) / 16
    for method in METHODS:
        for axis in (None, 0, 2, (0, 2), (1, 2)):
            error, messages, expected = _numpy_outcome(
                lambda: np.nanquantile(host, q, axis=axis, method=method, keepdims=True))
            got_error, got_messages, got = _numpy_outcome(
                lambda: np.nanquantile(x, q, axis=axis, method=method, keepdims=True))
            assert error is None and got_error is None and got_messages == messages
            tol = 1e-13 if method == "median_unbiased" else 0
            assert got.shape == expected.shape
            assert np.allclose(_host(got.to_float64()), expected, rtol=0, atol=tol,
                               equal_nan=True), (method, axis)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                pct = np.nanpercentile(x, q * 100, axis, None, False, method, True)
            assert same_bits(pct, got)
    rows = VALUES.reshape(6, 4)
    y = ddblas.array(rows, device=device)
    with pytest.warns(RuntimeWarning, match="All-NaN slice encountered"):
        by_rows = ddblas.nanquantile(y, q, axis=1, method="hazen")
    for r in range(6):
        kept = rows[r][~np.isnan(rows[r])]
        if kept.size:
            assert same_bits(by_rows[:, r], ddblas.quantile(ddblas.array(kept, device=device),
                                                             q, method="hazen"))
        else:
            assert np.isnan(_host(by_rows[:, r].hi)).all()


def test_infinite_neighbours(device):
    """Next to an infinite entry, ddblas returns the entry where g is 0 or 1 (NumPy's lerp:
    inf * 0 = NaN) and the DD mean where g = 1/2 (NumPy: inf - inf = NaN for quantile, inf for
    median); between finite entries NumPy's lerp from the nearer end gives inf or NaN as NumPy."""
    x = ddblas.array([1.0, 2.0, np.inf], device=device)
    assert _host(ddblas.quantile(x, 1.0).to_float64()) == np.inf
    assert _host(ddblas.quantile(x, 1.0, method="averaged_inverted_cdf").to_float64()) == np.inf
    assert _host(ddblas.quantile(x, 0.5, method="midpoint").to_float64()) == 2.0
    y = ddblas.array([1.0, np.inf], device=device)
    assert _host(ddblas.quantile(y, 0.5).to_float64()) == np.inf == np.median([1.0, np.inf])
    assert same_bits(ddblas.median(y), ddblas.quantile(y, 0.5))
    assert _host(ddblas.quantile(y, 0.25).to_float64()) == np.inf   # 1 + inf * 1/4
    assert np.isnan(_host(ddblas.quantile(y, 0.75).to_float64()))   # inf - inf * 1/4
    with np.errstate(invalid="ignore"):
        assert np.quantile([1.0, np.inf], 0.25) == np.inf
        assert np.isnan(np.quantile([1.0, np.inf], 0.75))


def test_nan_order_statistics_empty_and_out(device):
    """An empty array: nanmedian and nanquantile give nanmean's result (NaN with "Mean of empty
    slice", no q axes: NumPy's rule); out= through NumPy's dispatch."""
    empty = ddblas.zeros((2, 0), device=device)
    for call in (lambda: np.nanmedian(empty, axis=1),
                 lambda: np.nanquantile(empty, [0.25, 0.5], axis=1),
                 lambda: np.nanpercentile(empty, 50, axis=1)):
        with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
            got = call()
        assert got.shape == (2,) and np.isnan(_host(got.hi)).all()
    x = ddblas.array(VALUES[1], device=device)
    out = ddblas.zeros((2, 3), device=device)
    assert np.nanquantile(x, [0.25, 0.75], 1, out, False, "nearest") is out
    assert same_bits(out, ddblas.nanquantile(x, [0.25, 0.75], axis=1, method="nearest"))
    out = ddblas.zeros(3, device=device)
    assert np.nanmedian(x, axis=1, out=out) is out
    assert same_bits(out, ddblas.nanmedian(x, axis=1))
    with pytest.raises(ValueError, match="out="):
        np.nanpercentile(x, [50], axis=1, out=ddblas.zeros(3, device=device))


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
