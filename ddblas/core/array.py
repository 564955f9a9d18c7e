"""DDArray: an array of double-double numbers stored as two float64 arrays, hi and lo."""
from __future__ import annotations

import math
import numbers
import operator
import sys
from collections.abc import Sequence

import numpy as np

from .. import eft
from ..engines import backend as _backend
from . import convert as _convert
from ..engines.backend import (addressable, array_module, check_device, copy_into,
                               device_of_array, is_gpu_array, move)
from .options import get_printoptions


def is_array(x) -> bool:
    return isinstance(x, np.ndarray) or is_gpu_array(x)


def is_writable(x) -> bool:
    """Whether every element of x, a DDArray (both of its parts) or a NumPy/CuPy array, may be
    written: NumPy's writeable flag (False for a read-only view such as np.broadcast_to's or
    np.diag's, or an array frozen by ``a.flags.writeable = False``); CuPy arrays have no
    read-only mode, so a GPU array is always writable. The one check behind ``x[...] = v``,
    out= and the BLAS outputs (each raises its own ValueError naming its argument)."""
    parts = (x._hi, x._lo) if isinstance(x, DDArray) else (x,)
    return all(is_gpu_array(part) or part.flags.writeable for part in parts)


def _float64_part(name: str, part):
    """A DDArray part as a float64 NumPy/CuPy array: arrays must be float64 already; Python and
    NumPy real numbers (and nested lists of them) are converted; anything else is a TypeError."""
    if is_array(part):
        part = _plain_array(part, f"DDArray {name}")
        if part.dtype != np.float64:
            raise TypeError(f"DDArray {name} must be a float64 array, got dtype {part.dtype}")
        return part
    converted = None
    if not isinstance(part, (str, bytes)):
        try:
            converted = np.asarray(part)
        except (TypeError, ValueError):
            pass  # ragged lists, objects NumPy refuses: reported below
    if converted is None or converted.dtype.kind not in "biuf":
        shown = repr(part)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise TypeError(f"DDArray {name} must be a float64 array or real numbers, got "
                        f"{type(part).__name__} {shown} (use ddblas.array to convert other values)")
    result = converted.astype(np.float64)
    if converted.dtype.kind in "iu":   # a part is a float64: an integer it would round is refused
        big = converted[np.abs(result) >= 2.0 ** 53]
        for value in big.tolist():
            if int(float(value)) != value:
                raise TypeError(f"DDArray {name}: the integer {value} is not a float64 (it would "
                                f"be rounded; ddblas.array takes integers exactly)")
    return result


def _normalized(hi, lo):
    """(hi, lo) themselves when every element is normalised, else new normalised arrays: the
    ddblas_normalize kernel (cuda_src/dd.h normalized: the exact sum renormalised by two_sum,
    NaN where either part is NaN, (+-inf, 0) where the sum is infinite; see DDArray)."""
    if hi.size == 0:
        return hi, lo
    device = device_of_array(hi)
    be = _backend.backend(device)
    shape = hi.shape
    (hi_data, hi_step), (lo_data, lo_step) = (_backend.kernel_operand(x, shape)
                                              for x in (hi, lo))
    new_hi, new_lo = (be.xp.empty(shape, dtype=np.float64) for _ in range(2))
    changed = be.xp.empty(shape, dtype=bool)
    be.launch("ddblas_normalize", hi.size, hi.size, hi_data, hi_step, lo_data, lo_step, new_hi,
              new_lo, changed)
    return (new_hi, new_lo) if bool(changed.any()) else (hi, lo)


class DDType:
    """The dtype-like marker of DDArrays, ``ddblas.dd``: name, str and repr "dd", kind "f" (a
    real floating-point type), itemsize 16 (the bytes of hi and lo). It equals itself and the
    string "dd", so ``x.dtype == "dd"`` and ``x.astype("dd")`` work; NumPy does not know it
    (np.dtype(ddblas.dd) raises): the parts' NumPy dtype is ``x.parts_dtype`` (float64)."""

    __slots__ = ()
    name = str_ = "dd"
    kind = "f"
    itemsize = 16
    parts_dtype = np.dtype(np.float64)

    def __repr__(self) -> str:
        return "ddblas.dd"

    def __str__(self) -> str:
        return "dd"

    def __eq__(self, other) -> bool:
        return isinstance(other, DDType) or (isinstance(other, str) and other == "dd")

    def __hash__(self) -> int:
        return hash("dd")


dd = DDType()

_VALUE_KINDS = ("mpmath", "float")


def _check_kind(kind) -> None:
    if kind not in _VALUE_KINDS:
        raise ValueError(f"kind must be 'mpmath' (exact mpmath numbers) or 'float' (the nearest "
                         f"Python floats), got {kind!r}")


def _nested(hi: np.ndarray, lo: np.ndarray, element):
    """element(hi, lo) for each element of the host arrays, as nested lists (a scalar for 0-d)."""
    if hi.ndim == 0:
        return element(float(hi), float(lo))
    return [_nested(h, l, element) for h, l in zip(hi, lo)]


# DDArray's operators and reductions are the functions of the modules above this one (core.ops,
# blas.gemm), which register themselves here when they are imported (ddblas imports them all),
# so that the array type depends on nothing above it.
_OPERATIONS: dict = {}


def register_operations(**functions) -> None:
    """Make functions (add=..., matmul=...) the implementations of DDArray's operators."""
    _OPERATIONS.update(functions)


def operation(name: str):
    """The registered implementation of a DDArray operator or method."""
    try:
        return _OPERATIONS[name]
    except KeyError:
        raise TypeError(f"DDArray {name} needs ddblas's operations: import ddblas") from None


def _binary(name: str, reflected: bool = False):
    """DDArray's binary operator running operation(name) on (self, other), or on (other, self)
    when reflected. It returns NotImplemented, leaving the operation to other's own (reflected)
    operator, when other's type sets ``__array_ufunc__ = None`` (NumPy's rule for ndarray's
    operators, NEP 13), as ddblas.dask.DDDaskArray does."""
    def operator(self, other):
        if getattr(type(other), "__array_ufunc__", False) is None:
            return NotImplemented
        return operation(name)(other, self) if reflected else operation(name)(self, other)
    return operator


class DDArray:
    """An N-d array of double-double values hi + lo (about 106 significant bits).

    ``DDArray(hi, lo=None, *, normalize=True)`` takes two float64 arrays of one shape on one
    device (NumPy: "cpu", CuPy: "gpu"; Python numbers and lists of them are converted to NumPy
    float64 arrays, lo=None means zeros). Use :func:`ddblas.array` to convert other values.

    normalize=True (default): one pass of a kernel on the arrays' device (Knuth's two_sum, and
    for non-finite parts the rule by which the elementwise, reduction and batched linalg kernels
    read them: cuda_src/dd.h normalized) checks every element. When all are normalised (hi ==
    fl(hi + lo); lo == 0 where hi is inf; a NaN hi with lo 0 or NaN) the arrays are wrapped
    without copying. Otherwise the result holds NEW arrays (the caller's are never modified)
    where each element that is not normalised is replaced by the exact sum hi + lo
    renormalised, (fl(hi + lo), hi + lo - fl(hi + lo)) with |lo| <= ulp(hi)/2; a NaN in either
    part makes both parts NaN; an inf in either part, or hi + lo overflowing, gives (+-inf, 0).
    The same kernel runs on both devices, so the result is bitwise the same on CPU and GPU.

    normalize=False: the parts are wrapped as given, with no check and no pass over the data,
    for data you know is normalised (e.g. another DD library's output). ddblas operations are
    not defined on pairs that are not, except that elementwise operations, reductions, sorting
    and the batched solvers of small systems read a pair with a non-finite part as
    normalize=True makes it (a nan in either part gives nan).

    Either way, a lo that shares memory with hi (``DDArray(z, z)`` of zeros) is copied, so
    that writing one part never writes the other.
    """

    __slots__ = ("_hi", "_lo")
    __hash__ = None

    def __init__(self, hi, lo=None, *, normalize: bool = True):
        if not isinstance(normalize, bool):
            raise TypeError(f"DDArray normalize must be True or False, got {normalize!r}")
        hi = _float64_part("hi", hi)
        lo = array_module(hi).zeros_like(hi) if lo is None else _float64_part("lo", lo)
        if device_of_array(hi) != device_of_array(lo):
            raise ValueError(f"DDArray hi is on the {device_of_array(hi)} and lo on the "
                             f"{device_of_array(lo)}: pass two NumPy arrays or two CuPy arrays")
        if hi.shape != lo.shape:
            raise ValueError(f"DDArray hi and lo must have one shape, got {hi.shape} and {lo.shape}")
        if normalize:
            hi, lo = _normalized(hi, lo)
        if lo.size and _backend.may_overlap(hi, lo):  # DDArray(z, z): writes would mix them
            lo = lo.copy()
        self._hi = hi
        self._lo = lo

    def __reduce__(self):
        """Pickled as its two parts, unpickled without the normalising pass: an array costs its
        2 x 8 bytes per element plus a constant (dask and multiprocessing move them so)."""
        return (_from_normalized_parts, (self._hi, self._lo))

    def __copy__(self) -> "DDArray":
        """copy.copy(x): x.copy(), new parts (as copy.copy of an ndarray, not a view)."""
        return self.copy()

    # ---- attributes ----
    @property
    def hi(self):
        """The leading float64 parts (NumPy or CuPy array)."""
        return self._hi

    @property
    def lo(self):
        """The trailing float64 parts, |lo| <= ulp(hi)/2."""
        return self._lo

    @property
    def shape(self) -> tuple:
        return self._hi.shape

    @property
    def ndim(self) -> int:
        return self._hi.ndim

    @property
    def size(self) -> int:
        return int(self._hi.size)

    @property
    def dtype(self) -> DDType:
        """ddblas.dd, the marker of DD values (see DDType); the parts' dtype is parts_dtype."""
        return dd

    @property
    def parts_dtype(self) -> np.dtype:
        """The NumPy dtype of hi and lo: float64."""
        return self._hi.dtype

    @property
    def device(self) -> str:
        """'cpu' (NumPy-backed) or 'gpu' (CuPy-backed)."""
        return device_of_array(self._hi)

    @property
    def xp(self):
        """The array module of this array's device (numpy or cupy)."""
        return array_module(self._hi)

    @property
    def T(self) -> "DDArray":
        return _wrap(self._hi.T, self._lo.T)

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d DDArray")
        return self.shape[0]

    def __iter__(self):
        """The sub-arrays along the first axis; a TypeError at once for a 0-d array (iter()
        itself raises, as NumPy's: np.iterable(x) is False)."""
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d DDArray")
        return (self[i] for i in range(self.shape[0]))

    # ---- views and copies ----
    # Parts that kernels cannot address (odd byte strides, a misaligned address: record-array
    # fields, views at byte offsets) are read and written through addressable copies and
    # copy_into, never by CuPy's own kernels, which would load misaligned items whole.
    def __getitem__(self, key) -> "DDArray":
        if _basic_key(key):   # a view by stride arithmetic alone (no kernel reads the parts)
            hi, lo = self._hi[key], self._lo[key]
            if is_array(hi):
                return _wrap(hi, lo)
        else:
            key = _index_key(key)
            # CuPy gathers advanced indices with its own kernels: on the GPU an unaddressable
            # part is indexed through an addressable copy (the result is then a copy, not a view).
            hi, lo = (addressable(p)[key] if is_gpu_array(p) else p[key]
                      for p in (self._hi, self._lo))
        xp = self.xp
        return _wrap(xp.asarray(hi), xp.asarray(lo))

    def __setitem__(self, key, value) -> None:
        if not is_writable(self):
            raise ValueError("assignment destination is read-only (a part of the DDArray)")
        value = asarray(value, device=self.device)
        key = _index_key(key)
        for part, new in ((self._hi, value.hi), (self._lo, value.lo)):
            if not is_gpu_array(part) or addressable(part) is part:
                part[key] = new
            else:   # basic indexing of such a part is a view: written byte by byte
                target = part[key]
                copy_into(target, array_module(part).broadcast_to(new, target.shape))

    def copy(self, order="C") -> "DDArray":
        """A copy of the array (new parts), as ndarray.copy.

        Parameters
        ----------
        order : {'C', 'F', 'A', 'K'}, optional
            The memory layout of the new parts, NumPy's: 'C' (default) row-major, 'F'
            column-major, 'A' 'F' when both parts are Fortran-contiguous and not C-contiguous,
            else 'C', 'K' each part's own layout as closely as possible (np.copy's default).
            The values are the same whatever the order; a part that kernels cannot address in
            place (odd byte strides, a misaligned address) is copied C-contiguous for 'A', 'K'.

        Returns
        -------
        DDArray
            On this array's device.
        """
        order = order_argument(order)
        if order == "A":
            order = "F" if self._fortran_ordered() else "C"
        return _wrap(_new_copy(self._hi, order), _new_copy(self._lo, order))

    def reshape(self, *shape, order="C", copy=None) -> "DDArray":
        """The array with a new shape, as ndarray.reshape (np.reshape's arguments).

        Parameters
        ----------
        *shape : int or tuple of ints
            The new shape (one -1 entry is inferred); reshape(()) gives a 0-d array.
        order : {'C', 'F', 'A'}, optional
            The index order in which the elements are read and placed, NumPy's: 'C' (default)
            the last index fastest, 'F' the first, 'A' 'F' when both parts are
            Fortran-contiguous and not C-contiguous, else 'C' ('K' is a ValueError).
        copy : bool, optional
            None (default): a view of both parts where strides allow, else copies of both;
            True: always copies; False: a ValueError where views are impossible.

        Returns
        -------
        DDArray
            Views of both parts or copies of both, never one of each.
        """
        if not shape:   # NumPy's error (an empty tuple, reshape(()), is a 0-d shape)
            raise TypeError("reshape() takes the new shape (reshape(()) for 0-d)")
        shape = shape[0] if len(shape) == 1 and not isinstance(shape[0], numbers.Integral) else shape
        order = order_argument(order)
        if order == "K":
            raise ValueError("order 'K' is not permitted for reshaping")
        if order == "A":
            order = "F" if self._fortran_ordered() else "C"
        return self._reshaped(lambda part: part.reshape(shape, order=order),
                              None if copy is None else bool(copy))

    def ravel(self, order="C") -> "DDArray":
        """The elements as a 1-D array, as ndarray.ravel: views of both parts where strides
        allow, else copies of both.

        Parameters
        ----------
        order : {'C', 'F', 'A', 'K'}, optional
            The order in which the elements are read, NumPy's: 'C' (default) the last index
            fastest, 'F' the first, 'A' 'F' when both parts are Fortran-contiguous and not
            C-contiguous, else 'C', 'K' the order of hi's elements in memory (its axes by
            decreasing stride, as NumPy's rule; lo is read in that order too, so that each hi
            stays with its lo where the parts are laid out differently).

        Returns
        -------
        DDArray
            1-D, on this array's device.
        """
        return self._raveled(order, None)

    def flatten(self, order="C") -> "DDArray":
        """The elements as a new 1-D array, as ndarray.flatten: ravel's `order` ('C' default,
        'F', 'A', 'K'), always copies of both parts (never views)."""
        return self._raveled(order, True)

    def _raveled(self, order, copy) -> "DDArray":
        """ravel (copy None: views where strides allow) and flatten (copy True)."""
        order = order_argument(order)
        if order == "K":
            strides = self._hi.strides
            return self.transpose(sorted(range(self.ndim), key=lambda d: -abs(strides[d]))) \
                ._reshaped(lambda part: part.ravel(), copy)
        if order == "A":
            order = "F" if self._fortran_ordered() else "C"
        return self._reshaped(lambda part: part.ravel(order), copy)

    def _fortran_ordered(self) -> bool:
        """Whether NumPy's order='A' reads this array in Fortran order: both parts
        Fortran-contiguous and not C-contiguous (one order for both, or the parts' elements
        would be paired differently)."""
        return all(p.flags.f_contiguous and not p.flags.c_contiguous
                   for p in (self._hi, self._lo))

    def _reshaped(self, reshape, copy=None) -> "DDArray":
        """reshape applied to both parts: views of both, or copies of both (never a view of one
        part and a copy of the other, which parts laid out differently would give and a write
        through the result would then corrupt); copies of both for copy=True, a ValueError
        (NumPy's) for copy=False where a part would be a copy."""
        hi, lo = (reshape(addressable(p)) for p in (self._hi, self._lo))
        xp = array_module(hi)
        hi_view, lo_view = (new.size == 0 or xp.may_share_memory(new, old)
                            for new, old in ((hi, self._hi), (lo, self._lo)))
        if copy is False and not (hi_view and lo_view):
            raise ValueError("Unable to avoid creating a copy while reshaping.")
        if copy or hi_view != lo_view:
            hi, lo = (hi.copy() if hi_view else hi), (lo.copy() if lo_view else lo)
        return _wrap(hi, lo)

    def transpose(self, *axes) -> "DDArray":
        if not axes:   # x.transpose(): all axes reversed (x.transpose(()) is NumPy's ValueError)
            axes = None
        elif len(axes) == 1 and not isinstance(axes[0], numbers.Integral):
            axes = axes[0]
        shape_stand_in(self.shape).transpose(axes)   # NumPy's checks (CuPy takes [])
        return DDArray(self._hi.transpose(axes), self._lo.transpose(axes), normalize=False)

    @property
    def mT(self) -> "DDArray":  # noqa: N802  (NumPy's name)
        """The matrix transpose of each matrix of a stack (the last two axes interchanged), as
        ndarray.mT: a view of both parts; NumPy's ValueError for fewer than 2 dimensions."""
        if self.ndim < 2:
            raise ValueError("matrix transpose with ndim < 2 is undefined")
        return _wrap(self._hi.swapaxes(-1, -2), self._lo.swapaxes(-1, -2))

    def to_device(self, device: str) -> "DDArray":
        """This array on 'cpu' or 'gpu' (itself if it is there already)."""
        check_device(device)
        if device == self.device:
            return self
        return DDArray(move(self._hi, device), move(self._lo, device), normalize=False)

    # ---- conversions out ----
    def _host_parts(self):
        return move(self._hi, "cpu"), move(self._lo, "cpu")

    def to_mpmath(self):
        """The exact values as mpmath numbers: an mpf (0-d), a list of mpf (1-D) or an mpmath
        matrix (2-D). The mpf are exact and their repr/str show at least 32 digits (a subclass
        of mpmath.mpf; arithmetic on them gives plain mpf at mpmath's working precision); the
        matrix's entries are plain mpf (mpmath prints it at mpmath.mp.dps)."""
        import mpmath
        if self.ndim > 2:
            raise ValueError(f"to_mpmath converts 0-, 1- and 2-D arrays, this one is {self.ndim}-D")
        values = self.tolist()
        if self.ndim < 2:
            return values
        # mpmath.matrix([]) would be 0 x 0: an empty matrix is made from its shape
        return mpmath.matrix(values) if self.size else mpmath.matrix(*self.shape)

    def tolist(self, kind: str = "mpmath"):
        """The values as nested Python lists (a scalar for a 0-d array), like ndarray.tolist().

        kind="mpmath" (default): exact mpmath mpf values whose repr and str show at least 32
        digits (see to_mpmath); kind="float": Python floats fl(hi + lo) = hi, the nearest
        doubles (see to_float64).
        """
        _check_kind(kind)
        if kind == "float":
            return move(self.to_float64(), "cpu").tolist()
        return _nested(*self._host_parts(), _convert.dd_to_mpf)

    def item(self, *args, kind: str = "mpmath"):
        """One element as a Python number, like ndarray.item(): no argument for a size-1 array
        (else ValueError), a flat index, or one index per axis (IndexError when out of range).
        kind="mpmath" (default): the exact value as an mpmath mpf; kind="float": fl(hi + lo) = hi
        (see to_float64)."""
        _check_kind(kind)
        hi, lo = self._host_parts()
        if not args and hi.size != 1:
            raise ValueError(f"can only convert a DDArray of size 1 to a Python scalar, this one "
                             f"has shape {self.shape} (pass an index: x.item(i))")
        if kind == "float":
            return hi.item(*args)
        return _convert.dd_to_mpf(hi.item(*args), lo.item(*args))

    def astype(self, dtype, copy: bool = True):
        """This array converted to `dtype`:

        - ``ddblas.dd`` or ``"dd"``: a DDArray (a copy, or this array if copy=False);
        - float64 (``np.float64``, ``float``, ``"float64"``, ``"f8"``...): the NumPy/CuPy array
          fl(hi + lo) = hi on this array's device, the nearest doubles (see to_float64);
        - ``object``: a NumPy object array (on the host) of exact mpmath mpf (as tolist()).

        Other dtypes raise a TypeError: convert the float64 array further if rounding twice is
        what you want.
        """
        if isinstance(dtype, DDType) or (isinstance(dtype, str) and dtype == "dd"):
            return self.copy() if copy else self
        try:
            target = np.dtype(dtype)
        except TypeError:
            target = None
        if target == np.float64:
            return self.to_float64()
        if target == np.dtype(object):
            values = np.empty(self.shape, dtype=object)
            hi, lo = self._host_parts()
            for index in np.ndindex(self.shape):
                values[index] = _convert.dd_to_mpf(float(hi[index]), float(lo[index]))
            return values
        raise TypeError(f"DDArray.astype: dtype must be ddblas.dd ('dd'), float64 or object, got "
                        f"{dtype!r}")

    def to_decimal_string(self, digits=None):
        """The values as decimal strings in scientific notation (nested lists of str for an
        array, a str for 0-d): digits=None gives the exact value of hi + lo with all its digits
        (at most 1384: a DD is a binary fraction); an int gives that many significant digits,
        correctly rounded (ties to even) from the exact value."""
        if digits is not None and (not isinstance(digits, numbers.Integral)
                                   or isinstance(digits, bool) or not 1 <= digits <= 1400):
            raise ValueError(f"digits must be None or an int from 1 to 1400, got {digits!r}")
        if digits is None:
            return _nested(*self._host_parts(), _convert.dd_to_exact_string)
        return _nested(*self._host_parts(),
                       lambda hi, lo: _convert.dd_to_string(hi, lo, int(digits)))

    def __format__(self, spec: str) -> str:
        """format(x, spec) for a 0-d DDArray with Python's float format specs (".40e", ".25f",
        "g"...), computed from the exact value and correctly rounded; "" gives str(x) for any
        shape, like NumPy."""
        if not spec:
            return str(self)
        if self.ndim != 0:
            raise TypeError(f"unsupported format string passed to DDArray.__format__ for shape "
                            f"{self.shape}: only 0-d DDArrays take a format spec (x[i] is 0-d)")
        hi, lo = self._host_parts()
        return _convert.format_dd(float(hi), float(lo), spec)

    def to_float64(self):
        """fl(hi + lo) as a new float64 array of this device (the nearest float64 values): hi,
        since a normalised pair has fl(hi + lo) = hi (so -0.0 keeps its sign, which the sum
        (-0.0) + 0.0 would not)."""
        return _new_copy(self._hi)

    def _check_scalar(self) -> None:
        """NumPy's TypeError (from NumPy 2.4, which had deprecated it since 1.25) for a Python
        scalar conversion of an array with dimensions, even of size 1 (x.item() takes those)."""
        if self.ndim != 0:
            raise TypeError(f"only 0-dimensional arrays can be converted to Python scalars, this "
                            f"DDArray has shape {self.shape} (x.item(kind='float') or "
                            f"x.reshape(()) for a size-1 array)")

    def __float__(self) -> float:
        """float(x) of a 0-d array: fl(hi + lo) = hi (complex(x) and math.floor/ceil of a float
        read it too); a TypeError for an array with dimensions, as NumPy 2.4's."""
        self._check_scalar()
        return float(self._host_parts()[0])

    def _exact_scalar(self):
        """The exact value of a 0-d array as a Fraction, for the integer conversions (NaN: a
        ValueError, inf: an OverflowError, as int(float) raises; dimensions: _check_scalar)."""
        self._check_scalar()
        hi, lo = (float(part) for part in self._host_parts())
        if hi != hi or lo != lo:
            raise ValueError("cannot convert a NaN DDArray to an integer")
        if abs(hi) == float("inf"):
            raise OverflowError("cannot convert an infinite DDArray to an integer")
        return _convert.dd_to_fraction(hi, lo)

    # exact, from hi + lo (through __float__, math.floor and math.ceil saw hi alone)
    def __int__(self) -> int: return int(self._exact_scalar())
    def __trunc__(self) -> int: return int(self._exact_scalar())
    def __floor__(self) -> int: return self._exact_scalar().__floor__()
    def __ceil__(self) -> int: return self._exact_scalar().__ceil__()

    def __round__(self, ndigits=None):
        """round(x): a 0-d array's nearest int (ties to even, as round(float) and round of a
        NumPy scalar); a TypeError for an array with dimensions, which NumPy's arrays refuse
        too (ddblas.rint rounds the elements)."""
        if ndigits is not None:
            raise TypeError("round(DDArray, ndigits) is not supported: use ddblas.rint on a "
                            "scaled array, or round(x) for the nearest integer")
        if self.ndim:
            raise TypeError(f"round() takes a 0-d DDArray, this one has shape {self.shape} "
                            f"(NumPy's arrays have no round() either): ddblas.rint(x) rounds "
                            f"the elements")
        return round(self._exact_scalar())

    def __contains__(self, value) -> bool:
        return bool((self == value).any())   # as NumPy (iteration compared whole rows)

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(f"the truth value of a DDArray of shape {self.shape} is ambiguous")
        hi, lo = (float(part.reshape(())) for part in (self._hi, self._lo))
        return hi != 0 or not math.isfinite(lo)   # (0, nan) wrapped unnormalised is nan: true

    def __array__(self, dtype=None, copy=None):
        """A TypeError: np.asarray(x) would drop lo. NumPy's masked arrays convert their other
        operand so in their operators (m + x, m == x: NumPy's MaskedArray defers to no type
        with an __array_ufunc__ method), which this message names: x + m, np.add(m, x) and
        ddblas.asarray(m) run as DD, refusing masked values (a ValueError)."""
        raise TypeError("a DDArray does not convert to a NumPy array implicitly (that would drop "
                        "its lo part): use .to_float64(), .hi/.lo or .to_mpmath(). A NumPy "
                        "masked array m's operators (m + x, m == x...) convert x so: convert m "
                        "instead, ddblas.asarray(m.filled(value)) + x, or call the ufunc, "
                        "np.add(m, x) (a DDArray has no mask: masked values are refused)")

    def _format(self, element_to_string) -> str:
        """The values written by element_to_string(hi, lo), in NumPy's layout for arrays: above
        the print options' threshold only their edgeitems at each end of the long axes are
        taken (on the device) and formatted, in order, into NumPy's summary of a stand-in array
        of this shape (a broadcast zero: a large or broadcast array is never copied whole)."""
        hi, lo = self._hi, self._lo
        if self.ndim == 0:
            hi, lo = self._host_parts()
            return element_to_string(float(hi), float(lo))
        options = get_printoptions()
        threshold, edge = options["threshold"], options["edgeitems"]
        if self.size > threshold:
            for axis, length in enumerate(self.shape):
                if length > 2 * edge:
                    ends = (slice(None),) * axis + (np.r_[0:edge, length - edge:length],)
                    hi, lo = hi[ends], lo[ends]   # (take would copy a strided array whole)
        pairs = zip(move(hi, "cpu").ravel().tolist(), move(lo, "cpu").ravel().tolist())
        return np.array2string(shape_stand_in(self.shape, np.int64), separator=", ",
                               threshold=threshold, edgeitems=edge,
                               formatter={"int": lambda _: element_to_string(*next(pairs))})

    def __repr__(self) -> str:
        """Each value as the shortest decimal string that ddblas.array parses back to the same
        (hi, lo) pair (written like Python's repr of a float; lo's sign of zero is not kept);
        with ddblas.set_printoptions(precision=p), p significant digits instead."""
        precision = get_printoptions()["precision"]
        element = (_convert.dd_to_shortest_string if precision is None
                   else lambda hi, lo: _convert.dd_to_string(hi, lo, precision))
        # an empty array's shape, as NumPy's repr shows it ([] alone reads as shape (0,))
        shape = f", shape={self.shape}" if self.size == 0 and self.shape != (0,) else ""
        return f"DDArray({self._format(element)}{shape}, device='{self.device}')"

    def __str__(self) -> str:
        """Each value rounded to 32 significant digits (or the printoptions' precision), in
        scientific notation (32 is not always enough to tell DDs apart: repr is exact)."""
        precision = get_printoptions()["precision"] or _convert.DISPLAY_DIGITS
        return self._format(lambda hi, lo: _convert.dd_to_string(hi, lo, precision))

    # ---- arithmetic: the operations of core.ops and blas.gemm (see operation()) ----
    __add__, __radd__ = _binary("add"), _binary("add", reflected=True)
    __sub__, __rsub__ = _binary("subtract"), _binary("subtract", reflected=True)
    __mul__, __rmul__ = _binary("multiply"), _binary("multiply", reflected=True)
    __truediv__, __rtruediv__ = _binary("divide"), _binary("divide", reflected=True)
    __matmul__, __rmatmul__ = _binary("matmul"), _binary("matmul", reflected=True)
    __pow__, __rpow__ = _binary("power"), _binary("power", reflected=True)
    def __neg__(self): return operation("negative")(self)
    def __pos__(self): return self.copy()   # a new array, as NumPy's +a
    def __abs__(self): return operation("absolute")(self)
    __eq__, __ne__ = _binary("equal"), _binary("not_equal")
    __lt__, __le__ = _binary("less"), _binary("less_equal")
    __gt__, __ge__ = _binary("greater"), _binary("greater_equal")

    def _inplace(self, op, other):
        result = op(self, other)
        if result.shape != self.shape:
            raise ValueError(f"in-place result of shape {result.shape} does not fit the "
                             f"array of shape {self.shape}")
        self[...] = result
        return self

    def __iadd__(self, other): return self._inplace(operation("add"), other)
    def __isub__(self, other): return self._inplace(operation("subtract"), other)
    def __imul__(self, other): return self._inplace(operation("multiply"), other)
    def __itruediv__(self, other): return self._inplace(operation("divide"), other)
    def __ipow__(self, other): return self._inplace(operation("power"), other)
    def __imatmul__(self, other): return self._inplace(operation("matmul"), other)

    # Reductions and scans (core.ops.sum, core.reductions), with ndarray's signatures: each is
    # np.<name>(self, ...) (NEP 18), so dtype= and out= follow those functions' rules (they
    # took keepdims second, where ndarray takes dtype or out: x.mean(0, np.float64) kept dims).
    def sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
        """Sum over the given axes: ddblas.sum (np.sum's arguments; out= a DDArray)."""
        return np.sum(self, axis, dtype, out, keepdims, initial=initial, where=where)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
        """Product over the given axes: ddblas.prod (np.prod's arguments)."""
        return np.prod(self, axis, dtype, out, keepdims, initial=initial, where=where)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """Mean over the given axes: ddblas.mean (np.mean's arguments)."""
        return np.mean(self, axis, dtype, out, keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """Variance over the given axes: ddblas.var (np.var's arguments)."""
        return np.var(self, axis, dtype, out, ddof, keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """Standard deviation over the given axes: ddblas.std (np.std's arguments)."""
        return np.std(self, axis, dtype, out, ddof, keepdims)

    def max(self, axis=None, out=None, keepdims=False, initial=None, where=True):
        """The largest value over the given axes: ddblas.max (np.max's arguments)."""
        return np.max(self, axis, out, keepdims, initial=initial, where=where)

    def min(self, axis=None, out=None, keepdims=False, initial=None, where=True):
        """The smallest value over the given axes: ddblas.min (np.min's arguments)."""
        return np.min(self, axis, out, keepdims, initial=initial, where=where)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        """Indices of the largest values: ddblas.argmax (np.argmax's arguments)."""
        return np.argmax(self, axis, out, keepdims=keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        """Indices of the smallest values: ddblas.argmin (np.argmin's arguments)."""
        return np.argmin(self, axis, out, keepdims=keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        """Cumulative sums: ddblas.cumsum (np.cumsum's arguments)."""
        return np.cumsum(self, axis, dtype, out)

    def cumprod(self, axis=None, dtype=None, out=None):
        """Cumulative products: ddblas.cumprod (np.cumprod's arguments)."""
        return np.cumprod(self, axis, dtype, out)

    def all(self, axis=None, out=None, keepdims=False):
        """Whether every element is nonzero: ddblas.all (np.all's arguments)."""
        return np.all(self, axis, out, keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        """Whether some element is nonzero: ddblas.any (np.any's arguments)."""
        return np.any(self, axis, out, keepdims)

    # Shapes, selections and sorting (core.shaping, core.building, core.reductions), with
    # ndarray's signatures: each is np.<name>(self, ...) (NEP 18); sort and partition write
    # the result into this array, as ndarray's.
    def squeeze(self, axis=None) -> "DDArray":
        """The array without its axes of length one: ddblas.squeeze (a view)."""
        return np.squeeze(self, axis)

    def swapaxes(self, axis1, axis2, /) -> "DDArray":
        """The array with two axes interchanged: ddblas.swapaxes (a view)."""
        return np.swapaxes(self, axis1, axis2)

    def take(self, indices, axis=None, out=None, mode="raise") -> "DDArray":
        """Elements at the given indices: ddblas.take (np.take's arguments)."""
        return np.take(self, indices, axis, out, mode)

    def put(self, indices, values, mode="raise") -> None:
        """self.flat[indices] = values in place: ddblas.put (np.put's arguments)."""
        np.put(self, indices, values, mode)

    def repeat(self, repeats, axis=None) -> "DDArray":
        """Each element repeated: ddblas.repeat (np.repeat's arguments)."""
        return np.repeat(self, repeats, axis)

    def fill(self, value) -> None:
        """Set every element to the scalar `value` (any value ddblas.array converts, e.g.
        "0.1"), as ndarray.fill: NumPy's ValueError for an array value or a read-only array."""
        value = asarray(value, device=self.device)
        if value.ndim:
            raise ValueError("setting an array element with a sequence.")
        self[...] = value

    def clip(self, min=None, max=None, out=None, **kwargs) -> "DDArray":  # noqa: A002
        """The values limited to [min, max] (None: no bound): ddblas.clip (np.clip's
        arguments)."""
        return np.clip(self, min, max, out, **kwargs)

    def nonzero(self) -> tuple:
        """The indices of the nonzero elements, one array per axis: ddblas.nonzero."""
        return np.nonzero(self)

    def searchsorted(self, v, side="left", sorter=None):
        """Where v would be inserted into this sorted 1-D array: ddblas.searchsorted."""
        return np.searchsorted(self, v, side, sorter)

    def argsort(self, axis=-1, kind=None, order=None, *, stable=None):
        """The indices that sort the array: ddblas.argsort (np.argsort's arguments)."""
        return np.argsort(self, axis, kind, order, stable=stable)

    def argpartition(self, kth, axis=-1, kind="introselect", order=None):
        """Indices that partition the array around kth: ddblas.argpartition."""
        return np.argpartition(self, kth, axis, kind, order)

    def sort(self, axis=-1, kind=None, order=None, *, stable=None) -> None:
        """Sort the array in place along axis (an int): ddblas.sort's order (DD order, NaNs
        last, stable), as ndarray.sort; NumPy's ValueError for a read-only array."""
        self._write_sorted("sort", np.sort, operator.index(axis), kind, order, stable=stable)

    def partition(self, kth, axis=-1, kind="introselect", order=None) -> None:
        """Partition the array in place around kth along axis (an int): ddblas.partition, as
        ndarray.partition; NumPy's ValueError for a read-only array."""
        self._write_sorted("partition", np.partition, kth, operator.index(axis), kind, order)

    def _write_sorted(self, name: str, function, *args, **kwargs) -> None:
        """self[...] = function(self, *args, **kwargs) (np.sort, np.partition), after NumPy's
        read-only check of ndarray's in-place sorts ("sort array is read-only")."""
        if not is_writable(self):
            raise ValueError(f"{name} array is read-only")
        self[...] = function(self, *args, **kwargs)

    # ---- NumPy protocols (NEP 13, NEP 18) ----
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return operation("array_ufunc")(self, ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return operation("array_function")(func, types, args, kwargs)


def _new_copy(part, order: str = "C"):
    """A new copy of a part in NumPy's `order` ('C', 'F' or 'K'): C-contiguous first where
    kernels could not address the part in place (CuPy's copy would load its misaligned items
    whole), then 'F' if asked."""
    copied = addressable(part)
    if copied is part:
        return part.copy(order=order)
    return copied.copy(order="F") if order == "F" else copied


def shape_stand_in(shape: tuple, dtype=np.float64) -> np.ndarray:
    """A read-only NumPy array of `shape` holding no data (a broadcast zero of `dtype`): NumPy's
    own functions run on it check arguments against the shape (axes, splits, indices) and
    raise NumPy's errors, whatever the device of the array they stand for."""
    return np.broadcast_to(np.zeros((), dtype=dtype), shape)


def order_argument(order, default: str = "C") -> str:
    """NumPy's order= argument ('C', 'F', 'A' or 'K', either case; None: `default`) as one
    upper-case letter; NumPy's TypeError for a value that is not a str, its ValueError for
    another string."""
    if order is None:
        return default
    if not isinstance(order, str):
        raise TypeError(f"order must be str, not {type(order).__name__}")
    if len(order) != 1 or order.upper() not in "CFAK":
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return order.upper()


def _from_normalized_parts(hi, lo) -> DDArray:
    """DDArray(hi, lo, normalize=False): the unpickler of DDArray.__reduce__."""
    return DDArray(hi, lo, normalize=False)


def _wrap(hi, lo) -> DDArray:
    """DDArray(hi, lo, normalize=False) without its checks, for parts this module derived from
    a DDArray's (views, copies): float64 arrays of one shape on one device."""
    x = DDArray.__new__(DDArray)
    x._hi, x._lo = hi, lo
    return x


_BASIC = (int, slice, type(None), type(Ellipsis))


def _basic_key(key) -> bool:
    """Whether key is NumPy basic indexing (Python ints, slices, None, Ellipsis): a view."""
    if type(key) is tuple:
        return all(type(k) in _BASIC for k in key)
    return type(key) in _BASIC


def _index_key(key):
    """Keys are NumPy/CuPy-style (ints, slices, boolean or integer arrays), never DDArrays, nor
    tuples holding one (NumPy would convert it: a TypeError about converting a DDArray)."""
    if isinstance(key, DDArray) or type(key) is tuple and any(isinstance(k, DDArray) for k in key):
        raise TypeError("a DDArray cannot index an array; use a boolean or integer array")
    return key


# ---- construction ----
_MAX_DIMENSIONS = 64  # NumPy's limit on ndim


def is_nested(obj) -> bool:
    """Whether array() reads obj as a nested sequence: a list, tuple, range or other Sequence,
    but not text or bytes (str, bytes, bytearray, memoryview)."""
    return isinstance(obj, Sequence) and not isinstance(obj, (str, bytes, bytearray, memoryview))


def _walk_nested(obj, pairs: list, depth: int = 0) -> tuple:
    """Append the DD pairs of a nested sequence's leaves to `pairs` (row-major); return its
    shape. An array among the items (DDArray, NumPy or CuPy) is one more level of nesting, its
    values converted by array(), as NumPy nests arrays in lists."""
    if is_nested(obj):
        if depth == _MAX_DIMENSIONS:
            raise ValueError(f"nested sequence is more than {_MAX_DIMENSIONS} levels deep "
                             f"(NumPy's limit on dimensions)")
        shapes = [_walk_nested(item, pairs, depth + 1) for item in obj]
        if any(s != shapes[0] for s in shapes[1:]):
            raise ValueError(f"nested sequence is ragged: its items have shapes {sorted(set(shapes))}")
        return (len(obj),) + (shapes[0] if shapes else ())
    if isinstance(obj, DDArray) or is_array(obj):
        part = array(obj, device="cpu", copy=False)
        pairs.extend(zip(part.hi.ravel().tolist(), part.lo.ravel().tolist()))
        return part.shape
    pairs.append(_convert.scalar_to_dd(obj))
    return ()


def _plain_array(x, name: str | None):
    """x itself, or a NumPy array subclass (np.matrix...) as a plain ndarray view, so that its
    semantics do not carry over. A masked array with masked values is a ValueError naming the
    argument `name` (None: the value itself, as operators and named_operand need it): a DDArray
    has no mask, and np.asarray would drop it."""
    if not isinstance(x, np.ndarray) or type(x) is np.ndarray:
        return x
    masked = sys.modules.get("numpy.ma")  # imported wherever a masked array exists
    if masked is not None and isinstance(x, masked.MaskedArray) and masked.is_masked(x):
        raise ValueError(f"{name or 'a value'} is a masked array with masked values, and a "
                         "DDArray has no mask: fill them (.filled(value)) or drop them "
                         "(.compressed()) first")
    return np.asarray(x)


def _host_pairs_from_numpy(x: np.ndarray, copy: bool):
    """(hi, lo) float64 host arrays holding the exact (or nearest DD) values of x."""
    kind = x.dtype.kind
    if kind in "biufc" and not x.dtype.isnative:   # big-endian data (FITS...): cast, not per element
        x, copy = x.astype(x.dtype.newbyteorder("=")), False
    if x.dtype == np.float64:
        return (x.copy() if copy else x), np.zeros_like(x)
    if kind == "c":
        raise TypeError(f"ddblas holds real numbers only, got a {x.dtype} array")
    if x.dtype in (np.float32, np.float16) or kind == "b" or (
            kind in "iu" and (x.size == 0 or int(np.abs(x).max()) <= 2 ** 53)):
        return x.astype(np.float64), np.zeros(x.shape)
    if kind in "iu" and x.dtype.itemsize <= 8:
        return _integer_pairs(x)
    if kind in "iufOUS":  # big integers, long double, objects, strings: exactly, per element
        # tolist() gives Python ints/objects; long doubles stay NumPy scalars (no rounding).
        if kind == "O":   # objects that are arrays (0-d DDArrays say) nest as in a list
            pairs: list = []
            return _pairs_to_arrays(pairs, _walk_nested(x.tolist(), pairs))
        values = x.ravel() if kind == "f" else x.ravel().tolist()
        return _pairs_to_arrays([_convert.scalar_to_dd(v) for v in values], x.shape)
    raise TypeError(f"cannot convert an array of dtype {x.dtype} to DD (xprec ddouble arrays: "
                    "ddblas.from_xprec; numpy-quaddtype arrays: ddblas.from_quad)")


def _integer_pairs(x: np.ndarray):
    """(hi, lo) of the nearest DDs of a (u)int64 array, exactly: x = a + b with a = (x >> 32)
    2^32 and b = x & (2^32 - 1), both exact doubles (32 significant bits at most), and |a| >= b
    or a = 0, so Fast2Sum gives hi = fl(a + b) = fl(x) and lo = x - hi exactly (at most 64
    bits in all); (hi, lo) is normalised since hi is x rounded to nearest even."""
    wide = x.astype(np.uint64 if x.dtype.kind == "u" else np.int64)
    a = np.ldexp((wide >> 32).astype(np.float64), 32)
    b = (wide & 0xFFFFFFFF).astype(np.float64)
    hi = a + b
    return hi, b - (hi - a)


def _pairs_to_arrays(pairs, shape):
    hi = np.array([p[0] for p in pairs], dtype=np.float64).reshape(shape)
    lo = np.array([p[1] for p in pairs], dtype=np.float64).reshape(shape)
    return hi, lo


def array(obj, device=None, copy=True) -> DDArray:
    """A new DDArray from `obj`: a DDArray; a Python, NumPy or mpmath number; a decimal string
    (parsed to the nearest DD, error <= 2^-106 relative); a Fraction or Decimal; another real
    number type of the numbers ABCs (gmpy2's mpz, mpq and mpfr: exactly); a NumPy or CuPy
    array (float64 and 64-bit integers are exact, in either byte order; object/string arrays
    are converted per element; subclasses such as np.matrix as plain arrays; a masked array with masked values is
    a ValueError); an mpmath matrix; or nested sequences of these (lists, tuples, ranges and
    other Sequences, not str, bytes, bytearray or memoryview; at most 64 levels; arrays in them
    nest as in NumPy: a list of two (1, 1) arrays has shape (2, 1, 1)).

    device: 'cpu' or 'gpu'; None keeps the device of an array input and otherwise means 'cpu'.
    """
    if device is not None:
        check_device(device)
    if isinstance(obj, DDArray):
        result = obj.to_device(device or obj.device)
        return result.copy() if copy and result is obj else result
    if is_gpu_array(obj):
        target = device or "gpu"
        if obj.dtype == np.float64:
            hi = obj.copy() if copy else obj
            lo = array_module(obj).zeros_like(obj)
            return DDArray(hi, lo, normalize=False).to_device(target)
        return array(obj.get(), device=target, copy=False)
    if isinstance(obj, np.ndarray):
        hi, lo = _host_pairs_from_numpy(_plain_array(obj, None), copy)
    elif type(obj).__name__ == "matrix" and hasattr(obj, "tolist") and hasattr(obj, "rows"):
        # an mpmath matrix (with no rows, tolist() is [] whatever the columns: reshaped)
        return array(obj.tolist(), device=device).reshape(obj.rows, obj.cols)
    elif is_nested(obj):
        pairs = []
        shape = _walk_nested(obj, pairs)
        hi, lo = _pairs_to_arrays(pairs, shape)
    else:
        h, l = _convert.scalar_to_dd(obj)
        hi, lo = np.array(h), np.array(l)
    return DDArray(hi, lo, normalize=False).to_device(device or "cpu")


def asarray(obj, device=None) -> DDArray:
    """Like :func:`array`, but returns `obj` itself if it is a DDArray on the device asked for,
    and wraps a float64 NumPy/CuPy array without copying it (the DDArray's hi shares its memory)."""
    return array(obj, device=device, copy=False)


def from_mpmath(obj, device=None) -> DDArray:
    """A DDArray of the DD values nearest to an mpmath mpf, matrix, or nested list of mpf."""
    return array(obj, device=device)


def _new(shape, value: float, device) -> DDArray:
    device = check_device(device or "cpu")
    shape = shape_argument(shape)
    xp = _backend.backend(device).xp
    return DDArray(xp.full(shape, value, dtype=np.float64), xp.zeros(shape, dtype=np.float64),
                   normalize=False)


def shape_argument(shape) -> tuple:
    """shape (an int, a sequence of ints or a 0-d / 1-d integer NumPy array, as NumPy takes, with
    sizes >= 0) as a tuple; a TypeError/ValueError naming it."""
    dims = (shape,) if isinstance(shape, numbers.Integral) else shape
    if isinstance(dims, np.ndarray) and dims.dtype.kind in "iu" and dims.ndim <= 1:
        dims = tuple(dims.reshape(-1).tolist())
    if (isinstance(dims, (str, bytes)) or not isinstance(dims, (tuple, list))
            or not all(isinstance(d, numbers.Integral) and not isinstance(d, (bool, np.bool_))
                       for d in dims)):
        raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}")
    if any(d < 0 for d in dims):
        raise ValueError(f"shape must not have negative sizes, got {shape!r}")
    return tuple(int(d) for d in dims)


def zeros(shape, device=None) -> DDArray:
    """A DDArray of zeros."""
    return _new(shape, 0.0, device)


def ones(shape, device=None) -> DDArray:
    """A DDArray of ones."""
    return _new(shape, 1.0, device)


def full(shape, fill_value, device=None) -> DDArray:
    """A DDArray filled with fill_value (any scalar :func:`array` accepts, e.g. "0.1")."""
    value = array(fill_value)
    if value.ndim != 0:
        raise ValueError(f"full() needs a scalar fill_value, got shape {value.shape}")
    device = check_device(device or "cpu")
    shape = shape_argument(shape)
    xp = _backend.backend(device).xp
    hi, lo = float(value.hi), float(value.lo)
    # CuPy may fill with a memset when the value == 0, which would lose the sign of -0.0.
    parts = [-xp.zeros(shape) if v == 0 and np.signbit(v) else xp.full(shape, v, dtype=np.float64)
             for v in (hi, lo)]
    return DDArray(*parts, normalize=False)


def eye(n, m=None, k=0, device=None) -> DDArray:
    """An n x m DDArray with ones on diagonal k and zeros elsewhere."""
    device = check_device(device or "cpu")
    xp = _backend.backend(device).xp
    hi = xp.eye(n, m, k, dtype=np.float64)
    return DDArray(hi, xp.zeros_like(hi), normalize=False)


RANDOM_CHUNK = 1 << 22   # values drawn at a time by random (64 MiB of 53-bit halves)


def random(shape, seed=None, device=None) -> DDArray:
    """Uniform random DD values in [0, 1) with all 106 bits random: each value is k * 2^-106 for
    a uniform integer k < 2^106. The same seed gives the same values on the CPU and the GPU.

    The two 53-bit halves of k are drawn together element by element (row-major order), so the
    values do not depend on the shape: random((5,), seed=s)[:3] == random((3,), seed=s). A shape
    that does not fit in the device's memory raises MemoryError before anything is drawn.
    """
    device = check_device(device or "cpu")
    shape = shape_argument(shape)
    count = math.prod(shape)
    if device == "cpu":
        _backend.require_host_memory(2 * 8 * count, f"random({shape})")
    xp = _backend.backend(device).xp
    hi, lo = xp.empty(count), xp.empty(count)   # on the GPU, CuPy's OutOfMemoryError first
    rng = np.random.default_rng(seed)
    for start in range(0, count, RANDOM_CHUNK):   # the same stream as one draw of every value
        stop = min(count, start + RANDOM_CHUNK)
        halves = move(rng.integers(0, 2 ** 53, size=(stop - start, 2), dtype=np.int64), device)
        a = xp.ldexp(halves[:, 0].astype(np.float64), -53)   # exact: each half < 2^53
        b = xp.ldexp(halves[:, 1].astype(np.float64), -106)
        # exact: a = 0 or exponent(a) >= exponent(b)
        hi[start:stop], lo[start:stop] = eft.fast_two_sum(a, b)
    return DDArray(hi.reshape(shape), lo.reshape(shape), normalize=False)


