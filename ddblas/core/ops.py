"""DD operations on DDArrays: the thin layer that prepares operands and launches the kernels of
cuda_src/elementwise.h on the operands' backend. No arithmetic happens here."""
from __future__ import annotations

import numbers

import numpy as np

from ..engines import backend as _backend
from .array import DDArray, asarray, is_array, operation, register_operations
from ..engines.backend import (broadcast_shape, contiguous, device_of_array, element_strides,
                               kernel_operand)
from .options import resolve

# Elements per chunk of the fixed-order reductions (sum, dot); part of the summation order, so
# CPU and GPU must use the same value.
REDUCTION_CHUNK = 256


# ---- operands ----
def _device_of_operand(x):
    if isinstance(x, DDArray):
        return x.device
    if is_array(x):
        return device_of_array(x)
    return None  # Python scalars, strings, Fractions...: follow the other operand


def on_one_device(*xs) -> list[DDArray]:
    """The operands as DDArrays on one device (DDArrays as they are); a clear error if they live
    on different ones."""
    devices = {d for d in map(_device_of_operand, xs) if d is not None}
    if len(devices) > 1:
        raise ValueError("operands are on different devices (cpu and gpu): move one with "
                         ".to_device('gpu') or .to_device('cpu') (ddblas.asarray(x, device=...) "
                         "for NumPy/CuPy arrays)")
    device = devices.pop() if devices else "cpu"
    return [asarray(x, device=device) for x in xs]


def _readable(x: DDArray) -> DDArray:
    """x, or a contiguous copy of it where a kernel could not address a part in place
    (_backend.element_strides: odd byte strides, a misaligned address)."""
    if element_strides(x.hi) is not None and element_strides(x.lo) is not None:
        return x
    return DDArray(contiguous(x.hi), contiguous(x.lo), normalize=False)


def operands(*xs) -> list[DDArray]:
    """on_one_device(*xs), each readable by kernels in place (else a contiguous copy): for
    inputs only, never for an output."""
    return [_readable(x) for x in on_one_device(*xs)]


def _contiguous_parts(x: DDArray, shape: tuple):
    """(hi, lo, step) for a kernel: see _backend.kernel_operand."""
    (hi, step), (lo, _) = kernel_operand(x.hi, shape), kernel_operand(x.lo, shape)
    return hi, lo, step


def binary(kernel: str, a, b, dtype=np.float64):
    """Launch the DD (op) DD kernel `kernel` (elementwise.h's binary signature) on a and b with
    NumPy broadcasting: a DDArray, or a bool array for dtype=np.bool_."""
    a, b = operands(a, b)
    shape = broadcast_shape(a.shape, b.shape)
    be = _backend.backend(a.device)
    n = int(np.prod(shape, dtype=np.int64))
    ah, al, astep = _contiguous_parts(a, shape)
    bh, bl, bstep = _contiguous_parts(b, shape)
    if dtype == np.bool_:
        out = be.xp.empty(shape, dtype=np.bool_)
        be.launch(kernel, n, n, ah, al, astep, bh, bl, bstep, out)
        return out
    out_hi = be.xp.empty(shape, dtype=np.float64)
    out_lo = be.xp.empty(shape, dtype=np.float64)
    be.launch(kernel, n, n, ah, al, astep, bh, bl, bstep, out_hi, out_lo)
    return DDArray(out_hi, out_lo, normalize=False)


def unary(kernel: str, a) -> DDArray:
    """Launch the f(DD) -> DD kernel `kernel` (elementwise.h's unary signature) on a."""
    (a,) = operands(a)
    be = _backend.backend(a.device)
    ah, al, step = _contiguous_parts(a, a.shape)
    out_hi = be.xp.empty(a.shape, dtype=np.float64)
    out_lo = be.xp.empty(a.shape, dtype=np.float64)
    be.launch(kernel, a.size, a.size, ah, al, step, out_hi, out_lo)
    return DDArray(out_hi, out_lo, normalize=False)


# ---- elementwise arithmetic ----
def add(a, b, *, fma=None, add=None) -> DDArray:
    """a + b in DD (NumPy broadcasting). add="accurate": relative error <= 3u^2/(1-4u);
    add="sloppy": error <= 3.0000001u^2 (|a| + |b|). fma does not matter here."""
    return binary("ddblas_add_" + resolve(fma, add).suffix, a, b)


def subtract(a, b, *, fma=None, add=None) -> DDArray:
    """a - b in DD, with add()'s bounds."""
    return binary("ddblas_sub_" + resolve(fma, add).suffix, a, b)


def multiply(a, b, *, fma=None, add=None) -> DDArray:
    """a * b in DD. fma=True: relative error <= 5u^2; fma=False (Dekker, no FMA): <= 8u^2 + O(u^3)."""
    return binary("ddblas_mul_" + resolve(fma, add).suffix, a, b)


def divide(a, b, *, fma=None, add=None) -> DDArray:
    """a / b in DD, relative error <= 15u^2 + 56u^3 (same result for every variant)."""
    return binary("ddblas_div_" + resolve(fma, add).suffix, a, b)


def sqrt(a, *, fma=None, add=None) -> DDArray:
    """sqrt(a) in DD, relative error <= 6u^2 (same result for every variant); nan for a < 0."""
    return unary("ddblas_sqrt_" + resolve(fma, add).suffix, a)


def negative(a) -> DDArray:
    """-a, exact."""
    return unary("ddblas_neg", a)


def absolute(a) -> DDArray:
    """|a|, exact."""
    return unary("ddblas_abs", a)


def _comparison(name):
    def compare(a, b):
        return binary("ddblas_" + name, a, b, dtype=np.bool_)
    compare.__name__ = name
    compare.__doc__ = f"Elementwise {name}(a, b) of the exact DD values, as a bool array."
    return compare


equal = _comparison("equal")
not_equal = _comparison("not_equal")
less = _comparison("less")
less_equal = _comparison("less_equal")
greater = _comparison("greater")
greater_equal = _comparison("greater_equal")


# ---- reductions ----
def _normalize_axes(axis, ndim: int) -> tuple:
    """axis (None, an int or a tuple/list of ints, as NumPy takes them) as a tuple of distinct
    non-negative axes; a TypeError for other types, a ValueError when out of bounds or repeated."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if _is_axis_index(axis) else axis
    if not isinstance(axes, (tuple, list)) or not all(map(_is_axis_index, axes)):
        raise TypeError(f"axis must be None, an int or a tuple of ints, got {axis!r}")
    out = []
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise ValueError(f"axis {ax!r} is out of bounds for an array of dimension {ndim}")
        out.append(int(ax) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in {axis!r}")
    return tuple(out)


def _is_axis_index(ax) -> bool:
    return isinstance(ax, numbers.Integral) and not isinstance(ax, (bool, np.bool_))


def _reduce_rows(be, hi, lo, suffix: str):
    """Sum each row of the (rows, length) contiguous arrays in the fixed chunked order."""
    rows, length = hi.shape
    while True:
        chunks = -(-length // REDUCTION_CHUNK)
        out_hi = be.xp.empty((rows, chunks), dtype=np.float64)
        out_lo = be.xp.empty((rows, chunks), dtype=np.float64)
        be.launch("ddblas_sum_" + suffix, rows * chunks, rows, length, REDUCTION_CHUNK,
                  hi, lo, out_hi, out_lo)
        if chunks == 1:
            return out_hi[:, 0], out_lo[:, 0]
        hi, lo, length = out_hi, out_lo, chunks


def sum(a, axis=None, *, keepdims=False, fma=None, add=None) -> DDArray:  # noqa: A001
    """Sum over the given axes (all by default), accumulated in DD in a fixed order: chunks of
    256 elements left to right, then the chunk sums likewise. Error <= (n - 1) * 3.0000001u^2 *
    sum(|a|) for n summed elements; identical on CPU and GPU."""
    (a,) = operands(a)
    suffix = resolve(fma, add).suffix
    axes = _normalize_axes(axis, a.ndim)
    kept = [d for d in range(a.ndim) if d not in axes]
    out_shape = tuple(a.shape[d] for d in kept)
    length = int(np.prod([a.shape[d] for d in axes], dtype=np.int64))
    rows = int(np.prod(out_shape, dtype=np.int64))
    xp = a.xp
    if length == 0 or rows == 0:
        result = DDArray(xp.zeros(out_shape), xp.zeros(out_shape), normalize=False)
    else:
        order = kept + list(axes)
        hi = xp.ascontiguousarray(a.hi.transpose(order)).reshape(rows, length)
        lo = xp.ascontiguousarray(a.lo.transpose(order)).reshape(rows, length)
        s_hi, s_lo = _reduce_rows(_backend.backend(a.device), hi, lo, suffix)
        result = DDArray(s_hi.reshape(out_shape), s_lo.reshape(out_shape), normalize=False)
    if keepdims:
        result = result.reshape(tuple(1 if d in axes else a.shape[d] for d in range(a.ndim)))
    return result


def dot(x, y, *, fma=None, add=None) -> DDArray:
    """Inner product of two 1-D arrays of equal length in DD (a scalar operand multiplies).
    Each product is a DD multiply, the sums DD adds in the fixed order of sum(): error <=
    (c_mul + 3.0000001 (n - 1)) u^2 sum(|x_i y_i|)."""
    x, y = operands(x, y)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y, fma=fma, add=add)
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"dot takes two 1-D arrays of equal length (or a scalar), got shapes "
                         f"{x.shape} and {y.shape}")
    n = x.shape[0]
    xp = x.xp
    if n == 0:
        return DDArray(xp.zeros(()), xp.zeros(()), normalize=False)
    suffix = resolve(fma, add).suffix
    be = _backend.backend(x.device)
    chunks = -(-n // REDUCTION_CHUNK)
    part_hi = xp.empty((1, chunks), dtype=np.float64)
    part_lo = xp.empty((1, chunks), dtype=np.float64)
    xh, xl, _ = _contiguous_parts(x, x.shape)
    yh, yl, _ = _contiguous_parts(y, y.shape)
    be.launch("ddblas_dot_" + suffix, chunks, n, REDUCTION_CHUNK, xh, xl, 1, yh, yl, 1,
              part_hi, part_lo)
    s_hi, s_lo = _reduce_rows(be, part_hi, part_lo, suffix)
    return DDArray(s_hi.reshape(()), s_lo.reshape(()), normalize=False)


# ---- NumPy protocols ----
_UFUNCS = {
    np.add: add, np.subtract: subtract, np.multiply: multiply, np.true_divide: divide,
    np.sqrt: sqrt, np.negative: negative, np.absolute: absolute,
    np.equal: equal, np.not_equal: not_equal, np.less: less, np.less_equal: less_equal,
    np.greater: greater, np.greater_equal: greater_equal,
}


def _matmul(a, b):
    return operation("matmul")(a, b)  # blas.gemm's matmul, registered with DDArray's operators


_UFUNCS[np.matmul] = _matmul


def register_ufuncs(table: dict) -> None:
    """Add {NumPy ufunc: DD function} rows to what array_ufunc dispatches (for the modules that
    import this one, e.g. core.elementary)."""
    _UFUNCS.update(table)


def array_ufunc(self: DDArray, ufunc, method, inputs, kwargs):
    """NEP 13: NumPy ufuncs on DDArrays run the DD kernels; others raise a TypeError."""
    if ufunc is np.positive and method == "__call__" and len(inputs) == 1 and not kwargs:
        return inputs[0]
    func = _UFUNCS.get(ufunc)
    if func is None or method != "__call__":
        what = f"ufunc '{ufunc.__name__}'" + ("" if method == "__call__" else f" method '{method}'")
        raise TypeError(f"ddblas: {what} is not supported for DDArray")
    out = kwargs.pop("out", None)
    if kwargs:
        raise TypeError(f"ddblas: ufunc '{ufunc.__name__}' with keyword(s) "
                        f"{', '.join(sorted(kwargs))} is not supported for DDArray")
    result = func(*inputs)
    if out is not None:
        (target,) = out
        if isinstance(result, DDArray) and isinstance(target, DDArray):
            target[...] = result
        elif not isinstance(result, DDArray) and not isinstance(target, DDArray):
            target[...] = result
        else:
            raise TypeError(f"ddblas: out= for ufunc '{ufunc.__name__}' must be a "
                            f"{'DDArray' if isinstance(result, DDArray) else 'bool array'}")
        return target
    return result


def _shape(a): return a.shape
def _ndim(a): return a.ndim
def _size(a): return a.size
def _copy(a): return a.copy()
def _transpose(a, axes=None): return a.transpose(axes) if axes is not None else a.T
def _reshape(a, shape): return a.reshape(shape)
def _np_sum(a, axis=None, keepdims=False): return sum(a, axis=axis, keepdims=keepdims)


_FUNCTIONS = {
    np.sum: _np_sum, np.dot: dot, np.shape: _shape, np.ndim: _ndim, np.size: _size,
    np.copy: _copy, np.transpose: _transpose, np.reshape: _reshape,
}


def array_function(func, types, args, kwargs):
    """NEP 18: the NumPy functions listed in _FUNCTIONS run on DDArrays; the others raise
    NumPy's TypeError naming the function."""
    impl = _FUNCTIONS.get(func)
    if impl is None or not all(issubclass(t, (DDArray, np.ndarray)) for t in types):
        return NotImplemented
    return impl(*args, **kwargs)


register_operations(add=add, subtract=subtract, multiply=multiply, divide=divide,
                    negative=negative, absolute=absolute, equal=equal, not_equal=not_equal,
                    less=less, less_equal=less_equal, greater=greater,
                    greater_equal=greater_equal, sum=sum, array_ufunc=array_ufunc,
                    array_function=array_function)
