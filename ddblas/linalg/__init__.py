"""ddblas.linalg: DD linear algebra (numpy.linalg / scipy.linalg names and semantics) on the
GPU and the CPU: solvers (solve.py) and the batched small-system kernels (batched.py)."""
from .errors import LinAlgError
from .solve import cond, det, inv, norm, slogdet, solve

__all__ = ["LinAlgError", "cond", "det", "inv", "norm", "slogdet", "solve"]
