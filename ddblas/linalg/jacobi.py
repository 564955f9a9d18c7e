"""ddblas.linalg's Jacobi methods: the singular values (svd, svdvals, matrix_rank, pinv, and the
2-norm they give norm and cond) and the symmetric eigenproblem (eigh, eigvalsh), with
numpy.linalg's names and arguments (docs/linalg.md, "Singular values and symmetric
eigenvalues"). eigh is the two-sided cyclic Jacobi method with the same rounds and rotations
(its docstring); the rest of this docstring is the SVD's.

Algorithm: the one-sided Jacobi SVD (Hestenes 1958; Demmel and Veselic, "Jacobi's method is
more accurate than QR", SIAM J. Matrix Anal. Appl. 13, 1992, Alg. 4.1), in DD on the kernels:
plane rotations of pairs of columns of W (initially A, M >= N; A^T otherwise) until every pair
is orthogonal to the tolerance, the same rotations accumulated in V. Each round rotates N/2
disjoint pairs at once (a round-robin tournament orders them, so a sweep of N - 1 rounds meets
every pair once): their norms and inner products are DD dot products of the columns scaled by
powers of two, the rotation is Rutishauser's (zeta = (beta - alpha) / (2 gamma), t = sign(zeta)
/ (|zeta| + sqrt(1 + zeta^2)), c = 1 / sqrt(1 + t^2), s = c t), and the columns are rotated by
DD multiply-adds. A pair counts as orthogonal when |gamma| <= JACOBI_TOLERANCE sqrt(M) sqrt(alpha
beta), above the DD dot products' rounding, so sweeps end (LAPACK's dgesvj: sqrt(M) eps). Then
sigma_j = ||w_j||_2, U = W / sigma (columns of zero sigma completed to an orthonormal basis by a
full QR), sorted descending.

Bound (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., Lemma 19.9 on
sequences of disjoint plane rotations, with r = the rounds run): A + dA = U Sigma V^T with
||dA||_F <= ~ r c delta ||A||_F, U and V orthonormal to ~ (r + m) c delta, and |sigma^_i -
sigma_i| <= ||dA||_2 (Weyl); ddblas.accuracy.bound("svd", k=rounds + m) is the constant with the
measured margin the tests check (docs/linalg.md). A round is one launch of cuda_src/jacobi.h's
svd_round (an item a pair), so the GPU's results equal the CPU's bit for bit.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..blas.gemm import matmul
from ..core import ops
from ..core.array import DDArray, eye, zeros
from ..core.building import argsort, concatenate, tril, triu, where
from ..core.ops import REDUCTION_CHUNK
from ..core.options import options, resolve
from ..core.shaping import take
from ..engines import backend as _backend
from .errors import (LinAlgError, require_finite, require_matrices, require_real_or_none,
                     require_square_stack)
from .qr import RCOND_EPSILON, qr
from .stacks import stacked_results

# A pair of columns is orthogonal enough when |gamma| <= JACOBI_TOLERANCE sqrt(M alpha beta):
# 8 u^2 sqrt(M), above the DD dot products' rounding, so that sweeps end.
JACOBI_TOLERANCE = 2.0 ** -103
# A column whose entries all lie below 2^JACOBI_FLOOR_EXPONENT (A scaled into [1/2, 1)) is
# rounding debris: a rank-deficient A's columns shrink by ~2^-50 a rotation towards it and would
# never become orthogonal. It is not rotated, and is zeroed (sigma 0, U completed) at the end:
# an absolute change <= sqrt(M) 2^-900 ||A||_max, far inside the bound.
JACOBI_FLOOR_EXPONENT = -900
# Sweeps before a LinAlgError: DD needs ~ 6-12 (quadratic convergence after the first few).
JACOBI_MAX_SWEEPS = 60


class SVDResult(NamedTuple):
    """svd's result, as numpy.linalg.svd's: a @ diag(S) @ Vh = a."""
    U: DDArray
    S: DDArray
    Vh: DDArray


def _tournament(n: int, xp) -> list:
    """The rounds of a round-robin over n columns (n - 1 rounds for even n, n for odd), every
    pair of columns in exactly one round: each round's disjoint pairs (p[k], q[k]), p < q, as
    two int64 arrays of module xp."""
    players = list(range(n + n % 2))   # an odd n gets a stand-in player n: its pair sits out
    rounds = []
    for _ in range(len(players) - 1):
        half = len(players) // 2
        pairs = [(players[k], players[-1 - k]) for k in range(half)]
        pairs = [(p, q) if p < q else (q, p) for p, q in pairs if n not in (p, q)]
        rounds.append(tuple(xp.asarray([pair[side] for pair in pairs], dtype=np.int64)
                            for side in (0, 1)))
        players = [players[0], players[-1]] + players[1:-1]
    return rounds


def _by_columns(x: DDArray) -> tuple:
    """New C-ordered copies of x's parts transposed (column j of x is row j): the layout the
    round kernels rotate in place."""
    return tuple(x.xp.array(part.T, order="C") for part in (x.hi, x.lo))


def _column_dots(x: DDArray, y: DDArray) -> DDArray:
    """x_j . y_j for each column j: DD products summed in sum()'s fixed order (linalg.vecdot's
    bits, bound("dot", k=M))."""
    return ops.sum(x * y, axis=0)


def _jacobi(w: DDArray, info: dict) -> tuple:
    """One-sided Jacobi on w (M x N, M >= N, finite, scaled): (W, V) with W = A V, the columns
    of W orthogonal to the tolerance; info gets the sweeps and rounds run. Each round is one
    launch of jacobi.h's svd_round on copies of W and V held by columns: each column scaled by
    a power of two near its largest entry (exact) for its dot products, so that no column's
    squares underflow (alpha, beta, gamma are 2^-2ep ||w_p||^2, 2^-2eq ||w_q||^2 and
    2^-(ep+eq) w_p . w_q, and the test and zeta are scale-free), summed in sum()'s order; the
    host looks at the rounds' flags once a sweep."""
    m, n = w.shape
    w_hi, w_lo = _by_columns(w)
    v_hi, v_lo = _by_columns(eye(n, device=w.device))
    kernel = "ddblas_linalg_jacobi_svd_round_" + resolve(None, None).suffix
    be = _backend.backend(w.device)
    tolerance = JACOBI_TOLERANCE * math.sqrt(m)

    def round_(p, q, rotated):
        be.launch(kernel, p.size, p.size, m, n, REDUCTION_CHUNK, w_hi, w_lo, v_hi, v_lo, p, q,
                  tolerance, JACOBI_FLOOR_EXPONENT, rotated)
    _sweep(n, w.xp, round_, info, "SVD")
    w = DDArray(w_hi.T, w_lo.T, normalize=False)
    return (where(_column_exponents(w) > JACOBI_FLOOR_EXPONENT, w, 0.0),
            DDArray(v_hi.T, v_lo.T, normalize=False))


def _sweep(n: int, xp, round_, info: dict, what: str) -> None:
    """Sweeps of the tournament over n columns, round_(p, q, rotated) launching each round's
    kernels (which set rotated[k] where pair k rotated), until a sweep rotates nothing: the
    flags are read once a sweep. info gets the sweeps and rounds run; a LinAlgError naming
    `what` after JACOBI_MAX_SWEEPS."""
    rounds = _tournament(n, xp)
    rotated = xp.zeros(max(n // 2, 1), dtype=np.int64)
    for sweep in range(1, JACOBI_MAX_SWEEPS + 1):
        rotated[...] = 0
        for p, q in rounds:
            round_(p, q, rotated)
        if not bool(rotated.any()):
            info.update(sweeps=sweep, rounds=sweep * len(rounds))
            return
    raise LinAlgError(f"{what} did not converge in {JACOBI_MAX_SWEEPS} Jacobi sweeps")


def _completed(y: DDArray, count: int) -> DDArray:
    """count orthonormal columns orthogonal to y's (orthonormal) columns: the next ones of a
    full QR of y (the identity's first where y has none)."""
    rows, given = y.shape
    if given == 0:
        return eye(rows, count, device=y.device)
    q, _ = qr(y, mode="full", check_finite=False)
    return q[:, given:given + count]


def _scaled(x: DDArray, k: int) -> DDArray:
    """x 2^k in two exact steps (ops.scale takes |k| <= 1022; k here up to 1074)."""
    return ops.scale(ops.scale(x, k // 2), k - k // 2)


def _top_exponent(a: DDArray) -> int:
    """e with max |a_ij| in [2^(e - 1), 2^e) (0 for a zero or empty a): a 2^-e has its largest
    entry in [1/2, 1)."""
    largest = float(_backend.move(a.xp.abs(a.hi).max(), "cpu")) if a.size else 0.0
    return math.frexp(largest)[1]


def _column_exponents(w: DDArray):
    """e_j with max_i |w_ij| in [2^(e_j - 1), 2^e_j) for each column (0 for a zero column), as
    an int64 array on w's device."""
    if w.shape[0] == 0:
        return w.xp.zeros(w.shape[1], dtype=np.int64)
    return w.xp.frexp(w.xp.abs(w.hi).max(axis=0))[1].astype(np.int64)


def _column_norms(w: DDArray) -> DDArray:
    """||w_j||_2 of each column: each scaled by a power of two near its largest entry (exact)
    so that its squares neither overflow nor underflow, a DD dot product, sqrt, scaled back."""
    e = _column_exponents(w)
    scaled = _scaled(w, -e)
    return _scaled(ops.sqrt(_column_dots(scaled, scaled)), e)


def _svd_tall(a: DDArray, full: bool, compute_uv: bool, info: dict):
    """U, S, V (not transposed) of a (M x N, M >= N, finite): U M x N (M x M if full)."""
    m, n = a.shape
    # sigma(A 2^-e) = sigma(A) 2^-e: scaled by a power of two so that the largest entry lies in
    # [1/2, 1) and the squares in the dot products neither overflow nor underflow early
    shift = _top_exponent(a)
    w, v = _jacobi(_scaled(a, -shift), info)
    sigma = _column_norms(w)
    order = argsort(sigma)[::-1]
    sigma = take(sigma, order)
    if not compute_uv:
        return None, _scaled(sigma, shift), None
    v = take(v, order, axis=1)
    w = take(w, order, axis=1)
    nonzero = int((sigma.hi > 0).sum())
    u = w[:, :nonzero] / sigma[:nonzero]
    missing = (m if full else n) - nonzero
    if missing:
        u = concatenate([u, _completed(u, missing)], axis=1)
    return u, _scaled(sigma, shift), v


def _svd_matrix(a: DDArray, full: bool, compute_uv: bool, info: dict):
    """svd of one matrix: (U, S, Vh) or S."""
    m, n = a.shape
    if m >= n:
        u, s, v = _svd_tall(a, full, compute_uv, info)
        return (u, s, v.T) if compute_uv else s
    # A^T = U' S V'^T, so A = V' S U'^T
    u, s, v = _svd_tall(a.T, full, compute_uv, info)
    return (v, s, u.T) if compute_uv else s


def svd(a, full_matrices=True, compute_uv=True, hermitian=False, *, fma=None, add=None,
        info=None):
    """Singular value decomposition in DD, as numpy.linalg.svd: a = U @ diag(S) @ Vh.

    Parameters
    ----------
    a : (..., M, N) DDArray or array_like (float64 accepted), on either device; leading
        dimensions are a stack of matrices, each decomposed on its own.
    full_matrices : bool
        True (default): U (..., M, M) and Vh (..., N, N); False: (..., M, K) and (..., K, N),
        K = min(M, N).
    compute_uv : bool
        False returns S alone.
    hermitian : bool
        Accepted for NumPy compatibility; the general algorithm runs either way.
    fma, add : the arithmetic variant (default: ddblas.options).
    info : dict, optional
        Filled with the Jacobi sweeps and rounds run (of the last matrix of a stack).

    Returns
    -------
    SVDResult(U, S, Vh) as NumPy's (S descending, (..., K)), or S when compute_uv is False.

    Raises
    ------
    LinAlgError
        a has fewer than two dimensions (NumPy's error class, naming a), or the sweeps did not
        converge.
    ValueError
        a holds an inf or a NaN (naming a).

    Notes
    -----
    One-sided Jacobi (module docstring); its backward error and orthogonality are within
    ddblas.accuracy.bound("svd", k=rounds + M) (info's rounds), the singular values within the
    same times ||a||_2 (absolute). Singular vectors of equal singular values are any basis of
    their space, and the signs of a pair (u_j, v_j) may differ from LAPACK's. Cost: O(M N^2)
    DD operations per sweep, one kernel launch per round of N/2 pairs, N - 1 rounds a sweep.
    """
    (a,) = ops.on_one_device(a, names=("a",))
    require_matrices(a, "a")
    for name, flag in (("full_matrices", full_matrices), ("compute_uv", compute_uv),
                       ("hermitian", hermitian)):
        if not isinstance(flag, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    require_finite((a, "a"), switch=False)
    info = {} if info is None else info
    stack, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    with options(fma=fma, add=add):
        items = [_svd_matrix(a[index], bool(full_matrices), bool(compute_uv), info)
                 for index in np.ndindex(*stack)]
    if not compute_uv:
        return stacked_results(items, stack, (k,), a.xp)
    rows, cols = (m, n) if full_matrices else (k, k)
    return SVDResult(stacked_results([i[0] for i in items], stack, (m, rows), a.xp),
                     stacked_results([i[1] for i in items], stack, (k,), a.xp),
                     stacked_results([i[2] for i in items], stack, (cols, n), a.xp))


def svdvals(x, /, *, fma=None, add=None) -> DDArray:
    """The singular values of x (..., M, N), descending, as numpy.linalg.svdvals:
    svd(x, compute_uv=False)."""
    return svd(x, compute_uv=False, fma=fma, add=add)


def _one_tolerance(first: tuple, second: tuple):
    """NumPy's checks of two alternative tolerances, each (name, value): None or a real number
    (TypeError, as NumPy's), not both set (its ValueError); the one given, or None."""
    for name, value in (first, second):
        require_real_or_none(value, name, TypeError)
    if first[1] is not None and second[1] is not None:
        raise ValueError(f"`{first[0]}` and `{second[0]}` can't be both set.")
    return first[1] if first[1] is not None else second[1]


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):  # noqa: N803  (NumPy's name)
    """The rank of A (..., M, N) as numpy.linalg.matrix_rank: the singular values above tol.

    tol (absolute) defaults to S.max() * rtol, rtol to max(M, N) * 2^-104 (NumPy's
    max(M, N) * eps with DD's eps, 4 u^2); tol and rtol may not both be given. A vector or a
    scalar: 1 unless all zero, as NumPy's. Returns a Python int, or an int64 array for a stack.
    """
    (a,) = ops.on_one_device(A, names=("A",))
    _one_tolerance(("tol", tol), ("rtol", rtol))
    if a.ndim < 2:
        require_finite((a, "A"), switch=False)
        return int(bool((a.hi != 0).any()))
    s = svd(a, compute_uv=False, hermitian=hermitian)
    m, n = a.shape[-2:]
    if tol is None:
        relative = max(m, n) * RCOND_EPSILON if rtol is None else float(rtol)
        limit = s[..., :1] * relative if s.shape[-1] else 0.0
    else:
        limit = float(tol)
    ranks = _backend.move((s > limit).sum(axis=-1), "cpu").astype(np.int64)
    return int(ranks) if ranks.ndim == 0 else ranks


def pinv(a, rcond=None, hermitian=False, *, rtol=None, fma=None, add=None) -> DDArray:
    """The Moore-Penrose pseudo-inverse of a (..., M, N) as numpy.linalg.pinv: V diag(1/s) U^T
    over the singular values s > rcond * s.max() (default rcond: max(M, N) * 2^-104, NumPy's
    rule with DD's eps; rtol is NumPy 2's name for it, not both). Shape (..., N, M)."""
    (a,) = ops.on_one_device(a, names=("a",))
    relative = _one_tolerance(("rtol", rtol), ("rcond", rcond))
    require_matrices(a, "a")
    m, n = a.shape[-2:]
    relative = max(m, n) * RCOND_EPSILON if relative is None else float(relative)
    if min(m, n) == 0:
        return zeros(a.shape[:-2] + (n, m), device=a.device)
    u, s, vh = svd(a, full_matrices=False, hermitian=hermitian, fma=fma, add=add)
    with options(fma=fma, add=add):
        kept = s > s[..., :1] * relative
        inverse = where(kept, 1.0 / where(kept, s, 1.0), 0.0)
        return matmul(vh.swapaxes(-1, -2) * inverse[..., None, :], u.swapaxes(-1, -2))


class EighResult(NamedTuple):
    """eigh's result, as numpy.linalg.eigh's: a @ eigenvectors = eigenvectors * eigenvalues."""
    eigenvalues: DDArray
    eigenvectors: DDArray


def _symmetric_jacobi(a: DDArray, info: dict) -> tuple:
    """Two-sided cyclic Jacobi on a symmetric a (N x N, finite, largest entry in [1/2, 1)):
    (A', V) with A' = V^T A V diagonal to the tolerance (|a'_pq| <= JACOBI_TOLERANCE 2 N);
    info gets the sweeps and rounds run. Each round is two launches of jacobi.h's kernels on a
    copy of A and on V held by columns (eigh_columns: the rotations, A J and V J; eigh_rows:
    J^T (A J)); the host looks at the rounds' flags once a sweep."""
    n = a.shape[0]
    xp = a.xp
    a_hi, a_lo = (xp.array(part, order="C") for part in (a.hi, a.lo))
    v_hi, v_lo = _by_columns(eye(n, device=a.device))
    suffix = resolve(None, None).suffix
    be = _backend.backend(a.device)
    tolerance = JACOBI_TOLERANCE * 2 * n
    c_hi, c_lo, s_hi, s_lo = (xp.empty(max(n // 2, 1)) for _ in range(4))

    def round_(p, q, rotated):
        be.launch("ddblas_linalg_jacobi_eigh_columns_" + suffix, p.size, p.size, n, a_hi, a_lo,
                  v_hi, v_lo, p, q, tolerance, c_hi, c_lo, s_hi, s_lo, rotated)
        be.launch("ddblas_linalg_jacobi_eigh_rows_" + suffix, p.size, p.size, n, a_hi, a_lo, p,
                  q, c_hi, c_lo, s_hi, s_lo)
    _sweep(n, xp, round_, info, "Eigenvalues")
    return DDArray(a_hi, a_lo, normalize=False), DDArray(v_hi.T, v_lo.T, normalize=False)


def _eigh_matrix(a: DDArray, vectors: bool, info: dict):
    """eigh of one symmetric matrix: (values ascending, vectors) or the values."""
    shift = _top_exponent(a)
    d, v = _symmetric_jacobi(_scaled(a, -shift), info)
    n = a.shape[0]
    values = d[d.xp.arange(n), d.xp.arange(n)]
    order = argsort(values)
    values = _scaled(take(values, order), shift)
    return (values, take(v, order, axis=1)) if vectors else values


def _symmetric_part(a: DDArray, UPLO) -> DDArray:  # noqa: N803  (NumPy's name)
    """The symmetric matrix (stack) that a's lower (UPLO 'L') or upper ('U') triangle defines,
    as numpy.linalg.eigh reads it: the other triangle is never looked at."""
    if UPLO not in ("L", "U", "l", "u"):
        raise ValueError(f"UPLO argument must be 'L' or 'U', got {UPLO!r}")
    lower = UPLO in ("L", "l")
    kept = tril(a) if lower else triu(a)
    mirrored = tril(a, -1) if lower else triu(a, 1)
    return kept + mirrored.swapaxes(-1, -2)


def eigh(a, UPLO="L", *, fma=None, add=None, info=None):  # noqa: N803  (NumPy's name)
    """Eigenvalues and eigenvectors of a real symmetric matrix in DD, as numpy.linalg.eigh.

    Parameters
    ----------
    a : (..., M, M) DDArray or array_like (float64 accepted), on either device; leading
        dimensions are a stack. Only the triangle UPLO names is read.
    UPLO : {'L', 'U'}
        The lower (default) or upper triangle.
    fma, add : the arithmetic variant (default: ddblas.options).
    info : dict, optional
        Filled with the Jacobi sweeps and rounds run (of the last matrix of a stack).

    Returns
    -------
    EighResult(eigenvalues, eigenvectors): eigenvalues ascending (..., M), eigenvectors the
    columns of (..., M, M), as NumPy's.

    Raises
    ------
    LinAlgError
        a is not a square matrix or a stack of them (NumPy's error class, naming a), or the
        sweeps did not converge.
    ValueError
        a holds an inf or a NaN in the triangle read (naming a); UPLO is not 'L' or 'U'.

    Notes
    -----
    Two-sided cyclic Jacobi (Jacobi 1846; Rutishauser's rotation; Golub and Van Loan, Matrix
    Computations, 4th ed., Alg. 8.5.3 with parallel orderings, Sec. 8.5.5): rounds of N/2
    disjoint pairs (p, q), each rotation making a_pq zero, applied to the columns and rows of A
    and to the columns of V, until every |a_pq| <= 2^-102 N max|a_ij| (a scaled into [1/2, 1) by
    a power of two, exact). The eigenvalues are the diagonal. Bound: ||A V - V Lambda||_F,
    |V^T V - I| and |lambda^_i - lambda_i| (Weyl) within accuracy.bound("eigh", k=rounds + M)
    times ||A||_F (docs/linalg.md, "Singular values and symmetric eigenvalues"). A round is two
    launches of cuda_src/jacobi.h's kernels, so the GPU's results equal the CPU's bit for bit.
    """
    (a,) = ops.on_one_device(a, names=("a",))
    require_square_stack(a, "a")
    a = _symmetric_part(a, UPLO)
    require_finite((a, "a"), switch=False)
    info = {} if info is None else info
    stack, n = a.shape[:-2], a.shape[-1]
    with options(fma=fma, add=add):
        items = [_eigh_matrix(a[index], True, info) for index in np.ndindex(*stack)]
    return EighResult(stacked_results([i[0] for i in items], stack, (n,), a.xp),
                      stacked_results([i[1] for i in items], stack, (n, n), a.xp))


def eigvalsh(a, UPLO="L", *, fma=None, add=None) -> DDArray:  # noqa: N803  (NumPy's name)
    """The eigenvalues of a real symmetric matrix (stack), ascending, as numpy.linalg.eigvalsh:
    eigh(a, UPLO).eigenvalues."""
    return eigh(a, UPLO, fma=fma, add=add).eigenvalues
