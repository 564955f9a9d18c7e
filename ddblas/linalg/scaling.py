"""Power-of-two scaling of large operands (LAPACK dlascl's idea with powers of two, so exact):
factorizations and solves of matrices (or right-hand sides) whose entries reach 2^scale_exponent()
work on copies scaled below it, leaving room for the growth of LU factors, the products |A| |x|
and Householder updates (docs/linalg.md, "Scaling"). A part that the scaling takes into the
subnormals loses its bits below 2^-1074: at least 2^-1534 times the largest entry."""
from __future__ import annotations

import numpy as np

from ..core import ops
from ..core.array import DDArray
from ..engines import cpu as _cpu


def scale_exponent() -> int:
    """geometry.h's LINALG_SCALE_EXPONENT (512): max |x| >= 2^512 is scaled into [2^511, 2^512),
    leaving 2^512 of headroom (the batched solve kernel flags such entries itself)."""
    return _cpu.geometry()["linalg_scale_exponent"]


def downscale_exponents(x: DDArray, axes: tuple):
    """k >= 0 (int64, over `axes`, kept as size-1 axes): 0 where max |x| < 2^scale_exponent(),
    else the k with max |x| 2^-k in [2^(scale_exponent() - 1), 2^scale_exponent())."""
    xp = x.xp
    if x.size == 0:
        return xp.zeros([1 if i in axes else s for i, s in enumerate(x.shape)], dtype=np.int64)
    largest = xp.max(xp.abs(x.hi), axis=axes, keepdims=True)
    exponent = xp.frexp(largest)[1].astype(np.int64)   # largest in [2^(e-1), 2^e)
    return xp.maximum(exponent - scale_exponent(), 0)


def scale(x: DDArray, k) -> DDArray:
    """x 2^k (k an int array broadcasting with x, |k| <= 1022): exact unless a part of x 2^k is
    subnormal (it then loses its bits below 2^-1074) or overflows."""
    return ops.multiply(x, x.xp.ldexp(1.0, k.astype(np.int32)))
