"""DD QR factorization with SciPy's names and semantics (scipy.linalg.qr), on both devices.

Blocked Householder QR with the compact WY representation (Schreiber & Van Loan 1989; LAPACK
dgeqrf / dlarft / dlarfb): each panel of at most QR_PANEL columns is factored by one launch of
the ddblas_linalg_geqr2 kernel (dlarfg reflectors with a power-of-two-scaled DD norm, the panel's
own updates and the triangular factor T, all on the device); the trailing columns get
C -= V (T^T (V^T C)) by three rgemm calls on views. Q, when asked for, is formed like dorgqr by
applying the blocks in reverse order to the first columns of the identity. lstsq solves
min ||A x - b||_2 through the QR of A (m >= n: x = R^-1 Q^T b) or, for m < n, the minimum-norm
solution through the QR of A^T (x = Q R^-T b). Bounds: docs/linalg.md ("QR").
"""
from __future__ import annotations

import numbers

import numpy as np

from ..blas.gemm import rgemm
from ..blas.gemmcall import require_algorithm
from ..blas.level3 import view_args
from ..core import ops
from ..core.array import DDArray
from ..core.options import resolve
from ..engines import backend as _backend
from ..engines import cpu as _cpu
from .errors import LinAlgError, in_stack, require_finite, require_real_or_none, stack_index
from .factor import solve_triangular
from .scaling import range_exponents, scale_wide, scale_wider
from .stacks import broadcast_stacks, fold_columns, pick, stacked_results, unfold_columns

QR_PANEL = 32   # columns per panel (one geqr2 launch each)

# lstsq's counterpart of NumPy's eps (2 u) in its default rcond, max(M, N) eps: 4 u_DD
RCOND_EPSILON = 2.0 ** -104

# lstsq's lapack_driver: SciPy's values (the solution is QR's whatever the driver)
LAPACK_DRIVERS = (None, "gelsd", "gelsy", "gelss")

_MODES = {"full": "full", "complete": "full", "economic": "economic", "reduced": "economic",
          "r": "r", "raw": "raw"}


def _zeros(xp, shape) -> DDArray:
    return DDArray(xp.zeros(shape), xp.zeros(shape), normalize=False)


def _unit_lower(panel: DDArray) -> DDArray:
    """V: a new copy of the m x w view's strict lower trapezoid with a unit diagonal."""
    xp = panel.xp
    hi = xp.tril(panel.hi, -1)
    lo = xp.tril(panel.lo, -1)
    width = min(panel.shape)
    hi[xp.arange(width), xp.arange(width)] = 1.0
    return DDArray(hi, lo, normalize=False)


def _apply_block(v: DDArray, t: DDArray, c: DDArray, transpose: bool, opts, algorithm) -> None:
    """c := (I - V T V^T)^T c (transpose) or (I - V T V^T) c in place: dlarfb by rgemm."""
    if c.shape[1] == 0:
        return
    kw = dict(fma=opts.fma, add=opts.add, algorithm=algorithm)
    w = rgemm(v, c, transa="T", **kw)
    w = rgemm(t, w, transa="T" if transpose else "N", **kw)
    rgemm(v, w, c, alpha=-1, beta=1, **kw)


def _geqrf(work: DDArray, opts, algorithm) -> tuple:
    """work := (R, V below the diagonal) in place; (tau, [(column, V, T) per panel])."""
    xp = work.xp
    m, n = work.shape
    k = min(m, n)
    tau = _zeros(xp, (k,))
    be = _backend.backend(work.device)
    blocks = []
    for j in range(0, k, QR_PANEL):
        w = min(QR_PANEL, k - j)
        panel = work[j:, j:j + w]
        t = _zeros(xp, (w, w))
        kernel, args = "ddblas_linalg_geqr2_" + opts.suffix, (m - j, w, *view_args(panel),
                                                               tau.hi[j:], tau.lo[j:],
                                                               *view_args(t))
        if work.device == "gpu":   # one block, a thread per lane (linalg.h BlockLanes)
            be.launch_grid(kernel, (1,), (_cpu.geometry()["qr_lanes"],), *args)
        else:
            be.launch(kernel, 1, *args)
        v = _unit_lower(panel)
        _apply_block(v, t, work[j:, j + w:], True, opts, algorithm)
        blocks.append((j, v, t))
    return tau, blocks


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True, *,
       fma=None, add=None, algorithm="auto"):
    """QR decomposition of a matrix in DD, as scipy.linalg.qr: A = Q R.

    Parameters
    ----------
    a : (..., M, N) DDArray or array_like (float64 accepted), on either device. Leading
        dimensions are a stack of matrices, as SciPy 1.17 takes them (each factored on its own,
        one after another; the results get the stack's leading dimensions).
    overwrite_a : bool
        Accepted for SciPy compatibility; a is never modified.
    lwork : None
        Accepted for SciPy compatibility (must be None or an int; ignored).
    mode : {"full", "r", "economic", "raw"}
        SciPy's modes; NumPy's names "complete" (= "full") and "reduced" (= "economic") are
        accepted too. "full": Q (M, M), R (M, N). "economic": Q (M, K), R (K, N), K = min(M, N).
        "r": the 1-tuple (R,) with R (M, N), as SciPy. "raw": ((h, tau), R), as SciPy: h (M, N)
        holds R and the Householder vectors below the diagonal (LAPACK dgeqrf's layout), tau
        (K,), R (K, N).
    pivoting : False
        Column pivoting is not implemented (ValueError when True).
    check_finite : bool
        Check that a holds no inf or NaN (ValueError naming ``a``).
    fma, add : the arithmetic variant (default: ddblas.options).
    algorithm : rgemm's algorithm for the block updates ("auto").

    Returns
    -------
    Q, R (or (R,), or ((h, tau), R)) as DDArrays on a's device, with a's leading dimensions.
    For a stack, SciPy 1.17 returns mode="r"'s R bare (not the 1-tuple) and fails on
    mode="raw" (an internal ValueError); ddblas returns the 1-tuple and ((h, tau), R) as for
    one matrix, and empty results for an empty stack (SciPy: ValueError).

    Notes
    -----
    Blocked Householder QR (module docstring); LAPACK's sign convention (R's diagonal may be
    negative). Columns with entries >= 2^512 are factored scaled by a power of two into
    [2^511, 2^512), and columns whose entries all lie below 2^-500 into [1/2, 1) (exact; R's
    columns are scaled back), so that no reflector overflows or works in the subnormals.
    Backward error (docs/linalg.md, "QR"): Q R = A + dA with
    ||dA[:, j]||_2 <= c_QR(m, n) u_DD ||A[:, j]||_2 (Higham, Thm 19.4).
    """
    require_algorithm(algorithm)
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {sorted(_MODES)}, got {mode!r}")
    if pivoting:
        raise ValueError("pivoting=True (column-pivoted QR) is not implemented in ddblas")
    if lwork is not None and (isinstance(lwork, bool) or not isinstance(lwork, numbers.Integral)):
        raise ValueError(f"lwork must be None or an int, got {lwork!r}")
    del overwrite_a
    mode = _MODES[mode]
    a = ops.named_operand(a, "a")
    if a.ndim < 2:
        raise ValueError(f"a must be a matrix or a stack of matrices (..., M, N), got shape "
                         f"{a.shape}")
    if check_finite:
        require_finite((a, "a"))
    if a.ndim > 2:
        return _qr_stack(a, mode, fma=fma, add=add, algorithm=algorithm)
    opts = resolve(fma, add)
    xp = a.xp
    m, n = a.shape
    k = min(m, n)
    # columns near DBL_MAX or below 2^-500: QR of A 2^-shift (the reflectors' divisions had
    # worked in the subnormals: Q of [[3], [4]] 1e-310 was 1.8e-16 from orthogonal)
    shift = range_exponents(a, (0,))
    scaled = bool((shift != 0).any())
    if scaled:
        a = scale_wide(a, -shift)
    parts = []
    for x in (a.hi, a.lo):
        y = _backend.contiguous(x)
        parts.append(y.copy() if y is x else y)
    work = DDArray(*parts, normalize=False)
    tau, blocks = _geqrf(work, opts, algorithm)
    if scaled:  # R's columns back to A's scale (V and tau do not depend on it)
        up, keep = scale_wide(work, shift), xp.tri(m, n, -1, dtype=bool)
        work = DDArray(xp.where(keep, work.hi, up.hi), xp.where(keep, work.lo, up.lo),
                       normalize=False)
    rows = k if mode in ("economic", "raw") else m
    r = DDArray(xp.triu(work.hi[:rows]), xp.triu(work.lo[:rows]), normalize=False)
    if mode == "r":
        return (r,)
    if mode == "raw":
        return (work, tau), r
    columns = m if mode == "full" else k
    q = _zeros(xp, (m, columns))
    q.hi[xp.arange(columns), xp.arange(columns)] = 1.0
    for j, v, t in reversed(blocks):
        _apply_block(v, t, q[j:, j:], False, opts, algorithm)
    return q, r


def _qr_stack(a: DDArray, mode: str, **kw):
    """qr of each matrix of the stack a (..., M, N) in turn, the results stacked."""
    stack, (m, n) = a.shape[:-2], a.shape[-2:]
    k = min(m, n)
    items = [qr(a[index], mode=mode, check_finite=False, **kw) for index in np.ndindex(*stack)]
    if mode == "raw":
        cores = ((m, n), (k,), (k, n))
        parts = [[(h, tau, r) for (h, tau), r in items]]
    else:
        rows = m if mode in ("full", "r") else k
        cores = ((rows, n),) if mode == "r" else ((m, m if mode == "full" else k), (rows, n))
        parts = [items]
    stacked = [stacked_results([item[i] for item in parts[0]], stack, core, a.xp)
               for i, core in enumerate(cores)]
    if mode == "raw":
        return (stacked[0], stacked[1]), stacked[2]
    return tuple(stacked)


def _lstsq_stack(a: DDArray, b: DDArray, stack: tuple, kw: dict):
    """lstsq over the broadcast stack of a (..., M, N) and b ((M,) or (..., M, K)): one a solves
    b's systems side by side in one call; a stack of a's, one system after another (a
    LinAlgError naming the matrix of a's stack). rank: an int64 array of the stack's shape, as
    SciPy 1.17's."""
    m, n = a.shape[-2:]
    vector = b.ndim == 1
    k = None if vector else b.shape[-1]
    residue_core = (0,) if m <= n else (() if vector else (k,))
    xp = a.xp
    if a.ndim == 2:
        x, residues, rank, _ = lstsq(a, fold_columns(b), check_finite=False, **kw)
        x = unfold_columns(x, stack, k)
        residues = residues.reshape(stack + residue_core) if m > n else \
            _zeros(xp, stack + residue_core)
        return x, residues, np.full(stack, rank, dtype=np.int64), None
    items = []
    for p, index in enumerate(np.ndindex(*stack)):
        try:
            items.append(lstsq(pick(a, 2, index), b if vector else pick(b, 2, index),
                               check_finite=False, **kw))
        except LinAlgError as error:
            raise in_stack(error, stack_index(p, stack, a.shape[:-2])) from None
    x = stacked_results([item[0] for item in items], stack, (n,) if vector else (n, k), xp)
    residues = stacked_results([item[1] for item in items], stack, residue_core, xp)
    return x, residues, np.full(stack, min(m, n), dtype=np.int64), None


def _rank_check(r: DDArray, rcond, size: int, name: str) -> None:
    """LinAlgError naming the first column whose |R[j, j]| <= rcond * max |R[i, i]| or is zero
    (default rcond: size * RCOND_EPSILON, NumPy's max(M, N) eps with DD's 4 u_DD)."""
    diagonal = abs(r.to_device("cpu").hi.diagonal())
    if diagonal.size == 0:
        return
    limit = (size * RCOND_EPSILON if rcond is None else rcond) * diagonal.max()
    small = ((diagonal <= limit) | (diagonal == 0)).nonzero()[0]
    if small.size:
        j = int(small[0])
        test = "= 0" if diagonal[j] == 0 else \
            f"= {diagonal[j]:.3g} <= rcond * max|R[i, i]| = {limit:.3g}"
        raise LinAlgError(f"{name} is rank deficient: |R[{j}, {j}]| {test} (QR without pivoting "
                          f"cannot solve rank-deficient least squares)", j)


def lstsq(a, b, cond=None, overwrite_a=False, overwrite_b=False, check_finite=True,
          lapack_driver=None, *, rcond=None, fma=None, add=None, algorithm="auto"):
    """Least-squares solution of A x = b in DD through Householder QR, with scipy.linalg.lstsq's
    arguments.

    Parameters
    ----------
    a : (..., M, N) DDArray or array_like (float64 accepted).
    b : (M,) or (..., M, K), on a's device; not modified. As SciPy 1.17: leading dimensions
        are stacks of systems, a's and b's broadcast (ValueError naming them where they do
        not), a 1-D b one vector for every matrix of a's stack; one a solves a stack of b's
        systems side by side (one QR), a stack of a's one system after another.
    cond : float or None
        Columns (rows for M < N) with |R[j, j]| <= cond * max |R[i, i]| make A rank deficient
        (default: max(M, N) * 2^-104, NumPy's max(M, N) * eps with 4 u_DD, u_DD = 2^-106).
        SciPy's name; SciPy compares singular values, which QR does not give.
    overwrite_a, overwrite_b : bool
        Accepted for SciPy compatibility; a and b are never modified.
    check_finite : bool
        Check that a and b hold no inf or NaN (ValueError naming the argument).
    lapack_driver : None, "gelsd", "gelsy" or "gelss"
        Accepted for SciPy compatibility (checked, as SciPy does); the solution and the
        residues are QR's whatever the driver (SciPy's "gelsy" returns no residues).
    rcond : float or None
        NumPy's name for cond (keyword only; give one of them).
    fma, add, algorithm : as qr.

    Returns
    -------
    x : (..., N) or (..., N, K) DDArray
        M >= N: the least-squares solution; M < N: the minimum-norm solution.
    residues : (..., K) or (...) DDArray
        Squared 2-norms of b - A x per column when M > N (computed in DD); empty ((..., 0))
        otherwise, as SciPy.
    rank : int, or for stacks an int64 NumPy array of the stack's shape (SciPy's)
        min(M, N) (rank-deficient input raises instead; in a stack naming the matrix,
        "(matrix a[i] of the stack)").
    s : None
        SciPy returns A's singular values from its SVD; QR does not give them.

    Notes
    -----
    Entries >= 2^512, and those below 2^-500, are first scaled by powers of two (exact) that
    keep the solution set: A's columns for M >= N, A's rows with b's for M < N, then b's
    columns; so R and Q^T b stay finite wherever x is representable (residues may still
    overflow to inf, as NumPy's) and keep their low parts out of the subnormals.

    Raises
    ------
    LinAlgError
        A is rank deficient by the rcond test (.index: the first small diagonal of R).
    ValueError
        Shapes that do not match, or infs / NaNs with check_finite.
    """
    require_algorithm(algorithm)
    del overwrite_a, overwrite_b
    if lapack_driver not in LAPACK_DRIVERS:
        raise ValueError(f"lapack_driver must be None or one of {', '.join(LAPACK_DRIVERS[1:])}"
                         f", got {lapack_driver!r}")
    if cond is not None and rcond is not None:
        raise ValueError("give cond (SciPy's name) or rcond (NumPy's), not both")
    rcond_name = "rcond" if rcond is not None else "cond"
    rcond = cond if rcond is None else rcond
    a = ops.named_operand(a, "a")
    if a.ndim < 2:
        raise ValueError(f"a must be a matrix or a stack of matrices (..., M, N), got shape "
                         f"{a.shape}")
    b = ops.named_operand(b, "b", a.device) if not isinstance(b, DDArray) else b
    if b.device != a.device:
        raise ValueError(f"b is on the {b.device} and a on the {a.device}")
    m, n = a.shape[-2:]
    if b.ndim == 0 or b.shape[0 if b.ndim == 1 else -2] != m:
        raise ValueError(f"b must be ({m},) or (..., {m}, K) to match a of shape {a.shape}, "
                         f"got shape {b.shape}")
    stack = broadcast_stacks(("a", a.shape[:-2]), ("b", () if b.ndim == 1 else b.shape[:-2]))
    require_real_or_none(rcond, rcond_name)
    if check_finite:
        require_finite((a, "a"), (b, "b"))
    if stack:
        return _lstsq_stack(a, b, stack, {rcond_name: rcond, "fma": fma, "add": add,
                                          "algorithm": algorithm})
    kw = dict(fma=fma, add=add, algorithm=algorithm)
    b2 = b.reshape(m, 1) if b.ndim == 1 else b
    # Entries near DBL_MAX: powers of two (exact) that leave the solution's set as it is, so
    # that R and Q^T b stay finite wherever x is: for m >= n A's columns (x_j scaled
    # inversely), for m < n A's rows with b's (the minimum-norm x is unchanged), then b's
    # columns (x's columns scaled alike).
    # The same for tiny entries (below 2^-500, scaled up), whose R and Q^T b lost their low
    # parts to the subnormals (x 2.9e-22 from exact for A, b 2^-1000 times a well-conditioned
    # system).
    if m >= n:
        shift_a = range_exponents(a, (0,))
        a = scale_wide(a, -shift_a) if bool((shift_a != 0).any()) else a
    else:
        shift_rows = range_exponents(a, (1,))
        if bool((shift_rows != 0).any()):
            a, b2 = scale_wide(a, -shift_rows), scale_wide(b2, -shift_rows)
    shift_b = range_exponents(b2, (0,))
    b_scaled = bool((shift_b != 0).any())
    b2 = scale_wide(b2, -shift_b) if b_scaled else b2
    if m >= n:
        q, r = qr(a, mode="economic", check_finite=False, **kw)
        _rank_check(r, rcond, max(m, n), "a")
        y = solve_triangular(r, rgemm(q, b2, transa="T", **kw), check_finite=False, **kw)
    else:
        q, r = qr(a.T, mode="economic", check_finite=False, **kw)
        _rank_check(r, rcond, max(m, n), "a")
        y = rgemm(q, solve_triangular(r, b2, trans="T", check_finite=False, **kw), **kw)
    if m > n:
        residual = rgemm(a, y, b2.copy(), alpha=-1, beta=1, **kw)
        residues = ops.sum(ops.multiply(residual, residual, fma=fma, add=add), axis=0,
                           fma=fma, add=add)
        if b_scaled:  # |residual|^2 4^shift_b (2 shift_b may pass 2044)
            residues = scale_wider(residues, 2 * shift_b[0])
        residues = residues.reshape(()) if b.ndim == 1 else residues
    else:
        residues = _zeros(a.xp, (0,))
    if m >= n and bool((shift_a != 0).any()):
        y = scale_wide(y, shift_b - shift_a.T)
    elif b_scaled:
        y = scale_wide(y, shift_b)
    return (y.reshape(n) if b.ndim == 1 else y), residues, min(m, n), None
