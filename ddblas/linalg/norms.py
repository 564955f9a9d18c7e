"""ddblas.linalg's norms: norm (numpy.linalg.norm's arguments) and the pieces it is built from,
each a DD reduction or an exact selection on the kernels (docs/linalg.md, "Solvers" and
"NumPy's entry points")."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..core import ops
from ..core.array import DDArray
from ..core.shaping import moveaxis
from .scaling import scale_wide
from .jacobi import svdvals


def _extreme_abs(x: DDArray, axes: tuple, largest: bool) -> DDArray:
    """max (or min) of |x| over `axes` (kept as size-1 axes), exact: the DD order is the
    lexicographic order of (hi, lo) for normalized pairs, so this is a selection. Over no
    entries the max is 0 and the min a ValueError, as NumPy's norms."""
    xp = x.xp
    if any(x.shape[i] == 0 for i in axes):
        if not largest:
            raise ValueError("x has no entries for the minimum that ord -1 or -inf takes "
                             "(NumPy raises too)")
        shape = tuple(1 if i in axes else size for i, size in enumerate(x.shape))
        return DDArray(xp.zeros(shape), xp.zeros(shape), normalize=False)
    ax = ops.absolute(x)
    pick = xp.max if largest else xp.min
    hi = pick(ax.hi, axis=axes, keepdims=True)
    fill = -math.inf if largest else math.inf
    lo = pick(xp.where(ax.hi == hi, ax.lo, fill), axis=axes, keepdims=True)
    lo = xp.where(xp.isfinite(hi), lo, 0.0)
    return DDArray(hi, lo, normalize=False)


def _two_norm(x: DDArray, axes: tuple) -> DDArray:
    """sqrt(sum x^2) over `axes` (kept), scaled by a power of two near max |x| so that squares
    neither overflow nor underflow (the scalings are exact)."""
    xp = x.xp
    largest = _extreme_abs(x, axes, True).hi
    e = xp.where(xp.isfinite(largest), xp.frexp(largest)[1], 0)   # |e| <= 1074
    y = scale_wide(x, -e)
    s = ops.sqrt(ops.sum(ops.multiply(y, y), axis=axes, keepdims=True))
    return scale_wide(s, e)


def _count_nonzero(x: DDArray, axes: tuple) -> DDArray:
    """The number of entries x_i != 0 (NaN included, as NumPy's ord=0) over `axes` (kept), in
    DD: exact (counts below 2^53). A normalized DD value is zero exactly when its hi part is."""
    xp = x.xp
    count = xp.sum(x.hi != 0, axis=axes, keepdims=True).astype(np.float64)
    return DDArray(count, xp.zeros_like(count), normalize=False)


def _p_norm(x: DDArray, p: float, axes: tuple) -> DDArray:
    """(sum |x_i|^p)^(1/p) over `axes` (kept) for a real p other than 0, 1, 2, +-inf: with
    s = max |x_i| (p > 0) or min |x_i| (p < 0), s (sum (|x_i| / s)^p)^(1/p), so every term
    (|x_i| / s)^p lies in [0, 1], the largest being 1: nothing overflows, and the sum's errors
    are relative to a sum >= 1. The powers are ddblas.power's (binary powering for integer
    exponents, exp(y log x) otherwise); the divisions, the sum and the product are DD. Where s is
    0, inf or NaN the norm is s (NumPy's value: a zero with p < 0 gives 0, an inf with p > 0
    inf, a NaN NaN); over no entries it is 0 for p > 0 and inf for p < 0, as NumPy's."""
    xp = x.xp
    if any(x.shape[i] == 0 for i in axes):
        shape = tuple(1 if i in axes else size for i, size in enumerate(x.shape))
        return DDArray(xp.full(shape, 0.0 if p > 0 else math.inf), xp.zeros(shape),
                       normalize=False)
    s = _extreme_abs(x, axes, p > 0)
    regular = xp.isfinite(s.hi) & (s.hi > 0)
    # x and s scaled by the power of two that puts s into [1/2, 1) (exact, scaled back at the
    # end): the DD division assumes no underflow, and |x_i| / s of entries near 2^-1000 lost
    # bits (norm(x, 0.5) 1.1e11 u^2 from exact at 2^-1000, 800 times the result's own spacing)
    e = xp.where(regular, xp.frexp(xp.where(regular, s.hi, 1.0))[1], 0).astype(np.int64)
    safe = scale_wide(DDArray(xp.where(regular, s.hi, 1.0), xp.where(regular, s.lo, 0.0),
                              normalize=False), -e)
    terms = ops.power(ops.divide(scale_wide(ops.absolute(x), -e), safe), p)
    total = ops.sum(terms, axis=axes, keepdims=True)
    root = ops.power(total, ops.reciprocal(_dd_scalar(p, x)))
    norm_ = scale_wide(ops.multiply(safe, root), e)
    return DDArray(xp.where(regular, norm_.hi, s.hi), xp.where(regular, norm_.lo, s.lo),
                   normalize=False)


def _dd_scalar(value: float, like: DDArray) -> DDArray:
    """The float64 value as a 0-d DDArray on like's device (exact)."""
    xp = like.xp
    return DDArray(xp.full((), float(value)), xp.zeros(()), normalize=False)


def _vector_norm(x: DDArray, ord, axes: tuple) -> DDArray:
    if ord is None or ord == 2:
        return _two_norm(x, axes)
    if isinstance(ord, str) or not isinstance(ord, (numbers.Real, np.number)) or \
            isinstance(ord, np.complexfloating):
        raise ValueError(f"ord must be None, a real number or +-inf for a vector norm, got "
                         f"{ord!r}")
    if math.isnan(ord):
        raise ValueError("ord must not be NaN (no norm; NumPy returns NaN)")
    if ord == 1:
        return ops.sum(ops.absolute(x), axis=axes, keepdims=True)
    if ord in (math.inf, -math.inf):
        return _extreme_abs(x, axes, ord > 0)
    if ord == 0:
        return _count_nonzero(x, axes)
    return _p_norm(x, float(ord), axes)


def _matrix_norm(x: DDArray, ord, axes: tuple) -> DDArray:
    rows, cols = axes
    if ord is None or ord == "fro":
        return _two_norm(x, axes)
    if ord in (1, -1, math.inf, -math.inf):
        summed, across = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = ops.sum(ops.absolute(x), axis=summed, keepdims=True)
        return _extreme_abs(sums, (across,), ord > 0)
    if ord in (2, -2, "nuc"):
        s = svdvals(moveaxis(x, (rows, cols), (-2, -1)))
        last = (s.ndim - 1,)
        kept = ops.sum(s, axis=last, keepdims=True) if ord == "nuc" else \
            _extreme_abs(s, last, ord > 0)
        return kept.reshape(tuple(1 if d in axes else n for d, n in enumerate(x.shape)))
    raise ValueError(f"ord must be None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf for a matrix "
                     f"norm, got {ord!r}")


def norm(x, ord=None, axis=None, keepdims=False) -> DDArray:
    """Vector or matrix norm in DD, with numpy.linalg.norm's arguments.

    Parameters
    ----------
    x : DDArray or array_like
        Input; with axis=None it must be 1-D or 2-D unless ord is None (then the 2-norm of
        x.ravel()).
    ord : {None, 'fro', inf, -inf} or a real number, optional
        Vectors: None/2 (Euclidean), 1, inf (max |x_i|), -inf (min |x_i|), 0 (the number of
        nonzero entries, NaNs included, as a DD count), and any other real p, positive or
        negative: (sum |x_i|^p)^(1/p), as NumPy (with p < 0 a zero entry gives 0, no entries
        inf). Matrices: None/'fro' (Frobenius), 1 / -1 (max / min column sum of |a_ij|), inf /
        -inf (max / min row sum), 2 / -2 (largest / smallest singular value) and 'nuc' (their
        sum), from svdvals (ddblas.linalg.svd's one-sided Jacobi). Other orders are none of
        NumPy's: a ValueError names ord, as it does for a NaN or non-real ord (NumPy returns
        NaN for ord=NaN).
    axis : None, int or 2-tuple of ints, optional
        The vector axis or the (row, column) matrix axes, as in NumPy.
    keepdims : bool, optional
        Keep the reduced axes as size 1.

    Returns
    -------
    DDArray
        The norms. Bounds: 2, -2 and 'nuc' those of svdvals (docs/linalg.md "Singular
        values"); inf/-inf and 0 exact; 1-norms those of ddblas.sum on |x| ((n - 1)
        3.0000001 u^2 relative); 2/Frobenius: relative error <= (c_mul + 3.0000001 (n - 1) +
        c_mul) u^2 / 2 + 6 u^2 to first order (sum of squares, then sqrt), the power-of-two
        scalings being exact. Other p: s (sum (|x_i|/s)^p)^(1/p) with s = max |x_i| (p > 0)
        or min |x_i| (p < 0), so no term overflows and the largest is 1; relative error, first
        order, <= (2 c_div + 2 c_mul + c_pow + ((1 + n/e) c_pow + 3.0000001 (n - 1) +
        (c_pow + c_div) ln n) / |p|) u^2, plus (1/|p| - 1) c_mul when 1/p is an integer >= 2
        (c_pow = accuracy.bound("real_power"), a measured constant, so this bound is too;
        integer p and 1/p take ddblas.power's binary powering). Measured: 1-12 u^2 for
        n = 40, entries over 2^+-40, p from -7.5 to 100 (the bound: 47-1100 u^2). Unlike
        NumPy's |x|^p, nothing overflows: norm([2^1000, 2^1000], 3) = 2^(1000 + 1/3).
    """
    (x,) = ops.on_one_device(x, names=("x",))
    if axis is None:
        if ord is None:
            result = _two_norm(x.reshape(-1), (0,))
            return result.reshape((1,) * x.ndim) if keepdims else result.reshape(())
        if x.ndim not in (1, 2):
            raise ValueError(f"x must be 1-D or 2-D for a norm of order {ord!r} with "
                             f"axis=None, got {x.ndim}-D")
        axis = tuple(range(x.ndim))
    axes = _axes(axis, x.ndim)
    if len(axes) == 1:
        if ord == "fro":
            raise ValueError("ord='fro' is a matrix norm: give two axes (or a 2-D x)")
        result = _vector_norm(x, ord, axes)
    elif len(axes) == 2:
        result = _matrix_norm(x, ord, axes)
    else:
        raise ValueError(f"axis must be an int or a 2-tuple of ints, got {axis!r}")
    if not keepdims:
        result = result.reshape(tuple(s for d, s in enumerate(result.shape) if d not in axes))
    return result


def _axes(axis, ndim: int) -> tuple:
    if isinstance(axis, (int, np.integer)):
        axes = (axis,)
    elif isinstance(axis, (tuple, list)):
        axes = tuple(axis)
    else:
        raise ValueError(f"axis must be None, an int or a tuple of ints, got {axis!r}")
    out = []
    for ax in axes:
        if not isinstance(ax, (int, np.integer)):
            raise ValueError(f"axis must be None, an int or a tuple of ints, got {axis!r}")
        if not -ndim <= ax < ndim:
            raise ops.axis_error(ax, ndim)
        out.append(int(ax) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"axis {axis!r} repeats an axis")
    return tuple(out)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2) -> DDArray:
    """Vector norms in DD, as numpy.linalg.vector_norm (NumPy 2, the array API): the entries
    along `axis` taken as one vector.

    Parameters
    ----------
    x : DDArray or array_like
        Any shape, 0-d included.
    axis : None, int or tuple of ints, optional
        None: all of x as one vector (x.ravel()); an int: the vectors along that axis; a tuple:
        the entries over those axes as one vector (NumPy's order: x transposed to axis + the
        other axes, then the axes in `axis` flattened; an empty tuple gives |x|).
    keepdims : bool, optional
        Keep the reduced axes (all of them for axis=None) as size 1.
    ord : real number or +-inf, optional
        norm's vector orders (default 2: Euclidean; 1, inf, -inf, 0 and any other real p);
        a string (a matrix order such as 'fro') or a NaN is a ValueError naming ord.

    Returns
    -------
    DDArray
        x's shape without the axes (kept as 1 with keepdims). norm's values and bounds (its
        docstring; docs/linalg.md "Solvers"), with n the number of entries in a vector.

    Raises
    ------
    ValueError
        ord is not a vector order; axis repeats an axis. An axis out of bounds is NumPy's
        AxisError.
    """
    (x,) = ops.on_one_device(x, names=("x",))
    if isinstance(ord, str):
        raise ValueError(f"ord must be a real number or +-inf for a vector norm, got {ord!r} "
                         f"(matrix_norm takes the matrix orders)")
    shape = x.shape
    if axis is None:
        axes, vectors, along = tuple(range(x.ndim)), x.reshape(-1), 0
    elif isinstance(axis, tuple):
        axes = _axes(axis, x.ndim)
        rest = tuple(d for d in range(x.ndim) if d not in axes)
        length = math.prod(shape[d] for d in axes)
        vectors = x.transpose(axes + rest).reshape((length,) + tuple(shape[d] for d in rest))
        along = 0
    else:
        axes = _axes(axis, x.ndim)
        vectors, along = x, axes[0]
    result = _vector_norm(vectors, ord, (along,))
    result = result.reshape(tuple(s for d, s in enumerate(result.shape) if d != along))
    if keepdims:
        result = result.reshape(tuple(1 if d in axes else s for d, s in enumerate(shape)))
    return result


def matrix_norm(x, /, *, keepdims=False, ord="fro") -> DDArray:
    """Matrix norms of the matrices in x's last two axes, as numpy.linalg.matrix_norm (NumPy 2,
    the array API): norm(x, ord, axis=(-2, -1), keepdims).

    Parameters
    ----------
    x : DDArray or array_like, shape (..., M, N)
    keepdims : bool, optional
        Keep the last two axes as size 1.
    ord : {'fro', 'nuc', 1, -1, 2, -2, inf, -inf}, optional
        norm's matrix orders (default 'fro', Frobenius; None is 'fro' too); 2, -2 and 'nuc'
        from the singular values (ddblas.linalg.svdvals).

    Returns
    -------
    DDArray, shape (...) (or (..., 1, 1) with keepdims)
        norm's values and bounds (docs/linalg.md "Solvers").

    Raises
    ------
    ValueError
        ord is not one of these orders. Fewer than 2 dimensions is NumPy's AxisError.
    """
    return norm(x, ord, axis=(-2, -1), keepdims=keepdims)
