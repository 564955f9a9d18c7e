"""DDArrays in files (save, load) and in other DD/quad libraries' arrays (xprec, numpy-quaddtype).

No arithmetic here: files and xprec hold the (hi, lo) pairs themselves, and the quad conversions
are NumPy casts and one operation each in the quad array's format (binary128 or long double
arithmetic, correctly rounded).
"""
from __future__ import annotations

import importlib
import math
import os
import zipfile
import zlib

import numpy as np

from .array import DDArray, asarray
from ..engines.backend import check_device, move


def _import_numpy_ma() -> None:
    """Import numpy.ma (which scipy.linalg and np.median import). Its import reads the finfo of
    every registered scalar type, and xprec's ddouble has a finfo without .min (NumPy 2): once
    xprec is imported, numpy.ma's import raises AttributeError for good. Imported with ddblas
    (~10 ms), it is there before any to_xprec / from_xprec imports xprec; where xprec came
    first (``import xprec, ddblas``: ddblas's import failed), the types whose finfo has no .min
    are left out of NumPy's table of scalar types for the time of the import, then put back."""
    try:
        importlib.import_module("numpy.ma")
        return
    except AttributeError:
        pass
    table = importlib.import_module("numpy._core.numerictypes" if hasattr(np, "_core")
                                    else "numpy.core.numerictypes").sctypeDict  # NumPy 1.x
    hidden = {name: kind for name, kind in table.items() if not _has_finfo_min(kind)}
    for name in hidden:
        del table[name]
    try:
        importlib.import_module("numpy.ma")
    finally:
        table.update(hidden)


def _has_finfo_min(kind) -> bool:
    """Whether a scalar type is not a floating type or has a finfo with .min (numpy.ma's need)."""
    try:
        return not np.issubdtype(np.dtype(kind), np.floating) or hasattr(np.finfo(kind), "min")
    except (TypeError, ValueError):
        return True


_import_numpy_ma()

FORMAT_TAG = "ddblas-dd-v1"
_KEYS = {"format", "shape", "hi", "lo"}
# What reading a damaged archive raises (not a zip, a corrupt or truncated member, a bad .npy
# header or checksum, a compression zipfile cannot undo); other OSErrors are the caller's.
_READ_ERRORS = (ValueError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError)
# Reading a member of an archive already open: an OSError too is damage (offsets in a damaged
# central directory can make zipfile seek before the file's start: EINVAL).
_MEMBER_ERRORS = _READ_ERRORS + (OSError,)
_HEADER_READERS = {(1, 0): np.lib.format.read_array_header_1_0,
                   (2, 0): np.lib.format.read_array_header_2_0}
_MAX_TAG_LENGTH = 64  # characters of a format entry worth reading
_MAX_DIMENSIONS = 64  # NumPy's limit on ndim


def _describe(path) -> str:
    return repr(os.fspath(path)) if isinstance(path, (str, bytes, os.PathLike)) else repr(path)


def save(path, x) -> None:
    """Save a DDArray to an .npz file: arrays "hi" and "lo" (float64), "shape" (int64) and the
    format tag "format" = "ddblas-dd-v1". The pairs are stored bit for bit (NaN payloads, -0.0,
    subnormals), so load gives back the same array. As with np.savez, ".npz" is appended to a
    file name that does not end with it; `path` may also be an open binary file.

    Parameters
    ----------
    path : str, os.PathLike or file object
        Where to write.
    x : DDArray
        The array (on either device; a GPU array is copied to the host to be written).
    """
    if not isinstance(x, DDArray):
        raise TypeError(f"save: x must be a DDArray, got {type(x).__name__} (convert it with "
                        "ddblas.asarray first)")
    hi, lo = move(x.hi, "cpu"), move(x.lo, "cpu")
    np.savez(path, format=np.array(FORMAT_TAG), shape=np.array(x.shape, dtype=np.int64),
             hi=hi, lo=lo)


def load(path, device: str = "cpu") -> DDArray:
    """Load a DDArray written by :func:`save`.

    Parameters
    ----------
    path : str, os.PathLike or file object
        The .npz file.
    device : {"cpu", "gpu"}
        Where the array goes.

    Raises
    ------
    ValueError
        When the file is not a ddblas DD file (not an .npz archive, no "ddblas-dd-v1" tag) or a
        damaged one (parts missing or of the wrong dtype or shape, a "shape" entry that is not
        a 1-D array of non-negative integers, a member that cannot be read: bad checksum,
        truncated data, a damaged .npy header), naming the path and what was found. Each
        member's .npy header is checked before its data is read, so a damaged header cannot
        make NumPy allocate the shape it announces.
    """
    check_device(device)
    where = _describe(path)
    try:
        archive = np.load(path, allow_pickle=False)
    except _READ_ERRORS as exc:  # OSError (no file...) passes
        raise ValueError(f"load: {where} is not a ddblas DD file (.npz with the "
                         f"{FORMAT_TAG!r} tag): NumPy cannot read it ({exc})") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"load: {where} is not a ddblas DD file: it holds one NumPy array of "
                         f"dtype {archive.dtype} and shape {archive.shape} (a .npy file), not "
                         f"an .npz archive tagged {FORMAT_TAG!r}")
    with archive:
        keys = set(archive.files)
        tag, problem = (_read_member(archive, "format", _tag_problem) if "format" in keys
                        else (None, "no format tag"))
        if tag is None or str(tag) != FORMAT_TAG:
            raise ValueError(f"load: {where} is not a ddblas DD file: expected the format tag "
                             f"{FORMAT_TAG!r}, found {problem or repr(str(tag))} (arrays: "
                             f"{sorted(keys)})")
        if not _KEYS <= keys:
            raise ValueError(f"load: {where} is a damaged ddblas DD file: it lacks "
                             f"{sorted(_KEYS - keys)}")
        sizes, problem = _read_member(archive, "shape", _shape_problem)
        if problem is None and (sizes < 0).any():
            problem = f"a 'shape' entry with negative sizes {sizes.tolist()}"
        if problem is None:
            shape = tuple(int(d) for d in sizes)
            hi, problem = _read_member(archive, "hi", _part_problem("hi", shape))
        if problem is None:
            lo, problem = _read_member(archive, "lo", _part_problem("lo", shape))
    if problem is not None:
        raise ValueError(f"load: {where} is a damaged ddblas DD file: found {problem}")
    # native float64 (the kernels read the parts' bytes as this machine's doubles)
    return DDArray(hi.astype(np.float64, copy=False), lo.astype(np.float64, copy=False)
                   ).to_device(device)


def _read_member(archive, key: str, problem_of):
    """(array, None) for member `key` of the open .npz archive, or (None, what is wrong). Its .npy
    header is read first, and the data only when problem_of(shape, dtype) (what is wrong, or
    None) accepts the header and the member holds the bytes that the header announces."""
    names = archive.zip.namelist()
    name = key if key in names else key + ".npy"  # the member that archive[key] reads
    try:
        with archive.zip.open(name) as member:
            version = np.lib.format.read_magic(member)
            if version not in _HEADER_READERS:
                return None, f"member {key!r} of .npy format version {version}"
            shape, _, dtype = _HEADER_READERS[version](member)
            held = archive.zip.getinfo(name).file_size - member.tell()
        problem = problem_of(shape, dtype)
        if problem is not None:
            return None, problem
        if dtype.itemsize * math.prod(shape) > held:
            return None, f"member {key!r} announcing {dtype}{shape} but holding {held} bytes"
        return archive[key], None
    except _MEMBER_ERRORS as exc:
        return None, f"an unreadable member {key!r} ({type(exc).__name__}: {exc})"


def _tag_problem(shape, dtype):
    if shape == () and dtype.kind in "US" and dtype.itemsize <= 4 * _MAX_TAG_LENGTH:
        return None
    return f"a format entry of dtype {dtype} and shape {shape}"


def _shape_problem(shape, dtype):
    if len(shape) == 1 and shape[0] <= _MAX_DIMENSIONS and dtype.kind in "iu":
        return None
    return (f"a 'shape' entry of dtype {dtype} and shape {shape} (expected a 1-D integer array "
            f"of at most {_MAX_DIMENSIONS} sizes)")


def _part_problem(key: str, shape: tuple):
    """_read_member's problem_of for the part `key` ("hi" or "lo"): float64 of `shape`, in either
    byte order (a file written on a big-endian machine holds >f8)."""
    def problem_of(part_shape, dtype):
        if dtype.kind == "f" and dtype.itemsize == 8 and part_shape == shape:
            return None
        return f"{key} {dtype}{part_shape} (hi and lo must be float64 of shape {shape})"
    return problem_of


def _optional(module: str, package: str):
    try:
        return __import__(module)
    except ImportError:
        raise ImportError(f"this conversion needs the {module} package: pip install "
                          f"{package}") from None


def from_xprec(a, device=None) -> DDArray:
    """A DDArray of the values of an xprec ``ddouble`` array (exact: xprec stores (hi, lo)
    pairs; a pair that is not normalised is renormalised exactly, as DDArray does).

    Parameters
    ----------
    a : numpy.ndarray of dtype xprec.ddouble
    device : {"cpu", "gpu"} or None (cpu)
    """
    xprec = _optional("xprec", "xprec")
    if not isinstance(a, np.ndarray) or a.dtype != xprec.ddouble:
        raise TypeError(f"from_xprec: a must be a NumPy array of dtype xprec.ddouble, got "
                        f"{type(a).__name__}{'' if not hasattr(a, 'dtype') else ' ' + str(a.dtype)}")
    pairs = np.ascontiguousarray(a).view(np.float64).reshape(a.shape + (2,))
    return DDArray(pairs[..., 0].copy(), pairs[..., 1].copy()).to_device(device or "cpu")


def to_xprec(x) -> np.ndarray:
    """The values of a DDArray as a new NumPy array of dtype xprec.ddouble (exact)."""
    xprec = _optional("xprec", "xprec")
    x = asarray(x)
    out = np.empty(x.shape, dtype=xprec.ddouble)
    # A 0-d array cannot be viewed as a dtype of another size: its flat (1-element) view can.
    pairs = out.reshape(-1).view(np.float64).reshape(x.shape + (2,))
    pairs[..., 0] = move(x.hi, "cpu")
    pairs[..., 1] = move(x.lo, "cpu")
    return out


def _quad_dtype(quaddtype):
    return quaddtype.QuadPrecDType(backend="sleef")  # IEEE binary128


def to_quad(x) -> np.ndarray:
    """The values of a DDArray as a NumPy array of numpy-quaddtype's IEEE binary128 (113-bit
    significand): quad(hi) + quad(lo), one correctly rounded binary128 addition, so each value is
    the quad nearest hi + lo. It is exact when the bits of hi + lo span at most 113 positions,
    so at least when lo = 0 or |lo| >= 2^-60 |hi| (a gap of at most 7 bits between hi and lo);
    a DD such as 1 + 2^-200 rounds. Nothing overflows (DDs stay below 2^1024), and DD
    subnormals are quad normals."""
    quaddtype = _optional("numpy_quaddtype", "numpy-quaddtype")
    x = asarray(x)
    quad = _quad_dtype(quaddtype)
    hi, lo = move(x.hi, "cpu"), move(x.lo, "cpu")
    with np.errstate(invalid="ignore"):  # NaN pairs stay NaN
        return np.where(lo == 0, hi.astype(quad), hi.astype(quad) + lo.astype(quad))  # keeps -0.0


def from_quad(a, device=None) -> DDArray:
    """A DDArray of the DDs nearest the values of a numpy-quaddtype array: hi = fl64(a),
    lo = fl64(a - hi), both computed in a's own format: IEEE binary128 (backend "sleef") or the
    platform's long double (backend "longdouble"; x87's has a 64-bit significand), and rounded
    once also where they are subnormal (numpy-quaddtype's own cast rounds twice there). a - hi
    is exact there: hi is a's nearest double. Exact when a has at most 106 significant bits in two
    double-sized pieces (always so for a 64-bit significand); otherwise |error| <= 2^-107 |a|
    (the 7 last of 113 bits round into lo), as for any value converted to DD, down to about
    2^-969. Below, lo is subnormal and the error is absolute, <= 2^-1075 (half of lo's spacing
    2^-1074): the relative error grows as |a| shrinks (about 2^-53 near 2^-1022, up to 1 just
    above 2^-1075). Values past the DD range become +-inf, values of magnitude <= 2^-1075 zeros
    of their sign.

    Parameters
    ----------
    a : numpy.ndarray of a QuadPrecDType
    device : {"cpu", "gpu"} or None (cpu)
    """
    quaddtype = _optional("numpy_quaddtype", "numpy-quaddtype")
    if not isinstance(a, np.ndarray) or not isinstance(a.dtype, quaddtype.QuadPrecDType):
        raise TypeError(f"from_quad: a must be a NumPy array of a numpy_quaddtype "
                        f"QuadPrecDType, got {type(a).__name__}"
                        f"{'' if not hasattr(a, 'dtype') else ' ' + str(a.dtype)}")
    # No cast to binary128 first: numpy-quaddtype's from the longdouble backend rounds to float64.
    # Silent: hi's overflows (values past the DD range become +-inf) and, in the lanes of lo that
    # np.where drops, NaN - 0 and the overflows of a - 0.
    with np.errstate(over="ignore", invalid="ignore"):
        hi = _to_float64(a)
        finite = np.isfinite(hi)
        lo = np.where(finite, _to_float64(a - np.where(finite, hi, 0.0).astype(a.dtype)), 0.0)
    return DDArray(hi, lo).to_device(device or "cpu")


def _to_float64(a: np.ndarray) -> np.ndarray:
    """fl64(a) for an array of a QuadPrecDType, correctly rounded (ties to even) also where the
    result is subnormal: numpy-quaddtype's cast (sleef backend, 1.0) rounds such values twice
    (to 53 bits, then to the subnormal grid: 1.8090820978870111508e-308 gave
    1.8090820978870115e-308, 2^-1075 (1 + 2^-60) gave 0; 16 % of random subnormals). There the
    value is scaled to units of 2^-1074 (exact: two products by 2^537), rounded to an integer in
    a's format (np.rint: exact, ties to even) and scaled back (exact: the integer is below
    2^52)."""
    out = a.astype(np.float64)
    tiny = np.abs(a) < np.array(2.0 ** -1022).astype(a.dtype)   # False for nan
    if tiny.any():
        half = np.array(2.0 ** 537).astype(a.dtype)
        units = np.rint(a[tiny] * half * half).astype(np.float64)   # |units| <= 2^52: exact
        out[tiny] = np.ldexp(units, -1074)   # keeps the sign of a zero
    return out
