"""numpy.linalg's functions on DDArrays (NEP 18): np.linalg.solve(a, b) with a DDArray runs
ddblas.linalg with numpy.linalg's signature and semantics. ddblas.linalg follows SciPy where
SciPy and NumPy differ; the functions here give NumPy's defaults and results over it (qr's modes
and default, cholesky's `upper`, lstsq's rcond and residuals, cond's default p), and the others
are ddblas.linalg's own, which have NumPy's semantics already. So are NumPy's products
np.tensordot, np.inner and np.vdot (ddblas.linalg.products), and np.cross runs linalg.cross with
NumPy's axisa, axisb and axisc. This module registers them all with core.ops's NEP 18 table (the
core imports nothing from linalg). docs/linalg.md, "NumPy's entry points", lists them and what
differs from NumPy on purpose.
"""
from __future__ import annotations

import numbers
import warnings
from typing import NamedTuple

import numpy as np

from ..blas.gemm import matmul
from ..core import ops
from ..core.array import DDArray, zeros
from ..core.building import concatenate, diagonal, outer
from ..core.reductions import numpy_signature
from ..core.shaping import moveaxis
from .errors import LinAlgError, require_matrices, require_square_stack
from .factor import cholesky
from .norms import matrix_norm, norm, vector_norm
from .products import (cross, inner, matrix_power, matvec, multi_dot, named_axis, tensordot,
                       trace, vdot, vecdot, vecmat)
from .qr import RCOND_EPSILON, lstsq, qr
from .solve import cond, det, inv, slogdet, solve
from .jacobi import eigh, eigvalsh, matrix_rank, pinv, svd, svdvals
from .tensor import tensorinv, tensorsolve

QR_MODES = ("reduced", "complete", "r", "raw")   # numpy.linalg.qr's, NumPy 2


class QRResult(NamedTuple):
    """numpy.linalg.qr's result for the modes 'reduced' and 'complete', as NumPy 2's."""
    Q: DDArray
    R: DDArray


def numpy_cholesky(a, /, *, upper=False) -> DDArray:
    """numpy.linalg.cholesky: L with A = L L^T from a's lower triangle (upper=True: U = L^T
    from the upper one), ddblas.linalg.cholesky(a, lower=not upper). As NumPy's, only that
    triangle is read (a is not checked for infs and NaNs first); a NaN there fails its pivot's
    test, a LinAlgError "not positive definite" (NumPy returns NaNs). A not square is a
    LinAlgError naming a."""
    a = ops.named_operand(a, "a")
    require_square_stack(a, "a")
    return cholesky(a, lower=not upper, check_finite=False)


def numpy_qr(a, mode="reduced"):
    """numpy.linalg.qr by ddblas.linalg.qr: 'reduced' (NumPy's default) QRResult(Q (..., M, K),
    R (..., K, N)), 'complete' QRResult(Q (..., M, M), R (..., M, N)), 'r' R (..., K, N) bare,
    'raw' (h, tau) with h (..., N, M) the transpose of LAPACK dgeqrf's array (NumPy's layout)
    and tau (..., K); K = min(M, N). NumPy's deprecated 'full'/'f' (= 'reduced') and
    'economic'/'e' (dgeqrf's array, (..., M, N)) with NumPy's DeprecationWarning. a of fewer
    than 2 dimensions is a LinAlgError, an unknown mode a ValueError naming it, as NumPy's."""
    if mode in ("f", "full"):
        warnings.warn("The 'full' option is deprecated in favor of 'reduced'.\nFor backward "
                      "compatibility let mode default.", DeprecationWarning, stacklevel=4)
        mode = "reduced"
    elif mode in ("e", "economic"):
        warnings.warn("The 'economic' option is deprecated.", DeprecationWarning, stacklevel=4)
        mode = "economic"
    elif mode not in QR_MODES:
        raise ValueError(f"Unrecognized mode {mode!r}: mode must be one of "
                         f"{', '.join(map(repr, QR_MODES))}")
    a = ops.named_operand(a, "a")
    require_matrices(a, "a")
    if mode in ("reduced", "complete"):
        return QRResult(*qr(a, mode="economic" if mode == "reduced" else "full"))
    (h, tau), r = qr(a, mode="raw")
    if mode == "r":
        return r
    if mode == "economic":
        return h
    return h.mT, tau


def numpy_lstsq(a, b, rcond=None):
    """numpy.linalg.lstsq(a, b, rcond=None) by ddblas.linalg.lstsq: (x, residuals, rank, s).

    a is (M, N) and b (M,) or (M, K) (NumPy's: no stacks; a LinAlgError naming them otherwise).
    rcond None is max(M, N) RCOND_EPSILON (NumPy's max(M, N) eps, with DD's 4 u_DD), a negative
    rcond RCOND_EPSILON (NumPy: machine precision); QR's |R_jj| take the place of the singular
    values, and rank deficiency by that test is a LinAlgError (NumPy returns the minimum-norm
    solution from its SVD). residuals: (1,) for a 1-D b, (K,), or (0,) where M <= N, as NumPy's.
    rank: min(M, N) (a Python int). s: None (linalg.svdvals(a) gives them, at a Jacobi
    SVD's cost)."""
    a, b = ops.on_one_device(a, b, names=("a", "b"))
    vector = b.ndim == 1
    columns = b.reshape(-1, 1) if vector else b
    require_matrices(a, "a", exactly_2d=True)
    require_matrices(columns, "b (1-D or 2-D)", exactly_2d=True)
    if a.shape[0] != columns.shape[0]:
        raise LinAlgError(f"a {a.shape} and b {b.shape} have different numbers of rows")
    if isinstance(rcond, numbers.Real) and not isinstance(rcond, bool) and rcond < 0:
        rcond = RCOND_EPSILON
    x, residuals, rank, s = lstsq(a, columns, rcond=rcond)
    return (x.reshape(-1) if vector else x), residuals, rank, s


def numpy_cond(x, p=None) -> DDArray:
    """numpy.linalg.cond by ddblas.linalg.cond, with NumPy's default p=None: the 2-norm
    condition number (ddblas.linalg.cond's None is the inf-norm's)."""
    return cond(x, 2 if p is None else p)


def numpy_diagonal(x, /, *, offset=0) -> DDArray:
    """numpy.linalg.diagonal: ddblas.diagonal(x, offset, -2, -1), a view."""
    return diagonal(x, offset, -2, -1)


def numpy_outer(x1, x2, /) -> DDArray:
    """numpy.linalg.outer: ddblas.outer of two 1-D arrays (a ValueError naming them
    otherwise, as NumPy's)."""
    x1, x2 = ops.on_one_device(x1, x2, names=("x1", "x2"))
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"x1 and x2 must be 1-D, got {x1.ndim}-D and {x2.ndim}-D")
    return outer(x1, x2)


def numpy_cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None) -> DDArray:
    """numpy.cross: the vectors of a along axisa and of b along axisb moved last, then
    ddblas.linalg.cross (its bits and bound) and its vectors moved to axisc; axis, where given,
    is all three. Vector lengths other than 3 get the installed NumPy's verdict (its cross of
    zero vectors of those lengths): its ValueError and message, or (NumPy 2.0-2.4) its
    deprecated 2-vectors, with its DeprecationWarning, which take a zero third component
    (exact: x - 0 = x, though a zero's sign may differ from NumPy's); two of them give the
    third component alone, a0 b1 - a1 b0, NumPy's shape (axisc unused). A 0-d operand is
    NumPy's ValueError, an axis out of bounds an AxisError naming axisa, axisb or axisc."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = ops.operands(a, b, names=("a", "b"))
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError(f"At least one array has zero dimension (a {a.shape}, b {b.shape})")
    vectors = []
    for x, x_axis, name in ((a, axisa, "axisa"), (b, axisb, "axisb")):
        vectors.append(moveaxis(x, named_axis(x_axis, x.ndim, name), -1))
    lengths = tuple(v.shape[-1] for v in vectors)
    if lengths != (3, 3):   # NumPy's verdict on these lengths: its ValueError, or 2-vectors
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            try:
                np.cross(np.zeros(lengths[0]), np.zeros(lengths[1]))
            except ValueError as error:
                raise ValueError(str(error)) from None
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=4)
        vectors = [v if v.shape[-1] == 3 else concatenate(
            [v, zeros(v.shape[:-1] + (1,), device=v.device)], axis=-1) for v in vectors]
    product = cross(*vectors)
    if lengths == (2, 2):
        return product[..., 2]
    return moveaxis(product, -1, named_axis(axisc, product.ndim, "axisc"))


def numpy_tensordot(x1, x2, /, *, axes=2) -> DDArray:
    """numpy.linalg.tensordot: ddblas.tensordot(x1, x2, axes)."""
    return tensordot(x1, x2, axes)


ops.register_functions({
    np.linalg.solve: solve, np.linalg.inv: inv, np.linalg.det: det,
    np.linalg.slogdet: slogdet, np.linalg.norm: norm, np.linalg.cholesky: numpy_cholesky,
    np.linalg.qr: numpy_qr, np.linalg.lstsq: numpy_lstsq, np.linalg.cond: numpy_cond,
    np.linalg.matrix_power: matrix_power, np.linalg.multi_dot: multi_dot,
    np.linalg.vector_norm: vector_norm, np.linalg.matrix_norm: matrix_norm,
    np.linalg.tensorsolve: tensorsolve, np.linalg.tensorinv: tensorinv,
    np.linalg.trace: numpy_signature(trace), np.linalg.diagonal: numpy_diagonal,
    np.linalg.outer: numpy_outer, np.linalg.vecdot: vecdot, np.linalg.matmul: matmul,
    np.linalg.cross: cross, np.linalg.tensordot: numpy_tensordot, np.tensordot: tensordot,
    np.inner: inner, np.vdot: vdot, np.cross: numpy_cross,
    np.linalg.svd: svd, np.linalg.matrix_rank: matrix_rank, np.linalg.pinv: pinv,
    np.linalg.eigh: eigh, np.linalg.eigvalsh: eigvalsh,
})
if hasattr(np.linalg, "svdvals"):   # NumPy 2
    ops.register_functions({np.linalg.svdvals: svdvals})
# NumPy 2's gufuncs (np.matvec and np.vecmat from NumPy 2.2) through DDArray.__array_ufunc__
ops.register_ufuncs({np.vecdot: vecdot}, core_axis=True)
ops.register_ufuncs({getattr(np, name): function for name, function in
                     (("matvec", matvec), ("vecmat", vecmat)) if hasattr(np, name)})
