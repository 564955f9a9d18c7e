"""Power-of-two scaling of large operands (LAPACK dlascl's idea with powers of two, so exact):
factorizations and solves of matrices (or right-hand sides) whose entries reach 2^scale_exponent()
work on copies scaled below it, leaving room for the growth of LU factors, the products |A| |x|
and Householder updates (docs/linalg.md, "Scaling"); solve also equilibrates columns of very
different or tiny magnitudes (column_exponents). A part that the scaling takes into the
subnormals loses its bits below 2^-1074: at least 2^-1534 times the largest entry."""
from __future__ import annotations

import numpy as np

from ..core.array import DDArray
from ..core.ops import scale
from ..engines import cpu as _cpu

EQUILIBRATION_SPREAD = 16   # columns whose largest entries' exponents differ by more: equilibrated
MIN_NORMAL_EXPONENT = -1021  # frexp's exponent of the smallest normal float64, 2^-1022


def scale_exponent() -> int:
    """geometry.h's LINALG_SCALE_EXPONENT (512): max |x| >= 2^512 is scaled into [2^511, 2^512),
    leaving 2^512 of headroom (the batched solve kernel flags such entries itself)."""
    return _cpu.geometry()["linalg_scale_exponent"]


def tiny_exponent() -> int:
    """geometry.h's LINALG_TINY_EXPONENT (-500): a column whose largest entry is below
    2^-500 is scaled up (the batched solve kernel flags entries below it)."""
    return _cpu.geometry()["linalg_tiny_exponent"]


def row_spread() -> int:
    """geometry.h's LINALG_ROW_SPREAD (500): det and solve equilibrate the rows of a matrix whose
    rows' largest entries' exponents differ by more (LU's multipliers 2^-spread would lose bits
    to the subnormals); the batched solve kernel flags the matrices that may need it."""
    return _cpu.geometry()["linalg_row_spread"]


def _largest_exponents(x: DDArray, axes: tuple, rows=None):
    """(e, present) over `axes` (kept as size-1 axes): max |x| in [2^(e-1), 2^e) where present
    (max |x| > 0 and finite), e = 0 elsewhere; None for an empty x. With rows (int exponents
    shaped (..., n, 1), row_exponents' k) the same for R x, R = 2^-rows, from x's exponents
    alone: R x is not formed (its entries may leave float64's range, so that the exponents of
    the formed R x would not be those of the exact one)."""
    if x.size == 0:
        return None
    xp = x.xp
    if rows is None:
        largest = xp.max(xp.abs(x.hi), axis=axes, keepdims=True)
        return xp.frexp(largest)[1].astype(np.int64), (largest > 0) & xp.isfinite(largest)
    finite = xp.isfinite(x.hi)
    nonzero = finite & (x.hi != 0)
    exponent = xp.frexp(xp.where(nonzero, x.hi, 1.0))[1].astype(np.int64) - rows
    largest = xp.max(xp.where(nonzero, exponent, -2 ** 20), axis=axes, keepdims=True)
    present = xp.any(nonzero, axis=axes, keepdims=True) & xp.all(finite, axis=axes,
                                                                 keepdims=True)
    return xp.where(present, largest, 0), present


def _zeros_over(x: DDArray, axes: tuple):
    return x.xp.zeros([1 if i in axes else s for i, s in enumerate(x.shape)], dtype=np.int64)


def downscale_exponents(x: DDArray, axes: tuple):
    """k >= 0 (int64, over `axes`, kept as size-1 axes): 0 where max |x| < 2^scale_exponent(),
    else the k with max |x| 2^-k in [2^(scale_exponent() - 1), 2^scale_exponent())."""
    found = _largest_exponents(x, axes)
    if found is None:
        return _zeros_over(x, axes)
    return x.xp.maximum(found[0] - scale_exponent(), 0)


def range_exponents(x: DDArray, axes: tuple, rows=None):
    """downscale_exponents' k, and where max |x| is below 2^tiny_exponent(), k = e < 0 that puts
    it into [1/2, 1) (x 2^-k): both directions from one pass over x. With rows: those of R x
    (R = 2^-rows, not formed: _largest_exponents)."""
    found = _largest_exponents(x, axes, rows)
    if found is None:
        return _zeros_over(x, axes)
    return _range_shift(x.xp, *found)


def _range_shift(xp, exponent, present):
    """range_exponents' k from the largest entries' exponents (where present)."""
    tiny = present & (exponent < tiny_exponent())
    return xp.where(tiny, exponent, xp.maximum(exponent - scale_exponent(), 0))


def unit_exponents(x: DDArray, axes: tuple, rows=None):
    """k (int64, over `axes`, kept as size-1 axes) with max |x| 2^-k in [1/2, 1); 0 where x is
    zero. With rows: those of R x (R = 2^-rows, not formed: _largest_exponents)."""
    found = _largest_exponents(x, axes, rows)
    if found is None:
        return _zeros_over(x, axes)
    exponent, present = found
    return x.xp.where(present, exponent, 0)


def row_exponents(a: DDArray):
    """k (int64, shaped (..., n, 1)) that puts each row's largest entry into [1/2, 1) (A's rows
    times 2^-k) in the matrices whose rows' largest entries span more than row_spread() binades
    (k = 0 in the others and in zero rows); None where no matrix does. R A x = R b (R = 2^-k)
    keeps x; row_scaled_range_exponents says how to form R b."""
    found = _largest_exponents(a, (a.ndim - 1,))
    if found is None:
        return None
    exponent, present = found
    xp = a.xp
    high = xp.max(xp.where(present, exponent, -2 ** 20), axis=-2, keepdims=True)
    low = xp.min(xp.where(present, exponent, 2 ** 20), axis=-2, keepdims=True)
    spread = present & (high - low > row_spread())
    return xp.where(spread, exponent, 0) if bool(spread.any()) else None


def _lost_entries(a: DDArray, rows, columns):
    """bool (..., 1, 1): the matrices of a that 2^-rows A 2^-columns (either None for none;
    not formed) would give an entry whose hi part is subnormal or zero where a's is not:
    exponents below MIN_NORMAL_EXPONENT, or below the entry's own where it is subnormal."""
    xp = a.xp
    nonzero = xp.isfinite(a.hi) & (a.hi != 0)
    exponent = xp.frexp(xp.where(nonzero, a.hi, 1.0))[1].astype(np.int64)
    scaled = exponent - (0 if rows is None else rows) - (0 if columns is None else columns)
    lost = nonzero & (scaled < xp.minimum(exponent, MIN_NORMAL_EXPONENT))
    return xp.any(lost, axis=(-2, -1), keepdims=True)


def rows_keeping_entries(a: DDArray, rows, columns_for):
    """rows (row_exponents' k, shaped (..., n, 1), or None) with each matrix's set to 0 where
    its row and column scaling 2^-rows A 2^-columns_for(rows) would take a nonzero entry into
    the subnormals (or to zero) and its column scaling alone, 2^-columns_for(None), would not;
    None where no row is then scaled. columns_for(rows) gives the column exponents (..., 1, n)
    for those rows, or None for none. A row that spans more than float64's range between its
    largest entry and an entry whose column holds larger ones loses that entry: the columns of
    an upper triangular matrix scaled by 2^+-900 lost their entries above the diagonal, and the
    solution became garbage with a backward error of 0 for the scaled system; scaled by
    columns alone, such a matrix needs no row scaling (its multipliers, ratios within a
    column, are those of the equilibrated matrix)."""
    if rows is None:
        return None
    lost = _lost_entries(a, rows, columns_for(rows))
    if not bool(lost.any()):
        return rows
    xp = a.xp
    keep = ~(lost & ~_lost_entries(a, None, columns_for(None)))
    rows = xp.where(keep, rows, 0)
    return rows if bool((rows != 0).any()) else None


def row_scaled_range_exponents(b: DDArray, rows):
    """range_exponents(R b, (b.ndim - 2,)) for R = 2^-rows (row_exponents' k, shaped (..., n,
    1)), from b's exponents alone: R b itself may leave float64's range (a row brought down by
    2^1493 took b's 1 to zero in inv([[1e300, 1e300], [1e-300, -1e-300]]))."""
    if b.size == 0:
        return _zeros_over(b, (b.ndim - 2,))
    xp = b.xp
    present = (b.hi != 0) & xp.isfinite(b.hi)
    exponent = xp.frexp(xp.where(present, b.hi, 1.0))[1].astype(np.int64) - rows
    exponent = xp.max(xp.where(present, exponent, -2 ** 20), axis=-2, keepdims=True)
    return _range_shift(xp, exponent, exponent > -2 ** 19)


def scale_wide(x: DDArray, k) -> DDArray:
    """x 2^k for |k| <= 2044 (two steps of scale): exact under the same conditions."""
    half = k // 2
    return scale(scale(x, half), k - half)


def scale_wider(x: DDArray, k) -> DDArray:
    """x 2^k for |k| <= 4088 (scale_wide twice, both steps of one sign: no intermediate leaves
    the range between x and the result)."""
    half = k // 2
    return scale_wide(scale_wide(x, half), k - half)


def column_exponents(a: DDArray, symmetric: bool, rows=None):
    """k (int64, shaped (..., 1, n)) such that A's columns times 2^-k (for symmetric, 2^-k A
    2^-k: k from half of each diagonal entry's exponent) have their largest entries in
    [1/2, 1) (diagonal in [1/2, 2)), or None where A needs no equilibration: every column's
    exponent within EQUILIBRATION_SPREAD of the others and above tiny_exponent(). Zero columns
    keep k = 0. With rows (not with symmetric): those of R A (R = 2^-rows, row_exponents' k),
    from A's exponents: R A is not formed, since a row whose own entries span more than
    float64's range loses its small ones to zero when scaled on its own (the column of 2^-900
    in [[2^-900, 2^900], [0, 1]] did: "singular"); form 2^-rows A 2^-k in one step an entry."""
    xp = a.xp
    if a.size == 0:
        return None
    if symmetric:
        largest = xp.abs(xp.diagonal(a.hi, axis1=-2, axis2=-1))[..., None, :]
        present = (largest > 0) & xp.isfinite(largest)
        exponent = xp.frexp(xp.where(present, largest, 1.0))[1].astype(np.int64)
    else:
        exponent, present = _largest_exponents(a, (a.ndim - 2,), rows)
    if not bool(present.any()):
        return None
    low = int(xp.where(present, exponent, 2 ** 20).min())
    high = int(xp.where(present, exponent, -2 ** 20).max())
    if high - low <= EQUILIBRATION_SPREAD and low > tiny_exponent():
        return None
    return xp.where(present, exponent // 2 if symmetric else exponent, 0)
