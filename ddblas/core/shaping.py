"""Shapes and selections by index of DDArrays with NumPy's names and semantics: squeeze,
expand_dims, moveaxis, swapaxes, split, array_split, hsplit, vsplit, dsplit (views), tile,
repeat, take, take_along_axis (copies) and put (in place). Data movement on the hi and lo parts
alike, with one index computation for both, so each hi stays with its lo whatever the parts'
memory layouts; no arithmetic.

Index arguments (take's and put's indices, take_along_axis's, repeat's counts) are read on the
host and checked by NumPy itself (a CuPy array is copied there and the positions back), so both
devices raise NumPy's errors and use the same positions.
"""
from __future__ import annotations

import operator

import numpy as np

from ..engines.backend import is_gpu_array, move
from .array import DDArray, is_writable, shape_stand_in
from .ops import (named_operand, normalize_axes, on_one_device, operands, output_argument,
                  register_functions, store_exact_output)
from .reductions import single_axis

_MODES = ("raise", "wrap", "clip")


def on_parts(func, a: DDArray, *args, **kwargs) -> DDArray:
    """func (a NumPy/CuPy function moving data) applied to a's hi and lo parts alike."""
    return DDArray(func(a.hi, *args, **kwargs), func(a.lo, *args, **kwargs), normalize=False)


# ---- views: NumPy's checks on a stand-in of the shape, then the same view of both parts ----
def _view(name: str, a, *args) -> DDArray:
    """numpy.<name>(a, *args) as a view of both parts: NumPy's function on a stand-in of a's
    shape first (a broadcast zero: no data), so that bad axes raise NumPy's errors on either
    device, then xp.<name> on hi and lo (stride arithmetic alone: views, as NumPy's)."""
    (a,) = on_one_device(a)
    getattr(np, name)(shape_stand_in(a.shape), *args)
    return on_parts(getattr(a.xp, name), a, *args)


def squeeze(a, axis=None) -> DDArray:
    """a without its axes of length one (those of `axis`, an int or a tuple of ints, where
    given), as numpy.squeeze: a view. NumPy's ValueError for an axis whose length is not one,
    its AxisError out of range."""
    return _view("squeeze", a, axis)


def expand_dims(a, axis) -> DDArray:
    """a with new axes of length one at the positions `axis` (an int or a tuple of ints) of the
    result, as numpy.expand_dims: a view."""
    return _view("expand_dims", a, axis)


def moveaxis(a, source, destination) -> DDArray:
    """a with its axes `source` moved to the positions `destination` (ints or sequences of
    ints), the others in their order, as numpy.moveaxis: a view."""
    return _view("moveaxis", a, source, destination)


def swapaxes(a, axis1, axis2) -> DDArray:
    """a with axes axis1 and axis2 interchanged, as numpy.swapaxes: a view."""
    return _view("swapaxes", a, axis1, axis2)


def matrix_transpose(x, /) -> DDArray:
    """Each matrix of a stack transposed (the last two axes interchanged), as
    numpy.matrix_transpose and numpy.linalg.matrix_transpose: x.mT, a view; NumPy's ValueError
    for fewer than 2 dimensions."""
    (x,) = on_one_device(x)
    np.matrix_transpose(shape_stand_in(x.shape))
    return x.mT


def _pieces(name: str, ary, indices_or_sections, *axis) -> list:
    """numpy.<name> (split, array_split, hsplit, vsplit, dsplit) as views of both parts:
    NumPy's checks on a stand-in of the shape (its ValueError for an unequal division), then
    the same pieces of hi and of lo, paired."""
    (a,) = on_one_device(ary)
    getattr(np, name)(shape_stand_in(a.shape), indices_or_sections, *axis)
    split = getattr(a.xp, name)
    return [DDArray(hi, lo, normalize=False) for hi, lo in
            zip(split(a.hi, indices_or_sections, *axis), split(a.lo, indices_or_sections, *axis))]


def split(ary, indices_or_sections, axis=0) -> list:
    """A list of views of ary cut along axis, as numpy.split: `indices_or_sections` an int N
    (N equal pieces: NumPy's ValueError when the axis does not divide) or the sorted indices
    where the cuts fall."""
    return _pieces("split", ary, indices_or_sections, axis)


def array_split(ary, indices_or_sections, axis=0) -> list:
    """numpy.array_split: split, where N pieces need not be equal (the first ones one longer)."""
    return _pieces("array_split", ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections) -> list:
    """split along axis 1 (axis 0 of a 1-D array), as numpy.hsplit."""
    return _pieces("hsplit", ary, indices_or_sections)


def vsplit(ary, indices_or_sections) -> list:
    """split along axis 0 of an array of at least 2 dimensions, as numpy.vsplit."""
    return _pieces("vsplit", ary, indices_or_sections)


def dsplit(ary, indices_or_sections) -> list:
    """split along axis 2 of an array of at least 3 dimensions, as numpy.dsplit."""
    return _pieces("dsplit", ary, indices_or_sections)


# ---- copies by index: positions computed on the host by NumPy's rules ----
def host_values(x, name: str):
    """x (indices, counts, a sorter) as host data for NumPy: a CuPy array copied to the host,
    anything else as it is; a DDArray is a TypeError naming the argument `name` (its values are
    no positions)."""
    if isinstance(x, DDArray):
        raise TypeError(f"{name} must be integers, got a DDArray (index with a NumPy/CuPy "
                        f"integer array)")
    return move(x, "cpu") if is_gpu_array(x) else x


def host_positions(indices):
    """indices as a host intp array, converted as numpy.take converts them: an array by a
    same_kind cast (a float array is NumPy's TypeError), anything else entry by entry (a list
    of floats is truncated, as NumPy's take does)."""
    values = host_values(indices, "indices")
    if isinstance(values, np.ndarray):
        return values.astype(np.intp, casting="same_kind", copy=False)
    return np.array(values, dtype=np.intp)


def index_positions(indices, length: int, axis: int = 0, ndim: int = 1, mode="raise"):
    """numpy.take's indices into an axis of `length` as host intp positions in [0, length).

    Parameters
    ----------
    indices : array_like of ints
        Converted by host_positions.
    length : int
        The length of the axis.
    axis, ndim : int, optional
        The axis and the number of dimensions of the array indexed (NumPy's messages name the
        axis).
    mode : {'raise', 'wrap', 'clip'} or None, optional
        NumPy's: 'raise' (also None) takes negative indices from the end and raises NumPy's
        IndexError for one out of range; 'wrap' reduces modulo length; 'clip' clips to
        [0, length - 1] (negative indices to 0). Other values: NumPy's ValueError (a
        TypeError for a value that is not a str or bytes: NumPy's integer codes are refused).

    Returns
    -------
    numpy.ndarray
        intp positions of indices' shape. Any index into an empty axis is NumPy's IndexError.
    """
    if mode is None:
        mode = "raise"
    if not isinstance(mode, (str, bytes)):
        raise TypeError(f"clipmode not understood (mode must be 'raise', 'wrap' or 'clip', got "
                        f"{mode!r})")
    mode = string_choice(mode, _MODES, "clipmode must be one of 'clip', 'raise', or 'wrap'",
                         "Use one of 'clip', 'raise', or 'wrap' for clip mode")
    positions = host_positions(indices)
    # NumPy's own take on a stand-in of the axis raises its errors (other axes of length one)
    np.take(shape_stand_in((1,) * axis + (length,) + (1,) * (ndim - axis - 1)), positions,
            axis=axis, mode=mode)
    if length == 0:   # no positions (the take above raised otherwise)
        return positions
    return np.clip(positions, 0, length - 1) if mode == "clip" else positions % length


def string_choice(value, choices: tuple, must: str, inexact: str) -> str:
    """value (a str, or bytes read as Latin-1) if it is one of `choices`, else NumPy's
    ValueError from its string converters: `inexact` for a string NumPy once took as a
    prefix (its first letter that of a choice, in either case), else f"{must} (got value)"."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if value in choices:
        return value
    if value[:1].lower() in {choice[0] for choice in choices}:
        raise ValueError(inexact)
    raise ValueError(f"{must} (got {value!r})")


def _one_axis(axis, ndim: int, name: str):
    """take's and repeat's axis: None (the flattened array, also for a 0-d array's 0 or -1) or
    one int as a non-negative axis; NumPy's TypeError for what is not an integer (a float, a
    tuple), its AxisError out of range."""
    return single_axis(None if axis is None else operator.index(axis), ndim, name)


def _taken(a: DDArray, positions, axis: int) -> DDArray:
    """xp.take of both parts along axis at the host positions (in range), on a's device."""
    return on_parts(a.xp.take, a, move(positions, a.device), axis=axis)


def take(a, indices, axis=None, out=None, mode="raise") -> DDArray:
    """Elements of a at the given indices along an axis, as numpy.take: a copy.

    Parameters
    ----------
    a : DDArray or array_like
        The source (DD, float64 or Python numbers).
    indices : array_like of ints
        NumPy, CuPy or Python integers (a DDArray is a TypeError); the result has their shape
        in place of the axis.
    axis : int, optional
        The axis taken along; None (default) takes from the flattened array.
    out : DDArray, optional
        Where to write the result (exactly the result's shape, a ValueError naming out=
        otherwise; a float64 array is a TypeError: it would drop lo).
    mode : {'raise', 'wrap', 'clip'}, optional
        Indices out of range: NumPy's IndexError ('raise', default), taken modulo the length
        ('wrap') or clipped to the ends ('clip'; negative indices then give the first).

    Returns
    -------
    DDArray
        On a's device; out when given.
    """
    out = output_argument(out, "take()", dd_result=True)
    (a,) = operands(a)
    ax = _one_axis(axis, a.ndim, "take")
    source, ax = (a.ravel(), 0) if ax is None else (a, ax)
    positions = index_positions(indices, source.shape[ax], ax, source.ndim, mode)
    return store_exact_output(_taken(source, positions, ax), out, "take()",
                              "NumPy's rule: the result's shape")


def take_along_axis(arr, indices, axis=-1) -> DDArray:
    """numpy.take_along_axis: arr's elements at `indices` along axis, the other axes
    broadcast (indices from argsort, argpartition... fit); a copy.

    indices: a NumPy/CuPy integer array (or a list, read as one; NumPy's IndexError "`indices`
    must be an integer array" otherwise) with arr's number of dimensions (1-D for axis=None,
    which flattens arr); negative indices count from the end; NumPy's IndexError out of
    range."""
    (a,) = operands(arr)
    values = np.asarray(host_values(indices, "indices"))
    if not np.issubdtype(values.dtype, np.integer):
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        if values.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        a, axis = a.ravel(), 0
    else:
        axis = normalize_axes(operator.index(axis), a.ndim)[0]
    if values.ndim != a.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    positions = move(index_positions(values, a.shape[axis], axis, a.ndim), a.device)
    return on_parts(a.xp.take_along_axis, a, positions, axis)


def repeat(a, repeats, axis=None) -> DDArray:
    """Each element of a repeated, as numpy.repeat: `repeats` an int or one count per element
    along axis (NumPy's checks: its ValueError for a negative count or a wrong length); axis
    None (default) repeats the flattened array's elements. A copy."""
    (a,) = operands(a)
    ax = _one_axis(axis, a.ndim, "repeat")
    source, ax = (a.ravel(), 0) if ax is None else (a, ax)
    positions = np.repeat(np.arange(source.shape[ax]), host_values(repeats, "repeats"))
    return _taken(source, positions, ax)


def tile(A, reps) -> DDArray:  # noqa: N803  (NumPy's name)
    """A repeated `reps` times along each axis (reps an int or a tuple of ints; A is promoted to
    len(reps) dimensions where it has fewer), as numpy.tile: a copy."""
    (a,) = operands(A)
    # NumPy's checks of reps on either device (CuPy words its errors differently), on a bool
    # stand-in of a's shape if empty, else of one element: its tile has 1/16 of the bytes of a's.
    np.tile(np.zeros(a.shape if a.size == 0 else (1,) * a.ndim, dtype=bool), reps)
    return on_parts(a.xp.tile, a, reps)


def put(a, ind, v, mode="raise") -> None:
    """a.flat[ind] = v in place, as numpy.put: the values v (DD, float64 or numbers, flattened)
    written at the flat positions ind (C order, whatever a's strides), v repeated when shorter
    than ind (nothing written when v is empty); a position given twice keeps its last value.
    mode as take's ('raise': NumPy's IndexError out of range; 'wrap'; 'clip'). a must be a
    writable DDArray: a NumPy array is a TypeError (it would drop lo), a read-only one NumPy's
    ValueError."""
    if not isinstance(a, DDArray):
        raise TypeError(f"put() writes into a DDArray a, got {type(a).__name__} (DD values "
                        f"would lose their lo parts in it)")
    if not is_writable(a):
        raise ValueError("put: output array is read-only")
    positions = host_positions(ind).ravel()
    if a.size == 0:
        if positions.size:
            raise IndexError("cannot replace elements of an empty array")
        return
    positions = index_positions(positions, a.size, mode=mode)
    values = named_operand(v, "v", a.device).ravel()
    if positions.size == 0 or values.size == 0:
        return
    order = np.argsort(positions, kind="stable")
    ordered = positions[order]
    last = np.append(ordered[1:] != ordered[:-1], True)   # each position's last write
    target = a if a.ndim else a[None]   # a view of both parts, with an axis to index
    key = tuple(move(i, a.device) for i in np.unravel_index(ordered[last], target.shape))
    target[key] = values[move(order[last] % values.size, a.device)]


register_functions({
    np.squeeze: squeeze, np.expand_dims: expand_dims, np.moveaxis: moveaxis,
    np.swapaxes: swapaxes, np.split: split, np.array_split: array_split, np.hsplit: hsplit,
    np.vsplit: vsplit, np.dsplit: dsplit, np.take: take, np.take_along_axis: take_along_axis,
    np.repeat: repeat, np.tile: tile, np.put: put, np.matrix_transpose: matrix_transpose,
    np.linalg.matrix_transpose: matrix_transpose,
})
