"""ddblas.linalg: DD factorizations and solvers (SciPy's names and semantics), on both devices.
Algorithms and bounds: docs/linalg.md."""
from .errors import LinAlgError
from .factor import (cho_factor, cho_solve, cholesky, lu, lu_factor, lu_solve,
                     solve_triangular)
from .norms import norm
from .qr import lstsq, qr
from .solve import SlogdetResult, cond, det, inv, slogdet, solve

__all__ = ["LinAlgError", "SlogdetResult", "cho_factor", "cho_solve", "cholesky", "cond", "det",
           "inv", "lstsq", "lu", "lu_factor", "lu_solve", "norm", "qr", "slogdet", "solve",
           "solve_triangular"]
