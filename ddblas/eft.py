"""Error-free transformations on float64 NumPy or CuPy arrays (and Python floats).

Each returns two float64 arrays (x, y) of the broadcast shape, computed by the kernels of
cuda_src/eft.h on the inputs' device. With u = 2^-53 and round-to-nearest:

- two_sum(a, b):      s + e == a + b exactly, s = fl(a + b)       (Knuth; any finite a, b)
- fast_two_sum(a, b): the same, needs exponent(a) >= exponent(b) or a == 0, implied by |a| >= |b|
                      (Dekker's Fast2Sum); checked unless check=False
- split(a):           hi + lo == a exactly, each with at most 26 significant bits
                      (Veltkamp/Dekker; inputs above 2^996 are scaled first, as in QD)
- two_prod(a, b, fma=True): p + e == a * b exactly, p = fl(a * b), if |a*b| >= 2^-968 (no
                      underflow) and p is finite; fma=False uses Dekker's product (no FMA)
"""
from __future__ import annotations

import numbers

import numpy as np

from .engines import backend as _backend
from .engines.backend import broadcast_shape, device_of_array, is_gpu_array, kernel_operand

__all__ = ["two_sum", "fast_two_sum", "split", "two_prod"]


def _float64_inputs(*xs):
    """The inputs as float64 arrays on one device, broadcast shape, and that device's backend.
    Python numbers follow the arrays' device (the CPU if there are none)."""
    arrays, devices = [], set()
    for x in xs:
        if isinstance(x, numbers.Real) and not isinstance(x, np.ndarray):
            x = np.asarray(float(x))
        elif isinstance(x, np.ndarray) or is_gpu_array(x):
            devices.add(device_of_array(x))
        else:
            raise TypeError(f"expected a float64 NumPy/CuPy array or a real number, "
                            f"got {type(x).__name__}")
        if x.dtype != np.float64:
            raise TypeError(f"expected float64 input, got dtype {x.dtype}; convert with "
                            ".astype(numpy.float64) if that is exact for your data")
        arrays.append(x)
    if len(devices) > 1:
        raise ValueError("inputs are on different devices (NumPy and CuPy arrays): move one "
                         "with cupy.asarray(x) or x.get()")
    device = devices.pop() if devices else "cpu"
    be = _backend.backend(device)
    arrays = [_backend.move(x, device) for x in arrays]
    return arrays, broadcast_shape(*(x.shape for x in arrays)), be


def _pair_kernel(kernel, a, b):
    (a, b), shape, be = _float64_inputs(a, b)
    xp = be.xp
    n = int(np.prod(shape, dtype=np.int64))
    (ad, astep), (bd, bstep) = kernel_operand(a, shape), kernel_operand(b, shape)
    x = xp.empty(shape, dtype=np.float64)
    y = xp.empty(shape, dtype=np.float64)
    be.launch(kernel, n, n, ad, astep, bd, bstep, x, y)
    return x, y


def two_sum(a, b):
    """(s, e) with s = fl(a + b) and s + e == a + b exactly (Knuth's TwoSum)."""
    return _pair_kernel("ddblas_two_sum", a, b)


def fast_two_sum(a, b, check=True):
    """(s, e) with s = fl(a + b) and s + e == a + b exactly (Dekker's Fast2Sum), for
    exponent(a) >= exponent(b) or a == 0 (e.g. |a| >= |b|). check=True raises a ValueError where
    the precondition fails; check=False skips that pass over the data."""
    (a, b), _, be = _float64_inputs(a, b)
    if check:
        xp = be.xp
        _, ea = xp.frexp(a)
        _, eb = xp.frexp(b)
        bad = (ea < eb) & (a != 0) & (b != 0) & xp.isfinite(a) & xp.isfinite(b)
        if bool(bad.any()):
            raise ValueError("fast_two_sum needs exponent(a) >= exponent(b) or a == 0 "
                             "(e.g. |a| >= |b|) elementwise; use two_sum for arbitrary inputs")
    return _pair_kernel("ddblas_fast_two_sum", a, b)


def split(a):
    """(hi, lo) with hi + lo == a exactly, each fitting in 26 bits (Veltkamp's split)."""
    (a,), shape, be = _float64_inputs(a)
    xp = be.xp
    data = _backend.contiguous(a)
    hi = xp.empty(shape, dtype=np.float64)
    lo = xp.empty(shape, dtype=np.float64)
    be.launch("ddblas_split", data.size, data.size, data, hi, lo)
    return hi, lo


def two_prod(a, b, fma=True):
    """(p, e) with p = fl(a * b) and p + e == a * b exactly (no underflow, p finite).
    fma=True: one FMA (2MultFMA); fma=False: Dekker's product with Veltkamp's split."""
    if not isinstance(fma, bool):
        raise ValueError(f"fma must be True or False, got {fma!r}")
    return _pair_kernel("ddblas_two_prod_fma" if fma else "ddblas_two_prod_dekker", a, b)
