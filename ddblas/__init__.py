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
from .core.ops import (absolute, add, divide, dot, equal, greater, greater_equal, less, less_equal,
                       multiply, negative, not_equal, sqrt, subtract, sum)
from .core.options import (Options, get_options, get_printoptions, options, printoptions,
                           set_printoptions)

__version__ = "0.1.0"

from . import accuracy  # noqa: E402  (uses the array type and options above)

abs = absolute  # noqa: A001

__all__ = [
    "DDArray", "DDType", "Options", "abs", "absolute", "accuracy", "add", "array", "asarray",
    "cpu_threads", "dd", "divide", "dot", "eft", "equal", "eye", "from_mpmath", "from_quad",
    "from_xprec", "full", "get_cpu_threads", "get_options", "get_printoptions", "gpu_available",
    "greater", "greater_equal", "less", "less_equal", "load", "matmul", "multiply", "negative",
    "not_equal", "ones", "options", "printoptions", "random", "rgemm", "rgemm_batched", "save",
    "set_printoptions", "sqrt", "subtract", "sum", "to_quad", "to_xprec", "zeros",
]
