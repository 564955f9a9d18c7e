"""ddblas.linalg's Jacobi methods: svd and what it gives (svdvals, matrix_rank, pinv, norm's and
cond's 2-norms), and eigh / eigvalsh (their own checks at the end):
A - U S V^T, U^T U - I and V^T V - I measured exactly (rational arithmetic) and the singular
values against mpmath at 256 bits, all within accuracy.bound("svd") (docs/linalg.md, "Singular
values"); NumPy's shapes, stacks and errors; exact power-of-two scaling near DBL_MAX and
underflow."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas
from ddblas import accuracy, linalg
from ddblas.core.options import Options
from ddvalues import exact_values, random_matrix, same_bits


def exact(x: ddblas.DDArray) -> list:
    """x (2-D) as a list of rows of Fractions."""
    x = x.to_device("cpu")
    values = exact_values(x) if x.size else []
    cols = x.shape[1]
    return [values[i * cols:(i + 1) * cols] for i in range(x.shape[0])]


def svd_constant(m: int, info: dict, variant: dict) -> Fraction:
    return accuracy.bound_constant("svd", Options(**variant) if variant else None,
                                   info["rounds"] + m)


def mpmath_singular_values(rows: list) -> list:
    with mpmath.workprec(256):
        values = mpmath.svd_r(mpmath.matrix([[mpmath.mpf(v.numerator) / v.denominator
                                              for v in row] for row in rows]),
                              compute_uv=False)
        return sorted((accuracy.exact_value(v) for v in values), reverse=True)


def orthogonality_error(x: list) -> Fraction:
    """max |X^T X - I| over the columns of x (rows of Fractions)."""
    cols = len(x[0]) if x else 0
    return max((abs(sum(r[i] * r[j] for r in x) - (i == j)) for i in range(cols)
                for j in range(cols)), default=Fraction(0))


def check_svd(a: ddblas.DDArray, u, s, vh, info: dict, variant: dict) -> None:
    m, n = a.shape
    c = svd_constant(m, info, variant)
    A, U, S, V = exact(a), exact(u), exact(s[None, :])[0], exact(vh)
    k = len(S)
    frobenius2 = sum(x * x for row in A for x in row)
    residual2 = sum((A[i][j] - sum(U[i][l] * S[l] * V[l][j] for l in range(k))) ** 2
                    for i in range(m) for j in range(n))
    assert residual2 <= c * c * frobenius2
    assert orthogonality_error(U) <= c
    assert orthogonality_error([list(col) for col in zip(*V)]) <= c   # rows of Vh
    assert S == sorted(S, reverse=True) and all(x >= 0 for x in S)
    reference = mpmath_singular_values(A)
    scale2 = frobenius2   # ||A||_2 <= ||A||_F
    for computed, want in zip(S, reference):
        assert (computed - want) ** 2 <= c * c * scale2


@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (6, 3), (3, 6), (9, 9)])
def test_svd_bounds(shape, device, variant):
    a = random_matrix(*shape, seed=sum(shape), device=device)
    info = {}
    u, s, vh = linalg.svd(a, full_matrices=False, info=info, **variant)
    assert info["sweeps"] >= 1 and info["rounds"] >= 1
    check_svd(a if shape[0] >= shape[1] else a.T, *((u, s, vh) if shape[0] >= shape[1]
                                                     else (vh.T, s, u.T)), info, variant)


@pytest.mark.parametrize("m, n", [(600, 3), (70000, 2)])
def test_long_columns_sum_in_chunks(device, m, n):
    """Columns longer than sum()'s chunks of 256, whose dot products the round kernel sums in
    sum()'s order (70000 rows: three levels of chunk sums): A - U S V^T and U^T U - I exactly
    within the bound."""
    a = random_matrix(m, n, seed=m, device=device)
    info = {}
    u, s, vh = linalg.svd(a, full_matrices=False, info=info)
    c = svd_constant(m, info, {})
    A, U, S, V = exact(a), exact(u), exact(s[None, :])[0], exact(vh)
    frobenius2 = sum(x * x for row in A for x in row)
    residual2 = sum((A[i][j] - sum(U[i][k] * S[k] * V[k][j] for k in range(n))) ** 2
                    for i in range(m) for j in range(n))
    assert residual2 <= c * c * frobenius2
    assert orthogonality_error(U) <= c and S == sorted(S, reverse=True)


def test_gpu_equals_cpu(device, variant):
    """The round kernels give the CPU's bits on the GPU: svd (tall, wide, rank-deficient,
    columns longer than a chunk) and eigh, every variant."""
    if device != "gpu":
        pytest.skip("the CPU is the reference")
    deficient = random_matrix(10, 6, seed=3)
    deficient = deficient * ddblas.asarray(np.array([1.0, 1, 0, 1, 1, 0]))
    for a in (random_matrix(300, 9, seed=1), random_matrix(7, 11, seed=2), deficient):
        got = linalg.svd(a.to_device("gpu"), **variant)
        want = linalg.svd(a, **variant)
        assert all(same_bits(x, y) for x, y in zip(got, want))
    sym = random_matrix(13, 13, seed=4)
    sym = sym + sym.T
    got, want = linalg.eigh(sym.to_device("gpu"), **variant), linalg.eigh(sym, **variant)
    assert all(same_bits(x, y) for x, y in zip(got, want))


@settings(max_examples=8, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 2 ** 32 - 1),
       st.sampled_from([0, 1, 2]))
def test_hypothesis_shapes(m, n, seed, zero_columns):
    """Random shapes, some columns zeroed (rank deficiency): the bounds, and full U and Vh."""
    a0 = random_matrix(m, n, seed=seed).to_device("cpu")
    keep = np.arange(n) >= min(zero_columns, n - 1)
    a = ddblas.DDArray(a0.hi * keep, a0.lo * keep)
    info = {}
    u, s, vh = linalg.svd(a, info=info)
    assert (u.shape, s.shape, vh.shape) == ((m, m), (min(m, n),), (n, n))
    k = min(m, n)
    tall = m >= n
    check_svd(a if tall else a.T, u[:, :k] if tall else vh[:k].T, s,
              vh if tall else u.T, info, {})
    assert orthogonality_error(exact(u)) <= svd_constant(max(m, n), info, {})


def test_ill_conditioned_and_hilbert(device):
    for a in (accuracy.ill_conditioned_matrix(8, 1e25, seed=3, device=device),
              accuracy.hilbert(7, device=device)):
        info = {}
        u, s, vh = linalg.svd(a, info=info)
        check_svd(a, u, s, vh, info, {})


def test_rank_deficient_matrices_get_orthonormal_bases(device):
    left = np.array([[1, 2], [0, 1], [3, -1], [2, 2], [1, 0], [-1, 1]], dtype=float)
    a = ddblas.asarray(left @ np.array([[1, 0, 2, -1], [0, 1, 1, 3]], dtype=float), device=device)
    info = {}
    u, s, vh = linalg.svd(a, info=info)          # full: U 6 x 6 completed past rank 2
    assert u.shape == (6, 6) and vh.shape == (4, 4)
    c = svd_constant(6, info, {})
    norm = max(exact(s[None, :])[0])
    assert all(x <= c * norm * 4 for x in exact(s[None, 2:])[0])
    assert orthogonality_error(exact(u)) <= c and orthogonality_error(exact(vh.T)) <= c
    assert linalg.matrix_rank(a) == 2
    zero = ddblas.zeros((3, 2), device=device)
    u0, s0, vh0 = linalg.svd(zero)
    assert not s0.hi.any() and orthogonality_error(exact(u0)) == 0 and \
        orthogonality_error(exact(vh0)) == 0
    assert linalg.matrix_rank(zero) == 0


@pytest.mark.parametrize("k", [1000, -900])
def test_power_of_two_scaling_is_exact(k, device):
    """sigma(A 2^k) = sigma(A) 2^k bit for bit: svd works on A scaled into [1/2, 1)."""
    a = random_matrix(5, 4, seed=7, device=device)
    s, s_scaled = linalg.svdvals(a), linalg.svdvals(a * 2.0 ** k)
    assert same_bits(s_scaled.hi, (s * 2.0 ** k).hi) and same_bits(s_scaled.lo, (s * 2.0 ** k).lo)


def test_extreme_magnitudes(device):
    big = ddblas.asarray(np.array([[1.5, -1.7], [1.0, 1.2]]) * 2.0 ** 1021, device=device)
    want = np.linalg.svd(np.array([[1.5, -1.7], [1.0, 1.2]]), compute_uv=False) * 2.0 ** 1021
    assert np.allclose(linalg.svdvals(big).to_device("cpu").hi, want, rtol=1e-15, atol=0)
    # columns 2^-600 below the largest: still rotated against each other (each column's dots
    # are taken scaled), so U and V stay orthonormal and the small values keep their digits
    block = np.array([[2.0, 6.0], [1.0, 2.0], [0.0, 4.0]])
    a = np.zeros((4, 3))
    a[0, 0], a[1:, 1:] = 1.0, block * 2.0 ** -601
    u, s, vh = linalg.svd(ddblas.asarray(a, device=device))
    assert orthogonality_error(exact(u)) <= 2.0 ** -90
    assert orthogonality_error(exact(vh.T)) <= 2.0 ** -90
    want = mpmath_singular_values([[Fraction(x) for x in row] for row in block.tolist()])
    for got, w in zip(exact(s[None, 1:])[0], want):
        assert abs(got * 2 ** 601 - w) <= Fraction(2) ** -95 * w
    tiny = ddblas.asarray(np.array([[3.0, 1.0], [1.0, 2.0]]) * 2.0 ** -1060, device=device)
    want = np.linalg.svd(np.array([[3.0, 1.0], [1.0, 2.0]]), compute_uv=False) * 2.0 ** -1060
    assert np.all(np.abs(linalg.svdvals(tiny).to_device("cpu").hi - want) <= 2.0 ** -1072)


def test_shapes_stacks_and_numpy_entry_points(device):
    stack = random_matrix(6, 4, seed=1, device=device).reshape(2, 3, 4)
    u, s, vh = linalg.svd(stack)
    assert (u.shape, s.shape, vh.shape) == ((2, 3, 3), (2, 3), (2, 4, 4))
    u, s, vh = np.linalg.svd(stack, full_matrices=False)
    assert (u.shape, s.shape, vh.shape) == ((2, 3, 3), (2, 3), (2, 3, 4))
    for i in range(2):
        one = linalg.svd(stack[i], full_matrices=False)
        assert all(same_bits(x.hi, y[i].hi) for x, y in zip(one, (u, s, vh)))
    assert same_bits(np.linalg.svd(stack, compute_uv=False).hi, s.hi)
    if hasattr(np.linalg, "svdvals"):
        assert same_bits(np.linalg.svdvals(stack).hi, s.hi)
    for shape in [(0, 3), (3, 0), (0, 0)]:
        got = linalg.svd(ddblas.zeros(shape, device=device))
        want = np.linalg.svd(np.zeros(shape))
        assert [x.shape for x in got] == [x.shape for x in want]
        assert same_bits(got.Vh.hi, want.Vh) and same_bits(got.U.hi, want.U)
    a = random_matrix(5, 3, seed=4, device=device)
    s = linalg.svdvals(a)
    assert same_bits(np.linalg.norm(a, 2).hi, s[0].hi)
    assert same_bits(linalg.norm(a, -2).hi, s[2].hi)
    assert same_bits(linalg.matrix_norm(a, ord="nuc").hi, ddblas.sum(s).hi)
    assert same_bits(np.linalg.cond(a).hi, (s[0] / s[2]).hi)   # NumPy's p=None: the 2-norm
    assert same_bits(linalg.cond(a, -2).hi, (s[2] / s[0]).hi)
    assert np.linalg.matrix_rank(a) == 3
    assert np.linalg.matrix_rank(a, tol=float(s[1].hi) * (1 + 1e-12)) == 1
    assert np.linalg.matrix_rank(ddblas.asarray(np.zeros(3), device=device)) == 0
    assert linalg.pinv(a).shape == (3, 5)


def test_pinv_is_the_exact_pseudo_inverse_to_the_bound(device):
    """Full column rank: pinv(A) = (A^T A)^-1 A^T, computed here in Fractions."""
    a0 = np.array([[2, -1, 0], [1, 3, 1], [0, 1, 4], [1, 0, 1], [-2, 1, 1]], dtype=float)
    a = ddblas.asarray(a0, device=device)
    info = {}
    s = linalg.svd(a, compute_uv=False, info=info)
    got = exact(np.linalg.pinv(a))
    A = [[Fraction(x) for x in row] for row in a0.tolist()]
    gram = [[sum(A[r][i] * A[r][j] for r in range(5)) for j in range(3)] for i in range(3)]
    inverse = _inverse(gram)
    want = [[sum(inverse[i][l] * A[j][l] for l in range(3)) for j in range(5)] for i in range(3)]
    kappa = Fraction(float(s[0].hi)) / Fraction(float(s[2].hi))
    c = svd_constant(5, info, {})
    scale = max(abs(x) for row in want for x in row)
    assert max(abs(g - w) for gr, wr in zip(got, want) for g, w in zip(gr, wr)) <= \
        10 * c * kappa * kappa * scale


def _inverse(m: list) -> list:
    n = len(m)
    work = [row[:] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(m)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if work[r][col] != 0)
        work[col], work[pivot] = work[pivot], work[col]
        work[col] = [x / work[col][col] for x in work[col]]
        for r in range(n):
            if r != col and work[r][col] != 0:
                f = work[r][col]
                work[r] = [x - f * y for x, y in zip(work[r], work[col])]
    return [row[n:] for row in work]


def test_errors_name_the_argument(device):
    with pytest.raises(linalg.LinAlgError, match="^a must be a matrix or a stack of matrices"):
        linalg.svd(ddblas.zeros(3, device=device))
    bad = ddblas.asarray(np.array([[1.0, np.nan], [0.0, 1.0]]), device=device)
    with pytest.raises(ValueError, match="\\ba\\b"):
        linalg.svd(bad)
    with pytest.raises(TypeError, match="full_matrices"):
        linalg.svd(ddblas.zeros((2, 2), device=device), full_matrices="yes")
    with pytest.raises(ValueError, match="tol"):
        linalg.matrix_rank(ddblas.zeros((2, 2), device=device), tol=1.0, rtol=1.0)
    with pytest.raises(ValueError, match="rcond"):
        linalg.pinv(ddblas.zeros((2, 2), device=device), rcond=1.0, rtol=1.0)
    a = ddblas.asarray(np.eye(2), device=device)
    before = (a.hi.copy(), a.lo.copy())
    linalg.svd(a), linalg.pinv(a), linalg.matrix_rank(a)
    assert same_bits(a.hi, before[0]) and same_bits(a.lo, before[1])


def eigh_constant(n: int, info: dict, variant: dict) -> Fraction:
    return accuracy.bound_constant("eigh", Options(**variant) if variant else None,
                                   info["rounds"] + n)


def check_eigh(a: ddblas.DDArray, w, v, info: dict, variant: dict) -> None:
    """||A V - V diag(w)||_F <= c ||A||_F, |V^T V - I| <= c exactly, w ascending and within
    c ||A||_F of mpmath's eigenvalues at 256 bits."""
    n = a.shape[0]
    c = eigh_constant(n, info, variant)
    A, V, W = exact(a), exact(v), exact(w[None, :])[0]
    frobenius2 = sum(x * x for row in A for x in row)
    residual2 = sum((sum(A[i][l] * V[l][j] for l in range(n)) - V[i][j] * W[j]) ** 2
                    for i in range(n) for j in range(n))
    assert residual2 <= c * c * frobenius2
    assert orthogonality_error(V) <= c
    assert W == sorted(W)
    with mpmath.workprec(256):
        values, _ = mpmath.eigsy(mpmath.matrix([[mpmath.mpf(x.numerator) / x.denominator
                                                 for x in row] for row in A]))
        reference = sorted(accuracy.exact_value(x) for x in values)
    for got, want in zip(W, reference):
        assert (got - want) ** 2 <= c * c * frobenius2


def symmetric(n: int, seed: int, device: str) -> ddblas.DDArray:
    b = random_matrix(n, n, seed=seed, device=device)
    return b + b.T


@pytest.mark.parametrize("n", [1, 2, 5, 9])
def test_eigh_bounds(n, device, variant):
    a = symmetric(n, n, device)
    info = {}
    w, v = linalg.eigh(a, info=info, **variant)
    check_eigh(a, w, v, info, variant)


def test_eigh_special_matrices(device):
    for a in (accuracy.hilbert(7, device=device),                 # positive definite, kappa 4.8e8
              ddblas.asarray(np.diag([1.0, -1.0, 1.0, -1.0]), device=device),   # +-1, repeated
              ddblas.asarray(np.array([[0.0, 1.0], [1.0, 0.0]]), device=device),
              ddblas.asarray(np.ones((4, 4)), device=device),    # rank one: 4, 0, 0, 0
              ddblas.zeros((3, 3), device=device)):
        info = {}
        w, v = linalg.eigh(a, info=info)
        check_eigh(a, w, v, info, {})


def test_eigh_reads_one_triangle_and_takes_numpys_arguments(device):
    a = symmetric(5, 3, device)
    junk = a + ddblas.asarray(np.triu(np.full((5, 5), 1e300), 1), device=device)
    lower, upper = np.linalg.eigh(junk), np.linalg.eigh(junk.T, UPLO="U")
    want = linalg.eigh(a)
    assert all(same_bits(x.hi, y.hi) for x, y in zip(lower, want))
    assert all(same_bits(x.hi, y.hi) for x, y in zip(upper, want))
    assert same_bits(np.linalg.eigvalsh(junk).hi, want.eigenvalues.hi)
    stack = ddblas.stack([a, 2.0 * a])
    w, v = np.linalg.eigh(stack)
    assert w.shape == (2, 5) and v.shape == (2, 5, 5)
    assert same_bits(w[0].hi, want.eigenvalues.hi) and same_bits(w[1].hi, (2 * want[0]).hi)
    big = linalg.eigvalsh(a * 2.0 ** 1000)
    assert same_bits(big.hi, (want.eigenvalues * 2.0 ** 1000).hi)
    with pytest.raises(linalg.LinAlgError, match="square"):
        linalg.eigh(ddblas.zeros((2, 3), device=device))
    with pytest.raises(ValueError, match="UPLO"):
        linalg.eigh(a, UPLO="X")
    with pytest.raises(ValueError, match="\\ba\\b"):
        linalg.eigh(ddblas.asarray(np.array([[np.nan, 0.0], [0.0, 1.0]]), device=device))
    e = linalg.eigh(ddblas.zeros((0, 0), device=device))
    assert e.eigenvalues.shape == (0,) and e.eigenvectors.shape == (0, 0)
