"""rgemm(algorithm="ozaki2-int8"), Ozaki scheme II: the residues and the CRT tables exactly
(Python integers), the bounds against exact rationals on ill-scaled, zero, chunked, blocked and
cancelling inputs, the default's accuracy against the classic kernel, the fallbacks, and on the
GPU bitwise equality with the CPU."""
from __future__ import annotations

import contextlib
import math
from fractions import Fraction
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas
from conftest import requires_gpu
from ddblas import accuracy
from ddblas.blas import ozaki as _ozaki
from ddblas.blas import ozaki2 as _ozaki2
from ddblas.engines import backend as _backend
from ddvalues import (TRANS, check_blas_semantics, check_gemm_bound, exact_values,
                      random_matrix, same_bits, scaled_matrix, scaled_within_bound)

OZAKI2 = "ozaki2-int8"


@contextlib.contextmanager
def small_pieces(chunk_length=None, block_bytes=None, residue_bytes=None):
    """Force int8 GEMMs over at most chunk_length of K, row blocks of C of at most block_bytes
    of products, and blocks of C whose residues take at most residue_bytes (1: one row and
    INT8_ALIGN columns): exercises the chunk and block loops at small sizes."""
    with contextlib.ExitStack() as stack:
        if chunk_length is not None:
            stack.enter_context(mock.patch.object(_ozaki2, "chunk", lambda: chunk_length))
        if block_bytes is not None:
            stack.enter_context(mock.patch.object(_ozaki2, "PRODUCT_BYTES", block_bytes))
        if residue_bytes is not None:
            stack.enter_context(mock.patch.object(_ozaki2, "RESIDUE_BYTES", residue_bytes))
        yield


def test_moduli_and_crt_tables_are_exact():
    """The moduli are pairwise coprime and at most 256; q_l = 1 mod m_l and 0 mod the others,
    below P; frac_l is q_l / P rounded; P's limbs give P."""
    c = _ozaki2.constants()
    moduli = c["moduli"]
    assert all(math.gcd(x, y) == 1 for i, x in enumerate(moduli) for y in moduli[i + 1:])
    assert max(moduli) <= 2 * c["residue_max"]
    for count in (1, 7, 31, len(moduli)):
        q, frac, p = _ozaki2.crt_tables(count)
        big = _ozaki2.modulus_product(count)

        def value(limbs):
            return sum(int(x) << (c["limb_bits"] * i) for i, x in enumerate(limbs))
        assert value(p) == big
        for l, m in enumerate(moduli[:count]):
            ql = value(q[l])
            assert 0 < ql < big and ql % m == 1 % m
            assert all(ql % other == 0 for other in moduli[:count] if other != m)
            assert frac[l] == float(Fraction(ql, big))


def _exact(x):
    return np.array(exact_values(x), dtype=object).reshape(x.shape)


@pytest.mark.parametrize("bits", [1, 16, 53, 110, 160])
def test_residues_are_those_of_the_truncated_integers(device, bits):
    """The kernel's residues are A'_ij mod m_l, A'_ij = trunc(x_ij 2^(bits - e_i)), symmetric
    in [-128, 127], for DD entries spread over 2^+-60 with tails of either sign and zeros."""
    x = random_matrix(5, 23, 3, device, spread=60)
    x[1] = 0
    x[2, 3] = -x[2, 3]
    exps = _ozaki._line_stats(x.xp, x.hi, 1)[0]
    count = len(_ozaki2.constants()["moduli"])
    plan = _ozaki2.Plan(bits=bits, moduli=count)
    out = _ozaki2.residues(_backend.backend(device), x, exps, plan, 6)
    out = np.asarray(out.get() if device == "gpu" else out).astype(int)
    exps = np.asarray(exps.get() if device == "gpu" else exps)
    assert out.shape == (count, 6, 32) and not out[:, 5].any() and not out[:, :, 23:].any()
    values = _exact(x)
    for i in range(5):
        for j in range(23):
            scaled = values[i, j] * Fraction(2) ** (bits - int(exps[i]))
            whole = math.trunc(scaled)
            assert abs(whole) < 2 ** bits
            for l, m in enumerate(_ozaki2.constants()["moduli"]):
                r = int(out[l, i, j])
                assert -128 <= r <= 127 and (r - whole) % m == 0, (i, j, m)


def test_plan_rules():
    """bits: the least a with 2 K 2^-a <= u^2 low (classic) or the bound's room (bound, never
    more); moduli: the fewest with P > 4 K 2^(2a); beyond the limits a fallback."""
    opts = ddblas.Options()
    u2 = Fraction(1, 2 ** 106)
    for k, low in ((1, Fraction(1, 4)), (300, Fraction(75)), (8192, Fraction(1, 2 ** 10))):
        a = _ozaki2.bits_needed(low, k, opts)
        assert 2 * k * Fraction(1, 2 ** a) <= u2 * low < 2 * k * Fraction(1, 2 ** (a - 1))
        assert _ozaki2.bits_needed(low, k, opts, "bound") <= a
        count = _ozaki2.moduli_needed(k, a)
        assert _ozaki2.modulus_product(count) > 4 * k * 2 ** (2 * a) \
            >= _ozaki2.modulus_product(count - 1)
    assert _ozaki2.bits_needed(Fraction(1, 2 ** 200), 8, opts) is None
    assert _ozaki2.moduli_needed(8, 150) is None
    assert _ozaki2.bits_needed(None, 5, opts) == 1
    with pytest.raises(ValueError, match="accuracy must be one of"):
        _ozaki2.bits_needed(Fraction(1), 5, opts, "fast")


def _within(a, b, variant, transa="N", transb="N", alpha=1, beta=0, c0=None, **pieces):
    """rgemm ozaki2-int8 runs (no fallback); its error is within the classic bound and
    bound("ozaki2", variant). Returns (C, info)."""
    info = {}
    with small_pieces(**pieces):
        c = ddblas.rgemm(a, b, None if c0 is None else c0.copy(), alpha=alpha, beta=beta,
                         transa=transa, transb=transb, algorithm=OZAKI2, info=info, **variant)
    assert info["algorithm"] == OZAKI2 and info["fallback"] is None
    opts = ddblas.Options(**variant)
    check_gemm_bound(c, a, b, Fraction(alpha), Fraction(beta), c0, transa, transb, **variant)
    check_gemm_bound(c, a, b, Fraction(alpha), Fraction(beta), c0, transa, transb, **variant,
                     const=accuracy.bound_constant("ozaki2", opts))
    return c, info


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(1, 40), st.sampled_from(TRANS),
       st.sampled_from([(1, 0), ("0.75", 0), (-3, "1.5")]), st.integers(0, 10 ** 6),
       st.sampled_from([0, 5, 30]), st.sampled_from([0, 250]),
       st.sampled_from([None, 16, 32]), st.sampled_from([None, 64]), st.sampled_from([None, 1]),
       st.sets(st.integers(0, 8), max_size=2))
def test_within_the_bounds(variant, m, n, k, trans, scalars, seed, spread, outer, chunk_length,
                           block_bytes, residue_bytes, zeros):
    """Random DD matrices, entries spread over 2^+-spread within rows/columns, rows of op(A) and
    columns of op(B) scaled by up to 2^+-250, some of them zero, K in int8 GEMMs of 16 and
    more, C in blocks of one row (and of INT8_ALIGN columns): |C - exact| within both bounds
    wherever the scheme ran."""
    scaled_within_bound(OZAKI2, small_pieces(chunk_length, block_bytes, residue_bytes), variant,
                        m, n, k, trans, scalars, seed, spread, outer, zeros)


def test_chunks_and_blocks(device, variant):
    """K = 37 in GEMMs of 16 (3 chunks), C in blocks of one row, and C in blocks of one row and
    INT8_ALIGN columns (n = 37: three blocks of columns, the last one narrower) give the bits of
    one piece, also into a strided C."""
    a, b = random_matrix(7, 37, 1, device, 10), random_matrix(37, 37, 2, device, 10)
    whole, info = _within(a, b, variant)
    assert info["chunks"] == 1 and info["gemms"] == 1 + info["moduli"]
    assert set(info["seconds"]) == {"plan", "residues", "gemm", "reconstruct"}
    pieces, info = _within(a, b, variant, chunk_length=16, block_bytes=1)
    assert info["chunks"] == 3 and info["gemms"] == 1 + 3 * info["moduli"]
    assert same_bits(whole, pieces)
    with small_pieces(residue_bytes=1):
        blocks = ddblas.rgemm(a, b, algorithm=OZAKI2, **variant)
        strided = ddblas.zeros((14, 74), device=device)[::2, ::-2]
        ddblas.rgemm(a, b, strided, algorithm=OZAKI2, **variant)
    assert same_bits(whole, blocks) and same_bits(whole, strided)


def test_hilbert_and_cancellation(device, variant):
    """The Hilbert matrix squared, and dot products of condition up to 1e30 plus rows x, -x with
    a tiny tail (the result far below (|A||B|)_ij): within the bounds."""
    h = accuracy.hilbert(24, device=device)
    _within(h, h, variant)
    rows, cols = [], []
    for seed, cond in enumerate((1e5, 1e15, 1e30)):
        x, y = accuracy.ill_conditioned_dot(40, cond, seed=seed)
        rows.append(x)
        cols.append(y)
    x = random_matrix(1, 40, 5, "cpu", spread=30)
    cancel = ddblas.array(np.zeros((1, 40)))
    cancel[:, :20] = x[:, :20]
    cancel[:, 20:] = -x[:, :20]
    cancel[0, 39] = 2.0 ** -80
    a = ddblas.DDArray(np.vstack([np.stack([r.hi for r in rows]), cancel.hi]),
                       np.vstack([np.stack([r.lo for r in rows]), cancel.lo]))
    b = ddblas.DDArray(np.stack([r.hi for r in cols], 1), np.stack([r.lo for r in cols], 1))
    _within(a.to_device(device), b.to_device(device), variant)


def test_extreme_magnitudes(device, variant):
    """Rows near DBL_MAX against columns near 2^-900 (scales 2^(e_i + f_j - 2a) at both ends of
    the exponent range): the bounds hold. Subnormal rows: within the bound plus the underflow of
    the two parts (2^-1074 each). A product that overflows is (inf, 0) as in ozaki-int8."""
    a = random_matrix(3, 6, 7, device, spread=3)
    b = random_matrix(6, 4, 8, device, spread=3)
    a[0] = a[0] * 2.0 ** 1015
    b[:, 1] = b[:, 1] * 2.0 ** -900
    _within(a, b, variant)
    a[2] = a[2] * 2.0 ** -1060       # subnormal hi parts (lo 0)
    info = {}
    c = ddblas.rgemm(a, b, algorithm=OZAKI2, info=info, **variant)
    assert info["algorithm"] == OZAKI2
    const = accuracy.bound_constant("ozaki2", ddblas.Options(**variant))
    got, ea, eb = _exact(c), _exact(a), _exact(b)
    for j in range(4):
        exact = sum(ea[2, t] * eb[t, j] for t in range(6))
        scale = sum(abs(ea[2, t] * eb[t, j]) for t in range(6))
        assert abs(got[2, j] - exact) <= const * scale + Fraction(2, 2 ** 1074)
    big = ddblas.full((2, 3), 2.0 ** 1000, device=device)
    info = {}
    c = ddblas.rgemm(big, big.T.copy(), algorithm=OZAKI2, info=info, **variant)
    assert info["algorithm"] == OZAKI2
    cpu = c.to_device("cpu")
    assert np.all(cpu.hi == np.inf) and not cpu.lo.any()  # as ozaki-int8: (inf, 0)
    assert same_bits(c, ddblas.rgemm(big, big.T.copy(), algorithm="ozaki-int8", **variant))


@pytest.mark.parametrize("poison", ["inf", "nan"])
def test_non_finite_inputs_fall_back_to_the_classic_kernel(device, variant, poison):
    a, b = random_matrix(3, 4, 11, device), random_matrix(4, 2, 12, device)
    a[1, 2] = poison
    info = {}
    got = ddblas.rgemm(a, b, algorithm=OZAKI2, info=info, **variant)
    assert "non-finite" in info["fallback"] and info["gemms"] == 0
    assert same_bits(got, ddblas.rgemm(a, b, algorithm="blocked", **variant))


def test_too_many_bits_fall_back(device, variant):
    """(|A||B|)_ij 2^-300 of 2^(e_i + f_j): more than MAX_BITS bits per operand; the classic
    kernel runs."""
    a, b = random_matrix(3, 8, 13, device, spread=5), random_matrix(8, 3, 14, device, spread=5)
    a[:, 0] = a[:, 0] * 2.0 ** 300
    b[0] = b[0] * 2.0 ** -300
    info = {}
    got = ddblas.rgemm(a, b, algorithm=OZAKI2, info=info, **variant)
    assert "bits" in info["fallback"] and info["algorithm"] != OZAKI2
    assert same_bits(got, ddblas.rgemm(a, b, algorithm="blocked", **variant))


def test_blas_semantics_and_views(device):
    check_blas_semantics(OZAKI2, device)


def _error(a, b, **kw) -> float:
    return accuracy.gemm_error(ddblas.rgemm(a, b, **kw), a, b).max


@pytest.mark.parametrize("k, spread", [(64, 0), (700, 0), (300, 12)])
def test_default_is_as_accurate_as_the_classic_kernel(device, k, spread):
    """Issue 18's criterion for scheme II: the default rule's measured error is at most twice
    the classic kernel's on the same data, and within bound("ozaki2")."""
    a, b = (accuracy.random_dd(shape, exponents=(-spread, spread), seed=s, device=device)
            if spread else ddblas.random(shape, seed=s, device=device) * 2 - 1
            for shape, s in (((12, k), 1), ((k, 10), 2)))
    info = {}
    error = _error(a, b, algorithm=OZAKI2, info=info)
    assert info["algorithm"] == OZAKI2
    assert error <= 2 * _error(a, b, algorithm="blocked")
    assert error <= accuracy.bound("ozaki2")


def test_too_few_bits_break_the_bound():
    """The checks have teeth: 60-bit operands (fewer than the rule picks) exceed the classic
    bound on the same data."""
    a, b = random_matrix(4, 8, 31, "cpu", 40), random_matrix(8, 4, 32, "cpu", 40)
    info = {}
    c = ddblas.rgemm(a, b, algorithm=OZAKI2, info=info)
    bound = accuracy.bound("gemm", None, 8)
    assert info["bits"] > 60 and accuracy.gemm_error(c, a, b).within(bound)
    with mock.patch.object(_ozaki2, "bits_needed", lambda *args: 60):
        c = ddblas.rgemm(a, b, algorithm=OZAKI2)
    assert not accuracy.gemm_error(c, a, b).within(bound)


# ---- GPU: bitwise equality with the CPU ----
@requires_gpu
@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 1, 1), (17, 33, 129), (64, 64, 300), (129, 31, 1000)],
                         ids=lambda s: "x".join(map(str, s)))
def test_gpu_equals_cpu_bitwise(shape):
    """Entries spread over 2^+-8 within rows of op(A) and columns of op(B), those scaled by up
    to 2^+-30, a zero row and column, every variant, chunks of K, row blocks of C and blocks of
    rows and columns."""
    m, n, k = shape
    for t, (transa, transb) in enumerate(TRANS):
        op_a = scaled_matrix(m, k, 40 + t, 8, 30, 0, (0,), ())
        op_b = scaled_matrix(k, n, 50 + t, 8, 0, 30, (), (1,))
        a = op_a.T.copy() if transa != "N" else op_a
        b = op_b.T.copy() if transb != "N" else op_b
        c0 = random_matrix(m, n, 60 + t, "cpu")
        for pieces, (fma, add) in zip([{}, {"chunk_length": 64}, {"block_bytes": 1},
                                       {"residue_bytes": 1}],
                                      [(True, "accurate"), (True, "sloppy"),
                                       (False, "accurate"), (False, "sloppy")]):
            kw = dict(transa=transa, transb=transb, fma=fma, add=add, alpha="0.7", beta=-2,
                      algorithm=OZAKI2)
            cpu_info, gpu_info = {}, {}
            with small_pieces(**pieces):
                ref = ddblas.rgemm(a, b, c0.copy(), info=cpu_info, **kw)
                got = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), c0.to_device("gpu"),
                                   info=gpu_info, **kw)
            assert cpu_info["algorithm"] == gpu_info["algorithm"] == OZAKI2, cpu_info["fallback"]
            assert (cpu_info["moduli"], cpu_info["bits"]) == (gpu_info["moduli"],
                                                              gpu_info["bits"])
            assert same_bits(ref, got), (shape, transa, transb, fma, add, pieces)
