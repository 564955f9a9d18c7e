"""Building and reshaping (ddblas.core.building): data movement against the same NumPy function
on exact Fraction object arrays; outer, arange, linspace within their bounds; sort/argsort in DD
order with NaNs last; isclose/allclose; NEP 18; views and devices; bitwise CPU == GPU."""
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
from ddvalues import DIV, MUL, U, dd_value, exact_values, same_bits, to_ddarray

GROWTH = 1 + Fraction(1, 2 ** 40)


def _exact_array(x: ddblas.DDArray) -> np.ndarray:
    return np.array(exact_values(x), dtype=object).reshape(x.shape)


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _same_values(got: ddblas.DDArray, expected: np.ndarray) -> bool:
    return got.shape == expected.shape and exact_values(got) == expected.ravel().tolist()


@st.composite
def matrices(draw, max_side=4):
    shape = (draw(st.integers(1, max_side)), draw(st.integers(1, max_side)))
    pairs = draw(st.lists(dd_value(), min_size=math.prod(shape), max_size=math.prod(shape)))
    return pairs, shape


# ---- data movement: exact, NumPy's semantics ----
@given(matrices(), matrices(), st.integers(-2, 2))
@settings(max_examples=20)
def test_joining(device, first, second, k):
    a = to_ddarray(first[0], device).reshape(first[1])
    b = to_ddarray(second[0], device).reshape(second[1])
    ea, eb = _exact_array(a), _exact_array(b)
    if a.shape[1] == b.shape[1]:
        assert _same_values(ddblas.concatenate([a, b]), np.concatenate([ea, eb]))
        assert _same_values(np.vstack((a, b)), np.vstack([ea, eb]))
    if a.shape[0] == b.shape[0]:
        assert _same_values(np.concatenate((a, b), axis=1), np.concatenate([ea, eb], axis=1))
        assert _same_values(ddblas.hstack([a, b]), np.hstack([ea, eb]))
    assert _same_values(ddblas.concatenate([a, b], axis=None), np.concatenate([ea, eb], None))
    assert _same_values(np.stack([a, a], axis=-1), np.stack([ea, ea], axis=-1))
    assert _same_values(ddblas.tril(a, k), np.tril(ea, k))
    assert _same_values(np.triu(a, k), np.triu(ea, k))
    assert _same_values(np.diag(a, k), np.diag(ea, k))
    assert _same_values(ddblas.diag(ddblas.diag(a)), np.diag(np.diag(ea)))
    assert _same_values(np.diagonal(a, k), np.diagonal(ea, k))
    assert _same_values(np.flip(a), np.flip(ea)) and _same_values(ddblas.flip(a, 1), np.flip(ea, 1))
    assert _same_values(np.roll(a, k), np.roll(ea, k))
    assert _same_values(ddblas.roll(a, k, axis=0), np.roll(ea, k, axis=0))
    assert _same_values(np.broadcast_to(a, (2,) + a.shape), np.broadcast_to(ea, (2,) + a.shape))


def test_joining_mixed_inputs_and_errors(device):
    a = ddblas.array(["0.1", "0.2"], device=device)
    got = ddblas.concatenate([a, np.array([3.0]) if device == "cpu" else a.xp.asarray([3.0])])
    assert exact_values(got)[2] == 3 and exact_values(got)[:2] == exact_values(a)
    with pytest.raises(ValueError, match="at least one"):
        ddblas.stack([])
    with pytest.raises(ValueError, match="zero-dimensional"):   # its 0-d slices, as NumPy
        ddblas.concatenate(a)
    with pytest.raises(TypeError, match="sequence"):
        ddblas.concatenate(a[0])


def test_where(device):
    x = ddblas.array(["0.1", "-0.2", "0.3"], device=device)
    cond = x > 0
    got = np.where(cond, x, "0.5")
    expected = [exact_values(x)[0], Fraction(1, 2), exact_values(x)[2]]
    assert exact_values(got) == expected
    got = ddblas.where(cond[:, None], x, -x[:, None])  # broadcast to (3, 3)
    assert got.shape == (3, 3) and exact_values(got[1]) == [-exact_values(x)[1]] * 3
    assert [_host(i).tolist() for i in ddblas.where(x > 0)] == [[0, 2]]
    assert [_host(i).tolist() for i in np.where(x - x[0])] == [[1, 2]]
    with pytest.raises(ValueError, match="condition"):
        ddblas.where(cond, x)


def test_where_of_a_condition_alone_takes_lists_as_numpy():
    assert [i.tolist() for i in ddblas.where([1, 0, 2])] == [[0, 2]]
    for condition, values in ((([0, 1], [2.5, 0]), [[0, 1], [2.5, 0]]), ([True, False], [1, 0]),
                              (("0", "1e-300", "-0"), [0, 1e-300, -0.0])):
        got, expected = ddblas.where(condition), np.where(np.array(values))
        assert len(got) == len(expected) == np.ndim(values)
        assert all(g.tolist() == e.tolist() for g, e in zip(got, expected))


def test_concatenate_and_outer_write_into_out(device):
    """np.concatenate(..., out=) and np.outer(a, b, out=) (and ddblas's) write into a DDArray
    out and return it, NumPy's rules: concatenate's out exactly the result's shape, outer's
    any shape the result broadcasts to (multiply's); out may be an operand; a wrong shape a
    ValueError and a float64 array or a list a TypeError, each naming out= (out= was an
    unexpected keyword)."""
    tenth = ddblas.array("0.1", device=device)
    a = ddblas.array([1, 3], device=device) + 2.0 ** -60
    b = ddblas.array([2, 4, 8], device=device)
    joined = [1 + Fraction(1, 2 ** 60), 3 + Fraction(1, 2 ** 60), 2, 4, 8]
    for call in (lambda out: np.concatenate([a, b], out=out),
                 lambda out: np.concatenate((a, b), 0, out),
                 lambda out: ddblas.concatenate([a, b], out=out)):
        out = ddblas.zeros(5, device=device)
        assert call(out) is out and exact_values(out) == joined
    out = ddblas.zeros(6, device=device)
    assert np.concatenate([a[:, None], tenth.reshape(1, 1)], axis=None, out=out[1::2]) is not None
    assert exact_values(out) == [0, joined[0], 0, joined[1], 0, exact_values(tenth)[0]]
    ab = ddblas.concatenate([a, b[:2]])   # an operand as out: the result computed first
    assert np.concatenate([ab[2:], ab[:2]], out=ab) is ab
    assert exact_values(ab) == joined[2:4] + joined[:2]
    products = [x * y for x in joined[:2] for y in (2, 4, 8)]   # exact: powers of two times
    for call in (lambda out: np.outer(a, b, out=out), lambda out: np.outer(a, b, out),
                 lambda out: ddblas.outer(a, b, out, fma=False)):
        out = ddblas.zeros((2, 3), device=device)
        assert call(out) is out and exact_values(out) == products
    out = ddblas.zeros((2, 2, 3), device=device)   # broadcast into, as numpy.outer
    assert np.outer(a, b, out=out) is out and exact_values(out) == products * 2
    square = ddblas.array([[1, 2], [3, 4]], device=device)
    assert np.outer(square[0], square[1], out=square) is square   # an operand as out
    assert exact_values(square) == [3, 4, 6, 8]
    for bad in (ddblas.zeros((3, 2), device=device), ddblas.zeros(6, device=device),
                ddblas.zeros((2, 1), device=device)):
        with pytest.raises(ValueError, match=r"^ddblas: outer\(\): out= has shape"):
            np.outer(a, b, out=bad)
    for bad in (ddblas.zeros((5, 1), device=device), ddblas.zeros(6, device=device)):
        with pytest.raises(ValueError, match=r"^ddblas: concatenate\(\): out= has shape"):
            np.concatenate([a, b], out=bad)
    for bad in (np.zeros((2, 3)), [0.0] * 6):
        with pytest.raises(TypeError, match=r"^ddblas: outer\(\): out= must be a DDArray"):
            np.outer(a, b, out=bad)
        with pytest.raises(TypeError, match=r"^ddblas: concatenate\(\): out= must be a "
                                            r"DDArray"):
            np.concatenate([a, b], out=bad)


def test_views_read_only_on_cpu():
    a = ddblas.random((3, 3), seed=1)
    for view in (ddblas.broadcast_to(a[0], (4, 3)), ddblas.diagonal(a)):
        with pytest.raises(ValueError):
            view[0] = 1


def test_like_constructors(device):
    a = ddblas.random((2, 3), seed=2, device=device)[:, ::2]
    for got, value in ((np.zeros_like(a), 0), (ddblas.ones_like(a), 1), (np.empty_like(a), 0),
                       (ddblas.full_like(a, "0.1"), exact_values(ddblas.array("0.1"))[0])):
        assert got.device == device and got.shape == (2, 2)
        assert exact_values(got) == [value] * 4
    assert ddblas.zeros_like(a, shape=(5,)).shape == (5,)
    assert ddblas.full_like(np.zeros((2, 1)), 3).shape == (2, 1)
    with pytest.raises(ValueError, match="scalar"):
        ddblas.full_like(a, [1, 2])


# ---- outer ----
@given(st.lists(dd_value(), min_size=1, max_size=5),
       st.lists(dd_value(), min_size=0, max_size=5))
@settings(max_examples=20)
def test_outer_within_bound(device, variant, xs, ys):
    x, y = to_ddarray(xs, device), to_ddarray(ys, device)
    got = ddblas.outer(x, y, **variant)
    assert got.shape == (len(xs), len(ys)) and np.outer(x, y).shape == got.shape
    exact = [a * b for a in exact_values(x) for b in exact_values(y)]
    assert all(abs(g - e) <= MUL[variant["fma"]] * abs(e) for g, e in zip(exact_values(got), exact))


# ---- sorting ----
@given(st.lists(st.one_of(dd_value(-20, 20), st.sampled_from([(math.nan, 0.0)])), min_size=0,
                max_size=12))
@settings(max_examples=40)
def test_sort_argsort_dd_order_nan_last(device, pairs):
    x = to_ddarray(pairs, device) if pairs else ddblas.zeros((0,), device=device)
    order = _host(ddblas.argsort(x)).tolist()
    keys = [(1, 0) if math.isnan(h) else (0, Fraction(h) + Fraction(lo)) for h, lo in pairs]
    assert order == sorted(range(len(pairs)), key=lambda i: keys[i])  # Python's sort is stable
    got = np.sort(x)
    assert same_bits(got, x[order] if pairs else x)


def test_sort_axes_and_ties(device):
    hi = np.array([[1.0, 1.0, 1.0, -0.0], [0.0, np.inf, -np.inf, 2.0]])
    lo = np.array([[2.0 ** -60, -2.0 ** -60, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    x = ddblas.DDArray(hi, lo).to_device(device)
    assert _host(ddblas.argsort(x, axis=1)).tolist() == [[3, 1, 2, 0], [2, 0, 3, 1]]
    assert _host(np.argsort(x, axis=0, kind="stable")).tolist() == [[1, 0, 1, 0], [0, 1, 0, 1]]
    assert _host(ddblas.argsort(x, axis=None)).tolist() == [6, 3, 4, 1, 2, 0, 7, 5]
    e = 2.0 ** -60
    expected = ddblas.DDArray(np.array([[0.0, 1.0, -np.inf, -0.0], [1.0, np.inf, 1.0, 2.0]]),
                              np.array([[0.0, -e, 0.0, 0.0], [e, 0.0, 0.0, 0.0]]))
    assert same_bits(ddblas.sort(x, axis=0), expected)
    with pytest.raises(ValueError, match="kind"):
        ddblas.sort(x, kind="fast")


@pytest.mark.parametrize("options", [{"stable": True}, {"stable": False}, {"kind": "quick"},
                                     {"kind": "Heap"}, {"kind": "STABLE"}, {"kind": "m"},
                                     {"order": None}, {"kind": None, "stable": None}])
def test_sort_takes_numpys_kind_order_and_stable(device, options):
    """np.sort / np.argsort's order= and stable= (NumPy 2) and NumPy's kind names (any str
    starting with q, h, m or s: 'quick', 'heap') are taken, the DD sort being stable whatever
    they say (stable= and order= were unexpected keywords, 'quick' a ValueError)."""
    pairs = [(1.0, 2.0 ** -60), (np.nan, 0.0), (1.0, 0.0), (-0.0, 0.0), (1.0, 2.0 ** -60),
             (0.0, 0.0)]
    x = ddblas.DDArray(np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs]))
    x = x.to_device(device)
    for argsort in (np.argsort, ddblas.argsort):
        assert _host(argsort(x, **options)).tolist() == [3, 5, 2, 0, 4, 1]
    for sort in (np.sort, ddblas.sort):
        assert same_bits(sort(x, **options), x[[3, 5, 2, 0, 4, 1]])


@pytest.mark.parametrize("options, error, message", [
    ({"kind": "fast"}, ValueError, "sort kind must be one of"),
    ({"kind": ""}, ValueError, "sort kind must be one of"),
    ({"kind": 1}, TypeError, "sort kind must be str, not int"),
    ({"kind": "stable", "stable": True}, ValueError, "can't be provided at the same time"),
    ({"order": "x"}, ValueError, "Cannot specify order when the array has no fields"),
])
def test_sort_option_errors_are_numpys(device, options, error, message):
    x = ddblas.arange(3, device=device)
    for func in (np.sort, np.argsort, ddblas.sort, ddblas.argsort):
        with pytest.raises(error, match=message):
            func(x, **options)
        with pytest.raises(error, match=message):   # NumPy's own, for float64
            getattr(np, func.__name__)(np.arange(3.0), **options)


def test_argsort_of_a_0d_array_reads_it_as_1d(device):
    """np.argsort of a 0-d array is [0] for axis -1, 0 or None, as NumPy's (which reads it as
    its 1-element ravel; it was an AxisError); np.sort of one keeps NumPy's AxisError but for
    axis=None."""
    x = ddblas.array("0.1", device=device)
    for axis in (-1, 0, None):
        assert _host(np.argsort(x, axis=axis)).tolist() == [0] == np.argsort(np.array(0.1),
                                                                            axis=axis).tolist()
    with pytest.raises(np.exceptions.AxisError, match="dimension 1"):
        ddblas.argsort(x, axis=1)
    for axis in (-1, 0):
        with pytest.raises(np.exceptions.AxisError, match="dimension 0"):
            np.sort(x, axis=axis)
    assert same_bits(np.sort(x, axis=None), x.reshape(1))


# ---- ranges ----
def test_linspace_starts_at_start_when_it_scales(device):
    """Review of 2026-11-26: linspace(2^-1074, 1e308, 4) scaled its operands by 2^-k (their
    difference would overflow) and lost the subnormal start: y[0] was 0, not start."""
    for start, stop in ((2.0 ** -1074, 1e308), (-3e-310, -1.7e308), (5e-324, 5e-324)):
        y = ddblas.linspace(start, stop, 4, device=device)
        assert same_bits(y[0], ddblas.array(start)) and same_bits(y[-1], ddblas.array(stop))


def test_linspace_nearest_and_numpy_semantics(device):
    y = ddblas.linspace(0, 1, 11, device=device)
    assert same_bits(y[3], ddblas.array("0.3")) and y.device == device
    for n in range(1, 60):  # measured (docs/algorithms.md): the DD nearest i/n, all i <= n
        nearest = ddblas.array([Fraction(i, n) for i in range(n + 1)], device=device)
        assert same_bits(ddblas.linspace(0, 1, n + 1, device=device), nearest), n
    y, step = ddblas.linspace("0.1", 2, 20, endpoint=False, retstep=True, device=device)
    exact_step = (2 - exact_values(ddblas.array("0.1"))[0]) / 20
    (got_step,) = exact_values(step)
    assert y.shape == (20,) and abs(got_step - exact_step) <= 20 * U ** 2 * exact_step
    assert same_bits(ddblas.linspace(0, 1, 5)[-1], ddblas.array(1))
    assert ddblas.linspace(0, 1, 0).shape == (0,)
    assert np.isnan(float(ddblas.linspace(0, 1, 1, retstep=True)[1].hi))
    assert same_bits(ddblas.linspace(3, 1, 1), ddblas.array([3.0]))
    with pytest.raises(ValueError, match="non-negative"):
        ddblas.linspace(0, 1, -1)
    with pytest.raises(TypeError, match="num"):
        ddblas.linspace(0, 1, 2.5)
    # a NumPy integer num, as numpy.linspace (it raised AttributeError: no bit_length)
    assert same_bits(ddblas.linspace(0, 1, np.int64(3)), ddblas.linspace(0, 1, 3))
    with pytest.raises(ValueError, match="finite"):
        ddblas.linspace(0, np.inf, 3)


@given(dd_value(-30, 30), dd_value(-30, 30), st.integers(2, 40), st.booleans())
@settings(max_examples=20)
def test_linspace_within_bound(device, variant, start, stop, num, endpoint):
    opts = Options(fma=variant["fma"], add=variant["add"])
    c_add, c_div = bound_constant("add", opts), DIV
    s, t = (Fraction(p[0]) + Fraction(p[1]) for p in (start, stop))
    got = exact_values(ddblas.linspace(ddblas.DDArray(*start), ddblas.DDArray(*stop), num,
                                       endpoint, device=device, **variant))
    d = num - 1 if endpoint else num
    bound = (2 * c_add + MUL[variant["fma"]] + c_div) * GROWTH * (abs(s) + abs(t))
    assert all(abs(g - (s + i * (t - s) / d)) <= bound for i, g in enumerate(got))


@given(dd_value(-10, 10), dd_value(-10, 10), dd_value(-12, 2, allow_zero=False))
@settings(max_examples=20)
def test_arange_count_and_bound(device, variant, start, stop, step):
    s, t, h = (Fraction(p[0]) + Fraction(p[1]) for p in (start, stop, step))
    count = max(math.ceil((t - s) / h), 0)
    if count > 5000:
        return
    got = exact_values(ddblas.arange(ddblas.DDArray(*start), ddblas.DDArray(*stop),
                                     ddblas.DDArray(*step), device=device, **variant))
    assert len(got) == count
    c_add, c_mul = bound_constant("add", Options(**variant)), MUL[variant["fma"]]
    for i, g in enumerate(got):
        assert abs(g - (s + i * h)) <= (c_add + c_mul + c_add * c_mul) * (abs(s) + abs(i * h))


@pytest.mark.parametrize("start, stop, num, endpoint", [
    (0.0, 1e308, 5, True), (0.0, 1.7e308, 4, True), (-1e308, 1e308, 3, True),
    (-1.7e308, 1.7e308, 1000, False), (1.5e308, -1.7e308, 7, True)])
def test_linspace_near_dbl_max(device, start, stop, num, endpoint):
    """stop - start and i (stop - start) pass DBL_MAX while the values do not: every value
    finite and within the bound (they were inf and nan; NumPy's are too in the last cases)."""
    got = exact_values(ddblas.linspace(start, stop, num, endpoint, device=device))
    s, t = Fraction(start), Fraction(stop)
    d = num - 1 if endpoint else num
    c_add, c_mul = bound_constant("add", Options()), MUL[Options().fma]
    bound = (2 * c_add + c_mul + DIV) * GROWTH * (abs(s) + abs(t))
    assert all(abs(g - (s + i * (t - s) / d)) <= bound for i, g in enumerate(got))
    _, step = ddblas.linspace(start, stop, num, endpoint, retstep=True, device=device)
    assert abs(exact_values(step.reshape(1))[0] - (t - s) / d) <= bound


def test_arange_near_dbl_max(device):
    """i step passes DBL_MAX while start + i step does not: finite, within the bound (inf
    before, from 1.7e308 - 1.7e308 + ...)."""
    s, h = Fraction(-1.7e308), Fraction(1e307)
    got = exact_values(ddblas.arange(-1.7e308, 1.7e308, 1e307, device=device))
    assert len(got) == 34
    c_add, c_mul = bound_constant("add", Options()), MUL[Options().fma]
    for i, g in enumerate(got):
        assert abs(g - (s + i * h)) <= (c_add + c_mul + c_add * c_mul) * (abs(s) + abs(i * h))
    with pytest.raises(ValueError, match=r"about 10\^600 elements, more than 2\^53"):
        ddblas.arange(0, 1e300, 1e-300)   # the count in a few characters, not 600 digits


def test_arange_forms_and_errors(device):
    assert exact_values(ddblas.arange(4, device=device)) == [0, 1, 2, 3]
    got = ddblas.arange("0.1", 1, "0.1", device=device)
    # The DD nearest 0.1 is below 1/10, so (1 - 0.1) / 0.1 > 9: ten values, as float64 arange.
    assert got.shape == (10,) and exact_values(got)[9] < 1
    assert ddblas.arange(1, 0).shape == (0,)
    with pytest.raises(ZeroDivisionError):
        ddblas.arange(0, 1, 0)
    with pytest.raises(ValueError, match="finite"):
        ddblas.arange(0, np.nan)


# ---- isclose / allclose ----
def test_isclose_dd_tolerances(device):
    one = ddblas.array(1, device=device)
    near, far = one + 2.0 ** -104, one + 2.0 ** -96
    assert bool(ddblas.isclose(one, near)) and not bool(np.isclose(one, far))
    assert np.allclose(far, one, rtol="1e-28") and not ddblas.allclose(far, one, rtol=0)
    assert bool(ddblas.isclose(ddblas.array(0.0), 2.0 ** -201))
    assert not bool(ddblas.isclose(0.0, ddblas.array(2.0 ** -150)))
    special = np.array([np.inf, -np.inf, np.nan, np.inf, 1.0])
    other = np.array([np.inf, np.inf, np.nan, 1.0, np.inf])
    a, b = ddblas.DDArray(special).to_device(device), ddblas.DDArray(other).to_device(device)
    for equal_nan in (False, True):
        assert np.array_equal(_host(ddblas.isclose(a, b, equal_nan=equal_nan)),
                              np.isclose(special, other, equal_nan=equal_nan))


@pytest.mark.gpu
def test_gpu_equals_cpu_bitwise(device):
    if device != "gpu":
        pytest.skip("compares the GPU with the CPU")
    cpu = ddblas.random((6, 5), seed=7) - 0.5
    cpu[1, 2] = np.nan
    gpu = cpu.to_device("gpu")
    for func in (lambda x: ddblas.sort(x, axis=0), lambda x: ddblas.sort(x, axis=None),
                 lambda x: ddblas.outer(x[0], x[:, 1]), lambda x: ddblas.tril(x, -1),
                 lambda x: ddblas.concatenate([x, x], axis=1), lambda x: ddblas.where(x > 0, x, 1)):
        assert same_bits(func(gpu), func(cpu))
    assert np.array_equal(ddblas.argsort(gpu, axis=0).get(), ddblas.argsort(cpu, axis=0))
    for args in ((0, 1, 11), ("0.1", 7, 33, False)):
        assert same_bits(ddblas.linspace(*args, device="gpu"), ddblas.linspace(*args))
    assert same_bits(ddblas.arange("0.1", 3, "0.07", device="gpu"), ddblas.arange("0.1", 3, "0.07"))
    with pytest.raises(ValueError, match="different devices"):
        ddblas.concatenate([cpu, gpu])
