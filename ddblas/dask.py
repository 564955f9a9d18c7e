"""DD arrays and rgemm on Dask: dask.array with NumPy or CuPy chunks, on the threaded scheduler,
a dask.distributed cluster or dask_cuda's LocalCUDACluster (docs/distributed.md).

Representation: a DDDaskArray wraps ONE dask array `parts` of shape (2, *shape) whose leading axis
(hi, lo) is always a single chunk, so each task holds both parts of its block: one key per block,
hi and lo never land on different workers, and every block function sees them as one (2, ...)
float64 array whose [0] and [1] are the DDArray's parts (views, no copy). The cost is one stack
(a copy) of each block function's two output arrays into its (2, ...) block.

Every block is computed by the ddblas functions of the layers below (core.ops, blas.gemm): no DD
arithmetic happens here. Reductions are dask tree reductions whose every step (the chunk step and
the combine step) is ddblas.sum over the partial DD sums, i.e. DD additions, never a float64 add.
The arithmetic options (fma, add) are resolved when the graph is built, on the client, and passed
to every task: ddblas.options() is thread-local and would not reach the workers.
"""
from __future__ import annotations

import builtins
import functools
import math
import numbers
import re
import warnings

import numpy as np

try:
    import dask
    import dask.array as da
except ImportError as exc:  # the optional extra
    raise ImportError("ddblas.dask needs dask[array]: pip install 'ddblas[dask]', or "
                      "pip install '.[dask]' in a source checkout") from exc

from .blas.gemm import rgemm as _rgemm
from .core import ops
from .core.array import DDArray, asarray, is_array, shape_argument
from .core.array import random as _random_dd
from .core.array import zeros as _zeros
from .core.options import resolve
from .blas.gemmcall import dd_scalar, require_algorithm, transposed
from .engines.backend import array_module, broadcast_shape, device_of_array

__all__ = ["DDDaskArray", "from_ddarray", "from_dask", "random", "add", "subtract", "multiply",
           "divide", "sqrt", "negative", "absolute", "equal", "not_equal", "less", "less_equal",
           "greater", "greater_equal", "sum", "dot", "rgemm", "matmul"]


# ---- blocks: (2, ...) float64 arrays <-> DDArrays ----
def _as_dd(block) -> DDArray:
    return DDArray(block[0], block[1], normalize=False)


def _as_block(x: DDArray):
    """x as a (2, ...) block, computed: on the GPU the task waits for its kernels, so that it
    ends when its block is ready (dask then times the GPU's work, and a worker's GPU holds one
    task's kernels at a time: UCX synchronizes the whole GPU before each transfer, which would
    otherwise wait for every task queued behind it)."""
    return _ready(x.xp.stack((x.hi, x.lo)))


def _ready(block):
    """block, once the GPU's kernels on the current stream are done (CuPy blocks; see
    _as_block)."""
    if array_module(block) is not np:
        array_module(block).cuda.get_current_stream().synchronize()
    return block


class _Scalar:
    """A DD scalar operand (hi, lo floats) of a blockwise operation, made a DDArray on each
    block's device inside the task."""
    __slots__ = ("hi", "lo")

    def __init__(self, value):
        value = asarray(value, device="cpu")
        self.hi, self.lo = float(value.hi), float(value.lo)

    def __reduce__(self):
        return (_scalar_from_parts, (self.hi, self.lo))

    def on(self, xp) -> DDArray:
        return DDArray(xp.asarray(self.hi), xp.asarray(self.lo), normalize=False)

    def equals(self, value: float) -> bool:
        """Whether the scalar is exactly `value` (a double): hi == value, lo == 0."""
        return self.hi == value and self.lo == 0

    def __dask_tokenize__(self):
        # the bits, so that -0.0 and 0.0 (and NaNs) have their own tokens
        return ("ddblas.dask._Scalar", np.float64(self.hi).view(np.int64).item(),
                np.float64(self.lo).view(np.int64).item())


def _scalar_from_parts(hi: float, lo: float) -> _Scalar:
    scalar = _Scalar.__new__(_Scalar)
    scalar.hi, scalar.lo = hi, lo
    return scalar


def _apply_block(func, *operands, **options):
    """func on the blocks' DDArrays (scalars on the blocks' device): a (2, ...) block for a
    DDArray result, the bool array itself for a comparison."""
    xp = next(array_module(b) for b in operands if not isinstance(b, _Scalar))
    args = [b.on(xp) if isinstance(b, _Scalar) else _as_dd(b) for b in operands]
    result = func(*args, **options)
    return _as_block(result) if isinstance(result, DDArray) else result


def _meta(parts, ndim: int):
    """An empty array of the chunks' type (numpy or cupy) with ndim dimensions."""
    return array_module(parts._meta).empty((0,) * ndim, dtype=parts.dtype)


# ---- the array ----
class DDDaskArray:
    """A distributed array of double-double values: a dask array `parts` of shape (2, *shape),
    parts[0] the hi and parts[1] the lo float64 parts, the leading axis one chunk (see the module
    docstring). Chunks are NumPy arrays ("cpu") or CuPy arrays ("gpu"); results keep them where
    they are until .compute() brings them to the caller.

    Build one with :func:`from_ddarray`, :func:`from_dask` or :func:`random`; ``DDDaskArray(parts)``
    wraps a (2, ...) float64 dask array as it is (its leading axis rechunked to one chunk), for
    parts known to be normalised DD pairs. It is a dask collection: ``dask.compute(x, y)`` gives
    DDArrays, ``dask.persist(x)`` a DDDaskArray of the computed blocks.
    """

    __slots__ = ("parts",)
    __hash__ = None
    # NEP 13: NumPy's and DDArray's binary operators leave a DDDaskArray operand to its reflected
    # operators below (and NumPy's ufuncs refuse it)
    __array_ufunc__ = None

    def __init__(self, parts):
        if not isinstance(parts, da.Array):
            raise TypeError(f"DDDaskArray parts must be a dask array, got {type(parts).__name__}")
        if parts.dtype != np.float64 or parts.ndim < 1 or parts.shape[0] != 2:
            raise ValueError(f"DDDaskArray parts must be a float64 dask array of shape (2, ...), "
                             f"got dtype {parts.dtype} and shape {parts.shape}")
        self.parts = parts if len(parts.chunks[0]) == 1 else parts.rechunk({0: 2})

    # ---- attributes ----
    @property
    def shape(self) -> tuple:
        return self.parts.shape[1:]

    @property
    def ndim(self) -> int:
        return self.parts.ndim - 1

    @property
    def size(self):
        """The number of elements: nan where a size is unknown (after boolean indexing), as
        dask's."""
        if any(math.isnan(s) for s in self.shape):
            return math.nan
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def chunks(self) -> tuple:
        """The chunks of the array's own axes (dask's tuple of tuples)."""
        return self.parts.chunks[1:]

    @property
    def numblocks(self) -> tuple:
        return self.parts.numblocks[1:]

    @property
    def device(self) -> str:
        """'cpu' for NumPy chunks, 'gpu' for CuPy chunks."""
        return device_of_array(self.parts._meta)

    @property
    def hi(self):
        """The hi parts as a dask array (same chunks)."""
        return self.parts[0]

    @property
    def lo(self):
        """The lo parts as a dask array (same chunks)."""
        return self.parts[1]

    @property
    def T(self) -> "DDDaskArray":
        return self.transpose()

    def __iter__(self):
        """The subarrays along the first axis, lazily (a 0-d array: TypeError, as a DDArray's;
        without this Python's fallback to __getitem__ stopped at its IndexError: nothing)."""
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d DDDaskArray")
        for i in range(len(self)):
            yield self[i]

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d DDDaskArray")
        if math.isnan(self.shape[0]):
            raise ValueError("cannot call len() on a DDDaskArray of unknown chunk sizes "
                             "(compute_chunk_sizes() on .parts first)")
        return self.shape[0]

    def __bool__(self) -> bool:
        """The truth of a one-element array (computed, as dask's); ambiguous otherwise (without
        this, Python took len() > 0 as the truth value)."""
        if self.size != 1:
            raise ValueError(f"the truth value of a DDDaskArray of shape {self.shape} is "
                             f"ambiguous")
        return bool(self.compute())

    def __repr__(self) -> str:
        """Shape, largest chunk, device and number of blocks: a few words, as dask's repr (the
        chunks themselves are in .chunks)."""
        return (f"DDDaskArray<shape={self.shape}, chunksize={self.parts.chunksize[1:]}, "
                f"device='{self.device}', blocks={int(np.prod(self.numblocks, dtype=np.int64))}>")

    # ---- the dask collection protocol (docs.dask.org, "Custom Collections") ----
    # A DDDaskArray is a dask collection whose graph, keys and layers are those of `parts`:
    # dask.compute(x, y) gives DDArrays, dask.persist(x) a DDDaskArray of the computed blocks,
    # dask.optimize, dask.visualize and distributed's Client.compute / persist take it as they
    # take a dask array. Each method below hands the work to parts' own and wraps the result.
    def __dask_graph__(self):
        return self.parts.__dask_graph__()

    def __dask_keys__(self):
        return self.parts.__dask_keys__()

    def __dask_layers__(self):
        return self.parts.__dask_layers__()

    def __dask_tokenize__(self):
        # parts' name is the token of its graph: equal arrays of equal graphs, equal tokens
        return ("ddblas.dask.DDDaskArray", self.parts.name)

    @staticmethod
    def __dask_optimize__(dsk, keys, **kwargs):
        # looked up at each call, so dask's "array_optimize" setting applies as to its arrays
        return da.Array.__dask_optimize__(dsk, keys, **kwargs)

    @staticmethod
    def __dask_scheduler__(dsk, keys, **kwargs):
        return da.Array.__dask_scheduler__(dsk, keys, **kwargs)

    def __dask_postcompute__(self):
        finalize, args = self.parts.__dask_postcompute__()
        return _finalize_dd, (finalize, args)

    def __dask_postpersist__(self):
        rebuild, args = self.parts.__dask_postpersist__()
        return _rebuild_dd, (rebuild, args)

    @property
    def dask(self):
        """The task graph (a HighLevelGraph), as a dask array's ``.dask``."""
        return self.parts.dask

    @property
    def name(self) -> str:
        """The name of the graph's output layer (the first item of every output key)."""
        return self.parts.name

    # ---- evaluation ----
    def compute(self, **kwargs) -> DDArray:
        """The values as one DDArray on the chunks' device (kwargs go to dask.compute, e.g.
        scheduler=); ``dask.compute(x)`` gives the same."""
        (value,) = dask.compute(self, **kwargs)
        return value

    to_ddarray = compute

    def persist(self, **kwargs) -> "DDDaskArray":
        """The same array with its blocks computed and kept in (distributed) memory (kwargs go to
        dask.persist; optimize_graph=False keeps per-key annotations such as `workers`, which
        graph optimisation drops: docs/distributed.md); ``dask.persist(x)`` gives the same."""
        (persisted,) = dask.persist(self, **kwargs)
        return persisted

    def rechunk(self, chunks="auto") -> "DDDaskArray":
        """The array with new chunks of its own axes, as dask's rechunk takes them: an int, a
        size string or "auto" for every axis, a tuple per axis, a dict by axis (negative axes
        count from the end); axes not named, and None, keep their chunks ("auto" and sizes in
        bytes count a DD element as 16 bytes)."""
        mapped = _parts_chunks(chunks, self.ndim)
        try:
            return DDDaskArray(self.parts.rechunk(mapped))
        except (ValueError, TypeError, ZeroDivisionError) as error:
            raise ValueError(f"chunks {chunks!r} do not fit the shape {self.shape}: "
                             f"{error}") from None

    # ---- views ----
    def __getitem__(self, key) -> "DDDaskArray":
        """x[key] with NumPy's meaning, by dask's indexing of the parts: basic indices, integer
        arrays, boolean masks of one axis, of several (merged into one first) or of the whole
        shape; an IndexError for what dask's arrays cannot take, such as two array indices
        (docs/distributed.md, "Indexing")."""
        key = tuple(map(_index_entry, key if isinstance(key, tuple) else (key,)))
        if any(isinstance(k, (DDArray, DDDaskArray)) for k in key):
            raise TypeError("a DD array cannot index an array; use a boolean or integer array")
        if any(isinstance(k, (bool, np.bool_)) for k in key):   # dask took True as 1
            if len(key) != 1:
                raise IndexError("a boolean scalar index is supported alone only by ddblas.dask "
                                 "(x[True] is x[None], x[False] that axis empty): use None")
            new = self.parts[:, None]
            return DDDaskArray(new if key[0] else new[:, :0])
        parts, key = _merge_masked_axes(self.parts, key)
        try:
            return DDDaskArray(_take(parts, key))
        except IndexError as error:   # dask counts the parts axis: name the DD array's axes
            raise IndexError(re.sub(r"axis (\d+)", lambda m: f"axis {int(m.group(1)) - 1}",
                                    str(error))) from None
        except NotImplementedError as error:   # an index dask's arrays do not take
            raise IndexError(f"ddblas.dask cannot index with this key (dask's arrays do not "
                             f"take it): {error}") from None

    def transpose(self, *axes) -> "DDDaskArray":
        axes = axes[0] if len(axes) == 1 and not isinstance(axes[0], numbers.Integral) else axes
        axes = tuple(axes) if axes else tuple(reversed(range(self.ndim)))
        for a in axes:   # (the modulo below had hidden axis 5 of a 2-D array)
            if not -self.ndim <= a < self.ndim:
                raise np.exceptions.AxisError(a, self.ndim)
        if sorted(a % self.ndim if self.ndim else a for a in axes) != list(range(self.ndim)):
            raise ValueError(f"axes {axes} are not a permutation of the {self.ndim} axes")
        return DDDaskArray(self.parts.transpose((0,) + tuple(a % self.ndim + 1 for a in axes)))

    def reshape(self, *shape) -> "DDDaskArray":
        if len(shape) == 1 and not isinstance(shape[0], numbers.Integral):
            shape = shape[0]
        return DDDaskArray(self.parts.reshape((2,) + tuple(shape)))

    # ---- operators ----
    def __add__(self, other): return add(self, other)
    def __radd__(self, other): return add(other, self)
    def __sub__(self, other): return subtract(self, other)
    def __rsub__(self, other): return subtract(other, self)
    def __mul__(self, other): return multiply(self, other)
    def __rmul__(self, other): return multiply(other, self)
    def __truediv__(self, other): return divide(self, other)
    def __rtruediv__(self, other): return divide(other, self)
    def __matmul__(self, other): return matmul(self, other)
    def __rmatmul__(self, other): return matmul(other, self)
    def __neg__(self): return negative(self)
    def __pos__(self): return self
    def __abs__(self): return absolute(self)
    def __eq__(self, other): return equal(self, other)
    def __ne__(self, other): return not_equal(self, other)
    def __lt__(self, other): return less(self, other)
    def __le__(self, other): return less_equal(self, other)
    def __gt__(self, other): return greater(self, other)
    def __ge__(self, other): return greater_equal(self, other)

    def sum(self, axis=None, keepdims=False, *, fma=None, add=None, split_every=None):
        """:func:`sum` of the array, with its keywords."""
        return sum(self, axis=axis, keepdims=keepdims, fma=fma, add=add, split_every=split_every)

    def __array__(self, dtype=None, copy=None):
        raise TypeError("a DDDaskArray does not convert to a NumPy array implicitly (that would "
                        "drop its lo part): use .compute() for a DDArray")


def _finalize_dd(results, finalize, args) -> DDArray:
    """__dask_postcompute__'s finalizer: the computed blocks joined by the dask array's own
    finalizer into one (2, ...) array, as a DDArray (its two parts, not copied)."""
    return _as_dd(finalize(results, *args))


def _rebuild_dd(dsk, rebuild, args, rename=None) -> DDDaskArray:
    """__dask_postpersist__'s rebuilder: the dask array of the new graph `dsk` (the persisted
    blocks, or an optimised graph), renamed as `rename` says, wrapped again."""
    return DDDaskArray(rebuild(dsk, *args, rename=rename))


def _is_mask(k) -> bool:
    """Whether the index entry k is a boolean array (NumPy, CuPy or dask) of >= 1 axes."""
    return getattr(k, "dtype", None) == bool and getattr(k, "ndim", 0) >= 1


def _merge_masked_axes(parts, key: tuple):
    """parts (2, *shape) and the DD array's index `key` with every boolean mask of several
    axes made a mask of one: the axes it covers merged into one (parts reshaped, row-major, as
    NumPy orders a mask's elements) and the mask flattened. dask's arrays take a 1-D mask on any
    axis, a mask of several axes only of their whole shape, so through the parts axis never:
    x[m] of a mask of the leading axes is then dask's parts.reshape(2, n, ...)[:, m.ravel()],
    NumPy's result, and the merge keeps every other entry's axes and its place in the result.
    IndexError: too many indices, more than one Ellipsis, a mask's shape that does not match
    the axes it covers, or sizes dask does not know (after another mask) among them."""
    if not any(_is_mask(k) and k.ndim >= 2 for k in key):
        return parts, key
    shape = parts.shape[1:]
    if builtins.sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = builtins.sum(0 if k is None or k is Ellipsis else k.ndim if _is_mask(k) else 1
                        for k in key)
    if used > len(shape):
        masks = ", ".join(f"a boolean mask of {k.ndim} axes" for k in key
                          if _is_mask(k) and k.ndim >= 2)
        raise IndexError(f"too many indices for a DDDaskArray of {len(shape)} axes: {used} "
                         f"indexed ({masks} counting as many)")
    new_shape, new_key, axis = [], [], 0
    for k in key:
        if k is Ellipsis:
            width = len(shape) - used
        elif k is None:
            width = 0
        else:
            width = k.ndim if _is_mask(k) else 1
        covered = shape[axis:axis + width]
        if k is not Ellipsis and _is_mask(k) and width >= 2:
            if any(m != n for m, n in zip(k.shape, covered)
                   if not (math.isnan(m) or math.isnan(n))):
                raise IndexError(f"a boolean mask of shape {k.shape} does not match the "
                                 f"array's shape {shape} (axes {axis} to {axis + width - 1}: "
                                 f"{covered})")
            if any(math.isnan(n) for n in covered + k.shape):
                raise IndexError(f"a boolean mask of shape {k.shape} needs the sizes of the "
                                 f"axes it covers known, got {covered} (compute_chunk_sizes() "
                                 f"on .parts first)")
            new_shape.append(int(np.prod(covered, dtype=np.int64)))
            k = k.reshape(-1)
        else:
            new_shape.extend(covered)
        new_key.append(k)
        axis += width
    new_shape.extend(shape[axis:])
    if any(math.isnan(n) for n in new_shape):
        raise IndexError(f"a boolean mask of several axes needs the array's sizes known, got "
                         f"{shape} (compute_chunk_sizes() on .parts first)")
    return parts.reshape((2,) + tuple(new_shape)), tuple(new_key)


def _is_array_index(k) -> bool:
    """Whether the index entry k is an array index (a list, or an array of >= 1 axes)."""
    return isinstance(k, list) or getattr(k, "ndim", 0) >= 1


def _array_ndim(k) -> int:
    """The number of axes of an array index (a ragged list: 1, dask's error follows)."""
    if hasattr(k, "ndim"):
        return k.ndim
    try:
        return np.ndim(k)
    except ValueError:
        return 1


def _take(parts, key: tuple):
    """parts[(slice(None),) + key] by dask, in NumPy's order where dask's differs (key: the DD
    array's index, its masks of several axes merged). A None beside an array index: dask's
    getitem fails (an AttributeError or a TypeError of its own), so the new axes are inserted
    first and indexed by slices. Integers and one array index apart (a slice or an Ellipsis
    between them): NumPy puts the array's axis first, dask leaves it in place, so it is moved.
    An integer array of several axes: an IndexError (dask's arrays take none)."""
    arrays = [i for i, k in enumerate(key) if _is_array_index(k)]
    for i in arrays:   # dask's getitem raised its own TypeError ('>=' between list and int)
        if _array_ndim(key[i]) > 1:
            raise IndexError(f"ddblas.dask cannot index with an integer array of "
                             f"{_array_ndim(key[i])} axes (dask's arrays take 1-D ones only)")
    if arrays and any(k is None for k in key):
        parts = parts[(slice(None),) + tuple(k if k is None or k is Ellipsis else slice(None)
                                             for k in key)]
        key = tuple(slice(None) if k is None else k for k in key)
    result = parts[(slice(None),) + key]
    advanced = [i for i, k in enumerate(key) if i in arrays or
                isinstance(k, numbers.Integral) and not isinstance(k, (bool, np.bool_))]
    if len(arrays) == 1 and advanced[-1] - advanced[0] + 1 != len(advanced):
        spread = parts.ndim - len(key)   # the axes an Ellipsis stands for
        before = builtins.sum(spread if k is Ellipsis else 1 if isinstance(k, slice) else 0
                              for k in key[:arrays[0]])
        result = da.moveaxis(result, before + 1, 1)
    return result


def _index_entry(k):
    """An index entry as NumPy reads it where dask does not: a list of booleans (nested too) as a
    bool array (dask took a nested one as one axis's mask), a 0-d bool array as its bool (dask
    took it as a mask of one element)."""
    if isinstance(k, list):
        try:
            array = np.asarray(k)
        except ValueError:   # ragged: dask's error
            return k
        return array if array.dtype == bool else k
    if isinstance(k, np.ndarray) and k.dtype == bool and k.ndim == 0:
        return bool(k)
    return k


def _parts_chunks(chunks, ndim: int):
    """chunks of a DD array's `ndim` axes (int, size string, "auto", tuple, dict by axis with
    negative axes from the end) as chunks of its parts' array (2, *shape): the parts axis whole,
    so that "auto" and sizes in bytes count a DD element as 16 bytes; a ValueError naming the
    argument for a dict axis or a tuple length that does not fit."""
    if isinstance(chunks, dict):
        bad = [k for k in chunks if not isinstance(k, numbers.Integral) or not -ndim <= k < ndim]
        if bad:
            raise ValueError(f"chunks {chunks!r}: axis {bad[0]!r} is not one of the {ndim} axes")
        return {0: 2, **{int(k) % ndim + 1: v for k, v in chunks.items()}}
    if isinstance(chunks, (tuple, list)):
        if len(chunks) != ndim:
            raise ValueError(f"chunks {chunks!r} name {len(chunks)} axes, the array has {ndim}")
        return (2,) + tuple(chunks)
    return {0: 2, **{axis + 1: chunks for axis in range(ndim)}}


def _chunks_argument(chunks, shape: tuple) -> tuple:
    """chunks of an array of `shape` (as _parts_chunks takes them) as dask's normalised tuple of
    tuples; a ValueError naming the argument. (Normalised with the parts axis: "auto" had
    counted 8 bytes an element, making blocks of twice dask's size; dict axes had not been
    mapped, -1 and out-of-range ones ignored.)"""
    parts = _parts_chunks(chunks, len(shape))
    try:
        return da.core.normalize_chunks(parts, (2,) + tuple(shape), dtype=np.float64)[1:]
    except (ValueError, TypeError) as error:
        raise ValueError(f"chunks {chunks!r} do not fit the shape {shape}: {error}") from None
    except ZeroDivisionError:  # dask's error for a chunk size of 0 on a non-empty axis
        raise ValueError(f"chunks {chunks!r} do not fit the shape {shape}: chunk sizes must be "
                         f"positive (-1 or None: the whole axis)") from None


# ---- construction ----
def from_ddarray(x, chunks="auto") -> DDDaskArray:
    """A DDDaskArray of the DDArray x (or anything ddblas.asarray takes) cut into chunks (an int,
    a tuple per axis, a dict or "auto", as dask.array takes them). The chunks are slices of one
    (2, ...) copy of x's parts on x's device (CuPy chunks for a GPU array)."""
    x = asarray(x)
    parts = x.xp.stack((x.hi, x.lo))
    chunks = (2,) + _chunks_argument(chunks, x.shape)
    return DDDaskArray(da.from_array(parts, chunks=chunks, asarray=False,
                                     meta=x.xp.empty((0,) * parts.ndim)))


def _normalized_block(hi, lo):
    return _as_block(DDArray(hi, lo))


def from_dask(hi, lo=None, *, normalize: bool = True) -> DDDaskArray:
    """A DDDaskArray from two float64 dask arrays of one shape (lo=None: zeros), lo rechunked to
    hi's chunks. normalize=True checks and normalises each chunk as DDArray(hi, lo) does (in
    the tasks); normalize=False wraps pairs known to be normalised."""
    if not isinstance(hi, da.Array) or not (lo is None or isinstance(lo, da.Array)):
        raise TypeError(f"from_dask takes dask arrays, got hi {type(hi).__name__} and lo "
                        f"{type(lo).__name__}")
    lo = da.zeros_like(hi) if lo is None else lo
    for name, part in (("hi", hi), ("lo", lo)):
        if part.dtype != np.float64:
            raise TypeError(f"from_dask {name} must be float64, got {part.dtype}")
    if isinstance(normalize, np.bool_):
        normalize = bool(normalize)
    if not isinstance(normalize, bool):
        raise TypeError(f"from_dask normalize must be True or False, got {normalize!r}")
    if len(hi.shape) != len(lo.shape) or any(
            p != q and not (math.isnan(p) and math.isnan(q)) for p, q in zip(hi.shape, lo.shape)):
        raise ValueError(f"from_dask hi and lo must have one shape, got {hi.shape} and {lo.shape}")
    lo = lo.rechunk(hi.chunks)
    if normalize:
        parts = da.map_blocks(_normalized_block, hi, lo, new_axis=0,
                              chunks=((2,),) + hi.chunks, dtype=np.float64,
                              meta=_meta(hi, hi.ndim + 1))
    else:
        parts = da.stack([hi, lo])
    return DDDaskArray(parts)


def _random_block(seed: int, device: str, block_info=None):
    info = block_info[None]
    index = info["chunk-location"][1:]
    return _as_block(_random_dd(info["chunk-shape"][1:], seed=[seed, *index], device=device))


def random(shape, chunks="auto", seed=None, device=None) -> DDDaskArray:
    """Uniform random DD values in [0, 1) as ddblas.random draws them, generated per chunk in the
    tasks (never whole on one worker): the chunk at block index (i, j, ...) is
    ddblas.random(chunk_shape, seed=[seed, i, j, ...], device=device), so the values depend on the
    seed and the chunks only, not on the scheduler or the workers. seed: an int in [0, 2^32), or
    None for one drawn now from the OS (fixed in the graph, so a retried task gives the same
    values). shape: an int or a tuple of ints >= 0, as ddblas.random takes it. device: 'cpu'
    (NumPy chunks, the default) or 'gpu' (CuPy chunks)."""
    if seed is None:
        seed = int(np.random.SeedSequence().entropy) % 2 ** 32
    # below 2^32: the seed is one 32-bit word of [seed, i, j, ...], so 2^32 + 7 would read as
    # [7, 1] and give the blocks of seed 7 shifted by one index
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or not 0 <= seed < 2 ** 32:
        raise ValueError(f"random seed must be an int in [0, 2^32) or None, got {seed!r}")
    probe = _random_dd((0,), device=device)  # checks device, gives the chunk type
    shape = shape_argument(shape)   # as ddblas.random: dask would take negative and float sizes
    chunks = (2,) + _chunks_argument(chunks, shape)
    meta = probe.xp.empty((0,) * (len(shape) + 1))
    return DDDaskArray(da.map_blocks(_random_block, int(seed), probe.device, chunks=chunks,
                                     dtype=np.float64, meta=meta))


# ---- elementwise operations ----
def _operand(x):
    """A DDDaskArray or _Scalar as it is; an N-d DDArray (or array) as a DDDaskArray of it; a
    scalar as a _Scalar."""
    if isinstance(x, (DDDaskArray, _Scalar)):
        return x
    if isinstance(x, da.Array):
        raise TypeError("a dask array operand must be wrapped first: ddblas.dask.from_dask(hi, lo)")
    x = asarray(x)
    return _Scalar(x) if x.ndim == 0 else from_ddarray(x)


def _elementwise(func, *xs, comparison: bool = False, **options):
    """func blockwise on DDDaskArrays and scalars with NumPy broadcasting (a scalar goes to every
    task as a constant)."""
    xs = [_operand(x) for x in xs]
    arrays = [x for x in xs if isinstance(x, DDDaskArray)]
    if not arrays:
        raise TypeError("a ddblas.dask operation needs at least one DDDaskArray operand")
    if len({x.device for x in arrays}) > 1:
        raise ValueError("operands have NumPy and CuPy chunks: move one (from_ddarray(x.compute()"
                         ".to_device(...)))")
    # the shapes' error before the chunks' (dask's rule: sizes may be unknown, nan)
    broadcast_shape(*(x.shape for x in arrays), rule=da.core.broadcast_shapes)
    ndim = max(x.ndim for x in arrays)
    padded = {id(x): x.parts[(slice(None),) + (None,) * (ndim - x.ndim)] for x in arrays}
    # each axis chunked as the first operand that is not broadcast along it
    target = [next((p.chunks[d] for p in padded.values() if p.shape[d] != 1), (1,))
              for d in range(ndim + 1)]
    args = [x if isinstance(x, _Scalar) else padded[id(x)].rechunk(
        tuple(c if n != 1 else -1 for c, n in zip(target, padded[id(x)].shape))) for x in xs]
    meta = arrays[0].parts
    if comparison:
        return da.map_blocks(_apply_block, func, *args, drop_axis=0, dtype=np.bool_,
                             meta=array_module(meta._meta).empty((0,) * ndim, dtype=np.bool_))
    return DDDaskArray(da.map_blocks(_apply_block, func, *args, dtype=np.float64,
                                     meta=_meta(meta, ndim + 1), **options))


def _options(fma, add) -> dict:
    opts = resolve(fma, add)
    return {"fma": opts.fma, "add": opts.add}


def add(a, b, *, fma=None, add=None) -> DDDaskArray:
    """a + b blockwise with ddblas.add (its bound per element)."""
    return _elementwise(ops.add, a, b, **_options(fma, add))


def subtract(a, b, *, fma=None, add=None) -> DDDaskArray:
    """a - b blockwise with ddblas.subtract."""
    return _elementwise(ops.subtract, a, b, **_options(fma, add))


def multiply(a, b, *, fma=None, add=None) -> DDDaskArray:
    """a * b blockwise with ddblas.multiply."""
    return _elementwise(ops.multiply, a, b, **_options(fma, add))


def divide(a, b, *, fma=None, add=None) -> DDDaskArray:
    """a / b blockwise with ddblas.divide."""
    return _elementwise(ops.divide, a, b, **_options(fma, add))


def sqrt(a, *, fma=None, add=None) -> DDDaskArray:
    """sqrt(a) blockwise with ddblas.sqrt."""
    return _elementwise(ops.sqrt, a, **_options(fma, add))


def negative(a) -> DDDaskArray:
    """-a, exact."""
    return _elementwise(ops.negative, a)


def absolute(a) -> DDDaskArray:
    """|a|, exact."""
    return _elementwise(ops.absolute, a)


def _full_block(block, value: bool):
    """A bool block of `value` shaped like a (2, ...) block's values."""
    return array_module(block).full(block.shape[1:], value)


def _comparison(func, symbol):
    """The comparison `func` (operator `symbol`) blockwise, with ddblas.equal's answers against
    an object that is not a number (a string that does not parse as one too): all False (==),
    all True (!=), a TypeError (orderings)."""
    def compare(a, b):
        try:
            return _elementwise(func, a, b, comparison=True)
        except (TypeError, ValueError) as exc:
            array, other = (a, b) if isinstance(a, DDDaskArray) else (b, a)
            if (not isinstance(array, DDDaskArray) or is_array(other)
                    or isinstance(other, (DDDaskArray, DDArray, da.Array, numbers.Number, list,
                                          tuple))
                    or isinstance(exc, ValueError) and not isinstance(other, str)):
                raise
            if symbol not in ("==", "!="):
                raise TypeError(f"'{symbol}' is not supported between a DDDaskArray and "
                                f"{type(other).__name__} (not a number: {exc})") from exc
            return array.parts.map_blocks(_full_block, symbol == "!=", drop_axis=0, dtype=bool,
                                          meta=_meta(array.parts, array.ndim).astype(bool))
    compare.__name__ = func.__name__
    against = {"==": "all False", "!=": "all True"}.get(symbol, "a TypeError")
    compare.__doc__ = (f"Elementwise {func.__name__}(a, b) of the exact DD values, as a bool dask "
                       f"array; against an object that is not a number {against}, as NumPy.")
    return compare


equal = _comparison(ops.equal, "==")
not_equal = _comparison(ops.not_equal, "!=")
less = _comparison(ops.less, "<")
less_equal = _comparison(ops.less_equal, "<=")
greater = _comparison(ops.greater, ">")
greater_equal = _comparison(ops.greater_equal, ">=")


# ---- reductions: dask tree reductions whose steps are ddblas.sum (DD additions) ----
def _sum_block(block, axis, keepdims, fma, add):
    """ddblas.sum of a (2, ...) block over `axis` (axes of the block, the parts axis being 0)."""
    return _as_block(ops.sum(_as_dd(block), axis=tuple(a - 1 for a in axis), keepdims=keepdims,
                             fma=fma, add=add))


def _axes(axis, ndim: int) -> tuple:
    """axis (None, an int or a sequence of ints) as distinct non-negative axes; errors name it."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, numbers.Integral) else axis
    if not isinstance(axes, (tuple, list)) or not all(
            isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in axes):
        raise TypeError(f"axis must be None, an int or a tuple of ints, got {axis!r}")
    for a in axes:
        if not -ndim <= a < ndim:
            raise ops.axis_error(a, ndim)
    normalized = tuple(int(a) % ndim for a in axes)
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"repeated axis in {axis!r}")
    return normalized


def _split_every(split_every, ndim: int):
    """sum's split_every (None, an int >= 2, or a dict of the array's axes, negative from the
    end, to ints >= 2) as dask's, whose dict is keyed by the parts' axes (axis + 1); a ValueError
    naming it otherwise (dask's were a math domain error for 0, a ZeroDivisionError for a dict
    of a 0-d array)."""
    def integer(v):
        return isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))

    if split_every is None:
        return None
    if not isinstance(split_every, dict):
        if not integer(split_every) or split_every < 2:
            raise ValueError(f"split_every must be None, an int >= 2 or a dict of axes to ints "
                             f">= 2, got {split_every!r}")
        return int(split_every)
    for k, v in split_every.items():
        if not integer(k) or not -ndim <= k < ndim:
            raise ValueError(f"split_every {split_every!r}: axis {k!r} is not one of the {ndim} "
                             f"axes")
        if not integer(v) or v < 2:
            raise ValueError(f"split_every {split_every!r}: {v!r} for axis {k} is not an int "
                             f">= 2")
    return {int(k) % ndim + 1: int(v) for k, v in split_every.items()}


def sum(a, axis=None, *, keepdims=False, fma=None, add=None,  # noqa: A001
        split_every=None) -> DDDaskArray:
    """Sum over the given axes (all by default): ddblas.sum of each chunk, then a dask tree whose
    every combine step is ddblas.sum of the partial DD sums (split_every of them at a time: dask's
    default when None). Any summation tree of n terms errs by <= (n - 1) c_add (1 + 2^-40)
    sum(|a|), the bound of ddblas.sum (docs/distributed.md); the order is fixed by the chunks and
    split_every, not by the scheduler."""
    if not isinstance(a, DDDaskArray):
        raise TypeError(f"ddblas.dask.sum takes a DDDaskArray, got {type(a).__name__}")
    axes = _axes(axis, a.ndim)
    split_every = _split_every(split_every, a.ndim)
    step = functools.partial(_sum_block, **_options(fma, add))
    parts = da.reduction(a.parts, chunk=step, aggregate=step, combine=step,
                         axis=tuple(x + 1 for x in axes), keepdims=keepdims, dtype=np.float64,
                         split_every=split_every, concatenate=True,
                         meta=_meta(a.parts, a.ndim + 1 - (0 if keepdims else len(axes))))
    return DDDaskArray(parts)


def _dot_block(x, y, fma, add):
    return _as_block(ops.dot(_as_dd(x), _as_dd(y), fma=fma, add=add)).reshape(2, 1)


def dot(x, y, *, fma=None, add=None) -> DDDaskArray:
    """Inner product of two 1-D DDDaskArrays of equal length (a scalar or 0-d operand multiplies):
    ddblas.dot of each pair of chunks (y rechunked to x's chunks), the partial dots summed by
    :func:`sum`'s DD tree. Error <= (c_mul + (n - 1) c_add)(1 + 2^-40) sum(|x_i y_i|), ddblas.dot's
    bound (docs/distributed.md)."""
    x, y = _operand(x), _operand(y)
    if any(isinstance(v, _Scalar) or v.ndim == 0 for v in (x, y)):   # a 0-d DDDaskArray too
        return multiply(x, y, fma=fma, add=add)
    if x.ndim != 1 or y.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"dot takes two 1-D arrays of equal length (or a scalar), got shapes "
                         f"{x.shape} and {y.shape}")
    yp = y.parts.rechunk(x.parts.chunks)
    partials = da.map_blocks(_dot_block, x.parts, yp, chunks=((2,), (1,) * x.numblocks[0]),
                             dtype=np.float64, meta=_meta(x.parts, 2), **_options(fma, add))
    return sum(DDDaskArray(partials), fma=fma, add=add)


# ---- matrix products ----
def _gemm_block(a, b, *c, alpha, beta, fma, add, algorithm):
    """ddblas.rgemm of one block row of op(A) by one block column of op(B): alpha op(A) op(B),
    plus beta C0 where C0's block c is given (beta != 0), written into a copy of c (dask's
    blocks are never written: they may be a persisted block or a view of the user's array)."""
    args = dict(alpha=alpha.on(np), beta=beta.on(np), fma=fma, add=add, algorithm=algorithm)
    if not c:
        return _as_block(_rgemm(_as_dd(a), _as_dd(b), **args))
    out = c[0].copy()
    _rgemm(_as_dd(a), _as_dd(b), _as_dd(out), **args)
    return _ready(out)


def _gemm_piece(a, b, fma, add, algorithm):
    """ddblas.rgemm of one k-chunk, as a (2, 1, m, n) block of the partial products."""
    return _as_block(_rgemm(_as_dd(a), _as_dd(b), fma=fma, add=add,
                            algorithm=algorithm))[:, None]


def _epilogue_block(acc, *c, alpha, beta, fma, add):
    """rgemm's epilogue (gemm.h's gemm_epilogue) on a block of the summed products acc, in the
    same operations and order: r = alpha * acc (acc itself for alpha = 1), then, where C0's
    block c is given (beta != 0), r = r + beta * C0; each a ddblas elementwise function."""
    xp = array_module(acc)
    r = _as_dd(acc)
    if not alpha.equals(1):
        r = ops.multiply(alpha.on(xp), r, fma=fma, add=add)
    if c:
        r = ops.add(r, ops.multiply(beta.on(xp), _as_dd(c[0]), fma=fma, add=add), fma=fma,
                    add=add)
    return _as_block(r)


def _zeros_block(device, block_info=None):
    """A (2, ...) block of DD zeros (+0.0 in both parts) of the chunk's shape."""
    return _as_block(_zeros(block_info[None]["chunk-shape"][1:], device=device))


def _blockwise(*args, **kwargs):
    """da.blockwise without dask's PerformanceWarning "Increasing number of chunks by factor of
    ...": a product makes a block of C for every block row of A and block column of B by design
    (every k-whole product of more than 10 block rows or columns warned)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Increasing number of chunks",
                                category=da.PerformanceWarning)
        return da.blockwise(*args, **kwargs)


def _gemm_output(c, shape: tuple, chunks: tuple, device: str) -> DDDaskArray:
    """rgemm's c (a DDDaskArray, or a DDArray cut into C's chunks) checked against the product's
    shape and device: errors name c, as ddblas.rgemm's do."""
    if isinstance(c, DDArray):
        if c.shape != shape:   # before from_ddarray, whose chunks would not fit
            raise ValueError(f"c has shape {c.shape}, but op(A) @ op(B) is "
                             f"{'x'.join(map(str, shape))}")
        c = from_ddarray(c, chunks=chunks)
    if not isinstance(c, DDDaskArray):
        raise TypeError(f"rgemm: c must be a DDDaskArray or a DDArray, got {type(c).__name__}")
    if c.shape != shape:
        raise ValueError(f"c has shape {c.shape}, but op(A) @ op(B) is "
                         f"{'x'.join(map(str, shape))}")
    if c.device != device:
        raise ValueError(f"rgemm: c has {'CuPy' if c.device == 'gpu' else 'NumPy'} chunks, a "
                         f"and b the other kind: move one")
    return c.rechunk(chunks)


def rgemm(a, b, c=None, *, alpha=1, beta=0, transa="N", transb="N", fma=None, add=None,
          algorithm="auto", split_k=False, split_every=None) -> DDDaskArray:
    """C = alpha op(A) op(B) + beta C in double-double, each block of C from ddblas.rgemm.

    The arguments as ddblas.rgemm's, in its order; the result is a new DDDaskArray (dask's
    arrays are not written in place: c is read, never overwritten). The blocks of C follow op(A)'s
    row chunks and op(B)'s column chunks; c is rechunked to them.

    Parameters
    ----------
    a, b : DDDaskArray or DDArray
        2-D operands (a DDArray is cut into dask's "auto" chunks); op(X) is X for "N" and X.T
        for "T" or "C" (transa, transb).
    c : DDDaskArray or DDArray, optional
        C0, of op(A) op(B)'s shape, on the operands' device. Read only where beta != 0: with
        beta = 0 its values (NaN and inf too) do not reach the result, nor its tasks the graph.
        None: beta must be 0.
    alpha, beta : DD scalar
        A number, a numeric string or a 0-d DDArray, as ddblas.rgemm takes them. alpha = 0 (or
        K = 0) forms no product: C = beta C0, or zeros for beta = 0, whatever A and B hold.
    transa, transb : {"N", "T", "C"}
    fma, add : arithmetic variant (default: ddblas.options() when the graph is built).
    algorithm : str
        ddblas.rgemm's algorithm for every task ("auto": chosen per task, for its block).
    split_k : bool
        False (default): each task multiplies a whole block row of op(A) (its k axis
        rechunked to one chunk) by a whole block column of op(B) with ddblas.rgemm, alpha,
        beta and C0's block included, so each block of C comes from one rgemm call: with a
        classic kernel (every one sums k in increasing order from (0, 0), then applies the
        epilogue alpha acc + beta C0) C equals ddblas.rgemm(A, B, C0, alpha=alpha, beta=beta)
        on the whole arrays bit for bit. "auto" may choose differently for a block than for the
        whole product (tsm for thin edge blocks, an Ozaki scheme for large ones): then the
        result is within the same bound, not always the same bits.
        True: op(B)'s k axis is rechunked to op(A)'s k chunks; task (p, i, j) computes
        op(A)[i, p] op(B)[p, j] and the partial products are summed by :func:`sum`'s DD tree
        (split_every at a time) into acc; then rgemm's epilogue, alpha acc + beta C0, in the
        same DD operations and order as the kernels' (ddblas.multiply and ddblas.add,
        blockwise). With one k chunk the result is ddblas.rgemm's bits (classic kernels).
    split_every : int or dict, optional
        The tree's fan-in (split_k=True), as :func:`sum` takes it.

    Returns
    -------
    DDDaskArray
        C, M x N, on the operands' device.

    Raises
    ------
    ValueError
        Operands not 2-D, op(A) and op(B) that do not align, a c of another shape or device,
        beta != 0 without c, a bad alpha, beta, transa, transb or algorithm: each names its
        argument, when the graph is built.
    TypeError
        A c that is neither a DDDaskArray nor a DDArray; an alpha or beta that is no number.

    Notes
    -----
    Error: with S = (|op(A)| |op(B)|)_ij and K the whole k length, |C_ij - exact_ij| <=
    (c_mul + c_add + c_first + (K - 1) c_acc)(1 + 2^-40)(|alpha| S + |beta| |C0_ij|), rgemm's
    bound (accuracy.bound("gemm", variant, K)), for k whole and, where the pieces are summed by
    the classic kernels, tsm, ozaki-fp64 or ozaki-int8, for k split. ozaki2-int8 pieces (also
    by "auto") may add (c_mul + c_add)(1 + 2^-40) |alpha| S to it when alpha != 1 or
    beta != 0 (docs/distributed.md).
    """
    flip_a, flip_b = transposed(transa, "transa"), transposed(transb, "transb")
    require_algorithm(algorithm)   # checked here: the tasks would fail only when computed
    alpha_s, beta_s = (_Scalar(dd_scalar(v, name)) for v, name in ((alpha, "alpha"),
                                                                    (beta, "beta")))
    a, b = _operand(a), _operand(b)
    for name, x in (("a", a), ("b", b)):
        if not isinstance(x, DDDaskArray) or x.ndim != 2:
            raise ValueError(f"ddblas.dask.rgemm {name} must be a 2-D array, got "
                             f"{'a scalar' if isinstance(x, _Scalar) else f'shape {x.shape}'}")
    op_a, op_b = (a.T if flip_a else a), (b.T if flip_b else b)
    (m, k), (k2, n) = op_a.shape, op_b.shape
    if k != k2:
        raise ValueError(f"rgemm: op(A) is {m}x{k} (a has shape {a.shape}, transa={transa!r}) "
                         f"but op(B) is {k2}x{n} (b has shape {b.shape}, transb={transb!r}): "
                         f"they do not align")
    if a.device != b.device:
        raise ValueError("rgemm operands have NumPy and CuPy chunks: move one")
    chunks = (op_a.chunks[0], op_b.chunks[1])
    if c is None and not beta_s.equals(0):
        raise ValueError("beta != 0 needs an input matrix c")
    if c is not None:
        c = _gemm_output(c, (m, n), chunks, a.device)
    read_c = [] if beta_s.equals(0) else [c.parts, "pij"]   # beta = 0: C0 is never read
    opts = _options(fma, add)
    if k == 0 or alpha_s.equals(0):   # no product, as ddblas.rgemm: C = beta C0 or zeros
        if read_c:
            return multiply(beta_s, c, **opts)
        return DDDaskArray(da.map_blocks(_zeros_block, a.device, chunks=((2,),) + chunks,
                                         dtype=np.float64, meta=_meta(a.parts, 3)))
    if not split_k:
        return DDDaskArray(_blockwise(
            _gemm_block, "pij", op_a.parts.rechunk({2: -1}), "pik",
            op_b.parts.rechunk({1: -1}), "pkj", *read_c, dtype=np.float64, concatenate=True,
            meta=_meta(a.parts, 3), alpha=alpha_s, beta=beta_s, algorithm=algorithm, **opts))
    pieces = _blockwise(_gemm_piece, "pkij", op_a.parts, "pik",
                        op_b.parts.rechunk({1: op_a.parts.chunks[2]}), "pkj", dtype=np.float64,
                        adjust_chunks={"k": 1}, meta=_meta(a.parts, 4), algorithm=algorithm,
                        **opts)
    acc = sum(DDDaskArray(pieces), axis=0, split_every=split_every, **opts)
    if alpha_s.equals(1) and not read_c:
        return acc
    return DDDaskArray(_blockwise(_epilogue_block, "pij", acc.parts, "pij", *read_c,
                                  dtype=np.float64, meta=_meta(a.parts, 3), alpha=alpha_s,
                                  beta=beta_s, **opts))


def matmul(a, b, *, fma=None, add=None, algorithm="auto") -> DDDaskArray:
    """a @ b for 2-D operands: :func:`rgemm` with k whole per task."""
    return rgemm(a, b, fma=fma, add=add, algorithm=algorithm)
