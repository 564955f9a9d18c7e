"""The two backends behind one interface: "cpu" (NumPy + compiled C++) and "gpu" (CuPy + NVRTC)."""
from __future__ import annotations

import functools
import os

import numpy as np

from . import gpu as _gpu
from .cpu import CpuBackend
from .gpu import GpuBackend

DEVICES = ("cpu", "gpu")


def check_device(device) -> str:
    if device not in DEVICES:
        raise ValueError(f"device must be 'cpu' or 'gpu', got {device!r}")
    return device


@functools.lru_cache(maxsize=None)
def backend(device: str):
    """The backend object for 'cpu' or 'gpu' (the latter needs CuPy and a CUDA device)."""
    check_device(device)
    if device == "gpu":
        _gpu.require()
        return GpuBackend()
    return CpuBackend()


def is_gpu_array(x) -> bool:
    """True for a CuPy ndarray (checked without importing CuPy)."""
    return _is_gpu_array_type(type(x))


@functools.cache
def _is_gpu_array_type(cls: type) -> bool:
    """Whether instances of cls are CuPy arrays: by the class, once (an instance's
    __cuda_array_interface__ builds a dict at each access, and the factorizations ask this
    hundreds of thousands of times)."""
    return cls.__module__.startswith("cupy") and hasattr(cls, "__cuda_array_interface__")


def device_of_array(x) -> str:
    return "gpu" if is_gpu_array(x) else "cpu"


def array_module(x):
    """numpy for a NumPy array, cupy for a CuPy array."""
    return backend("gpu").xp if is_gpu_array(x) else np


def gpu_available() -> bool:
    """True when the GPU backend can run: CuPy installed and a CUDA device present."""
    return _gpu.available()


def default_device() -> str:
    """'gpu' when one is available, else 'cpu' (used by the demo and benchmarks)."""
    return "gpu" if gpu_available() else "cpu"


def move(x, device: str):
    """A float64/bool array on the given device (no copy if it is already there)."""
    if device == "gpu":
        if is_gpu_array(x):
            return x
        # A byte copy: cupy.asarray may fill small arrays by value, and a fill with -0.0 (== 0)
        # can become a memset to +0.0.
        host = np.asarray(x, order="C")
        flat = backend("gpu").xp.empty(host.size, dtype=host.dtype)
        flat.set(host.reshape(-1))
        return flat.reshape(host.shape)
    if is_gpu_array(x):
        return addressable(x).get()
    return np.asarray(x)


def _available_host_memory() -> tuple[int, str] | None:
    """(bytes, what they are): Linux's MemAvailable plus free swap (what can still be allocated
    without killing a process), else the physical memory; None where neither is known."""
    try:
        with open("/proc/meminfo") as f:   # "MemAvailable:   24150416 kB"
            fields = {name.rstrip(":"): int(value) * 1024
                      for name, value, *_ in (line.split() for line in f)}
        return fields["MemAvailable"] + fields.get("SwapFree", 0), "available"
    except (OSError, KeyError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"), "physical"
    except (AttributeError, ValueError, OSError):   # not a POSIX system: NumPy's own check
        return None


def require_host_memory(nbytes: int, what: str) -> None:
    """MemoryError naming `what` if `nbytes` exceed the host memory still available (where Linux
    overcommits, such an allocation succeeds and the process is killed while it is filled: the
    second of two arrays that each fit the machine's memory did that)."""
    known = _available_host_memory()
    if known is not None and nbytes > known[0]:
        raise MemoryError(f"{what} needs {nbytes / 2**30:.1f} GiB, more than this machine's "
                          f"{known[0] / 2**30:.1f} GiB of {known[1]} memory")


def broadcast_shape(*shapes, rule=np.broadcast_shapes) -> tuple:
    """The broadcast shape by `rule` (NumPy's; dask's takes unknown, nan sizes), or a
    ValueError naming every operand shape."""
    try:
        return rule(*shapes)
    except ValueError:
        raise ValueError("operands could not be broadcast together: shapes "
                         + " and ".join(map(str, shapes))) from None


def data_address(x) -> int:
    """The address of x's first element (NumPy or CuPy)."""
    return x.data.ptr if is_gpu_array(x) else x.__array_interface__["data"][0]


def _start_aligned(x) -> bool:
    """Whether x's first item's address is a multiple of its item size (NumPy's `aligned` flag
    proves it without building __array_interface__ where the dtype's alignment is its size)."""
    if not is_gpu_array(x) and x.flags.aligned and x.dtype.alignment == x.itemsize:
        return True
    return data_address(x) % x.itemsize == 0


def element_strides(x) -> tuple | None:
    """x's strides in items (x.itemsize bytes) when a kernel can address x in place with them,
    else None. This is the one conversion of byte strides to kernel strides: it proves the
    address of the first item and the stride of every axis longer than 1 to be multiples of the
    item size (a record-array field, an ndarray at a byte offset or a frombuffer view may break
    either; `stride // itemsize` would then address the wrong bytes). Zero strides (broadcast)
    and negative strides are exact like any other. An axis of length <= 1 is never stepped
    along: its stride is given as 0 when it is not a multiple."""
    size = x.itemsize
    if x.size and not _start_aligned(x):
        return None
    strides = []
    for extent, stride in zip(x.shape, x.strides):
        if stride % size:
            if extent > 1:
                return None
            stride = 0
        strides.append(stride // size)
    return tuple(strides)


def _grid_axes(x) -> tuple | None:
    """(first item's address in items, [(stride, extent), ...]) of an array that element_strides
    addresses: the axes that step to new items (extent > 1, stride != 0), each with a positive
    stride (a negative one's axis read backwards), by decreasing stride; None otherwise."""
    strides = element_strides(x)
    if strides is None:
        return None
    start = data_address(x) // x.itemsize
    axes = []
    for extent, stride in zip(x.shape, strides):
        if extent > 1 and stride != 0:
            if stride < 0:
                start, stride = start + (extent - 1) * stride, -stride
            axes.append((stride, extent))
    return start, sorted(axes, reverse=True)


def _on_strides(axes: list, strides: list) -> list | None:
    """axes [(stride, extent)] stated on the given strides (an axis absent from `axes` has
    extent 1), or None when one of them has a stride not among `strides`."""
    extents = dict.fromkeys(strides, 1)
    for stride, extent in axes:
        if extents.get(stride) != 1:
            return None
        extents[stride] = extent
    return [(s, extents[s]) for s in strides]


LISTED_ITEMS_MAX = 1 << 22   # distinct_elements, may_overlap: the most items listed one by one


def _item_addresses(x):
    """The sorted byte addresses of x's items (int64, on the host; only shape, strides and the
    first item's address are read)."""
    addresses = np.full(1, data_address(x), dtype=np.int64)
    for stride, extent in zip(x.strides, x.shape):
        addresses = (addresses[:, None] + stride * np.arange(extent, dtype=np.int64)).ravel()
    addresses.sort()
    return addresses


def distinct_elements(x) -> bool:
    """Whether no two elements of x share a byte (an output must hold distinct elements).
    Axes of length > 1 sorted by |stride|: each stride at least the span of the smaller ones
    proves it (every strided view of one array); otherwise the items are listed (up to
    LISTED_ITEMS_MAX; a larger x is not proved: False) and must lie an item apart."""
    if x.size <= 1:
        return True
    span = x.itemsize
    for stride, extent in sorted((abs(s), e) for s, e in zip(x.strides, x.shape) if e > 1):
        if stride < span:
            break
        span = stride * (extent - 1) + span
    else:
        return True
    if x.size > LISTED_ITEMS_MAX:
        return False
    return bool(np.all(np.diff(_item_addresses(x)) >= x.itemsize))


def _listed_overlap(x, y) -> bool:
    """Whether an item of x and one of y share a byte, from their listed addresses."""
    xs, ys = _item_addresses(x), _item_addresses(y)
    below = np.searchsorted(xs, ys + y.itemsize)   # x's items starting before each y item ends
    return bool(np.any((below > 0) & (xs[np.maximum(below - 1, 0)] + x.itemsize > ys)))


def may_overlap(x, y) -> bool:
    """Whether arrays x and y (one device) may have an element in common. Exact for arrays of
    one item size whose steps take at most two strides between them, the larger a multiple of
    the smaller: the blocks of one matrix, transposed, reversed or stepped, such as a
    factorization's panels and trailing matrix (_grid_overlap); exact as well for other x and y
    of at most LISTED_ITEMS_MAX items together (record-array fields, odd strides: their items
    listed). Otherwise the bounds test of may_share_memory (True when the address ranges
    meet)."""
    if not array_module(x).may_share_memory(x, y):
        return False
    on_grid = _grid_overlap(x, y)
    if on_grid is not None:
        return on_grid
    return x.size + y.size > LISTED_ITEMS_MAX or _listed_overlap(x, y)


def _grid_overlap(x, y) -> bool | None:
    """may_overlap's exact case by arithmetic on the strides; None outside it."""
    if x.itemsize != y.itemsize:
        return None
    gx, gy = _grid_axes(x), _grid_axes(y)
    if gx is None or gy is None:
        return None
    (start_x, axes_x), (start_y, axes_y) = gx, gy
    strides = sorted({s for s, _ in axes_x + axes_y}, reverse=True)
    if len(strides) > 2:
        return None
    axes_x, axes_y = _on_strides(axes_x, strides), _on_strides(axes_y, strides)
    if axes_x is None or axes_y is None:
        return None
    if not strides:                      # two single items
        return start_x == start_y
    step = strides[-1]
    if strides[0] % step:
        return None
    offset, apart = divmod(start_y - start_x, step)
    if apart:                            # every address is its start + a multiple of step
        return False
    width = strides[0] // step if len(strides) == 2 else 1
    (rows_x, columns_x), (rows_y, columns_y) = (
        (axes[0][1], axes[-1][1]) if len(strides) == 2 else (1, axes[0][1])
        for axes in (axes_x, axes_y))
    # x's items are start_x + (p width + q) step, y's start_y + (p' width + q') step: one is
    # in both iff (p - p') width + (q - q') = offset for some rows p, p' and columns q, q'
    low = max(1 - rows_y, -((columns_x - 1 - offset) // width))
    high = min(rows_x - 1, (offset + columns_y - 1) // width)
    return low <= high


def _byte_view(x):
    """x (CuPy) as a uint8 array of shape x.shape + (itemsize,) over the same bytes: CuPy's
    kernels index a view by its byte strides and would load a misaligned item whole, which the
    GPU refuses; uint8 items have no alignment."""
    xp = backend("gpu").xp
    return xp.ndarray(x.shape + (x.itemsize,), dtype=np.uint8, memptr=x.data,
                      strides=x.strides + (1,))


def contiguous(x):
    """x itself when it is C-contiguous and element_strides proves it addressable, else a new
    C-contiguous copy (new allocations are aligned). Unlike ascontiguousarray, this never hands a
    misaligned array to a kernel; on the GPU an unaddressable x is copied byte by byte."""
    if x.flags.c_contiguous and element_strides(x) is not None:
        return x
    if not is_gpu_array(x):
        return np.array(x, order="C", copy=True)
    out = backend("gpu").xp.empty(x.shape, dtype=x.dtype)
    _byte_view(out)[...] = _byte_view(x)
    return out


def addressable(x):
    """x itself when element_strides can address it, else a C-contiguous copy: what array
    libraries' own kernels (CuPy's elementwise operations and copies index items by their byte
    strides) may read safely."""
    return x if element_strides(x) is not None else contiguous(x)


def copy_into(target, source) -> None:
    """target[...] = source for arrays of one shape and device, whatever target's strides and
    alignment (on the GPU byte by byte when element_strides cannot address target)."""
    if is_gpu_array(target) and element_strides(target) is None:
        _byte_view(target)[...] = _byte_view(contiguous(source))
    else:
        target[...] = source


def _common_strides(hi, lo) -> tuple | None:
    """hi's element_strides when they address lo as well (the same on every axis of extent > 1,
    the only ones a kernel steps along), else None."""
    strides, lo_strides = element_strides(hi), element_strides(lo)
    if strides is None or lo_strides is None:
        return None
    stepped = [extent > 1 for extent in hi.shape]
    if any(h != l for h, l, step in zip(strides, lo_strides, stepped) if step):
        return None
    return strides


def kernel_parts(hi, lo) -> tuple:
    """(hi, lo, *strides in items) for a kernel reading the pair with one set of strides: hi
    and lo in place when _common_strides addresses both, else contiguous copies."""
    strides = _common_strides(hi, lo)
    if strides is None:
        hi, lo = contiguous(hi), contiguous(lo)
        strides = element_strides(hi)
    return (hi, lo, *strides)


def in_place(hi, lo) -> bool:
    """Whether a kernel can write the pair in place: _common_strides."""
    return _common_strides(hi, lo) is not None


def output_strides(hi, lo) -> tuple:
    """The item strides of an output pair that the GEMM front end made addressable (in_place);
    a ValueError rather than a stride a kernel cannot address."""
    strides = _common_strides(hi, lo)
    if strides is None:
        raise ValueError("internal error: a GEMM output that a kernel cannot address in place "
                         "reached a launch (the front end computes into a copy)")
    return strides


def kernel_operand(x, shape: tuple):
    """(data, step) for an elementwise kernel argument of the broadcast `shape`: a single value
    with step 0, else a contiguous array of `shape` (copied once if x is strided, partially
    broadcast or not addressable: see contiguous) with step 1."""
    xp = array_module(x)
    if x.size == 1:
        return contiguous(x.reshape(1)), 0
    if x.shape != shape:
        x = xp.broadcast_to(x, shape)
    return contiguous(x), 1
