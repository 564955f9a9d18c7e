"""ddblas.linalg's factorizations and the BLAS level-2/3 pieces (rtrsm, rsyrk, rgemv): backward
errors measured exactly (rational arithmetic, accuracy.gemm_error) against the documented bounds
(accuracy.bound("lu" | "cholesky" | "trsm", variant, n), docs/linalg.md), SciPy's semantics,
errors naming the index or argument, views and stacks, and CPU == GPU bit for bit."""
from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas
from ddblas import accuracy, linalg
from ddblas.blas.level3 import recursion_split
from ddblas.engines import cpu
from ddblas.core.options import Options
from ddblas.linalg import batched, factor
from ddvalues import exact_values, random_matrix, same_bits

VARIANT_NAMES = {(True, "accurate"): "fma/accurate", (True, "sloppy"): "fma/sloppy",
                 (False, "accurate"): "nofma/accurate", (False, "sloppy"): "nofma/sloppy"}


def variant_name(variant: dict) -> str:
    return VARIANT_NAMES[variant["fma"], variant["add"]]


def host(x: ddblas.DDArray):
    """(hi, lo) NumPy copies of a DDArray."""
    x = x.to_device("cpu")
    return np.array(x.hi), np.array(x.lo)


def dd(hi, lo, device) -> ddblas.DDArray:
    return ddblas.DDArray(np.asarray(hi, dtype=float), np.asarray(lo, dtype=float),
                          normalize=False).to_device(device)


def triangle(x: ddblas.DDArray, lower: bool, unit: bool = False) -> ddblas.DDArray:
    """The lower (upper) triangle of x with zeros elsewhere (ones on the diagonal if unit), on
    the CPU: the matrix a factorization or solve is defined by."""
    hi, lo = host(x)
    keep = np.tri(*hi.shape, dtype=bool) if lower else ~np.tri(*hi.shape, k=-1, dtype=bool)
    hi, lo = np.where(keep, hi, 0.0), np.where(keep, lo, 0.0)
    if unit:
        np.fill_diagonal(hi, 1.0)
        np.fill_diagonal(lo, 0.0)
    return dd(hi, lo, "cpu")


def permuted_rows(a: ddblas.DDArray, piv) -> ddblas.DDArray:
    """P^T A: the interchanges i <-> piv[i] applied to a's rows in order (exact, on the CPU)."""
    hi, lo = host(a)
    for i, p in enumerate(np.asarray(piv.get() if hasattr(piv, "get") else piv).tolist()):
        hi[[i, p]], lo[[i, p]] = hi[[p, i]], lo[[p, i]]
    return dd(hi, lo, "cpu")


def check_lu(a: ddblas.DDArray, lu: ddblas.DDArray, piv, variant: str) -> None:
    """|P^T A - L U| <= c_lu(n) |L||U| componentwise, exactly."""
    m, n = a.shape
    k = min(m, n)
    lower = triangle(lu, True, unit=True)[:, :k]
    upper = triangle(lu, False)[:k]
    err = accuracy.gemm_error(permuted_rows(a, piv), lower, upper)
    assert err.within(accuracy.bound("lu", variant, k=max(k, 1))), str(err)


def spd_matrix(n: int, seed: int, device: str) -> ddblas.DDArray:
    """B B^T + n I for a random DD B, exactly symmetric (the lower triangle mirrored)."""
    b = random_matrix(n, n, seed, "cpu", spread=2)
    s = ddblas.rgemm(b, b.T) + ddblas.eye(n) * n
    lower = triangle(s, True)
    hi, lo = host(lower)
    strict = np.tri(n, k=-1, dtype=bool)
    hi[strict.T], lo[strict.T] = hi.T[strict.T], lo.T[strict.T]
    return dd(hi, lo, device)


# ---- LU ----

@pytest.mark.parametrize("n", [1, 2, 5, 16, 17, 40])
def test_lu_factor_backward_error(device, variant, n):
    a = random_matrix(n, n, seed=n, device=device, spread=8)
    lu, piv = linalg.lu_factor(a, **variant)
    assert lu.shape == (n, n) and lu.device == device and piv.dtype == np.int32
    check_lu(a, lu, piv, variant_name(variant))


@pytest.mark.parametrize("cond", [1e2, 1e15, 1e30])
def test_lu_ill_conditioned_and_hilbert(device, cond):
    a = accuracy.ill_conditioned_matrix(12, cond, seed=3, device=device)
    lu, piv = linalg.lu_factor(a)
    check_lu(a, lu, piv, "fma/accurate")
    h = accuracy.hilbert(13, device=device)
    check_lu(h, *linalg.lu_factor(h), "fma/accurate")


def test_lu_pivots_match_scipy(device):
    import scipy.linalg
    rng = np.random.default_rng(7)
    a = rng.standard_normal((37, 37))
    _, piv = linalg.lu_factor(ddblas.asarray(a, device=device))
    _, expected = scipy.linalg.lu_factor(a)
    assert np.array_equal(np.asarray(piv.get() if hasattr(piv, "get") else piv), expected)


def test_lu_wilkinson_growth(device):
    """Wilkinson's matrix (1 on the diagonal and the last column, -1 below the diagonal): no
    interchanges, every operation exact, U's last column 2^i: growth 2^(n-1)."""
    n = 40
    a = np.tril(-np.ones((n, n)), -1) + np.eye(n)
    a[:, -1] = 1
    lu, piv = linalg.lu_factor(ddblas.asarray(a, device=device))
    hi, lo = host(lu)
    assert np.array_equal(np.asarray(piv.get() if hasattr(piv, "get") else piv), np.arange(n))
    assert np.array_equal(hi[:, -1], 2.0 ** np.arange(n)) and not lo.any()
    check_lu(ddblas.asarray(a), lu, piv, "fma/accurate")


@pytest.mark.parametrize("zero_column", [0, 7, 20, 39])
def test_lu_singular_names_the_pivot(device, zero_column):
    a = random_matrix(40, 40, seed=1, device="cpu")
    hi, lo = host(a)
    hi[:, zero_column] = lo[:, zero_column] = 0
    with pytest.raises(linalg.LinAlgError, match=rf"U\[{zero_column}, {zero_column}\] is "
                       "exactly zero") as info:
        linalg.lu_factor(dd(hi, lo, device))
    assert info.value.index == zero_column
    assert isinstance(info.value, np.linalg.LinAlgError)


def test_lu_rank_deficient_names_the_first_zero_pivot(device):
    """Columns 0 and 1 equal, (2, 1, 1, ...): the multipliers are 1/2 exactly and column 1 is
    exactly zero below the first pivot, so U[1, 1] = 0 (later columns are random)."""
    a = random_matrix(30, 30, seed=2, device="cpu")
    hi, lo = host(a)
    hi[:, 0] = hi[:, 1] = np.r_[2.0, np.ones(29)]
    lo[:, :2] = 0
    with pytest.raises(linalg.LinAlgError, match=r"U\[1, 1\]"):
        linalg.lu_factor(dd(hi, lo, device))
    p, l, u = linalg.lu(dd(hi, lo, device))     # SciPy's lu factors it without an error
    assert float(u[1, 1].hi) == 0


@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (5, 3), (3, 5), (40, 17), (17, 40)])
def test_lu_reconstructs(device, shape):
    m, n = shape
    a = random_matrix(m, n, seed=m + n, device=device) if m and n else ddblas.zeros(shape, device)
    p, l, u = linalg.lu(a)
    k = min(m, n)
    assert p.shape == (m, m) and l.shape == (m, k) and u.shape == (k, n)
    if not a.size:
        return
    ph, _ = host(p)
    assert set(np.unique(ph)) <= {0.0, 1.0} and (ph.sum(0) == 1).all() and (ph.sum(1) == 1).all()
    pa = dd(ph.T @ host(a)[0], ph.T @ host(a)[1], "cpu")          # P^T A, exact (a permutation)
    err = accuracy.gemm_error(pa, l, u)
    assert err.within(accuracy.bound("lu", "fma/accurate", k=k)), str(err)
    pl, u2 = linalg.lu(a, permute_l=True)
    assert same_bits(u2, u)
    assert same_bits(pl, dd(ph @ host(l)[0], ph @ host(l)[1], "cpu"))


@settings(max_examples=15)
@given(m=st.integers(1, 40), n=st.integers(1, 40), seed=st.integers(0, 2 ** 16))
def test_lu_shapes_hypothesis(device, m, n, seed):
    a = random_matrix(m, n, seed, device, spread=30)
    work = a.copy()
    p, l, u = linalg.lu(a)
    assert same_bits(a, work)       # the input is not modified
    ph, _ = host(p)
    err = accuracy.gemm_error(dd(ph.T @ host(a)[0], ph.T @ host(a)[1], "cpu"), l, u)
    assert err.within(accuracy.bound("lu", "fma/accurate", k=min(m, n))), str(err)
    assert l.device == u.device == device


def test_lu_views_equal_contiguous(device):
    big = random_matrix(60, 70, seed=5, device=device)
    view = big[1::2, 3:65:2]                                     # 30 x 31: odd strides
    square = view[:, :30]
    lu_view, piv_view = linalg.lu_factor(square)
    lu_copy, piv_copy = linalg.lu_factor(square.copy())
    assert same_bits(lu_view, lu_copy)
    lu_t, piv_t = linalg.lu_factor(square.T)
    check_lu(square.T.copy(), lu_t, piv_t, "fma/accurate")


def exact_matrix(x) -> np.ndarray:
    """The exact values of a 2-D DDArray or float64 array as a Fraction object array."""
    x = ddblas.asarray(x).to_device("cpu")
    return np.array(exact_values(x) + [None], dtype=object)[:-1].reshape(x.shape)


@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("rhs_shape", [(24,), (24, 3)])
def test_lu_solve_residual(device, trans, rhs_shape):
    """Higham Thm 9.4's form: (A + dA) x = b with |dA| <= (c_lu + 2 c_trsm)(n) P|L||U|, so
    |b - A x| <= c P|L||U||x| (A^T: |U|^T|L|^T P^T |x|), checked exactly; float64 b accepted
    and not modified."""
    n = 24
    a = random_matrix(n, n, seed=11, device=device, spread=4)
    b = np.random.default_rng(trans).standard_normal(rhs_shape)
    b_copy = b.copy()
    lu, piv = linalg.lu_factor(a)
    x = linalg.lu_solve((lu, piv), b if device == "cpu" else ddblas.asarray(b, device=device),
                        trans=trans)
    assert x.shape == rhs_shape and np.array_equal(b, b_copy)
    perm = np.arange(n)
    for i, p in enumerate(np.asarray(piv.get() if hasattr(piv, "get") else piv).tolist()):
        perm[i], perm[p] = perm[p], perm[i]
    l_abs, u_abs = (abs(exact_matrix(t)) for t in (triangle(lu, True, unit=True),
                                                     triangle(lu, False)))
    xs = exact_matrix(x.reshape(n, -1))
    a_exact, b_exact = exact_matrix(a), exact_matrix(b.reshape(n, -1))
    if trans:
        residual = b_exact - a_exact.T.dot(xs)
        scale = u_abs.T.dot(l_abs.T.dot(abs(xs)[perm]))
    else:
        residual = b_exact - a_exact.dot(xs)
        scale = np.empty_like(xs)
        scale[perm] = l_abs.dot(u_abs.dot(abs(xs)))
    c = accuracy.bound_constant("lu", None, n) + 2 * accuracy.bound_constant("trsm", None, n)
    assert all(abs(r) <= c * s for r, s in zip(residual.ravel(), scale.ravel()))


# ---- triangular solves ----

@pytest.mark.parametrize("side", ["L", "R"])
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("transa", ["N", "T"])
@pytest.mark.parametrize("diag", ["N", "U"])
def test_rtrsm_backward_error(device, side, uplo, transa, diag):
    """op(A) X = alpha B (or X op(A) = alpha B), n = 70 (recursion over the 32-row kernel
    blocks): |alpha B - op(T) X| <= c_trsm(n) |op(T)||X| with T the triangle read."""
    n, k = 70, 3
    a = random_matrix(n, n, seed=3, device=device, spread=3) + ddblas.eye(n, device=device) * 4
    shape = (n, k) if side == "L" else (k, n)
    b = random_matrix(*shape, seed=4, device=device)
    b0 = b.copy()
    out = ddblas.rtrsm(side, uplo, transa, diag, "0.5", a, b)
    assert out is b
    t = triangle(a, uplo == "L", unit=diag == "U")
    op_t = t.T if transa == "T" else t
    scaled = b0.to_device("cpu") * ddblas.array("0.5")
    err = accuracy.gemm_error(scaled, op_t, b) if side == "L" else \
        accuracy.gemm_error(scaled, b, op_t)
    assert err.within(accuracy.bound("trsm", "fma/accurate", k=n)), str(err)


def _interchanges(kind: str, m: int, rng) -> np.ndarray:
    """Pivots (0-based, piv[i] >= i, as LAPACK's) of a kind that takes the laswp kernel's batch
    path (disjoint row pairs), its one-by-one path (pairs sharing rows) or both."""
    rows = np.arange(m)
    if kind == "random":
        return rows + (rng.random(m) * (m - rows)).astype(np.int64)
    if kind == "chain":            # i <-> i + 1: every batch's pairs share rows
        return np.minimum(rows + 1, m - 1)
    if kind == "same target":      # i <-> the last row: every pair shares it
        return np.full(m, m - 1)
    if kind == "identity":
        return rows.copy()
    return np.where(rows % 3 == 0, rows, np.minimum(rows + 9, m - 1))  # some batches of each


@pytest.mark.parametrize("kind", ["random", "chain", "same target", "identity", "mixed"])
def test_laswp_kernel_equals_interchanges_one_by_one(device, kind):
    """The laswp kernel applies LASWP_BATCH interchanges at once where their rows are disjoint:
    the same result as LAPACK's one by one, in both orders, on a strided view, for ranges that
    are and are not multiples of the batch."""
    from ddblas.blas.level3 import view_args
    from ddblas.engines.backend import backend
    rng = np.random.default_rng(5)
    m, n = 53, 6
    for k1, k2 in [(0, 53), (3, 20), (5, 6), (8, 24), (0, 0)]:
        for reverse in (0, 1):
            piv = _interchanges(kind, m, rng)
            base = ddblas.random((m, 2 * n), seed=k2 + 7 * reverse)
            expected_hi, expected_lo = base.hi[:, ::2].copy(), base.lo[:, ::2].copy()
            for i in (range(k2 - 1, k1 - 1, -1) if reverse else range(k1, k2)):
                for part in (expected_hi, expected_lo):
                    part[[i, piv[i]]] = part[[piv[i], i]]
            a = base.to_device(device)[:, ::2]
            be = backend(device)
            be.launch("ddblas_linalg_laswp", n, n, *view_args(a), be.xp.asarray(piv), k1, k2,
                      reverse)
            got = a.to_device("cpu")
            assert same_bits(got.hi, expected_hi) and same_bits(got.lo, expected_lo), (k1, k2)


@pytest.mark.parametrize("leaf", [16, 32, 64])
def test_recursion_split_fills_every_leaf_but_the_last(leaf):
    """The recursions' split (n = 10000 once made 256 trsm leaves of 39 rows, twice the launches
    of 8192): ceil(n / leaf) leaves, at most one not full, depth <= ceil(log2(n / leaf))."""
    def leaves(n):   # (sizes of the leaves, depth)
        if n <= leaf:
            return [n], 0
        half = recursion_split(n, leaf)
        assert 0 < n - half <= half < n and half % leaf == 0
        (first, d1), (second, d2) = leaves(half), leaves(n - half)
        return first + second, 1 + max(d1, d2)

    for n in list(range(leaf + 1, 20 * leaf)) + [10000, 12288, 16383, 16384, 16385]:
        sizes, depth = leaves(n)
        assert len(sizes) == -(-n // leaf) and sum(sizes) == n
        assert sum(size < leaf for size in sizes) <= 1
        assert 2 ** depth < 2 * n / leaf
    assert recursion_split(leaf * 2 ** 8, leaf) == leaf * 2 ** 7


@pytest.mark.parametrize("n", [1, 31, 32, 33, 63, 64, 65, 129])
def test_trsm_kernel_orders(device, n):
    """Orders around the trsm kernel's block (TRSM_BLOCK = 64 rows, a GPU lane holding rows l
    and l + 32; 65 and 129 recurse), both triangles, unit or not, 11 right-hand sides (a GPU
    block solves 8) along rows or along columns of memory (Cholesky's transposed view): within
    the bound, and on the GPU the CPU's bits in every variant."""
    a = random_matrix(n, n, seed=n, device="cpu", spread=2) + ddblas.eye(n) * 8
    for uplo in "LU":
        for diag in "NU":
            t = triangle(a, uplo == "L", unit=diag == "U")
            for along_rows in (True, False):
                def rhs(dev):
                    return random_matrix(n, 11, seed=1, device=dev) if along_rows else \
                        random_matrix(11, n, seed=2, device=dev).T
                x = ddblas.rtrsm("L", uplo, "N", diag, 1, a.to_device(device), rhs(device))
                err = accuracy.gemm_error(rhs("cpu"), t, x)
                assert err.within(accuracy.bound("trsm", "fma/accurate", k=n)), str(err)
                if device != "gpu":
                    continue
                for fma, add in VARIANT_NAMES:
                    x_c = ddblas.rtrsm("L", uplo, "N", diag, 1, a, rhs("cpu"), fma=fma, add=add)
                    x_g = ddblas.rtrsm("L", uplo, "N", diag, 1, a.to_device("gpu"), rhs("gpu"),
                                       fma=fma, add=add)
                    assert same_bits(x_c, x_g), (uplo, diag, along_rows, fma, add)


def test_rtrsm_strided_b_and_variants(device, variant):
    n = 37
    a = random_matrix(n, n, seed=8, device=device, spread=2) + ddblas.eye(n, device=device) * 8
    big = random_matrix(n, 9, seed=9, device=device)
    b = big[:, ::3]                              # a strided view, solved in place
    b0 = b.copy()
    ddblas.rtrsm("L", "L", "N", "N", 1, a, b, **variant)
    assert same_bits(big[:, 1::3], random_matrix(n, 9, seed=9, device=device)[:, 1::3])
    err = accuracy.gemm_error(b0, triangle(a, True), b)
    assert err.within(accuracy.bound("trsm", variant_name(variant), k=n)), str(err)


@pytest.mark.parametrize("layout", ["same", "overlapping", "disjoint"])
def test_rtrsm_b_in_the_same_matrix_as_a(device, layout):
    """b sharing memory with a ("same": a itself; "overlapping": a block crossing a's
    triangle) is solved as if a were a copy; a disjoint block of one matrix is read in place.
    Each gives the bits of the solve on copies."""
    n = 40
    m = random_matrix(n, n + 8, seed=12, device=device, spread=2) + \
        ddblas.DDArray(np.eye(n, n + 8) * 8, None).to_device(device)
    a = m[:, :n]
    block = {"same": lambda x: x[:, :n], "overlapping": lambda x: x[:, 4:12],
             "disjoint": lambda x: x[:, n:]}[layout]
    expected = ddblas.rtrsm("L", "L", "N", "N", 1, a.copy(), block(m).copy())
    ddblas.rtrsm("L", "L", "N", "N", 1, a, block(m))
    assert same_bits(block(m), expected)


@pytest.mark.parametrize("algorithm", ["auto", "naive", "blocked", "tsm", "ozaki-fp64",
                                       "ozaki-int8", "ozaki2-int8"])
def test_subtract_product_equals_rgemm(device, algorithm):
    """gemm.subtract_product (the factorizations' unchecked C -= A B) gives rgemm's bits for
    every algorithm, on blocks and transposed views of one matrix, K = 0 included."""
    from ddblas.blas.gemm import subtract_product
    from ddblas.core.options import resolve
    big = random_matrix(70, 70, seed=13, device=device)
    for a_of, b_of, c_of in ((lambda x: x[:40, :20], lambda x: x[:20, 40:],
                              lambda x: x[30:, 40:]),
                             (lambda x: x[:5, :33].T, lambda x: x[5:10, 40:],
                              lambda x: x[37:, :30]),
                             (lambda x: x[:6, :0], lambda x: x[:0, :6], lambda x: x[60:66, 64:])):
        for fma, add in VARIANT_NAMES:
            x = big.copy()
            opts = resolve(fma, add)
            expected = ddblas.rgemm(a_of(x), b_of(x), c_of(x).copy(), alpha=-1, beta=1,
                                    fma=fma, add=add, algorithm=algorithm)
            subtract_product(a_of(x), b_of(x), c_of(x), opts, algorithm)
            assert same_bits(c_of(x), expected), (algorithm, fma, add)


def test_solve_triangular(device):
    import scipy.linalg
    n = 45
    rng = np.random.default_rng(1)
    a = np.triu(rng.standard_normal((n, n))) + 6 * np.eye(n)
    b = rng.standard_normal(n)
    x = linalg.solve_triangular(ddblas.asarray(a, device=device), b, trans="T")
    assert x.shape == (n,)
    expected = scipy.linalg.solve_triangular(a, b, trans="T")
    assert np.allclose(x.to_float64(), expected, rtol=1e-12, atol=0)
    err = accuracy.gemm_error(b.reshape(n, 1), ddblas.asarray(a).T, x.reshape(n, 1))
    assert err.within(accuracy.bound("trsm", "fma/accurate", k=n)), str(err)
    a[9, 9] = 0
    with pytest.raises(linalg.LinAlgError, match=r"a\[9, 9\] is exactly zero") as info:
        linalg.solve_triangular(ddblas.asarray(a, device=device), b)
    assert info.value.index == 9
    x = linalg.solve_triangular(ddblas.asarray(a, device=device), b, unit_diagonal=True)
    assert np.all(np.isfinite(x.to_float64()))


# ---- Cholesky ----

@pytest.mark.parametrize("n", [1, 2, 16, 33, 40])
@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_backward_error(device, variant, n, lower):
    a = spd_matrix(n, seed=n, device=device)
    c = linalg.cholesky(a, lower=lower, **variant)
    assert c.shape == (n, n) and c.device == device
    l_factor = c if lower else c.T
    assert same_bits(l_factor, triangle(l_factor, True))       # zeros above the diagonal
    err = accuracy.gemm_error(a, l_factor, l_factor.T)
    assert err.within(accuracy.bound("cholesky", variant_name(variant), k=n)), str(err)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 2, 31, 32, 33, 63, 64, 65, 100, 300])
def test_cholesky_gpu_equals_cpu_bitwise(device, n):
    """The potrf kernel (on the GPU a warp a matrix, right-looking in shared memory; on the CPU
    left-looking; orders up to POTRF_MAX_ORDER = 64) and the recursion above it (the GPU's
    whole-block trailing updates, the CPU's rsyrk) give the same bits, single and stacked, and
    fail at the same minor."""
    if device != "gpu":
        pytest.skip("compares the GPU with the CPU")
    a = spd_matrix(n, seed=n, device="cpu")
    for fma, add in VARIANT_NAMES:
        got = [linalg.cholesky(a.to_device(dev), lower=True, fma=fma, add=add,
                               algorithm="blocked") for dev in ("cpu", "gpu")]
        assert same_bits(*got), (fma, add)
    if n <= 64:
        stack = ddblas.asarray(np.stack([host(a)[0] * (1 + i) for i in range(7)]))
        assert same_bits(linalg.cholesky(stack), linalg.cholesky(stack.to_device("gpu")))
    if n > 2:
        hi, lo = host(a)
        hi[n // 2, n // 2] = -1.0                 # the leading minor of order n // 2 + 1 fails
        for dev in ("cpu", "gpu"):
            with pytest.raises(linalg.LinAlgError) as caught:
                linalg.cholesky(dd(hi, lo, dev), lower=True)
            assert caught.value.index == n // 2 + 1


def test_cholesky_hilbert_and_ill_conditioned(device):
    for a in (accuracy.hilbert(20, device=device),):
        l_factor = linalg.cholesky(a, lower=True)
        err = accuracy.gemm_error(a, l_factor, l_factor.T)
        assert err.within(accuracy.bound("cholesky", "fma/accurate", k=20)), str(err)


def test_cholesky_reads_one_triangle(device):
    a = spd_matrix(36, seed=1, device="cpu")
    hi, lo = host(a)
    hi_l, hi_u = hi.copy(), hi.copy()
    hi_l[np.triu_indices(36, 1)] = np.nan                      # never read with lower=True
    hi_u[np.tril_indices(36, -1)] = np.nan
    lo_l, lo_u = lo.copy(), lo.copy()
    lo_l[np.triu_indices(36, 1)] = np.nan
    lo_u[np.tril_indices(36, -1)] = np.nan
    reference = linalg.cholesky(dd(hi, lo, device), lower=True)
    got_l = linalg.cholesky(dd(hi_l, lo_l, device), lower=True, check_finite=False)
    got_u = linalg.cholesky(dd(hi_u, lo_u, device), lower=False, check_finite=False)
    assert same_bits(got_l, reference) and same_bits(got_u.T, reference)


def test_cholesky_full_trailing_updates(device):
    """Trailing updates as one rgemm on the whole block (the GPU's path for large blocks, forced
    here at n = 40 on both devices, with auto and ozaki2-int8): within the bound, and the upper
    triangle is still never read."""
    a = spd_matrix(40, seed=3, device=device)
    hi, lo = host(a)
    hi[np.triu_indices(40, 1)] = np.nan
    lo[np.triu_indices(40, 1)] = np.nan
    with mock.patch.object(factor, "FULL_UPDATE_DEVICES", ("cpu", "gpu")), \
            mock.patch.object(factor, "FULL_UPDATE_MIN_WORK", 1):
        for algorithm in ("auto", "ozaki2-int8"):
            l_factor = linalg.cholesky(dd(hi, lo, device), lower=True, check_finite=False,
                                       algorithm=algorithm)
            err = accuracy.gemm_error(a, l_factor, l_factor.T)
            assert err.within(accuracy.bound("cholesky", "fma/accurate", k=40)), str(err)
    assert same_bits(l_factor.to_device("cpu"), triangle(l_factor, True).to_device("cpu"))


@pytest.mark.parametrize("n", [5, 40, 64, 70])
def test_cholesky_stack(device, n):
    stack = [spd_matrix(n, seed=s, device="cpu") for s in range(6)]
    hi = np.stack([host(x)[0] for x in stack]).reshape(2, 3, n, n)
    lo = np.stack([host(x)[1] for x in stack]).reshape(2, 3, n, n)
    c = linalg.cholesky(dd(hi, lo, device), lower=True)
    assert c.shape == (2, 3, n, n)
    for i, single in enumerate(stack):
        assert same_bits(c[i // 3, i % 3], linalg.cholesky(single.to_device(device), lower=True))
    hi[1, 0, 2, 2] = -1.0
    lo[1, 0, 2, 2] = 0.0
    with pytest.raises(linalg.LinAlgError, match=r"order 3 .*matrix a\[1, 0\] of the stack") \
            as info:
        linalg.cholesky(dd(hi, lo, device))
    assert info.value.index == 3 and info.value.batch_index == (1, 0)  # a's own stack index


@pytest.mark.parametrize("n, failing", [(10, 1), (40, 1), (40, 17), (40, 40)])
def test_cholesky_not_positive_definite(device, n, failing):
    a = spd_matrix(n, seed=2, device="cpu")
    hi, lo = host(a)
    hi[failing - 1, failing - 1] = -1e6
    lo[failing - 1, failing - 1] = 0
    with pytest.raises(linalg.LinAlgError, match=f"leading minor of order {failing} is not "
                       "positive definite") as info:
        linalg.cholesky(dd(hi, lo, device))
    assert info.value.index == failing


@pytest.mark.parametrize("lower", [True, False])
def test_cho_factor_cho_solve(device, lower):
    n = 38
    a = spd_matrix(n, seed=4, device=device)
    b = random_matrix(n, 2, seed=5, device=device)
    c, low = linalg.cho_factor(a, lower=lower)
    assert low is lower
    x = linalg.cho_solve((c, low), b)
    err = accuracy.gemm_error(b, a, x)
    # residual relative to |A||x|; for SPD A, |L||L^T| <= (n + 1) max diag ... use a loose factor
    assert err.within(n * (accuracy.bound("cholesky", None, k=n)
                           + 2 * accuracy.bound("trsm", None, k=n))), str(err)


def test_empty_and_one_element(device):
    lu, piv = linalg.lu_factor(ddblas.zeros((0, 0), device))
    assert lu.shape == (0, 0) and piv.shape == (0,)
    assert linalg.cholesky(ddblas.zeros((0, 0), device)).shape == (0, 0)
    assert linalg.cholesky(ddblas.zeros((3, 0, 0), device)).shape == (3, 0, 0)
    c = linalg.cholesky(ddblas.array([[4.0]], device=device))
    assert float(c[0, 0].hi) == 2.0
    x = linalg.solve_triangular(ddblas.array([[3.0]], device=device), [6.0])
    assert float(x[0].hi) == 2.0


def exact(x: ddblas.DDArray) -> np.ndarray:
    """x's hi parts on the host, after checking that every lo part is zero (a float64 value)."""
    hi, lo = host(x)
    assert not lo.any()
    return hi


def host_ints(piv) -> np.ndarray:
    return np.asarray(piv.get() if hasattr(piv, "get") else piv)


def test_scipy_positional_order(device):
    """overwrite_* and check_finite follow SciPy's positional order (they were keyword-only:
    lu_factor(a, False, True) was a TypeError); the answers are SciPy's, exact here."""
    import scipy.linalg as sl
    a = np.array([[2.0, 4.0], [4.0, 4.0]])
    s = np.array([[4.0, 2.0], [2.0, 5.0]])
    b = np.array([2.0, 4.0])

    def d(x):
        return ddblas.asarray(x, device=device)

    lu, piv = linalg.lu_factor(d(a), False, True)
    lu64, piv64 = sl.lu_factor(a, False, True)
    assert np.array_equal(exact(lu), lu64) and np.array_equal(host_ints(piv), piv64)
    for trans in (0, 1):
        x = linalg.lu_solve((lu, piv), d(b), trans, False, True)
        assert np.array_equal(exact(x), sl.lu_solve((lu64, piv64), b, trans, False, True))
    for got, expected in zip(linalg.lu(d(a), False, False, True), sl.lu(a, False, False, True)):
        assert np.array_equal(exact(got), expected)
    assert np.array_equal(exact(linalg.cholesky(d(s), True, False, True)),
                          sl.cholesky(s, True, False, True))
    c, lower = linalg.cho_factor(d(s), True, False, True)
    c64, lower64 = sl.cho_factor(s, True, False, True)
    assert lower is True and bool(lower64) is True   # SciPy 1.17 gives array(True)
    assert np.array_equal(np.tril(exact(c)), np.tril(c64))
    assert np.array_equal(exact(linalg.cho_solve((c, lower), d(b), False, True)),
                          sl.cho_solve((c64, lower64), b, False, True))   # [0.125, 0.75]
    rhs = np.array([4.0, 7.0])
    assert np.array_equal(exact(linalg.solve_triangular(d(s), d(rhs), 0, True, False, False,
                                                        True)),
                          sl.solve_triangular(s, rhs, 0, True, False, False, True))  # [1, 1]
    # check_finite=False given by position is taken as such (an inf is then no ValueError)
    inf_b = np.array([np.inf, 0.0])
    x = linalg.solve_triangular(d(s), d(inf_b), 0, True, False, False, False)
    assert exact(x)[0] == np.inf


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_lu_p_indices(device, shape):
    """lu(a, p_indices=True) gives SciPy's row indices, A = L[p] U (it was a TypeError)."""
    import scipy.linalg as sl
    a = np.array([[1.0, 2.0, 4.0, 8.0, 16.0], [8.0, 1.0, 2.0, 4.0, 2.0],
                  [2.0, 16.0, 1.0, 2.0, 4.0], [4.0, 4.0, 16.0, 1.0, 8.0],
                  [16.0, 8.0, 8.0, 16.0, 1.0]])[:shape[0], :shape[1]]
    p, lower, upper = linalg.lu(ddblas.asarray(a, device=device), p_indices=True)
    p64, lower64, upper64 = sl.lu(a, p_indices=True)
    assert host_ints(p).dtype == np.int32 and np.array_equal(host_ints(p), p64)
    assert np.allclose(host(lower)[0], lower64, rtol=1e-15, atol=0)
    assert np.allclose(host(upper)[0], upper64, rtol=1e-15, atol=1e-15)
    full = linalg.lu(ddblas.asarray(a, device=device))
    assert np.array_equal(exact(full[0]), np.eye(shape[0])[host_ints(p)])
    assert len(linalg.lu(ddblas.asarray(a, device=device), True, p_indices=True)) == 2


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (0, 3), (3, 0)])
def test_lu_factor_rectangular(device, shape):
    """lu_factor takes an M x N matrix as SciPy's does (it was a ValueError): SciPy's lu and
    piv, exact for this matrix of powers of two (multipliers 1/2, 1/4, ...)."""
    import scipy.linalg as sl
    a = np.array([[1.0, 2.0, 4.0, 8.0, 16.0], [8.0, 1.0, 2.0, 4.0, 2.0],
                  [2.0, 16.0, 1.0, 2.0, 4.0], [4.0, 4.0, 16.0, 1.0, 8.0],
                  [16.0, 8.0, 8.0, 16.0, 1.0]])[:shape[0], :shape[1]]
    lu, piv = linalg.lu_factor(ddblas.asarray(a, device=device))
    lu64, piv64 = sl.lu_factor(a)
    assert lu.shape == lu64.shape and np.array_equal(host_ints(piv), piv64)
    assert [float(v) for v in exact_values(lu.reshape(-1))] == lu64.ravel().tolist()
    check_lu(ddblas.asarray(a), lu.to_device("cpu"), piv, "fma/accurate")
    if min(shape):
        zero = a.copy()
        zero[:, 1] = 0
        with pytest.raises(linalg.LinAlgError, match=r"U\[1, 1\] is exactly zero"):
            linalg.lu_factor(ddblas.asarray(zero, device=device))


# ---- errors ----

def test_argument_errors(device):
    a = ddblas.ones((3, 4), device)
    with pytest.raises(ValueError, match=r"^a must be a matrix or a stack of matrices \(\.\.\., M, N\)"):
        linalg.lu_factor(ddblas.ones((3,), device))
    with pytest.raises(ValueError, match="lu must be a square"):
        linalg.lu_solve((a, np.zeros(3, dtype=np.int32)), ddblas.ones((3,), device))
    with pytest.raises(ValueError, match="a must be a square"):
        linalg.cholesky(a)
    bad = ddblas.eye(3, device=device)
    bad[1, 1] = np.nan
    for f in (linalg.lu_factor, linalg.cholesky, linalg.lu):
        with pytest.raises(ValueError, match="a must not contain infs or NaNs"):
            f(bad)
    lu_piv = linalg.lu_factor(ddblas.eye(3, device=device))
    with pytest.raises(ValueError, match=r"^b must be \(3,\) or \(\.\.\., 3, K\) to match lu"):
        linalg.lu_solve(lu_piv, ddblas.ones((4,), device))
    with pytest.raises(ValueError, match="piv must be a 1-D integer array of length 3"):
        linalg.lu_solve((lu_piv[0], np.zeros(2, dtype=np.int32)), ddblas.ones((3,), device))
    with pytest.raises(ValueError, match=r"piv holds row indices outside \[0, 3\)"):
        linalg.lu_solve((lu_piv[0], np.array([0, 5, 2])), ddblas.ones((3,), device))
    with pytest.raises(ValueError, match="trans must be"):
        linalg.lu_solve(lu_piv, ddblas.ones((3,), device), trans=3)
    with pytest.raises(ValueError, match="side must be one of L, R"):
        ddblas.rtrsm("X", "L", "N", "N", 1, ddblas.eye(3, device=device), ddblas.ones((3, 2), device))
    with pytest.raises(ValueError, match="rtrsm: a is 3 x 3 but b has 2 columns"):
        ddblas.rtrsm("R", "L", "N", "N", 1, ddblas.eye(3, device=device), ddblas.ones((3, 2), device))
    with pytest.raises(ValueError, match="rsyrk: c must be 3 x 3"):
        ddblas.rsyrk("L", "N", 1, ddblas.ones((3, 2), device), 0, ddblas.zeros((2, 2), device))
    with pytest.raises(ValueError, match="rgemv: x has length 2"):
        ddblas.rgemv(ddblas.ones((3, 4), device), ddblas.ones((2,), device))
    # y, alpha of the wrong kind: errors name them (they named c and rgemm, or no argument)
    if device == "cpu":   # CuPy arrays have no read-only flag
        y = ddblas.zeros((3,), device)
        y.hi.flags.writeable = False
        with pytest.raises(ValueError, match="y is read-only: rgemv overwrites y"):
            ddblas.rgemv(ddblas.ones((3, 4), device), ddblas.ones((4,), device), y)
    with pytest.raises(TypeError, match="rgemv: y must be a DDArray"):
        ddblas.rgemv(ddblas.ones((3, 4), device), ddblas.ones((4,), device), np.zeros(3))
    # an output that is not a DDArray is a TypeError, as rgemm's c and rgemv's y (it was a
    # ValueError for rtrsm's b and rsyrk's c)
    with pytest.raises(TypeError, match="^rtrsm: b must be a DDArray .*, got ndarray$"):
        ddblas.rtrsm("L", "L", "N", "N", 1, ddblas.eye(3, device=device), np.ones((3, 2)))
    for c in (np.zeros((3, 3)), None):
        with pytest.raises(TypeError, match=f"^rsyrk: c must be a DDArray .*, got "
                                            f"{type(c).__name__}$"):
            ddblas.rsyrk("L", "N", 1, ddblas.ones((3, 2), device), 0, c)
    for alpha in ("abc", None):
        with pytest.raises((ValueError, TypeError), match="alpha must be a DD scalar"):
            ddblas.rtrsm("L", "L", "N", "N", alpha, ddblas.eye(3, device=device),
                         ddblas.ones((3, 2), device))
    with pytest.raises(ValueError, match="rgemv: beta != 0 needs an input vector y"):
        ddblas.rgemv(ddblas.ones((3, 4), device), ddblas.ones((4,), device), beta=1)
    # an array for trans names trans (it was NumPy's "truth value of an array is ambiguous")
    with pytest.raises(ValueError, match="trans must be"):
        linalg.lu_solve(lu_piv, ddblas.ones((3,), device), trans=np.array([0, 1]))
    with pytest.raises(ValueError, match="trans must be"):
        linalg.solve_triangular(ddblas.eye(3, device=device), ddblas.ones((3,), device),
                                trans=np.array([0, 1]))


@pytest.mark.parametrize("bad", ["", "LU", "NT", "TC", "NU", "LR", "X"])
def test_blas_flags_are_one_letter(device, bad):
    """side, uplo, trans(a) and diag of rtrsm, rsyrk and rgemv are one of their letters: a string
    that is only a substring of the letters ("", "LU", "NT") was taken for one of them (uplo=""
    solved with the upper triangle, trans="NT" transposed) and b, c or y was overwritten."""
    eye = ddblas.eye(3, device=device)
    ones = ddblas.ones((3, 3), device)
    calls = {"side": lambda v: ddblas.rtrsm(v, "L", "N", "N", 1, eye, ones),
             "uplo": lambda v: ddblas.rtrsm("L", v, "N", "N", 1, eye, ones),
             "transa": lambda v: ddblas.rtrsm("L", "L", v, "N", 1, eye, ones),
             "diag": lambda v: ddblas.rtrsm("L", "L", "N", v, 1, eye, ones),
             "uplo ": lambda v: ddblas.rsyrk(v, "N", 1, eye, 0, ones),
             "trans": lambda v: ddblas.rsyrk("L", v, 1, eye, 0, ones),
             "trans ": lambda v: ddblas.rgemv(eye, ddblas.ones((3,), device), trans=v)}
    for name, call in calls.items():
        with pytest.raises(ValueError, match=f"^{name.strip()} must be one of .*, got {bad!r}$"):
            call(bad)
    assert host(ones)[0].tolist() == np.ones((3, 3)).tolist()   # nothing was written


@pytest.mark.parametrize("n", [4, 40])
def test_algorithm_is_validated(device, n):
    """Every routine with an algorithm argument names it and lists rgemm's algorithms, whatever
    the order (small ones never reach rgemm), before any work."""
    from ddblas.blas.gemmcall import ALGORITHMS
    eye = ddblas.eye(n, device=device)
    b = ddblas.ones((n,), device)
    lu_piv = linalg.lu_factor(eye)
    calls = [lambda kw: linalg.lu_factor(eye, **kw), lambda kw: linalg.lu_solve(lu_piv, b, **kw),
             lambda kw: linalg.lu(eye, **kw), lambda kw: linalg.cholesky(eye, **kw),
             lambda kw: linalg.cho_factor(eye, **kw),
             lambda kw: linalg.cho_solve((eye, True), b, **kw),
             lambda kw: linalg.solve_triangular(eye, b, **kw), lambda kw: linalg.qr(eye, **kw),
             lambda kw: linalg.lstsq(eye, b, **kw),
             # rtrsm took any algorithm below its block size or with alpha = 0 and raised a
             # KeyError above; rsyrk took any with an empty c
             lambda kw: ddblas.rtrsm("L", "L", "N", "N", 1, eye, ddblas.ones((n, 2), device),
                                     **kw),
             lambda kw: ddblas.rtrsm("R", "U", "T", "N", 0, eye, ddblas.ones((2, n), device),
                                     **kw),
             lambda kw: ddblas.rsyrk("L", "N", 1, eye, 0, ddblas.zeros((n, n), device), **kw),
             lambda kw: ddblas.rsyrk("U", "T", 1, eye[:, :0], 0, ddblas.zeros((0, 0), device),
                                     **kw),
             lambda kw: ddblas.rgemv(eye, b, **kw)]
    listed = ", ".join(map(repr, ALGORITHMS))
    for call in calls:
        with pytest.raises(ValueError, match=f"^algorithm must be one of {listed}, got 'foo'$"):
            call({"algorithm": "foo"})
        call({"algorithm": "blocked"})


# ---- rsyrk, rgemv ----

@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("trans", ["N", "T"])
def test_rsyrk_one_triangle_equals_rgemm(device, uplo, trans):
    n, k = 70, 9
    a = random_matrix(n, k, seed=1, device=device) if trans == "N" else \
        random_matrix(k, n, seed=1, device=device)
    c0 = random_matrix(n, n, seed=2, device=device)
    c = c0.copy()
    ddblas.rsyrk(uplo, trans, "-1", a, 1, c, algorithm="blocked")
    op_a = a if trans == "N" else a.T
    full = ddblas.rgemm(op_a, op_a.T, c0.copy(), alpha=-1, beta=1, algorithm="blocked")
    keep = np.tri(n, dtype=bool) if uplo == "L" else ~np.tri(n, k=-1, dtype=bool)
    got, want, old = host(c), host(full), host(c0)
    for g, w, o in zip(got, want, old):
        assert np.array_equal(g[keep], w[keep]) and np.array_equal(g[~keep], o[~keep])


def test_rgemv(device):
    a = random_matrix(50, 30, seed=1, device=device)
    x = random_matrix(30, 1, seed=2, device=device).reshape(30)
    y0 = random_matrix(50, 1, seed=3, device=device).reshape(50)
    y = y0.copy()
    out = ddblas.rgemv(a, x, y, alpha=2, beta="0.5")
    assert out is y and out.shape == (50,)   # y itself, as rgemm returns c (it was a view)
    err = accuracy.gemm_error(out.reshape(50, 1), a, x.reshape(30, 1), alpha=2, beta="0.5",
                              c0=y0.reshape(50, 1))
    assert err.within(accuracy.bound("gemm", None, k=30)), str(err)
    xt = random_matrix(50, 1, seed=4, device=device).reshape(50)
    assert same_bits(ddblas.rgemv(a, xt, trans="T"),
                     ddblas.rgemm(a.T, xt.reshape(50, 1)).reshape(30))


def test_rgemv_writes_a_y_at_an_odd_byte_offset(device):
    """ASan review of 2026-11-26: a y whose parts are record fields at byte offset 1 came back
    unchanged (rgemv passed y.reshape(n, 1), a contiguous copy, as rgemm's c)."""
    rec = np.zeros(3, dtype=[("pad", "i1"), ("hi", "f8"), ("lo", "f8")])
    rec["hi"] = [1.0, 2.0, 3.0]
    if device == "cpu":
        y = ddblas.DDArray(rec["hi"], rec["lo"])
    else:   # the same misalignment on the GPU: a view at byte offset 8 * 1 + 4 of a buffer
        import cupy
        raw = cupy.zeros(8 * 8, dtype=np.uint8)
        hi = cupy.ndarray((3,), np.float64, raw.data + 4)
        hi[...] = cupy.asarray([1.0, 2.0, 3.0])
        y = ddblas.DDArray(hi, cupy.zeros(3))
    out = ddblas.rgemv(ddblas.eye(3, device=device), ddblas.ones(3, device=device), y, beta=1)
    assert out is y and list(ddblas.asarray(y).to_device("cpu").to_float64()) == [2.0, 3.0, 4.0]


def test_rgemv_large_runs_tsm():
    """A matvec with max(M, N) * K >= 2^20 goes to the tall-and-skinny kernel."""
    info = {}
    a = ddblas.random((1024, 1024), seed=1)
    ddblas.rgemv(a, ddblas.random((1024,), seed=2), info=info)
    assert info["algorithm"] == "tsm"


def test_pivot_rule_ties_and_nan(device):
    """The pivot is the largest |a| by exact DD compare, the first row among equals, any number
    before NaN (linalg.h pivot_beats): the same on both devices and however the search is cut."""
    a = np.eye(6) + 0.25
    a[:, 0] = [np.nan, 1, -5, 2, 5, 0]
    _, piv = linalg.lu_factor(ddblas.asarray(a, device=device), check_finite=False)
    assert int(piv[0]) == 2
    a[:, 0] = np.nan
    _, piv = linalg.lu_factor(ddblas.asarray(a, device=device), check_finite=False)
    assert int(piv[0]) == 0


# ---- CPU == GPU ----

@pytest.mark.gpu
def test_gpu_equals_cpu_bitwise(device, variant):
    if device != "gpu":
        pytest.skip("compares the GPU with the CPU")
    a = random_matrix(150, 150, seed=1, device="cpu")
    lu_c, piv_c = linalg.lu_factor(a, algorithm="blocked", **variant)
    lu_g, piv_g = linalg.lu_factor(a.to_device("gpu"), algorithm="blocked", **variant)
    assert same_bits(lu_c, lu_g) and np.array_equal(piv_c, piv_g.get())
    s = spd_matrix(150, seed=2, device="cpu")
    assert same_bits(linalg.cholesky(s, algorithm="blocked", **variant),
                     linalg.cholesky(s.to_device("gpu"), algorithm="blocked", **variant))
    b = random_matrix(150, 5, seed=3, device="cpu")
    x_c = linalg.lu_solve((lu_c, piv_c), b, algorithm="blocked", **variant)
    x_g = linalg.lu_solve((lu_g, piv_g), b.to_device("gpu"), algorithm="blocked", **variant)
    assert same_bits(x_c, x_g)
    ties = random_matrix(600, 600, seed=4, device="cpu")   # equal |pivots| across chunks
    first = int(np.argmax(np.abs(ties.hi[:, 0])))
    ties[590, 0] = -ties[first, 0]
    lu_c, piv_c = linalg.lu_factor(ties, algorithm="blocked", **variant)
    lu_g, piv_g = linalg.lu_factor(ties.to_device("gpu"), algorithm="blocked", **variant)
    assert same_bits(lu_c, lu_g) and np.array_equal(piv_c, piv_g.get())
    stack = ddblas.asarray(np.stack([np.eye(9) * 9 + np.ones((9, 9))] * 50))
    assert same_bits(linalg.cholesky(stack, **variant),
                     linalg.cholesky(stack.to_device("gpu"), **variant))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 17, 150, 600])
def test_grid_panel_equals_cpu_bitwise(device, n, monkeypatch):
    """Every GPU panel forced onto the cooperative grid kernel (lu_panel_grid): the CPU's bits,
    with ties of equal |pivots| in different blocks, a zero column (info) and a wide stack of
    panels."""
    if device != "gpu":
        pytest.skip("compares the GPU with the CPU")
    monkeypatch.setattr(factor, "_grid_panel", lambda m: True)
    a = random_matrix(n, n, seed=n, device="cpu")
    if n > 300:
        first = int(np.argmax(np.abs(a.hi[:, 0])))
        a[n - 3, 0] = -a[first, 0]   # tie: the first row must win in both
    lu_c, piv_c = linalg.lu_factor(a, algorithm="blocked")
    lu_g, piv_g = linalg.lu_factor(a.to_device("gpu"), algorithm="blocked")
    assert same_bits(lu_c, lu_g) and np.array_equal(piv_c, piv_g.get())
    if n > 2:
        z = a.hi.copy(), a.lo.copy()
        for x in z:
            x[:, n // 2] = 0.0
        singular = ddblas.DDArray(*z, normalize=False)
        for dev in ("cpu", "gpu"):
            with pytest.raises(linalg.LinAlgError) as caught:
                linalg.lu_factor(singular.to_device(dev), algorithm="blocked")
            assert caught.value.index == n // 2


@pytest.mark.gpu
def test_grid_panel_at_its_threshold(device):
    """A matrix tall enough for lu_panel_grid without forcing it: the CPU's bits."""
    if device != "gpu":
        pytest.skip("compares the GPU with the CPU")
    n = cpu.geometry()["lu_panel_grid_min_rows"] + 21
    a = random_matrix(n, n, seed=5, device="cpu")
    lu_c, piv_c = linalg.lu_factor(a, algorithm="blocked")
    lu_g, piv_g = linalg.lu_factor(a.to_device("gpu"), algorithm="blocked")
    assert same_bits(lu_c, lu_g) and np.array_equal(piv_c, piv_g.get())


@pytest.mark.parametrize("trans", ["n", "t", "c"])
def test_solve_triangular_lower_case_trans_is_refused(device, trans):
    """SciPy 1.17 maps only "N", "T", "C": its "n" reaches LAPACK as a string, which solves the
    transposed system for a C-ordered a (not A x = b) and fails for a Fortran-ordered one, so
    lower case is a ValueError naming trans, saying why."""
    a = np.triu(np.ones((3, 3))) + np.eye(3)
    with pytest.raises(ValueError, match=r"^trans must be 0, 1, 2, 'N', 'T' or 'C', got "
                                         rf"'{trans}' \(upper case only"):
        linalg.solve_triangular(ddblas.asarray(a, device=device), np.arange(3.0), trans=trans)
    with pytest.raises(ValueError):   # SciPy's Fortran-ordered case refuses it too
        import scipy.linalg
        scipy.linalg.solve_triangular(np.asfortranarray(a), np.arange(3.0), trans=trans)


# ---- stacks (SciPy 1.17's batches) ----

def _shapes(x):
    """The nested shapes of a result (tuples, lists, arrays, DDArrays)."""
    if isinstance(x, (tuple, list)):
        return tuple(_shapes(y) for y in x)
    return tuple(x.shape) if hasattr(x, "shape") else x


def _host_array(x):
    return np.asarray(x.get() if hasattr(x, "get") else x)


@pytest.mark.parametrize("shape", [(2, 3, 5, 5), (2, 4, 6), (3, 6, 4), (0, 3, 3)])
def test_lu_factor_stack(device, shape):
    """lu_factor of a stack (..., M, N): SciPy 1.17's shapes (lu like a, piv (..., K)), each
    matrix's factors and pivots bit for bit those of its own call (rectangular stacks: the loop
    over the 2-D LU; square ones: the batched LU, which equals it up to order 16). It was a
    ValueError."""
    a = random_matrix(int(np.prod(shape[:-1])), shape[-1], seed=41, device=device).reshape(shape)
    lu, piv = linalg.lu_factor(a, algorithm="blocked")
    import scipy.linalg
    if shape[0]:
        assert _shapes((lu, piv)) == _shapes(scipy.linalg.lu_factor(host(a)[0]))
    else:
        assert _shapes((lu, piv)) == ((0, 3, 3), (0, 3))
    assert _host_array(piv).dtype == np.int32
    for index in np.ndindex(*shape[:-2]):
        lu1, piv1 = linalg.lu_factor(a[index], algorithm="blocked")
        assert same_bits(lu[index], lu1)
        assert np.array_equal(_host_array(piv[index]), _host_array(piv1))


def test_lu_factor_stack_names_the_singular_matrix(device):
    a = random_matrix(12, 3, seed=42, device=device).reshape(2, 2, 3, 3)
    a[1, 0, :, 1] = 0
    with pytest.raises(linalg.LinAlgError, match=r"^U\[1, 1\] is exactly zero: the matrix is "
                                                 r"singular \(matrix a\[1, 0\] of the stack\)$") \
            as info:
        linalg.lu_factor(a)
    assert info.value.index == 1 and info.value.batch_index == (1, 0)
    with pytest.raises(ValueError, match=r"^a must be a matrix or a stack"):
        linalg.lu_factor(ddblas.ones((3,), device))


# ---- lu_factor / lu_solve of stacks by the batched LU (ddblas/linalg/batched.py) ----

def _solve_batched(a, b):
    """ddblas.linalg.solve of the stack a with b, checked to have run the batched DD LU
    unscaled (its bits are then batched.lu_factor's and batched.lu_solve's)."""
    log = {}
    x = linalg.solve(a, b, info=log)
    assert log["method"] == "dd-lu (batched)", log
    return x


@pytest.mark.parametrize("n", [1, 9, 16, 17, 33, 96])
def test_lu_factor_stack_is_the_batched_lu(device, n):
    """lu_factor of a (..., N, N) stack, N <= 96: the batched kernel's factors and pivots bit for
    bit (batched.lu_factor, as solve, det and inv use it), SciPy's shapes, int32 pivots; lu_solve
    with them (trans 0) gives solve's x on the stack bit for bit, for b (N,), (N, K), a stack of
    b's and b's that broadcast. Up to N = 16 (one panel of the 2-D LU) the factors also equal
    each matrix's own 2-D lu_factor."""
    import scipy.linalg
    stack = (2, 3)
    a = random_matrix(6 * n, n, seed=50 + n, device=device, spread=2).reshape(stack + (n, n))
    lu, piv = linalg.lu_factor(a)
    a64 = host(a)[0]
    assert _shapes((lu, piv)) == _shapes(scipy.linalg.lu_factor(a64))
    assert _host_array(piv).dtype == np.int32
    f = batched.lu_factor(a.reshape(6, n, n), Options())
    hi, lo = batched.factor_views(f)
    assert same_bits(lu.reshape(6, n, n), ddblas.DDArray(hi, lo, normalize=False))
    assert np.array_equal(_host_array(piv).reshape(6, n), _host_array(f.piv))
    if n <= cpu.geometry()["lu_panel_width"]:
        for index in np.ndindex(*stack):
            lu1, piv1 = linalg.lu_factor(a[index], algorithm="blocked")
            assert same_bits(lu[index], lu1)
            assert np.array_equal(_host_array(piv[index]), _host_array(piv1))
    for b_shape in [(n,), (n, 2), (2, 3, n, 1), (4, 1, 1, n, 2)]:
        b = random_matrix(int(np.prod(b_shape[:-1])), b_shape[-1], seed=60 + n,
                          device=device, spread=2).reshape(b_shape)
        x = linalg.lu_solve((lu, piv), b)
        assert x.shape == scipy.linalg.lu_solve((lu.to_device("cpu").hi, _host_array(piv)),
                                                host(b)[0]).shape
        if len(b_shape) == 1:   # solve's (n,) b: one vector for every matrix as well
            assert same_bits(x, _solve_batched(a, b))
        else:
            full = np.broadcast_shapes(stack, b_shape[:-2])
            a_full = a.reshape((1,) * (len(full) - 2) + a.shape)
            assert same_bits(x, _solve_batched(a_full * ddblas.ones(full + (1, 1), device),
                                               b * ddblas.ones(full + (1, 1), device)))


@pytest.mark.parametrize("n", [1, 2, 7])
def test_lu_factor_stack_backward_error_exact(device, variant, n):
    """P A + dA = L U with |dA| <= gamma_n |L||U| entry by entry, in exact rationals, for each
    matrix of a stack lu_factor gives (the batched LU's bound: docs/linalg.md, "Batched
    systems"), every arithmetic variant."""
    from fractions import Fraction

    from ddvalues import DIV, MUL, add_abs_constant
    mul = MUL[variant["fma"]]
    e = DIV + mul + add_abs_constant(variant["add"]) * (1 + mul)
    gamma = n * e / (1 - n * e)
    a = random_matrix(4 * n, n, seed=70 + n, device=device).reshape(2, 2, n, n)
    lu, piv = linalg.lu_factor(a, **variant)
    piv = _host_array(piv)
    for index in np.ndindex(2, 2):
        values = exact_values(a[index])
        A = [values[i * n:(i + 1) * n] for i in range(n)]
        for k in range(n):
            A[k], A[int(piv[index][k])] = A[int(piv[index][k])], A[k]
        values = exact_values(lu[index])
        F = [values[i * n:(i + 1) * n] for i in range(n)]
        L = [[F[i][j] if j < i else Fraction(i == j) for j in range(n)] for i in range(n)]
        U = [[F[i][j] if j >= i else Fraction(0) for j in range(n)] for i in range(n)]
        for i in range(n):
            for j in range(n):
                terms = [L[i][k] * U[k][j] for k in range(n)]
                assert abs(A[i][j] - sum(terms)) <= gamma * sum(abs(t) for t in terms)


def test_lu_stack_views_and_empty(device):
    """Non-contiguous stacks (stepped, transposed, reversed) factor and solve to the bits of
    their contiguous copies; empty stacks and order 0 give empty results of SciPy's shapes."""
    a = random_matrix(8 * 5 * 6, 6, seed=80, device=device, spread=2).reshape(8, 5, 6, 6)
    b = random_matrix(8 * 8 * 6, 6, seed=81, device=device, spread=2).reshape(8, 8, 6, 6)
    for view in (a[::3, 1:4], a.transpose(1, 0, 3, 2), a[::-1, :, ::-1]):
        lu, piv = linalg.lu_factor(view)
        lu_c, piv_c = linalg.lu_factor(view.copy())
        assert same_bits(lu, lu_c)
        assert np.array_equal(_host_array(piv), _host_array(piv_c))
        b_view = b[:view.shape[0], :view.shape[1], ::-1, ::2]
        assert same_bits(linalg.lu_solve((lu, piv), b_view),
                         linalg.lu_solve((lu_c, piv_c), b_view.copy()))
        lu_t = lu.transpose(1, 0, 2, 3)   # the factors as a view too
        assert same_bits(linalg.lu_solve((lu_t, _host_array(piv).transpose(1, 0, 2)),
                                         b_view.transpose(1, 0, 2, 3)),
                         linalg.lu_solve((lu_c, piv_c), b_view).transpose(1, 0, 2, 3))
    for shape in [(0, 4, 4), (3, 0, 0), (2, 0, 5, 5)]:
        lu, piv = linalg.lu_factor(ddblas.zeros(shape, device))
        assert _shapes((lu, piv)) == (shape, shape[:-1])
        assert _host_array(piv).dtype == np.int32
        n = shape[-1]
        assert linalg.lu_solve((lu, piv), ddblas.ones((n,), device)).shape == shape[:-1]
        assert linalg.lu_solve((lu, piv), ddblas.ones((n, 2), device)).shape == \
            shape[:-1] + (2,)
    lu, piv = linalg.lu_factor(ddblas.eye(3, device=device).reshape(1, 3, 3) *
                               ddblas.ones((2, 1, 1), device))
    assert linalg.lu_solve((lu, piv), ddblas.ones((0, 2, 3, 1), device)).shape == (0, 2, 3, 1)
    assert linalg.lu_solve((lu, piv), ddblas.ones((3, 0), device)).shape == (2, 3, 0)


def test_lu_factor_stack_errors_name_the_matrix(device):
    """The batched path's errors are the loop's: OverflowError for factors of a finite matrix
    that overflow, checked before the zero pivots; the first matrix with a zero pivot (in the
    stack's row-major order) and its first zero pivot; NaN input with check_finite=False gives
    NaN factors in its matrix only."""
    eye = np.eye(3)
    singular = np.array([[1.0, 2, 3], [2, 4, 6], [1, 1, 1]])   # U[2, 2] = 0
    a = np.stack([eye, eye, singular, np.zeros((3, 3)), singular])
    with pytest.raises(linalg.LinAlgError, match=r"^U\[2, 2\] is exactly zero: the matrix is "
                                                 r"singular \(matrix a\[2\] of the stack\)$") \
            as info:
        linalg.lu_factor(ddblas.array(a, device=device))
    assert info.value.index == 2 and info.value.batch_index == 2
    with pytest.raises(linalg.LinAlgError, match=r"^U\[0, 0\] is exactly zero: the matrix is "
                                                 r"singular \(matrix a\[1, 0\] of the "
                                                 r"stack\)$") as info:
        linalg.lu_factor(ddblas.array(a[[0, 1, 3, 2]].reshape(2, 2, 3, 3), device=device))
    assert info.value.index == 0 and info.value.batch_index == (1, 0)
    big = np.array([[1e308, 1e308], [-1e308, 1e308]])   # u22 = 2e308
    a = np.stack([np.eye(2), np.array([[0.0, 1], [0, 1]]), big])
    with pytest.raises(OverflowError, match=r"overflow float64's range \(matrix a\[2\] of the "
                                            r"stack\)"):
        linalg.lu_factor(ddblas.array(a, device=device))
    a = np.stack([np.eye(2), np.array([[np.nan, 1], [1, 1]]), np.eye(2)])
    lu, piv = linalg.lu_factor(ddblas.array(a, device=device), check_finite=False)
    assert np.isnan(host(lu)[0][1]).any() and not np.isnan(host(lu)[0][[0, 2]]).any()
    with pytest.raises(ValueError, match=r"^a must not contain infs or NaNs"):
        linalg.lu_factor(ddblas.array(a, device=device))


def test_lu_stack_takes_one_batched_call(device, monkeypatch):
    """lu_factor of 2000 matrices of 9 x 9 calls the 2-D LU (_lu_in_place) for none of them and
    batched.lu_factor once; lu_solve with its factors calls the 2-D triangular solve
    (solve_lower_left) for none and batched.lu_solve once, with trans=1 too (the bits of each
    matrix's own transposed solve at this order). Rectangular stacks and orders above 96 still
    loop over the 2-D routines, with their bits."""
    calls = {"lu_in_place": 0, "solve_lower_left": 0, "lu_factor": 0, "lu_solve": 0}

    def counting(name, module):
        real = getattr(module, name)

        def wrapper(*args, **kwargs):
            calls[name.lstrip("_")] += 1
            return real(*args, **kwargs)
        monkeypatch.setattr(module, name, wrapper)
    counting("_lu_in_place", factor)
    counting("solve_lower_left", factor)
    counting("lu_factor", batched)
    counting("lu_solve", batched)
    a = random_matrix(2000 * 9, 9, seed=90, device=device, spread=2).reshape(2000, 9, 9)
    b = random_matrix(2000 * 9, 2, seed=91, device=device, spread=2).reshape(2000, 9, 2)
    lu, piv = linalg.lu_factor(a)
    x = linalg.lu_solve((lu, piv), b)
    assert calls == {"lu_in_place": 0, "solve_lower_left": 0, "lu_factor": 1, "lu_solve": 1}
    x_t = linalg.lu_solve((lu, piv), b, trans=1)
    assert calls["solve_lower_left"] == 0 and calls["lu_solve"] == 2
    for p in range(3):   # each a 2-D solve: 2 triangular solves
        assert same_bits(x_t[p], linalg.lu_solve((lu[p], piv[p]), b[p], trans=1))
    assert calls["solve_lower_left"] == 6
    linalg.lu_factor(random_matrix(3 * 4, 6, seed=92, device=device).reshape(3, 4, 6))
    assert calls["lu_in_place"] == 3 and calls["lu_factor"] == 1
    n = cpu.geometry()["batched_team_max_order"] + 1
    big = random_matrix(2 * n, n, seed=93, device=device, spread=2).reshape(2, n, n)
    lu, piv = linalg.lu_factor(big, algorithm="blocked")
    assert calls["lu_in_place"] == 5 and calls["lu_factor"] == 1
    lu1, _ = linalg.lu_factor(big[1], algorithm="blocked")
    assert same_bits(lu[1], lu1)
    linalg.lu_solve((lu, piv), ddblas.ones((n,), device))
    assert calls["lu_solve"] == 2
    assert same_bits(x[1234], _solve_batched(a[1234:1235], b[1234:1235])[0])


@pytest.mark.parametrize("lower", [True, False])
def test_cho_factor_stack(device, lower):
    """cho_factor of a stack (..., N, N): c of a's shape, each matrix bit for bit its own
    cho_factor (factor and the untouched triangle); cho_solve takes ours and SciPy 1.17's
    (c, array of lower) alike. It was a ValueError."""
    g = random_matrix(2 * 3 * 5, 5, seed=43, device=device).reshape(6, 5, 5)
    a = (g @ g.transpose(0, 2, 1) + ddblas.eye(5, device=device)).reshape(2, 3, 5, 5)
    c, low = linalg.cho_factor(a, lower=lower, algorithm="blocked")
    assert c.shape == a.shape and low is lower
    for index in np.ndindex(2, 3):
        c1, _ = linalg.cho_factor(a[index], lower=lower, algorithm="blocked")
        assert same_bits(c[index], c1)
    b = random_matrix(5, 2, seed=44, device=device)
    x = linalg.cho_solve((c, low), b, algorithm="blocked")
    x_array = linalg.cho_solve((c, np.full((2, 3), lower)), b, algorithm="blocked")
    assert x.shape == (2, 3, 5, 2) and same_bits(x, x_array)
    for index in np.ndindex(2, 3):
        assert same_bits(x[index], linalg.cho_solve((c[index], low), b, algorithm="blocked"))
    with pytest.raises(ValueError, match=r"^lower must be a bool or an array of bools over c's "
                                         r"stack \(2, 3\)"):
        linalg.cho_solve((c, np.ones((4,), dtype=bool)), b)


@pytest.mark.parametrize("mode", ["full", "economic", "r", "raw"])
@pytest.mark.parametrize("shape", [(2, 3, 6, 4), (2, 4, 6), (0, 5, 3)])
def test_qr_stack(device, mode, shape):
    """qr of a stack: SciPy 1.17's shapes for full and economic; "r" the 1-tuple and "raw"
    ((h, tau), R) as for one matrix (SciPy returns R bare and fails on raw for stacks); every
    matrix bit for bit its own qr. It was a ValueError."""
    rows = int(np.prod(shape[:-1]))
    a = random_matrix(rows, shape[-1], seed=45, device=device).reshape(shape)
    got = linalg.qr(a, mode=mode, algorithm="blocked")
    m, n = shape[-2:]
    k = min(m, n)
    stack = shape[:-2]
    expected = {"full": ((m, m), (m, n)), "economic": ((m, k), (k, n)), "r": ((m, n),),
                "raw": (((m, n), (k,)), (k, n))}[mode]
    add_stack = (lambda e: tuple(add_stack(v) for v in e) if isinstance(e[0], tuple)
                 else stack + e)
    assert _shapes(got) == add_stack(expected)
    if mode in ("full", "economic") and shape[0]:
        import scipy.linalg
        assert _shapes(got) == _shapes(scipy.linalg.qr(host(a)[0], mode=mode))
    flat = (lambda r: [r[0][0], r[0][1], r[1]]) if mode == "raw" else list
    for index in np.ndindex(*stack):
        one = linalg.qr(a[index], mode=mode, algorithm="blocked")
        for x, y in zip(flat(got), flat(one)):
            assert same_bits(x[index], y)


B_SHAPES = [(5,), (5, 2), (4, 5, 2), (2, 5, 2), (3, 2, 5, 1), (1, 5, 2), (5, 0), (0, 5, 2)]


def _solvers(device):
    """(name, our call, SciPy's call, a's stack) for lu_solve, cho_solve and solve_triangular,
    each with one matrix and with a stack of two."""
    import scipy.linalg as sl
    out = []
    for stack in ((), (2,)):
        n_rows = int(np.prod(stack, dtype=int)) * 5
        g = random_matrix(n_rows, 5, seed=46, device=device, spread=2).reshape(stack + (5, 5))
        a = g + ddblas.eye(5, device=device) * 8
        spd = a @ a.transpose(*range(len(stack)), len(stack) + 1, len(stack)) if stack \
            else a @ a.T
        a64, spd64 = host(a)[0], host(spd)[0]
        lu = linalg.lu_factor(a)
        cho = linalg.cho_factor(spd)
        out += [("lu_solve", lambda b, lu=lu: linalg.lu_solve(lu, b, algorithm="blocked"),
                 lambda b, a64=a64: sl.lu_solve(sl.lu_factor(a64), b), stack, lu, "lu"),
                ("cho_solve", lambda b, cho=cho: linalg.cho_solve(cho, b, algorithm="blocked"),
                 lambda b, s=spd64: sl.cho_solve(sl.cho_factor(s), b), stack, cho, "c"),
                ("solve_triangular",
                 lambda b, a=a: linalg.solve_triangular(a, b, algorithm="blocked"),
                 lambda b, a64=a64: sl.solve_triangular(a64, b), stack, a, "a")]
    return out


@pytest.mark.parametrize("b_shape", B_SHAPES)
def test_solvers_broadcast_b_as_scipy(device, b_shape):
    """lu_solve, cho_solve and solve_triangular take b (N,) or (..., N, K) with stacks that
    broadcast against the factor's, as SciPy 1.17: SciPy's shapes (and its refusals, as
    ValueErrors naming the arguments), and each system bit for bit its own 2-D solve (one
    matrix solves b's stack side by side in one call; lu_solve with a stack of lu's is the
    batched solve, which equals it at order 5). It was a ValueError for b of more than 2
    dimensions and for stacked factors."""
    b = random_matrix(int(np.prod(b_shape[:-1], dtype=int)), b_shape[-1], seed=47,
                      device=device).reshape(b_shape)
    for name, ours, theirs, stack, factors, a_name in _solvers(device):
        try:
            expected = theirs(host(b)[0]).shape
        except ValueError:   # SciPy refuses: stacks that do not broadcast, or zero-size batches
            broadcast_ok = True
            try:
                np.broadcast_shapes(stack, b_shape[:-2] if len(b_shape) > 1 else ())
            except ValueError:
                broadcast_ok = False
            if broadcast_ok:   # SciPy's zero-size batches: ddblas returns the empty result
                assert 0 in b_shape[:-2]
                assert ours(b).shape == b_shape[:-2] + (5, b_shape[-1])
                continue
            with pytest.raises(ValueError, match=rf"^the stack \(leading\) dimensions of "
                                                 rf"{a_name} \(2,\), b"):
                ours(b)
            continue
        x = ours(b)
        assert x.shape == expected, name
        out_stack = expected[:-1] if len(b_shape) == 1 else expected[:-2]
        for index in np.ndindex(*out_stack):
            f = factors
            if stack:
                f = (factors[0][index[-1:]], factors[1][index[-1:]]) if name == "lu_solve" \
                    else (factors[0][index[-1:]], factors[1]) if name == "cho_solve" \
                    else factors[index[-1:]]
            b1 = b if len(b_shape) == 1 else b[tuple(0 if s == 1 else i for i, s in
                                                     zip(index[len(index) - len(b_shape) + 2:],
                                                         b_shape[:-2]))]
            call = {"lu_solve": linalg.lu_solve, "cho_solve": linalg.cho_solve,
                    "solve_triangular": linalg.solve_triangular}[name]
            assert same_bits(x[index], call(f, b1, algorithm="blocked")), (name, index)


def test_solvers_refuse_b_of_wrong_rows(device):
    for name, ours, _, _, _, a_name in _solvers(device):
        for bad in ((4, 5), (5, 4, 2), (4,)):
            with pytest.raises(ValueError, match=rf"^b must be \(5,\) or \(\.\.\., 5, K\) to "
                                                 rf"match {a_name} of shape"):
                ours(ddblas.ones(bad, device))


def test_solve_triangular_stack_names_the_singular_matrix(device):
    a = ddblas.eye(3, device=device).reshape(1, 3, 3) * ddblas.ones((4, 1, 1), device)
    a = a.copy()
    a[2, 1, 1] = 0
    with pytest.raises(linalg.LinAlgError, match=r"^a\[1, 1\] is exactly zero: the triangular "
                                                 r"matrix is singular \(matrix a\[2\] of the "
                                                 r"stack\)$") as info:
        linalg.solve_triangular(a, ddblas.ones((3,), device))
    assert info.value.batch_index == 2 and info.value.index == 1
