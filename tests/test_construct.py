"""DDArray(hi, lo, *, normalize=True): normalisation on construction, and the smaller edges of
issue 14 part 6 (bad constructor arguments, sum axes, random shapes, CPU thread counts)."""
from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas
from ddvalues import exact_values, is_normalized

DBL_MAX = float.fromhex("0x1.fffffffffffffp+1023")
CANONICAL_NAN = struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000000))[0]


def host(x: ddblas.DDArray):
    x = x.to_device("cpu")
    return x.hi, x.lo


def make(hi, lo, device, **kw) -> ddblas.DDArray:
    xp = np if device == "cpu" else __import__("cupy")
    return ddblas.DDArray(xp.asarray(np.asarray(hi, dtype=np.float64)),
                          xp.asarray(np.asarray(lo, dtype=np.float64)), **kw)


def test_issue_examples_of_unnormalised_pairs(device):
    one_one = make(1.0, 1.0, device)
    assert bool(one_one == 2)
    (root,) = exact_values(ddblas.sqrt(one_one))
    assert abs(root ** 2 - 2) < Fraction(1, 2 ** 100)
    total = make(0.0, 0.0, device) + make(1.0, math.nan, device)
    assert math.isnan(float(total.to_device("cpu").hi))
    assert repr(make(1.0, math.nan, device)) == f"DDArray(nan, device='{device}')"


@pytest.mark.parametrize("algorithm", ["naive", "tiled", "ozaki-fp64", "ozaki-int8"])
def test_every_gemm_algorithm_sees_the_normalised_values(device, algorithm):
    a = make([[1.0, 2.0]], [[1.0, 0.5]], device)        # values 2 and 2.5
    b = make([[1.0, 2.0], [1.0, 2.0]], [[0.0] * 2] * 2, device)
    c = ddblas.rgemm(a, b, algorithm=algorithm)
    assert exact_values(c) == [Fraction(9, 2), 9]


def test_normalised_parts_are_wrapped_without_copying(device):
    x = ddblas.random((3, 4), seed=1, device=device)
    hi = x.hi.copy()
    hi[0, 0] = math.inf
    hi[0, 1] = math.nan
    lo = x.lo.copy()
    lo[0, 0] = lo[0, 1] = 0.0
    lo[1, 1] = -0.0
    y = ddblas.DDArray(hi, lo)
    assert y.hi is hi and y.lo is lo
    z = ddblas.DDArray(hi)
    assert z.hi is hi


def test_normalize_false_wraps_as_given(device):
    hi, lo = make(1.0, 1.0, device).hi, make(1.0, 1.0, device).lo
    hi, lo = hi.copy(), lo.copy()
    lo[...] = 1.0
    hi[...] = 1.0
    x = ddblas.DDArray(hi, lo, normalize=False)
    assert x.hi is hi and x.lo is lo and float(x.lo) == 1.0
    with pytest.raises(TypeError, match="normalize"):
        ddblas.DDArray(hi, lo, normalize=None)


def test_special_values_and_overflow_are_normalised(device):
    inf, nan = math.inf, math.nan
    hi = [1.0, inf, -inf, 1.0, inf, 5.0, nan, DBL_MAX, DBL_MAX, -DBL_MAX, 0.0, 1.0]
    lo = [nan, 1.0, 2.0, -inf, -inf, nan, 3.0, 2.0 ** 970, 2.0 ** 969, -(2.0 ** 970), -0.0, 1.0]
    src_hi, src_lo = np.array(hi), np.array(lo)
    x = make(src_hi, src_lo, device)
    got_hi, got_lo = host(x)
    want = [(nan, nan), (inf, 0.0), (-inf, 0.0), (-inf, 0.0), (nan, nan), (nan, nan),
            (nan, nan), (inf, 0.0), (DBL_MAX, 2.0 ** 969), (-inf, 0.0), (0.0, -0.0), (2.0, 0.0)]
    for i, (h, l) in enumerate(want):
        if math.isnan(h):
            assert struct.pack("<d", got_hi[i]) == struct.pack("<d", CANONICAL_NAN), i
            assert struct.pack("<d", got_lo[i]) == struct.pack("<d", CANONICAL_NAN), i
        else:
            assert got_hi[i] == h and got_lo[i] == l, i
    assert math.copysign(1, got_lo[10]) == -1  # an element already normalised keeps its bits
    assert np.array_equal(src_hi, np.array(hi), equal_nan=True)  # the caller's arrays untouched
    assert np.array_equal(src_lo, np.array(lo), equal_nan=True)


@settings(max_examples=40)
@given(st.lists(st.tuples(st.floats(allow_nan=False, allow_infinity=False, width=64),
                          st.floats(allow_nan=False, allow_infinity=False, width=64)),
                min_size=1, max_size=8))
def test_normalisation_keeps_the_exact_sum(device, pairs):
    hi = np.array([p[0] for p in pairs])
    lo = np.array([p[1] for p in pairs])
    x = make(hi, lo, device)
    got_hi, got_lo = host(x)
    for h, l, gh, gl in zip(hi.tolist(), lo.tolist(), got_hi.tolist(), got_lo.tolist()):
        exact = Fraction(h) + Fraction(l)
        if math.isinf(gh):  # hi + lo rounds past DBL_MAX
            assert gl == 0 and abs(exact) >= Fraction(DBL_MAX) + Fraction(2) ** 970
            continue
        assert Fraction(gh) + Fraction(gl) == exact
        assert gh == float(exact) and abs(gl) <= math.ulp(gh) / 2
    if got_hi.size and np.all(np.isfinite(got_hi)):
        assert is_normalized(ddblas.DDArray(got_hi, got_lo, normalize=False))


def test_kept_pairs_keep_their_bits_beside_renormalised_ones(device):
    """Where some elements are renormalised, the normalised ones are stored as given, bit for bit
    (a NaN hi's payload, a -0 lo), the new ones canonically; strided parts read alike."""
    payload = np.array([0x7FF8000000000123], dtype=np.uint64).view(np.float64)[0]
    hi = np.array([payload, 1.0, 3.0, math.inf, 0.5, math.nan])
    lo = np.array([0.0, -0.0, 1.0, 0.0, 0.0, 2.0])
    for h, l in ((hi, lo), (np.repeat(hi, 2)[::2], np.repeat(lo, 2)[::2])):
        got_hi, got_lo = host(make(h, l, device))
        assert got_hi[:2].tobytes() == hi[:2].tobytes() and got_lo[:2].tobytes() == lo[:2].tobytes()
        assert (got_hi[2], got_lo[2]) == (4.0, 0.0) and (got_hi[3], got_lo[3]) == (math.inf, 0.0)
        assert got_hi[5:].tobytes() == got_lo[5:].tobytes() == struct.pack("<d", CANONICAL_NAN)


def test_normalisation_is_the_same_on_cpu_and_gpu(device):
    rng = np.random.default_rng(7)
    hi = rng.standard_normal(3000) * 2.0 ** rng.integers(-60, 60, 3000)
    lo = rng.standard_normal(3000) * 2.0 ** rng.integers(-60, 60, 3000)
    on_cpu = host(make(hi, lo, "cpu"))
    here = host(make(hi, lo, device))
    for a, b in zip(on_cpu, here):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("bad", [None, "1.5", object(), [1.0, None], {"a": 1}, [[1.0], [1.0, 2.0]],
                                 1j])
def test_constructor_rejects_non_numbers_naming_them(bad):
    with pytest.raises(TypeError, match="DDArray hi .*" + type(bad).__name__):
        ddblas.DDArray(bad)
    if bad is not None:  # lo=None means zeros
        with pytest.raises(TypeError, match="DDArray lo .*" + type(bad).__name__):
            ddblas.DDArray(np.zeros(()), bad)


def test_constructor_accepts_numbers_and_lists():
    assert exact_values(ddblas.DDArray(1.0, 2.0 ** -60)) == [1 + Fraction(1, 2 ** 60)]
    assert exact_values(ddblas.DDArray([1, 2], [0, 0])) == [1, 2]
    assert exact_values(ddblas.DDArray(np.float64(3))) == [3]


@pytest.mark.parametrize("axis", [1.0, "0", (0, 1.5), [True], True, np.float64(0)])
def test_sum_rejects_axes_that_are_not_ints(device, axis):
    x = ddblas.ones((2, 3), device=device)
    with pytest.raises(TypeError, match="axis must be"):
        ddblas.sum(x, axis=axis)


def test_sum_axes_still_work(device):
    x = ddblas.ones((2, 3), device=device)
    assert exact_values(ddblas.sum(x, axis=np.int64(1))) == [3, 3]
    assert exact_values(ddblas.sum(x, axis=[0, -1])) == [6]
    with pytest.raises(ValueError, match="out of bounds"):
        ddblas.sum(x, axis=2)


def test_integer_numpy_arrays_are_shapes():
    """As NumPy: 0-d and 1-d integer arrays give shapes (they were refused); others are not."""
    assert ddblas.zeros(np.array(3)).shape == (3,)
    assert ddblas.ones(np.array([2, 3], dtype=np.uint8)).shape == (2, 3)
    for bad in (np.array([2.5]), np.array([[2, 3]]), np.array([True])):
        with pytest.raises(TypeError, match="shape must be"):
            ddblas.zeros(bad)


@pytest.mark.parametrize("shape", ["3", 2.0, (2, "3"), None, (True,)])
def test_creation_functions_reject_bad_shapes(shape):
    for create in (ddblas.random, ddblas.zeros, ddblas.ones):
        with pytest.raises(TypeError, match="shape must be"):
            create(shape)
    with pytest.raises(ValueError, match="negative"):
        ddblas.random((2, -1))


@pytest.mark.parametrize("bad", [2 ** 32 + 1, 10 ** 10, 2 ** 31, 2 ** 63, -1, 0])
def test_cpu_threads_rejects_counts_out_of_range(bad):
    before = ddblas.get_cpu_threads()
    with pytest.raises(ValueError, match=r"\bn\b.*thread count.*from 1 to"):
        ddblas.cpu_threads(bad)
    assert ddblas.get_cpu_threads() == before


def test_cpu_threads_accepts_the_whole_range():
    from ddblas.engines.cpu import MAX_THREADS
    before = ddblas.get_cpu_threads()
    with ddblas.cpu_threads(MAX_THREADS):
        assert ddblas.get_cpu_threads() in (1, MAX_THREADS)  # 1 when built without OpenMP
    with ddblas.cpu_threads(np.int64(1)):
        assert ddblas.get_cpu_threads() == 1
    assert ddblas.get_cpu_threads() == before
