"""DD operations on DDArrays: the thin layer that prepares operands and launches the kernels of
cuda_src/elementwise.h on the operands' backend. No arithmetic happens here."""
from __future__ import annotations

import inspect
import numbers

import numpy as np

from ..engines import backend as _backend
from .array import (DDArray, asarray, dd, is_array, is_nested, is_writable, operation,
                    register_operations)
from ..engines.backend import (addressable, array_module, broadcast_shape, contiguous,
                               device_of_array, element_strides, kernel_operand)
from .bounds import bound
from .convert import scalar_to_dd
from .options import resolve

# Elements per chunk of the fixed-order reductions (sum, dot); part of the summation order, so
# CPU and GPU must use the same value.
REDUCTION_CHUNK = 256


# ---- operands ----
def _device_of_operand(x):
    if isinstance(x, DDArray):
        return x.device
    if is_array(x) and not (isinstance(x, np.ndarray) and x.dtype.kind in "US") \
            and x.dtype.kind != "c":
        return device_of_array(x)
    # Python scalars, strings, Fractions, lists and NumPy string arrays (text, parsed on the
    # host whatever the device): follow the other operand; complex arrays too, so that their
    # refusal names the argument on any device (not the devices' error)
    return None


def named_operand(x, name: str | None, device: str | None = None) -> DDArray:
    """asarray(x, device=device), its error for a value that is not a number naming the argument
    `name` (where given): "b: cannot convert NoneType value None ..."."""
    try:
        return asarray(x, device=device)
    except (TypeError, ValueError) as error:
        if name is None:
            raise
        raise type(error)(f"{name}: {error}") from None


def on_one_device(*xs, names: tuple | None = None) -> list[DDArray]:
    """The operands as DDArrays on one device (DDArrays as they are); a clear error if they live
    on different ones, or where one is not numbers (naming it from `names`)."""
    devices = {d for d in map(_device_of_operand, xs) if d is not None}
    if len(devices) > 1:
        raise ValueError("operands are on different devices (cpu and gpu): move one with "
                         ".to_device('gpu') or .to_device('cpu') (ddblas.asarray(x, device=...) "
                         "for NumPy/CuPy arrays)")
    device = devices.pop() if devices else "cpu"
    return [named_operand(x, name, device) for x, name in zip(xs, names or (None,) * len(xs))]


def _readable(x: DDArray) -> DDArray:
    """x, or a contiguous copy of it where a kernel could not address a part in place
    (_backend.element_strides: odd byte strides, a misaligned address)."""
    if element_strides(x.hi) is not None and element_strides(x.lo) is not None:
        return x
    return DDArray(contiguous(x.hi), contiguous(x.lo), normalize=False)


def operands(*xs, names: tuple | None = None) -> list[DDArray]:
    """on_one_device(*xs, names=names), each readable by kernels in place (else a contiguous
    copy): for inputs only, never for an output."""
    return [_readable(x) for x in on_one_device(*xs, names=names)]


def overlapping(x: DDArray, y: DDArray) -> bool:
    """Whether DDArrays x and y may share an element (_backend.may_overlap on their parts:
    exact for blocks of one matrix)."""
    return any(_backend.may_overlap(p, q) for p in (x.hi, x.lo) for q in (y.hi, y.lo))


def check_output(x: DDArray, name: str, routine: str) -> None:
    """A ValueError naming `name` unless `routine` can write every element of x: writable
    parts, each with distinct elements (no zero strides: a broadcast view). hi and lo never
    share memory: the DDArray constructor separates them."""
    if not all(_backend.distinct_elements(part) for part in (x.hi, x.lo)):
        raise ValueError(f"{name} has elements that share memory (zero strides: a broadcast "
                         f"view, or overlapping strides): {routine} writes every element of "
                         f"{name}, pass an array with distinct elements (e.g. a copy())")
    if not is_writable(x):
        raise ValueError(f"{name} is read-only: {routine} overwrites {name}, pass a writable "
                         f"array")


def _contiguous_parts(x: DDArray, shape: tuple):
    """(hi, lo, step) for a kernel: see _backend.kernel_operand."""
    (hi, step), (lo, _) = kernel_operand(x.hi, shape), kernel_operand(x.lo, shape)
    return hi, lo, step


def binary(kernel: str, a, b, dtype=np.float64, names: tuple | None = None):
    """Launch the elementwise kernel `kernel` on a and b (NumPy broadcasting, any strides):
    a DDArray, or a bool array for dtype=np.bool_. names: the arguments' names for the errors
    of operands that are not real numbers (on_one_device)."""
    a, b = operands(a, b, names=names)
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


def unary(kernel: str, a, dtype=np.float64, names: tuple | None = None):
    """Launch the elementwise kernel `kernel` on a (any strides): a DDArray, or a bool array for
    dtype=np.bool_. names: (a's name,) for the error of an operand that is not a real number."""
    (a,) = operands(a, names=names)
    be = _backend.backend(a.device)
    ah, al, step = _contiguous_parts(a, a.shape)
    if dtype == np.bool_:
        out = be.xp.empty(a.shape, dtype=np.bool_)
        be.launch(kernel, a.size, a.size, ah, al, step, out)
        return out
    out_hi = be.xp.empty(a.shape, dtype=np.float64)
    out_lo = be.xp.empty(a.shape, dtype=np.float64)
    be.launch(kernel, a.size, a.size, ah, al, step, out_hi, out_lo)
    return DDArray(out_hi, out_lo, normalize=False)


def elementwise_function(name: str, kernel: str, parameters: tuple, summary: str,
                         special: str, section: str):
    """The public DD function `name`: its operands (`parameters`, one or two names; two are
    broadcast as NumPy does) go to the kernel f"{kernel}_{variant suffix}" through unary or
    binary, with fma= and add= keywords for the variant, and a NumPy-style docstring made of
    `summary` (its first lines), `special` (the Returns text: special values) and the measured
    bound bound(name) from docs/algorithms.md's `section`."""
    if len(parameters) == 1:
        def function(x, *, fma=None, add=None) -> DDArray:
            return unary(f"{kernel}_{resolve(fma, add).suffix}", x, names=parameters)
    else:
        def function(x1, x2, /, *, fma=None, add=None) -> DDArray:
            return binary(f"{kernel}_{resolve(fma, add).suffix}", x1, x2, names=parameters)
        function.__signature__ = inspect.Signature(
            [inspect.Parameter(p, inspect.Parameter.POSITIONAL_ONLY) for p in parameters]
            + [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None)
               for k in ("fma", "add")], return_annotation="DDArray")
    names = ", ".join(parameters)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"""{summary}

    Parameters
    ----------
    {names} : DDArray or array_like
        The argument{"s, broadcast together as NumPy does" if len(parameters) > 1 else ""}
        (float64, DD or Python numbers; a DDArray's device is kept).
    fma, add : optional
        The arithmetic variant (ddblas.options); None takes the active options.

    Returns
    -------
    DDArray
        {special}

    Notes
    -----
    Algorithm and range: docs/algorithms.md, "{section}". Relative error
    <= {bound(name):g} u^2 (u = 2^-53), measured (not proven) against mpmath on that range for
    every variant (ddblas.accuracy.bound("{name}")). Same bits on the CPU and the GPU.
    """
    return function


# ---- elementwise arithmetic ----
def scale(x: DDArray, k) -> DDArray:
    """x 2^k (k an int or an int array broadcasting with x, |k| <= 1022): a DD multiplication by
    a power of two, exact unless a part of x 2^k is subnormal (it then loses its bits below
    2^-1074) or overflows (then +-inf with lo = 0)."""
    return multiply(x, x.xp.ldexp(1.0, x.xp.asarray(k).astype(np.int32)))


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
    """sqrt(a) in DD, relative error <= 6u^2 (same result for every variant); nan for a < 0.
    Where the remainder a - s^2 is subnormal (a below about 2^-968) an absolute error of up to
    0.75 2^-1074 / sqrt(a) comes on top (docs/algorithms.md, "Near the underflow threshold")."""
    return unary("ddblas_sqrt_" + resolve(fma, add).suffix, a)


def negative(a) -> DDArray:
    """-a, exact."""
    return unary("ddblas_neg", a)


def absolute(a) -> DDArray:
    """|a|, exact."""
    return unary("ddblas_abs", a)


def _split_numbers(x):
    """(values, mask) for an operand of a comparison that does not convert to DD as a whole: x
    with each entry that is not a number (None, a dict, bytes, a string that does not parse as
    one...) replaced by 0, and whether each entry was one (nested lists of x's nesting; a mask
    entry of an array among them is an array of its shape). Numbers that ddblas refuses
    (complex...) raise as ddblas.array raises."""
    if is_nested(x):
        pairs = [_split_numbers(item) for item in x]
        return [v for v, _ in pairs], [m for _, m in pairs]
    if isinstance(x, np.ndarray) and x.dtype.kind in "OUS":   # entries of any type, strings
        if x.ndim:
            return _split_numbers(list(x))
        return _split_numbers(x.item())
    if isinstance(x, np.ndarray) and x.dtype.kind in "mM":   # dates and durations
        return np.zeros(x.shape), np.ones(x.shape, dtype=bool)
    if isinstance(x, DDArray) or is_array(x):   # numbers (a numeric array refused: as it says)
        return x, np.zeros(x.shape, dtype=bool)
    try:
        scalar_to_dd(x)
    except (TypeError, ValueError):
        if isinstance(x, numbers.Number) and not isinstance(x, np.timedelta64):
            raise
        return 0, True
    return x, False


def _numpy_text(x) -> bool:
    """Whether NumPy reads x as strings, bytes, dates or durations (an array of dtype kind U, S,
    M or m, or a str, bytes or list that np.asarray makes one): its comparison ufuncs have no
    loop for those against numbers, a TypeError where its == and != operators answer. Lists
    NumPy cannot read (DDArrays among the items, ragged ones) are not."""
    if isinstance(x, np.ndarray):
        return x.dtype.kind in "USMm"
    if not (isinstance(x, (str, bytes, np.generic)) or is_nested(x)):
        return False
    try:
        return np.asarray(x).dtype.kind in "USMm"
    except (TypeError, ValueError):
        return False


# {name: the comparison as the NumPy ufunc runs it}: see _comparison
_UFUNC_COMPARISONS: dict = {}


def _comparison(name, symbol):
    """The public comparison `name` (operator `symbol`) of DD values, with NumPy's answers for a
    DDArray against an object that is not a number (a string that does not parse as one too),
    entry by entry for lists and object or string arrays that hold some: False (==), True
    (!=), a TypeError (orderings). Its ufunc form (_UFUNC_COMPARISONS[name], what np.<name>
    runs) raises NumPy's ufunc TypeError where NumPy reads that object as text or dates
    (_numpy_text: np.equal(x, 'abc')), as np.equal(float64 array, 'abc') does, except for a
    NumPy array or scalar before a DDArray in equal and not_equal: NumPy's operators
    (u == x) call the ufunc so, and answer."""
    def compare_as(a, b, ufunc: bool):
        try:
            a, b = operands(a, b)
        except (TypeError, ValueError) as exc:
            ddarray, other = (a, b) if isinstance(a, DDArray) else (b, a)
            if not isinstance(ddarray, DDArray) or (isinstance(exc, ValueError) and not (
                    isinstance(other, str) or is_nested(other)
                    or isinstance(other, np.ndarray) and other.dtype.kind in "OUSmM")):
                raise  # no DDArray, or a broadcast/ragged/masked error: as it says
            try:
                values, mask = _split_numbers(other)
                values = asarray(values, device=ddarray.device)
            except (TypeError, ValueError) as error:  # numbers ddblas refuses (complex...),
                raise error from None                   # ragged lists
            mask = ddarray.xp.asarray(np.array(mask, dtype=bool).reshape(values.shape))
            if not bool(mask.any()):
                raise
            what = type(other).__name__ + (" entries that are not numbers" if mask.ndim
                                           else " (not a number)")
            if ufunc and _numpy_text(other):
                raise TypeError(f"ufunc '{name}' did not contain a loop with signature matching "
                                f"types: a DDArray and {what}, which NumPy reads as text or "
                                f"dates (NumPy's ufunc raises{operator_note}): {exc}") from exc
            if symbol not in ("==", "!="):
                raise TypeError(f"'{symbol}' is not supported between a DDArray and {what}: "
                                f"{exc}") from exc
            pairs = (ddarray, values) if ddarray is a else (values, ddarray)
            result = binary("ddblas_" + name, *pairs, dtype=np.bool_)
            mask = ddarray.xp.broadcast_to(mask, result.shape)
            return result | mask if symbol == "!=" else result & ~mask
        return binary("ddblas_" + name, a, b, dtype=np.bool_)

    def compare(a, b):
        return compare_as(a, b, False)

    def ufunc_compare(a, b):
        # NumPy's own operators (u == x for a string array or a datetime64 u) run this ufunc:
        # they are told from np.equal(u, x) by nothing, so those answer as the operator
        operator = symbol in ("==", "!=") and isinstance(a, (np.ndarray, np.generic)) \
            and isinstance(b, DDArray)
        return compare_as(a, b, not operator)

    compare.__name__ = ufunc_compare.__name__ = name
    ufunc_compare.outer = lambda a, b: compare_as(a, b, True)   # no operator calls np.<name>.outer
    against = {"==": "False", "!=": "True"}.get(symbol, "a TypeError")
    operator_note = (f"; the operator {symbol} answers {against} for them"
                     if symbol in ("==", "!=") else "")
    compare.__doc__ = (f"Elementwise {name}(a, b) (a {symbol} b) of the exact DD values, as a "
                       f"bool array. Against an object that is not a number (None, a dict, a "
                       f"string that does not parse as one...) {against}, as NumPy's operator "
                       f"{symbol}; a list or an object or string array is compared entry by "
                       f"entry (strings that parse as numbers are those numbers). The ufunc "
                       f"np.{name} raises a TypeError, as NumPy's, for an operand that NumPy "
                       f"reads as text or dates (a str or bytes that is not a number, a list "
                       f"of them, a string array).")
    _UFUNC_COMPARISONS[name] = ufunc_compare
    return compare


equal = _comparison("equal", "==")
not_equal = _comparison("not_equal", "!=")
less = _comparison("less", "<")
less_equal = _comparison("less_equal", "<=")
greater = _comparison("greater", ">")
greater_equal = _comparison("greater_equal", ">=")


# ---- simple functions (cuda_src/dd_simple.h; bounds in docs/algorithms.md, "Simple functions") ----
def square(a, *, fma=None, add=None) -> DDArray:
    """a * a by the DD multiplication: multiply's bound (5u^2 with FMA, 8u^2 + O(u^3) without)."""
    return unary("ddblas_square_" + resolve(fma, add).suffix, a)


def reciprocal(a, *, fma=None, add=None) -> DDArray:
    """1 / a by the DD division: divide's bound 15u^2 + 56u^3 (same result for every variant)."""
    return unary("ddblas_reciprocal_" + resolve(fma, add).suffix, a)


def _exact_unary(name: str, kernel: str, doc: str, dtype=np.float64):
    """The public function `name` running the exact unary kernel ddblas_<kernel>."""
    def function(a):
        return unary("ddblas_" + kernel, a, dtype)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


def _exact_binary(name: str, kernel: str, doc: str):
    """The public function `name` running the exact binary kernel ddblas_<kernel>."""
    def function(a, b):
        return binary("ddblas_" + kernel, a, b)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return function


floor = _exact_unary("floor", "floor", "The largest integer <= a, exact on the DD value hi + lo.")
ceil = _exact_unary("ceil", "ceil", "The smallest integer >= a, exact on the DD value hi + lo.")
trunc = _exact_unary("trunc", "trunc", "a rounded toward zero to an integer, exact on the DD value.")
rint = _exact_unary("rint", "rint", "a rounded to the nearest integer, ties to even, exact on the "
                                    "DD value (a zero result keeps a's sign, as NumPy's rint).")
sign = _exact_unary("sign", "sign", "-1, 0 or 1 by the sign of a (NumPy's sign: +0 for -0, nan "
                                    "stays nan).")
isfinite = _exact_unary("isfinite", "is_finite", "Whether a is finite, as a bool array.", np.bool_)
isinf = _exact_unary("isinf", "is_inf", "Whether a is +inf or -inf, as a bool array.", np.bool_)
isnan = _exact_unary("isnan", "is_nan", "Whether a is nan (in either part), as a bool array.",
                     np.bool_)
copysign = _exact_binary("copysign", "copy_sign", "|a| with the sign of b (the sign bit of b's hi "
                                                  "part), exact.")
maximum = _exact_binary("maximum", "maximum", "The larger of a and b, exact; nan if either is nan "
                                              "(NumPy's maximum).")
minimum = _exact_binary("minimum", "minimum", "The smaller of a and b, exact; nan if either is nan "
                                              "(NumPy's minimum).")
fmax = _exact_binary("fmax", "maximum_number", "The larger of a and b, exact; a nan operand is "
                                               "ignored (nan only if both are: NumPy's fmax).")
fmin = _exact_binary("fmin", "minimum_number", "The smaller of a and b, exact; a nan operand is "
                                               "ignored (nan only if both are: NumPy's fmin).")

# Exponents must be below this in magnitude (the kernel takes them as int64).
MAX_EXPONENT = 2 ** 63


def _integer_exponents(exponent: DDArray):
    """The values of `exponent` as an int64 array of its device, or None if one of them is not
    an integer (nan and inf included) or is 2^63 or more in magnitude."""
    integral = isfinite(exponent) & equal(trunc(exponent), exponent)
    if not bool(integral.all()) or not bool((abs(exponent.hi) < float(MAX_EXPONENT)).all()):
        return None
    # Both parts of an integer DD are integers; |hi| < 2^63 keeps hi + lo within int64.
    return exponent.hi.astype(np.int64) + exponent.lo.astype(np.int64)


def power(x, exponent, *, fma=None, add=None) -> DDArray:
    """x ** exponent elementwise (NumPy broadcasting); integer exponents (Python or NumPy
    integers, or DD/float values that are integers) below 2^63 in magnitude by binary powering.

    Binary powering of x by |n| with the DD multiplication in a fixed order, then the reciprocal
    (DD division) for n < 0: with g = (|n| - 1) c_mul (c_mul: multiply's bound), relative error
    <= g / (1 - g) for n > 0 and <= (1 + c_div) / (1 - g / (1 - g)) - 1 for n < 0
    (docs/algorithms.md, "Integer powers"). x ** 0 = 1 for every x (nan included), x ** 1 = x,
    x ** -1 = reciprocal(x). Any other exponent (when one of them is not such an integer:
    all of them) is computed as exp(y log|x|) by ddblas.core.elementary.power, within
    accuracy.bound("real_power") (1 + |y ln x|) relative (docs/algorithms.md)."""
    x, exponent = operands(x, exponent, names=("x", "exponent"))
    n = _integer_exponents(exponent)
    if n is None:  # a non-integer exponent: exp(y log x) (core.elementary.power, registered)
        return operation("real_power")(x, exponent, fma=fma, add=add)
    shape = broadcast_shape(x.shape, exponent.shape)
    be = _backend.backend(x.device)
    xh, xl, xstep = _contiguous_parts(x, shape)
    n, nstep = kernel_operand(n, shape)
    out_hi = be.xp.empty(shape, dtype=np.float64)
    out_lo = be.xp.empty(shape, dtype=np.float64)
    size = int(np.prod(shape, dtype=np.int64))
    be.launch("ddblas_power_" + resolve(fma, add).suffix, size, size, xh, xl, xstep, n, nstep,
              out_hi, out_lo)
    return DDArray(out_hi, out_lo, normalize=False)


# ---- reductions ----
def axis_error(axis: int, ndim: int) -> ValueError:
    """NumPy's AxisError (a ValueError and an IndexError, as NumPy raises for an axis out of
    bounds; numpy.exceptions from NumPy 1.25, numpy before)."""
    return getattr(np, "exceptions", np).AxisError(int(axis), ndim)


def normalize_axes(axis, ndim: int) -> tuple:
    """axis (None, an int, a 0-d integer array or a tuple of them, as NumPy takes them; a list
    too) as a tuple of distinct non-negative axes; a TypeError for other types, axis_error when
    out of bounds, a ValueError when repeated."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if _is_axis_index(axis) else axis
    if not isinstance(axes, (tuple, list)) or not all(map(_is_axis_index, axes)):
        raise TypeError(f"axis must be None, an int or a tuple of ints, got {axis!r}")
    out = []
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise axis_error(ax, ndim)
        out.append(int(ax) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated axis in {axis!r}")
    return tuple(out)


def _is_axis_index(ax) -> bool:
    """Whether NumPy takes ax as one axis: an integer (not a bool) or a 0-d integer array."""
    if isinstance(ax, np.ndarray):
        return ax.ndim == 0 and ax.dtype.kind in "iu"
    return isinstance(ax, numbers.Integral) and not isinstance(ax, (bool, np.bool_))


def is_scalar_axis(axis, ndim: int) -> bool:
    """Whether axis is the int 0 or -1 of a 0-d array: NumPy's ufunc reductions (sum, prod, max,
    min, all, any) reduce over no axis for it, argmax/argmin and the scans read the array as its
    flattened 1-element one; mean, var, std and any tuple still raise."""
    return ndim == 0 and _is_axis_index(axis) and axis in (0, -1)


def reduction_axes(axis, ndim: int) -> tuple:
    """normalize_axes for NumPy's ufunc reductions: no axes for a 0-d array's axis 0 or -1."""
    return () if is_scalar_axis(axis, ndim) else normalize_axes(axis, ndim)


def reduce_rows(be, hi, lo, kernel: str):
    """Reduce each row of the (rows, length) contiguous arrays with a chunked kernel (`kernel`:
    its full name, e.g. "ddblas_sum_fma_accurate") in the fixed order: chunks of
    REDUCTION_CHUNK elements left to right, then the chunk results likewise, until one is left."""
    rows, length = hi.shape
    while True:
        chunks = -(-length // REDUCTION_CHUNK)
        out_hi = be.xp.empty((rows, chunks), dtype=np.float64)
        out_lo = be.xp.empty((rows, chunks), dtype=np.float64)
        be.launch(kernel, rows * chunks, rows, length, REDUCTION_CHUNK, hi, lo, out_hi, out_lo)
        if chunks == 1:
            return out_hi[:, 0], out_lo[:, 0]
        hi, lo, length = out_hi, out_lo, chunks


def reduction_rows(a: DDArray, axes: tuple):
    """(hi, lo, out_shape): a's parts as new contiguous (rows, length) arrays, the reduced axes
    last and flattened (length = their sizes' product; rows = that of the others, whose shape
    is out_shape)."""
    kept = [d for d in range(a.ndim) if d not in axes]
    out_shape = tuple(a.shape[d] for d in kept)
    length = int(np.prod([a.shape[d] for d in axes], dtype=np.int64))
    rows = int(np.prod(out_shape, dtype=np.int64))
    order = kept + list(axes)
    hi = a.xp.ascontiguousarray(a.hi.transpose(order)).reshape(rows, length)
    lo = a.xp.ascontiguousarray(a.lo.transpose(order)).reshape(rows, length)
    return hi, lo, out_shape


def kept_shape(shape: tuple, axes: tuple) -> tuple:
    """The shape of a reduction over `axes` of an array of `shape` with keepdims=True."""
    return tuple(1 if d in axes else n for d, n in enumerate(shape))


def kept_dims(result: DDArray, shape: tuple, axes: tuple) -> DDArray:
    """The reduction result over `axes` of an array of `shape`, reshaped as keepdims=True gives."""
    return result.reshape(kept_shape(shape, axes))


def plus_zero(hi, lo) -> DDArray:
    """The DD (hi + 0.0, lo + 0.0): every value as it is, except that -0.0 parts become +0.0
    (IEEE: -0 + +0 = +0). NumPy's sums start from the identity +0.0 (np.add.reduce, np.sum,
    np.dot: a sum of -0.0 terms is +0.0), where the kernels start from the first term."""
    return DDArray(hi + 0.0, lo + 0.0, normalize=False)


def row_sums(device: str, hi, lo, fma, add, divisor=None) -> DDArray:
    """The DD sums of the rows of the (rows, n) contiguous arrays (shape (rows,); 0 for n = 0)
    in the fixed chunked order, +0.0 for a zero sum (plus_zero), each divided by `divisor` (a
    DD division; mean) where given: a float, or a float64 array of one divisor per row
    (nanmean's counts).

    A row of finite terms whose sum overflowed in that order (a partial sum past DBL_MAX: inf,
    or NaN where they overflow with both signs, as float64's summation gives) is summed again
    with every term scaled by 2^-k, 2^k > 2n, and the result (after the division) scaled back
    by 2^k: then no partial sum overflows, and the result has the bits the fixed order gives
    with an unbounded exponent range (the scalings are exact but for bits below 2^-1074: an
    absolute n 2^(k-1074), where the bound is at least c_add DBL_MAX), so the bound holds; it
    is +-inf only where the result itself is past the range. Rows with inf or NaN terms keep
    their inf or NaN."""
    be = _backend.backend(device)
    xp = be.xp
    rows, n = hi.shape
    if hi.size == 0:
        total = DDArray(xp.zeros(rows), xp.zeros(rows), normalize=False)
    else:
        total = plus_zero(*reduce_rows(be, hi, lo, "ddblas_sum_" + resolve(fma, add).suffix))
    result = total if divisor is None else divide(total, divisor, fma=fma, add=add)
    overflowed = ~xp.isfinite(total.hi)
    if not bool(overflowed.any()):
        return result
    redo = xp.nonzero(overflowed & (xp.isfinite(hi) & xp.isfinite(lo)).all(axis=1))[0]
    if redo.size == 0:
        return result
    return redo_scaled(result, redo, hi, lo, n.bit_length() + 1, lambda h, l, rows: row_sums(
        device, h, l, fma, add, per_row(divisor, rows)))


def redo_scaled(result: DDArray, redo, hi, lo, k, again, power: int = 1) -> DDArray:
    """result (one DD a row of the (rows, n) arrays hi, lo) with its rows `redo` (indices)
    replaced: again(h, l, redo) of those rows' terms scaled by 2^-k (k an int, or one int64 a
    row of redo; renormalised, exact but for bits below 2^-1074), scaled back by 2^(power k),
    (+-inf, 0) past Omega. The rescue of row_sums and reductions.variances, whose fixed-order
    sums overflowed in rows of finite terms; NumPy's warnings of the scalings are not raised,
    as the kernels raise none."""
    xp = array_module(hi)
    k = xp.asarray(k)
    terms_k = k[:, None] if k.ndim else k
    with np.errstate(over="ignore", under="ignore"):
        part = DDArray(xp.ldexp(hi[redo], -terms_k), xp.ldexp(lo[redo], -terms_k))
        scaled = again(contiguous(part.hi), contiguous(part.lo), redo)
        back_hi = xp.ldexp(scaled.hi, power * k)
        back = DDArray(back_hi, xp.where(xp.isfinite(back_hi), xp.ldexp(scaled.lo, power * k),
                                         0.0))
    r_hi, r_lo = result.hi.copy(), result.lo.copy()
    r_hi[redo], r_lo[redo] = back.hi, back.lo
    return DDArray(r_hi, r_lo, normalize=False)


def per_row(value, rows):
    """value[rows] for a per-row array (ndim > 0), value itself for a scalar (or None)."""
    return value[rows] if getattr(value, "ndim", 0) > 0 else value


def masked_terms(a: DDArray, where, fill: float) -> DDArray:
    """a with its entries where NumPy's where= (a bool array-like broadcasting to a's shape;
    True: all) is False replaced by fill (a reduction's identity: 0, 1, -inf, inf)."""
    if where is True:
        return a
    xp = a.xp
    mask = xp.broadcast_to(_where_mask(where, xp), a.shape)
    return DDArray(xp.where(mask, a.hi, fill), xp.where(mask, a.lo, 0.0), normalize=False)


def initial_value(initial, device: str) -> DDArray:
    """NumPy's initial= of a reduction as a 0-d DDArray (a scalar, else a ValueError)."""
    value = named_operand(initial, "initial", device)
    if value.ndim != 0:
        raise ValueError(f"initial= must be a scalar, got shape {value.shape}")
    return value


def sum(a, axis=None, *, keepdims=False, initial=None, where=True, fma=None,  # noqa: A001
        add=None) -> DDArray:
    """Sum over the given axes (all by default), accumulated in DD in a fixed order: chunks of
    256 elements left to right, then the chunk sums likewise. Error <= (n - 1) * 3.0000001u^2 *
    sum(|a|) for n summed elements, up to DBL_MAX (finite terms whose partial sums overflow are
    summed again scaled: sum([DBL_MAX, DBL_MAX, -DBL_MAX]) is DBL_MAX); identical on CPU and
    GPU. A zero sum is +0.0 (of -0.0 terms only too), as NumPy's, whose sums start from +0.0.

    where= (NumPy's: a bool array broadcasting to a's shape) leaves out the entries where it is
    False (replaced by 0, whose additions are exact: the bound with n the count of the others);
    initial= (a scalar, default 0) is added to the sum by one more DD add (the bound with n + 1
    terms, initial among them; NumPy starts from it instead)."""
    (a,) = operands(a)
    axes = reduction_axes(axis, a.ndim)
    hi, lo, out_shape = reduction_rows(masked_terms(a, where, 0.0), axes)
    result = row_sums(a.device, hi, lo, fma, add).reshape(out_shape)
    if initial is not None:
        result = binary("ddblas_add_" + resolve(fma, add).suffix,
                        initial_value(initial, a.device), result)
    return kept_dims(result, a.shape, axes) if keepdims else result


def dot(x, y, *, fma=None, add=None) -> DDArray:
    """numpy.dot in DD. A scalar operand multiplies. Two 1-D arrays of equal length: the inner
    product, each product a DD multiply, the sums DD adds in the fixed order of sum(): error
    <= (c_mul + 3.0000001 (n - 1)) u^2 sum(|x_i y_i|) (a zero one is +0.0, as NumPy's).
    Otherwise (N-d, as NumPy):
    dot(x, y)[i..., j..., k] = sum_m x[i..., m] y[j..., m, k], computed as one matrix product
    of x as a (-1, m) matrix and y as an (m, -1) one by ddblas.matmul (rgemm, algorithm="auto",
    with its bound), so dot of 2-D arrays is x @ y bit for bit."""
    x, y = operands(x, y)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y, fma=fma, add=add)
    if x.ndim >= 2 or y.ndim >= 2:
        return _dot_by_matmul(x, y, fma=fma, add=add)
    if x.shape != y.shape:
        raise ValueError(f"dot: shapes {x.shape} and {y.shape} not aligned: "
                         f"{x.shape[0]} (dim 0) != {y.shape[0]} (dim 0)")
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
    s_hi, s_lo = reduce_rows(be, part_hi, part_lo, "ddblas_sum_" + suffix)
    return plus_zero(s_hi.reshape(()), s_lo.reshape(()))


def _dot_by_matmul(x: DDArray, y: DDArray, fma, add) -> DDArray:
    """dot of N-d operands (one at least 2-D) as one 2-D product by blas.gemm's matmul, reached
    through DDArray's operation registry (core must not import blas)."""
    length = x.shape[-1]
    y_axis = y.ndim - 2 if y.ndim >= 2 else 0  # the axis of y that is summed over
    if y.shape[y_axis] != length:
        raise ValueError(f"dot: shapes {x.shape} and {y.shape} not aligned: {length} (dim "
                         f"{x.ndim - 1}) != {y.shape[y_axis]} (dim {y_axis})")
    rest = y.shape[:y_axis] + y.shape[y_axis + 1:]
    order = (y_axis,) + tuple(d for d in range(y.ndim) if d != y_axis)
    columns = int(np.prod(rest, dtype=np.int64))
    rows = int(np.prod(x.shape[:-1], dtype=np.int64))
    product = operation("matmul")(x.reshape(rows, length),
                                  y.transpose(order).reshape(length, columns), fma=fma, add=add)
    return product.reshape(x.shape[:-1] + rest)


# ---- NumPy protocols ----
_UFUNCS = {
    np.add: add, np.subtract: subtract, np.multiply: multiply, np.true_divide: divide,
    np.sqrt: sqrt, np.negative: negative, np.absolute: absolute,
    np.equal: _UFUNC_COMPARISONS["equal"], np.not_equal: _UFUNC_COMPARISONS["not_equal"],
    np.less: _UFUNC_COMPARISONS["less"], np.less_equal: _UFUNC_COMPARISONS["less_equal"],
    np.greater: _UFUNC_COMPARISONS["greater"],
    np.greater_equal: _UFUNC_COMPARISONS["greater_equal"],
    np.square: square, np.reciprocal: reciprocal, np.power: power, np.floor: floor,
    np.ceil: ceil, np.trunc: trunc, np.rint: rint, np.sign: sign, np.copysign: copysign,
    np.isfinite: isfinite, np.isinf: isinf, np.isnan: isnan, np.maximum: maximum,
    np.minimum: minimum, np.fmax: fmax, np.fmin: fmin,
}


def _matmul(a, b):
    return operation("matmul")(a, b)  # blas.gemm's matmul, registered with DDArray's operators


def _positive(a):
    return on_one_device(a)[0].copy()   # a new array, as NumPy's +a


_UFUNCS[np.matmul] = _matmul
_UFUNCS[np.positive] = _positive


def register_ufuncs(table: dict, *, core_axis: bool = False) -> None:
    """Add {NumPy ufunc: DD function} rows to what array_ufunc dispatches (for the modules that
    import this one: core.elementary, core.trigonometric, linalg.numpy_linalg). core_axis: the
    ufuncs are gufuncs of one core dimension whose functions take NumPy's axis= (np.vecdot)."""
    _UFUNCS.update(table)
    if core_axis:
        _CORE_AXIS_UFUNCS.update(table)


_CORE_AXIS_UFUNCS: set = set()


def output_argument(out, routine: str, dd_result: bool, *, ufunc: bool = False):
    """NumPy's out= checked before anything is computed: the array to write into, or None.

    Parameters
    ----------
    out : DDArray, NumPy or CuPy array, or None
        The argument; for a ufunc (`ufunc` true) a tuple of one such entry, as NumPy hands it
        (the tuple's length is checked: a ValueError, NumPy's).
    routine : str
        What the errors name ("ufunc 'add'", "sum()").
    dd_result : bool
        Whether the result is a DDArray: out must then be one (a float64 array would drop each
        value's lo part). A bool or integer result may go into a DDArray (exact) or any NumPy/
        CuPy array its values cast to (NumPy's same_kind rule).

    Returns
    -------
    DDArray, NumPy or CuPy array, or None
        out, writable. Anything else is a TypeError; a read-only array a ValueError.
    """
    if ufunc and isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
        (out,) = out
    if out is None:
        return None
    if not (isinstance(out, DDArray) or is_array(out)):
        raise TypeError(f"ddblas: {routine}: out= must be a DDArray or a NumPy/CuPy array, got "
                        f"{type(out).__name__}")
    if dd_result and not isinstance(out, DDArray):
        raise TypeError(f"ddblas: {routine}: out= must be a DDArray for a DD result, got a "
                        f"{out.dtype} array (it would drop each value's lo part: write "
                        f"x.to_float64() into it where rounding is meant)")
    if not is_writable(out):
        raise ValueError(f"ddblas: {routine}: output array is read-only")
    return out


def store_exact_output(result, out, routine: str, rule: str | None = None,
                       casting: str = "same_kind"):
    """result where out is None, else result written into out (store_output) when out has
    exactly its shape, NumPy's rule for the out= of reductions, dot and concatenate; else a
    ValueError naming out= (and `rule`, the rule's words for the message)."""
    if out is None:
        return result
    if out.shape != result.shape:
        raise ValueError(f"ddblas: {routine}: out= has shape {out.shape}, the result "
                         f"{result.shape}" + (f" ({rule})" if rule else ""))
    return store_output(result, out, casting=casting)


def store_output(result, out, where=None, casting: str = "same_kind"):
    """Write result (a DDArray, or a NumPy/CuPy array of bools or integers) into out (checked by
    output_argument; result's shape broadcasts to out's) where `where` holds (a bool array
    broadcasting to out's shape; None: everywhere), and return out. A NumPy/CuPy out takes the
    values by NumPy's `casting` rule. result is a new array (never out's memory), so out may be
    one of the operands: the answer is NumPy's, as if the operands had been copied first."""
    if isinstance(out, DDArray):
        result = asarray(result, device=out.device)   # bools and integers: exact
        if where is not None:
            xp = out.xp
            result = DDArray(xp.where(where, result.hi, addressable(out.hi)),
                             xp.where(where, result.lo, addressable(out.lo)), normalize=False)
        out[...] = result
    else:
        array_module(out).copyto(out, result, casting=casting,
                                 where=True if where is None else where)
    return out


_BOOL_UFUNCS = {np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal,
                np.isfinite, np.isinf, np.isnan}
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _ufunc_options(ufunc, inputs, kwargs: dict, out, dd_result: bool) -> str:
    """Check the keywords of a ufunc call on DDArrays that are not out= or where= (NumPy's
    defaults, or values that change nothing for DD loops: dtype= ddblas.dd for a DD result, bool
    for a bool one; any order= and subok=, results being new C-ordered DDArrays or NumPy/CuPy
    arrays), and return casting=. casting "no" and "equiv" allow no conversion: every operand
    must be a DDArray and a bool result go into a bool array."""
    routine = f"ufunc '{ufunc.__name__}'"
    casting = kwargs.pop("casting", "same_kind")
    if casting not in _CASTINGS:
        raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' "
                         f"(got {casting!r})")
    order = kwargs.pop("order", None)
    if order is not None and (not isinstance(order, str) or order.upper() not in "KACF"
                              or len(order) != 1):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if not isinstance(kwargs.pop("subok", True), bool):
        raise TypeError("'subok' must be a boolean")
    signature = kwargs.pop("signature", None)
    if signature is not None and not (isinstance(signature, tuple)
                                      and all(t is None for t in signature)):
        raise TypeError(f"ddblas: {routine} with signature= is not supported for DDArray (its "
                        f"loops are DD ones)")
    dtype = kwargs.pop("dtype", None)
    if dtype is not None and not (dd == dtype if dd_result else _is_bool_dtype(dtype)):
        raise TypeError(f"ddblas: {routine} with dtype={dtype!r} is not supported for DDArray "
                        f"(its result is {'ddblas.dd' if dd_result else 'bool'})")
    if kwargs:
        raise TypeError(f"ddblas: {routine} with keyword(s) {', '.join(sorted(kwargs))} is not "
                        f"supported for DDArray")
    if casting in ("no", "equiv"):
        for i, x in enumerate(inputs):
            if not isinstance(x, DDArray):
                raise TypeError(f"ddblas: cannot cast {routine} input {i} ({type(x).__name__}) "
                                f"to DD with casting rule {casting!r}")
        if not dd_result and isinstance(out, DDArray):
            raise TypeError(f"ddblas: cannot cast {routine} output from bool to DD with casting "
                            f"rule {casting!r}")
    return casting


def _is_bool_dtype(dtype) -> bool:
    try:
        return np.dtype(dtype) == np.bool_
    except TypeError:
        return False


def _where_mask(where, xp):
    """NumPy's where= as a bool array of module xp: bool arrays as they are, Python values (lists,
    scalars) converted; arrays of other dtypes a TypeError, as NumPy's safe cast to bool."""
    if isinstance(where, DDArray) or is_array(where) and where.dtype != np.bool_:
        dtype = "dd" if isinstance(where, DDArray) else where.dtype
        raise TypeError(f"Cannot cast array data from dtype('{dtype}') to dtype('bool') "
                        f"according to the rule 'safe' (where=)")
    return xp.asarray(where if is_array(where) else np.asarray(where, dtype=bool))


# the ufunc methods that run as DD reductions and scans: {method: {ufunc: operation name}}
_METHODS = {"reduce": {np.add: "sum", np.multiply: "prod", np.maximum: "max",
                       np.minimum: "min"},
            "accumulate": {np.add: "cumsum", np.multiply: "cumprod"}}


def _reduction_method(ufunc, method: str, inputs, kwargs: dict):
    """np.add.reduce (sum), np.multiply.reduce (prod), np.maximum/np.minimum.reduce (max, min),
    np.add.accumulate (cumsum) and np.multiply.accumulate (cumprod) on DDArrays, with NumPy's
    defaults (axis=0) and keywords: dtype= None or ddblas.dd; out= as the reductions take it
    (exactly the result's shape); keepdims= for reduce; initial= and where= other than their
    defaults are a TypeError (the DD reductions have a fixed order of their own)."""
    routine = f"ufunc '{ufunc.__name__}' method '{method}'"
    (a,) = on_one_device(*inputs)
    axis = kwargs.pop("axis", 0)
    dtype = kwargs.pop("dtype", None)
    if dtype is not None and not dd == dtype:
        raise TypeError(f"ddblas: {routine} with dtype={dtype!r} is not supported for DDArray")
    out = output_argument(kwargs.pop("out", None), routine, True, ufunc=True)
    if kwargs.pop("where", True) is not True:
        raise TypeError(f"ddblas: {routine} with where= is not supported for DDArray")
    options = {"keepdims": bool(kwargs.pop("keepdims", False))} if method == "reduce" else {}
    if kwargs:
        raise TypeError(f"ddblas: {routine} with keyword(s) {', '.join(sorted(kwargs))} is not "
                        f"supported for DDArray")
    if method == "accumulate":
        if a.ndim == 0:
            raise TypeError("cannot accumulate on a scalar")
        if axis is None and a.ndim > 1 or isinstance(axis, (tuple, list)):
            raise ValueError("accumulate does not allow multiple axes")
        axis = normalize_axes(0 if axis is None else axis, a.ndim)[0]
    name = _METHODS[method][ufunc]
    result = (sum if name == "sum" else operation(name))(a, axis=axis, **options)
    return store_exact_output(result, out, routine, "NumPy's rule for reductions: the result's "
                              "shape")


def array_ufunc(self: DDArray, ufunc, method, inputs, kwargs):
    """NEP 13: NumPy ufuncs on DDArrays run the DD kernels; others raise a TypeError.

    out= (NumPy's rules): a DDArray for a DD result (a bool result may go into a DDArray or a
    NumPy/CuPy array); its shape may be larger than the operands' broadcast shape when they
    broadcast to it (each value then written where it lands); it may be an operand (the result
    is computed first, as if the operands were copied). where= (a bool array broadcast with
    the operands and out): only where it holds is out written; without out= the other
    entries are 0 (False for a bool result) where NumPy leaves them uninitialised. The other
    keywords: see _ufunc_options."""
    func = _UFUNCS.get(ufunc)
    if func is not None and method in ("reduce", "accumulate") and ufunc in _METHODS[method]:
        return _reduction_method(ufunc, method, inputs, kwargs)
    if func is not None and method == "outer":
        if ufunc.signature is not None:   # matmul
            raise TypeError("method outer is not allowed in ufunc with non-trivial signature")
        if ufunc.nin != 2:
            raise ValueError("outer product only supported for binary functions")
        # an operand NumPy reads as text stays text, so the call below answers as its ufunc
        # does (comparisons: NumPy's TypeError; np.equal.outer(x, 'abc') could not parse 'abc')
        text = [_numpy_text(x) for x in inputs]   # at most one: the other is a DDArray
        a, b = ([np.asarray(x) if t else x for x, t in zip(inputs, text)] if any(text) else
                on_one_device(*inputs))
        inputs, method = (a.reshape(a.shape + (1,) * b.ndim), b), "__call__"
        func = getattr(func, "outer", func)
    if func is None or method != "__call__":
        what = f"ufunc '{ufunc.__name__}'" + ("" if method == "__call__" else f" method '{method}'")
        raise TypeError(f"ddblas: {what} is not supported for DDArray")
    routine = f"ufunc '{ufunc.__name__}'"
    dd_result = ufunc not in _BOOL_UFUNCS
    out = output_argument(kwargs.pop("out", None), routine, dd_result, ufunc=True)
    if ufunc.signature is not None and "where" in kwargs:   # matmul: NumPy's TypeError
        raise TypeError(f"{ufunc.__name__}() got an unexpected keyword argument 'where'")
    where = kwargs.pop("where", True)
    core = {"axis": kwargs.pop("axis")} if ufunc in _CORE_AXIS_UFUNCS and "axis" in kwargs else {}
    casting = _ufunc_options(ufunc, inputs, kwargs, out, dd_result)
    result = func(*inputs, **core)
    xp = result.xp if isinstance(result, DDArray) else array_module(result)
    mask = None if where is True else _where_mask(where, xp)
    shape = result.shape if mask is None else broadcast_shape(result.shape, mask.shape)
    if out is None:
        if mask is None:
            return result
        out = (DDArray(xp.zeros(shape), xp.zeros(shape), normalize=False) if dd_result
               else xp.zeros(shape, dtype=np.bool_))
    elif broadcast_shape(shape, out.shape) != out.shape:
        raise ValueError(f"ddblas: {routine}: non-broadcastable output operand with shape "
                         f"{out.shape} doesn't match the broadcast shape "
                         f"{broadcast_shape(shape, out.shape)}")
    return store_output(result, out, mask, casting)


def _shape(a): return a.shape
def _ndim(a): return a.ndim
def _size(a, axis=None):
    """np.size: the product of the sizes of the axes (an int, a tuple of ints: NumPy 2.4's), all
    by default; normalize_axes's errors (NumPy's AxisError out of range)."""
    return a.size if axis is None else int(np.prod([a.shape[d] for d in normalize_axes(
        axis, a.ndim)], dtype=np.int64))


def _copy(a, order="K", subok=False):
    """np.copy: a.copy(order) with np.copy's default order 'K' (subok changes nothing: a DDArray
    has no subclasses to keep)."""
    return asarray(a).copy("K" if order is None else order)


def _transpose(a, axes=None): return a.transpose(axes) if axes is not None else a.T


def _reshape(a, shape, order="C", *, copy=None):
    """np.reshape: a.reshape(shape, order=order, copy=copy)."""
    return asarray(a).reshape(shape, order=order, copy=copy)


def _np_dot(a, b, out=None):
    """np.dot: ddblas.dot, written into out (a DDArray of exactly the result's shape, as NumPy
    asks of dot's out; it may be an operand: the product is computed first)."""
    out = output_argument(out, "dot()", dd_result=True)
    return store_exact_output(dot(a, b), out, "dot()")


_FUNCTIONS = {
    np.dot: _np_dot, np.shape: _shape, np.ndim: _ndim, np.size: _size,
    np.copy: _copy, np.transpose: _transpose, np.reshape: _reshape,
}


def register_functions(functions: dict) -> None:
    """Make functions ({np.concatenate: concatenate, ...}) the NEP 18 implementations for
    DDArrays: for the modules above this one (core.building, core.reductions)."""
    _FUNCTIONS.update(functions)


def array_function(func, types, args, kwargs):
    """NEP 18: the NumPy functions listed in _FUNCTIONS run on DDArrays (with NumPy or CuPy
    arrays beside them, e.g. a condition of np.where); the others raise NumPy's TypeError naming
    the function."""
    impl = _FUNCTIONS.get(func)
    if impl is None or not all(issubclass(t, (DDArray, np.ndarray))
                               or t.__module__.startswith("cupy") for t in types):
        return NotImplemented
    return impl(*args, **kwargs)


register_operations(add=add, subtract=subtract, multiply=multiply, divide=divide,
                    negative=negative, absolute=absolute, rint=rint, equal=equal,
                    not_equal=not_equal, less=less, less_equal=less_equal, greater=greater,
                    greater_equal=greater_equal, power=power, sum=sum, array_ufunc=array_ufunc,
                    array_function=array_function)
