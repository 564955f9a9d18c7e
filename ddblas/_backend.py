"""The two backends behind one interface: "cpu" (NumPy + compiled C++) and "gpu" (CuPy + NVRTC)."""
from __future__ import annotations

import functools

import numpy as np

from . import _gpu
from ._cpu import CpuBackend
from ._gpu import GpuBackend

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
    return type(x).__module__.startswith("cupy") and hasattr(x, "__cuda_array_interface__")


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
        return x.get()
    return np.asarray(x)


def broadcast_shape(*shapes) -> tuple:
    """NumPy's broadcast shape, or a ValueError naming every operand shape."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError("operands could not be broadcast together: shapes "
                         + " and ".join(map(str, shapes))) from None


def kernel_operand(x, shape: tuple):
    """(data, step) for an elementwise kernel argument of the broadcast `shape`: a single value
    with step 0, else a contiguous array of `shape` (copied once if x is strided or partially
    broadcast) with step 1."""
    xp = array_module(x)
    if x.size == 1:
        return xp.ascontiguousarray(x.reshape(1)), 0
    if x.shape != shape:
        x = xp.broadcast_to(x, shape)
    return xp.ascontiguousarray(x), 1
