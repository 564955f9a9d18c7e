"""rgemm(algorithm="ozaki-int8"): exact int8 slicing (Fractions) in both layouts, the classic
bound against exact rationals on ill-scaled, zero, chunked and cancelling inputs, the int32
chunk limit, the fallbacks, and on the GPU bitwise equality with the CPU."""
from __future__ import annotations

from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas
from conftest import requires_gpu
from ddblas import accuracy
from ddblas.engines import backend as _backend
from ddblas.blas import ozaki as _ozaki
from ddvalues import (TRANS, check_blas_semantics, check_gemm_bound, check_gpu_equals_cpu, dd_value,
                      exact_values, ozaki_pieces, ozaki_within_bound, random_matrix, same_bits,
                      scaled_within_bound, to_ddarray)

INT8 = "ozaki-int8"


def _int8_digits(x: ddblas.DDArray, slices: int, reverse: bool):
    """(digits (rows, S, Kp) as int64 in slice order t = 1..S, exponents per row, Kp) from the
    int8 slice kernel on x (R x K), rows = R + 3 (padding rows must stay zero)."""
    exps = _ozaki._line_stats(x.xp, x.hi, 1)[0]
    plan = _ozaki.Plan(slices=slices, beta=_ozaki.INT8_BITS, engine="int8", k=x.shape[1])
    out = _ozaki.int8_slices(_backend.backend(x.device), x, exps, plan, x.shape[0] + 3, reverse)
    out, exps = (out.get(), exps.get()) if x.device == "gpu" else (out, exps)
    assert out.dtype == np.int8
    kp = _ozaki.int8_padded(x.shape[1])
    digits = np.asarray(out, dtype=np.int64).reshape(x.shape[0] + 3, slices, kp)
    return (digits[:, ::-1] if reverse else digits), np.asarray(exps), kp


def _check_int8_slicing(x: ddblas.DDArray):
    """Digits are integers in [-127, 127]; padding is zero; after S slices the remainder
    x - sum_t d_t 2^(e - 7t) has x's sign and is below 2^(e - 7S); with enough slices it is 0."""
    exact = np.array(exact_values(x), dtype=object).reshape(x.shape)
    rows, k = x.shape
    full = -(-(2200 + 110) // 7)          # covers every bit from 2^1024 down to 2^-1074
    for slices in (1, 4, 16, full):
        for reverse in (False, True):
            digits, exps, kp = _int8_digits(x, slices, reverse)
            assert np.all(np.abs(digits) <= 127)
            assert not digits[rows:].any() and not digits[:, :, k:].any()
            for i in range(rows):
                for j in range(k):
                    v, e = exact[i, j], int(exps[i])
                    assert abs(v) < Fraction(2) ** e
                    rest = v - sum(int(digits[i, t - 1, j]) * Fraction(2) ** (e - 7 * t)
                                   for t in range(1, slices + 1))
                    assert rest == 0 or (rest > 0) == (v > 0)
                    assert abs(rest) < Fraction(2) ** (e - 7 * slices)
                    if slices == full:
                        assert rest == 0


@settings(max_examples=40)
@given(st.lists(dd_value(-1000, 1000), min_size=1, max_size=5), st.integers(1, 2))
def test_int8_slicing_is_exact(device, values, rows):
    row = to_ddarray(values, "cpu").reshape(1, -1)
    x = ddblas.DDArray(np.repeat(row.hi, rows, 0), np.repeat(row.lo, rows, 0))
    _check_int8_slicing(x.to_device(device))


def test_int8_slicing_edge_values_and_views(device):
    """Tails of the opposite sign (digit 63, not 64), subnormals, zeros and a strided,
    transposed view (op(B)^T of a row-major B)."""
    hi = np.array([[1.0, -1.0, 0.75, 2.0 ** -30, 0.0, 5e-324, 2.0 ** -1070, -1.5]])
    lo = np.array([[-(2.0 ** -70), 2.0 ** -70, -(2.0 ** -80), 2.0 ** -90, 0, 0, 0, 2.0 ** -60]])
    x = ddblas.DDArray(hi, lo).to_device(device)
    _check_int8_slicing(x)
    digits, _, _ = _int8_digits(x, 1, False)
    assert digits[0, 0, 0] == 63 and digits[0, 0, 1] == -63   # 2^6 - 1 against 2^(1 - 7)
    b = random_matrix(5, 3, 7, device, 30)
    _check_int8_slicing(b.T)
    _check_int8_slicing(b[::2].T)


def test_int8_chunk_limit_arithmetic():
    """INT8_CHUNK is the largest L with L 127^2 < 2^31 (every int32 partial sum of an int8
    product over L terms exact); the GEMMs use it rounded down to 16."""
    limit = _ozaki.INT8_CHUNK
    assert limit == 133144
    assert limit * 127 ** 2 <= 2 ** 31 - 1 < (limit + 1) * 127 ** 2
    assert _ozaki.int8_chunk() == 133136 and _ozaki.int8_chunk() % _ozaki.INT8_ALIGN == 0
    assert [_ozaki.int8_padded(k) for k in (1, 16, 17, 100)] == [16, 16, 32, 112]
    with ozaki_pieces("INT8_CHUNK", 15), pytest.raises(ValueError, match="INT8_CHUNK"):
        _ozaki.int8_chunk()


@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 40), st.sampled_from(TRANS),
       st.sampled_from([(1, 0), ("0.75", 0), (-3, "1.5")]), st.integers(0, 10 ** 6),
       st.sampled_from([0, 3, 10, 200]), st.sampled_from([0, 250]),
       st.sampled_from([None, 16, 37, 64]), st.sampled_from([None, 1, 2]),
       st.sets(st.integers(0, 8), max_size=2))
def test_int8_within_the_classic_bound(variant, m, n, k, trans, scalars, seed, spread, outer,
                                       chunk_length, side, zeros):
    """Random DD matrices, entries spread over 2^+-spread within rows/columns (2^+-200: a
    fallback), rows of op(A) and columns of op(B) scaled by up to 2^+-250, some of them zero,
    int8 GEMMs cut into stretches of 16..64 of the concatenated K, C in blocks down to 1 x 1:
    |C - exact| <= the classic bound, whether ozaki-int8 ran or fell back."""
    info = scaled_within_bound(INT8, ozaki_pieces("INT8_CHUNK", chunk_length, side), variant,
                               m, n, k, trans, scalars, seed, spread, outer, zeros)
    if info["fallback"] is None:
        assert info["beta"] == 7 and 2 <= info["slices"] <= _ozaki.INT8_MAX_SLICES
        assert info["gemms"] >= 1 + info["slices"]
    if spread <= 3 and not zeros:
        assert info["fallback"] is None


def test_int8_runs_and_chunks(device, variant):
    """K = 37 (padded to 48) with the concatenated K cut into stretches of 32: group s has
    ceil(48 (s - 1) / 32) GEMMs."""
    a, b = random_matrix(7, 37, 1, device, 3), random_matrix(37, 5, 2, device, 3)
    info = {}
    with ozaki_pieces("INT8_CHUNK", 40):
        c = ddblas.rgemm(a, b, algorithm=INT8, info=info, **variant)
    s = info["slices"]
    assert info["algorithm"] == INT8 and info["fallback"] is None and info["beta"] == 7
    assert info["chunk"] == 32 and info["chunks"] == -(-48 * s // 32)
    assert info["gemms"] == 1 + sum(-(-48 * (r - 1) // 32) for r in range(2, s + 2))
    assert set(info["seconds"]) == {"plan", "slice", "gemm", "accumulate"}
    check_gemm_bound(c, a, b, 1, 0, None, "N", "N", **variant)
    # the stretches only change how the exact group sums are cut: the same bits
    assert same_bits(c, ddblas.rgemm(a, b, algorithm=INT8, **variant))


def test_int8_k_equals_one(device, variant):
    a, b = random_matrix(4, 1, 3, device, 30), random_matrix(1, 6, 4, device, 30)
    info = {}
    c = ddblas.rgemm(a, b, algorithm=INT8, info=info, **variant)
    assert info["algorithm"] == INT8 and info["chunk"] == 16 * info["slices"]
    check_gemm_bound(c, a, b, 1, 0, None, "N", "N", **variant)


def test_int8_hilbert_and_cancellation(device, variant):
    h = accuracy.hilbert(24, device=device)
    ozaki_within_bound(h, h, variant, INT8)
    x, y = accuracy.ill_conditioned_dot(40, 1e30, seed=3)
    a = ddblas.DDArray(x.hi[None, :], x.lo[None, :]).to_device(device)
    b = ddblas.DDArray(y.hi[:, None], y.lo[:, None]).to_device(device)
    ozaki_within_bound(a, b, variant, INT8)


def test_int8_and_fp64_both_within_the_bound(variant):
    """Different beta, different results, one bound."""
    a, b = random_matrix(9, 50, 5, "cpu", 8), random_matrix(50, 6, 6, "cpu", 8)
    c8 = ozaki_within_bound(a, b, variant, INT8)
    info = {}
    c64 = ddblas.rgemm(a, b, algorithm="ozaki-fp64", info=info, **variant)
    assert info["algorithm"] == "ozaki-fp64"
    assert accuracy.gemm_error(c64, a, b).within(accuracy.bound("gemm", ddblas.Options(**variant),
                                                               50))
    assert not same_bits(c8, c64)


@pytest.mark.slow
def test_int8_k_beyond_the_real_chunk_limit():
    """K = 140000 > INT8_CHUNK with the real limit: every group is cut (nonzero only in 40
    columns of K, the last included, to keep the exact reference cheap)."""
    k = 140000
    rng = np.random.default_rng(9)
    a_hi, b_hi = np.zeros((2, k)), np.zeros((k, 3))
    cols = rng.choice(k, 40, replace=False)
    cols[0] = k - 1
    a_hi[:, cols] = rng.uniform(-1, 1, (2, 40))
    b_hi[cols] = rng.uniform(-1, 1, (40, 3)) * 2.0 ** rng.integers(-5, 5, (40, 3))
    a = ddblas.DDArray(a_hi, a_hi * 2.0 ** -60)
    b = ddblas.DDArray(b_hi, -b_hi * 2.0 ** -61)
    info = {}
    c = ddblas.rgemm(a, b, algorithm=INT8, info=info)
    assert info["algorithm"] == INT8 and info["chunk"] == _ozaki.int8_chunk()
    assert info["chunks"] == -(-info["slices"] * _ozaki.int8_padded(k) // _ozaki.int8_chunk())
    assert accuracy.gemm_error(c, a, b).within(accuracy.bound("gemm", None, k))


@pytest.mark.parametrize("poison", ["inf", "-inf", "nan"])
def test_int8_non_finite_inputs_fall_back(device, variant, poison):
    a, b = random_matrix(3, 4, 11, device), random_matrix(4, 2, 12, device)
    a[1, 2] = poison
    b[0, 1] = "nan" if poison == "inf" else 1
    info = {}
    got = ddblas.rgemm(a, b, algorithm=INT8, info=info, **variant)
    assert "non-finite" in info["fallback"] and info["gemms"] == 0
    assert same_bits(got, ddblas.rgemm(a, b, algorithm="blocked", **variant))


def test_int8_badly_scaled_data_falls_back(device, variant):
    """Entries 2^+-200 apart within a row need more than INT8_MAX_SLICES slices: the classic
    kernel runs, with the reason."""
    a, b = random_matrix(3, 8, 13, device, spread=3), random_matrix(8, 3, 14, device, spread=3)
    a[:, 0] = a[:, 0] * 2.0 ** 200
    b[0] = b[0] * 2.0 ** -200
    info = {}
    got = ddblas.rgemm(a, b, algorithm=INT8, info=info, **variant)
    assert f"more than {_ozaki.INT8_MAX_SLICES} slices" in info["fallback"]
    assert info["algorithm"] != INT8
    assert same_bits(got, ddblas.rgemm(a, b, algorithm="blocked", **variant))


def test_int8_blas_semantics_and_views(device):
    check_blas_semantics(INT8, device, spread=3)


def test_int8_too_few_slices_break_the_bound(variant):
    """The checks have teeth: S = 8 forced (56 bits) exceeds the classic bound."""
    a, b = random_matrix(4, 8, 31, "cpu", 3), random_matrix(8, 4, 32, "cpu", 3)
    bound = accuracy.bound("gemm", ddblas.Options(**variant), 8)
    info = {}
    c = ddblas.rgemm(a, b, algorithm=INT8, info=info, **variant)
    assert info["slices"] > 8 and accuracy.gemm_error(c, a, b).within(bound)
    with mock.patch.object(_ozaki, "slices_needed", lambda *args: 8):
        c = ddblas.rgemm(a, b, algorithm=INT8, **variant)
    assert not accuracy.gemm_error(c, a, b).within(bound)


def test_unknown_engine():
    x = ddblas.ones((2, 2))
    with pytest.raises(ValueError, match="engine"):
        _ozaki.plan(x, x, None, "int4")


# ---- GPU: cuBLAS int8 GEMMs, bitwise equal to the CPU ----
@requires_gpu
@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 1, 1), (17, 33, 129), (64, 64, 300), (129, 31, 1000),
                                   (8, 8, 140000)], ids=lambda s: "x".join(map(str, s)))
def test_int8_gpu_equals_cpu_bitwise(shape):
    check_gpu_equals_cpu(shape, INT8, 5, "INT8_CHUNK", (_ozaki.INT8_CHUNK, 64, 40, 1000),
                         TRANS if shape[2] < 10 ** 5 else TRANS[:1])


@requires_gpu
@pytest.mark.gpu
def test_int8_cublas_product_is_exact():
    """One cuBLAS int8 GEMM at the extreme values (all +-127, L = int8_chunk()): the int32
    result equals the exact integer product (no saturation, no overflow)."""
    import cupy
    rng = np.random.default_rng(1)
    length = _ozaki.int8_chunk()
    a = rng.choice(np.array([-127, 127], np.int8), (5, length))
    b = rng.choice(np.array([-127, 127], np.int8), (8, length))
    a[0], b[0] = 127, 127                       # one entry at exactly L 127^2
    out = cupy.empty((5, 8), np.int32)
    _ozaki._cublas_int8(cupy.asarray(a), cupy.asarray(b), out)
    assert np.array_equal(out.get(), a.astype(np.int64) @ b.astype(np.int64).T)
    assert int(out[0, 0]) == length * 127 ** 2
