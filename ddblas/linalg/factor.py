"""DD factorizations with SciPy's names and semantics: lu_factor / lu_solve / lu, cholesky /
cho_factor / cho_solve and solve_triangular, on both devices.

LU with partial pivoting is recursive (Toledo 1997; Gustavson 1997): the columns are split in
about halves (blas.level3.recursion_split: every panel but the last is full), the left half
factored, its row interchanges applied to the right half (laswp kernel,
pivots read from device memory), U12 = L11^-1 A12 by the recursive triangular solve, A22 -= L21
U12 by subtract_product (rgemm(alpha=-1, beta=1) without its per-call checks) on views of the
working copy, the right half factored, its interchanges applied to the left half. Panels of at
most LU_PANEL_WIDTH (geometry.h) columns are factored on the device with no host round trip: on
the GPU by one launch of a block-wide kernel, on the CPU column by column (the pivot search in
two passes, the interchange, the column step), both with the same operations on every element:
the pivot the first largest |a| by exact DD compare (LAPACK idamax's tie rule; numbers before
NaN), the DD division by the pivot, the rank-1 update. A zero pivot is recorded on the device
(the first in column order) and checked once at the end. Cholesky is recursive the same way
(L11, then L21 = A21 L11^-T by the triangular solve, A22 -= L21 L21^T by rsyrk, or by one
subtract_product on the whole block where that may run an Ozaki scheme or the block is small
enough for launches to cost more than flops (FULL_UPDATE_*), then L22), bottoming out in the
ddblas_linalg_potrf kernel (a CPU item or a GPU warp per matrix, right-looking in shared memory:
a stack of small matrices is one launch). lu_factor and lu_solve (trans 0) on stacks of square
matrices of order <= 96 use the batched LU of ddblas/linalg/batched.py instead: one launch for
the whole stack. Bounds: docs/linalg.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..blas.auto import OZAKI_MIN_WORK
from ..blas.gemm import subtract_product
from ..blas.gemmcall import require_algorithm
from ..blas.level3 import recursion_split, rsyrk, solve_lower_left, view_args
from ..core.array import DDArray
from ..core.ops import named_operand
from ..core.options import resolve
from ..engines import backend as _backend
from ..engines import cpu as _cpu
from ..engines import gpu as _gpu
from . import batched
from .errors import (LinAlgError, in_stack, require_finite, require_finite_factors, stack_index,
                     zero_pivot_error)
from .stacks import broadcast_stacks, fold_columns, pick, stacked_results, unfold_columns

# Cholesky's trailing update A22 -= L21 L21^T is one rgemm on the whole square block (both
# triangles: twice rsyrk's flops; the upper one is never read) on these devices, when the product
# is large enough for rgemm's auto to consider an Ozaki scheme and the algorithm may run one (one
# fast product instead of rsyrk's recursion into many small ones), and whatever the algorithm
# for blocks of at most FULL_UPDATE_MAX_ORDER rows, where the GPU waits on the launches of
# rsyrk's pieces rather than on their flops (H100: docs/performance.md).
FULL_UPDATE_DEVICES = ("gpu",)
FULL_UPDATE_MIN_WORK = OZAKI_MIN_WORK
FULL_UPDATE_MAX_ORDER = 2048


# ---- operands ----

def _matrix(a, name: str, check_finite: bool, *, stack: bool = False) -> DDArray:
    """a as a DDArray of square matrices (a stack in leading axes when `stack`); ValueError
    naming `name` for other shapes and, with check_finite, for infs and NaNs."""
    a = named_operand(a, name)
    if a.ndim < 2 or (a.ndim > 2 and not stack) or a.shape[-1] != a.shape[-2]:
        what = "a square matrix or a stack of them" if stack else "a square 2-D matrix"
        raise ValueError(f"{name} must be {what}, got shape {a.shape}")
    if check_finite:
        require_finite((a, name))
    return a


def _working_copy(a: DDArray) -> DDArray:
    """A new C-contiguous copy of a, which every kernel addresses in place."""
    parts = []
    for x in (a.hi, a.lo):
        y = _backend.contiguous(x)
        parts.append(y.copy() if y is x else y)
    return DDArray(*parts, normalize=False)


def _rhs(b, a: DDArray, name: str, check_finite: bool) -> tuple:
    """(x, shape): b (1-D or 2-D, on a's device) as a new 2-D working copy with a.shape[0] rows,
    and b's shape (the solution's)."""
    b = named_operand(b, name, a.device) if not isinstance(b, DDArray) else b
    if b.device != a.device:
        raise ValueError(f"{name} is on the {b.device} and the matrix on the {a.device}: move "
                         f"one with .to_device(...)")
    if b.ndim not in (1, 2) or b.shape[0] != a.shape[0]:
        raise ValueError(f"{name} must be 1-D or 2-D with {a.shape[0]} rows, got shape "
                         f"{b.shape}")
    if check_finite:
        require_finite((b, name))
    return _working_copy(b.reshape(b.shape[0], 1) if b.ndim == 1 else b), b.shape


# ---- stacks (SciPy 1.17's batches: leading dimensions of a, broadcast with b's) ----

def _rhs_stack(b, a: DDArray, name: str, check_finite: bool, a_name: str) -> tuple:
    """(b on a's device, the broadcast stack of a's and b's leading dimensions, vector): b is
    (N,) (vector, no stack of its own) or (..., N, K), as SciPy 1.17's batched solvers take it;
    ValueError naming b for another shape, for stacks that do not broadcast and, with
    check_finite, for infs and NaNs."""
    b = named_operand(b, name, a.device) if not isinstance(b, DDArray) else b
    if b.device != a.device:
        raise ValueError(f"{name} is on the {b.device} and the matrix on the {a.device}: move "
                         f"one with .to_device(...)")
    n = a.shape[-2]
    if b.ndim == 0 or b.shape[0 if b.ndim == 1 else -2] != n:
        raise ValueError(f"{name} must be ({n},) or (..., {n}, K) to match {a_name} of shape "
                         f"{a.shape}, got shape {b.shape}")
    vector = b.ndim == 1
    stack = broadcast_stacks((a_name, a.shape[:-2]), (name, () if vector else b.shape[:-2]))
    if check_finite:
        require_finite((b, name))
    return b, stack, vector


def _solve_over_stack(a: DDArray, b: DDArray, stack: tuple, vector: bool, one) -> DDArray:
    """x for one(a_p, b_p) over the broadcast stack: one matrix a solves b's systems side by
    side in one call (its columns folded); a stack of a's loops over the systems, a LinAlgError
    naming the matrix of a's stack (in_stack)."""
    n = a.shape[-1]
    core = (n,) if vector else (n, b.shape[-1])
    if not stack:
        return one(a, b, ())
    if a.ndim == 2:   # b's stack only: one solve on its systems side by side
        return unfold_columns(one(a, fold_columns(b), ()), stack, b.shape[-1])
    items = []
    own = a.shape[:-2]
    for p in range(math.prod(stack)):
        index = np.unravel_index(p, stack)
        try:
            items.append(one(pick(a, 2, index), b if vector else pick(b, 2, index), index))
        except LinAlgError as error:
            raise in_stack(error, stack_index(p, stack, own)) from None
    return stacked_results(items, stack, core, a.xp)


# ---- LU ----

def _batched_order(n: int) -> bool:
    """Whether a stack of n x n matrices goes to the batched LU kernels (ddblas/linalg/batched.py,
    one launch for the whole stack) in lu_factor and lu_solve: n <= geometry's
    batched_team_max_order (96), the orders of the GPU's team kernels; larger matrices, each
    worth its own blocked factorization, loop over the 2-D routines."""
    return n <= _cpu.geometry()["batched_team_max_order"]


def _lu_factor_stack(a: DDArray, opts) -> tuple:
    """lu_factor of a (..., n, n) stack, n <= batched_team_max_order, by batched.lu_factor: one
    launch; then one copy to the host of the kernels' report and of which matrices' factors are
    finite: OverflowError (factors of a finite a that left float64's range), then the
    LinAlgError of the first matrix with a zero pivot, each naming the matrix, as the loop did."""
    stack, n = a.shape[:-2], a.shape[-1]
    batch = math.prod(stack)
    xp = a.xp
    if not (batch and n):
        return (DDArray(xp.zeros(a.shape), xp.zeros(a.shape), normalize=False),
                xp.zeros(stack + (n,), dtype=np.int32))
    f = batched.lu_factor(a.reshape(batch, n, n), opts)
    hi, lo = batched.factor_views(f)
    lu = DDArray(_backend.contiguous(hi), _backend.contiguous(lo), normalize=False)
    finite = xp.isfinite(lu.hi).all(axis=(1, 2)).astype(np.int64)
    report = _backend.move(xp.concatenate((f.summary, finite)), "cpu")   # the one round trip
    require_finite_factors(report[2:].astype(bool), a, stack, stack)
    singular = batched.read_summary(report[:2], batch, n).singular
    if singular is not None:
        raise in_stack(zero_pivot_error(singular[1]), stack_index(singular[0], stack, stack))
    return lu.reshape(a.shape), f.piv.astype(np.int32).reshape(stack + (n,))


def _lu_solve_stack(lu: DDArray, piv, b: DDArray, stack: tuple, vector: bool, opts,
                    transposed: bool) -> DDArray:
    """lu_solve (transposed: trans 1) over the broadcast stack `stack` of lu's (..., n, n)
    factors (n <= batched_team_max_order; piv int64 with lu's stack) and b ((n,) or (..., n, k)) by
    batched.lu_solve: the factors (broadcast to the stack where b's is larger) copied into the
    batched kernels' layout (batched.from_factors), one launch, no round trip."""
    n = lu.shape[-1]
    k = 1 if vector else b.shape[-1]
    shape = tuple(stack) + ((n,) if vector else (n, k))
    batch = math.prod(stack)
    xp = lu.xp
    if not (batch and n and k):
        return DDArray(xp.zeros(shape), xp.zeros(shape), normalize=False)

    def systems(x, core):   # x broadcast to the stack, as (batch,) + core
        return xp.broadcast_to(x, tuple(stack) + core).reshape((batch,) + core)
    f = batched.from_factors(systems(lu.hi, (n, n)), systems(lu.lo, (n, n)),
                             systems(piv, (n,)), lu.device)
    core = (n, k)
    rhs = DDArray(systems(b.hi.reshape(core) if vector else b.hi, core),
                  systems(b.lo.reshape(core) if vector else b.lo, core), normalize=False)
    return batched.lu_solve(f, rhs, opts, transposed).reshape(shape)


def _launch(x: DDArray, kernel: str, work: int, *args) -> None:
    _backend.backend(x.device).launch(kernel, work, *args)


def _laswp(a: DDArray, piv, k1: int, k2: int, reverse: bool = False) -> None:
    """The row interchanges piv[k1:k2] (rows of a) on every column of a, on the device."""
    if k2 > k1 and a.shape[1]:
        _launch(a, "ddblas_linalg_laswp", a.shape[1], a.shape[1], *view_args(a), piv, k1, k2,
                int(reverse))


@dataclass(frozen=True)
class GridPanelScratch:
    """Device memory of lu_panel_grid: a candidate a block (part_hi, part_lo, part_row) and the
    grid barrier's two words (zero between launches)."""
    part_hi: object
    part_lo: object
    part_row: object
    barrier: object

    @classmethod
    def for_rows(cls, m: int) -> "GridPanelScratch":
        xp = _backend.backend("gpu").xp
        blocks = _grid_panel_blocks(m)
        return cls(xp.zeros(blocks), xp.zeros(blocks), xp.zeros(blocks, dtype=np.int64),
                   xp.zeros(2, dtype=np.uint32))


def _grid_panel(m: int) -> bool:
    """Whether a GPU panel of m rows goes to lu_panel_grid (geometry's lu_panel_grid_min_rows)."""
    return m >= _cpu.geometry()["lu_panel_grid_min_rows"]


def _grid_panel_blocks(m: int) -> int:
    """lu_panel_grid's blocks for m rows: one a multiprocessor at most, a row a thread at least."""
    return max(1, min(_gpu.multiprocessors(), -(-m // _cpu.geometry()["lu_panel_threads"])))


def _panel(a: DDArray, piv, info, column: int, scratch, opts) -> None:
    """Unblocked LU (dgetf2) of the m x n view a, n <= min(m, LU_PANEL_WIDTH). GPU: one launch,
    on a column-major copy of a, of the block kernel lu_panel or, for tall panels, of the
    cooperative grid kernel lu_panel_grid (scratch: a GridPanelScratch for the most rows). CPU
    (scratch: the pivot search's int64 chunk array): per column the two-pass pivot search, the
    interchange on the panel's columns and the scale + rank-1 update kernel. The same bits."""
    m, n = a.shape
    be = _backend.backend(a.device)
    if a.device == "gpu":   # on a column-major copy: a warp's loads of one column coalesce
        work = DDArray(a.hi.T.copy().T, a.lo.T.copy().T, normalize=False)
        threads = (_cpu.geometry()["lu_panel_threads"],)
        if _grid_panel(m):
            be.launch_grid("ddblas_linalg_lu_panel_grid_" + opts.suffix,
                           (_grid_panel_blocks(m),), threads, m, n, *view_args(work), piv, column,
                           info, scratch.part_hi, scratch.part_lo, scratch.part_row,
                           scratch.barrier, cooperative=True)
        else:
            be.launch_grid("ddblas_linalg_lu_panel_" + opts.suffix, (1,), threads, m, n,
                           *view_args(work), piv, column, info)
        _backend.copy_into(a.hi, work.hi)
        _backend.copy_into(a.lo, work.lo)
        return
    for j in range(min(m, n)):
        rows = m - j
        chunks = -(-rows // _cpu.geometry()["pivot_chunk"])
        column_view = a[j:, j:]
        _launch(a, "ddblas_linalg_pivot_chunks", chunks, chunks, rows, *view_args(column_view),
                scratch)
        _launch(a, "ddblas_linalg_pivot_pick", 1, 1, chunks, *view_args(column_view), scratch, j,
                piv[j:], column + j, info)
        _laswp(a, piv, j, j + 1)
        _launch(a, "ddblas_linalg_lu_column_" + opts.suffix, rows - 1, rows - 1, n - j,
                *view_args(column_view))


def _getrf(a: DDArray, piv, info, column: int, scratch, opts, algorithm) -> None:
    """Recursive LU with partial pivoting of the m x n view a in place: piv[i] (0-based rows of
    a) for i < min(m, n); info[0] = min(info[0], first zero pivot's column + `column`)."""
    m, n = a.shape
    k = min(m, n)
    if k == 0:
        return
    if n > m:   # wide: factor the square left part, then U's right part
        _getrf(a[:, :m], piv, info, column, scratch, opts, algorithm)
        _laswp(a[:, m:], piv, 0, m)
        solve_lower_left(a[:, :m], a[:, m:], True, True, opts, algorithm)
        return
    width = _cpu.geometry()["lu_panel_width"]  # geometry.h LU_PANEL_WIDTH
    if n <= width:
        _panel(a, piv, info, column, scratch, opts)
        return
    half = recursion_split(n, width)
    _getrf(a[:, :half], piv[:half], info, column, scratch, opts, algorithm)
    _laswp(a[:, half:], piv, 0, half)
    solve_lower_left(a[:half, :half], a[:half, half:], True, True, opts, algorithm)
    subtract_product(a[half:, :half], a[:half, half:], a[half:, half:], opts, algorithm)
    _getrf(a[half:, half:], piv[half:], info, column + half, scratch, opts, algorithm)
    piv[half:] += half
    _laswp(a[:, :half], piv, half, k)


def _lu_in_place(work: DDArray, opts, algorithm):
    """(piv as int64 on the device, index of the first zero pivot or None): work := L\\U."""
    xp = work.xp
    m, n = work.shape
    k = min(m, n)
    piv = xp.zeros(k, dtype=np.int64)
    info = xp.full(1, k, dtype=np.int64)
    if work.device == "gpu":
        scratch = GridPanelScratch.for_rows(m)
    else:
        scratch = xp.zeros(max(1, -(-m // _cpu.geometry()["pivot_chunk"])), dtype=np.int64)
    _getrf(work, piv, info, 0, scratch, opts, algorithm)
    first_zero = int(info[0])  # the one synchronisation
    return piv, (first_zero if first_zero < k else None)


def lu_factor(a, overwrite_a=False, check_finite=True, *, fma=None, add=None,
              algorithm="auto"):
    """LU factorization with partial pivoting of a matrix in DD, as scipy.linalg.lu_factor.

    Parameters
    ----------
    a : (..., M, N) DDArray or array_like (float64 accepted), on either device; lu_solve needs
        M = N. Leading dimensions are a stack of matrices, as SciPy 1.17 takes them (an empty
        stack gives empty factors): square ones of order N <= 96 (geometry's
        batched_team_max_order) are factored together by the batched LU (one launch for the
        whole stack, Notes); larger or rectangular ones one after another, each by the 2-D
        routine.
    overwrite_a : bool
        Accepted for SciPy compatibility; a is never modified (the factorization works on a copy).
    check_finite : bool
        Check that a holds no inf or NaN (ValueError naming ``a``).
    fma, add : the arithmetic variant (default: ddblas.options).
    algorithm : rgemm's algorithm for the trailing updates ("auto"; "blocked" forces the classic
        kernel, with which CPU and GPU agree bit for bit).

    Returns
    -------
    lu : (..., M, N) DDArray
        U in the upper triangle, the unit lower triangle's L below it (diagonal implied).
    piv : (..., K) int32 array on a's device, K = min(M, N)
        LAPACK-style pivots, 0-based: row i was interchanged with row piv[i] (SciPy's shapes;
        SciPy returns a list [lu, piv] for a stack, ddblas always the tuple).

    Raises
    ------
    LinAlgError
        A pivot is exactly zero ("U[j, j] is exactly zero: the matrix is singular"; .index = j,
        the first in column order; in a stack, of the first such matrix, named as
        "(matrix a[i] of the stack)", .batch_index = i). SciPy warns instead; a DD solver
        cannot use the factors.
    OverflowError
        The factors of a finite a leave float64's range (SciPy returns inf / NaN there;
        solve, det and slogdet scale such a matrix themselves).
    ValueError
        a of fewer than 2 dimensions, or not finite with check_finite; algorithm not one of
        rgemm's.

    Notes
    -----
    Recursive LU (module docstring). Backward error (docs/linalg.md): L U = P (A + dA) with
    |dA| <= c_LU(n) |L||U|, c_LU(n) = (L + 1) c_gemm(n) + c_div.

    A stack of square matrices of order N <= 96 is one launch of the batched LU kernel
    (ddblas/linalg/batched.py, the factorization that ddblas.linalg.solve, det and inv use
    on stacks) and one round trip for its report: its factors and pivots are that kernel's,
    the same bits as ``batched.lu_factor`` and on both devices, within its bound
    (docs/linalg.md "Batched systems": P A + dA = L U, |dA| <= gamma_n |L||U|). They may
    differ from each matrix's own 2-D call above order 16 (for N <= 16, one panel of the 2-D
    LU, the same elimination, the tests find them equal); `algorithm` does not apply there.
    """
    require_algorithm(algorithm)
    del overwrite_a
    a = named_operand(a, "a")
    if a.ndim < 2:
        raise ValueError(f"a must be a matrix or a stack of matrices (..., M, N), got shape "
                         f"{a.shape}")
    if check_finite:
        require_finite((a, "a"))
    opts = resolve(fma, add)
    if a.ndim == 2:
        work = _working_copy(a)
        piv, first_zero = _lu_in_place(work, opts, algorithm)
        require_finite_factors(work.xp.isfinite(work.hi).all(), a)
        if first_zero is not None:
            raise zero_pivot_error(first_zero)
        return work, piv.astype(np.int32)
    stack, (m, n) = a.shape[:-2], a.shape[-2:]
    if m == n and _batched_order(n):
        return _lu_factor_stack(a, opts)
    batch = math.prod(stack)
    work = _working_copy(a).reshape(batch, m, n)
    xp = work.xp
    pivots = xp.zeros((batch, min(m, n)), dtype=np.int32)
    first = None   # (matrix, column) of the first zero pivot
    for p in range(batch):
        piv, first_zero = _lu_in_place(work[p], opts, algorithm)
        pivots[p] = piv.astype(np.int32)
        if first_zero is not None and first is None:
            first = (p, first_zero)
    require_finite_factors(xp.isfinite(work.hi).all(axis=(1, 2)), a, stack, stack)
    if first is not None:
        raise in_stack(zero_pivot_error(first[1]), stack_index(first[0], stack, stack))
    return work.reshape(a.shape), pivots.reshape(stack + (min(m, n),))


def _pivots(piv, name: str, n: int, device: str, stack: tuple = ()):
    """piv as int64 on `device`, checked to be n row indices in range for each matrix of the
    stack `stack` (shape stack + (n,); ValueError naming it)."""
    xp = _backend.backend(device).xp
    piv = _backend.move(np.asarray(piv) if not _backend.is_gpu_array(piv) else piv, device)
    if piv.shape != tuple(stack) + (n,) or piv.dtype.kind not in "iu":
        what = f"a 1-D integer array of length {n}" if not stack else \
            f"an integer array of shape {tuple(stack) + (n,)} (lu's stack, then {n})"
        raise ValueError(f"{name} must be {what}, got {piv.dtype} of shape {piv.shape}")
    piv = piv.astype(np.int64)
    if n and not bool(((piv >= 0) & (piv < n)).all()):
        raise ValueError(f"{name} holds row indices outside [0, {n})")
    return xp.ascontiguousarray(piv)


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True, *, fma=None,
             add=None, algorithm="auto") -> DDArray:
    """Solve A x = b (trans 0), A^T x = b (trans 1 or 2) from lu_factor's (lu, piv), as
    scipy.linalg.lu_solve.

    Parameters
    ----------
    lu_and_piv : (lu, piv) from lu_factor: lu (..., N, N), piv (..., N) with lu's stack.
    b : (N,) or (..., N, K) DDArray or array_like, on lu's device; not modified. As SciPy 1.17:
        a 1-D b is one vector for every matrix of lu's stack; otherwise the leading dimensions
        of lu and b broadcast (ValueError naming them where they do not).
    trans : 0, 1 or 2 (2, conjugate transpose, is 1 for real DD).
    overwrite_b : accepted for SciPy compatibility; b is never modified.
    check_finite, fma, add, algorithm : as lu_factor.

    Returns
    -------
    x : DDArray of shape stack + (N,) or stack + (N, K), stack the broadcast one.

    Notes
    -----
    The interchanges then two recursive triangular solves (rtrsm's bound, docs/linalg.md). One
    lu solves a stack of b's systems side by side in one call. A stack of lu's of order N <= 96
    is one launch of the batched LU's solve kernel (ddblas/linalg/batched.py; lu, broadcast to
    the stack, copied into the kernel's layout first): with trans=0 the bits of
    ddblas.linalg.solve on the stack (with lu_factor's factors of it), within that kernel's
    bound (docs/linalg.md "Batched systems": (A + dA) x = b, |dA| <= gamma_3n |L||U|; trans=1
    or 2: (A + dA)^T x = b, the same bound), which may differ from each matrix's own 2-D
    lu_solve above order 16; `algorithm` does not apply there. Larger orders loop over the
    matrices, one 2-D solve each.
    """
    require_algorithm(algorithm)
    del overwrite_b
    lu, piv = lu_and_piv
    lu = _matrix(lu, "lu", check_finite, stack=True)
    if np.ndim(trans) != 0 or trans not in (0, 1, 2):
        raise ValueError(f"trans must be 0, 1 or 2, got {trans!r}")
    n = lu.shape[-1]
    piv = _pivots(piv, "piv", n, lu.device, lu.shape[:-2])
    b, stack, vector = _rhs_stack(b, lu, "b", check_finite, "lu")
    opts = resolve(fma, add)
    if lu.ndim > 2 and _batched_order(n):
        return _lu_solve_stack(lu, piv, b, stack, vector, opts, trans != 0)

    def one(lu_p, b_p, index):
        piv_p = pick(piv, 1, index) if lu.ndim > 2 else piv
        x, shape = _rhs(b_p, lu_p, "b", False)
        if trans == 0:
            _laswp(x, piv_p, 0, n)
            solve_lower_left(lu_p, x, True, True, opts, algorithm)
            solve_lower_left(lu_p, x, False, False, opts, algorithm)
        else:
            solve_lower_left(lu_p.T, x, True, False, opts, algorithm)
            solve_lower_left(lu_p.T, x, False, True, opts, algorithm)
            _laswp(x, piv_p, 0, n, reverse=True)
        return x.reshape(shape)
    return _solve_over_stack(lu, b, stack, vector, one)


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False, *, fma=None,
       add=None, algorithm="auto"):
    """P, L, U with A = P L U, as scipy.linalg.lu (any M x N matrix).

    Parameters
    ----------
    a : (M, N) DDArray or array_like.
    permute_l : bool
        Return (P L, U) instead of (P, L, U).
    overwrite_a, check_finite, fma, add, algorithm : as lu_factor.
    p_indices : bool
        Return p as row indices, A = L[p] U, instead of a matrix (as SciPy; ignored when
        permute_l).

    Returns
    -------
    p : (M, M) DDArray (a permutation matrix, exact) unless permute_l; with p_indices an (M,)
        int32 array on a's device.
    l : (M, K) DDArray, unit lower triangular (K = min(M, N)); P L when permute_l.
    u : (K, N) DDArray, upper triangular.

    A singular matrix is factored without an error, as SciPy does (U has a zero on its diagonal);
    factors that leave float64's range raise OverflowError, as lu_factor.
    """
    require_algorithm(algorithm)
    del overwrite_a
    a = named_operand(a, "a")
    if a.ndim != 2:
        raise ValueError(f"a must be a 2-D matrix, got shape {a.shape}")
    if check_finite:
        require_finite((a, "a"))
    work = _working_copy(a)
    m, n = work.shape
    k = min(m, n)
    piv, _ = _lu_in_place(work, resolve(fma, add), algorithm)
    require_finite_factors(work.xp.isfinite(work.hi).all(), a)
    xp = work.xp
    lower_mask = xp.tri(m, k, k=-1, dtype=bool)
    l_hi = xp.where(lower_mask, work.hi[:, :k], xp.eye(m, k))
    l_lo = xp.where(lower_mask, work.lo[:, :k], 0.0)
    upper_mask = ~xp.tri(k, n, k=-1, dtype=bool)
    u = DDArray(xp.where(upper_mask, work.hi[:k], 0.0), xp.where(upper_mask, work.lo[:k], 0.0),
                normalize=False)
    perm = np.arange(m)   # rows of A in the order of L U: (P^T A)[i] = A[perm[i]]
    for i, p in enumerate(_backend.move(piv, "cpu").tolist()):
        perm[i], perm[p] = perm[p], perm[i]
    rows = _backend.move(np.argsort(perm), work.device)   # (P L)[perm[i]] = L[i]
    if permute_l:
        return DDArray(l_hi[rows], l_lo[rows], normalize=False), u
    if p_indices:
        return rows.astype(np.int32), DDArray(l_hi, l_lo, normalize=False), u
    p_hi = xp.zeros((m, m))
    p_hi[_backend.move(perm, work.device), xp.arange(m)] = 1.0
    return DDArray(p_hi, xp.zeros((m, m)), normalize=False), \
        DDArray(l_hi, l_lo, normalize=False), u


# ---- Cholesky ----

def _potrf_kernel(x: DDArray, batch: int, order: int, batch_step: int, info, offset: int,
                  opts) -> None:
    """The potrf kernel on `batch` matrices of order <= geometry's potrf_max_order starting at
    x's first element, batch_step items apart (CPU: an item each; GPU: a warp each)."""
    hi, lo, rs, cs = view_args(x[0] if x.ndim == 3 else x)
    kernel, args = "ddblas_linalg_potrf_" + opts.suffix, (batch, order, hi, lo, batch_step, rs,
                                                          cs, info, offset)
    be = _backend.backend(x.device)
    if x.device == "gpu":   # a warp a matrix, its rows in shared memory (linalg.h potrf_warp)
        be.launch_grid(kernel, (min(batch, _gpu.MAX_BLOCKS),),
                       (_cpu.geometry()["warp_size"],), *args,
                       shared_mem=2 * order * (order + 1) * 8)
    else:
        be.launch(kernel, batch, *args)


def _potrf(a: DDArray, info, offset: int, opts, algorithm) -> None:
    """Recursive Cholesky of the n x n view a in place (lower triangle; the upper is not read
    below the diagonal blocks); info[0] = min(info[0], failing minor's order + offset)."""
    n, leaf = a.shape[0], _cpu.geometry()["potrf_block"]
    if n <= leaf:
        if n:
            _potrf_kernel(a, 1, n, 0, info, offset, opts)
        return
    half = recursion_split(n, leaf)
    _potrf(a[:half, :half], info, offset, opts, algorithm)
    l21_t = a[half:, :half].T     # L21 = A21 L11^-T  <=>  L11 L21^T = A21^T
    solve_lower_left(a[:half, :half], l21_t, True, False, opts, algorithm)
    rest = n - half
    may_run_ozaki = algorithm == "auto" or algorithm.startswith("ozaki")
    if a.device in FULL_UPDATE_DEVICES and (rest <= FULL_UPDATE_MAX_ORDER or (
            may_run_ozaki and rest * rest * half >= FULL_UPDATE_MIN_WORK)):
        subtract_product(a[half:, :half], a[half:, :half].T, a[half:, half:], opts, algorithm)
    else:
        rsyrk("L", "N", -1, a[half:, :half], 1, a[half:, half:], fma=opts.fma, add=opts.add,
              algorithm=algorithm)
    _potrf(a[half:, half:], info, offset + half, opts, algorithm)


def _cholesky_lower(a: DDArray, lower: bool, opts, algorithm) -> DDArray:
    """The working copy (stack flattened to 3-D) with L in each lower triangle (from a's lower
    triangle, or its upper one transposed when not lower); a LinAlgError for the first matrix
    of the stack, in order, that is not positive definite."""
    n = a.shape[-1]
    source = a if lower else a.transpose(*range(a.ndim - 2), a.ndim - 1, a.ndim - 2)
    batch = int(np.prod(a.shape[:-2], dtype=np.int64))
    work = _working_copy(source).reshape(batch, n, n)
    xp = work.xp
    info = xp.full(batch, n + 1, dtype=np.int64)
    if n <= _cpu.geometry()["potrf_max_order"]:
        if batch and n:
            _potrf_kernel(work, batch, n, n * n, info, 0, opts)
    else:
        for i in range(batch):
            _potrf(work[i], info[i:i + 1], 0, opts, algorithm)
    failed = np.flatnonzero(_backend.move(info, "cpu") <= n)  # the one synchronisation
    if failed.size:
        item = int(failed[0])
        order = int(_backend.move(info, "cpu")[item])
        error = LinAlgError(f"the leading minor of order {order} is not positive definite",
                            order)
        raise in_stack(error, stack_index(item, a.shape[:-2], a.shape[:-2]))
    return work


def cholesky(a, lower=False, overwrite_a=False, check_finite=True, *, fma=None, add=None,
             algorithm="auto") -> DDArray:
    """Cholesky factor of a symmetric positive definite matrix (or a stack of them) in DD, as
    scipy.linalg.cholesky: U with A = U^T U (lower=False, SciPy's default; the issue's
    ``cholesky(a, lower=True)`` gives L with A = L L^T).

    Parameters
    ----------
    a : (..., N, N) DDArray or array_like; only the `lower` (or upper) triangle is read.
    lower : bool
        Return L (lower triangular) rather than U = L^T.
    overwrite_a : accepted for SciPy compatibility; a is never modified.
    check_finite, fma, add, algorithm : as lu_factor.

    Returns
    -------
    c : (..., N, N) DDArray, the factor with zeros in the other triangle.

    Raises
    ------
    LinAlgError
        "the leading minor of order k is not positive definite" (.index = k, .batch_index the
        first failing matrix of a stack).
    ValueError
        Not square, or not finite with check_finite.

    Notes
    -----
    Recursive Cholesky (module docstring); backward error L L^T = A + dA with
    |dA| <= c_chol(n) |L||L^T| (docs/linalg.md). Stacks of N <= 64 (geometry.h
    POTRF_MAX_ORDER) are one launch.
    """
    require_algorithm(algorithm)
    del overwrite_a
    a = _matrix(a, "a", check_finite, stack=True)
    work = _cholesky_lower(a, lower, resolve(fma, add), algorithm)
    xp = work.xp
    keep = xp.tri(a.shape[-1], dtype=bool)
    factor = DDArray(xp.where(keep, work.hi, 0.0), xp.where(keep, work.lo, 0.0), normalize=False)
    factor = factor.reshape(a.shape)
    return factor if lower else _working_copy(
        factor.transpose(*range(a.ndim - 2), a.ndim - 1, a.ndim - 2))


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True, *, fma=None, add=None,
               algorithm="auto"):
    """(c, lower) for cho_solve, as scipy.linalg.cho_factor: c's `lower` (or upper) triangle
    holds the Cholesky factor; its other triangle holds a's entries there (SciPy: arbitrary).
    Parameters, errors and bound as cholesky: a (..., N, N), a stack of matrices as SciPy 1.17
    takes it (c of a's shape; `lower` comes back as given, a bool, where SciPy returns an array
    of the stack's shape for a stack: cho_solve takes either)."""
    require_algorithm(algorithm)
    del overwrite_a
    a = _matrix(a, "a", check_finite, stack=True)
    work = _cholesky_lower(a, lower, resolve(fma, add), algorithm).reshape(a.shape)
    return (work if lower else work.transpose(*range(a.ndim - 2), a.ndim - 1, a.ndim - 2)), \
        lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True, *, fma=None, add=None,
              algorithm="auto") -> DDArray:
    """Solve A x = b from cho_factor's (c, lower), as scipy.linalg.cho_solve: two recursive
    triangular solves, L y = b and L^T x = y (or U^T, U). c: (..., N, N); lower: a bool, or
    (SciPy 1.17's cho_factor of a stack) an array of bools over c's stack. b: (N,) or
    (..., N, K), not modified; as SciPy 1.17, a 1-D b is one vector for every matrix of c's
    stack, otherwise the leading dimensions of c and b broadcast (ValueError naming them where
    they do not). x has the broadcast stack's shape + b's last one or two."""
    require_algorithm(algorithm)
    del overwrite_b
    c, lower = c_and_lower
    c = _matrix(c, "c", check_finite, stack=True)
    lower = np.asarray(_backend.move(lower, "cpu") if _backend.is_gpu_array(lower) else lower)
    try:
        fits = np.broadcast_shapes(c.shape[:-2], lower.shape) == c.shape[:-2]
    except ValueError:
        fits = False
    if lower.dtype.kind not in "bi" or not fits:
        raise ValueError(f"lower must be a bool or an array of bools over c's stack "
                         f"{c.shape[:-2]}, got {lower.dtype} of shape {lower.shape}")
    b, stack, vector = _rhs_stack(b, c, "b", check_finite, "c")
    opts = resolve(fma, add)

    def one(c_p, b_p, index):
        x, shape = _rhs(b_p, c_p, "b", False)
        factor = c_p if bool(pick(lower, 0, index)) else c_p.T   # L with A = L L^T
        solve_lower_left(factor, x, True, False, opts, algorithm)
        solve_lower_left(factor.T, x, False, False, opts, algorithm)
        return x.reshape(shape)
    return _solve_over_stack(c, b, stack, vector, one)


# ---- triangular systems ----

def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False,
                     check_finite=True, *, fma=None, add=None, algorithm="auto") -> DDArray:
    """Solve op(A) x = b for a triangular A in DD, as scipy.linalg.solve_triangular.

    Parameters
    ----------
    a : (..., N, N) DDArray or array_like; only its `lower` (or upper) triangle is read.
    b : (N,) or (..., N, K); not modified. As SciPy 1.17: a 1-D b is one vector for every
        matrix of a's stack, otherwise the leading dimensions of a and b broadcast (ValueError
        naming them where they do not); x has the broadcast stack's shape + b's last one or two.
    trans : 0 or "N" (A x = b), 1 or "T", 2 or "C" (A^T x = b); SciPy's documented values.
        Lower-case letters are a ValueError naming trans: SciPy 1.17 passes them on to LAPACK
        unmapped, so that its "n" solves A^T x = b for a C-ordered a and fails for a
        Fortran-ordered one.
    lower, unit_diagonal : which triangle; whether the diagonal is taken as ones (not read).
    overwrite_b : accepted for SciPy compatibility; b is never modified.
    check_finite, fma, add, algorithm : as lu_factor.

    Raises
    ------
    LinAlgError
        A diagonal entry is exactly zero ("a[j, j] is exactly zero: the triangular matrix is
        singular"; .index = j, the first; in a stack "(matrix a[i] of the stack)",
        .batch_index = i, the first such matrix).

    Notes
    -----
    Recursive blocked substitution (ddblas.rtrsm); backward error op(A + dA) x = b,
    |dA| <= c_trsm(n) |A| (docs/linalg.md).
    """
    require_algorithm(algorithm)
    del overwrite_b
    a = _matrix(a, "a", check_finite, stack=True)
    if np.ndim(trans) != 0 or trans not in (0, 1, 2, "N", "T", "C"):
        case = (" (upper case only: SciPy 1.17 maps only 'N', 'T' and 'C', and its "
                f"{trans!r} solves the transposed system for a C-ordered a and is an error for "
                f"a Fortran-ordered one)" if isinstance(trans, str) and len(trans) == 1
                and trans.upper() in "NTC" else "")
        raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}{case}")
    b, stack, vector = _rhs_stack(b, a, "b", check_finite, "a")
    transposed = trans not in (0, "N")
    opts = resolve(fma, add)

    def one(a_p, b_p, index):
        x, shape = _rhs(b_p, a_p, "b", False)
        if not unit_diagonal and a_p.shape[0]:
            xp = a_p.xp
            zeros = xp.flatnonzero(xp.diagonal(a_p.hi) == 0)
            if zeros.size:
                j = int(zeros[0])
                raise LinAlgError(f"a[{j}, {j}] is exactly zero: the triangular matrix is "
                                  f"singular", j)
        solve_lower_left(a_p.T if transposed else a_p, x, lower != transposed,
                         bool(unit_diagonal), opts, algorithm)
        return x.reshape(shape)
    return _solve_over_stack(a, b, stack, vector, one)
