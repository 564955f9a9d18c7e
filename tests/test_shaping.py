"""Shapes and selections by index (ddblas.core.shaping, DDArray.mT, flatten, fill, sort and
partition in place): each call against the same NumPy call on float64 parts, on arrays laid out
C- or F-contiguous, with negative strides, as record fields (CPU) and with hi and lo laid out
differently: the same values, shapes, views and errors, each hi still paired with its lo, the
caller's arrays untouched (put, fill and the in-place sorts write through views as NumPy's)."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ddblas
from ddblas.engines.backend import array_module
from ddvalues import same_bits

TINY = 2.0 ** -60   # lo = hi * TINY: every pair normalised, each lo telling its hi's position
LAYOUTS = ["c", "f", "negative", "mixed", "record"]


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _laid_out(values: np.ndarray, layout: str, xp):
    """A float64 array of values in `layout` (module xp): "c", "f", "negative" (a view with
    negative strides into a larger array), "record" (a field of a record array: byte strides
    of 12, which kernels cannot address; NumPy only)."""
    if layout in ("c", "mixed"):
        return xp.ascontiguousarray(xp.asarray(values))
    if layout == "f":
        return xp.asfortranarray(xp.asarray(values))
    if layout == "negative":
        big = xp.zeros(tuple(2 * n for n in values.shape))
        view = big[tuple(slice(None, None, -2) for _ in values.shape)]
        view[...] = xp.asarray(values)
        return view
    records = np.zeros(values.shape, dtype=[("v", "f8"), ("pad", "f4")])
    records["v"] = values
    return records["v"]


def _pair(device: str, layout: str, shape=(4, 6), seed=0):
    """(x, hi, lo): a DDArray of `shape` whose parts are laid out as `layout` says (for "mixed"
    hi C- and lo F-contiguous), with hi distinct float64 values, zeros of both signs, inf and
    NaN, and lo = hi * TINY (0 where hi is not finite); hi and lo as host float64 arrays laid
    out as x's hi (for NumPy's calls, whose results may depend on the layout: ravel's 'K')."""
    if layout == "record" and device != "cpu":
        pytest.skip("record-field views are built on the host")
    rng = np.random.default_rng(seed)
    hi = rng.permutation(np.arange(np.prod(shape), dtype=np.float64) - 3).reshape(shape)
    hi.flat[:4] = [np.inf, -0.0, np.nan, -np.inf][:hi.size]
    lo = np.where(np.isfinite(hi), hi * TINY, 0.0)
    xp = ddblas.zeros(0, device=device).xp
    x = ddblas.DDArray(_laid_out(hi, layout, xp),
                       _laid_out(lo, "f" if layout == "mixed" else layout, xp), normalize=False)
    return x, _laid_out(hi, layout, np), _laid_out(lo, layout, np)


def _expected(result_hi, result_lo) -> ddblas.DDArray:
    return ddblas.DDArray(np.asarray(result_hi, dtype=np.float64),
                          np.asarray(result_lo, dtype=np.float64), normalize=False)


def _paired(x: ddblas.DDArray) -> bool:
    """Whether each lo of x is still its hi's: lo = hi * TINY (0 where hi is not finite)."""
    hi = _host(x.hi)
    return same_bits(x.lo, np.where(np.isfinite(hi), hi * TINY, 0.0))


def _numpys(got: ddblas.DDArray, hi_result) -> bool:
    """Whether got holds NumPy's result on the hi parts, each lo paired with its hi."""
    return same_bits(got.hi, np.asarray(hi_result, dtype=np.float64)) and _paired(got)


def _shares(part, base) -> bool:
    return bool(array_module(part).may_share_memory(part, base))


VIEWS = {   # NumPy's views, each applied alike to a DDArray and to float64 arrays
    "squeeze": lambda x: np.squeeze(x[None, :, :1]),
    "squeeze-axis": lambda x: np.squeeze(x[:1, None], axis=(0, 1)),
    "squeeze-method": lambda x: x[None].squeeze(0),
    "expand_dims": lambda x: np.expand_dims(x, (0, -1)),
    "moveaxis": lambda x: np.moveaxis(x[None], [0, 1], [-1, 0]),
    "swapaxes": lambda x: np.swapaxes(x, 0, 1),
    "swapaxes-method": lambda x: x[None].swapaxes(2, 0),
    "mT": lambda x: x.mT,
    "mT-stack": lambda x: x[None, ::2].mT,
    "matrix_transpose": lambda x: np.matrix_transpose(x[None, ::-1]),
    "linalg.matrix_transpose": lambda x: np.linalg.matrix_transpose(x),
    "squeeze-0d": lambda x: np.squeeze(x[1:2, 3:4]),
    "expand_dims-0d": lambda x: np.expand_dims(x[1, 3, ...], 0),
    "squeeze-empty": lambda x: np.squeeze(x[:0, 2:3], axis=1),
    "swapaxes-empty": lambda x: np.swapaxes(x[:, :0], 0, 1),
}
PIECES = {   # lists of views
    "split": lambda x: np.split(x, 2),
    "split-indices": lambda x: np.split(x, [1, 3, 9], axis=1),
    "array_split": lambda x: np.array_split(x, 4, axis=1),
    "hsplit": lambda x: np.hsplit(x, 3),
    "vsplit": lambda x: np.vsplit(x, [1]),
    "dsplit": lambda x: np.dsplit(x[:, :, None], [0, 1]),
    "hsplit-1d": lambda x: np.hsplit(x[0], 2),
    "split-empty": lambda x: np.split(x[:0], 3, axis=1),
}
COPIES = {   # new arrays
    "flatten": lambda x: x.flatten(),
    "flatten-F": lambda x: x.flatten("F"),
    "flatten-K": lambda x: x.flatten("K"),
    "flatten-A": lambda x: x.T.flatten("A"),
    "tile": lambda x: np.tile(x, 2),
    "tile-more-axes": lambda x: np.tile(x, (2, 1, 3)),
    "tile-ones": lambda x: np.tile(x, (1, 1)),
    "tile-0d": lambda x: np.tile(x[1, 2], ()),
    "repeat": lambda x: np.repeat(x, 2),
    "repeat-counts": lambda x: np.repeat(x, [1, 0, 3, 1], axis=0),
    "repeat-method": lambda x: x.repeat(3, axis=-1),
    "repeat-float-counts": lambda x: np.repeat(x, [1.0, 2.0, 0.0, 1.0], axis=0),
    "repeat-0d": lambda x: np.repeat(x[1, 1], 2, axis=0),
    "take": lambda x: np.take(x, [[0, -1], [5, 2]]),
    "take-axis": lambda x: np.take(x, [1, -2, 1], axis=1),
    "take-method-wrap": lambda x: x.take([7, -30, 100], mode="wrap"),
    "take-clip": lambda x: np.take(x, [9, -1, 2], axis=0, mode="clip"),
    "take-scalar": lambda x: np.take(x, 3),
    "take-list-of-floats": lambda x: np.take(x, [1.7, -2.2]),   # NumPy truncates them
    "take-empty": lambda x: np.take(x, [], axis=1),
    "take-0d": lambda x: np.take(x[2, 3], 0),
    "take-0d-axis0": lambda x: np.take(x[2, 3], [0, 0], axis=0),
    "take_along_axis": lambda x: np.take_along_axis(
        x, np.array([[0, 5, -1], [2, 2, 3], [-6, 0, 1], [4, 4, 4]]), axis=1),
    "take_along_axis-broadcast": lambda x: np.take_along_axis(x, np.array([[3], [0]]), 0),
    "take_along_axis-None": lambda x: np.take_along_axis(x, np.array([23, 0, -1]), None),
    "take_along_axis-default": lambda x: np.take_along_axis(x, np.array([[1]] * 4), -1),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_are_numpys_views_of_both_parts(device, layout, name):
    x, hi, _ = _pair(device, layout)
    before = (x.hi.copy(), x.lo.copy())
    call = VIEWS[name]
    got = call(x)
    assert _numpys(got, call(hi))
    assert got.size == 0 or _shares(got.hi, x.hi) and _shares(got.lo, x.lo)
    assert same_bits(x.hi, before[0]) and same_bits(x.lo, before[1])
    if got.size:   # a write through the view reaches both parts
        got[(0,) * got.ndim] = "0.1"
        tenth = ddblas.array("0.1")
        assert (_host(x.hi) == float(tenth.hi)).sum() == 1 == (_host(x.lo) == float(tenth.lo)).sum()


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(PIECES))
def test_splits_are_lists_of_views_of_both_parts(device, layout, name):
    x, hi, _ = _pair(device, layout)
    call = PIECES[name]
    got, want = call(x), call(hi)
    assert isinstance(got, list) and len(got) == len(want)
    for piece, h in zip(got, want):
        assert isinstance(piece, ddblas.DDArray) and _numpys(piece, h)
        assert piece.size == 0 or _shares(piece.hi, x.hi) and _shares(piece.lo, x.lo)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(COPIES))
def test_copies_are_numpys_values_in_new_parts(device, layout, name):
    x, hi, _ = _pair(device, layout)
    before = (x.hi.copy(), x.lo.copy())
    call = COPIES[name]
    if name == "flatten-A" and layout == "mixed":   # 'F' only where both parts are F-ordered
        call = COPIES["flatten"]
        assert same_bits(COPIES[name](x), x.T.flatten("C"))
    got = call(x)
    assert isinstance(got, ddblas.DDArray) and got.device == device
    assert _numpys(got, call(hi))
    assert not _shares(got.hi, x.hi) and not _shares(got.lo, x.lo)
    assert same_bits(x.hi, before[0]) and same_bits(x.lo, before[1])


def test_take_writes_into_out(device):
    x, hi, _ = _pair(device, "c")
    out = ddblas.zeros((4, 2), device=device)
    assert np.take(x, [5, 0], axis=1, out=out) is out and _numpys(out, np.take(hi, [5, 0], 1))
    row = x[0].copy()   # out may be the operand itself: the result is computed first
    assert np.take(row, [5, 4, 3, 2, 1, 0], out=row) is row and same_bits(row, x[0, ::-1])
    with pytest.raises(ValueError, match=r"^ddblas: take\(\): out= has shape \(3,\)"):
        np.take(x, [1, 2], out=ddblas.zeros(3, device=device))
    with pytest.raises(TypeError, match=r"^ddblas: take\(\): out= must be a DDArray"):
        np.take(x, [1, 2], out=np.zeros(2))


def _numpy_error(call, *args):
    """The exception NumPy's own call raises (on float64 arrays)."""
    try:
        call(*args)
    except Exception as error:   # noqa: BLE001  (whatever NumPy raises)
        return error
    raise AssertionError("NumPy raised nothing")


BAD_CALLS = {
    "squeeze-not-one": lambda x: np.squeeze(x, axis=0),
    "squeeze-axis-out-of-range": lambda x: np.squeeze(x, axis=2),
    "expand_dims-axis": lambda x: np.expand_dims(x, 3),
    "expand_dims-repeated": lambda x: np.expand_dims(x, (0, 0)),
    "moveaxis": lambda x: np.moveaxis(x, 0, 2),
    "moveaxis-lengths": lambda x: np.moveaxis(x, [0, 1], [0]),
    "swapaxes": lambda x: np.swapaxes(x, 0, 2),
    "swapaxes-method": lambda x: x.swapaxes(-3, 0),
    "mT-1d": lambda x: x[0].mT,
    "matrix_transpose-1d": lambda x: np.matrix_transpose(x[0]),
    "linalg.matrix_transpose-0d": lambda x: np.linalg.matrix_transpose(x[0, 0]),
    "flatten-order": lambda x: x.flatten("X"),
    "split-unequal": lambda x: np.split(x, 3),
    "split-zero": lambda x: np.array_split(x, 0),
    "vsplit-1d": lambda x: np.vsplit(x[0], 2),
    "dsplit-2d": lambda x: np.dsplit(x, 2),
    "take-out-of-range": lambda x: np.take(x, [24]),
    "take-negative-out-of-range": lambda x: np.take(x, [1, -7], axis=1),
    "take-mode": lambda x: np.take(x, [1], mode="x"),
    "take-float-array": lambda x: np.take(x, np.array([1.5])),
    "take-empty-axis": lambda x: np.take(x[:0], [0]),
    "take-empty-axis-wrap": lambda x: np.take(x[:, :0], [0], axis=1, mode="wrap"),
    "take-axis": lambda x: np.take(x, [0], axis=2),
    "take-axis-float": lambda x: np.take(x, [0], axis=1.0),
    "take_along_axis-float": lambda x: np.take_along_axis(x, np.array([[1.0]]), 1),
    "take_along_axis-ndim": lambda x: np.take_along_axis(x, np.array([1]), 1),
    "take_along_axis-range": lambda x: np.take_along_axis(x, np.array([[6]]), 1),
    "take_along_axis-negative": lambda x: np.take_along_axis(x, np.array([[-7]]), 1),
    "take_along_axis-None-2d": lambda x: np.take_along_axis(x, np.array([[0]]), None),
    "take_along_axis-axis": lambda x: np.take_along_axis(x, np.array([[0]]), 2),
    "repeat-negative": lambda x: np.repeat(x, -1),
    "repeat-length": lambda x: np.repeat(x, [1, 2], axis=0),
    "repeat-axis": lambda x: np.repeat(x, 1, axis=2),
    "repeat-axis-tuple": lambda x: np.repeat(x, 1, axis=(0,)),
    "tile-negative": lambda x: np.tile(x, -1),
    "put-out-of-range": lambda x: np.put(x, [24], 1.0),
    "put-mode": lambda x: np.put(x, [0], 1.0, mode="wr"),
    "take-mode-empty": lambda x: np.take(x, [0], mode=""),
    "take-mode-case": lambda x: np.take(x, [0], mode="CLIP"),
    "put-empty": lambda x: np.put(x[:0], [0], 1.0, mode="wrap"),
    "sort-axis-None": lambda x: x.sort(axis=None),
    "sort-0d": lambda x: x[0, 0, ...].sort(),
    "partition-axis-None": lambda x: x.partition(1, axis=None),
    "fill-sequence": lambda x: x.fill([1.0]),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_arguments_raise_numpys_errors(device, name):
    x, hi, _ = _pair(device, "c")
    before = (x.hi.copy(), x.lo.copy())
    call = BAD_CALLS[name]
    want = _numpy_error(call, hi.copy())
    with pytest.raises(type(want), match=f"^{re.escape(str(want))}$"):
        call(x)
    assert same_bits(x.hi, before[0]) and same_bits(x.lo, before[1])


def test_index_arguments_that_are_no_positions(device):
    """A DDArray as indices, counts, kth or sorter is a TypeError naming it (NumPy would read
    its values as floats); NumPy's integer mode codes are refused (strings only)."""
    x, _, _ = _pair(device, "c")
    one = ddblas.array(1, device=device)
    for call, name in ((lambda: np.take(x, one), "indices"), (lambda: x.put(one, 1), "indices"),
                       (lambda: np.take_along_axis(x, one, 1), "indices"),
                       (lambda: np.repeat(x, one), "repeats"),
                       (lambda: np.partition(x, one), "kth"),
                       (lambda: np.searchsorted(x[0], 1, sorter=one), "sorter")):
        with pytest.raises(TypeError, match=f"^{name} must be integers, got a DDArray"):
            call()
    with pytest.raises(TypeError, match="clipmode not understood"):
        np.take(x, [0], mode=0)


# ---- put, fill and the in-place sorts: writes through views, as NumPy's ----
PUTS = {
    "cycled-with-repeats": ([0, 5, 5, -1, 7], [1.5, -2.0, 3.25]),
    "wrap": ([30, -25, 2], [7.0], "wrap"),
    "clip": ([-3, 99], [4.0, 8.0], "clip"),
    "scalar": (4, -0.0),
    "no-values": ([1, 2], []),
    "no-indices": ([], [1.0]),
    "2d-indices-and-values": ([[1, 2], [3, 1]], [[9.0, 8.0]]),
    "list-of-floats": ([1.9, -1.2], [6.0, 7.0]),
}


@pytest.mark.parametrize("view", ["whole", "strided", "0d"])
@pytest.mark.parametrize("name", sorted(PUTS))
def test_put_writes_the_flat_positions_of_both_parts(device, name, view):
    """a.put(ind, v) writes v (cycled) at a's C-order flat positions, the last of repeated
    positions winning, into both parts, through a strided or 0-d view into its base; DD values
    keep their lo."""
    base, hi, lo = _pair(device, "c")
    pick = {"whole": lambda a: a, "strided": lambda a: a[::-1, ::2],
            "0d": lambda a: a[1, 2, ...]}[view]
    ind, values, *mode = PUTS[name]
    if view == "0d" and not mode:   # positions 0 and -1 only
        ind = np.zeros_like(np.asarray(ind, dtype=np.int64))
    v_hi = np.asarray(values, dtype=np.float64)
    v_lo = v_hi * TINY
    if name == "scalar":
        pick(base).put(ind, ddblas.DDArray(v_hi, v_lo), *mode)
    else:
        np.put(pick(base), ind, ddblas.DDArray(v_hi, v_lo), *mode)
    want_hi, want_lo = hi.copy(), lo.copy()
    np.put(pick(want_hi), ind, v_hi, *mode)
    np.put(pick(want_lo), ind, v_lo, *mode)
    assert same_bits(base, _expected(want_hi, want_lo))


def test_put_refusals(device):
    x, _, _ = _pair(device, "c")
    with pytest.raises(TypeError, match="put\\(\\) writes into a DDArray a, got ndarray"):
        np.put(np.zeros(3), [0], x[0, :1])
    if device == "cpu":   # CuPy has no read-only arrays
        with pytest.raises(ValueError, match="^put: output array is read-only$"):
            np.put(ddblas.broadcast_to(x[0], (2, 6)), [0], 1)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fill_sets_both_parts_through_views(device, layout):
    x, hi, lo = _pair(device, layout)
    view = x[::-2, 1::3]
    view.fill("0.1")
    tenth = ddblas.array("0.1")
    want_hi, want_lo = hi.copy(), lo.copy()
    want_hi[::-2, 1::3], want_lo[::-2, 1::3] = float(tenth.hi), float(tenth.lo)
    assert same_bits(x, _expected(want_hi, want_lo))
    x[0].fill(ddblas.array(-0.0, device=device))
    assert np.signbit(_host(x.hi[0])).all() and (_host(x.lo[0]) == 0).all()
    x[1, 1, ...].fill(2)   # a 0-d view (x[1, 1] is a copy, as NumPy's scalar)
    assert float(x[1, 1].hi) == 2.0
    if device == "cpu":
        with pytest.raises(ValueError, match="read-only"):
            ddblas.broadcast_to(x[0], (2, 6)).fill(1)


@pytest.mark.parametrize("method", ["sort", "partition"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_sort_and_partition_methods_write_in_place(device, layout, method):
    """x.sort(axis) and x.partition(kth, axis) write ddblas.sort's result into x (through
    views into a base, both parts), return None and refuse read-only arrays, as ndarray's."""
    x, hi, _ = _pair(device, layout)
    args = () if method == "sort" else (2,)
    view = x[::-1, ::2]
    expected = np.sort(view, axis=0)
    assert getattr(view, method)(*args, axis=0) is None
    assert same_bits(view, expected)
    want = hi.copy()
    want[::-1, ::2] = np.sort(hi[::-1, ::2], axis=0)
    assert np.array_equal(_host(x.hi), want, equal_nan=True) and _paired(x)
    if device == "cpu":
        with pytest.raises(ValueError, match=f"^{method} array is read-only$"):
            getattr(ddblas.broadcast_to(x[0], (2, 6)), method)(*args)


def test_sort_method_orders_values_equal_in_hi_by_lo(device):
    x = ddblas.DDArray(np.array([1.0, 1.0, 1.0, np.nan, -0.0, 0.0]),
                       np.array([TINY, -TINY, 0.0, 0.0, 0.0, 0.0])).to_device(device)
    expected = x[[4, 5, 1, 2, 0, 3]]
    x.sort()
    assert same_bits(x, expected)


def test_methods_match_the_numpy_functions(device):
    x, _, _ = _pair(device, "negative")
    assert same_bits(x.squeeze(), np.squeeze(x)) and same_bits(x.mT, x.T)
    assert same_bits(x.take([3, 1], 1), np.take(x, [3, 1], 1))
    assert same_bits(x.repeat(2, 0), np.repeat(x, 2, 0))
    assert same_bits(x.flatten(), x.ravel()) and x.flatten().hi.flags.c_contiguous
