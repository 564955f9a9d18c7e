"""DDArrays in files (save, load) and in other DD/quad libraries' arrays (xprec, numpy-quaddtype).

No arithmetic here: files and xprec hold the (hi, lo) pairs themselves, and the quad conversions
are NumPy casts and one IEEE binary128 operation each (quad arithmetic, correctly rounded).
"""
from __future__ import annotations

import os
import zipfile

import numpy as np

from .array import DDArray, asarray
from ..engines.backend import check_device, move

FORMAT_TAG = "ddblas-dd-v1"
_KEYS = {"format", "shape", "hi", "lo"}


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
        When the file is not a ddblas DD file (not an .npz archive, no "ddblas-dd-v1" tag, parts
        missing or of the wrong dtype or shape), naming the path and what was found.
    """
    check_device(device)
    where = _describe(path)
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, EOFError, zipfile.BadZipFile) as exc:  # OSError (no file...) passes
        raise ValueError(f"load: {where} is not a ddblas DD file (.npz with the "
                         f"{FORMAT_TAG!r} tag): NumPy cannot read it ({exc})") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise ValueError(f"load: {where} is not a ddblas DD file: it holds one NumPy array of "
                         f"dtype {archive.dtype} and shape {archive.shape} (a .npy file), not "
                         f"an .npz archive tagged {FORMAT_TAG!r}")
    with archive:
        keys = set(archive.files)
        if "format" not in keys or archive["format"].shape != () or \
                str(archive["format"]) != FORMAT_TAG:
            found = repr(str(archive["format"])) if "format" in keys else "no format tag"
            raise ValueError(f"load: {where} is not a ddblas DD file: expected the format tag "
                             f"{FORMAT_TAG!r}, found {found} (arrays: {sorted(keys)})")
        if not _KEYS <= keys:
            raise ValueError(f"load: {where} is a damaged ddblas DD file: it lacks "
                             f"{sorted(_KEYS - keys)}")
        hi, lo, shape = archive["hi"], archive["lo"], tuple(int(d) for d in archive["shape"])
    if hi.dtype != np.float64 or lo.dtype != np.float64 or hi.shape != shape or \
            lo.shape != shape:
        raise ValueError(f"load: {where} is a damaged ddblas DD file: hi {hi.dtype}{hi.shape} "
                         f"and lo {lo.dtype}{lo.shape} must be float64 of shape {shape}")
    return DDArray(hi, lo).to_device(device)


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
    pairs = out.view(np.float64).reshape(x.shape + (2,))
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
    lo = fl64(a - hi) (a - hi is exact in binary128: hi is a's nearest double). Exact when a has
    at most 106 significant bits in two double-sized pieces; otherwise |error| <= 2^-107 |a|
    (the 7 last of 113 bits round into lo), as for any value converted to DD. Values past the
    DD range become +-inf, values below 2^-1074 zeros of their sign.

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
    a = a.astype(_quad_dtype(quaddtype))
    hi = a.astype(np.float64)
    finite = np.isfinite(hi)
    with np.errstate(invalid="ignore"):  # NaN - 0 in the lanes that np.where drops
        lo = np.where(finite, (a - np.where(finite, hi, 0.0).astype(a.dtype)).astype(np.float64),
                      0.0)
    return DDArray(hi, lo).to_device(device or "cpu")
