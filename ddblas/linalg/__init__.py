"""ddblas.linalg: DD factorizations and solvers (SciPy's names and semantics) and numpy.linalg's
array-API functions, singular values and symmetric eigenvalues (matrix_power, multi_dot,
vector_norm, matrix_norm, tensorsolve, tensorinv, trace, vecdot, cross, svd, svdvals,
matrix_rank, pinv, eigh, eigvalsh: NumPy's semantics), on both devices; numpy.linalg's functions
on DDArrays run these with NumPy's semantics (NEP 18). Algorithms and bounds: docs/linalg.md."""
from .errors import LinAlgError
from .factor import (cho_factor, cho_solve, cholesky, lu, lu_factor, lu_solve,
                     solve_triangular)
from .norms import matrix_norm, norm, vector_norm
from .numpy_linalg import QRResult
from .products import cross, matrix_power, multi_dot, trace, vecdot
from .qr import lstsq, qr
from .solve import SlogdetResult, cond, det, inv, slogdet, solve
from .jacobi import (EighResult, SVDResult, eigh, eigvalsh, matrix_rank, pinv, svd,
                     svdvals)
from .tensor import tensorinv, tensorsolve

__all__ = ["EighResult", "LinAlgError", "QRResult", "SVDResult", "SlogdetResult", "cho_factor",
           "cho_solve", "cholesky", "cond", "cross", "det", "eigh", "eigvalsh", "inv", "lstsq",
           "lu", "lu_factor", "lu_solve", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
           "norm", "pinv", "qr", "slogdet", "solve", "solve_triangular", "svd", "svdvals",
           "tensorinv", "tensorsolve", "trace", "vecdot", "vector_norm"]
