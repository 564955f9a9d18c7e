"""NaN-ignoring reductions (nansum, nanprod, nanmax, nanmin, nanargmax, nanargmin, nanmean,
nanvar, nanstd) and order statistics (median, quantile, percentile; method "linear" only) of
DDArrays, with NumPy's semantics, built on the device-agnostic operations of core.ops,
core.reductions and core.building (no kernels of their own, so both devices give the same
bits).

A NaN is a DD whose hi part is NaN (ddblas.isnan; a normalised DD with a NaN part has a NaN hi).
Each nan-reduction is the plain reduction of the array with its NaNs replaced by the
reduction's identity (0 for sums, 1 for products, -inf/+inf for max/min) through
ddblas.where, so its bits are that reduction's on the replaced array; for the mean and
variance the divisors are the counts of non-NaN terms. A DD addition with a zero operand is
exact (normalised operands), as is a product by 1, so the bounds are the plain reductions'
with n = the count of the non-NaN terms (docs/algorithms.md, "NaN-ignoring reductions").
"""
from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np

from ..engines.backend import array_module
from .array import DDArray, array, full
from .building import sort, where
from .convert import dd_to_fraction
from .ops import (add as dd_add, isnan, kept_dims, multiply, normalize_axes, operands,
                  reduction_axes, reduction_rows, register_functions, row_sums, scale, sqrt,
                  subtract)
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
def median(a, axis=None, keepdims=False, overwrite_input=False, *, fma=None,
           add=None) -> DDArray:
    """Median over the given axes (all by default), as numpy.median: the middle value of each
    slice sorted by ddblas.sort (exact) for an odd count; for an even count the DD mean of the
    two middle values x, y: one DD add and one exact halving, (x + y)/2 with add's error only
    (c_add (|x| + |y|) / 2; exact halving unless the result is below 2^-1021 and loses bits
    below 2^-1074); where x + y overflows from finite x, y, x/2 + y/2 instead (the same bound,
    no overflow; NumPy gives inf). A slice holding a NaN gives NaN; an empty one NaN with
    NumPy's RuntimeWarning "Mean of empty slice". overwrite_input is accepted and ignored
    (the input is never changed)."""
    a, axes, hi, lo, out_shape = _reduction_rows(a, axis)
    rows, n = hi.shape
    if n == 0:
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
        result = full(out_shape, np.nan, a.device)
    else:
        s = sort(DDArray(hi, lo, normalize=False), axis=1)
        if n % 2:
            mid = s[:, n // 2]
        else:
            x, y = s[:, n // 2 - 1], s[:, n // 2]
            mid = scale(dd_add(x, y, fma=fma, add=add), -1)
            xp = a.xp
            rescue = ~xp.isfinite(mid.hi) & xp.isfinite(x.hi) & xp.isfinite(y.hi)
            if bool(rescue.any()):
                halves = dd_add(scale(x, -1), scale(y, -1), fma=fma, add=add)
                mid = where(rescue, halves, mid)
        mid = where(isnan(s[:, n - 1]), np.nan, mid)   # NaNs sort last
        result = mid.reshape(out_shape)
    return kept_dims(result, a.shape, axes) if keepdims else result


def _quantile_fractions(q, scale: int, name: str) -> tuple:
    """q (a scalar or array-like of floats, ints, strings, DDs...) as exact Fractions q/scale
    with q's shape; a ValueError unless all lie in [0, 1] (NumPy's message)."""
    if isinstance(q, DDArray):
        values = q.to_device("cpu")
    else:
        values = operands(q.get() if hasattr(q, "get") else q)[0].to_device("cpu")
    fractions = [dd_to_fraction(float(h), float(lo)) / scale
                 if np.isfinite(h) else None
                 for h, lo in zip(np.asarray(values.hi).ravel(), np.asarray(values.lo).ravel())]
    if not all(f is not None and 0 <= f <= 1 for f in fractions):
        raise ValueError(f"{name} must be in the range [0, {scale}]")
    return fractions, values.shape


def _quantiles(a, q_fractions, q_shape, axis, keepdims, fma, add) -> DDArray:
    a, axes, hi, lo, out_shape = _reduction_rows(a, axis)
    rows, n = hi.shape
    if n == 0:
        raise IndexError("index -1 is out of bounds for axis 0 with size 0 (a quantile of an "
                         "empty slice, NumPy's error)")
    s = sort(DDArray(hi, lo, normalize=False), axis=1)
    has_nan = isnan(s[:, n - 1])   # NaNs sort last
    results = []
    for f in q_fractions:
        virtual = f * (n - 1)              # exact: NumPy's (n - 1) q without its rounding
        j = int(virtual)                   # floor (virtual >= 0)
        gamma = virtual - j
        x = s[:, j]
        if gamma == 0:
            value = x
        else:
            y = s[:, j + 1]
            d = subtract(y, x, fma=fma, add=add)
            if gamma < Fraction(1, 2):     # NumPy's _lerp: from the nearer end
                value = dd_add(x, multiply(d, array(gamma, device=a.device), fma=fma, add=add),
                               fma=fma, add=add)
            else:
                value = subtract(y, multiply(d, array(1 - gamma, device=a.device), fma=fma,
                                             add=add), fma=fma, add=add)
        results.append(where(has_nan, np.nan, value))
    xp = a.xp
    stacked = DDArray(xp.stack([r.hi for r in results]), xp.stack([r.lo for r in results]),
                      normalize=False)
    shape = out_shape if not keepdims else tuple(1 if d in axes else m
                                                 for d, m in enumerate(a.shape))
    return stacked.reshape(tuple(q_shape) + shape)


def _linear_only(method, weights, interpolation) -> None:
    if method != "linear":
        raise ValueError(f"ddblas: method={method!r} is not supported (only method='linear', "
                         f"NumPy's default)")
    if weights is not None:
        raise ValueError("ddblas: weights= is not supported")
    if interpolation is not None:
        raise ValueError("ddblas: interpolation= is not supported (NumPy's deprecated name "
                         "for method; only 'linear')")


def quantile(a, q, axis=None, overwrite_input=False, method="linear", keepdims=False, *,
             weights=None, interpolation=None, fma=None, add=None) -> DDArray:
    """The q-th quantiles (q in [0, 1], a scalar or array: its shape comes first in the
    result's) over the given axes, as numpy.quantile with method="linear" (the only one: other
    methods, weights= and interpolation= are a ValueError naming them). Each slice is sorted by
    ddblas.sort; with the exact virtual index q (n - 1) = j + g (NumPy rounds it to float64),
    the value is x_j exactly where g = 0, else NumPy's lerp in DD: x_j + (x_{j+1} - x_j) g for
    g < 1/2, x_{j+1} - (x_{j+1} - x_j)(1 - g) otherwise (g as an exact DD): error <= (2 c_add +
    c_mul) GROWTH (|x_j| + |x_{j+1}|). A slice holding a NaN gives NaN; an empty slice an
    IndexError, as NumPy's. overwrite_input is accepted and ignored."""
    _linear_only(method, weights, interpolation)
    fractions, q_shape = _quantile_fractions(q, 1, "Quantiles")
    return _quantiles(a, fractions, q_shape, axis, keepdims, fma, add)


def percentile(a, q, axis=None, overwrite_input=False, method="linear", keepdims=False, *,
               weights=None, interpolation=None, fma=None, add=None) -> DDArray:
    """quantile(a, q / 100, ...) with q in [0, 100] (numpy.percentile), q / 100 taken exactly
    (NumPy rounds it to float64)."""
    _linear_only(method, weights, interpolation)
    fractions, q_shape = _quantile_fractions(q, 100, "Percentiles")
    return _quantiles(a, fractions, q_shape, axis, keepdims, fma, add)


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
    np.quantile: _quantile_signature(quantile),
    np.percentile: _quantile_signature(percentile),
})
