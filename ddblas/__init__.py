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
from .core.elementary import (arccosh, arcsinh, arctanh, cosh, exp, exp2, expm1, log, log1p,
                              log2, log10, power, sinh, tanh)
from .core.options import Options, get_options, options

__version__ = "0.1.0"

from . import accuracy  # noqa: E402  (uses the array type and options above)

abs = absolute  # noqa: A001

__all__ = [
    "DDArray", "Options", "abs", "absolute", "accuracy", "add", "arccosh", "arcsinh", "arctanh",
    "array", "asarray", "cosh", "cpu_threads", "divide", "dot", "eft", "equal", "exp", "exp2",
    "expm1", "eye", "from_mpmath", "full", "get_cpu_threads", "get_options", "gpu_available",
    "greater", "greater_equal", "less", "less_equal", "log", "log10", "log1p", "log2", "matmul",
    "multiply", "negative", "not_equal", "ones", "options", "power", "random", "rgemm",
    "rgemm_batched", "sinh", "sqrt", "subtract", "sum", "tanh", "zeros",
]
