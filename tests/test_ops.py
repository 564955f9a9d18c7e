"""DD arithmetic against exact rationals (+ - * /) and mpmath at 320 bits (sqrt), asserting the
proven bounds of tests/ddvalues.py on hypothesis inputs spanning exponents, for every variant."""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ddblas
from ddvalues import (DIV, MUL, SQRT, U, add_abs_constant, dd_arrays, exact_values,
                      is_normalized, rel_error, same_bits, to_ddarray, ACCURATE_ADD)

WIDE = dict(min_exp=-900, max_exp=900)
NARROW = dict(min_exp=-400, max_exp=400)


def _check_add(a, b, r, kind, negate_b=False):
    assert is_normalized(r)
    for x, y, z in zip(exact_values(a), exact_values(b), exact_values(r)):
        y = -y if negate_b else y
        if kind == "accurate":
            assert rel_error(z, x + y) <= ACCURATE_ADD
        else:
            assert abs(z - (x + y)) <= add_abs_constant("sloppy") * (abs(x) + abs(y))


@given(dd_arrays(**WIDE), dd_arrays(**WIDE))
def test_add_within_bound(device, variant, xs, ys):
    a, b = to_ddarray(xs, device), to_ddarray(ys, device)
    _check_add(a, b, ddblas.add(a, b, **variant), variant["add"])


@given(dd_arrays(**WIDE), st.lists(st.integers(-60, 60), min_size=12, max_size=12))
def test_add_under_heavy_cancellation(device, variant, xs, shifts):
    """b = -(a + a * 2^-k): the sum cancels all but a few bits of a."""
    ys = [ddblas.core.convert.dd_from_fraction(-(Fraction(h) + Fraction(l)) * (1 + Fraction(2) ** -abs(k)))
          for (h, l), k in zip(xs, shifts)]
    a, b = to_ddarray(xs, device), to_ddarray(ys, device)
    _check_add(a, b, ddblas.add(a, b, **variant), variant["add"])


@given(dd_arrays(**WIDE), dd_arrays(**WIDE))
def test_subtract_within_bound(device, variant, xs, ys):
    a, b = to_ddarray(xs, device), to_ddarray(ys, device)
    _check_add(a, b, ddblas.subtract(a, b, **variant), variant["add"], negate_b=True)


@given(dd_arrays(**NARROW), dd_arrays(**NARROW))
def test_multiply_within_bound(device, variant, xs, ys):
    a, b = to_ddarray(xs, device), to_ddarray(ys, device)
    r = ddblas.multiply(a, b, **variant)
    assert is_normalized(r)
    for x, y, z in zip(exact_values(a), exact_values(b), exact_values(r)):
        assert rel_error(z, x * y) <= MUL[variant["fma"]]


@given(dd_arrays(**NARROW), dd_arrays(allow_zero=False, **NARROW))
def test_divide_within_bound(device, variant, xs, ys):
    a, b = to_ddarray(xs, device), to_ddarray(ys, device)
    r = ddblas.divide(a, b, **variant)
    assert is_normalized(r)
    for x, y, z in zip(exact_values(a), exact_values(b), exact_values(r)):
        assert rel_error(z, x / y) <= DIV


@given(dd_arrays(**WIDE))
def test_sqrt_within_bound(device, variant, xs):
    xs = [(h, l) if math.copysign(1, h) > 0 else (-h, -l) for h, l in xs]  # |x|
    a = to_ddarray(xs, device)
    r = ddblas.sqrt(a, **variant)
    assert is_normalized(r)
    with mpmath.workprec(320):
        for x, z in zip(exact_values(a), exact_values(r)):
            exact = mpmath.sqrt(mpmath.mpf(x.numerator) / x.denominator)
            if x == 0:
                assert z == 0
                continue
            err = abs(mpmath.mpf(z.numerator) / z.denominator - exact) / exact
            assert err <= mpmath.mpf(SQRT.numerator) / SQRT.denominator


def test_variants_agree_where_the_algorithm_says_so(device):
    """div and sqrt give the same bits for every variant (two_prod is exact either way)."""
    a = ddblas.random((64,), seed=1, device=device) + 0.5
    b = ddblas.random((64,), seed=2, device=device) + 0.25
    ref_div, ref_sqrt = ddblas.divide(a, b), ddblas.sqrt(a)
    for fma in (True, False):
        for add in ("accurate", "sloppy"):
            d, s = ddblas.divide(a, b, fma=fma, add=add), ddblas.sqrt(a, fma=fma, add=add)
            assert bool((d == ref_div).all()) and bool((s == ref_sqrt).all())
            assert bool((d.lo == ref_div.lo).all())


def test_fma_and_sloppy_paths_really_differ(device):
    """The variants are distinct code paths: over many random inputs some results differ."""
    a = ddblas.random((4096,), seed=3, device=device)
    b = ddblas.random((4096,), seed=4, device=device)
    fma, nofma = ddblas.multiply(a, b, fma=True), ddblas.multiply(a, b, fma=False)
    assert bool((fma != nofma).any())
    c = -(a * 0.999)
    accurate, sloppy = ddblas.add(a, c, add="accurate"), ddblas.add(a, c, add="sloppy")
    assert bool((accurate != sloppy).any())


@given(dd_arrays(**WIDE), dd_arrays(**WIDE))
def test_comparisons_match_exact_order(device, xs, ys):
    # Every third pair shares its hi part, so the lo parts decide.
    ys = [y if i % 3 else (x[0], x[1] if i % 2 else -x[1]) for i, (x, y) in enumerate(zip(xs, ys))]
    a, b = to_ddarray(xs, device), to_ddarray(ys, device)
    ex, ey = exact_values(a), exact_values(b)
    for op, ref in [(ddblas.equal, lambda p, q: p == q), (ddblas.not_equal, lambda p, q: p != q),
                    (ddblas.less, lambda p, q: p < q), (ddblas.less_equal, lambda p, q: p <= q),
                    (ddblas.greater, lambda p, q: p > q),
                    (ddblas.greater_equal, lambda p, q: p >= q)]:
        got = op(a, b)
        got = got.get() if hasattr(got, "get") else got
        assert got.dtype == np.bool_
        assert got.tolist() == [ref(p, q) for p, q in zip(ex, ey)]


def test_comparisons_with_objects_that_are_not_numbers_answer_as_numpy(device):
    x = ddblas.ones((2, 3), device=device)
    host = np.ones((2, 3))
    for other in (None, object(), {"a": 1}, ddblas.equal):
        for got, expected in ((x == other, host == other), (x != other, host != other),
                              (other == x, other == host), (other != x, other != host),
                              (ddblas.equal(x, other), np.equal(host, other)),
                              (np.not_equal(x, other), np.not_equal(host, other))):
            got = got.get() if hasattr(got, "get") else got
            assert got.dtype == np.bool_ and got.tolist() == expected.tolist()
        for compare in (lambda: x < other, lambda: x >= other, lambda: other > x,
                        lambda: ddblas.less_equal(x, other), lambda: np.greater(x, other)):
            with pytest.raises(TypeError, match=f"between a DDArray and {type(other).__name__}"):
                compare()
    for text in ("abc", ""):  # strings that do not parse as numbers (had raised ValueError)
        for got, expected in ((x == text, False), (x != text, True), (text == x, False),
                              (ddblas.not_equal(text, x), True)):
            got = got.get() if hasattr(got, "get") else got
            assert got.dtype == np.bool_ and got.tolist() == [[expected] * 3] * 2
        for compare in (lambda: x < text, lambda: text >= x, lambda: ddblas.greater(x, text)):
            with pytest.raises(TypeError, match=f"between a DDArray and str.*{text!r}"):
                compare()
    got = x == " 1.0 "  # a string that parses is a number
    got = got.get() if hasattr(got, "get") else got
    assert got.all() and not bool(ddblas.less(x, "1").any())
    with pytest.raises(TypeError, match="complex"):  # a number ddblas cannot hold: no answer
        x == 1j
    with pytest.raises(TypeError, match="complex"):
        x == [1j, 1, 2]
    with pytest.raises(TypeError, match="NoneType"):  # no DDArray: nothing to answer for
        ddblas.equal(None, None)


def test_comparisons_with_lists_holding_objects_that_are_not_numbers(device):
    """A list, or an object or string array, is compared entry by entry, as NumPy compares an
    object array: an entry that is not a number is unequal to everything and orderings raise a
    TypeError; numbers (strings that parse as numbers too) compare as numbers. `x == [1.0, 'x',
    3.0]` and `x == [None, 1, 2]` raised (NumPy: elementwise; its float64 array reads the first
    list as strings, which equal no float: all False)."""
    x = ddblas.array([[1, 2, 3], ["0.1", 5, 6]], device=device)
    host = lambda r: (r.get() if hasattr(r, "get") else r).tolist()  # noqa: E731
    objects = np.array([[1.0, "x", 3], [None, 5, {}]], dtype=object)
    assert host(np.ones((2, 3)) == objects) == [[True, False, False], [False, False, False]]
    for other in (objects, objects.tolist(), [[1.0, "x", "3"], [b"1", "5.0", "six"]],
                  np.array([["1", "x", "3"], ["y", "5", "6.5"]])):
        want = [[True, False, True], [False, True, False]]
        text = np.asarray(other).dtype.kind == "U"   # NumPy's ufuncs raise for strings
        for got in (x == other, other == x, ddblas.equal(x, other)) + \
                (() if text else (np.equal(x, other),)):
            assert got.dtype == np.bool_ and host(got) == want
        if text:
            with pytest.raises(TypeError, match="did not contain a loop"):
                np.equal(x, other)
        for got in (x != other, other != x, ddblas.not_equal(other, x)):
            assert host(got) == [[not v for v in row] for row in want]
        for compare in (lambda: x < other, lambda: other >= x, lambda: np.greater(x, other)):
            with pytest.raises(TypeError, match="entries that are not numbers"):
                compare()
    assert host(x[0] == [None, 2, 3]) == host(np.arange(1.0, 4.0) == [None, 2, 3]) == \
        [False, True, True]
    assert host(x[1] == ["0.1", "x", 6]) == [True, False, True]   # the DD nearest 0.1
    assert host(x[1] != [ddblas.array("0.1"), None, "6"]) == [False, True, False]
    assert host(x == [1, "x", 3]) == [[True, False, True], [False, False, False]]  # broadcast
    with pytest.raises(ValueError, match="broadcast"):
        x == [1, "x"]
    with pytest.raises(ValueError, match="ragged"):
        x == [[1, "x"], [1]]


def test_comparison_ufuncs_raise_for_text_and_dates_as_numpy(device):
    """np.equal and the other comparison ufuncs raise NumPy's TypeError for an operand NumPy
    reads as text or dates (a str or bytes that is not a number, a list NumPy makes a string
    array, a string, bytes, datetime or timedelta array), as for a float64 array (np.equal(x,
    'abc') gave False); the operators keep NumPy's answers (False for ==, True for !=); objects
    that are not text (None, a dict, object arrays) compare as NumPy's object loops do; strings
    that parse as numbers stay those numbers (ddblas's reading, in ufuncs and operators). A
    NumPy array or scalar before the DDArray in np.equal / np.not_equal answers: NumPy's own
    operators (u == x) call the ufunc so."""
    x = ddblas.array([1, 2, 3], device=device)
    host = np.array([1.0, 2.0, 3.0])
    get = lambda r: (r.get() if hasattr(r, "get") else r).tolist()  # noqa: E731
    ufuncs = (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)
    for other in ("abc", "", b"x", b"1", np.datetime64("2020"), np.timedelta64(1, "s"),
                  ["abc", 1, 2], [b"x", "1", 3], np.array(["a", "b", "c"]),
                  np.array([b"x", b"y", b"z"]), np.array([1, 2, 3], dtype="m8[s]")):
        for ufunc in ufuncs:
            with pytest.raises(TypeError, match="did not contain a loop"):
                ufunc(host, other)
            numpy_first = isinstance(other, (np.ndarray, np.generic))
            if numpy_first and ufunc in (np.equal, np.not_equal):
                # what NumPy's operators other == x, other != x call: they answer
                assert get(ufunc(other, x)) == [ufunc is np.not_equal] * 3
            else:
                with pytest.raises(TypeError, match="did not contain a loop"):
                    ufunc(other, x)
            for call in (lambda: ufunc(x, other),
                         lambda: ufunc(x, other, out=np.empty(3, dtype=bool))):
                with pytest.raises(TypeError, match=f"^ufunc '{ufunc.__name__}' did not "
                                                    f"contain a loop .* a DDArray and "
                                                    f"{type(other).__name__}"):
                    call()
        if not isinstance(other, list):   # a list: entry by entry (NumPy: a string array)
            assert get(x == other) == get(host == other) == get(other == x) == [False] * 3
            assert get(other != x) == get(other != host) == get(x != other) == [True] * 3
    for other in (None, {}, [None, "abc", 3], np.array(["abc", 2, None], dtype=object)):
        for ufunc in (np.equal, np.not_equal):
            assert get(ufunc(x, other)) == get(ufunc(host, other))
        with pytest.raises(TypeError, match="not supported between a DDArray"):
            np.less(x, other)
    assert get(np.equal(x, "2")) == [False, True, False]   # a number
    assert get(np.less(["1", "2.5", 4], x)) == [False, False, False]
    assert get(np.greater_equal(x, np.array(["0.5", "2", "3.0000000000000000000000001"]))) \
        == [True, True, False]
    assert get(ddblas.equal(x, "abc")) == [False] * 3   # the function: the operator's answers
    # their outer method too (it parsed the text first: a ValueError 'cannot parse')
    for ufunc in ufuncs:
        for pair in ((x, "abc"), (["a", "b"], x), (x, np.array(["a", "b"]))):
            with pytest.raises(TypeError, match="did not contain a loop"):
                ufunc.outer(*pair)
            with pytest.raises(TypeError, match="did not contain a loop"):
                ufunc.outer(*(host if p is x else p for p in pair))
    assert get(np.less.outer(x, ["1.5", "2.5"])) == [[True, True], [False, True], [False, False]]


@given(dd_arrays(**WIDE))
def test_negative_and_absolute_are_exact(device, xs):
    a = to_ddarray(xs, device)
    assert exact_values(-a) == [-x for x in exact_values(a)]
    assert exact_values(abs(a)) == [abs(x) for x in exact_values(a)]
    assert exact_values(ddblas.absolute(a)) == [abs(x) for x in exact_values(a)]


# ---- special values ----
def _pair(x: ddblas.DDArray):
    c = x.to_device("cpu")
    return float(c.hi), float(c.lo)


INF, NAN = math.inf, math.nan


@pytest.mark.parametrize("expr, expected", [
    (lambda d: d("inf") + 1, INF), (lambda d: 1 + d("-inf"), -INF), (lambda d: d("inf") - d("inf"), NAN),
    (lambda d: d("inf") * 2, INF), (lambda d: d("inf") * 0, NAN), (lambda d: d(-3) * d("inf"), -INF),
    (lambda d: d(1) / 0, INF), (lambda d: d(-1) / 0, -INF), (lambda d: d(0) / 0, NAN),
    (lambda d: d(1) / d("inf"), 0.0), (lambda d: d("inf") / d("inf"), NAN),
    (lambda d: ddblas.sqrt(d(-1)), NAN), (lambda d: ddblas.sqrt(d("inf")), INF),
    (lambda d: ddblas.sqrt(d(0)), 0.0), (lambda d: ddblas.sqrt(d(-0.0)), -0.0),
    (lambda d: d("nan") + 1, NAN), (lambda d: d("1e308") * 10, INF), (lambda d: d("1e308") + d("1e308"), INF),
    (lambda d: -d("1e308") * 10, -INF), (lambda d: d("1e-300") * d("1e-300"), 0.0),
    (lambda d: d(-0.0) + d(-0.0), -0.0), (lambda d: d(-0.0) - d(0.0), -0.0), (lambda d: d(1) - d(1), 0.0),
    (lambda d: d(-0.0) * 1, -0.0), (lambda d: d(0.0) * -1, -0.0), (lambda d: d(-0.0) * d(-0.0), 0.0),
    (lambda d: d(-0.0) / 3, -0.0), (lambda d: d(-1) / d("inf"), -0.0),
    # a sum of -0.0 terms: +0.0, as NumPy's sums (which start from the identity +0.0)
    (lambda d: ddblas.sum(d([-0.0, -0.0])), 0.0), (lambda d: ddblas.sum(d(["inf", 1])), INF),
    (lambda d: ddblas.dot(d([-0.0, -0.0]), d([1, 1])), 0.0),
    (lambda d: ddblas.dot(d(["inf", 1]), d([0, 1])), NAN),
    # a quotient that float64 rounds to a nonzero subnormal and DD to zero: float64's sign
    # (it came out +0)
    (lambda d: d(5e-324) / d(-1.5), -0.0), (lambda d: d(-5e-324) / 1.5, -0.0),
    (lambda d: d(5e-324) / 1.5, 0.0),
])
def test_special_values_follow_float64(device, variant, expr, expected):
    with ddblas.options(**variant):
        hi, lo = _pair(expr(lambda v: ddblas.array(v, device=device)))
    if math.isnan(expected):  # stored canonically, so CPU and GPU bits agree
        assert np.float64(hi).view(np.int64) == 0x7FF8000000000000
    else:
        assert hi == expected and math.copysign(1, hi) == math.copysign(1, expected)
        assert lo == 0.0


@pytest.mark.parametrize("fma", [True, False])
def test_no_spurious_overflow_near_dbl_max(device, fma):
    big = ddblas.array(Fraction(2) ** 1023 * Fraction(3, 2) + Fraction(2) ** 950, device=device)
    for factor in ["1.1", "0.99999999999999999999", "1e-30"]:
        f = ddblas.array(factor, device=device)
        r = ddblas.multiply(big, f, fma=fma)
        assert math.isfinite(_pair(r)[0])
        (x,), (y,), (z,) = exact_values(big), exact_values(f), exact_values(r)
        assert rel_error(z, x * y) <= MUL[fma]
    dmax = ddblas.array(np.finfo(np.float64).max, device=device)
    assert _pair(ddblas.multiply(dmax, ddblas.array("0.5", device=device), fma=fma))[0] == \
        np.finfo(np.float64).max / 2


# ---- broadcasting, operand kinds, views ----
def test_broadcasting_matches_elementwise(device):
    a = ddblas.random((3, 1), seed=5, device=device)
    b = ddblas.random((4,), seed=6, device=device)
    c = a * b + "0.1"
    assert c.shape == (3, 4)
    ea, eb = exact_values(a), exact_values(b)
    for i in range(3):
        for j in range(4):
            ref = ddblas.add(ddblas.multiply(a[i, 0], b[j]), "0.1")
            assert exact_values(c[i, j]) == exact_values(ref)
            assert rel_error(exact_values(c[i, j])[0], ea[i] * eb[j] + Fraction(1, 10)) < 20 * U ** 2


def test_float64_arrays_and_scalars_as_operands(device):
    xp = np if device == "cpu" else pytest.importorskip("cupy")
    a = ddblas.random((5,), seed=7, device=device)
    f = xp.linspace(1.0, 2.0, 5)
    for r, ref in [(a + f, ddblas.add(a, ddblas.asarray(f))), (f + a, ddblas.add(ddblas.asarray(f), a)),
                   (2 * a, ddblas.multiply(a, 2.0)), (a / 3, ddblas.divide(a, ddblas.array(3, device=device))),
                   (1 - a, ddblas.subtract(ddblas.ones((5,), device=device), a))]:
        assert isinstance(r, ddblas.DDArray) and r.device == device
        assert exact_values(r) == exact_values(ref)
    big = 2 ** 80 + 1  # a Python int beyond float64: exact in DD
    assert exact_values(a * 0 + big) == [Fraction(big)] * 5


def test_operations_on_strided_and_transposed_views(device):
    a = ddblas.random((6, 8), seed=8, device=device)
    v = a[::2, 1::3].T
    r = v * v
    ref = [x * x for x in exact_values(v.copy())]
    assert all(rel_error(z, e) <= MUL[True] for z, e in zip(exact_values(r), ref))


def test_inputs_are_not_modified(device):
    a = ddblas.random((10,), seed=9, device=device)
    before = exact_values(a)
    for f in (ddblas.sqrt, ddblas.negative, lambda x: x + x, lambda x: x / 3, ddblas.sum):
        f(a)
    assert exact_values(a) == before


def test_in_place_operators_write_into_the_array(device):
    a = ddblas.random((4,), seed=10, device=device)
    view = a[1:3]
    expected = exact_values(a[1:3] * 2)
    view *= 2
    assert exact_values(a[1:3]) == expected
    with pytest.raises(ValueError, match=r"\(4, 4\)"):
        a += ddblas.ones((4, 4), device=device)


def test_errors_name_the_problem(device):
    a = ddblas.ones((2, 3), device=device)
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(4,\)"):
        a + ddblas.ones((4,), device=device)
    with pytest.raises(ValueError, match="'fast'"):
        ddblas.add(a, a, add="fast")
    with pytest.raises(ValueError, match="fma"):
        ddblas.multiply(a, a, fma=1)
    with pytest.raises(TypeError, match="complex"):
        a + 1j
    with pytest.raises(ValueError, match="'abc'"):
        a + "abc"


# ---- NumPy protocols ----
def test_numpy_ufuncs_dispatch(device):
    a = ddblas.random((5,), seed=11, device=device)
    b = ddblas.random((5,), seed=12, device=device)
    # +a and np.positive(a) are new arrays, as NumPy's (they were a itself: += then changed a)
    for copy in (np.positive(a), +a):
        assert copy is not a and exact_values(copy) == exact_values(a)
        copy += 1
    assert exact_values(a) == exact_values(ddblas.random((5,), seed=11, device=device))
    for uf, f in [(np.add, ddblas.add), (np.subtract, ddblas.subtract), (np.multiply, ddblas.multiply),
                  (np.divide, ddblas.divide)]:
        assert exact_values(uf(a, b)) == exact_values(f(a, b))
    assert exact_values(np.sqrt(a)) == exact_values(ddblas.sqrt(a))
    assert exact_values(np.negative(a)) == exact_values(-a)
    assert exact_values(np.abs(-a)) == exact_values(a)
    less = np.less(a, b)
    assert (less.get() if hasattr(less, "get") else less).tolist() == \
        [x < y for x, y in zip(exact_values(a), exact_values(b))]
    assert exact_values(np.sum(a)) == exact_values(ddblas.sum(a))
    assert exact_values(np.dot(a, b)) == exact_values(ddblas.dot(a, b))
    out = ddblas.zeros((5,), device=device)
    assert np.add(a, b, out=out) is out and exact_values(out) == exact_values(a + b)


def test_numpy_array_on_the_left_dispatches_to_ddblas():
    a = ddblas.random((3,), seed=13)
    r = np.array([1.0, 2.0, 3.0]) * a
    assert isinstance(r, ddblas.DDArray)
    assert exact_values(r) == exact_values(a * ddblas.array([1.0, 2.0, 3.0]))


def test_unsupported_numpy_functions_raise_type_error_naming_them():
    a = ddblas.random((3,), seed=14)
    with pytest.raises(TypeError, match="logaddexp2"):
        np.logaddexp2(a, a)
    with pytest.raises(TypeError, match="reduce"):
        np.logaddexp.reduce(a)
    with pytest.raises(TypeError, match="subtract' method 'reduce"):
        np.subtract.reduce(a)
    with pytest.raises(TypeError, match="ptp"):   # np.median is supported since 2fbebe6
        np.ptp(a)
    with pytest.raises(TypeError, match="to_float64"):
        np.asarray(a)


@pytest.mark.parametrize("axis, size", [(None, 12), (0, 3), (-1, 4), (2, 4), ((), 1), ((0, 2), 12),
                                        ([1, -1], 4), (np.int64(1), 1), (np.array(2), 4)])
def test_np_size_takes_numpys_axes(device, axis, size):
    """np.size(x, axis) as NumPy 2.4's: an int or a tuple of ints (the product of their sizes),
    negative axes counted from the end (a tuple was a TypeError from tuple indexing)."""
    assert np.size(ddblas.zeros((3, 1, 4), device=device), axis) == size


@pytest.mark.parametrize("axis, error", [(3, "out of bounds"), (-4, "out of bounds"),
                                         ((0, 0), "repeated axis"), (1.0, "axis")])
def test_np_size_axis_errors_are_numpys(device, axis, error):
    """An axis out of range is NumPy's AxisError (it was an IndexError, 'tuple index out of
    range'); a repeated one a ValueError; a float a TypeError."""
    x = ddblas.zeros((3, 1, 4), device=device)
    kind = {"out of bounds": np.exceptions.AxisError, "repeated axis": ValueError}.get(error,
                                                                                    TypeError)
    with pytest.raises(kind, match=error):
        np.size(x, axis)


# ---- reductions ----
@given(st.integers(0, 700), st.sampled_from(["accurate", "sloppy"]))
def test_sum_within_bound(device, n, add):
    a = ddblas.random((n,), seed=n, device=device) - 0.5
    s = ddblas.sum(a, add=add)
    xs = exact_values(a)
    (z,) = exact_values(s)
    bound = max(n - 1, 0) * add_abs_constant(add) * (1 + Fraction(1, 2 ** 40)) * sum(map(abs, xs))
    assert abs(z - sum(xs)) <= bound


def test_sum_axes_and_keepdims(device):
    a = ddblas.random((3, 4, 5), seed=15, device=device)
    ea = np.array(exact_values(a), dtype=object).reshape(3, 4, 5)
    for axis in [0, 1, 2, -1, (0, 2), None]:
        s = ddblas.sum(a, axis=axis)
        ref = ea.sum(axis=axis)
        ref = np.asarray(ref, dtype=object).ravel().tolist()
        got = exact_values(s)
        assert len(got) == len(ref)
        assert all(abs(g - r) <= 64 * U ** 2 * 20 for g, r in zip(got, ref))
    assert ddblas.sum(a, axis=1, keepdims=True).shape == (3, 1, 5)
    assert ddblas.sum(a).shape == ()
    assert exact_values(ddblas.sum(ddblas.zeros((0, 3), device=device), axis=0)) == [0, 0, 0]
    with pytest.raises(ValueError, match="out of bounds"):
        ddblas.sum(a, axis=3)


@given(st.integers(1, 600), st.sampled_from([True, False]), st.sampled_from(["accurate", "sloppy"]))
def test_dot_within_bound(device, n, fma, add):
    x = ddblas.random((n,), seed=n, device=device) - 0.5
    y = ddblas.random((n,), seed=n + 1, device=device) - 0.5
    (z,) = exact_values(ddblas.dot(x, y, fma=fma, add=add))
    prods = [p * q for p, q in zip(exact_values(x), exact_values(y))]
    c = MUL[fma] + (n - 1) * add_abs_constant(add)
    assert abs(z - sum(prods)) <= c * (1 + Fraction(1, 2 ** 40)) * sum(map(abs, prods))


def test_dot_with_cancellation_is_exact_where_dd_holds_the_terms(device):
    """(2^40 + 1) + 2^-30 - (2^40 + 1) needs 71 bits: exact in DD, 0 in float64."""
    big, small = 2 ** 40 + 1, Fraction(1, 2 ** 30)
    x = ddblas.array([big, small, -big], device=device)
    y = ddblas.ones((3,), device=device)
    for fma in (True, False):
        for add in ("accurate", "sloppy"):
            assert exact_values(ddblas.dot(x, y, fma=fma, add=add)) == [small]
    assert float(np.dot(np.array([big, float(small), -big], dtype=float), np.ones(3))) != small
    with pytest.raises(ValueError, match=r"\(3,\) and \(2,\)"):
        ddblas.dot(x, ddblas.ones((2,), device=device))


def assert_reads_as_normalised(fn: str, hi, lo, device) -> None:
    """ddblas.<fn> of the pairs (hi, lo) wrapped with normalize=False gives the bits (or, for
    index and bool results, the values) it gives for DDArray(hi, lo) normalised."""
    raw = ddblas.DDArray(hi, lo, normalize=False).to_device(device)
    made = ddblas.DDArray(hi, lo).to_device(device)
    with np.errstate(all="ignore"):
        got, want = getattr(ddblas, fn)(raw), getattr(ddblas, fn)(made)
    if isinstance(got, ddblas.DDArray):
        assert same_bits(got, want), (fn, got.hi, got.lo, want.hi, want.lo)
    else:
        host = [a.get() if hasattr(a, "get") else np.asarray(a) for a in (got, want)]
        assert np.array_equal(*host), (fn, host)


@pytest.mark.parametrize("lo0", [np.nan, np.inf, -np.inf])
def test_truth_reads_unnormalised_pairs_as_normalisation_makes_them(lo0, device):
    """A pair (0, nan) or (0, +-inf) wrapped with normalize=False is nan or +-inf as a DD, so
    true: all, any and bool() read hi alone and called it zero."""
    for fn, hi in (("any", [0.0, 0.0]), ("all", [0.0, 1.0])):
        assert_reads_as_normalised(fn, np.array(hi), np.array([lo0, 0.0]), device)
    assert bool(ddblas.DDArray(0.0, lo0, normalize=False).to_device(device))
    assert not bool(ddblas.DDArray(-0.0, 0.0, normalize=False).to_device(device))


UNNORMALISED_HI = [1.0, 0.5, -2.0, np.inf, -np.inf, 0.0, 1e300, np.inf, -np.inf, np.inf, -np.inf,
                   np.nan]
UNNORMALISED_LO = [np.nan, np.nan, np.nan, np.nan, np.nan, np.inf, -np.inf, np.inf, np.inf, 1.0,
                   -2.0, 1.0]
ELEMENTWISE = ["sqrt", "reciprocal", "exp", "exp2", "expm1", "log", "log1p", "sinh", "cosh",
               "tanh", "arcsinh", "arccosh", "arctan", "arcsin", "sin", "cos", "floor", "rint",
               "sign", "negative", "absolute", "isnan", "isinf", "isfinite"]


@pytest.mark.parametrize("fn", ELEMENTWISE)
def test_pairs_with_a_non_finite_lo_read_as_normalisation_makes_them(fn, device):
    """Review of 2026-11-26: (1, nan) wrapped with normalize=False gave sqrt 1, log1p ln 2,
    tanh (hi, nan); (inf, nan) gave exp inf, tanh 1 ("a DD is nan when either part is"). The
    kernels now read such a pair as DDArray(normalize=True) makes it: nan, or (hi + lo, 0);
    and (inf, 1) as (inf, 0) (log1p, arccosh gave (inf, 1))."""
    assert_reads_as_normalised(fn, np.array(UNNORMALISED_HI), np.array(UNNORMALISED_LO), device)


REDUCTIONS = ["sum", "prod", "cumsum", "cumprod", "mean", "var", "std", "max", "min", "argmax",
              "argmin", "sort", "argsort"]


@pytest.mark.parametrize("fn", REDUCTIONS)
@pytest.mark.parametrize("lo0", [np.nan, np.inf, -np.inf])
def test_reductions_read_unnormalised_pairs_as_normalisation_makes_them(fn, lo0, device):
    """Review of 2026-11-26: (1, nan) beside 2 summed to 3 (dd.h's add replaced the nan sum of
    finite hi parts by hi + hi), max gave 2, and (1, inf) stayed (1, inf) through sum and prod;
    the reductions now read such pairs as DDArray(normalize=True) makes them."""
    assert_reads_as_normalised(fn, np.array([1.0, 2.0, -0.5]), np.array([lo0, 0.0, 0.0]), device)
