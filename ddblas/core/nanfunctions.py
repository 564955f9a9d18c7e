"""NaN-ignoring reductions (nansum, nanprod, nanmax, nanmin, nanargmax, nanargmin, nanmean,
nanvar, nanstd) and order statistics (median, quantile, percentile with every method of
numpy.quantile, and their NaN-ignoring nanmedian, nanquantile, nanpercentile) of DDArrays, with
NumPy's semantics, built on the device-agnostic operations of core.ops, core.reductions and
core.building (no kernels of their own, so both devices give the same bits).

A NaN is a DD whose hi part is NaN (ddblas.isnan; a normalised DD with a NaN part has a NaN hi).
Each nan-reduction is the plain reduction of the array with its NaNs replaced by the
reduction's identity (0 for sums, 1 for products, -inf/+inf for max/min) through
ddblas.where, so its bits are that reduction's on the replaced array; for the mean and
variance the divisors are the counts of non-NaN terms. A DD addition with a zero operand is
exact (normalised operands), as is a product by 1, so the bounds are the plain reductions'
with n = the count of the non-NaN terms (docs/algorithms.md, "NaN-ignoring reductions").

The order statistics sort each slice (ddblas.sort: exact, NaNs last), map q and the slice's
length n (the non-NaN count for the nan-functions) to an exact rational position by NumPy's
method (_POSITIONS, Hyndman & Fan's definitions in Fractions) and read the sorted slice there:
a value exactly, the DD mean of two, or NumPy's lerp in DD (_values_at; docs/algorithms.md,
"quantile").
"""
from __future__ import annotations

import math
import warnings
from bisect import bisect_left, bisect_right
from fractions import Fraction
from itertools import accumulate

import numpy as np

from ..engines.backend import array_module, move
from .array import DDArray, full
from .building import argsort, sort, where
from .convert import dd_from_fraction, dd_to_fraction
from .ops import (add as dd_add, isnan, kept_dims, kept_shape, multiply, normalize_axes,
                  operands, reduction_axes, reduction_rows, register_functions, row_sums, scale,
                  sqrt, subtract)
from .ops import sum as dd_sum
from .reductions import (argmax, argmin, check_ddof, max, min, numpy_signature, prod,
                         single_axis, variances)


def _filled(a: DDArray, value: float) -> DDArray:
    """a with its NaNs replaced by value (ddblas.where)."""
    return where(isnan(a), value, a)


def _reduction_rows(a, axis) -> tuple:
    """(a, axes, hi, lo, out_shape): a as a DDArray read as normalised (as max reads unnormalised
    pairs), the axes, and a's (rows, n) terms with the result's shape (ops.reduction_rows)."""
    (a,) = operands(a)
    a = DDArray(a.hi, a.lo)
    axes = normalize_axes(axis, a.ndim)
    return (a, axes, *reduction_rows(a, axes))


def _nan_where(bad, x: DDArray, out_shape) -> DDArray:
    """x (one DD a row) with NaN in the rows where bad holds, shaped out_shape."""
    xp = x.xp
    return DDArray(xp.where(bad, np.nan, x.hi), xp.where(bad, np.nan, x.lo),
                   normalize=False).reshape(out_shape)


def _rows_nan(hi, lo):
    xp = array_module(hi)
    return xp.isnan(hi) | xp.isnan(lo)


def nansum(a, axis=None, keepdims=False, *, fma=None, add=None) -> DDArray:
    """Sum over the given axes treating NaNs as zero (numpy.nansum): ddblas.sum of the array with
    its NaNs replaced by 0, so its bits are that sum's. Error <= (n - 1) c_add GROWTH
    sum(|a|) with n the count of non-NaN terms (an addition of a zero is exact); 0 for an
    all-NaN or empty slice."""
    (a,) = operands(a)
    return dd_sum(_filled(a, 0.0), axis, keepdims=keepdims, fma=fma, add=add)


def nanprod(a, axis=None, keepdims=False, *, fma=None, add=None) -> DDArray:
    """Product over the given axes treating NaNs as one (numpy.nanprod): ddblas.prod of the
    array with its NaNs replaced by 1 (its bits). Relative error <= (1 + c_mul)^(n-1) - 1, n the
    count of non-NaN factors (a product by 1 is exact); 1 for an all-NaN or empty slice."""
    (a,) = operands(a)
    return prod(_filled(a, 1.0), axis, keepdims, fma=fma, add=add)


def _nan_extreme(a, axis, keepdims: bool, largest: bool) -> DDArray:
    (a,) = operands(a)
    a = DDArray(a.hi, a.lo)   # as max: unnormalised pairs read as normalised
    axes = reduction_axes(axis, a.ndim)
    if int(np.prod([a.shape[d] for d in axes], dtype=np.int64)) == 0:
        name = "fmax" if largest else "fmin"
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    nan = isnan(a)
    picked = (max if largest else min)(_filled(a, -np.inf if largest else np.inf), axes,
                                       keepdims)
    all_nan = nan.all(axis=axes, keepdims=keepdims)
    if bool(all_nan.any()):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
        picked = where(all_nan, np.nan, picked)
    return picked


def nanmax(a, axis=None, keepdims=False) -> DDArray:
    """The largest non-NaN value over the given axes (numpy.nanmax), exact: ddblas.max of the
    array with its NaNs replaced by -inf (the first largest entry's bits). An all-NaN slice
    gives NaN with NumPy's RuntimeWarning "All-NaN slice encountered"; an empty reduction a
    ValueError, as NumPy's."""
    return _nan_extreme(a, axis, keepdims, largest=True)


def nanmin(a, axis=None, keepdims=False) -> DDArray:
    """The smallest non-NaN value over the given axes (numpy.nanmin): nanmax's rules, mirrored
    (NaNs replaced by +inf)."""
    return _nan_extreme(a, axis, keepdims, largest=False)


def _nan_arg_extreme(a, axis, keepdims: bool, largest: bool):
    (a,) = operands(a)
    a = DDArray(a.hi, a.lo)
    ax = single_axis(axis, a.ndim, "nanargmax" if largest else "nanargmin")
    nan = isnan(a)
    if nan.size and bool(nan.all(axis=ax).any()):
        raise ValueError("All-NaN slice encountered")
    filled = _filled(a, -np.inf if largest else np.inf)
    return (argmax if largest else argmin)(filled, axis, keepdims)


def nanargmax(a, axis=None, keepdims=False):
    """Indices of the largest non-NaN values along axis (flattened when None), as
    numpy.nanargmax: ddblas.argmax of the array with NaNs replaced by -inf (the first
    occurrence). A ValueError "All-NaN slice encountered" where a slice is all NaN."""
    return _nan_arg_extreme(a, axis, keepdims, largest=True)


def nanargmin(a, axis=None, keepdims=False):
    """Indices of the smallest non-NaN values along axis: nanargmax's rules, mirrored."""
    return _nan_arg_extreme(a, axis, keepdims, largest=False)


def nanmean(a, axis=None, keepdims=False, *, fma=None, add=None) -> DDArray:
    """Mean of the non-NaN values over the given axes (numpy.nanmean): the DD sum of the array
    with NaNs replaced by 0 (nansum's bits, rescued from overflow as mean's), then one DD
    division by the count n of non-NaN terms: mean's bits and bound for those n terms. An
    all-NaN (or empty) slice gives NaN with NumPy's RuntimeWarning "Mean of empty slice"."""
    a, axes, hi, lo, out_shape = _reduction_rows(a, axis)
    xp = a.xp
    nan = _rows_nan(hi, lo)
    count = (~nan).sum(axis=1).astype(np.float64)
    empty = count == 0
    if bool(empty.any()):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    total = row_sums(a.device, xp.where(nan, 0.0, hi), xp.where(nan, 0.0, lo), fma, add,
                     divisor=xp.where(empty, 1.0, count))
    result = _nan_where(empty, total, out_shape)
    return kept_dims(result, a.shape, axes) if keepdims else result


def nanvar(a, axis=None, ddof=0, keepdims=False, *, fma=None, add=None) -> DDArray:
    """Variance of the non-NaN values over the given axes (numpy.nanvar): var's two passes on
    them, m = nanmean's bits, then sum (x - m)^2 with the NaNs replaced by m (a deviation and
    square exactly 0, whose addition is exact), divided by n - ddof, n the count of non-NaN
    terms: var's bits and bound for those n terms. Where n - ddof <= 0 (an all-NaN slice
    included), NaN with NumPy's RuntimeWarning "Degrees of freedom <= 0 for slice." (NumPy's
    nanvar rule; var gives inf there)."""
    check_ddof(ddof)
    a, axes, hi, lo, out_shape = _reduction_rows(a, axis)
    xp = a.xp
    nan = _rows_nan(hi, lo)
    dof = (~nan).sum(axis=1).astype(np.float64) - float(ddof)
    bad = dof <= 0
    if bool(bad.any()):
        warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=2)
    if hi.size == 0:
        result = full(out_shape, np.nan, a.device)
    else:
        v = variances(a.device, hi, lo, xp.where(bad, 1.0, dof), fma, add, nan)
        result = _nan_where(bad, v, out_shape)
    return kept_dims(result, a.shape, axes) if keepdims else result


def nanstd(a, axis=None, ddof=0, keepdims=False, *, fma=None, add=None) -> DDArray:
    """sqrt(nanvar(...)) (numpy.nanstd): nanvar's bound, then sqrt's 6u^2 relative."""
    return sqrt(nanvar(a, axis, ddof, keepdims, fma=fma, add=add), fma=fma, add=add)


# ---- order statistics ----
def _midpoint(x: DDArray, y: DDArray, fma, add) -> DDArray:
    """(x + y)/2 in DD: one DD add and an exact halving, error <= c_add (|x| + |y|)/2 (the
    halving exact unless a part falls below 2^-1021); where x + y overflows from finite x, y,
    x/2 + y/2 instead (the same bound, no overflow; NumPy gives inf)."""
    mid = scale(dd_add(x, y, fma=fma, add=add), -1)
    xp = x.xp
    rescue = ~xp.isfinite(mid.hi) & xp.isfinite(x.hi) & xp.isfinite(y.hi)
    if bool(rescue.any()):
        halves = dd_add(scale(x, -1), scale(y, -1), fma=fma, add=add)
        mid = where(rescue, halves, mid)
    return mid


def _clamped(v: Fraction, n: int) -> Fraction:
    """v clamped to [0, n - 1] (this module's max and min are the DD reductions)."""
    return Fraction(0) if v < 0 else Fraction(n - 1) if v > n - 1 else v


def _plotting_position(alpha: Fraction, beta: Fraction):
    """H&F's continuous estimators 4-9: NumPy's virtual index n q + alpha + q (1 - alpha -
    beta) - 1, exact, clamped to [0, n - 1] (NumPy takes x_0 below 0 and x_{n-1} from n - 1)."""
    return lambda q, n: _clamped(n * q + alpha + q * (1 - alpha - beta) - 1, n)


def _averaged_inverted_cdf(q: Fraction, n: int) -> Fraction:
    """H&F 2: v = n q - 1; x_{j+1} where v = j + g, g > 0; the mean of x_j and x_{j+1} where v
    is an integer j; x_0 below 0, x_{n-1} from n - 1 (NumPy's clamping)."""
    v = n * q - 1
    if v < 0 or v >= n - 1:
        return _clamped(v, n)
    j = math.floor(v)
    return j + Fraction(1, 2) if v == j else Fraction(j + 1)


def _closest_observation(q: Fraction, n: int) -> Fraction:
    """H&F 3: v = n q - 3/2 (0-based), j = floor(v): x_j where v = j is odd (H&F's nearest
    even order statistic, 1-based), else x_{j+1}; at least x_0."""
    v = n * q - Fraction(3, 2)
    j = math.floor(v)
    return _clamped(Fraction(j if v == j and j % 2 else j + 1), n)


# numpy.quantile's methods (NumPy 2.x), in its order: method -> (q, n) -> the exact position p
# in [0, n - 1] of the q-th quantile of the sorted x_0 <= ... <= x_{n-1} (_values_at reads it)
_POSITIONS = {
    "inverted_cdf": lambda q, n: _clamped(Fraction(math.ceil(n * q - 1)), n),
    "averaged_inverted_cdf": _averaged_inverted_cdf,
    "closest_observation": _closest_observation,
    "interpolated_inverted_cdf": _plotting_position(Fraction(0), Fraction(1)),
    "hazen": _plotting_position(Fraction(1, 2), Fraction(1, 2)),
    "weibull": _plotting_position(Fraction(0), Fraction(0)),
    "linear": lambda q, n: (n - 1) * q,
    "median_unbiased": _plotting_position(Fraction(1, 3), Fraction(1, 3)),
    "normal_unbiased": _plotting_position(Fraction(3, 8), Fraction(3, 8)),
    "lower": lambda q, n: Fraction(math.floor((n - 1) * q)),
    "higher": lambda q, n: Fraction(math.ceil((n - 1) * q)),
    "midpoint": lambda q, n: Fraction(math.floor((n - 1) * q) + math.ceil((n - 1) * q), 2),
    "nearest": lambda q, n: Fraction(round((n - 1) * q)),   # half to even, as np.around
}


def _values_at(s: DDArray, positions: list, which, fma, add) -> DDArray:
    """Row r of the sorted (rows, n) s at the exact position p = positions[which[r]] in
    [0, n - 1], p = j + g (j = floor(p)): x_j exactly where g = 0; the DD mean of x_j and x_{j+1}
    where g = 1/2 (_midpoint, median's); else NumPy's lerp from the nearer end in DD, with
    d = x_{j+1} - x_j and h the DD nearest min(g, 1 - g): x_j + d h for g < 1/2, x_{j+1} - d h
    for g > 1/2. which: an integer array (rows,) on s's device."""
    xp = s.xp
    rows, n = s.shape
    starts = [math.floor(p) for p in positions]
    parts = [p - j for p, j in zip(positions, starts)]
    half = Fraction(1, 2)

    def per_row(values, dtype):
        return xp.asarray(np.asarray(values, dtype=dtype))[which]

    r = xp.arange(rows)
    j = per_row(starts, np.int64)
    x = DDArray(s.hi[r, j], s.lo[r, j], normalize=False)
    if not any(parts):
        return x
    k = xp.minimum(j + 1, n - 1)   # rows with g = 0 at j = n - 1 do not use y
    y = DDArray(s.hi[r, k], s.lo[r, k], normalize=False)
    kind = per_row([0 if g == 0 else 1 if g == half else 2 if g < half else 3 for g in parts],
                   np.int8)
    value = x
    if half in parts:
        value = where(kind == 1, _midpoint(x, y, fma, add), value)
    if any(g not in (0, half) for g in parts):
        nearest = [dd_from_fraction(g if g < half else 1 - g) for g in parts]
        h = DDArray(per_row([v[0] for v in nearest], np.float64),
                    per_row([v[1] for v in nearest], np.float64), normalize=False)
        step = multiply(subtract(y, x, fma=fma, add=add), h, fma=fma, add=add)
        value = where(kind == 2, dd_add(x, step, fma=fma, add=add), value)
        value = where(kind == 3, subtract(y, step, fma=fma, add=add), value)
    return value


def _weighted_picks(w_hi, w_lo, counts: list, fractions: list) -> np.ndarray:
    """The inverted CDF of weighted rows: for each q (a Fraction) and row r of the weights
    (host (rows, n) arrays in the order of the sorted values, the first counts[r] used), the
    first i with W_i >= q W and W_i > 0, W_i = w_0 + ... + w_i exactly and W the row's total
    (NumPy searches its cdf W_i / W rounded to float64). A ValueError (NumPy's) for a used
    weight that is not finite or a row whose weights are all zero."""
    picks = np.zeros((len(fractions), len(counts)), dtype=np.int64)
    for r, c in enumerate(counts):
        if c == 0:
            continue
        if not np.isfinite(w_hi[r, :c]).all():
            raise ValueError("Weights included NaN, inf or were all zero.")
        cumulative = list(accumulate(map(dd_to_fraction, w_hi[r, :c].tolist(),
                                         w_lo[r, :c].tolist())))
        total = cumulative[-1]
        if total == 0:
            raise ValueError("Weights included NaN, inf or were all zero.")
        for k, f in enumerate(fractions):
            target = f * total
            picks[k, r] = (bisect_left(cumulative, target) if target > 0
                           else bisect_right(cumulative, 0))
    return picks


def _order_statistics(a, fractions: list, q_shape: tuple, axis, keepdims: bool, method: str,
                      weights, skip_nan: bool, fma, add, empty_slice: str | None = None):
    """The quantiles `fractions` (exact, q's shape q_shape first in the result's) of each slice
    of a over axis by `method` (_POSITIONS); weights: None or a host DDArray of a's shape
    (_checked_weights; method "inverted_cdf"). skip_nan: NaNs are left out (n = the count of
    the others; an all-NaN slice gives NaN with NumPy's RuntimeWarning), else a slice holding a
    NaN gives NaN. An empty slice gives NaN with the RuntimeWarning empty_slice, or NumPy's
    IndexError where that is None."""
    a, axes, hi, lo, out_shape = _reduction_rows(a, axis)
    rows, n = hi.shape
    shape = tuple(q_shape) + (kept_shape(a.shape, axes) if keepdims else out_shape)
    if n == 0:
        if empty_slice is None:
            raise IndexError("index -1 is out of bounds for axis 0 with size 0 (a quantile of "
                             "an empty slice, NumPy's error)")
        warnings.warn(empty_slice, RuntimeWarning, stacklevel=3)
        return full(shape, np.nan, a.device)
    xp = a.xp
    nan = _rows_nan(hi, lo)
    counts = n - nan.sum(axis=1) if skip_nan else xp.full(rows, n)
    bad = counts == 0 if skip_nan else nan.any(axis=1)   # rows whose quantiles are NaN
    if skip_nan and bool(bad.any()):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)
    if weights is None:
        s = sort(DDArray(hi, lo, normalize=False), axis=1)   # NaNs last
        sizes, which = xp.unique(xp.maximum(counts, 1), return_inverse=True)
        sizes = [int(c) for c in sizes.tolist()]
        chosen = [([_POSITIONS[method](f, c) for c in sizes], which) for f in fractions]
    else:
        order = argsort(DDArray(hi, lo, normalize=False), axis=1)
        s = DDArray(xp.take_along_axis(hi, order, 1), xp.take_along_axis(lo, order, 1),
                    normalize=False)
        w_hi, w_lo, _ = reduction_rows(weights, axes)
        host_order = move(order, "cpu")
        picks = _weighted_picks(np.take_along_axis(w_hi, host_order, 1),
                                np.take_along_axis(w_lo, host_order, 1),
                                move(counts, "cpu").tolist(), fractions)
        steps = [Fraction(i) for i in range(n)]
        chosen = [(steps, xp.asarray(p)) for p in picks]
    values = [_values_at(s, positions, which, fma, add) for positions, which in chosen]
    parts = [xp.stack([getattr(v, part) for v in values]) if values else xp.empty((0, rows))
             for part in ("hi", "lo")]
    return _nan_where(bad, DDArray(*parts, normalize=False), shape)


def _quantile_fractions(q, scale: int, name: str) -> tuple:
    """q (a scalar or array-like of floats, ints, strings, DDs...) as exact Fractions q/scale
    with q's shape; a ValueError unless all lie in [0, 1] and q has at most 2 dimensions
    (NumPy's messages)."""
    if isinstance(q, DDArray):
        values = q.to_device("cpu")
    else:
        values = operands(q.get() if hasattr(q, "get") else q)[0].to_device("cpu")
    fractions = [dd_to_fraction(float(h), float(lo)) / scale
                 if np.isfinite(h) else None
                 for h, lo in zip(np.asarray(values.hi).ravel(), np.asarray(values.lo).ravel())]
    if not all(f is not None and 0 <= f <= 1 for f in fractions):
        raise ValueError(f"{name} must be in the range [0, {scale}]")
    if values.ndim > 2:
        raise ValueError("q must be a scalar or 1d")
    return fractions, values.shape


def _checked_weights(weights, a: DDArray, axis, method: str) -> DDArray:
    """weights as a host DDArray of a's shape (a 1-D or N-d array of the reduced axes' shape,
    in axis's order, spread over the others), with NumPy's checks and messages."""
    if method != "inverted_cdf":
        raise ValueError(f"Only method 'inverted_cdf' supports weights. Got: {method}.")
    (w,) = operands(weights)
    w = w.to_device("cpu")
    if w.shape != a.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = normalize_axes(axis, a.ndim)
        if w.shape != tuple(a.shape[d] for d in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        spread = tuple(m if d in axes else 1 for d, m in enumerate(a.shape))
        w = DDArray(*(np.broadcast_to(np.transpose(p, np.argsort(axes)).reshape(spread), a.shape)
                      for p in (w.hi, w.lo)), normalize=False)
    if bool((w.hi < 0).any()):
        raise ValueError("Weights must be non-negative.")
    return w


def _quantile(a, q, scale: int, name: str, axis, method, keepdims, weights, interpolation,
              skip_nan: bool, fma, add) -> DDArray:
    """quantile, percentile, nanquantile, nanpercentile and nanmedian: NumPy's checks in
    NumPy's order, then _order_statistics (the nan-functions' empty array: nanmean's NaN and
    warning, NumPy's rule)."""
    if interpolation is not None:
        raise ValueError("ddblas: interpolation= is not supported (NumPy's name for method "
                         "before 1.22, removed in NumPy 2.4): use method=")
    fractions, q_shape = _quantile_fractions(q, scale, name)
    (a,) = operands(a)
    if weights is not None:
        weights = _checked_weights(weights, a, axis, method)
    if method not in _POSITIONS:
        raise ValueError(f"{method!r} is not a valid method. Use one of: {_POSITIONS.keys()}")
    if skip_nan and a.size == 0:
        return nanmean(a, axis, keepdims, fma=fma, add=add)
    return _order_statistics(a, fractions, q_shape, axis, keepdims, method, weights, skip_nan,
                             fma, add)


def median(a, axis=None, keepdims=False, overwrite_input=False, *, fma=None,
           add=None) -> DDArray:
    """Median over the given axes (all by default), as numpy.median: quantile(a, 0.5).

    Parameters
    ----------
    a : DDArray or array_like (what ddblas.array reads: float64, ints, strings, DDs).
    axis : None, int or tuple of ints
        The axes reduced (None: all).
    keepdims : bool
        Keep the reduced axes with length 1.
    overwrite_input : bool
        Accepted and ignored (the input is never changed).
    fma, add : the arithmetic variant (default: ddblas.options).

    Returns
    -------
    DDArray of the kept axes' shape on a's device.

    Notes
    -----
    Each slice is sorted by ddblas.sort (exact). An odd count n gives the middle value exactly;
    an even count the DD mean of the two middle values x, y (one DD add and one exact halving,
    error <= c_add (|x| + |y|)/2; x/2 + y/2 where x + y overflows from finite x, y, where NumPy
    gives inf): the bits of quantile(a, 0.5), within quantile's bound. A slice holding a NaN
    gives NaN; an empty slice NaN with NumPy's RuntimeWarning "Mean of empty slice".
    """
    return _order_statistics(a, [Fraction(1, 2)], (), axis, keepdims, "linear", None, False,
                             fma, add, empty_slice="Mean of empty slice")


def nanmedian(a, axis=None, keepdims=False, overwrite_input=False, *, fma=None,
              add=None) -> DDArray:
    """Median over the given axes ignoring NaNs, as numpy.nanmedian: nanquantile(a, 0.5).

    Parameters
    ----------
    a, axis, keepdims, overwrite_input, fma, add
        As for median.

    Returns
    -------
    DDArray of the kept axes' shape on a's device.

    Notes
    -----
    median of the non-NaN values of each slice (the middle one exactly, or the DD mean of the
    two middle ones). An all-NaN slice gives NaN with NumPy's RuntimeWarning "All-NaN slice
    encountered"; an empty array nanmean's result (NaN with "Mean of empty slice"), as NumPy's.
    """
    return _quantile(a, Fraction(1, 2), 1, "Quantiles", axis, "linear", keepdims, None, None,
                     True, fma, add)


def quantile(a, q, axis=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None, interpolation=None, fma=None, add=None) -> DDArray:
    """The q-th quantiles over the given axes, as numpy.quantile (every NumPy 2.x method and
    weights=), from the exact virtual index and an interpolation in DD.

    Parameters
    ----------
    a : DDArray or array_like (what ddblas.array reads: float64, ints, strings, DDs).
    q : scalar or array_like of at most 2 dimensions, values in [0, 1]
        Floats, ints, strings or DDs, each taken exactly (NumPy rounds q to float64).
    axis : None, int or tuple of ints
        The axes reduced (None: all).
    overwrite_input : bool
        Accepted and ignored (the input is never changed).
    method : str
        NumPy's methods: "inverted_cdf", "averaged_inverted_cdf", "closest_observation",
        "interpolated_inverted_cdf", "hazen", "weibull", "linear" (default),
        "median_unbiased", "normal_unbiased" (Hyndman & Fan 1996, estimators 1-9), "lower",
        "higher", "midpoint", "nearest".
    keepdims : bool
        Keep the reduced axes with length 1.
    weights : array_like or DDArray, optional
        Non-negative weights of a's shape, or (axis given) of the reduced axes' shape in
        axis's order; method "inverted_cdf" only (NumPy's rule).
    interpolation : None
        NumPy's name for method before 1.22 (removed in NumPy 2.4): a ValueError unless None.
    fma, add : the arithmetic variant (default: ddblas.options).

    Returns
    -------
    DDArray of shape q.shape + the kept axes' shape, on a's device.

    Raises
    ------
    ValueError
        q outside [0, 1] or of more than 2 dimensions, an unknown method (naming it), weights
        with another method, of the wrong shape, negative, NaN or inf, or all zero in a slice
        (NumPy's messages).
    TypeError
        weights of another shape than a with axis=None (NumPy's).
    IndexError
        An empty slice (NumPy's).

    Notes
    -----
    Each slice x_0 <= ... <= x_{n-1} is sorted by ddblas.sort (exact, NaNs last). The method
    gives the exact rational position p = j + g (j = floor(p)) in [0, n - 1], NumPy's
    definitions evaluated exactly (NumPy rounds them in float64): "linear" (n - 1) q; the
    continuous H&F 4-9 n q + alpha + q (1 - alpha - beta) - 1 clamped to [0, n - 1], with
    alpha = beta = 1/2 ("hazen"), 0 ("weibull"), 1/3 ("median_unbiased"), 3/8
    ("normal_unbiased"), and alpha = 0, beta = 1 ("interpolated_inverted_cdf");
    "inverted_cdf" max(ceil(n q - 1), 0); "averaged_inverted_cdf" v = n q - 1 clamped, v + 1/2
    where v is an integer, else ceil(v); "closest_observation" v = n q - 3/2, j = floor(v): j
    where v = j is odd, else j + 1, at least 0; "lower" and "higher" floor and ceil of
    (n - 1) q, "midpoint" their mean, "nearest" (n - 1) q rounded half to even (np.around).
    The result is x_j exactly where g = 0; the DD mean of x_j and x_{j+1} where g = 1/2 (median's:
    one DD add, an exact halving); else NumPy's lerp from the nearer end in DD, x_j + d h for
    g < 1/2 and x_{j+1} - d h for g > 1/2, with d = x_{j+1} - x_j and h the DD nearest
    min(g, 1 - g). For every method |result - (x_j + g (x_{j+1} - x_j))| <= (2 c_add + c_mul)
    GROWTH (|x_j| + |x_{j+1}|), 0 where g = 0 (docs/algorithms.md, "quantile"). With weights:
    x_i for the first i whose exact cumulative weight W_i = w_0 + ... + w_i (in sorted order)
    reaches q W (W the slice's total) and is positive (NumPy compares its cdf W_i / W rounded
    to float64). A slice holding a NaN gives NaN. Where a neighbour is infinite, NumPy's lerp
    gives NaN at g = 0 or 1 (inf * 0) and at g = 1/2 (inf - inf), ddblas x_j, resp. the mean.
    """
    return _quantile(a, q, 1, "Quantiles", axis, method, keepdims, weights, interpolation,
                     False, fma, add)


def percentile(a, q, axis=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None, interpolation=None, fma=None, add=None) -> DDArray:
    """The q-th percentiles (q in [0, 100]) over the given axes, as numpy.percentile:
    quantile(a, q / 100, ...) with q / 100 taken exactly (NumPy rounds it to float64).

    Parameters
    ----------
    a, axis, overwrite_input, method, keepdims, weights, interpolation, fma, add
        As for quantile.
    q : scalar or array_like of at most 2 dimensions, values in [0, 100].

    Returns
    -------
    DDArray of shape q.shape + the kept axes' shape, on a's device.

    Raises
    ------
    ValueError, TypeError, IndexError
        As quantile's ("Percentiles must be in the range [0, 100]").
    """
    return _quantile(a, q, 100, "Percentiles", axis, method, keepdims, weights, interpolation,
                     False, fma, add)


def nanquantile(a, q, axis=None, overwrite_input=False, method="linear", keepdims=False, *,
                weights=None, interpolation=None, fma=None, add=None) -> DDArray:
    """The q-th quantiles over the given axes ignoring NaNs, as numpy.nanquantile: quantile of
    the non-NaN values of each slice.

    Parameters
    ----------
    a, q, axis, overwrite_input, method, keepdims, weights, interpolation, fma, add
        As for quantile (the weights of NaN values are left out with them).

    Returns
    -------
    DDArray of shape q.shape + the kept axes' shape, on a's device; for an empty a, nanmean's
    result (NumPy's rule: no q axes).

    Raises
    ------
    ValueError, TypeError
        As quantile's.

    Notes
    -----
    quantile's positions, values and bound with n = the count of the slice's non-NaN values.
    An all-NaN slice gives NaN with NumPy's RuntimeWarning "All-NaN slice encountered"; an
    empty array NaN with "Mean of empty slice" (nanmean's, as NumPy's).
    """
    return _quantile(a, q, 1, "Quantiles", axis, method, keepdims, weights, interpolation,
                     True, fma, add)


def nanpercentile(a, q, axis=None, overwrite_input=False, method="linear", keepdims=False, *,
                  weights=None, interpolation=None, fma=None, add=None) -> DDArray:
    """The q-th percentiles (q in [0, 100]) over the given axes ignoring NaNs, as
    numpy.nanpercentile: nanquantile(a, q / 100, ...) with q / 100 taken exactly.

    Parameters
    ----------
    a, axis, overwrite_input, method, keepdims, weights, interpolation, fma, add
        As for quantile.
    q : scalar or array_like of at most 2 dimensions, values in [0, 100].

    Returns
    -------
    DDArray, as nanquantile's.

    Raises
    ------
    ValueError, TypeError
        As quantile's ("Percentiles must be in the range [0, 100]").
    """
    return _quantile(a, q, 100, "Percentiles", axis, method, keepdims, weights, interpolation,
                     True, fma, add)


def _quantile_signature(func):
    """np.quantile(a, q, axis, out, overwrite_input, method, keepdims, ...) for func."""
    def by_keyword(a, q, **kwargs):
        return func(a, q, **kwargs)
    by_keyword.__name__ = func.__name__
    return numpy_signature(by_keyword, "q", "axis", "out", "overwrite_input", "method",
                            "keepdims")


register_functions({
    np.nansum: numpy_signature(nansum, "axis", "dtype", "out", "keepdims"),
    np.nanprod: numpy_signature(nanprod, "axis", "dtype", "out", "keepdims"),
    np.nanmax: numpy_signature(nanmax, "axis", "out", "keepdims"),
    np.nanmin: numpy_signature(nanmin, "axis", "out", "keepdims"),
    np.nanargmax: numpy_signature(nanargmax, "axis", "out", result="index"),
    np.nanargmin: numpy_signature(nanargmin, "axis", "out", result="index"),
    np.nanmean: numpy_signature(nanmean, "axis", "dtype", "out", "keepdims"),
    np.nanvar: numpy_signature(nanvar, "axis", "dtype", "out", "ddof", "keepdims"),
    np.nanstd: numpy_signature(nanstd, "axis", "dtype", "out", "ddof", "keepdims"),
    np.median: numpy_signature(median, "axis", "out", "overwrite_input", "keepdims"),
    np.nanmedian: numpy_signature(nanmedian, "axis", "out", "overwrite_input", "keepdims"),
    np.quantile: _quantile_signature(quantile),
    np.percentile: _quantile_signature(percentile),
    np.nanquantile: _quantile_signature(nanquantile),
    np.nanpercentile: _quantile_signature(nanpercentile),
})
