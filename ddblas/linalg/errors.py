"""The exception of ddblas.linalg."""
from __future__ import annotations

import numpy as np


class LinAlgError(np.linalg.LinAlgError):
    """A factorization or solve failed on the matrix's values: singular (a zero pivot) or not
    positive definite. `index` is the failing index: the 0-based row/column of the zero pivot,
    or the order of the leading minor that is not positive definite; `batch_index` the matrix of
    a stack (None for a single matrix)."""

    def __init__(self, message: str, index: int, batch_index: int | None = None):
        super().__init__(message)
        self.index = index
        self.batch_index = batch_index
