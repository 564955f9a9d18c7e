"""ddblas.linalg.qr: A - Q R and Q^T Q - I measured exactly (rational arithmetic) against the
Householder QR bound of docs/linalg.md ("QR"), SciPy's modes and shapes, extreme column scales,
views, errors naming the argument, and the caller's array left untouched."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas
from ddblas import accuracy, linalg
from ddblas.core.options import Options
from ddvalues import exact_values, random_matrix, same_bits


def qr_constant(m: int, n: int, variant: dict) -> Fraction:
    """docs/linalg.md's c_QR(m, n) = accuracy.bound_constant("qr", variant, k=m*n) (a measured
    constant); the default options' variant when `variant` is empty."""
    return accuracy.bound_constant("qr", Options(**variant) if variant else None,
                                   max(m, 1) * max(n, 1))


def exact(x: ddblas.DDArray) -> list:
    """x as a list of rows of Fractions (on the CPU)."""
    x = x.to_device("cpu")
    values = exact_values(x) if x.size else []
    cols = x.shape[1]
    return [values[i * cols:(i + 1) * cols] for i in range(x.shape[0])]


def check_qr(a: ddblas.DDArray, q: ddblas.DDArray, r: ddblas.DDArray,
             variant: dict | None = None, backward: bool = True) -> None:
    """Column-wise backward error ||a_j - (Q R)_j||_2 <= c_QR ||a_j||_2 (unless not backward)
    and ||Q^T Q - I||_max <= c_QR, in exact rationals; R upper triangular."""
    m, n = a.shape
    A, Q, R = exact(a), exact(q), exact(r)
    k = q.shape[1]
    assert r.shape == (k, n)
    assert all(R[i][j] == 0 for i in range(k) for j in range(min(i, n)))
    c = qr_constant(m, n, variant or {})
    for j in range(n if backward else 0):
        residual = sum((A[i][j] - sum(Q[i][l] * R[l][j] for l in range(min(k, j + 1)))) ** 2
                       for i in range(m))
        norm = sum(A[i][j] ** 2 for i in range(m))
        assert residual <= c * c * norm, f"column {j}"
    for i in range(k):
        for j in range(k):
            g = sum(Q[l][i] * Q[l][j] for l in range(m)) - (1 if i == j else 0)
            assert abs(g) <= c, (i, j)


SHAPES = [(1, 1), (4, 4), (7, 3), (3, 7), (2, 5), (37, 33), (33, 40)]


@pytest.mark.parametrize("shape", SHAPES)
def test_qr_bounds(shape, device, variant):
    a = random_matrix(*shape, seed=sum(shape), device=device)
    a_copy = (a.hi.copy(), a.lo.copy())
    q, r = linalg.qr(a, mode="economic", **variant)
    check_qr(a, q, r, variant)
    assert (a.hi == a_copy[0]).all() and (a.lo == a_copy[1]).all()


@pytest.mark.parametrize("mode", ["full", "complete", "economic", "reduced", "r", "raw"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (0, 3), (3, 0)])
def test_modes_and_shapes(mode, shape, device):
    m, n = shape
    k = min(m, n)
    a = random_matrix(m, n, seed=1, device=device)
    out = linalg.qr(a, mode=mode)
    if mode == "r":
        (r,) = out
        assert r.shape == (m, n)
    elif mode == "raw":
        (h, tau), r = out
        assert h.shape == (m, n) and tau.shape == (k,) and r.shape == (k, n)
    else:
        q, r = out
        full = mode in ("full", "complete")
        assert q.shape == (m, m if full else k)
        assert r.shape == ((m if full else k), n)
        check_qr(a, q, r)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4)])
def test_raw_mode_is_scipys(shape, device):
    """mode="raw" returns ((h, tau), R) with SciPy's shapes, R (K, N) being h's upper
    trapezoid, the same as the economic R."""
    import scipy.linalg
    a = random_matrix(*shape, seed=3, device=device)
    (h, tau), r = linalg.qr(a, mode="raw")
    (h64, tau64), r64 = scipy.linalg.qr(np.array(a.to_device("cpu").hi), mode="raw")
    assert (h.shape, tau.shape, r.shape) == (h64.shape, tau64.shape, r64.shape)
    k = min(shape)
    xp = h.xp
    upper = ddblas.DDArray(xp.triu(h.hi[:k]), xp.triu(h.lo[:k]), normalize=False)
    _, economic = linalg.qr(a, mode="economic")
    assert same_bits(r, upper) and same_bits(r, economic)


@pytest.mark.parametrize("shape, big", [((2, 2), 8e307), ((40, 36), 1.3e308),
                                        ((40, 36), np.finfo(np.float64).max)])
def test_columns_near_dbl_max(shape, big, device):
    """Columns whose entries come near DBL_MAX but whose norms are finite, where alpha - beta
    of the reflector overflowed (docs/linalg.md: they are factored scaled by a power of two, R's
    columns scaled back): Q and R finite and within the bound. The 40 x 36 case has trailing
    columns (two panels) and unscaled columns beside the scaled ones, and its Q and R are those
    of the matrix scaled by 2^-64 (R times 2^64) bit for bit: the scaling commutes with every
    operation."""
    m, n = shape
    if shape == (2, 2):
        hi = np.array([[big, big], [big, 0.0]])
    else:
        hi = np.array(random_matrix(m, n, seed=9, spread=0).hi) / (2 * np.sqrt(m))
        hi[:, ::3] *= 0.7 * big   # every third column's norm about 0.73 big
        hi[np.arange(0, n, 3), np.arange(0, n, 3)] = 0.7 * big
    a = ddblas.DDArray(hi, np.zeros_like(hi)).to_device(device)
    q, r = linalg.qr(a, mode="economic")
    assert np.isfinite(np.array(q.to_device("cpu").hi)).all()
    assert np.isfinite(np.array(r.to_device("cpu").hi)).all()
    check_qr(a, q, r)
    if shape != (2, 2):
        small = ddblas.DDArray(np.ldexp(hi, -64), np.zeros_like(hi)).to_device(device)
        q_small, r_small = linalg.qr(small, mode="economic")
        assert same_bits(q, q_small)
        assert same_bits(r, r_small * ddblas.array(2.0 ** 64, device=device))


@pytest.mark.parametrize("scale", [1e300, 1e-280, 1e-300, 2.0 ** -1070])
def test_extreme_columns(scale, device):
    """Columns near DBL_MAX or deep in the subnormals: the scaled norm neither overflows nor
    loses the column (R's diagonal is finite and nonzero), and Q is orthogonal to the bound at
    every scale (review of 2026-11-26: tiny columns were not scaled up, the reflectors divided in
    the subnormals, and Q of [[3], [4]] 1e-310 was 1.8e-16 from orthogonal; a column of
    multiples of 5e-324 in a 40 x 36 matrix, 0.02)."""
    base = random_matrix(6, 3, seed=5, spread=0)
    hi = np.array(base.hi)
    hi[:, 1] *= scale
    a = ddblas.DDArray(hi, np.zeros_like(hi)).to_device(device)
    q, r = linalg.qr(a, mode="economic")
    rh = np.array(r.to_device("cpu").hi)
    assert np.isfinite(rh).all() and (np.diag(rh) != 0).all()
    # below 2^-960 R's parts are subnormal: no relative backward bound, but Q's holds
    check_qr(a, q, r, backward=scale >= 2.0 ** -960)
    for tiny in (np.array([[3.0], [4.0]]) * 1e-310, np.array([[1.0, 2.0], [3.0, 4.0]]) * 1e-300):
        t = ddblas.asarray(tiny).to_device(device)
        check_qr(t, *linalg.qr(t, mode="economic"), backward=False)
    wide = np.array(random_matrix(40, 36, seed=7, spread=0).hi)
    wide[:, 1] = np.arange(1, 41) % 4 * 5e-324
    w = ddblas.asarray(wide).to_device(device)
    check_qr(w, *linalg.qr(w, mode="economic"), backward=False)


def test_zero_column_and_views(device):
    a = random_matrix(9, 8, seed=3, device=device)
    a.hi[:, 2] = 0
    a.lo[:, 2] = 0
    view = a[::2, ::-1].T          # non-contiguous, transposed
    q, r = linalg.qr(view, mode="economic")
    check_qr(view, q, r)


def test_ill_conditioned(device):
    a = accuracy.ill_conditioned_matrix(8, 1e20, seed=2, device=device)
    q, r = linalg.qr(a, mode="economic")
    check_qr(a, q, r)


def test_errors():
    with pytest.raises(ValueError, match="a must not contain"):
        linalg.qr(np.array([[1.0, np.nan], [0.0, 1.0]]))
    with pytest.raises(ValueError, match="mode"):
        linalg.qr(np.eye(2), mode="thin")
    with pytest.raises(ValueError, match=r"^a must be a matrix or a stack of matrices"):
        linalg.qr(np.ones(3))
    with pytest.raises(ValueError, match="pivoting"):
        linalg.qr(np.eye(2), pivoting=True)
    with pytest.raises(ValueError, match="lwork"):
        linalg.qr(np.eye(2), lwork=True)
    assert linalg.qr(np.eye(2), lwork=np.int64(10))[1].shape == (2, 2)   # as SciPy


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(0, 2 ** 32 - 1))
def test_hypothesis_shapes(m, n, seed):
    a = random_matrix(m, n, seed=seed)
    q, r = linalg.qr(a, mode="economic")
    check_qr(a, q, r)


def exact_solve(rows: list, rhs: list) -> list:
    """The solution of a square nonsingular rational system (Gauss-Jordan in Fractions)."""
    n = len(rows)
    aug = [list(r) + [v] for r, v in zip(rows, rhs)]
    for c in range(n):
        p = next(i for i in range(c, n) if aug[i][c] != 0)
        aug[c], aug[p] = aug[p], aug[c]
        for i in range(n):
            if i != c and aug[i][c] != 0:
                f = aug[i][c] / aug[c][c]
                aug[i] = [x - f * y for x, y in zip(aug[i], aug[c])]
    return [aug[i][n] / aug[i][i] for i in range(n)]


def exact_lstsq(A: list, B: list) -> list:
    """The least-squares (m >= n: normal equations) or minimum-norm (m < n: x = A^T (A A^T)^-1
    b) solution of the rational system A x = B, exactly."""
    m, n = len(A), len(A[0])
    if m >= n:
        normal = [[sum(A[k][i] * A[k][j] for k in range(m)) for j in range(n)] for i in range(n)]
        return exact_solve(normal, [sum(A[k][i] * B[k] for k in range(m)) for i in range(n)])
    gram = [[sum(A[i][k] * A[j][k] for k in range(n)) for j in range(m)] for i in range(m)]
    y = exact_solve(gram, B)
    return [sum(A[k][i] * y[k] for k in range(m)) for i in range(n)]


@pytest.mark.parametrize("shape", [(1, 1), (5, 3), (6, 6), (3, 5)])
def test_lstsq_exact(shape, device, variant):
    """x against the exact least-squares (m >= n: normal equations) or minimum-norm
    (m < n: x = A^T (A A^T)^-1 b) solution in Fractions; measured bound 2^-90 relative on these
    well-conditioned random systems (forward error ~ kappa^2 u_DD, docs/linalg.md)."""
    m, n = shape
    a = random_matrix(m, n, seed=11, device=device, spread=0)
    b = random_matrix(m, 1, seed=12, device=device, spread=0)[:, 0]
    b_copy = b.hi.copy()
    x, residues, rank, s = linalg.lstsq(a, b, **variant)
    assert rank == min(m, n) and s is None and x.shape == (n,)
    assert (b.hi == b_copy).all()
    A, B = exact(a), exact(b.reshape(m, 1))
    B = [row[0] for row in B]
    xe = exact_lstsq(A, B)
    X = [row[0] for row in exact(x.reshape(n, 1))]
    scale = max(abs(v) for v in xe)
    assert max(abs(u - v) for u, v in zip(X, xe)) <= Fraction(1, 2 ** 90) * scale
    if m > n:
        res = sum((B[i] - sum(A[i][j] * xe[j] for j in range(n))) ** 2 for i in range(m))
        got = exact_values(residues.reshape(1).to_device("cpu"))[0]
        assert abs(got - res) <= Fraction(1, 2 ** 90) * max(res, sum(v * v for v in B))
    else:
        assert residues.shape == (0,)


@pytest.mark.parametrize("shape", [(40, 5), (3, 5)])
def test_lstsq_of_a_tiny_system_is_the_scaled_one(shape, device):
    """Review of 2026-11-26: lstsq(A 2^-1000, b 2^-1000) was 2.9e-22 from the exact solution
    (4e-32 unscaled): R and Q^T b lost their low parts to the subnormals. Tiny columns (tall) or
    rows (wide) and b's columns are now scaled up first, so x has the unscaled system's bits."""
    m, n = shape   # float64 entries, so that A 2^-1000 is exact (DD lo parts would not be)
    a = ddblas.DDArray(random_matrix(m, n, seed=13, spread=0).hi)
    b = ddblas.DDArray(random_matrix(m, 2, seed=14, spread=0).hi)
    x, _, _, _ = linalg.lstsq(a.to_device(device), b.to_device(device))
    tiny = ddblas.array(2.0 ** -1000)
    x_tiny, _, _, _ = linalg.lstsq((a * tiny).to_device(device), (b * tiny).to_device(device))
    assert same_bits(x, x_tiny)
    A, B = exact(a), exact(b)
    for col in range(2):
        xe = exact_lstsq(A, [row[col] for row in B])
        X = [row[col] for row in exact(x_tiny)]
        assert max(abs(u - v) for u, v in zip(X, xe)) <= Fraction(1, 2 ** 90) * max(map(abs, xe))


@pytest.mark.parametrize("a, b", [
    ([[1.0, 1.0], [1.0, -1.0]], [1.7e308, 1.7e308]),                # Q^T b overflowed: NaN
    ([[1.5e308, 1e308], [1e308, -1.5e308], [1e308, 1e308]], [1.7e308, -1e308, 3e307]),
    ([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], [1e308, 1.5e308, 1.7e308]),
    ([[1.5e308, 1.5e308, 0.0], [0.0, 1e308, 1e308]], [1.7e308, 1.0]),  # m < n, rows scaled
    ([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], [1.7e308, 1e308]),
])
def test_lstsq_near_dbl_max(a, b, device):
    """Entries near DBL_MAX in A or b: the powers of two that lstsq applies keep R and Q^T b
    finite, so x is within 2^-90 of the exact solution (it came out NaN or wrong before);
    residues exact to 2^-90 or inf where the exact one passes DBL_MAX, as NumPy's."""
    a_dd = ddblas.asarray(np.array(a)).to_device(device)
    x, residues, _, _ = linalg.lstsq(a_dd, np.array(b))
    A = [[Fraction(v) for v in row] for row in a]
    B = [Fraction(v) for v in b]
    xe = exact_lstsq(A, B)
    X = [row[0] for row in exact(x.reshape(len(xe), 1))]
    assert max(abs(u - v) for u, v in zip(X, xe)) <= Fraction(1, 2 ** 90) * max(map(abs, xe))
    if len(a) > len(a[0]):
        res = sum((B[i] - sum(A[i][j] * xe[j] for j in range(len(xe)))) ** 2
                  for i in range(len(a)))
        got = float(residues.to_device("cpu").hi)
        if res > Fraction(np.finfo(np.float64).max):
            assert got == np.inf
        else:
            assert abs(exact_values(residues.reshape(1).to_device("cpu"))[0] - res) <= \
                Fraction(1, 2 ** 90) * max(res, sum(v * v for v in B))


def test_lstsq_rank_deficient_and_errors(device):
    a = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    with pytest.raises(linalg.LinAlgError, match=r"R\[1, 1\]") as info:
        linalg.lstsq(ddblas.asarray(a).to_device(device), np.ones(3))
    assert info.value.index == 1
    with pytest.raises(ValueError, match="b must be"):
        linalg.lstsq(np.eye(3), np.ones(2))
    with pytest.raises(ValueError, match="b must not contain"):
        linalg.lstsq(np.eye(2), np.array([1.0, np.inf]))
    for rcond in (np.nan, "x", True):
        with pytest.raises(ValueError, match="rcond must be None or a real number"):
            linalg.lstsq(np.eye(2), np.ones(2), rcond=rcond)
    # a zero diagonal of R is rank deficiency whatever rcond (it named a[0, 0] of "a" before)
    with pytest.raises(linalg.LinAlgError, match=r"\|R\[0, 0\]\| = 0") as info:
        linalg.lstsq(np.array([[0.0, 1.0], [0.0, 1.0], [0.0, 0.0]]), np.ones(3), rcond=-1)
    assert info.value.index == 0


def test_lstsq_takes_scipys_arguments(device):
    """lstsq(a, b, cond, overwrite_a, overwrite_b, check_finite, lapack_driver), as SciPy (it
    had NumPy's rcond and keyword-only check_finite: lstsq(a, b, cond=...) and lapack_driver were
    TypeErrors); SciPy's answer, exact here; rcond stays as a keyword alias."""
    import scipy.linalg as sl
    a = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    b = np.array([3.0, 5.0, 4.0])   # x = [3, 5], residue 16
    a_dev, b_dev = (ddblas.asarray(v).to_device(device) for v in (a, b))
    for driver in (None, "gelsd", "gelsy", "gelss"):
        x, residues, rank, s = linalg.lstsq(a_dev, b_dev, 1e-10, True, True, True, driver)
        x64, residues64, rank64, _ = sl.lstsq(a, b, 1e-10, False, False, True, driver)
        assert exact_values(x) == [Fraction(v) for v in x64] == [3, 5]
        assert exact_values(residues.reshape(1)) == [16]   # SciPy's "gelsy" gives none
        if driver != "gelsy":
            assert float(residues64) == 16
        assert rank == rank64 == 2 and s is None
    assert np.array_equal(a_dev.to_device("cpu").to_float64(), a)
    assert np.array_equal(b_dev.to_device("cpu").to_float64(), b)
    deficient = np.array([[1.0, 1.0], [1.0, 1.000001], [0.0, 0.0]])
    with pytest.raises(linalg.LinAlgError, match=r"R\[1, 1\]"):
        linalg.lstsq(deficient, b, cond=1e-3)
    assert exact_values(linalg.lstsq(deficient, b, cond=1e-12)[0].reshape(2)) == \
        exact_values(linalg.lstsq(deficient, b, rcond=1e-12)[0].reshape(2))
    with pytest.raises(ValueError, match="cond must be None or a real number"):
        linalg.lstsq(a, b, cond="x")
    with pytest.raises(ValueError, match="not both"):
        linalg.lstsq(a, b, cond=1e-3, rcond=1e-3)
    with pytest.raises(ValueError, match="lapack_driver must be None or one of"):
        linalg.lstsq(a, b, lapack_driver="gels")
    with pytest.raises(ValueError, match="b must not contain infs or NaNs"):
        linalg.lstsq(a, np.array([1.0, np.inf, 0.0]), None, False, False, True)


def test_special_values_without_check(device):
    """check_finite=False: NaN and inf propagate into R (no hang, no crash); a zero matrix gives
    R = 0 and Q = I (tau = 0, dlarfg's H = I)."""
    a = np.ones((5, 4))
    a[2, 1] = np.nan
    a[0, 3] = np.inf
    _, r = linalg.qr(ddblas.asarray(a).to_device(device), check_finite=False)
    assert np.isnan(np.array(r.to_device("cpu").hi)).any()
    q, r = linalg.qr(ddblas.zeros((4, 3), device=device))
    assert (np.array(r.to_device("cpu").hi) == 0).all()
    assert (np.array(q.to_device("cpu").hi) == np.eye(4)).all()


@pytest.mark.parametrize("a_shape, b_shape", [
    ((6, 3), (4, 6, 2)), ((6, 3), (2, 1, 6, 1)), ((2, 6, 3), (6,)), ((2, 6, 3), (6, 2)),
    ((2, 6, 3), (1, 6, 2)), ((2, 3, 6), (2, 3, 2)), ((3, 6), (2, 3)), ((2, 6, 3), (4, 6, 2)),
    ((6, 3), (0, 6, 2))])
def test_lstsq_stacks_as_scipy(device, a_shape, b_shape):
    """lstsq with stacks of a and b, broadcast, as SciPy 1.17: its shapes for x, residues and
    rank (an int64 array over the stack) and its refusals (ValueErrors naming the arguments;
    SciPy's zero-size batches aside, where ddblas returns the empty result); every system bit
    for bit its own 2-D lstsq (one a solves b's systems side by side with one QR). It was a
    ValueError for a or b of more than 2 dimensions."""
    import scipy.linalg
    a = random_matrix(int(np.prod(a_shape[:-1])), a_shape[-1], seed=51,
                      device=device).reshape(a_shape)
    b = random_matrix(int(np.prod(b_shape[:-1])), b_shape[-1], seed=52,
                      device=device).reshape(b_shape)
    a64, b64 = (np.asarray(x.to_device("cpu").hi) for x in (a, b))
    try:
        x64, res64, rank64, _ = scipy.linalg.lstsq(a64, b64)
    except ValueError as error:
        if "zero-size" in str(error):
            x, res, rank, s = linalg.lstsq(a, b)
            assert x.shape == (0, 3, 2) and res.shape == (0, 2) and rank.shape == (0,)
            return
        match = r"^b must be" if "Shape mismatch" in str(error) else \
            r"^the stack \(leading\) dimensions of a \(2,\), b \(4,\) do not broadcast"
        with pytest.raises(ValueError, match=match):
            linalg.lstsq(a, b)
        return
    x, res, rank, s = linalg.lstsq(a, b, algorithm="blocked")
    assert (x.shape, res.shape, np.shape(rank), s) == (x64.shape, res64.shape, np.shape(rank64),
                                                      None)
    assert np.asarray(rank).dtype == np.int64 and (np.asarray(rank) == min(a_shape[-2:])).all()
    vector = len(b_shape) == 1
    out_stack = x.shape[:-1] if vector else x.shape[:-2]
    for index in np.ndindex(*out_stack):
        pick = (lambda v, shape: v[tuple(0 if size == 1 else i for i, size in
                                         zip(index[len(index) - len(shape) + 2:], shape[:-2]))])
        x1, res1, _, _ = linalg.lstsq(pick(a, a_shape), b if vector else pick(b, b_shape),
                                      algorithm="blocked")
        assert same_bits(x[index], x1)
        assert same_bits(res[index], res1)


def test_lstsq_stack_names_the_rank_deficient_matrix(device):
    a = random_matrix(18, 3, seed=53, device=device).reshape(3, 6, 3)
    a[1, :, 2] = 0
    with pytest.raises(linalg.LinAlgError, match=r"\(matrix a\[1\] of the stack\)$") as info:
        linalg.lstsq(a, ddblas.ones((6,), device))
    assert info.value.batch_index == 1 and info.value.index == 2
