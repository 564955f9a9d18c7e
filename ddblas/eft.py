"""Error-free transformations on float64 NumPy or CuPy arrays (and Python floats).

Each returns two float64 arrays (x, y) of the broadcast shape, computed by the kernels of
cuda_src/eft.h on the inputs' device. With u = 2^-53 and round-to-nearest:

- two_sum(a, b):      s + e == a + b exactly, s = fl(a + b) (Knuth), for finite a, b whose sum
                      does not overflow, with one exception where an intermediate overflows
                      (see two_sum)
- fast_two_sum(a, b): the same (Dekker's Fast2Sum), if a == 0 or exponent(a) >= exponent(b)
                      (IEEE exponents, implied by |a| >= |b|); checked unless check=False
- split(a):           hi + lo == a exactly, each with at most 26 significant bits, for finite a
                      (Veltkamp/Dekker; inputs above 2^996 are scaled first, as in QD), except
                      |a| > 2^1024 - 2^997, where lo has 27 (see split)
- two_prod(a, b, fma=True): p + e == a * b exactly, p = fl(a * b), if a*b == 0 or
                      |a*b| >= 2^-968 (no underflow) and p is finite; fma=False uses Dekker's
                      product (no FMA)
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
    """(s, e) with s = fl(a + b) and s + e == a + b exactly (Knuth's TwoSum), for finite a, b
    whose sum does not overflow (then s is infinite and e NaN).

    One exception (cuda_src/eft.h): b = +-DBL_MAX and a of the opposite sign an odd multiple of
    2^970 with |a + b| >= 2^1023. The sum then rounds up in magnitude from a tie, the
    intermediate s - a overflows, and e is NaN although s is finite.
    """
    return _pair_kernel("ddblas_two_sum", a, b)


def fast_two_sum(a, b, check=True):
    """(s, e) with s = fl(a + b) and s + e == a + b exactly (Dekker's Fast2Sum), for finite a, b
    whose sum does not overflow, if a == 0 or exponent(a) >= exponent(b) (e.g. |a| >= |b|).
    The exponents are IEEE's: every subnormal has that of the smallest normal, 2^-1022, so any
    two subnormals qualify. check=True raises a ValueError where the precondition fails;
    check=False skips that pass over the data."""
    (a, b), _, be = _float64_inputs(a, b)
    if check:
        xp = be.xp
        # frexp's exponent is IEEE's + 1 for normal numbers; -1021 for all of the subnormals
        ea, eb = (xp.maximum(xp.frexp(x)[1], -1021) for x in (a, b))
        bad = (ea < eb) & (a != 0) & (b != 0) & xp.isfinite(a) & xp.isfinite(b)
        if bool(bad.any()):
            raise ValueError("fast_two_sum needs exponent(a) >= exponent(b) or a == 0 "
                             "(e.g. |a| >= |b|) elementwise; use two_sum for arbitrary inputs")
    return _pair_kernel("ddblas_fast_two_sum", a, b)


def split(a):
    """(hi, lo) with hi + lo == a exactly, each fitting in 26 significant bits, for finite a
    (Veltkamp's split; above 2^996 a is scaled by 2^-28 first, as in QD).

    Exception (cuda_src/eft.h): for |a| > 2^1024 - 2^997 the nearest 26-bit hi is 2^1024, which
    overflows, so hi is the next 26-bit value below and lo has 27 significant bits.
    """
    (a,), shape, be = _float64_inputs(a)
    xp = be.xp
    data = _backend.contiguous(a)
    hi = xp.empty(shape, dtype=np.float64)
    lo = xp.empty(shape, dtype=np.float64)
    be.launch("ddblas_split", data.size, data.size, data, hi, lo)
    return hi, lo


def two_prod(a, b, fma=True):
    """(p, e) with p = fl(a * b) and p + e == a * b exactly, if a*b == 0 or |a*b| >= 2^-968
    (no underflow in e) and p is finite.
    fma=True: one FMA (2MultFMA); fma=False: Dekker's product with Veltkamp's split."""
    if not isinstance(fma, bool):
        raise ValueError(f"fma must be True or False, got {fma!r}")
    return _pair_kernel("ddblas_two_prod_fma" if fma else "ddblas_two_prod_dekker", a, b)
