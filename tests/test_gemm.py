"""rgemm and matmul: error bound against exact rationals, BLAS semantics, views, errors; on the
GPU, bitwise equality with the CPU for every variant, transpose, algorithm and the shape grid."""
from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import ddblas
from conftest import requires_gpu
from ddblas.core.convert import dd_from_fraction
from ddvalues import TRANS, check_gemm_bound, dd_value, exact_values, random_matrix, same_bits

SHAPE_GRID = [1, 2, 15, 16, 17, 31, 33, 127, 129]


@given(st.integers(0, 7), st.integers(0, 7), st.integers(0, 9), st.sampled_from(TRANS),
       st.sampled_from([(1, 0), ("0.75", 0), (-3, "1.5"), (1, 1)]), st.integers(0, 10 ** 6))
def test_rgemm_within_bound(variant, m, n, k, trans, scalars, seed):
    transa, transb = trans
    alpha, beta = scalars
    a = random_matrix(*((m, k) if transa == "N" else (k, m)), seed, "cpu")
    b = random_matrix(*((k, n) if transb == "N" else (n, k)), seed + 1, "cpu")
    c0 = random_matrix(m, n, seed + 2, "cpu") if beta != 0 else None
    c = ddblas.rgemm(a, b, None if c0 is None else c0.copy(), alpha=alpha, beta=beta,
                     transa=transa, transb=transb, **variant)
    assert c.shape == (m, n)
    check_gemm_bound(c, a, b, Fraction(alpha), Fraction(beta), c0, transa, transb, **variant)


@given(dd_value(-60, 60, allow_zero=False), dd_value(-60, 60, allow_zero=False),
       dd_value(-60, 60, allow_zero=False), st.integers(-130, -1), st.sampled_from([1, -1]))
def test_madd_step_that_cancels_within_bound(variant, x0, y0, y1, shift, sign):
    """K = 2 with x1*y1 = -x0*y0 (1 + sign 2^shift): the second multiply-add cancels the first
    down to its tails, the case where the fused sloppy madd's last Fast2Sum has |lo| > |hi| inputs."""
    exact = [Fraction(x0[0]) + Fraction(x0[1]), Fraction(y0[0]) + Fraction(y0[1]),
             Fraction(y1[0]) + Fraction(y1[1])]
    x1 = dd_from_fraction(-exact[0] * exact[1] / exact[2] * (1 + sign * Fraction(2) ** shift))
    a = ddblas.DDArray(np.array([[x0[0], x1[0]]]), np.array([[x0[1], x1[1]]]))
    b = ddblas.DDArray(np.array([[y0[0]], [y1[0]]]), np.array([[y0[1]], [y1[1]]]))
    c = ddblas.rgemm(a, b, **variant)
    check_gemm_bound(c, a, b, 1, 0, None, "N", "N", **variant)


def test_cancellation_heavy_dot_products(variant):
    """Rows of A are x, -x: a float64 GEMM returns 0 or noise, DD returns the small exact part."""
    x = random_matrix(1, 40, 5, "cpu", spread=30)
    tiny = ddblas.array([[2.0 ** -80]])
    a = ddblas.array(np.zeros((1, 81)))
    a[:, :40] = x
    a[:, 40:80] = -x
    a[:, 80:] = tiny
    b = ddblas.ones((81, 1))
    c = ddblas.rgemm(a, b, **variant)
    check_gemm_bound(c, a, b, 1, 0, None, "N", "N", **variant)


def test_blas_scalars_and_c_semantics(device):
    a, b = random_matrix(4, 3, 1, device), random_matrix(3, 5, 2, device)
    c = ddblas.full((4, 5), "nan", device=device)
    out = ddblas.rgemm(a, b, c)  # beta = 0: the NaNs in C never leak
    assert out is c and exact_values(c) == exact_values(a @ b)
    c0 = random_matrix(4, 5, 3, device)
    c = c0.copy()
    poisoned = a.copy()
    poisoned[0, 0] = "nan"
    ddblas.rgemm(poisoned, b, c, alpha=0, beta="0.5")  # alpha = 0 skips the product
    assert exact_values(c) == exact_values(c0 * "0.5")
    ddblas.rgemm(a, b, c, alpha=0, beta=0)
    assert exact_values(c) == [0] * 20
    assert ddblas.rgemm(ddblas.zeros((0, 3), device=device), b).shape == (0, 5)
    empty_k = ddblas.rgemm(ddblas.zeros((4, 0), device=device), ddblas.zeros((0, 5), device=device))
    assert exact_values(empty_k) == [0] * 20
    c = c0.copy()
    ddblas.rgemm(ddblas.zeros((4, 0), device=device), ddblas.zeros((0, 5), device=device), c,
                 beta=2)
    assert exact_values(c) == [2 * v for v in exact_values(c0)]
    alpha = ddblas.array("0.1", device=device)
    assert exact_values(ddblas.rgemm(a, b, alpha=alpha)) == \
        exact_values(ddblas.rgemm(a, b, alpha="0.1"))


def test_non_finite_inputs_give_non_finite_results(device, variant):
    a, b = random_matrix(3, 4, 11, device), random_matrix(4, 2, 12, device)
    a[1, 2] = "inf"
    c = ddblas.rgemm(a, b, **variant).to_device("cpu")
    assert not np.isfinite(c.hi[1]).any()
    assert np.isfinite(c.hi[[0, 2]]).all()


def test_views_are_read_and_written_in_place(device):
    big = random_matrix(9, 12, 4, device)
    a = big[1:7:2, ::3]           # strided view, 3 x 4
    b = big[::2, 1:6].T[:4]       # transposed strided view, 4 x 5
    ref = ddblas.rgemm(a.copy(), b.copy())
    assert exact_values(ddblas.rgemm(a, b)) == exact_values(ref)
    target = ddblas.zeros((6, 10), device=device)
    ddblas.rgemm(a, b, target[::2, 5:])
    assert exact_values(target[::2, 5:]) == exact_values(ref)
    assert exact_values(target[1::2]) == [0] * 30
    x = random_matrix(4, 4, 6, device)
    expected = exact_values(x @ x)
    ddblas.rgemm(x, x, x)  # c aliases a and b: inputs are copied first
    assert exact_values(x) == expected


def test_matmul_and_operator(device):
    a, b = random_matrix(3, 4, 7, device), random_matrix(4, 2, 8, device)
    assert exact_values(a @ b) == exact_values(ddblas.rgemm(a, b))
    assert exact_values(np.matmul(a, b)) == exact_values(ddblas.rgemm(a, b))
    v = random_matrix(4, 1, 9, device).reshape(4)
    assert (a @ v).shape == (3,) and (v @ b).shape == (2,) and (v @ v).shape == ()
    assert exact_values(a @ v) == exact_values(ddblas.rgemm(a, v.reshape(4, 1)))
    if device == "cpu":
        f = np.ones((2, 3))
        assert exact_values(f @ a) == exact_values(ddblas.asarray(f) @ a)


def test_errors_name_the_problem(device):
    a, b = ddblas.ones((2, 3), device=device), ddblas.ones((4, 5), device=device)
    with pytest.raises(ValueError, match=r"2x3.*\(2, 3\).*4x5"):
        ddblas.rgemm(a, b)
    with pytest.raises(ValueError, match="'X'"):
        ddblas.rgemm(a, a, transa="X")
    with pytest.raises(ValueError, match="transb"):
        ddblas.rgemm(a, a, transb=1)
    with pytest.raises(ValueError, match=r"\(2, 2\).*3x3"):
        ddblas.rgemm(a, a, ddblas.ones((2, 2), device=device), transa="T")
    with pytest.raises(ValueError, match="beta"):
        ddblas.rgemm(a, a.T, beta=1)
    with pytest.raises(ValueError, match="'fast'"):
        ddblas.rgemm(a, a.T, algorithm="fast")
    # block is the int 2 or 4: 2.0 passed the check and the GPU's kernel name "b2.0" was a
    # KeyError (the CPU does not use block)
    for block in (3, 2.0, np.float64(4), "4", True):
        with pytest.raises(ValueError, match=f"^block must be 2 or 4, got "
                                             f"{re.escape(repr(block))}$"):
            ddblas.rgemm(a, a.T, block=block)
    assert same_bits(ddblas.rgemm(a, a.T, block=np.int64(2)), ddblas.rgemm(a, a.T, block=2))
    with pytest.raises(ValueError, match="2-D"):
        ddblas.rgemm(ddblas.ones(3, device=device), a)
    with pytest.raises(ValueError, match="scalar"):
        ddblas.rgemm(a, a.T, alpha=[1, 2])
    with pytest.raises(ValueError, match="align"):
        a @ a
    # a c that is not a DDArray: a float64 array lost its lo part, others were not written
    for c in (np.ones((2, 2)), np.ones((2, 2), np.float32), [[1, 1], [1, 1]]):
        with pytest.raises(TypeError, match="rgemm: c must be a DDArray"):
            ddblas.rgemm(a, a.T, c, beta=1)
    with pytest.raises(TypeError, match="rgemm_batched: c must be a DDArray"):
        ddblas.rgemm_batched(a.reshape(1, 2, 3), a.T.reshape(1, 3, 2), np.ones((1, 2, 2)))


def test_read_only_c_is_refused():
    hi = np.zeros((2, 2))
    hi.flags.writeable = False
    c = ddblas.DDArray(hi, np.zeros((2, 2)))
    with pytest.raises(ValueError, match="read-only"):
        ddblas.rgemm(ddblas.ones((2, 2)), ddblas.ones((2, 2)), c)


@requires_gpu
@pytest.mark.gpu
def test_mixed_devices_are_refused():
    with pytest.raises(ValueError, match="to_device"):
        ddblas.rgemm(ddblas.ones((2, 2)), ddblas.ones((2, 2), device="gpu"))


# ---- GPU: bitwise equality with the CPU twin ----
def _gpu_cases():
    cases = []
    for idx, m in enumerate(SHAPE_GRID):
        n = SHAPE_GRID[(idx + 3) % len(SHAPE_GRID)]
        k = SHAPE_GRID[(idx + 5) % len(SHAPE_GRID)]
        cases.append((m, n, k))
    return cases + [(1, 1, 1), (129, 129, 129), (64, 64, 300)]


@requires_gpu
@pytest.mark.gpu
@pytest.mark.parametrize("shape", _gpu_cases(), ids=lambda s: "x".join(map(str, s)))
def test_gpu_equals_cpu_bitwise(shape):
    m, n, k = shape
    for t, (transa, transb) in enumerate(TRANS):
        a = random_matrix(*((m, k) if transa == "N" else (k, m)), 10 + t, "cpu")
        b = random_matrix(*((k, n) if transb == "N" else (n, k)), 20 + t, "cpu")
        c0 = random_matrix(m, n, 30 + t, "cpu")
        ga, gb = a.to_device("gpu"), b.to_device("gpu")
        for fma in (True, False):
            for add in ("accurate", "sloppy"):
                kw = dict(transa=transa, transb=transb, fma=fma, add=add, alpha="0.7", beta=-2)
                ref = ddblas.rgemm(a, b, c0.copy(), **kw)
                for algorithm, block in [("naive", 2), ("tiled", 2), ("blocked", 2), ("blocked", 4)]:
                    got = ddblas.rgemm(ga, gb, c0.to_device("gpu"), algorithm=algorithm,
                                       block=block, **kw)
                    assert same_bits(ref, got), (algorithm, block, transa, transb, fma, add)


@requires_gpu
@pytest.mark.parametrize("algorithm, block, bm", [("tiled", None, 16), ("blocked", 2, 32)])
def test_classic_kernels_past_the_grids_rows(algorithm, block, bm):
    """Probe of 2026-11-28: a C of more than 65535 blocks of rows (the grid's y dimension) failed
    to launch on the GPU; auto sends such products there since tsm stops at 8388480 rows. The
    classic runner now launches a band of rows at a time: the same sums, the same bits."""
    m = 65535 * bm + 37
    a = ddblas.random((m, 3), seed=1, device="gpu")
    b = ddblas.random((3, 2), seed=2, device="gpu")
    c = ddblas.rgemm(a, b, algorithm=algorithm, block=block)
    for rows in (slice(0, 40), slice(65535 * bm - 20, 65535 * bm + 20), slice(m - 40, m)):
        part = ddblas.rgemm(a[rows], b, algorithm=algorithm, block=block)
        assert same_bits(c[rows].to_device("cpu"), part.to_device("cpu"))
        assert same_bits(part.to_device("cpu"), ddblas.rgemm(a[rows].to_device("cpu"),
                                                             b.to_device("cpu")))
