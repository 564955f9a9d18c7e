"""ddblas.linalg's tensor equations with numpy.linalg's names and semantics: tensorsolve and
tensorinv, reshapes around solve and inv (their algorithms, bits and bounds: docs/linalg.md,
"Solvers")."""
from __future__ import annotations

import math
import operator

from ..core import ops
from ..core.array import DDArray
from .errors import LinAlgError
from .solve import inv, solve


def tensorsolve(a, b, axes=None) -> DDArray:
    """x with tensordot(a, x, axes=x.ndim) = b, as numpy.linalg.tensorsolve.

    Parameters
    ----------
    a : DDArray or array_like
        Of shape b.shape + Q, with prod(Q) = prod(b.shape) (a is "square").
    b : DDArray or array_like
        Any shape.
    axes : tuple of ints, optional
        Axes of a moved to the end (in this order) before the solve, as NumPy's.

    Returns
    -------
    DDArray, shape Q
        solve(a as a (prod(Q), prod(Q)) matrix, b.ravel()) reshaped: solve's bits, backward
        error and errors (a singular matrix: LinAlgError).

    Raises
    ------
    LinAlgError
        prod(a.shape[b.ndim:]) != prod(a.shape[:b.ndim]) (NumPy's error, naming a and b).
    ValueError
        axes is not a selection of a's axes.
    """
    a, b = ops.on_one_device(a, b, names=("a", "b"))
    if axes is not None:
        order = list(range(a.ndim))
        for axis in axes:
            try:
                order.remove(axis)
            except ValueError:
                raise ValueError(f"axes must name distinct axes of a (shape {a.shape}), got "
                                 f"{axes!r}") from None
            order.append(axis)
        a = a.transpose(tuple(order))
    # NumPy's Q: the last a.ndim - b.ndim axes of a (all of them where that is 0)
    unknowns = a.shape[-(a.ndim - b.ndim):]
    size = math.prod(unknowns)
    if a.size != size ** 2:
        raise LinAlgError(f"a {a.shape} and b {b.shape} do not make a square system: "
                          f"prod(a.shape[b.ndim:]) must equal prod(a.shape[:b.ndim]) = b.size")
    return solve(a.reshape(size, size), b.reshape(-1)).reshape(unknowns)


def tensorinv(a, ind=2) -> DDArray:
    """The inverse of a with respect to tensordot(., ., ind), as numpy.linalg.tensorinv.

    Parameters
    ----------
    a : DDArray or array_like
        prod(a.shape[:ind]) = prod(a.shape[ind:]) (a is "square").
    ind : int, optional
        The number of leading indices in the inverse sum (a positive integer; default 2).

    Returns
    -------
    DDArray, shape a.shape[ind:] + a.shape[:ind]
        inv(a as a (prod(a.shape[:ind]), prod(a.shape[ind:])) matrix) reshaped: inv's bits,
        error and exceptions (LinAlgError for a singular matrix, or for one that is not square).

    Raises
    ------
    ValueError
        ind is not a positive integer (NumPy's error, naming it).
    """
    (a,) = ops.on_one_device(a, names=("a",))
    try:
        ind = operator.index(ind)
    except TypeError:
        raise TypeError(f"ind must be a positive integer, got {ind!r}") from None
    if ind <= 0:
        raise ValueError(f"ind must be a positive integer, got {ind}")
    inverse_shape = a.shape[ind:] + a.shape[:ind]
    rows = math.prod(a.shape[ind:])
    columns = a.size // rows if rows else 0
    return inv(a.reshape(rows, columns)).reshape(inverse_shape)
