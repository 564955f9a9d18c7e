"""The error of ddblas.linalg."""
from __future__ import annotations

import numpy as np


class LinAlgError(np.linalg.LinAlgError):
    """A singular or not positive definite matrix (the message names the pivot or the minor)."""
