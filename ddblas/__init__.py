"""ddblas: double-double (~106-bit) arrays and linear algebra on NVIDIA GPUs (CuPy) and CPUs.

All arithmetic lives once in cuda_src/ (C++/CUDA headers), compiled by NVRTC for the GPU and by
the system C++ compiler for the CPU, so both give bitwise identical results.
"""
from . import eft
from .core.array import (DDArray, DDType, array, asarray, dd, eye, from_mpmath, full, ones, random,  # noqa: A004
                         zeros)
from .core.io import from_quad, from_xprec, load, save, to_quad, to_xprec
from .engines.backend import gpu_available
from .engines.cpu import cpu_threads
from .engines.cpu import get_threads as get_cpu_threads
from .blas.batched import rgemm_batched
from .blas.gemm import matmul, rgemm
from .blas.level3 import rgemv, rsyrk, rtrsm
from .core.ops import (absolute, add, ceil, copysign, divide, dot, equal, floor, fmax, fmin,
                       greater, greater_equal, isfinite, isinf, isnan, less, less_equal, maximum,
                       minimum, multiply, negative, not_equal, power, reciprocal, rint, sign, sqrt,
                       square, subtract, sum, trunc)
from .core.options import (Options, get_options, get_printoptions, options, printoptions,
                           set_printoptions)
from .core.reductions import (all, any, argmax, argmin, argwhere, count_nonzero, cumprod,  # noqa: A004
                              cumsum, flatnonzero, max, mean, min, nonzero, prod, std, var)
from .core.shaping import (array_split, dsplit, expand_dims, hsplit, matrix_transpose, moveaxis,
                           put, repeat, split, squeeze, swapaxes, take, take_along_axis, tile,
                           vsplit)
from .core.building import (allclose, arange, argpartition, argsort, broadcast_to, clip,
                            concatenate, diag, diagonal, empty_like, flip, full_like, hstack,
                            isclose, kron, linspace, ones_like, outer, partition, roll,
                            searchsorted, sort, stack, trace, tril, triu, unique, unique_all,
                            unique_counts, unique_inverse, unique_values, vstack, where,
                            zeros_like)
from .core.nanfunctions import (median, nanargmax, nanargmin, nanmax, nanmean, nanmedian, nanmin,
                                 nanpercentile, nanprod, nanquantile, nanstd, nansum, nanvar,
                                 percentile, quantile)
from .core.trigonometric import arccos, arcsin, arctan, arctan2, cos, hypot, sin, tan
from .core.elementary import (arccosh, arcsinh, arctanh, cosh, exp, exp2, expm1, fmod, log, log1p,
                              log2, log10, sinh, tanh)

__version__ = "0.1.0"

from . import accuracy  # noqa: E402  (uses the array type and options above)
from . import linalg  # noqa: E402
from .linalg.products import inner, matvec, tensordot, vdot, vecmat  # noqa: E402

abs = absolute  # noqa: A001

__all__ = [
    "abs", "absolute", "accuracy", "add", "all", "allclose", "any", "arange", "arccos", "arccosh",
    "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argmax", "argmin", "argpartition",
    "argsort", "argwhere", "array", "array_split", "asarray", "broadcast_to", "ceil", "clip",
    "concatenate", "copysign", "cos", "cosh", "count_nonzero", "cpu_threads", "cumprod", "cumsum",
    "dd", "DDArray", "DDType", "diag", "diagonal", "divide", "dot", "dsplit", "eft", "empty_like",
    "equal", "exp", "exp2", "expand_dims", "expm1", "eye", "flatnonzero", "flip", "floor", "fmax",
    "fmin", "fmod", "from_mpmath", "from_quad", "from_xprec", "full", "full_like",
    "get_cpu_threads", "get_options", "get_printoptions", "gpu_available", "greater",
    "greater_equal", "hsplit", "hstack", "hypot", "inner", "isclose", "isfinite", "isinf", "isnan",
    "kron", "less", "less_equal", "linalg", "linspace", "load", "log", "log10", "log1p", "log2",
    "matmul", "matrix_transpose", "matvec", "max", "maximum", "mean", "median", "min", "minimum",
    "moveaxis", "multiply", "nanargmax", "nanargmin", "nanmax", "nanmean", "nanmedian", "nanmin",
    "nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum", "nanvar", "negative", "nonzero",
    "not_equal", "ones", "ones_like", "options", "Options", "outer", "partition", "percentile",
    "power", "printoptions", "prod", "put", "quantile", "random", "reciprocal", "repeat", "rgemm",
    "rgemm_batched", "rgemv", "rint", "roll", "rsyrk", "rtrsm", "save", "searchsorted",
    "set_printoptions", "sign", "sin", "sinh", "sort", "split", "sqrt", "square", "squeeze",
    "stack", "std", "subtract", "sum", "swapaxes", "take", "take_along_axis", "tan", "tanh",
    "tensordot", "tile", "to_quad", "to_xprec", "trace", "tril", "triu", "trunc", "unique",
    "unique_all", "unique_counts", "unique_inverse", "unique_values", "var", "vdot", "vecmat",
    "vsplit", "vstack", "where", "zeros", "zeros_like",
]
