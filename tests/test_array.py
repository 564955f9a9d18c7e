"""DDArray: construction from every accepted input, attributes, views, conversions, errors."""
from __future__ import annotations

import collections
import copy
import decimal
import math
import re
import operator
from fractions import Fraction

import mpmath
import numpy as np
import numpy.ma as ma  # before anything imports xprec (its finfo breaks numpy.ma's import)
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ddblas
from ddvalues import U, exact_values, is_normalized, same_bits


@given(st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(
    lambda d: d == 0 or 1e-250 < abs(d) < 1e250))
def test_decimal_strings_parse_to_the_nearest_dd(device, d):
    x = ddblas.array(str(d), device=device)
    (v,) = exact_values(x)
    exact = Fraction(d)
    assert abs(v - exact) <= U ** 2 * abs(exact)
    assert is_normalized(x)


def test_scalar_inputs_are_exact_where_dd_can_hold_them(device):
    cases = {
        "0.1": Fraction(1, 10), 3: Fraction(3), 2 ** 100 + 1: Fraction(2 ** 100 + 1),
        Fraction(1, 3): Fraction(1, 3), 0.1: Fraction(0.1), np.float32(0.1): Fraction(float(np.float32(0.1))),
        decimal.Decimal("1.25e-7"): Fraction(decimal.Decimal("1.25e-7")), True: Fraction(1),
        np.int64(-(2 ** 62) - 1): Fraction(-(2 ** 62) - 1),
    }
    for value, exact in cases.items():
        (v,) = exact_values(ddblas.array(value, device=device))
        assert abs(v - exact) <= U ** 2 * abs(exact), value
    assert exact_values(ddblas.array(2 ** 100 + 1)) == [Fraction(2 ** 100 + 1)]


def test_mpmath_inputs_and_round_trip(device):
    with mpmath.workprec(300):
        third = mpmath.mpf(1) / 3
        m = mpmath.matrix([[third, mpmath.pi], [mpmath.e, -third]])
    x = ddblas.array(m, device=device)
    assert x.shape == (2, 2)
    y = ddblas.from_mpmath(third, device=device)
    (v,) = exact_values(y)
    assert abs(v - Fraction(1, 3)) <= U ** 2 / 3 * (1 + U)
    # to_mpmath is exact, and from_mpmath(to_mpmath(x)) == x
    back = ddblas.from_mpmath(x.to_mpmath(), device=device)
    assert exact_values(back) == exact_values(x)
    assert isinstance(y.to_mpmath(), mpmath.mpf)
    values = ddblas.array(["1", "2", "3"], device=device).to_mpmath()  # 1-D: a list of mpf
    assert values == [1, 2, 3] and all(isinstance(v, mpmath.mpf) for v in values)
    with pytest.raises(ValueError, match="3-D"):
        ddblas.zeros((1, 1, 1)).to_mpmath()


def test_empty_arrays_keep_their_shape_through_mpmath(device):
    for shape in ((0, 3), (3, 0), (0, 0), (0,)):
        values = ddblas.zeros(shape, device=device).to_mpmath()
        assert ddblas.from_mpmath(values, device=device).shape == shape
        if len(shape) == 2:
            assert (values.rows, values.cols) == shape
    assert ddblas.from_mpmath(mpmath.matrix(0, 4)).shape == (0, 4)


def test_nested_lists_and_arrays(device):
    x = ddblas.array([["0.1", 2], [Fraction(1, 3), mpmath.mpf(0.5)]], device=device)
    assert x.shape == (2, 2) and x.ndim == 2 and x.size == 4 and x.device == device
    assert exact_values(x)[1] == 2
    big = np.array([2 ** 62 + 1, -3], dtype=np.int64)
    assert exact_values(ddblas.array(big)) == [Fraction(2 ** 62 + 1), Fraction(-3)]
    obj = np.array(["0.5", Fraction(1, 4)], dtype=object)
    assert exact_values(ddblas.array(obj)) == [Fraction(1, 2), Fraction(1, 4)]
    assert ddblas.array([]).shape == (0,)
    with pytest.raises(ValueError, match="ragged"):
        ddblas.array([[1, 2], [3]])
    with pytest.raises(ValueError, match="'1.2.3'"):
        ddblas.array(["1.2.3"])
    with pytest.raises(TypeError, match="complex"):
        ddblas.array(np.array([1j]))
    with pytest.raises(TypeError, match="dict"):
        ddblas.array({"a": 1})


def test_sequences_nest_as_in_numpy_but_not_text_or_bytes(device):
    """range and other Sequences are levels of nesting as lists are (range had been refused)."""
    for obj in (range(3), [range(2), (5, 6)], collections.deque([1.5, 2]), range(0)):
        x = ddblas.array(obj, device=device)
        assert x.shape == np.array(obj).shape
        assert exact_values(x) == [Fraction(v) for v in np.array(obj, dtype=float).ravel()]
    assert exact_values(ddblas.array(["1", "2"])) == [1, 2]  # strings are numbers, not nesting
    for obj in (b"12", bytearray(b"12"), memoryview(b"12"), {1, 2}, {1: 2}, [b"1"]):
        with pytest.raises(TypeError):
            ddblas.array(obj, device=device)


def test_arrays_in_lists_nest_as_in_numpy(device):
    one = ddblas.ones((1, 1), device=device)
    assert ddblas.array([one, one]).shape == np.array([np.ones((1, 1))] * 2).shape == (2, 1, 1)
    x = ddblas.array([ddblas.ones(1, device=device), [2.0]])
    assert x.shape == (2, 1) and exact_values(x) == [1, 2]
    third = np.longdouble(1) / np.longdouble(3)  # converted exactly, not through a float
    xp = np if device == "cpu" else pytest.importorskip("cupy")
    mixed = ddblas.array([[ddblas.array(Fraction(1, 3), device=device), "0.5"],
                          np.array([third, 2]), xp.array([-0.0, 3.0])])
    assert mixed.shape == (3, 2)
    assert exact_values(mixed)[1:] == [Fraction(1, 2), Fraction(*third.as_integer_ratio()),
                                       2, 0, 3]
    assert np.signbit(mixed.hi[2, 0])
    assert ddblas.array([ddblas.zeros((0, 2)), ddblas.zeros((0, 2))]).shape == (2, 0, 2)
    with pytest.raises(ValueError, match=r"ragged: its items have shapes \[\(\), \(2,\)\]"):
        ddblas.array([ddblas.ones(2, device=device), 1.0])


def test_nesting_is_limited_to_numpys_64_dimensions():
    nested = [1.0]
    for _ in range(63):
        nested = [nested]
    assert ddblas.array(nested).shape == (1,) * 64
    for depth in (65, 3000):
        nested = [1.0]
        for _ in range(depth - 1):
            nested = [nested]
        with pytest.raises(ValueError, match="more than 64 levels deep"):
            ddblas.array(nested)


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_numpy_subclasses_convert_as_plain_arrays():
    matrix = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    for x in (ddblas.asarray(matrix), ddblas.array(matrix), ddblas.DDArray(matrix, matrix * 0)):
        assert type(x.hi) is np.ndarray and type(x.lo) is np.ndarray
        assert x[0].shape == (2,) and x.ravel().shape == (4,)  # not matrix rows (1, 2)
        assert exact_values(x) == [1, 2, 3, 4]
    big = ddblas.array(np.matrix([[2 ** 60 + 1]]))
    assert type(big.hi) is np.ndarray and exact_values(big) == [2 ** 60 + 1]
    unmasked = ddblas.asarray(ma.array([1.0, 2.0], mask=[False, False]))
    assert type(unmasked.hi) is np.ndarray and exact_values(ddblas.sum(unmasked)) == [3]
    holes = ma.array([1.0, 2.0, 3.0], mask=[False, True, False])
    # the value itself, not ddblas.array's parameter: operators (x + m) and named_operand
    # ("b: a value is ...") report through it too
    for convert, name in ((ddblas.array, "a value"), (ddblas.asarray, "a value"),
                          (ddblas.DDArray, "DDArray hi"),
                          (lambda m: ddblas.ones(3) + m, "a value")):
        with pytest.raises(ValueError, match=f"^{name} is a masked array with masked values"):
            convert(holes)
    with pytest.raises(ValueError, match="DDArray lo is a masked array"):
        ddblas.DDArray(np.zeros(3), holes)


def test_masked_arrays_on_the_left_of_an_operator_raise_a_clear_type_error(device):
    """m + x, m == x... for a NumPy masked array m: NumPy's MaskedArray defers to no type that
    has an __array_ufunc__ method and converts x with np.array, which a DDArray refuses (it
    would drop lo): the TypeError now says so and how to write it (the message had named
    only to_float64, hi/lo and to_mpmath). The ufunc, np.add(m, x), and x on the left run in
    DD; masked values are refused (a ValueError), as by ddblas.asarray."""
    tiny = Fraction(1, 2 ** 60)   # 1 + tiny is a DD, and so is every difference below
    x = ddblas.array([1 + tiny, 2, 3], device=device)
    m = ma.array([1.0, 0.5, 4.0])
    holes = ma.array([1.0, 0.5, 4.0], mask=[False, True, False])
    for left in (m, holes):
        for op in (operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
                   operator.eq, operator.ne, operator.lt, operator.ge):
            with pytest.raises(TypeError, match=r"A NumPy masked array m's operators \(m \+ x, "
                                                r"m == x...\) convert x so: convert m instead, "
                                                r"ddblas.asarray\(m.filled\(value\)\) \+ x"):
                op(left, x)
    converted = ddblas.asarray(holes.filled(0.5), device=device)
    assert exact_values(converted - x) == [-tiny, Fraction(-3, 2), 1]
    if device == "cpu":   # a host m beside a GPU x: a ValueError (two devices)
        assert exact_values(np.subtract(m, x)) == exact_values(x.__rsub__(m)) == \
            [-tiny, Fraction(-3, 2), 1]
        assert np.less(m, x).tolist() == [True, True, False]
    with pytest.raises(ValueError, match="masked array with masked values"):
        x + (holes if device == "cpu" else ddblas.asarray(holes, device=device))


def test_special_strings():
    hi = ddblas.array(["inf", "-inf", "nan", "1e400", "-1e400"]).hi
    assert hi[0] == np.inf and hi[1] == -np.inf and np.isnan(hi[2])
    assert hi[3] == np.inf and hi[4] == -np.inf
    zeros = ddblas.array(["-0.0", "0", "-0e5"]).hi
    assert np.signbit(zeros).tolist() == [True, False, True]


def test_array_copies_and_asarray_does_not(device):
    xp = np if device == "cpu" else pytest.importorskip("cupy")
    data = xp.arange(4, dtype=np.float64)
    a = ddblas.array(data)
    b = ddblas.asarray(data)
    data[0] = 99.0
    assert float(a[0]) == 0.0 and float(b[0]) == 99.0
    assert ddblas.asarray(b) is b
    assert ddblas.array(b) is not b and exact_values(ddblas.array(b)) == exact_values(b)


def test_ddarray_constructor_wraps_and_validates():
    hi, lo = np.array([1.0, 2.0]), np.array([2.0 ** -60, 0.0])
    x = ddblas.DDArray(hi, lo)
    assert x.hi is hi and x.lo is lo
    assert exact_values(ddblas.DDArray(hi)) == [1, 2]
    with pytest.raises(TypeError, match="float64"):
        ddblas.DDArray(np.ones(2, dtype=np.float32), np.zeros(2))
    with pytest.raises(ValueError, match=r"\(2,\) and \(3,\)"):
        ddblas.DDArray(np.ones(2), np.zeros(3))


def test_creation_functions(device):
    assert exact_values(ddblas.zeros((2, 3), device=device)) == [0] * 6
    assert exact_values(ddblas.ones(3, device=device)) == [1] * 3
    f = ddblas.full((2,), "0.1", device=device)
    assert exact_values(f) == exact_values(ddblas.array(["0.1", "0.1"]))
    for x in (ddblas.full((2,), "-0.0", device=device), ddblas.array(-0.0, device=device),
              ddblas.array([-0.0], device=device)):
        assert bool(np.signbit(x.to_device("cpu").hi).all())
    e = ddblas.eye(3, 4, k=1, device=device)
    assert e.shape == (3, 4) and exact_values(e)[1] == 1 and exact_values(e)[0] == 0
    for f in (ddblas.zeros, ddblas.ones, ddblas.random):
        assert f((2,), device=device).device == device
    with pytest.raises(ValueError, match="'tpu'"):
        ddblas.zeros(3, device="tpu")


def test_random_has_106_random_bits_and_is_reproducible(device):
    x = ddblas.random((2000,), seed=42, device=device)
    assert is_normalized(x)
    values = exact_values(x)
    assert all(0 <= v < 1 and (v * 2 ** 106).denominator == 1 for v in values)
    # The low 53 bits are random: their parity is about half ones, and lo is rarely zero.
    low = [int(v * 2 ** 106) % 2 ** 53 for v in values]
    assert 900 < sum(b & 1 for b in low) < 1100
    assert sum(1 for v in values if (v * 2 ** 60).denominator == 1) < 5
    assert exact_values(ddblas.random((2000,), seed=42)) == values  # same on every device
    assert exact_values(ddblas.random((5,), seed=1)) != exact_values(ddblas.random((5,), seed=2))


def test_indexing_gives_views_like_numpy(device):
    a = ddblas.random((4, 5), seed=1, device=device)
    row = a[1]
    assert row.shape == (5,)
    row[2] = "0.25"
    assert exact_values(a[1, 2]) == [Fraction(1, 4)]
    assert a[1:3, ::2].shape == (2, 3) and a.T.shape == (5, 4)
    a[:, 0] = 7
    assert exact_values(a[:, 0]) == [7] * 4
    mask = a.hi[0] > 0.5 if device == "cpu" else a.hi[0] > 0.5
    assert a[0][mask].size == int(mask.sum())
    c = a.copy()
    c[0, 0] = 1
    assert exact_values(a[0, 0]) == [7]
    assert [exact_values(r) for r in a] == [exact_values(a[i]) for i in range(4)]
    assert len(a) == 4
    assert a.reshape(20).shape == (20,) and a.reshape(2, 10).shape == (2, 10)
    assert a.transpose().shape == (5, 4) and a.ravel().shape == (20,)


def test_scalar_conversions_and_printing(device):
    x = ddblas.array("0.1", device=device)
    assert float(x) == 0.1 and float(x.to_float64()) == 0.1
    assert repr(x) == f"DDArray(0.1, device='{device}')"  # shortest round-trip string
    assert str(ddblas.array(Fraction(1, 3), device=device)) == "3.3333333333333333333333333333333e-01"
    assert str(ddblas.array(-0.0)) == "-0.0000000000000000000000000000000e+00"
    assert "inf" in str(ddblas.array(["inf", "1"]))
    with pytest.raises(TypeError, match="only 0-dimensional arrays"):
        float(ddblas.ones(2))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(ddblas.ones(2))
    big = repr(ddblas.zeros(10000))
    assert "..." in big and len(big) < 5000


def test_negative_zero_keeps_its_sign_in_every_float_conversion(device):
    """A normalised pair has fl(hi + lo) = hi; the sum (-0.0) + 0.0 would be +0.0."""
    x = ddblas.array(["-0.0", "0.0", "0.1", "-inf"], device=device)
    floats = [float(x[0]), x[0].item(kind="float"), x.item(0, kind="float"),
              x.tolist(kind="float")[0], x[0].tolist(kind="float")]
    assert [math.copysign(1.0, v) for v in floats] == [-1.0] * 5
    assert x.tolist(kind="float")[1:] == [0.0, 0.1, -math.inf]
    for arrays in (x.to_float64(), x.astype(np.float64), x.astype(float), x.astype("f8")):
        host = arrays if device == "cpu" else arrays.get()
        assert np.signbit(host).tolist() == [True, False, False, True]
        assert host.tolist() == [0.0, 0.0, 0.1, -math.inf]
    f = x.to_float64()
    f[0] = 5.0  # a new array: x is unchanged
    assert x.tolist(kind="float")[0] == 0.0 and math.copysign(1.0, float(x[0])) == -1.0


def test_copy_copy_and_deepcopy_do_not_share_memory(device):
    a = ddblas.array(["1", "0.1"], device=device)
    for c in (copy.copy(a), copy.deepcopy(a)):
        assert exact_values(c) == exact_values(a)
        c[0] = 99
        assert exact_values(a)[0] == 1 and exact_values(c)[0] == 99
        assert c.device == device


def test_binary_operators_defer_to_types_that_refuse_ufuncs(device):
    """NEP 13, as NumPy's operators: an operand whose type sets __array_ufunc__ = None (e.g. a
    DDDaskArray) gets the operation through its reflected operator."""
    reflected = {operator.add: "__radd__", operator.sub: "__rsub__", operator.mul: "__rmul__",
                 operator.truediv: "__rtruediv__", operator.matmul: "__rmatmul__",
                 operator.pow: "__rpow__", operator.eq: "__eq__", operator.ne: "__ne__",
                 operator.lt: "__gt__", operator.le: "__ge__", operator.gt: "__lt__",
                 operator.ge: "__le__"}
    methods = {name: (lambda name: lambda self, other: (name, other))(name)
               for name in reflected.values()}
    deferring = type("Deferring", (), {"__array_ufunc__": None, **methods})()
    x = ddblas.ones(3, device=device)
    for op, name in reflected.items():
        got = op(x, deferring)
        assert got[0] == name and got[1] is x, name
    with pytest.raises(TypeError):  # no forward operator on its side: nobody answers
        deferring + x
    with pytest.raises(TypeError):  # in place: NumPy's rule too, no deferring
        x += deferring
    assert exact_values(x + 1) == [2] * 3 and (x == None).tolist() == [False] * 3  # noqa: E711


def test_device_errors_without_gpu(monkeypatch):
    from ddblas.engines import backend as _backend
    from ddblas.engines import gpu as _gpu
    monkeypatch.setattr(_gpu, "available", lambda: False)
    _backend.backend.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="no GPU"):
            ddblas.ones(3).to_device("gpu")
    finally:
        _backend.backend.cache_clear()


def test_reshape_and_ravel_of_differently_laid_out_parts_are_views_or_copies_of_both(device):
    """Review of 2026-11-25: asarray(strided view) has a strided hi and a contiguous lo, and
    ravel() returned a copy of hi with a view of lo: a write through it left X's element with
    hi = 0 and lo = -5.55e-18. Both parts are now views, or both copies."""
    xp = ddblas.zeros(1, device=device).xp
    for reshape in (lambda x: x.ravel(), lambda x: x.reshape(4), lambda x: x.reshape(2, 2)):
        base = xp.zeros((2, 4))
        x = ddblas.asarray(base[:, ::2])
        before = (x.hi.copy(), x.lo.copy())
        r = reshape(x)
        r[0] = "0.1"
        written = bool(x.hi[0, 0] != 0)
        assert bool(x.lo[0, 0] != 0) == written
        if not written:
            assert same_bits(x.hi, before[0]) and same_bits(x.lo, before[1])


def test_hi_and_lo_sharing_memory_are_separated(device):
    """Review of 2026-11-25: DDArray(z, z) of zeros kept one array as both parts, and x += 0.1
    then wrote hi and lo into it (value -1.1e-17)."""
    xp = ddblas.zeros(3, device=device).xp
    for normalize in (True, False):
        z = xp.zeros(3)
        x = ddblas.DDArray(z, z, normalize=normalize)
        x += "0.1"
        assert exact_values(x) == exact_values(ddblas.array(["0.1"] * 3))


def test_copy_and_reshape_take_numpys_order_and_copy(device):
    """x.copy(order), np.copy(x, order) (default 'K'), x.reshape(..., order=, copy=) and
    np.reshape(x, shape, order, copy=) follow NumPy: the layout of copies, the index order of
    reshapes ('A': 'F' for Fortran-ordered parts), views where NumPy gives views, copy=False a
    ValueError where it cannot, NumPy's errors for a bad order (they were TypeErrors:
    unexpected keyword)."""
    host = np.arange(1.0, 25.0).reshape(2, 3, 4)
    x = ddblas.array(host, device=device) + 2.0 ** -70
    exact = np.array(exact_values(x), dtype=object).reshape(x.shape)
    layout = lambda p: (bool(p.flags.c_contiguous), bool(p.flags.f_contiguous))  # noqa: E731
    shares = x.xp.may_share_memory
    views = lambda s: (s, s.T, s[:, ::2], s.transpose(2, 0, 1), s[:1, :1])  # noqa: E731
    for ref, a, values in zip(views(host), views(x), views(exact)):
        for order in ("C", "F", "A", "K", "c", None):
            for got, want in ((np.copy(a, order=order), np.copy(ref, order=order)),
                              (a.copy(order), ref.copy(order))):
                assert layout(got.hi) == layout(got.lo) == layout(want)
                assert not shares(got.hi, a.hi) and not shares(got.lo, a.lo)
                assert exact_values(got) == values.ravel().tolist()
            if order in ("K", "c"):
                continue
            for shape in ((a.size,), (2, -1), (-1, 2, 1)):
                want = np.reshape(ref, shape, order=order)
                expected = np.reshape(values, shape, order=order).ravel().tolist()
                for got in (np.reshape(a, shape, order=order), a.reshape(shape, order=order),
                            a.reshape(*shape, order=order), np.reshape(a, shape, order)):
                    assert got.shape == want.shape and exact_values(got) == expected
                    assert shares(got.hi, a.hi) == shares(got.lo, a.lo) == \
                        np.shares_memory(want, ref)
                copied = np.reshape(a, shape, order=order, copy=True)
                assert exact_values(copied) == expected and not shares(copied.hi, a.hi) \
                    and not shares(copied.lo, a.lo)
                if np.shares_memory(want, ref):
                    view = a.reshape(shape, order=order, copy=False)
                    assert exact_values(view) == expected and shares(view.lo, a.lo)
                else:
                    with pytest.raises(ValueError, match="^Unable to avoid creating a copy"):
                        np.reshape(a, shape, order=order, copy=False)
    for bad, error in (("X", ValueError), ("", ValueError), ("CF", ValueError), (1, TypeError)):
        for call in (lambda: x.copy(bad), lambda: np.copy(x, order=bad),
                     lambda: x.reshape(24, order=bad), lambda: np.reshape(x, 24, bad)):
            with pytest.raises(error, match="^order must be"):
                call()
    with pytest.raises(ValueError, match="^order 'K' is not permitted for reshaping"):
        np.reshape(x, 24, order="K")


def test_matmul_in_place_and_read_only_parts():
    """Review of 2026-11-25: @= rebound the name to a new array (NumPy writes in place and
    refuses a new shape); a write to a DDArray whose lo is read-only changed hi first."""
    a = ddblas.eye(2)
    alias = a
    a @= ddblas.full((2, 2), 2.0)
    assert alias is a and same_bits(a.hi, np.full((2, 2), 2.0))
    with pytest.raises(ValueError, match="does not fit"):
        b = ddblas.ones((2, 3))
        b @= ddblas.ones((3, 4))
    lo = np.zeros(3)
    lo.flags.writeable = False
    r = ddblas.DDArray(np.arange(3.0), lo)
    with pytest.raises(ValueError, match="read-only"):
        r += ddblas.array("0.1")
    assert same_bits(r.hi, np.arange(3.0))


def test_is_writable_is_the_one_check_of_assignment_out_and_blas_outputs(device):
    """ddblas.core.array.is_writable: a DDArray is writable when both parts are, a NumPy array by
    its writeable flag, a CuPy array always; x[...] = v, a ufunc's out= and rgemv's y refuse a
    read-only array by it, each with its own message naming its argument (three copies of
    the flag test had been written out, one in each)."""
    from ddblas.core.array import is_writable
    x = ddblas.ones(3, device=device)
    assert is_writable(x) and is_writable(x.hi)
    if device == "gpu":   # CuPy has no read-only arrays
        assert is_writable(ddblas.broadcast_to(x[:1], (3,)))
        return
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    assert not is_writable(frozen) and is_writable(np.zeros(3))
    for read_only in (ddblas.DDArray(np.ones(3), frozen), ddblas.DDArray(frozen, np.zeros(3)),
                      ddblas.broadcast_to(x[:1], (3,))):
        assert not is_writable(read_only)
        with pytest.raises(ValueError, match=r"^assignment destination is read-only \(a part"):
            read_only[0] = 2
        with pytest.raises(ValueError, match=r"^ddblas: ufunc 'add': output array is read-only"):
            np.add(x, x, out=read_only)
    truth = np.zeros(3, dtype=bool)
    truth.flags.writeable = False
    with pytest.raises(ValueError, match=r"^ddblas: ufunc 'less': output array is read-only"):
        np.less(x, x, out=truth)
    y = ddblas.DDArray(frozen, np.zeros(3))
    with pytest.raises(ValueError, match="^y is read-only: rgemv overwrites y"):
        ddblas.rgemv(ddblas.eye(3), x, y)
    assert exact_values(x) == [1] * 3 and same_bits(frozen, np.zeros(3))


def test_ufunc_out_follows_numpy(device):
    """out= of a ufunc, NumPy's rules: the operands must broadcast to out's shape, which may be
    larger than theirs (it was refused, as was a bool result into a DDArray); a tuple of one;
    an operand as out (the answer as if the operands were copied first); a read-only out a
    ValueError before anything is written; a float64 out for a DD result a TypeError (it
    would drop lo)."""
    tenth = ddblas.array(2.0 ** -70, device=device)   # DD sums of these are exact
    x = ddblas.array([1, 2, 3], device=device) + 2.0 ** -60
    t = Fraction(1, 2 ** 70)
    want = [k + Fraction(1, 2 ** 60) + t for k in (1, 2, 3)]
    for call in (lambda out: np.add(x, tenth, out=out), lambda out: np.add(x, tenth, out),
                 lambda out: np.add(x, tenth, out=(out,)), lambda out: np.add(tenth, x, out=out)):
        out = ddblas.zeros((2, 3), device=device)
        assert call(out) is out and exact_values(out) == want * 2
    out = ddblas.zeros((2, 2, 3), device=device)
    assert np.negative(tenth, out=out) is out and exact_values(out) == [-t] * 12
    host = np.zeros((2, 3))
    assert np.add(np.ones(3), 1, out=host) is host and host.tolist() == [[2.0] * 3] * 2
    for shape in ((3,), (3, 1), (2, 1, 1)):   # NumPy's ValueError, out left as it was
        out = ddblas.zeros(shape, device=device)
        with pytest.raises(ValueError, match="non-broadcastable output operand|broadcast "
                                             "together"):
            np.add(x, ddblas.ones((2, 1), device=device), out=out)
        assert exact_values(out) == [0] * out.size
    with pytest.raises(ValueError, match="broadcast"):
        np.add(x, 1, out=ddblas.zeros(2, device=device))
    with pytest.raises(ValueError, match="one entry per ufunc output"):
        np.add(x, 1, out=(ddblas.zeros(3, device=device),) * 2)
    # bool results go into a DDArray (0 and 1) or a NumPy array of any dtype (NumPy's casts)
    less = ddblas.zeros((2, 3), device=device)
    assert np.less(x, "2.5", out=less) is less and exact_values(less) == [1, 1, 0] * 2
    if device == "cpu":
        flags = np.zeros((2, 3), dtype=np.int8)
        assert np.greater(x, 2, out=flags) is flags and flags.tolist() == [[0, 1, 1]] * 2
    # an operand as out: its old values are read first (y[::-1] + y into y)
    y = x.copy()
    (a, b, c) = exact_values(y)
    assert np.add(y[::-1], y, out=y) is y and exact_values(y) == [a + c, 2 * b, a + c]
    z = x.copy()
    assert np.multiply(z[:, None], z, out=ddblas.zeros((3, 3), device=device)).shape == (3, 3)
    # errors leave out untouched
    if device == "cpu":   # CuPy has no read-only arrays
        with pytest.raises(ValueError, match="read-only"):
            np.add(x, 1, out=ddblas.broadcast_to(ddblas.zeros(3), (2, 3)))
    host = np.zeros(3)
    with pytest.raises(TypeError, match="must be a DDArray for a DD result.*lo part"):
        np.add(x, 1, out=host)
    with pytest.raises(TypeError, match="must be a DDArray for a DD result"):
        host += x
    with pytest.raises(TypeError, match="must be a DDArray or a NumPy/CuPy array"):
        np.add(x, 1, out=([0.0] * 3,))
    assert host.tolist() == [0.0] * 3


def test_ufunc_keywords_follow_numpy(device):
    """where=, dtype=, casting=, order=, subok=, signature= of a ufunc on DDArrays: NumPy's
    defaults passed explicitly were refused (np.add(x, 1, where=True) raised a TypeError);
    where= writes out only where it holds (0 elsewhere without out=), broadcast with the
    operands and out; dtype= ddblas.dd (bool for comparisons) changes nothing, float64 is a
    TypeError (a float64 loop would round); casting "no" allows DDArray operands only."""
    x = ddblas.array([1, 2, 3], device=device) + 2.0 ** -60
    plus = [k + 1 + Fraction(1, 2 ** 60) for k in (1, 2, 3)]
    for options in (dict(dtype=None), dict(where=True), dict(casting="same_kind"),
                    dict(order="K"), dict(order="f"), dict(subok=True), dict(signature=None),
                    dict(dtype="dd"), dict(dtype=ddblas.dd), dict(casting="unsafe")):
        assert exact_values(np.add(x, 1, **options)) == plus
    out = ddblas.full((2, 3), 7, device=device)
    got = np.add(x, 1, out=out, where=[[True, False, True], [False, True, False]])
    assert got is out and exact_values(out) == [plus[0], 7, plus[2], 7, plus[1], 7]
    assert exact_values(np.add(x, 1, where=[[True], [False]])) == plus + [0, 0, 0]
    assert exact_values(np.add(x, 1, where=0)) == [0, 0, 0]
    flags = np.less(x, 2, out=ddblas.ones(3, device=device), where=[False, True, True])
    assert exact_values(flags) == [1, 0, 0]
    host = lambda r: (r.get() if hasattr(r, "get") else r).tolist()  # noqa: E731
    assert host(np.less(x, 3, where=[True, True, False])) == [True, True, False]
    assert host(np.less(x, x[::-1], casting="no", dtype=bool)) == [True, False, False]
    with pytest.raises(TypeError, match="rule 'safe'"):
        np.add(x, 1, where=np.array([1, 0, 1]))
    with pytest.raises(ValueError, match="non-broadcastable output operand"):
        np.add(x, 1, out=ddblas.zeros(3, device=device), where=np.ones((2, 3), dtype=bool))
    with pytest.raises(TypeError, match="dtype=.*float64.*ddblas.dd"):
        np.add(x, 1, dtype=np.float64)
    with pytest.raises(TypeError, match="input 1 .*casting rule 'no'"):
        np.add(x, 1, casting="no")
    with pytest.raises(ValueError, match="casting must be one of"):
        np.add(x, x, casting="SAFE")
    with pytest.raises(ValueError, match="order must be one of"):
        np.add(x, x, order="Z")
    with pytest.raises(TypeError, match="subok"):
        np.add(x, x, subok=1)
    with pytest.raises(TypeError, match="signature"):
        np.add(x, x, signature="dd->d")
    with pytest.raises(TypeError, match="'where'"):   # a gufunc: NumPy takes no where=
        np.matmul(x, x, where=True)


def test_durations_are_not_numbers(device):
    """np.timedelta64 is a NumPy integer subclass: ddblas read np.timedelta64(3, 'ns') as 3
    (x + it added 3; NumPy refuses float64 + timedelta64) and other units raised int()'s
    TypeError from inside. Now a TypeError naming it; == and != answer as NumPy's (a duration
    equals no number), orderings raise."""
    x = ddblas.array([1, 2, 3], device=device)
    for value in (np.timedelta64(3, "ns"), np.timedelta64(2, "s"), [np.timedelta64(1, "ns")]):
        with pytest.raises(TypeError, match="timedelta64"):
            ddblas.array(value)
        with pytest.raises(TypeError, match="timedelta64"):
            x + value
    host = lambda r: (r.get() if hasattr(r, "get") else r).tolist()  # noqa: E731
    for value in (np.timedelta64(2, "ns"), np.array([1, 2, 3], dtype="m8[ns]"),
                  np.array(["2020-01-02"] * 3, dtype="M8[D]")):
        assert host(x == value) == host(np.arange(1.0, 4.0) == value) == [False] * 3
        assert host(x != value) == [True] * 3
        with pytest.raises(TypeError):
            x < value


def test_a_0d_array_is_not_iterable(device):
    """iter() of a 0-d DDArray raises at once, as NumPy's (a generator raised only at the first
    next(), so np.iterable(x) was True and code testing iter(x) took x for a sequence)."""
    x = ddblas.array("0.1", device=device)
    with pytest.raises(TypeError, match="0-d"):
        iter(x)
    assert not np.iterable(x) and np.iterable(ddblas.ones(2, device=device))
    rows = list(ddblas.arange(6, device=device).reshape(2, 3))
    assert [exact_values(r) for r in rows] == [[0, 1, 2], [3, 4, 5]]


def test_integer_conversions_are_exact(device):
    """int, math.trunc/floor/ceil and round of a size-1 array from hi + lo exactly (int raised
    a TypeError, and math.floor/ceil went through float(hi): 2^60 + 0.5 had ceil 2^60)."""
    x = ddblas.array(2 ** 60, device=device) + "0.5"
    assert int(ddblas.array("12345678901234567890123", device=device)) == \
        12345678901234567890123
    assert (math.ceil(x), math.floor(x), math.trunc(-x), int(-x)) == \
        (2 ** 60 + 1, 2 ** 60, -2 ** 60, -2 ** 60)
    assert math.floor(-x) == -2 ** 60 - 1 and round(x) == 2 ** 60   # ties to even
    assert round(ddblas.array("3.5", device=device)) == 4
    assert int(ddblas.array([[7.9]], device=device)[0, 0]) == 7
    with pytest.raises(ValueError, match="NaN"):
        int(ddblas.array("nan", device=device))
    with pytest.raises(OverflowError, match="infinite"):
        math.floor(ddblas.array("-inf", device=device))
    with pytest.raises(TypeError, match="only 0-dimensional arrays"):
        int(ddblas.ones(2, device=device))
    with pytest.raises(TypeError, match="ndigits"):
        round(x, 2)
    # an array with dimensions: a TypeError, as round(ndarray) in NumPy 2.4 (an earlier probe
    # had rounded the elements, wrongly saying NumPy did); ddblas.rint rounds them
    for shape in [(1,), (4,), (2, 2)]:
        with pytest.raises(TypeError, match="0-d DDArray.*ddblas.rint"):
            round(ddblas.full(shape, "2.5", device=device))
        with pytest.raises(TypeError, match="__round__"):
            round(np.full(shape, 2.5))


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1)])
def test_python_scalar_conversions_of_arrays_with_dimensions_raise_as_numpy(device, shape):
    """float, int, complex, math.floor/ceil/trunc of a size-1 array with dimensions: NumPy 2.4's
    TypeError (deprecated since 1.25; they converted the one element); item() and bool() still
    take it, as NumPy's, and a 0-d array converts exactly."""
    x = ddblas.full(shape, ddblas.array(2 ** 60, device=device) + "0.5", device=device)
    host = np.ones(shape)
    for convert in (float, int, complex, math.floor, math.ceil, math.trunc):
        if convert is not math.trunc:   # NumPy's arrays have no __trunc__ at all
            with pytest.raises(TypeError, match="only 0-dimensional arrays"):
                convert(host)
        with pytest.raises(TypeError, match=r"^only 0-dimensional arrays can be converted to "
                                            r"Python scalars, this DDArray has shape"):
            convert(x)
    assert bool(x) is bool(host) is True
    scalar = x.reshape(())
    assert exact_values(x) == [2 ** 60 + Fraction(1, 2)] and x.item(kind="float") == 2.0 ** 60
    assert x.item() == scalar.item() and x.item() - 2 ** 60 == 0.5
    assert (float(scalar), complex(scalar)) == (2.0 ** 60, complex(2.0 ** 60))
    assert (int(scalar), math.floor(scalar), math.ceil(scalar), math.trunc(-scalar)) == \
        (2 ** 60, 2 ** 60, 2 ** 60 + 1, -2 ** 60)


def test_contains_and_transpose_axes(device):
    """`in` compares every element (it iterated rows: 'ambiguous' for 2-D); transpose takes an
    array of axes and refuses an empty one, as NumPy (it gave the full transpose)."""
    a = ddblas.arange(12, device=device).reshape(3, 4)
    assert 5 in a and "11" in a and 12 not in a and 1.5 not in a
    assert a.transpose(np.array([1, 0])).shape == (4, 3) and a.transpose().shape == (4, 3)
    with pytest.raises(ValueError, match="axes don't match"):
        a.transpose([])


def test_repr_of_a_huge_broadcast_view_formats_only_its_edges(device):
    """NumPy's summary without copying the array (a 10^5 x 10^5 view of one value needed
    74.5 GiB); arrays over the threshold print as NumPy would lay them out."""
    b = ddblas.broadcast_to(ddblas.array("0.1", device=device), (10 ** 5, 10 ** 5))
    text = repr(b)
    assert text.startswith("DDArray([[0.1, 0.1, 0.1, ..., 0.1, 0.1, 0.1],") and len(text) < 400
    x = ddblas.arange(300, device=device).reshape(3, 100)[:, ::-1]
    with ddblas.printoptions(threshold=200):
        assert repr(x) == ("DDArray([[99.0, 98.0, 97.0, ..., 2.0, 1.0, 0.0],\n"
                           " [199.0, 198.0, 197.0, ..., 102.0, 101.0, 100.0],\n"
                           " [299.0, 298.0, 297.0, ..., 202.0, 201.0, 200.0]], device='"
                           f"{device}')")
    with ddblas.printoptions(threshold=200, edgeitems=1):
        assert repr(x) == ("DDArray([[99.0, ..., 0.0],\n ...,\n"
                           f" [299.0, ..., 200.0]], device='{device}')")


def test_print_thresholds_are_numpys(device):
    """Arrays print whole up to NumPy's threshold of 1000 elements (a 20 x 20 matrix was
    summarised above 200), then NumPy's summary; threshold and edgeitems are print options, as
    NumPy's, and an option left out keeps its setting."""
    full = ddblas.arange(1000, device=device).reshape(20, 50)
    assert "..." not in repr(full) and "..." not in str(full)
    assert re.findall(r"\d+\.0", repr(full)) == [f"{v}.0" for v in range(1000)]
    big = ddblas.arange(1001, device=device)
    assert repr(big).startswith("DDArray([0.0, 1.0, 2.0, ..., 998.0, 999.0, 1000.0]")
    with ddblas.printoptions(threshold=2000) as options:
        assert options["threshold"] == 2000 and "..." not in repr(big)
        ddblas.set_printoptions(precision=3)   # the threshold is kept
        assert ddblas.get_printoptions() == {"precision": 3, "threshold": 2000, "edgeitems": 3}
        ddblas.set_printoptions()
        assert ddblas.get_printoptions()["precision"] == 3
    assert ddblas.get_printoptions() == {"precision": None, "threshold": 1000, "edgeitems": 3}
    for name, bad in (("threshold", -1), ("threshold", 2.0), ("edgeitems", True),
                      ("edgeitems", "3"), ("threshold", None)):
        with pytest.raises(ValueError, match=f"^{name} must be an int >= 0"):
            ddblas.set_printoptions(**{name: bad})
        with pytest.raises(ValueError, match=f"^{name} must be an int >= 0"):
            with ddblas.printoptions(**{name: bad}):
                pass
    assert ddblas.get_printoptions() == {"precision": None, "threshold": 1000, "edgeitems": 3}


def test_mpmath_values_are_exact_at_any_working_precision():
    """At mp.dps = 10, hi was rounded to mpmath's precision before the exact sum."""
    x = ddblas.array("0.1")
    with mpmath.workdps(10):
        value = x.to_mpmath()
        assert ddblas.from_mpmath(value).lo == x.lo and ddblas.from_mpmath(x.item()).lo == x.lo
        assert ddblas.from_mpmath(x.tolist()).hi == x.hi


def test_mpmath_conversions_leave_mpmath_precision_alone():
    """repr/str of to_mpmath values and conversions of mpmath constants from several threads at
    once left mpmath's process-wide precision raised (workdps/workprec save and restore it);
    ddblas's own exact mpf converted back as a constant, losing a lo of 2^-1074."""
    import threading
    x = ddblas.array("0.1").to_mpmath()
    before = (mpmath.mp.prec, mpmath.mp.dps)

    def work():
        for _ in range(3000):
            repr(x), str(x), ddblas.array(mpmath.pi)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert (mpmath.mp.prec, mpmath.mp.dps) == before
    tiny = ddblas.DDArray(1.0, 2.0 ** -1074)
    assert float(ddblas.array(tiny.to_mpmath()).lo) == 2.0 ** -1074
    assert ddblas.array(mpmath.pi).hi == np.float64(np.pi)


def test_numpy_citizenship_details_of_the_2026_11_28_probe(device):
    """Found by an adversarial probe of the array object: np.positive with out= was refused;
    repr of an empty (0, 3) array read as shape (0,); np.stack / concatenate of a DDArray (its
    slices, as NumPy) were refused; an object array holding DDArrays was refused where a list of
    them converts; reshape() gave a 0-d array (NumPy: TypeError); DDArray(2**53 + 1) rounded
    the integer silently."""
    a = ddblas.random((3, 2), seed=1, device=device)
    out = ddblas.zeros((3, 2), device=device)
    assert np.positive(a, out=out) is out and same_bits(out, a)
    assert np.positive(a) is not a and same_bits(np.positive(a), a)
    assert repr(ddblas.zeros((0, 3), device=device)) == \
        f"DDArray([], shape=(0, 3), device='{device}')"
    assert repr(ddblas.zeros(0, device=device)) == f"DDArray([], device='{device}')"
    assert str(ddblas.zeros((0, 3), device=device)) == "[]"
    for join, numpy_join in ((np.stack, np.stack), (np.concatenate, np.concatenate),
                             (np.vstack, np.vstack), (np.hstack, np.hstack),
                             (ddblas.stack, np.stack)):
        want = numpy_join(a.to_device("cpu").hi)
        got = join(a)
        assert got.shape == want.shape and (got.to_device("cpu").hi == want).all()
    with pytest.raises(TypeError, match="sequence of arrays"):
        ddblas.stack(ddblas.array(1.0))
    objects = np.empty(2, dtype=object)
    objects[0], objects[1] = ddblas.array("0.1"), 3
    assert same_bits(ddblas.array(objects), ddblas.array([ddblas.array("0.1"), 3]))
    with pytest.raises(TypeError, match="reshape"):
        a.reshape()
    assert a[0, 0].reshape(()).shape == ()
    for value in (2 ** 53 + 1, [1, -(2 ** 53) - 1], np.uint64(2 ** 64 - 1)):
        with pytest.raises(TypeError, match="is not a float64"):
            ddblas.DDArray(value)
    assert ddblas.DDArray([2 ** 60, 3]).hi.tolist() == [2.0 ** 60, 3.0]


def test_transpose_of_an_empty_axes_tuple_is_numpys_error(device):
    """x.transpose(()) and np.transpose(x, ()) of an array with dimensions are NumPy's
    ValueError (they gave the full transpose, as x.transpose() with no argument does); a 0-d
    array takes them."""
    a = ddblas.arange(6, device=device).reshape(2, 3)
    for call in (lambda x: x.transpose(()), lambda x: np.transpose(x, ())):
        with pytest.raises(ValueError, match="axes don't match"):
            call(np.zeros((2, 3)))
        with pytest.raises(ValueError, match="axes don't match"):
            call(a)
        assert call(a[0, 0]).shape == ()
    assert a.transpose().shape == a.transpose(None).shape == np.transpose(a).shape == (3, 2)


@pytest.mark.parametrize("order", ["C", "F", "A", "K", "f", None])
@pytest.mark.parametrize("layout", ["c", "f", "transposed", "strided"])
def test_ravel_takes_numpys_order(device, order, layout):
    """x.ravel(order) reads the elements in NumPy's order ('C', 'F', 'A': 'F' for Fortran-
    ordered parts, 'K': memory order), as ndarray.ravel (the method took no argument)."""
    base = np.arange(24.0).reshape(4, 6) + 0.5
    pick = {"c": lambda p: p, "f": np.asfortranarray, "transposed": lambda p: p.T,
            "strided": lambda p: p[::2, ::-3]}[layout]
    hi = pick(base)
    x = ddblas.DDArray(hi, pick(base * 2.0 ** -60), normalize=False).to_device(device)
    got = x.ravel(order) if order is not None else x.ravel()
    # the parts' own layout on the device decides 'A' and 'K' (a copy to the GPU is C-ordered)
    hi_there = x.hi if device == "cpu" else x.hi.get(order="A")
    assert hi_there.strides == x.hi.strides
    expected = hi_there.ravel(order) if order is not None else hi_there.ravel()
    assert same_bits(got, ddblas.DDArray(expected, expected * 2.0 ** -60))
    with pytest.raises(ValueError, match="order must be one of"):
        x.ravel("X")


def test_ravel_k_of_parts_laid_out_differently_keeps_the_pairs(device):
    """order='K' of parts with different memory orders (hi C-, lo F-contiguous) still pairs
    each hi with its lo (one order for both parts)."""
    base = np.arange(6.0).reshape(2, 3) + 1
    x = ddblas.DDArray(base, np.asfortranarray(base * 2.0 ** -60), normalize=False)
    got = x.to_device(device).ravel("K")
    assert same_bits(got.to_device("cpu").lo, got.to_device("cpu").hi * 2.0 ** -60)


def test_a_ddarray_inside_an_index_tuple_is_named(device):
    """x[d, 0] with a DDArray d said that a DDArray does not convert to a NumPy array (and to
    use .to_float64(), which cannot index either); it is the TypeError of x[d]."""
    a = ddblas.arange(6, device=device).reshape(2, 3)
    for key in ((ddblas.array(1), 0), (0, ddblas.array([1, 2])), (Ellipsis, ddblas.array(1))):
        with pytest.raises(TypeError, match="a DDArray cannot index an array"):
            a[key]
        with pytest.raises(TypeError, match="a DDArray cannot index an array"):
            a[key] = 0
