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
from .core.reductions import (all, any, argmax, argmin, cumprod, cumsum, max, mean, min,  # noqa: A004
                              prod, std, var)
from .core.building import (allclose, arange, argsort, broadcast_to, concatenate, diag, diagonal,
                            empty_like, flip, full_like, hstack, isclose, linspace, ones_like,
                            outer, roll, sort, stack, tril, triu, vstack, where, zeros_like)

__version__ = "0.1.0"

from . import accuracy  # noqa: E402  (uses the array type and options above)
from . import linalg  # noqa: E402

abs = absolute  # noqa: A001

__all__ = [
    "DDArray", "Options", "abs", "absolute", "accuracy", "add", "array", "asarray", "cpu_threads",
    "divide", "dot", "eft", "equal", "eye", "from_mpmath", "full", "get_cpu_threads", "get_options",
    "gpu_available", "greater", "greater_equal", "less", "less_equal", "linalg", "matmul", "multiply", "negative", "not_equal", "ones",
    "options", "random", "rgemm", "rgemm_batched", "rgemv", "rsyrk", "rtrsm", "sqrt", "subtract", "sum", "zeros",
    # reductions (core.reductions)
    "all", "any", "argmax", "argmin", "cumprod", "cumsum", "max", "mean", "min", "prod", "std",
    "var",
    # building and reshaping (core.building)
    "allclose", "arange", "argsort", "broadcast_to", "concatenate", "diag", "diagonal",
    "empty_like", "flip", "full_like", "hstack", "isclose", "linspace", "ones_like", "outer",
    "roll", "sort", "stack", "tril", "triu", "vstack", "where", "zeros_like",
    # simple elementwise functions (core.ops)
    "ceil", "copysign", "floor", "fmax", "fmin", "isfinite", "isinf", "isnan", "maximum",
    "minimum", "power", "reciprocal", "rint", "sign", "square", "trunc",
    # values, files and digits (core.array, core.io, core.options)
    "DDType", "dd", "from_quad", "from_xprec", "get_printoptions", "load", "printoptions",
    "save", "set_printoptions", "to_quad", "to_xprec",
]
