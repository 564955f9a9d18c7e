"""ddblas: double-double (~106-bit) arrays and linear algebra on NVIDIA GPUs (CuPy) and CPUs.

All arithmetic lives once in cuda_src/ (C++/CUDA headers), compiled by NVRTC for the GPU and by
the system C++ compiler for the CPU, so both give bitwise identical results.
"""
from . import eft
from .core.array import (DDArray, array, asarray, eye, from_mpmath, full, ones, random, zeros)  # noqa: A004
from .engines.backend import gpu_available
from .engines.cpu import cpu_threads
from .engines.cpu import get_threads as get_cpu_threads
from .blas.batched import rgemm_batched
from .blas.gemm import matmul, rgemm
from .core.ops import (absolute, add, divide, dot, equal, greater, greater_equal, less, less_equal,
                       multiply, negative, not_equal, sqrt, subtract, sum)
from .core.options import Options, get_options, options
from .core.trigonometric import arccos, arcsin, arctan, arctan2, cos, hypot, sin, tan

__version__ = "0.1.0"

from . import accuracy  # noqa: E402  (uses the array type and options above)

abs = absolute  # noqa: A001

__all__ = [
    "DDArray", "Options", "abs", "absolute", "accuracy", "add", "arccos", "arcsin", "arctan",
    "arctan2", "array", "asarray", "cos", "cpu_threads",
    "divide", "dot", "eft", "equal", "eye", "from_mpmath", "full", "get_cpu_threads", "get_options",
    "gpu_available", "greater", "greater_equal", "hypot", "less", "less_equal", "matmul", "multiply", "negative", "not_equal", "ones",
    "options", "random", "rgemm", "rgemm_batched", "sin", "sqrt", "subtract", "sum", "tan", "zeros",
]
