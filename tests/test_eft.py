"""ddblas.eft: exactness of the error-free transformations, proved with fractions.Fraction on
hypothesis-drawn float64 values: random bit patterns, subnormals and huge magnitudes."""
from __future__ import annotations

import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ddblas import eft

DBL_MAX = np.finfo(np.float64).max


def _from_bits(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


# Every finite float64: uniform random bit patterns (all exponents), plus extremes.
finite_bits = st.integers(0, 2 ** 64 - 1).map(_from_bits).filter(np.isfinite)
finite = st.one_of(finite_bits, st.floats(allow_nan=False, allow_infinity=False),
                   st.floats(min_value=-5e-324, max_value=5e-324 * 2 ** 52, allow_nan=False),
                   st.sampled_from([0.0, -0.0, 5e-324, -5e-324, DBL_MAX, -DBL_MAX, 2.0 ** -1022,
                                    2.0 ** 996, 2.0 ** 997, 1.0 + 2.0 ** -52]))
samples = st.lists(finite, min_size=1, max_size=16)


def _on(device, values):
    arr = np.array(values, dtype=np.float64)
    if device == "gpu":
        import cupy
        return cupy.asarray(arr)
    return arr


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


def _bits(x: float) -> int:
    """Number of significant bits of a finite float."""
    if x == 0:
        return 0
    m = abs(Fraction(x).numerator)
    while m % 2 == 0:
        m //= 2
    return m.bit_length()


@given(samples, samples)
def test_two_sum_is_exact(device, xs, ys):
    n = min(len(xs), len(ys))
    xs, ys = xs[:n], ys[:n]
    s, e = (_host(v) for v in eft.two_sum(_on(device, xs), _on(device, ys)))
    for a, b, si, ei in zip(xs, ys, s, e):
        exact = Fraction(a) + Fraction(b)
        if abs(exact) >= DBL_MAX:  # the sum may overflow: not covered by the precondition
            continue
        assert si == a + b
        assert Fraction(float(si)) + Fraction(float(ei)) == exact


@given(samples, samples)
def test_fast_two_sum_is_exact_under_its_precondition(device, xs, ys):
    pairs = [(a, b) if abs(a) >= abs(b) else (b, a) for a, b in zip(xs, ys)]
    pairs = [(a, b) for a, b in pairs if abs(Fraction(a) + Fraction(b)) < DBL_MAX]
    assume(pairs)
    s, e = (_host(v) for v in eft.fast_two_sum(_on(device, [p[0] for p in pairs]),
                                                _on(device, [p[1] for p in pairs])))
    for (a, b), si, ei in zip(pairs, s, e):
        assert si == a + b
        assert Fraction(float(si)) + Fraction(float(ei)) == Fraction(a) + Fraction(b)


def test_fast_two_sum_refuses_a_violated_precondition(device):
    with pytest.raises(ValueError, match="exponent"):
        eft.fast_two_sum(_on(device, [1.0]), _on(device, [1e10]))
    s, _ = eft.fast_two_sum(_on(device, [1.0]), _on(device, [1e10]), check=False)
    assert _host(s)[0] == 1e10 + 1.0


@given(st.lists(st.tuples(st.integers(-2 ** 52 + 1, 2 ** 52 - 1),
                          st.integers(-2 ** 52 + 1, 2 ** 52 - 1)), min_size=1, max_size=16))
def test_fast_two_sum_takes_subnormals_in_any_order(device, pairs):
    """Subnormals share the IEEE exponent of 2^-1022 (frexp's differ), so Fast2Sum applies."""
    xs, ys = ([k * 5e-324 for k in ks] for ks in zip(*pairs))
    s, e = (_host(v) for v in eft.fast_two_sum(_on(device, xs), _on(device, ys)))
    for a, b, si, ei in zip(xs, ys, s, e):
        assert si == a + b and Fraction(float(si)) + Fraction(float(ei)) == Fraction(a) + b
    eft.fast_two_sum(_on(device, [5e-324]), _on(device, [2.0 ** -1022]))  # exponent -1022 both
    with pytest.raises(ValueError, match="exponent"):  # normal numbers: frexp's order
        eft.fast_two_sum(_on(device, [2.0 ** -1022]), _on(device, [2.0 ** -1021]))


def test_two_sum_documented_overflow_of_its_intermediate(device):
    """The one exception of two_sum's docstring (cuda_src/eft.h): s finite, e NaN."""
    s, e = (_host(v) for v in eft.two_sum(_on(device, [-3 * 2.0 ** 970]), _on(device, [DBL_MAX])))
    assert s[0] == DBL_MAX - 3 * 2.0 ** 970 and np.isnan(e[0])
    assert "2^970" in eft.two_sum.__doc__ and "2^1024 - 2^997" in eft.split.__doc__


@given(samples)
def test_split_is_exact_with_26_bit_halves(device, xs):
    hi, lo = (_host(v) for v in eft.split(_on(device, xs)))
    for a, h, l in zip(xs, hi, lo):
        assert Fraction(float(h)) + Fraction(float(l)) == Fraction(a)
        # Above 2^1024 - 2^997 no finite 26-bit hi exists: lo takes 27 bits (cuda_src/eft.h).
        lo_bits = 27 if abs(Fraction(a)) > 2 ** 1024 - 2 ** 997 else 26
        assert _bits(float(h)) <= 26 and _bits(float(l)) <= lo_bits


@pytest.mark.parametrize("use_fma", [True, False])
@given(samples, samples)
def test_two_prod_is_exact_without_underflow_or_overflow(device, use_fma, xs, ys):
    pairs = [(a, b) for a, b in zip(xs, ys)
             if a == 0 or b == 0 or 2.0 ** -968 <= abs(Fraction(a) * Fraction(b)) < DBL_MAX]
    assume(pairs)
    p, e = (_host(v) for v in eft.two_prod(_on(device, [q[0] for q in pairs]),
                                           _on(device, [q[1] for q in pairs]), fma=use_fma))
    for (a, b), pi, ei in zip(pairs, p, e):
        assert pi == a * b
        assert Fraction(float(pi)) + Fraction(float(ei)) == Fraction(a) * Fraction(b)


@pytest.mark.parametrize("use_fma", [True, False])
def test_two_prod_near_dbl_max_does_not_overflow(device, use_fma):
    a, b = 1.9 * 2.0 ** 1000, 1.0 + 2.0 ** -30 + 2.0 ** -52  # product ~ 2^1000.9, finite
    xs, ys = [a, DBL_MAX, DBL_MAX, -DBL_MAX], [b, 0.75, 2.0 ** -30, 1.0 - 2.0 ** -53]
    p, e = (_host(v) for v in eft.two_prod(_on(device, xs), _on(device, ys), fma=use_fma))
    assert np.all(np.isfinite(p)) and np.all(np.isfinite(e))
    for x, y, pi, ei in zip(xs, ys, p, e):
        assert Fraction(float(pi)) + Fraction(float(ei)) == Fraction(x) * Fraction(y)


def test_broadcasting_and_python_scalars(device):
    s, e = eft.two_sum(_on(device, [[1.0], [2.0]]), 2.0 ** -60)
    assert s.shape == (2, 1)
    assert _host(e).ravel().tolist() == [2.0 ** -60, 2.0 ** -60]
    s, e = eft.two_sum(1.0, 2.0 ** -70)
    assert float(s) == 1.0 and float(e) == 2.0 ** -70


def test_input_errors():
    with pytest.raises(TypeError, match="float64"):
        eft.two_sum(np.ones(3, dtype=np.float32), 1.0)
    with pytest.raises(TypeError, match="str"):
        eft.split("1.0")
    with pytest.raises(ValueError, match=r"\(2,\) and \(3,\)"):
        eft.two_sum(np.ones(2), np.ones(3))
    with pytest.raises(ValueError, match="fma"):
        eft.two_prod(1.0, 2.0, fma="yes")
