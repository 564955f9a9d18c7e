"""Building and reshaping DDArrays with NumPy's names and semantics: concatenate, stack, hstack,
vstack, where, diag, diagonal, tril, triu, sort, argsort, flip, roll, broadcast_to, the *_like
constructors (data movement on the hi and lo parts alike, exact), outer, arange, linspace,
isclose, allclose (DD arithmetic by the kernels of core.ops). Inputs: DDArrays, float64 arrays
and Python/NumPy scalars (converted exactly), on one device.
"""
from __future__ import annotations

import math
import numbers
import operator

import numpy as np

from ..engines.backend import broadcast_shape, check_device, device_of_array
from .array import DDArray, array, full, shape_stand_in
from .convert import dd_to_fraction
from .ops import (absolute, axis_error, divide, equal, less_equal, multiply, operands,
                  output_argument, register_functions, scale, store_exact_output, store_output)
from .ops import add as dd_add
from .ops import subtract
from .reductions import nonzero
from .shaping import on_parts

# isclose's defaults: |a - b| <= ATOL + RTOL |b|. RTOL = 2^-100 = 64 u^2 (u = 2^-53) leaves room
# for a few dozen DD roundings; ATOL = 2^-200 only decides comparisons with (nearly) zero.
RTOL = 2.0 ** -100
ATOL = 2.0 ** -200


def _joined(name: str, arrays, *args, **kwargs) -> DDArray:
    """xp.<name> (concatenate, stack, ...) of the sequence `arrays` on their hi and lo parts (a
    DDArray: its slices along the first axis, as NumPy takes an array)."""
    if isinstance(arrays, DDArray) and arrays.ndim:
        arrays = [arrays[i] for i in range(arrays.shape[0])]
    if isinstance(arrays, DDArray) or not isinstance(arrays, (list, tuple)):
        raise TypeError(f"{name}() takes a sequence of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError("need at least one array to " + name)
    xs = operands(*arrays)
    if name == "concatenate" and kwargs.get("axis", 0) is not None and \
            any(x.ndim == 0 for x in xs):   # NumPy's error (CuPy raises a TypeError)
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    join = getattr(xs[0].xp, name)
    return DDArray(join([x.hi for x in xs], *args, **kwargs),
                   join([x.lo for x in xs], *args, **kwargs), normalize=False)


def concatenate(arrays, axis=0, out=None) -> DDArray:
    """Join arrays along an existing axis (None: flattened first), as numpy.concatenate.

    Parameters
    ----------
    arrays : sequence of DDArray or array_like
        DDArrays, float64 arrays and scalars (converted exactly) of one device, with equal
        shapes but along `axis`.
    axis : int or None, optional
        The axis joined along (default 0); None flattens the arrays first.
    out : DDArray, optional
        Where to write the result (NumPy's rule: exactly the result's shape, a ValueError
        naming out= otherwise; a float64 array is a TypeError, it would drop lo; it may be one
        of the arrays: the result is computed first).

    Returns
    -------
    DDArray
        The joined array, out when given.
    """
    out = output_argument(out, "concatenate()", dd_result=True)
    return store_exact_output(_joined("concatenate", arrays, axis=axis), out, "concatenate()",
                              "NumPy's rule: exactly the result's shape")


def stack(arrays, axis=0) -> DDArray:
    """Join arrays of one shape along a new axis, as numpy.stack."""
    return _joined("stack", arrays, axis=axis)


def hstack(tup) -> DDArray:
    """Stack arrays column-wise, as numpy.hstack."""
    return _joined("hstack", tup)


def vstack(tup) -> DDArray:
    """Stack arrays row-wise, as numpy.vstack."""
    return _joined("vstack", tup)


def where(condition, x=None, y=None):
    """x where condition is true, else y (numpy.where; DD, float64 or scalar values, broadcast);
    with condition alone, nonzero(condition): the indices of its nonzero elements (a tuple of
    index arrays; a condition that is not a number array is converted to DD first, as with x
    and y)."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("where() takes condition alone or condition, x and y")
    if isinstance(condition, DDArray):
        condition = condition.hi != 0
    truth, x, y = operands(condition, x, y)
    truth = truth.hi != 0
    xp = x.xp
    return DDArray(xp.where(truth, x.hi, y.hi), xp.where(truth, x.lo, y.lo), normalize=False)


def diag(v, k=0) -> DDArray:
    """The k-th diagonal of a 2-D array (a view, read-only on the CPU, as numpy.diag's), or a
    2-D array with v on it (numpy.diag)."""
    (v,) = operands(v)
    return on_parts(v.xp.diag, v, k)


def diagonal(a, offset=0, axis1=0, axis2=1) -> DDArray:
    """The given diagonals, as numpy.diagonal (a view, read-only on the CPU); NumPy's errors on
    both devices (CuPy's differ: an IndexError for axis1 == axis2), from NumPy's diagonal of a
    stand-in of a's shape (array.shape_stand_in: nothing is allocated)."""
    (a,) = operands(a)
    np.diagonal(shape_stand_in(a.shape), offset, axis1, axis2)
    return on_parts(a.xp.diagonal, a, offset, axis1, axis2)


def tril(m, k=0) -> DDArray:
    """m with the elements above the k-th diagonal zeroed (numpy.tril)."""
    (m,) = operands(m)
    return on_parts(m.xp.tril, m, k)


def triu(m, k=0) -> DDArray:
    """m with the elements below the k-th diagonal zeroed (numpy.triu)."""
    (m,) = operands(m)
    return on_parts(m.xp.triu, m, k)


def flip(m, axis=None) -> DDArray:
    """m reversed along the given axes (all by default), a view (numpy.flip)."""
    (m,) = operands(m)
    return on_parts(m.xp.flip, m, axis)


def roll(a, shift, axis=None) -> DDArray:
    """a's elements shifted cyclically along axis (flattened when None), as numpy.roll."""
    (a,) = operands(a)
    return on_parts(a.xp.roll, a, shift, axis)


def broadcast_to(array, shape) -> DDArray:  # noqa: A002  (NumPy's name)
    """A view of array broadcast to shape (numpy.broadcast_to; read-only on the CPU, where
    NumPy enforces it; CuPy has no read-only arrays: do not write to it on the GPU)."""
    (a,) = operands(array)
    return on_parts(a.xp.broadcast_to, a, shape)


def outer(a, b, out=None, *, fma=None, add=None) -> DDArray:
    """The outer product of a and b (flattened), each element a DD multiply (mul's bound).

    Parameters
    ----------
    a, b : DDArray or array_like
        The operands, flattened (DD, float64 or Python numbers; one device).
    out : DDArray, optional
        Where to write the (a.size, b.size) result, as numpy.outer's out (that of the ufunc
        multiply): a shape the result broadcasts to, a ValueError naming out= otherwise; a
        float64 array is a TypeError (it would drop lo); it may be an operand (the products
        are computed first).
    fma, add : optional
        The arithmetic variant (ddblas.options); None takes the active options.

    Returns
    -------
    DDArray
        result[i, j] = a.ravel()[i] * b.ravel()[j]; out when given.
    """
    out = output_argument(out, "outer()", dd_result=True)
    a, b = operands(a, b)
    result = multiply(a.ravel()[:, None], b.ravel()[None, :], fma=fma, add=add)
    if out is None:
        return result
    try:
        fits = broadcast_shape(result.shape, out.shape) == out.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"ddblas: outer(): out= has shape {out.shape}, which the result's "
                         f"{result.shape} does not broadcast to (numpy.outer's rule, that of "
                         f"the ufunc multiply's out)")
    return store_output(result, out)


# ---- sorting: (hi, lo) lexicographic order is DD order (core.reductions) ----
def _check_sort_options(kind, order, stable) -> None:
    """NumPy's checks of sort's and argsort's kind=, order= and stable=, which change nothing
    here (the DD sort is stable whatever they ask): kind None or a str (or bytes) starting with
    q, h, m or s in either case, as NumPy reads it ('quicksort', 'quick', 'heap', 'stable'...),
    not given with stable; order None (a DDArray has no fields)."""
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if kind is None:
        return
    if not isinstance(kind, (str, bytes)):
        raise TypeError(f"sort kind must be str, not {type(kind).__name__}")
    letter = kind[:1].decode("latin-1") if isinstance(kind, bytes) else kind[:1]
    if letter.lower() not in ("q", "h", "m", "s"):
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")
    if stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. Use "
                         "only one of them.")


def argsort(a, axis=-1, kind=None, order=None, *, stable=None) -> object:
    """Indices that sort a along axis (flattened when None) in DD order, stable (whatever kind
    and stable say), NaNs last in their original order, as numpy.argsort; a 0-d array is read
    as its 1-element ravel, as NumPy's. kind=, order= and stable= are checked as NumPy checks
    them (order must be None). An int64 NumPy/CuPy array."""
    _check_sort_options(kind, order, stable)
    (a,) = operands(a)
    a = DDArray(a.hi, a.lo)   # pairs wrapped unnormalised, (1, nan) say, as normalised (no copy)
    if axis is None or a.ndim == 0:
        a, axis = a.ravel(), 0 if axis is None else axis
    xp = a.xp
    # Sort by lo, then stably by hi: a lexsort. NaNs (hi NaN) get lo key 0 so that the second
    # sort keeps them in their original order.
    lo_key = xp.where(xp.isnan(a.hi), 0.0, a.lo)
    by_lo = xp.argsort(lo_key, axis=axis, kind="stable")
    by_hi = xp.argsort(xp.take_along_axis(a.hi, by_lo, axis), axis=axis, kind="stable")
    return xp.take_along_axis(by_lo, by_hi, axis)


def sort(a, axis=-1, kind=None, order=None, *, stable=None) -> DDArray:
    """A sorted copy of a along axis (flattened when None) in DD order, NaNs last, stable
    (numpy.sort; kind=, order= and stable= as argsort)."""
    _check_sort_options(kind, order, stable)
    (a,) = operands(a)
    a = DDArray(a.hi, a.lo)   # as argsort
    if axis is None:
        a, axis = a.ravel(), 0
    elif a.ndim == 0:   # NumPy's error (argsort reads a 0-d array as 1-d)
        raise axis_error(operator.index(axis), 0)
    indices = argsort(a, axis)
    return on_parts(a.xp.take_along_axis, a, indices, axis)


# ---- like-constructors ----
def full_like(a, fill_value, *, shape=None) -> DDArray:
    """A DDArray of a's shape (or `shape`) and device filled with fill_value (any scalar
    ddblas.array converts exactly, e.g. "0.1")."""
    device = a.device if isinstance(a, DDArray) else device_of_array(a)
    return full(np.shape(a) if shape is None else shape, fill_value, device)


def zeros_like(a, *, shape=None) -> DDArray:
    """full_like(a, 0)."""
    return full_like(a, 0.0, shape=shape)


def ones_like(a, *, shape=None) -> DDArray:
    """full_like(a, 1)."""
    return full_like(a, 1.0, shape=shape)


def empty_like(a, *, shape=None) -> DDArray:
    """zeros_like(a): a DDArray holds normalised pairs, so it is never left uninitialised."""
    return full_like(a, 0.0, shape=shape)


# ---- ranges ----
def _scalar(value, name: str, device) -> DDArray:
    x = array(value, device=device)
    if x.ndim != 0:
        raise ValueError(f"{name} must be a scalar, got shape {x.shape}")
    if not bool(x.xp.isfinite(x.hi)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def _exact(x: DDArray):
    return dd_to_fraction(float(x.hi), float(x.lo))


def _downscale(magnitude_exponent: int) -> int:
    """k >= 0 with 2^(magnitude_exponent - k) <= 2^1022: the power of two by which a range is
    computed scaled down when its intermediate products would pass DBL_MAX (the scalings are
    exact, and with k = 0 nothing is scaled)."""
    return max(0, magnitude_exponent - 1022)


def _exponent(x: DDArray) -> int:
    """e with |x| < 2^e (x finite; 0 for x = 0 gives e = 0)."""
    return math.frexp(float(x.hi))[1]


def arange(start, stop=None, step=1, *, device=None, fma=None, add=None) -> DDArray:
    """start + i*step for i = 0, 1, ... while below stop (above for step < 0), as numpy.arange
    with DD start, stop and step (any scalars ddblas.array converts, e.g. "0.1"). The count is
    exact (ceil((stop - start) / step) in rational arithmetic, below 2^53); each value is a DD
    mul (i exact) then a DD add: |err| <= (c_add + c_mul + c_add c_mul)(|start| + |i step|), so
    a value just below stop can round to stop: arange(0, 1, "0.1") has 11 values (the DD
    nearest 0.1 is below 1/10) and the last is 1.0 (NumPy's float 0.1 is above: 10 values)."""
    device = check_device(device or "cpu")
    if stop is None:
        start, stop = 0, start
    start, stop, step = (_scalar(v, n, device) for v, n in ((start, "start"), (stop, "stop"),
                                                             (step, "step")))
    if float(step.hi) == 0:
        raise ZeroDivisionError("arange step must not be zero")
    count = max(math.ceil((_exact(stop) - _exact(start)) / _exact(step)), 0)
    if count >= 2 ** 53:
        size = str(count) if count < 10 ** 20 else f"about 10^{len(str(count)) - 1}"
        raise ValueError(f"arange would have {size} elements, more than 2^53")
    index = start.xp.arange(count, dtype=np.float64)
    # i step may pass DBL_MAX where start + i step does not: computed 2^k smaller then
    k = _downscale(max(_exponent(start), _exponent(step) + count.bit_length()) + 1)
    if k:
        start, step = scale(start, -k), scale(step, -k)
    values = dd_add(start, multiply(index, step, fma=fma, add=add), fma=fma, add=add)
    return scale(values, k) if k else values


def linspace(start, stop, num=50, endpoint=True, retstep=False, *, device=None, fma=None,
             add=None):
    """num evenly spaced DD values from start to stop (stop included when endpoint), as
    numpy.linspace: y_i = start + (i (stop - start)) / d with d = num - 1 (endpoint) or num, a DD
    sub, mul (i exact), div and add; the first value is start itself, the last stop itself when
    endpoint. |err| <=
    (2 c_add + c_mul + c_div) GROWTH (|start| + |stop|) (docs/algorithms.md, "linspace");
    linspace(0, 1, 11)[3] is the DD nearest 0.3. retstep: also (stop - start) / d, a DD div."""
    if not isinstance(num, numbers.Integral) or isinstance(num, (bool, np.bool_)):
        raise TypeError(f"num must be an int, got {num!r}")
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    num = int(num)   # a NumPy integer too (it has no bit_length)
    device = check_device(device or "cpu")
    start, stop = _scalar(start, "start", device), _scalar(stop, "stop", device)
    opts = {"fma": fma, "add": add}
    div = num - 1 if endpoint else num
    # stop - start and i (stop - start) may pass DBL_MAX where the values do not: computed 2^k
    # smaller then (NumPy returns inf and nan there)
    k = _downscale(max(_exponent(start), _exponent(stop)) + 1 + max(num, 1).bit_length())
    low, high = (scale(x, -k) for x in (start, stop)) if k else (start, stop)
    delta = subtract(high, low, **opts)
    if num == 1:
        values = start.reshape(1).copy()
    else:
        index = start.xp.arange(num, dtype=np.float64)
        values = dd_add(low, divide(multiply(index, delta, **opts), float(div), **opts), **opts)
        values = scale(values, k) if k else values
        if num > 0:   # start itself (the scaling took a subnormal start's bits)
            values[0] = start
        if endpoint and num > 1:
            values[-1] = stop
    if retstep:  # NaN when there is no step (num <= 1 with endpoint, num = 0), as NumPy
        step = divide(delta, float(div), **opts) if div > 0 else full((), np.nan, device)
        return values, (scale(step, k) if k and div > 0 else step)
    return values


# ---- tolerant comparison ----
def isclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=False):
    """|a - b| <= atol + rtol |b| elementwise in DD (numpy.isclose's rule: infinities close
    only to themselves, NaN to nothing unless equal_nan). Defaults: rtol = 2^-100 (64 u^2), atol
    = 2^-200; rtol and atol may be DD scalars ("1e-30"). The sides carry DD roundings of a few
    u^2 relative (sub, mul, add). A bool NumPy/CuPy array."""
    a, b, rtol, atol = operands(a, b, rtol, atol)
    xp = a.xp
    tolerance = dd_add(atol, multiply(rtol, absolute(b)))
    close = less_equal(absolute(subtract(a, b)), tolerance) & xp.isfinite(b.hi)
    close |= equal(a, b)
    if equal_nan:
        close |= xp.isnan(a.hi) & xp.isnan(b.hi)
    return close


def allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=False) -> bool:
    """Whether isclose(a, b, ...) holds everywhere."""
    return bool(isclose(a, b, rtol, atol, equal_nan).all())


register_functions({
    np.concatenate: concatenate, np.stack: stack, np.hstack: hstack, np.vstack: vstack,
    np.where: where, np.diag: diag, np.diagonal: diagonal, np.outer: outer, np.tril: tril,
    np.triu: triu, np.sort: sort, np.argsort: argsort, np.flip: flip, np.roll: roll,
    np.broadcast_to: broadcast_to, np.full_like: full_like, np.zeros_like: zeros_like,
    np.ones_like: ones_like, np.empty_like: empty_like, np.isclose: isclose,
    np.allclose: allclose,
})
