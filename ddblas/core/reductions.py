"""Reductions and scans of DDArrays beyond sum and dot (core.ops): max, min, argmax, argmin (exact
selections), prod, mean, var, std (fixed-order DD arithmetic; trace: core.building), cumsum,
cumprod (sequential DD scans), all, any and the other functions of the elements' truth
(nonzero, flatnonzero, argwhere, count_nonzero). The arithmetic runs in the kernels of
cuda_src/reductions.h ("reduce" family) and elementwise.h; this module only lays out the operands (the reduced axes last,
contiguous) and selects with NumPy/CuPy.

Selections: a normalised DD (hi, lo) has |lo| <= ulp(hi)/2 and lo = 0 where hi is 0 or inf, so
comparing values is comparing (hi, lo) lexicographically: max and argmax take the largest hi,
then the largest lo among the entries with that hi, and return the first such entry's bits
(the same on both devices); a NaN (hi NaN) wins as in NumPy: max/min give NaN, argmax/argmin the
first NaN's index. Bounds of the arithmetic ones: docs/algorithms.md, "Reductions".
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from ..engines import backend as _backend
from ..engines.backend import array_module
from .array import DDArray, dd, register_operations
from .ops import (REDUCTION_CHUNK, divide, initial_value, is_scalar_axis, kept_dims,
                  masked_terms, maximum, minimum, multiply, normalize_axes, operands,
                  output_argument, per_row, redo_scaled, reduce_rows, reduction_axes,
                  reduction_rows, register_functions, row_sums, sqrt, store_exact_output)
from .ops import sum as dd_sum
from .options import resolve


# ---- exact selections ----
def _first_extreme(hi, lo, largest: bool):
    """Per row of the (rows, length) arrays, length > 0: the index of the first largest
    (smallest) DD in (hi, lo) order, or of the first NaN where the row has one."""
    xp = array_module(hi)
    pick, fill = (xp.max, -np.inf) if largest else (xp.min, np.inf)
    best_hi = pick(hi, axis=1, keepdims=True)
    on_best = hi == best_hi
    best_lo = pick(xp.where(on_best, lo, fill), axis=1, keepdims=True)
    first_best = xp.argmax((on_best & (lo == best_lo)).astype(np.uint8), axis=1)
    nan = xp.isnan(hi).astype(np.uint8)
    return xp.where(nan.any(axis=1), xp.argmax(nan, axis=1), first_best)


def _extreme(a, axis, keepdims: bool, largest: bool, initial=None, where=True) -> DDArray:
    (a,) = operands(a)
    a = DDArray(a.hi, a.lo)   # pairs wrapped unnormalised, (1, nan) say, as normalised (no copy)
    name = "maximum" if largest else "minimum"
    if where is not True and initial is None:
        raise ValueError(f"reduction operation '{name}' does not have an identity, so to use a "
                         f"where mask one has to specify 'initial'")
    axes = reduction_axes(axis, a.ndim)
    hi, lo, out_shape = reduction_rows(masked_terms(a, where, -np.inf if largest else np.inf),
                                       axes)
    xp = a.xp
    if hi.shape[1] == 0:
        if initial is None:
            raise ValueError(f"zero-size array to reduction operation {name} which has no "
                             f"identity")
        start = initial_value(initial, a.device)   # its bits, -0.0 included
        result = DDArray(xp.full(out_shape, start.hi), xp.full(out_shape, start.lo),
                         normalize=False)
    else:
        index = _first_extreme(hi, lo, largest)[:, None]
        result = DDArray(xp.take_along_axis(hi, index, 1).reshape(out_shape),
                         xp.take_along_axis(lo, index, 1).reshape(out_shape), normalize=False)
        if initial is not None:
            result = (maximum if largest else minimum)(initial_value(initial, a.device), result)
    return kept_dims(result, a.shape, axes) if keepdims else result


def max(a, axis=None, keepdims=False, initial=None, where=True) -> DDArray:  # noqa: A001
    """The largest value over the given axes (all by default), exact (a selection, the first
    largest entry's bits); NaN where a NaN is among them (as numpy.max). A ValueError for an
    empty reduction, as NumPy's. where= (NumPy's: a bool array broadcasting to a's shape)
    leaves out the entries where it is False and needs initial= (NumPy's ValueError
    otherwise); initial= (a scalar) takes part as ddblas.maximum(initial, max) (an empty
    slice gives initial)."""
    return _extreme(a, axis, keepdims, True, initial, where)


def min(a, axis=None, keepdims=False, initial=None, where=True) -> DDArray:  # noqa: A001
    """The smallest value over the given axes (all by default): max's rules, mirrored."""
    return _extreme(a, axis, keepdims, False, initial, where)


def single_axis(axis, ndim: int, name: str):
    """axis (None or one int, not a tuple) as a non-negative axis, or None: the flattened array
    (for a 0-d array's axis 0 or -1 too, as NumPy)."""
    if axis is None or is_scalar_axis(axis, ndim):
        return None
    if isinstance(axis, (tuple, list)):
        raise TypeError(f"{name} axis must be None or an int, got {axis!r}")
    return normalize_axes(axis, ndim)[0]


def _arg_extreme(a, axis, keepdims: bool, largest: bool):
    (a,) = operands(a)
    a = DDArray(a.hi, a.lo)   # as _extreme
    name = "argmax" if largest else "argmin"
    ax = single_axis(axis, a.ndim, name)
    source = a.ravel() if ax is None else a
    axes = (0,) if ax is None else (ax,)
    hi, lo, out_shape = reduction_rows(source, axes)
    if hi.shape[1] == 0:
        raise ValueError(f"attempt to get {name} of an empty sequence")
    index = _first_extreme(hi, lo, largest).reshape(out_shape)
    if keepdims:
        index = index.reshape((1,) * a.ndim if ax is None else
                              tuple(1 if d == ax else n for d, n in enumerate(a.shape)))
    return index


def argmax(a, axis=None, keepdims=False):
    """Indices of the largest values along axis (of the flattened array when None), as
    numpy.argmax: the first occurrence; the first NaN where there is one. An int64 NumPy/CuPy
    array (0-d for axis=None)."""
    return _arg_extreme(a, axis, keepdims, largest=True)


def argmin(a, axis=None, keepdims=False):
    """Indices of the smallest values along axis: argmax's rules, mirrored."""
    return _arg_extreme(a, axis, keepdims, largest=False)


# ---- fixed-order arithmetic ----
def prod(a, axis=None, keepdims=False, *, initial=None, where=True, fma=None,
         add=None) -> DDArray:
    """Product over the given axes (all by default) in DD, in sum()'s fixed chunked order
    (chunks of 256 factors left to right, then the chunk products likewise; CPU == GPU bitwise).
    Relative error <= (1 + c_mul)^(n-1) - 1 for n factors (c_mul: mul's bound; finite, no
    underflow). The product of no factors is 1. where= (NumPy's) leaves out the entries where
    it is False (replaced by 1: exact products, n the count of the others); initial= (a scalar,
    default 1) multiplies the product by one more DD mul (n + 1 factors)."""
    (a,) = operands(a)
    axes = reduction_axes(axis, a.ndim)
    hi, lo, out_shape = reduction_rows(masked_terms(a, where, 1.0), axes)
    xp = a.xp
    if hi.size == 0:
        result = DDArray(xp.ones(out_shape), xp.zeros(out_shape), normalize=False)
    else:
        kernel = "ddblas_reduce_prod_" + resolve(fma, add).suffix
        p_hi, p_lo = reduce_rows(_backend.backend(a.device), hi, lo, kernel)
        result = DDArray(p_hi.reshape(out_shape), p_lo.reshape(out_shape), normalize=False)
    if initial is not None:
        result = multiply(initial_value(initial, a.device), result, fma=fma, add=add)
    return kept_dims(result, a.shape, axes) if keepdims else result


def mean(a, axis=None, keepdims=False, *, fma=None, add=None) -> DDArray:
    """Mean over the given axes: sum() then one DD division by the count n (exact as a float64
    for n < 2^53). Error <= sum's bound / n + c_div |result|, up to DBL_MAX: where the sum of
    finite terms overflows, it is taken again of the terms scaled by 2^-k (mean([DBL_MAX,
    DBL_MAX]) is DBL_MAX, where NumPy's is inf). NaN (with NumPy's RuntimeWarning) for an
    empty slice."""
    (a,) = operands(a)
    axes = normalize_axes(axis, a.ndim)
    hi, lo, out_shape = reduction_rows(a, axes)
    if hi.shape[1] == 0:
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    result = row_sums(a.device, hi, lo, fma, add, divisor=float(hi.shape[1])).reshape(out_shape)
    return kept_dims(result, a.shape, axes) if keepdims else result


def check_ddof(ddof) -> None:
    """A TypeError unless ddof (var's, nanvar's) is a real number (a bool is not)."""
    if not isinstance(ddof, numbers.Real) or isinstance(ddof, (bool, np.bool_)):
        raise TypeError(f"ddof must be a number, got {ddof!r}")


def var(a, axis=None, ddof=0, keepdims=False, *, fma=None, add=None) -> DDArray:
    """Variance over the given axes, two-pass in DD: m = mean(), then the sum of (x - m)^2 (each
    a DD sub and mul, summed in sum()'s fixed order; cuda_src/reductions.h) divided by
    max(n - ddof, 0). Bound: docs/algorithms.md, "Variance", wherever the variance is below
    Omega (a sum of squares that overflows is taken again scaled). When n - ddof <= 0, as NumPy:
    inf, or NaN where the computed sum is exactly 0 too (an empty slice, or a constant one
    whose mean comes out exact: seven copies of DD 0.1 give a mean off by u^2 and so inf),
    with NumPy's RuntimeWarning."""
    check_ddof(ddof)
    (a,) = operands(a)
    axes = normalize_axes(axis, a.ndim)
    hi, lo, out_shape = reduction_rows(a, axes)
    rows, n = hi.shape
    dof = float(n - ddof) if n > ddof else 0.0
    if dof == 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
    xp = a.xp
    if hi.size == 0:
        total = DDArray(xp.zeros(out_shape), xp.zeros(out_shape), normalize=False)
        result = divide(total, dof, fma=fma, add=add)
    else:
        result = variances(a.device, hi, lo, dof, fma, add).reshape(out_shape)
    return kept_dims(result, a.shape, axes) if keepdims else result


# var's rescue: rows scaled so that their largest |x| is below 2^VAR_RESCUE_EXPONENT, where
# n (2 max |x|)^2 stays far below DBL_MAX for any n < 2^60
VAR_RESCUE_EXPONENT = 450


def variances(device: str, hi, lo, dof, fma, add, nan=None) -> DDArray:
    """sum_i (x_i - m)^2 / dof for each row of the (rows, n) contiguous arrays (n > 0), m the
    row's mean (mean()'s bits), the sum in sum()'s fixed order (cuda_src/reductions.h), then
    one DD division. A row of finite terms whose sum overflowed (a square or a partial sum
    past DBL_MAX) is taken again of its terms scaled by 2^-k (largest |x| 2^-k below
    2^VAR_RESCUE_EXPONENT) and its variance scaled back by 2^2k: the same operations on
    exactly scaled values (but for bits below 2^-1074), so var's bound holds wherever the
    variance is below Omega (the sum may be up to dof times larger), and it is inf only where
    the variance is past it.

    dof: a float, or a float64 array of one per row. nan (nanvar): None, or a bool (rows, n)
    array of the terms to leave out: m is then the sum of the others (those replaced by 0)
    divided by their count, and the left-out terms are replaced by m itself, whose deviation
    m - m and its square are exactly 0 (adding them to the sum is exact), so each row's bits
    are var's steps on its other terms with n = their count."""
    be = _backend.backend(device)
    xp = be.xp
    rows, n = hi.shape
    suffix = resolve(fma, add).suffix
    if nan is None:
        m = row_sums(device, hi, lo, fma, add, divisor=float(n))   # mean()'s bits
        d_hi, d_lo = hi, lo
    else:
        count = (~nan).sum(axis=1).astype(np.float64)
        m = row_sums(device, xp.where(nan, 0.0, hi), xp.where(nan, 0.0, lo), fma, add,
                     divisor=count)
        d_hi = _backend.contiguous(xp.where(nan, m.hi[:, None], hi))
        d_lo = _backend.contiguous(xp.where(nan, m.lo[:, None], lo))
    chunks = -(-n // REDUCTION_CHUNK)
    part_hi = xp.empty((rows, chunks), dtype=np.float64)
    part_lo = xp.empty((rows, chunks), dtype=np.float64)
    be.launch("ddblas_reduce_sqdev_" + suffix, rows * chunks, rows, n, REDUCTION_CHUNK,
              d_hi, d_lo, m.hi, m.lo, part_hi, part_lo)
    total = DDArray(*reduce_rows(be, part_hi, part_lo, "ddblas_sum_" + suffix), normalize=False)
    result = divide(total, dof, fma=fma, add=add)
    overflowed = (~xp.isfinite(total.hi) & (xp.isfinite(d_hi) & xp.isfinite(d_lo)).all(axis=1)
                  & (xp.asarray(dof) != 0))
    if not bool(overflowed.any()):
        return result
    redo = xp.nonzero(overflowed)[0]
    k = xp.frexp(xp.abs(d_hi[redo]).max(axis=1))[1].astype(np.int64) - VAR_RESCUE_EXPONENT
    return redo_scaled(result, redo, hi, lo, xp.maximum(k, 0), lambda h, l, rows: variances(
        device, h, l, per_row(dof, rows), fma, add, per_row(nan, rows)), power=2)


def std(a, axis=None, ddof=0, keepdims=False, *, fma=None, add=None) -> DDArray:
    """sqrt(var(...)): var's bound, then sqrt's 6u^2 relative (and half var's relative error)."""
    return sqrt(var(a, axis, ddof, keepdims, fma=fma, add=add), fma=fma, add=add)


def _scan(kernel: str, a, axis, fma, add) -> DDArray:
    (a,) = operands(a)
    ax = single_axis(axis, a.ndim, kernel)
    source = a.ravel() if ax is None else a
    ax = 0 if ax is None else ax
    hi, lo, out_shape = reduction_rows(source, (ax,))
    xp = a.xp
    rows, length = hi.shape
    out_hi, out_lo = xp.empty_like(hi), xp.empty_like(lo)
    be = _backend.backend(a.device)
    be.launch(f"ddblas_reduce_{kernel}_{resolve(fma, add).suffix}", rows, rows, length, hi, lo,
              out_hi, out_lo)
    moved = out_shape + (length,)
    return DDArray(xp.moveaxis(out_hi.reshape(moved), -1, ax),
                   xp.moveaxis(out_lo.reshape(moved), -1, ax), normalize=False)


def cumsum(a, axis=None, *, fma=None, add=None) -> DDArray:
    """Cumulative sums along axis (of the flattened array when None), each prefix accumulated
    left to right in DD (CPU == GPU bitwise). Prefix of i terms: error <= (i - 1) c_add GROWTH
    sum_{k<=i} |x_k| (sum's bound)."""
    return _scan("cumsum", a, axis, fma, add)


def cumprod(a, axis=None, *, fma=None, add=None) -> DDArray:
    """Cumulative products along axis (flattened when None), left to right in DD. Prefix of i
    factors: relative error <= (1 + c_mul)^(i-1) - 1 (finite, no underflow)."""
    return _scan("cumprod", a, axis, fma, add)


# ---- truth ----
def truth(a):
    """a != 0 elementwise: of a DDArray, its hi parts (a normalised DD is 0 iff hi is; NaN is
    true, as in NumPy), or a non-finite lo (a pair wrapped with normalize=False, read as
    normalisation makes it: (0, nan) is nan, (0, inf) inf); of numeric or bool arrays,
    NumPy/CuPy's truth; anything else (strings, Fractions, lists of them) read as numbers as
    ddblas.array reads them ("0" is zero, where Python's truth of a non-empty string is True)."""
    if isinstance(a, DDArray):
        return (a.hi != 0) | ~a.xp.isfinite(a.lo)
    values = array_module(a).asarray(a)
    if values.dtype.kind in "biufc":
        return values.astype(bool)
    return operands(a)[0].hi != 0


def all(a, axis=None, keepdims=False):  # noqa: A001
    """Whether every element over the given axes is nonzero (a bool NumPy/CuPy array)."""
    truth_values = truth(a)
    return truth_values.all(axis=reduction_axes(axis, truth_values.ndim), keepdims=keepdims)


def any(a, axis=None, keepdims=False):  # noqa: A001
    """Whether some element over the given axes is nonzero (a bool NumPy/CuPy array)."""
    truth_values = truth(a)
    return truth_values.any(axis=reduction_axes(axis, truth_values.ndim), keepdims=keepdims)


def nonzero(a) -> tuple:
    """The indices of a's nonzero elements (truth: NaN is nonzero, -0.0 is zero), one int64
    NumPy/CuPy array per axis, in C order, as numpy.nonzero; NumPy's ValueError for a 0-d
    array."""
    truth_values = truth(a)
    if truth_values.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead.")
    return truth_values.nonzero()


def flatnonzero(a):
    """The indices of the nonzero elements of a flattened, as numpy.flatnonzero."""
    return truth(a).ravel().nonzero()[0]


def argwhere(a):
    """The indices of the nonzero elements, one row (of a.ndim entries) each, as numpy.argwhere:
    an int64 (count, a.ndim) array; a 0-d array gives (1, 0) or (0, 0), as NumPy's."""
    truth_values = truth(a)
    if truth_values.ndim == 0:
        return array_module(truth_values).argwhere(truth_values.reshape(1))[:, :0]
    return array_module(truth_values).argwhere(truth_values)


def count_nonzero(a, axis=None, *, keepdims=False):
    """The count of nonzero elements over the given axes (all by default), as
    numpy.count_nonzero: an int64 NumPy/CuPy array (a NumPy integer for a count over every
    axis)."""
    truth_values = truth(a)
    return truth_values.sum(axis=reduction_axes(axis, truth_values.ndim), dtype=np.intp,
                            keepdims=keepdims)


# ---- NumPy protocol (NEP 18) ----
def numpy_signature(func, *names, result: str = "dd"):
    """func(a, ...) called with NumPy's positional parameters `names` after a. dtype= may be
    None or ddblas.dd (other dtypes raise: the arithmetic is DD). out= as NumPy's reductions
    take it: an array of exactly the result's shape (keepdims included), possibly the operand
    (the result is computed first), written and returned; a DDArray for a DD result (`result`
    "dd"), for bools ("bool") a DDArray (0 and 1) or an array of any dtype (NumPy's unsafe
    cast), for indices ("index") an integer array (other dtypes raise, as NumPy's)."""
    routine = f"{func.__name__}()"

    def call(a, *args, **kwargs):
        if len(args) > len(names):
            raise TypeError(f"ddblas: {routine} takes at most {len(names) + 1} positional "
                            f"arguments")
        for name, value in zip(names, args):
            if name in kwargs:
                raise TypeError(f"{func.__name__}() got multiple values for argument '{name}'")
            kwargs[name] = value
        dtype = kwargs.pop("dtype", None)
        if dtype is not None and not dd == dtype:
            raise TypeError(f"ddblas: {routine} does not support dtype={dtype!r} on DDArrays "
                            f"(None or ddblas.dd: its arithmetic is DD)")
        out = output_argument(kwargs.pop("out", None), routine, result == "dd")
        if result == "index" and out is not None and (
                isinstance(out, DDArray) or out.dtype.kind not in "iu"):
            raise TypeError(f"ddblas: {routine}: out= must be an integer array, got "
                            f"{'a DDArray' if isinstance(out, DDArray) else out.dtype}")
        return store_exact_output(func(a, **kwargs), out, routine, "NumPy's rule for "
                                  "reductions: the result's shape", casting="unsafe")
    return call


register_functions({
    np.sum: numpy_signature(dd_sum, "axis", "dtype", "out", "keepdims", "initial", "where"),
    np.max: numpy_signature(max, "axis", "out", "keepdims", "initial", "where"),
    np.amax: numpy_signature(max, "axis", "out", "keepdims", "initial", "where"),
    np.min: numpy_signature(min, "axis", "out", "keepdims", "initial", "where"),
    np.amin: numpy_signature(min, "axis", "out", "keepdims", "initial", "where"),
    np.argmax: numpy_signature(argmax, "axis", "out", result="index"),
    np.argmin: numpy_signature(argmin, "axis", "out", result="index"),
    np.prod: numpy_signature(prod, "axis", "dtype", "out", "keepdims", "initial", "where"),
    np.mean: numpy_signature(mean, "axis", "dtype", "out", "keepdims"),
    np.cumsum: numpy_signature(cumsum, "axis", "dtype", "out"),
    np.cumprod: numpy_signature(cumprod, "axis", "dtype", "out"),
    np.var: numpy_signature(var, "axis", "dtype", "out", "ddof", "keepdims"),
    np.std: numpy_signature(std, "axis", "dtype", "out", "ddof", "keepdims"),
    np.all: numpy_signature(all, "axis", "out", "keepdims", result="bool"),
    np.any: numpy_signature(any, "axis", "out", "keepdims", result="bool"),
    np.nonzero: nonzero, np.flatnonzero: flatnonzero, np.argwhere: argwhere,
    np.count_nonzero: count_nonzero,
})
register_operations(max=max, min=min, argmax=argmax, argmin=argmin, prod=prod, mean=mean,
                    var=var, std=std, cumsum=cumsum, cumprod=cumprod, all=all, any=any)
