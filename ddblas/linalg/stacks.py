"""Stacks of matrices in ddblas.linalg (SciPy 1.17's batches): the broadcast of the operands'
leading dimensions, one matrix of a broadcast stack, the results put back together, and the
systems of a stack of right-hand sides side by side for one matrix that solves them all."""
from __future__ import annotations

import math

import numpy as np

from ..core.array import DDArray


def broadcast_stacks(*named) -> tuple:
    """The broadcast of the (name, stack shape) pairs; ValueError naming them where they do not
    broadcast."""
    try:
        return tuple(np.broadcast_shapes(*(shape for _, shape in named)))
    except ValueError:
        listed = ", ".join(f"{name} {shape}" for name, shape in named)
        raise ValueError(f"the stack (leading) dimensions of {listed} do not broadcast") \
            from None


def pick(x, core: int, index: tuple):
    """x's item at the position `index` of a broadcast stack: x's leading dimensions (all but
    its last `core`) right-aligned with index, a dimension of length 1 taken at 0."""
    own = x.shape[:len(x.shape) - core]
    where = index[len(index) - len(own):] if own else ()
    return x[tuple(0 if size == 1 else int(i) for i, size in zip(where, own))]


def stacked_results(items: list, stack: tuple, core: tuple, xp) -> DDArray:
    """The DDArrays `items` (one per position of the row-major stack, each of shape core) as
    one DDArray of shape stack + core (zeros of that shape for an empty stack)."""
    shape = tuple(stack) + tuple(core)
    if not items:
        return DDArray(xp.zeros(shape), xp.zeros(shape), normalize=False)
    return DDArray(xp.stack([x.hi for x in items]).reshape(shape),
                   xp.stack([x.lo for x in items]).reshape(shape), normalize=False)


def fold_columns(b: DDArray) -> DDArray:
    """b (..., N, K) as one (N, prod(...) K) matrix: its systems side by side, for one matrix
    that solves them all."""
    n, k = b.shape[-2:]
    batch = math.prod(b.shape[:-2])
    return b.reshape(batch, n, k).transpose(1, 0, 2).reshape(n, batch * k)


def unfold_columns(x: DDArray, stack: tuple, k: int) -> DDArray:
    """fold_columns' inverse: x (M, prod(stack) K) as stack + (M, K)."""
    m = x.shape[0]
    batch = math.prod(stack)
    return x.reshape(m, batch, k).transpose(1, 0, 2).copy().reshape(tuple(stack) + (m, k))
