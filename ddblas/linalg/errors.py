"""The exception of ddblas.linalg and its check of finite input."""
from __future__ import annotations

import numpy as np

from ..engines import backend as _backend


class LinAlgError(np.linalg.LinAlgError):
    """A factorization or solve failed on the matrix's values: singular (a zero pivot) or not
    positive definite. `index` is the failing index: the 0-based row/column of the zero pivot,
    or the order of the leading minor that is not positive definite; `batch_index` the matrix of
    a stack (None for a single matrix)."""

    def __init__(self, message: str, index: int, batch_index: int | None = None):
        super().__init__(message)
        self.index = index
        self.batch_index = batch_index


def require_finite(*named) -> None:
    """ValueError naming the first of the (DDArray, name) pairs that holds an inf or a NaN (in a
    hi part: a DD value is finite exactly when its hi part is); every pair's check comes back in
    one device round trip."""
    named = [(x, name) for x, name in named if x.size]
    if not named:
        return
    xp = named[0][0].xp
    finite = _backend.move(xp.stack([xp.isfinite(x.hi).all() for x, _ in named]), "cpu")
    for (_, name), ok in zip(named, finite):
        if not ok:
            raise ValueError(f"{name} must not contain infs or NaNs (check_finite=True)")
