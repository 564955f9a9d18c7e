"""Building and reshaping DDArrays with NumPy's names and semantics: concatenate, stack, hstack,
vstack, where, diag, diagonal, tril, triu, flip, roll, broadcast_to, the *_like constructors
(data movement on the hi and lo parts alike, exact); sort, argsort, partition, argpartition,
searchsorted, unique and NumPy 2's unique_* (DD order: a stable argsort of the (hi, lo) pairs,
neighbours compared by the exact kernels); outer, kron, arange, linspace, isclose, allclose,
clip (DD arithmetic and exact selections by the kernels of core.ops). Inputs: DDArrays, float64 arrays
and Python/NumPy scalars (converted exactly), on one device.
"""
from __future__ import annotations

import math
import numbers
import operator
from collections import namedtuple

import numpy as np

from ..engines.backend import broadcast_shape, check_device, device_of_array, move
from .array import DDArray, array, full, shape_stand_in
from .convert import dd_to_fraction
from .ops import (absolute, axis_error, divide, equal, isnan, less_equal, maximum, minimum,
                  multiply, normalize_axes, not_equal, on_one_device, operands, output_argument,
                  register_functions, scale, store_exact_output, store_output)
from .ops import add as dd_add
from .ops import subtract
from .ops import sum as dd_sum
from .reductions import nonzero, numpy_signature
from .shaping import host_values, moveaxis, on_parts, string_choice

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
    return _store_broadcast(result, out, "outer()", "numpy.outer's rule, that of the ufunc "
                                                    "multiply's out")


def kron(a, b, *, fma=None, add=None) -> DDArray:
    """The Kronecker product of a and b, as numpy.kron: each entry one DD multiply.

    Parameters
    ----------
    a, b : DDArray or array_like
        The operands (DD, float64 or Python numbers; one device), of any dimensions: the one of
        fewer is taken with ones prepended to its shape, as NumPy does.
    fma, add : optional
        The arithmetic variant (ddblas.options); None takes the active options.

    Returns
    -------
    DDArray
        Of shape a.shape * b.shape (entry by entry, after that prepending; a's shape where b is
        0-d, as NumPy's): kron(a, b)[i * b.shape + j] = a[i] * b[j] (multi-indices), one DD
        multiply each, within the multiply's bound c_mul |a_i b_j| (``accuracy.bound("mul",
        variant)``).
    """
    a, b = operands(a, b, names=("a", "b"))
    ndim = max(a.ndim, b.ndim)
    shape_a = (1,) * (ndim - a.ndim) + a.shape
    shape_b = (1,) * (ndim - b.ndim) + b.shape
    # a's axes at the even positions, b's at the odd ones: the products broadcast to
    # (a0, b0, a1, b1, ...), which merges pairwise into the result's axes
    spread_a = a.reshape(tuple(n for size in shape_a for n in (size, 1)))
    spread_b = b.reshape(tuple(n for size in shape_b for n in (1, size)))
    product = multiply(spread_a, spread_b, fma=fma, add=add)
    return product.reshape(tuple(p * q for p, q in zip(shape_a, shape_b)))


def _store_broadcast(result: DDArray, out, routine: str, rule: str) -> DDArray:
    """result, or result written into out (checked by output_argument) when its shape
    broadcasts to out's (the rule of a ufunc's out=), else a ValueError naming out= and `rule`
    (the words of the rule for the message)."""
    if out is None:
        return result
    try:
        fits = broadcast_shape(result.shape, out.shape) == out.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"ddblas: {routine}: out= has shape {out.shape}, which the result's "
                         f"{result.shape} does not broadcast to ({rule})")
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


def _check_partition(a: DDArray, kth, axis, kind, order, flat_0d: bool) -> None:
    """NumPy's checks of partition's and argpartition's arguments: order None, kind
    'introselect', kth an int or a 1-D sequence of ints (not bools), each within the axis's
    length n (negative ones counted from the end; any kth for n = 0); a 0-d array read as 1-D
    where flat_0d (argpartition, as argsort)."""
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")
    if not isinstance(kind, (str, bytes)):
        raise TypeError(f"select kind must be str, not {type(kind).__name__}")
    if kind not in ("introselect", b"introselect"):
        raise ValueError(f"select kind must be 'introselect' (got {kind!r})")
    kths = np.asarray(host_values(kth, "kth"))
    if kths.dtype == np.bool_:
        raise ValueError("Booleans unacceptable as partition index")
    if kths.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    if kths.ndim > 1:
        raise ValueError("setting an array element with a sequence. The requested array would "
                         "exceed the maximum number of dimension of 1.")
    if axis is None or flat_0d and a.ndim == 0:
        length = a.size
    else:
        length = a.shape[normalize_axes(operator.index(axis), a.ndim)[0]]
    for k in kths.ravel().tolist():
        if length and not -length <= k < length:
            raise ValueError(f"kth(={k + length if k < 0 else k}) out of bounds ({length})")


def partition(a, kth, axis=-1, kind="introselect", order=None) -> DDArray:
    """a with the element that the sorted array has at each index of kth at that index, the
    smaller ones before it and the larger after, as numpy.partition: here the whole axis
    sorted (ddblas.sort: DD order, NaNs last, stable), which meets partition's contract (NumPy
    leaves the order within each side unspecified). kth, kind, order checked as NumPy checks
    them; axis None sorts the flattened array."""
    (a,) = operands(a)
    _check_partition(a, kth, axis, kind, order, flat_0d=False)
    return sort(a, axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """The indices that partition a around kth (numpy.argpartition): those that sort it
    (ddblas.argsort), which meet the contract; partition's checks. An int64 NumPy/CuPy
    array."""
    (a,) = operands(a)
    _check_partition(a, kth, axis, kind, order, flat_0d=True)
    return argsort(a, axis)


def _sorter_positions(sorter, size: int):
    """searchsorted's sorter as a host int array, NumPy's checks: integers (TypeError), 1-D
    (TypeError), a.size entries (ValueError), each in [0, a.size) (ValueError; NumPy checks
    those its search visits)."""
    values = np.asarray(host_values(sorter, "sorter"))
    if values.dtype.kind not in "iu":
        raise TypeError("sorter must only contain integers")
    if values.ndim != 1:
        raise TypeError("could not parse sorter argument")
    if values.size != size:
        raise ValueError("sorter.size must equal a.size")
    if values.size and (values.min() < 0 or values.max() >= size):
        raise ValueError("Sorter index out of range.")
    return values


def searchsorted(a, v, side="left", sorter=None):
    """Where the values v would be inserted into the sorted 1-D array a to keep it sorted, as
    numpy.searchsorted.

    Parameters
    ----------
    a : DDArray or array_like
        1-D, sorted in DD order (NaNs last) unless sorter is given (NumPy's ValueError for
        other dimensions).
    v : DDArray or array_like
        The values (DD, float64, Python numbers or strings), any shape.
    side : {'left', 'right'}, optional
        'left' (default): the first such index, the count of entries of a below v; 'right':
        the last, the count of entries at or below v. DD order: values equal in hi and
        different in lo differ, -0.0 equals 0.0, NaNs equal one another and follow every
        number (NumPy's order).
    sorter : array_like of ints, optional
        Indices that sort a (argsort's), NumPy's checks.

    Returns
    -------
    NumPy/CuPy int64 array
        Of v's shape (0-d for a scalar v), on a's device.

    Notes
    -----
    Counted exactly from one stable DD argsort of v's and a's values together (v first for
    'left', after a for 'right', so that equal values fall on the asked side): no binary search
    on float64, so for a sorted a the answer is NumPy's rule on the exact values.
    """
    if not isinstance(side, (str, bytes)):
        raise TypeError(f"search side must be str, not {type(side).__name__}")
    side = string_choice(side, ("left", "right"), "search side must be 'left' or 'right'",
                         "search side must be one of 'left' or 'right'")
    a, v = operands(a, v)
    if a.ndim != 1:
        raise ValueError("object too deep for desired array" if a.ndim > 1 else
                         "object of too small depth for desired array")
    if sorter is not None:
        a = a[move(_sorter_positions(sorter, a.size), a.device)]
    keys = v.ravel()
    left = side == "left"
    order = argsort(concatenate([keys, a] if left else [a, keys]))
    xp = a.xp
    from_a = order >= keys.size if left else order < a.size
    # at the sorted position of each value: the entries of a up to it (it included)
    counts = xp.empty(order.size, dtype=np.intp)
    counts[order] = xp.cumsum(from_a, dtype=np.intp)
    return (counts[:keys.size] if left else counts[a.size:]).reshape(v.shape)


UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices",
                                                 "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):  # noqa: A002  (NumPy's name)
    """The sorted unique values of ar (flattened), or its unique slices along an axis, as
    numpy.unique.

    Parameters
    ----------
    ar : DDArray or array_like
        The values (DD, float64 or Python numbers).
    return_index : bool, optional
        Also the index (in ar.ravel(), or along `axis`) of each unique value's or slice's first
        occurrence.
    return_inverse : bool, optional
        Also the index of each element's unique value (of ar's shape: NumPy 2's rule for
        axis=None), or of each slice's unique slice (1-D, ar.shape[axis] long), so that
        values[inverse] (values.take(inverse, axis)) rebuilds ar.
    return_counts : bool, optional
        Also how many times each unique value or slice occurs.
    axis : int or None, optional
        None (default): the values of the flattened array. An int: the slices ar.take(i, axis),
        compared entry by entry and sorted lexicographically, as NumPy's (NumPy's AxisError out
        of range).
    equal_nan : bool, optional
        True (default, NumPy 2's): all NaNs count as one value; False: each NaN is its own.
        Along an axis a slice holding a NaN is unlike every other, whatever equal_nan says
        (NumPy's rule).
    sorted : bool, optional
        NumPy's sorted=; the values are always sorted here (NumPy's sorted=False allows either).

    Returns
    -------
    DDArray, or a tuple of it and the int64 NumPy/CuPy arrays asked for
        In that order (values, index, inverse, counts). DD order decides: values equal in hi
        and different in lo are different; -0.0 and 0.0 are one value (kept with the bits of
        its first occurrence, where NumPy's unique without return_index may keep the other);
        NaNs come last.

    Notes
    -----
    Stable DD argsorts (ddblas.argsort: one for the flattened array, one a column from the last
    for slices), then neighbours compared by the exact kernel of ddblas.not_equal.
    """
    (a,) = operands(ar)
    if axis is None:
        moved = DDArray(a.hi, a.lo).ravel()   # pairs wrapped unnormalised read as normalised
    else:
        axes = normalize_axes(axis, a.ndim)   # NumPy's AxisError, without moveaxis's words
        if isinstance(axis, tuple):   # NumPy's ValueError, with a message that says why
            raise ValueError(f"unique: axis must be None or one int, got {axis!r}")
        (axis,) = axes
        moved = moveaxis(a, axis, 0)
    rows = moved.reshape(moved.shape[0], math.prod(moved.shape[1:]))
    order, first = _unique_rows(rows, merge_nans=axis is None and equal_nan)
    xp = a.xp
    kept = order[first]
    values = on_parts(xp.take, rows, kept, axis=0).reshape(kept.shape + moved.shape[1:])
    if axis is not None:
        values = moveaxis(values, 0, axis)
    extras = []
    if return_index:
        extras.append(kept)
    if return_inverse:
        inverse = xp.empty(rows.shape[0], dtype=np.intp)
        inverse[order] = xp.cumsum(first, dtype=np.intp) - 1
        extras.append(inverse.reshape(a.shape) if axis is None else inverse)
    if return_counts:
        starts = xp.nonzero(first)[0]
        ends = xp.full(1, rows.shape[0], dtype=np.intp)
        extras.append(xp.diff(xp.concatenate([starts, ends])))
    return (values, *extras) if extras else values


def _unique_rows(rows: DDArray, merge_nans: bool):
    """(order, first) for the rows of a 2-D DDArray: order sorts them lexicographically in DD
    order (stable argsorts of each column, the last first), first[i] whether the i-th sorted row
    differs from the one before it (in some column: not_equal, so NaN rows differ, unless
    merge_nans and the rows have one column)."""
    xp = rows.xp
    count, width = rows.shape
    order = xp.arange(count, dtype=np.intp)
    for column in range(width - 1, -1, -1):
        order = order[argsort(on_parts(xp.take, rows[:, column], order))]
    ordered = on_parts(xp.take, rows, order, axis=0)
    first = xp.ones(count, dtype=np.bool_)
    if count > 1:
        differs = not_equal(ordered[1:], ordered[:-1])
        if merge_nans:
            nan = isnan(ordered)
            differs &= ~(nan[1:] & nan[:-1])
        first[1:] = differs.any(axis=1)
    return order, first


def unique_values(x) -> DDArray:
    """The unique values of x, NaNs kept apart (numpy.unique_values: unique(x,
    equal_nan=False))."""
    return unique(x, equal_nan=False)


def unique_counts(x) -> UniqueCountsResult:
    """UniqueCountsResult(values, counts) of x (numpy.unique_counts: NaNs kept apart)."""
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False))


def unique_inverse(x) -> UniqueInverseResult:
    """UniqueInverseResult(values, inverse_indices) of x (numpy.unique_inverse: NaNs kept apart;
    inverse_indices of x's shape)."""
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False))


def unique_all(x) -> UniqueAllResult:
    """UniqueAllResult(values, indices, inverse_indices, counts) of x (numpy.unique_all: NaNs
    kept apart)."""
    return UniqueAllResult(*unique(x, True, True, True, equal_nan=False))


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


class _NoValue:
    """The default of clip's bounds, told from None (no bound), as NumPy's np._NoValue."""

    def __repr__(self) -> str:
        return "<no value>"


_NO_VALUE = _NoValue()


def clip(a, a_min=_NO_VALUE, a_max=_NO_VALUE, out=None, *, min=_NO_VALUE,  # noqa: A002
         max=_NO_VALUE, **kwargs) -> DDArray:  # noqa: A002  (NumPy's names)
    """a limited to [a_min, a_max], as numpy.clip: minimum(maximum(a, a_min), a_max) by the
    exact kernels of ddblas.maximum and ddblas.minimum (NumPy's rules: a NaN in a or in a
    bound gives NaN; a_min > a_max gives a_max; of two equal zeros, a's).

    Parameters
    ----------
    a : DDArray or array_like
        The values.
    a_min, a_max : DDArray, array_like or None
        The bounds (DD, float64, Python numbers or strings such as "0.1"), broadcast with a;
        None: no bound on that side (both None: a copy of a). NumPy 2's keywords min= and max=
        may stand for both; NumPy's TypeError when only one of a_min, a_max is given, its
        ValueError when min=/max= come with both.
    out : DDArray, optional
        Where to write the result (a shape it broadcasts to, as a ufunc's out; a float64 array
        is a TypeError); it may be a itself.
    **kwargs
        NumPy's other ufunc keywords are a TypeError.

    Returns
    -------
    DDArray
        The clipped values (out when given).
    """
    if a_min is _NO_VALUE and a_max is _NO_VALUE:
        a_min = None if min is _NO_VALUE else min
        a_max = None if max is _NO_VALUE else max
    elif a_min is _NO_VALUE:
        raise TypeError("clip() missing 1 required positional argument: 'a_min'")
    elif a_max is _NO_VALUE:
        raise TypeError("clip() missing 1 required positional argument: 'a_max'")
    elif min is not _NO_VALUE or max is not _NO_VALUE:
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` are "
                         "provided is forbidden.")
    if kwargs:
        raise TypeError(f"ddblas: clip() with keyword(s) {', '.join(sorted(kwargs))} is not "
                        f"supported for DDArray")
    out = output_argument(out, "clip()", dd_result=True)
    (result,) = on_one_device(a)
    if a_min is None and a_max is None:
        result = result.copy()
    if a_min is not None:
        result = maximum(result, a_min)
    if a_max is not None:
        result = minimum(result, a_max)
    return _store_broadcast(result, out, "clip()", "the rule of a ufunc's out")


def trace(a, offset=0, axis1=0, axis2=1, *, fma=None, add=None) -> DDArray:
    """The sum along a diagonal, as numpy.trace: the diagonals that ``diagonal(a, offset,
    axis1, axis2)`` gives (a 2-D a: one; more axes: one per index of the others, in their
    order), each summed by sum() in its fixed order.

    Parameters
    ----------
    a : DDArray or array_like, at least 2-D
    offset : int, optional
        The diagonal: 0 the main one, > 0 above it, < 0 below it (an offset past the array's
        edge gives an empty diagonal, whose sum is 0).
    axis1, axis2 : int, optional
        The axes of the 2-D planes whose diagonals are taken (NumPy's defaults 0 and 1).
    fma, add : optional
        The arithmetic variant (ddblas.options).

    Returns
    -------
    DDArray
        0-d for a 2-D a, else a's shape without axis1 and axis2. Error <= (n - 1) 3.0000001 u^2
        sum |a_ii| for n diagonal entries (sum()'s bound, ``accuracy.bound("sum", k=n)``);
        the same bits on both devices.

    Raises
    ------
    ValueError
        a has fewer than 2 dimensions, or axis1 and axis2 are the same axis (NumPy's errors;
        an axis out of bounds is NumPy's AxisError).
    """
    return dd_sum(diagonal(a, offset, axis1, axis2), axis=-1, fma=fma, add=add)


register_functions({
    np.concatenate: concatenate, np.stack: stack, np.hstack: hstack, np.vstack: vstack,
    np.where: where, np.diag: diag, np.diagonal: diagonal, np.outer: outer, np.kron: kron,
    np.tril: tril, np.triu: triu, np.sort: sort, np.argsort: argsort, np.partition: partition,
    np.argpartition: argpartition, np.searchsorted: searchsorted, np.unique: unique,
    np.unique_values: unique_values, np.unique_counts: unique_counts,
    np.unique_inverse: unique_inverse, np.unique_all: unique_all, np.clip: clip,
    np.flip: flip, np.roll: roll,
    np.broadcast_to: broadcast_to, np.full_like: full_like, np.zeros_like: zeros_like,
    np.ones_like: ones_like, np.empty_like: empty_like, np.isclose: isclose,
    np.allclose: allclose,
    np.trace: numpy_signature(trace, "offset", "axis1", "axis2", "dtype", "out"),
})
