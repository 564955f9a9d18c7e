"""ddblas.linalg's products with numpy.linalg's names and semantics (NumPy 2, the array API):
matrix_power, multi_dot, vecdot, cross and trace, and NumPy's tensordot, inner and vdot
(ddblas.tensordot, ...). Every DD operation is an existing kernel's: matmul (rgemm and
rgemm_batched), inv, the elementwise multiply and subtract, dot's and sum's fixed-order
reductions; this module only orders the products and lays out the operands. Bounds:
docs/linalg.md, "NumPy's entry points".
"""
from __future__ import annotations

import math
import operator

from ..blas.gemm import matmul
from ..core import ops
from ..core.array import DDArray
from ..core.building import stack
from ..core.options import options
from ..core.building import trace as trace_of_axes
from .errors import LinAlgError, require_square_stack
from .solve import inv


def matrix_power(a, n, *, fma=None, add=None) -> DDArray:
    """A square matrix (or each matrix of a stack) to an integer power, as
    numpy.linalg.matrix_power.

    Parameters
    ----------
    a : DDArray or array_like, shape (..., M, M)
    n : int
        The exponent (any integer: a Python or NumPy integer, anything with __index__).
        n = 0 gives identities of a's shape (whatever a holds), n < 0 the power -n of inv(a).
    fma, add : optional
        The arithmetic variant of the products and of inv (ddblas.options).

    Returns
    -------
    DDArray, shape (..., M, M)
        NumPy's products in NumPy's order (n = 2: a a; n = 3: (a a) a; larger n: binary
        powering from the least significant bit, z = a, a^2, a^4, ... and the result the
        product of those its bits select, left to right), each by matmul (rgemm, or
        rgemm_batched for stacks). n = 1 returns a copy of a (NumPy returns a itself).

    Notes
    -----
    Each product of |n| - 1 in the expression tree errs by at most c_gemm(M) |X||Y|
    componentwise (rgemm's bound), so, c = c_gemm(M) (``accuracy.bound_constant("gemm",
    variant, M)``), |P - A^n| <= ((1 + c)^(n-1) - 1) |A|^n componentwise for n >= 1 (to first
    order (n - 1) c_gemm(M) |A|^n; the same for any order of the products). n < 0: that bound
    with A := inv(A)'s computed value (inv's own error comes first, docs/linalg.md "Solvers").

    Raises
    ------
    LinAlgError
        a is not a square matrix or a stack of them (naming a), or n < 0 and a is singular.
    TypeError
        n is not an integer (NumPy's error).
    """
    a = ops.named_operand(a, "a")
    require_square_stack(a, "a")
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(f"exponent must be an integer: n = {n!r}") from None
    if n == 0:
        xp = a.xp
        identity = xp.broadcast_to(xp.eye(a.shape[-1]), a.shape).copy()
        return DDArray(identity, xp.zeros(a.shape), normalize=False)
    if n < 0:
        with options(fma=fma, add=add):
            a = inv(a)
        n = -n

    def product(x, y):
        return matmul(x, y, fma=fma, add=add)

    if n == 1:
        return a.copy()
    if n == 2:
        return product(a, a)
    if n == 3:
        return product(product(a, a), a)
    power = result = None
    while n > 0:
        power = a if power is None else product(power, power)
        n, bit = divmod(n, 2)
        if bit:
            result = power if result is None else product(result, power)
    return result


def chain_order(shapes: list) -> dict:
    """NumPy's optimal order of a product of matrices of these (rows, columns) shapes
    (numpy.linalg.multi_dot: the dynamic program of Cormen et al. on the scalar
    multiplications, the first of equally cheap splits): {(i, j): k}, the product of matrices
    i..j split after matrix k."""
    count = len(shapes)
    dims = [rows for rows, _ in shapes] + [shapes[-1][1]]
    cost = {(i, i): 0 for i in range(count)}
    split = {}
    for length in range(1, count):
        for i in range(count - length):
            j = i + length
            cost[i, j] = None
            for k in range(i, j):
                q = cost[i, k] + cost[k + 1, j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i, j] is None or q < cost[i, j]:
                    cost[i, j], split[i, j] = q, k
    return split


def multi_dot(arrays, *, out=None, fma=None, add=None) -> DDArray:
    """The product of two or more arrays in the cheapest order, as numpy.linalg.multi_dot.

    Parameters
    ----------
    arrays : sequence of DDArrays or array_likes
        Two arrays: dot(arrays[0], arrays[1]) (ddblas.dot, N-d as NumPy's). Three or more: 2-D
        matrices, but the first may be 1-D (a row vector) and the last 1-D (a column vector).
    out : DDArray, optional
        As NumPy's: written with the product of the 2-D operands (the 1-D ends taken as (1, N)
        and (N, 1)), so of exactly that shape (a ValueError naming out= otherwise), and the
        result is then a view of it.
    fma, add : optional
        The arithmetic variant of the products (ddblas.options).

    Returns
    -------
    DDArray
        2-D, or 1-D where one end is 1-D, or 0-d where both are. The order is NumPy's (the
        fewest scalar multiplications, ties to the earliest split: for three arrays (A B) C
        only where it is strictly cheaper than A (B C)); each product is matmul's (rgemm).

    Notes
    -----
    Each product X Y errs by at most c_gemm(k) |X||Y| componentwise (rgemm's bound, k its inner
    dimension), so the result P of the chain A_1 ... A_p satisfies
    |P - A_1 ... A_p| <= (prod over the p - 1 products of (1 + c_gemm(k)) - 1) |A_1| ... |A_p|.

    Raises
    ------
    ValueError
        Fewer than two arrays; shapes that do not align (naming them).
    LinAlgError
        An array of three or more that is not 2-D (1-D at the ends), naming it (NumPy's error).
    """
    arrays = list(arrays)
    count = len(arrays)
    if count < 2:
        raise ValueError(f"multi_dot needs at least two arrays, got {count}")
    names = tuple(f"arrays[{i}]" for i in range(count))
    arrays = ops.on_one_device(*arrays, names=names)
    routine = "multi_dot()"
    out = ops.output_argument(out, routine, dd_result=True)
    if count == 2:
        return ops.store_exact_output(ops.dot(*arrays, fma=fma, add=add), out, routine)
    first_ndim, last_ndim = arrays[0].ndim, arrays[-1].ndim
    if first_ndim == 1:
        arrays[0] = arrays[0].reshape(1, -1)
    if last_ndim == 1:
        arrays[-1] = arrays[-1].reshape(-1, 1)
    for name, x in zip(names, arrays):
        if x.ndim != 2:
            raise LinAlgError(f"{name} must be 2-D (the first and the last may be 1-D), got "
                              f"shape {x.shape}")
    for i in range(count - 1):
        if arrays[i].shape[1] != arrays[i + 1].shape[0]:
            raise ValueError(f"multi_dot: shapes {arrays[i].shape} ({names[i]}) and "
                             f"{arrays[i + 1].shape} ({names[i + 1]}) do not align")
    split = chain_order([x.shape for x in arrays])

    def chain(i, j):
        if i == j:
            return arrays[i]
        return matmul(chain(i, split[i, j]), chain(split[i, j] + 1, j), fma=fma, add=add)

    result = ops.store_exact_output(chain(0, count - 1), out, routine)
    if first_ndim == 1 and last_ndim == 1:
        return result[0, 0]
    if first_ndim == 1 or last_ndim == 1:
        return result.ravel()
    return result


def _vector_axis_last(x: DDArray, axis, name: str) -> DDArray:
    """x with its axis `axis` moved last (a view); NumPy's AxisError naming the axis."""
    if x.ndim == 0:
        raise ValueError(f"{name} must have at least one dimension (its vectors lie along "
                         f"axis), got a 0-d array")
    (axis,) = ops.normalize_axes(axis, x.ndim)
    return x.transpose(tuple(d for d in range(x.ndim) if d != axis) + (axis,))


def vecdot(x1, x2, /, *, axis=-1, fma=None, add=None) -> DDArray:
    """The dot products of the vectors of x1 and x2 along `axis`, as numpy.linalg.vecdot (real
    data: no conjugation).

    Parameters
    ----------
    x1, x2 : DDArray or array_like
        Of equal length along `axis` (each operand's own axis), the other dimensions
        broadcasting.
    axis : int, optional
        The axis of the vectors (default -1).
    fma, add : optional
        The arithmetic variant (ddblas.options).

    Returns
    -------
    DDArray
        The broadcast shape of the other dimensions. Each entry is ddblas.multiply's products
        summed by sum() in its fixed order, so a pair of 1-D vectors gives ddblas.dot's bits;
        error <= (c_mul + (n - 1) c_add)(1 + 2^-40) sum |x1_i x2_i|
        (``accuracy.bound("dot", variant, k=n)``).

    Raises
    ------
    ValueError
        The lengths along axis differ, or an operand is 0-d (NumPy's errors); an axis out of
        bounds is NumPy's AxisError.
    """
    x1, x2 = ops.operands(x1, x2)
    v1 = _vector_axis_last(x1, axis, "x1")
    v2 = _vector_axis_last(x2, axis, "x2")
    if v1.shape[-1] != v2.shape[-1]:
        raise ValueError(f"vecdot: x1 {x1.shape} and x2 {x2.shape} differ in length along "
                         f"axis {axis} ({v1.shape[-1]} and {v2.shape[-1]})")
    return ops.sum(ops.multiply(v1, v2, fma=fma, add=add), axis=-1, fma=fma, add=add)


def matvec(x1, x2, /, *, fma=None, add=None) -> DDArray:
    """The products of the matrices of x1 and the vectors of x2, as numpy.matvec:
    matmul(x1, x2[..., None])[..., 0], so rgemm's bits and bound, c_gemm(n) |A||x|
    componentwise (n = x1.shape[-1]). NumPy's ValueError for x1 of fewer than 2 dimensions or
    x2 of none; matmul's for lengths that differ or stacks that do not broadcast."""
    x1, x2 = ops.operands(x1, x2, names=("x1", "x2"))
    if x1.ndim < 2 or x2.ndim < 1:
        raise ValueError(f"matvec: x1 needs at least 2 dimensions and x2 at least 1, got "
                         f"{x1.shape} and {x2.shape}")
    return matmul(x1, x2[..., None], fma=fma, add=add)[..., 0]


def vecmat(x1, x2, /, *, fma=None, add=None) -> DDArray:
    """The products of the vectors of x1 and the matrices of x2, as numpy.vecmat (real data:
    nothing conjugated): matmul(x1[..., None, :], x2)[..., 0, :], so rgemm's bits and bound,
    c_gemm(n) |x||A| componentwise (n = x1.shape[-1]). NumPy's ValueError for x1 of no
    dimension or x2 of fewer than 2; matmul's for lengths that differ."""
    x1, x2 = ops.operands(x1, x2, names=("x1", "x2"))
    if x1.ndim < 1 or x2.ndim < 2:
        raise ValueError(f"vecmat: x1 needs at least 1 dimension and x2 at least 2, got "
                         f"{x1.shape} and {x2.shape}")
    return matmul(x1[..., None, :], x2, fma=fma, add=add)[..., 0, :]


def cross(x1, x2, /, *, axis=-1, fma=None, add=None) -> DDArray:
    """The cross products of the 3-vectors of x1 and x2 along `axis`, as numpy.linalg.cross.

    Parameters
    ----------
    x1, x2 : DDArray or array_like
        Of length 3 along `axis` (each operand's own axis), the other dimensions broadcasting.
    axis : int, optional
        The axis of the vectors in x1, x2 and the result (default -1).
    fma, add : optional
        The arithmetic variant (ddblas.options).

    Returns
    -------
    DDArray
        The broadcast shape of the other dimensions with the vectors along `axis`. Component i
        is x1_j x2_k - x1_k x2_j ((i, j, k) cyclic) as NumPy computes it: two DD products and a
        DD subtraction, error <= (c_mul + c_add (1 + c_mul)) (|x1_j x2_k| + |x1_k x2_j|), c_add
        the variant's addition constant relative to |a| + |b| (so cancellation is covered).

    Raises
    ------
    ValueError
        A length along axis is not 3 (NumPy's error), or an operand is 0-d; an axis out of
        bounds is NumPy's AxisError.
    """
    x1, x2 = ops.operands(x1, x2)
    v1 = _vector_axis_last(x1, axis, "x1")
    v2 = _vector_axis_last(x2, axis, "x2")
    if v1.shape[-1] != 3 or v2.shape[-1] != 3:
        raise ValueError(f"cross: x1 and x2 must be (arrays of) 3-dimensional vectors along "
                         f"axis {axis}, but they are {v1.shape[-1]} and {v2.shape[-1]} "
                         f"dimensional")

    def component(j, k):
        return ops.subtract(ops.multiply(v1[..., j], v2[..., k], fma=fma, add=add),
                            ops.multiply(v1[..., k], v2[..., j], fma=fma, add=add),
                            fma=fma, add=add)

    return stack([component(1, 2), component(2, 0), component(0, 1)], axis=axis)


def _tensordot_axes(axes) -> tuple:
    """numpy.tensordot's axes as two lists of ints: an int n, the last n axes of a and the first
    n of b; or a pair, each an int or a sequence of ints (NumPy's reading and its errors; a
    negative n, which NumPy takes as no axes, is a ValueError)."""
    try:
        iter(axes)
    except TypeError:
        try:
            n = operator.index(axes)
        except TypeError:
            raise TypeError(f"axes must be an int or a pair of sequences of ints, got "
                            f"{axes!r}") from None
        if n < 0:
            raise ValueError(f"axes must be a non-negative int (the number of axes summed "
                             f"over), got {n}")
        return list(range(-n, 0)), list(range(n))
    pair = []
    for side in axes:
        try:
            side = list(side)
        except TypeError:   # one axis
            side = [side]
        try:
            pair.append([operator.index(ax) for ax in side])
        except TypeError:
            raise TypeError(f"axes: an axis must be an int, got {side!r}") from None
    if len(pair) != 2:
        raise ValueError(f"axes must be an int or a pair of sequences (the axes of a and of "
                         f"b), got {len(pair)} entries")
    return tuple(pair)


def named_axis(axis, ndim: int, name: str) -> int:
    """axis as a non-negative int; NumPy's AxisError with `name` (the argument) otherwise."""
    try:
        (axis,) = ops.normalize_axes(axis, ndim)
    except IndexError as error:   # NumPy's AxisError
        raise type(error)(axis, ndim, name) from None
    return axis


def tensordot(a, b, axes=2, *, fma=None, add=None) -> DDArray:
    """The sum of the products of a's and b's entries over the given axes, as numpy.tensordot.

    Parameters
    ----------
    a, b : DDArray or array_like
        The operands (one device).
    axes : int or (sequence of ints, sequence of ints), optional
        An int n >= 0: a's last n axes against b's first n, in order (default 2). A pair: a's
        axes axes[0] against b's axes[1], in order (each an int or a sequence of ints;
        negative axes count from the end).
    fma, add : optional
        The arithmetic variant (ddblas.options).

    Returns
    -------
    DDArray
        a's other axes, then b's, as NumPy's. Computed as NumPy does: a's summed axes moved last
        and b's first, reshaped to (M, K) and (K, N) matrices (K the product of the summed
        lengths), and ONE product of these by ddblas.matmul (rgemm, algorithm="auto"), so
        tensordot of 2-D arrays with axes=1 is a @ b bit for bit. Error: rgemm's bound,
        |C - AB| <= c_gemm(K) |A||B| componentwise (``accuracy.bound_constant("gemm", variant,
        K)``).

    Raises
    ------
    ValueError
        "shape-mismatch for sum" where the summed lengths differ or the two lists of axes do
        not have the same length (NumPy's error); duplicate axes; a negative int axes (NumPy
        sums over no axes).
    TypeError
        axes of other types.
    numpy.exceptions.AxisError
        An axis out of bounds (an IndexError, as NumPy's).
    """
    axes_a, axes_b = _tensordot_axes(axes)
    a, b = ops.operands(a, b, names=("a", "b"))
    if len(axes_a) != len(axes_b):
        raise ValueError(f"shape-mismatch for sum: axes {axes_a} of a and {axes_b} of b are "
                         f"not as many")
    for k, (axis_a, axis_b) in enumerate(zip(axes_a, axes_b)):
        axes_a[k] = named_axis(axis_a, a.ndim, "tensordot: axes of a")
        axes_b[k] = named_axis(axis_b, b.ndim, "tensordot: axes of b")
        if a.shape[axes_a[k]] != b.shape[axes_b[k]]:
            raise ValueError(f"shape-mismatch for sum: a {a.shape} has length "
                             f"{a.shape[axes_a[k]]} along axis {axis_a}, b {b.shape} length "
                             f"{b.shape[axes_b[k]]} along axis {axis_b}")
    if len(set(axes_a)) != len(axes_a) or len(set(axes_b)) != len(axes_b):
        raise ValueError("duplicate axes are not allowed in tensordot")
    kept_a = [d for d in range(a.ndim) if d not in axes_a]
    kept_b = [d for d in range(b.ndim) if d not in axes_b]
    length = math.prod(a.shape[d] for d in axes_a)
    shape_a = [a.shape[d] for d in kept_a]
    shape_b = [b.shape[d] for d in kept_b]
    product = matmul(a.transpose(kept_a + axes_a).reshape(math.prod(shape_a), length),
                     b.transpose(axes_b + kept_b).reshape(length, math.prod(shape_b)),
                     fma=fma, add=add)
    return product.reshape(tuple(shape_a + shape_b))


def inner(a, b, *, fma=None, add=None) -> DDArray:
    """The inner product of a and b over their last axes, as numpy.inner (real data: no
    conjugation).

    Parameters
    ----------
    a, b : DDArray or array_like
        The operands (one device); a 0-d one multiplies the other.
    fma, add : optional
        The arithmetic variant (ddblas.options).

    Returns
    -------
    DDArray, shape a.shape[:-1] + b.shape[:-1]
        A 0-d operand: ddblas.multiply (c_mul relative). Two 1-D arrays: ddblas.dot, the fixed
        order dot kernel (its bits and bound, (c_mul + (n - 1) c_add)(1 + 2^-40) sum |a_i b_i|,
        ``accuracy.bound("dot", variant, k=n)``). Otherwise tensordot(a, b, (-1, -1)): one
        matmul, rgemm's bound c_gemm(n) |A||B| (n the length of the last axes); inner of 2-D
        arrays is a @ b.T bit for bit.

    Raises
    ------
    ValueError
        The last axes differ in length (NumPy's "shapes ... not aligned").
    """
    a, b = ops.operands(a, b, names=("a", "b"))
    if a.ndim == 0 or b.ndim == 0:
        return ops.multiply(a, b, fma=fma, add=add)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"inner: shapes {a.shape} (a) and {b.shape} (b) not aligned: "
                         f"{a.shape[-1]} (dim {a.ndim - 1}) != {b.shape[-1]} (dim {b.ndim - 1})")
    if a.ndim == b.ndim == 1:
        return ops.dot(a, b, fma=fma, add=add)
    return tensordot(a, b, ([-1], [-1]), fma=fma, add=add)


def vdot(a, b, *, fma=None, add=None) -> DDArray:
    """The dot product of a and b flattened, as numpy.vdot (real data: no conjugation).

    Parameters
    ----------
    a, b : DDArray or array_like
        Of equal size (any shapes; one device).
    fma, add : optional
        The arithmetic variant (ddblas.options).

    Returns
    -------
    DDArray, 0-d
        ddblas.dot(a.ravel(), b.ravel()): its bits and bound, (c_mul + (n - 1) c_add)(1 +
        2^-40) sum |a_i b_i| (``accuracy.bound("dot", variant, k=n)``).

    Raises
    ------
    ValueError
        The sizes differ (NumPy's error type).
    """
    a, b = ops.operands(a, b, names=("a", "b"))
    if a.size != b.size:
        raise ValueError(f"vdot: a {a.shape} and b {b.shape} differ in size ({a.size} and "
                         f"{b.size})")
    return ops.dot(a.ravel(), b.ravel(), fma=fma, add=add)


def trace(x, /, *, offset=0, fma=None, add=None) -> DDArray:
    """The sums along a diagonal of the matrices in x's last two axes, as numpy.linalg.trace:
    ddblas.trace(x, offset, -2, -1) (its bound: sum()'s, n the diagonal's length).

    Parameters
    ----------
    x : DDArray or array_like, shape (..., M, N)
    offset : int, optional
        The diagonal (0 the main one, > 0 above, < 0 below).
    fma, add : optional
        The arithmetic variant (ddblas.options).

    Returns
    -------
    DDArray, shape (...)
    """
    return trace_of_axes(x, offset, -2, -1, fma=fma, add=add)
