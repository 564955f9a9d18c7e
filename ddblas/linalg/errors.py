"""The exception of ddblas.linalg, its messages for stacks, and the checks of its arguments:
shapes, finite input, tolerances."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..engines import backend as _backend


class LinAlgError(np.linalg.LinAlgError):
    """A factorization or solve failed on the matrix's values: singular (a zero pivot) or not
    positive definite; or, as NumPy's, a matrix that det, inv, slogdet and cond need square is
    not (index None). A subclass of numpy.linalg.LinAlgError, hence of ValueError. `index` is
    the failing index: the 0-based row/column of the zero pivot, or the order of the leading
    minor that is not positive definite; `batch_index` the matrix's index in a's own stack (an
    int for one stack dimension, a tuple for several; None for a single matrix)."""

    def __init__(self, message: str, index: int | None = None,
                 batch_index: int | tuple | None = None):
        super().__init__(message)
        self.index = index
        self.batch_index = batch_index


def require_square_stack(a, name: str) -> None:
    """LinAlgError (NumPy's error for these shapes; a ValueError too, SciPy's) naming `name`
    unless a is (..., n, n)."""
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise LinAlgError(f"{name} must be a square matrix or a stack of square matrices "
                          f"(..., n, n), got shape {a.shape}")


def require_matrices(a, name: str, exactly_2d: bool = False) -> None:
    """NumPy's LinAlgError naming `name` unless a is a matrix (a stack of them unless
    exactly_2d)."""
    if a.ndim < 2 or (exactly_2d and a.ndim != 2):
        what = "a 2-D matrix" if exactly_2d else "a matrix or a stack of matrices (..., M, N)"
        raise LinAlgError(f"{name} must be {what}, got shape {a.shape}")


def require_real_or_none(value, name: str, error: type = ValueError) -> None:
    """`error` naming `name` unless value is None or a real number other than NaN (a bool is
    not): ValueError where ddblas.linalg follows SciPy (lstsq's cond), TypeError where NumPy
    raises one (matrix_rank's and pinv's tolerances)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                              or math.isnan(value)):
        raise error(f"{name} must be None or a real number, got {value!r}")


def zero_pivot_error(index: int) -> LinAlgError:
    """The LinAlgError of an LU whose pivot U[index, index] is exactly zero."""
    return LinAlgError(f"U[{index}, {index}] is exactly zero: the matrix is singular", index)


def stack_index(flat: int, stack: tuple, own: tuple):
    """The index in a's own stack (its leading shape `own`) of the matrix at position `flat` of
    the row-major broadcast stack `stack`: None for a single matrix (own = ()), an int for one
    stack dimension, a tuple for several."""
    if not own:
        return None
    position = np.unravel_index(flat, stack)[len(stack) - len(own):]
    index = tuple(0 if size == 1 else int(i) for i, size in zip(position, own))
    return index[0] if len(index) == 1 else index


def _of_stack(index) -> str:
    """" (matrix a[i, j] of the stack)" for a's index in its stack; "" for None."""
    if index is None:
        return ""
    text = ", ".join(map(str, index)) if isinstance(index, tuple) else index
    return f" (matrix a[{text}] of the stack)"


def in_stack(error: LinAlgError, index) -> LinAlgError:
    """error as raised for the matrix a[index] of a stack (error itself for index None)."""
    if index is None:
        return error
    return LinAlgError(f"{error}{_of_stack(index)}", error.index, index)


def require_finite_factors(finite, a, stack: tuple = (1,), own: tuple = ()) -> None:
    """OverflowError naming the first matrix whose LU factors left float64's range (their growth
    took an entry past DBL_MAX, where no DD factor can hold it): finite is a bool array (any
    device) over the row-major stack `stack` of a's matrices (a's own stack shape `own`, () for
    one matrix: see stack_index), or one bool for one matrix. Nothing when a itself is not
    finite (a NaN low part included): such factors are the input's, not an overflow."""
    finite = _backend.move(finite, "cpu").reshape(-1)
    xp = a.xp
    if finite.all() or not bool(xp.isfinite(a.hi).all() & xp.isfinite(a.lo).all()):
        return
    where = _of_stack(stack_index(int(np.flatnonzero(~finite)[0]), stack, own))
    raise OverflowError(f"the LU factors of a overflow float64's range{where}: factor a scaled "
                        f"by a power of two (solve, det and slogdet scale entries >= 2^512 "
                        f"themselves)")


def require_finite(*named, switch: bool = True) -> None:
    """ValueError naming the first of the (DDArray, name) pairs that holds an inf or a NaN in
    either part (a normalised DD value is finite exactly when its hi part is; an unnormalised
    pair with a non-finite lo is not finite either, as ddblas.isfinite says); every pair's check
    comes back in one device round trip. switch: the caller has a check_finite parameter, which
    the message names (not_finite_error)."""
    named = [(x, name) for x, name in named if x.size]
    if not named:
        return
    xp = named[0][0].xp
    finite = _backend.move(xp.stack([xp.isfinite(x.hi).all() & xp.isfinite(x.lo).all()
                                     for x, _ in named]), "cpu")
    for (_, name), ok in zip(named, finite):
        if not ok:
            raise not_finite_error(name, switch)


def not_finite_error(name: str, switch: bool = True) -> ValueError:
    """require_finite's error for the argument `name`; switch: name the caller's check_finite."""
    return ValueError(f"{name} must not contain infs or NaNs" +
                      (" (check_finite=True)" if switch else ""))
