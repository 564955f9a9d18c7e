"""numpy.linalg's functions (and np.trace) on DDArrays (NEP 18): each gives ddblas.linalg's bits
(or those of the ddblas function it runs) with NumPy's signature and semantics, and ddblas's
new array-API functions (matrix_power, multi_dot, vector_norm, matrix_norm, tensorsolve,
tensorinv, trace, vecdot, cross) are within their documented bounds (docs/linalg.md, "NumPy's
entry points") against exact rational values, with NumPy's shapes and exceptions."""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import ddblas
from ddblas import accuracy, linalg
from ddvalues import MUL, add_abs_constant, exact_values, random_matrix, random_stack, same_bits


def exact_array(x) -> np.ndarray:
    """The exact values of a finite DDArray (any device) as an object array of Fractions."""
    return np.array(exact_values(x), dtype=object).reshape(x.shape)


# ---- trace: np.trace, ddblas.trace, np.linalg.trace, ddblas.linalg.trace ----
@pytest.mark.parametrize("shape, offset, axis1, axis2", [
    ((5, 5), 0, 0, 1), ((4, 7), 2, 0, 1), ((7, 4), -3, 0, 1), ((3, 4, 5), 1, 2, 0),
    ((2, 300, 300), 0, 1, 2), ((3, 3), 5, 0, 1), ((0, 4), 0, 0, 1)])
def test_trace_is_the_diagonal_sum_within_its_bound(device, variant, shape, offset, axis1,
                                                    axis2):
    a = random_matrix(math.prod(shape[:-1]), shape[-1], 3, device).reshape(shape)
    got = ddblas.trace(a, offset, axis1, axis2, **variant)
    diagonal = exact_array(ddblas.diagonal(a, offset, axis1, axis2))
    n = diagonal.shape[-1]
    assert got.shape == diagonal.shape[:-1] == np.trace(np.ones(shape), offset, axis1,
                                                         axis2).shape
    constant = accuracy.bound_constant("sum", ddblas.Options(**variant), n)
    for index, value in np.ndenumerate(exact_array(got)):
        terms = diagonal[index]
        assert abs(value - sum(terms)) <= constant * sum(abs(t) for t in terms), index
    with ddblas.options(**variant):
        assert same_bits(np.trace(a, offset, axis1, axis2), got)
    assert same_bits(got, ddblas.sum(ddblas.diagonal(a, offset, axis1, axis2), axis=-1,
                                     **variant))


def test_trace_of_an_empty_diagonal_is_plus_zero(device):
    got = np.trace(ddblas.full((2, 3), "-1.5", device=device), offset=4)
    assert got.shape == () and same_bits(got, ddblas.zeros((), device=device))


def test_numpy_trace_arguments(device):
    a = random_stack(3, 4, 4, 1, device)
    out = ddblas.zeros(3, device=device)
    assert np.trace(a, 0, 1, 2, ddblas.dd, out) is out
    assert same_bits(out, ddblas.trace(a, 0, 1, 2))
    assert same_bits(np.trace(a, axis1=-2, axis2=-1), ddblas.trace(a, 0, 1, 2))
    with pytest.raises(TypeError, match="dtype"):
        np.trace(a, dtype=np.float32)
    with pytest.raises(ValueError, match=r"out= has shape \(4,\)"):
        np.trace(a, 0, 1, 2, out=ddblas.zeros(4, device=device))


@pytest.mark.parametrize("shape, kwargs, error", [
    ((3,), {}, ValueError), ((3, 3), {"axis1": 1, "axis2": 1}, ValueError),
    ((3, 3), {"axis2": 2}, np.exceptions.AxisError)])
def test_trace_errors_are_numpys(device, shape, kwargs, error):
    with pytest.raises(error):
        np.trace(np.ones(shape), **kwargs)
    with pytest.raises(error):
        np.trace(ddblas.ones(shape, device=device), **kwargs)


# ---- matrix_power ----
def exact_power(a: np.ndarray, n: int) -> np.ndarray:
    """a^n (n >= 1) of an object matrix of Fractions, exactly."""
    result = a
    for _ in range(n - 1):
        result = result.dot(a)
    return result


@pytest.mark.parametrize("n", [2, 3, 5, 6, 13])
def test_matrix_power_within_the_composed_gemm_bound(device, variant, n):
    """|P - A^n| <= ((1 + c_gemm(M))^(n-1) - 1) |A|^n entry by entry, exactly."""
    a = random_matrix(5, 5, seed=n, device=device, spread=3)
    got = exact_array(linalg.matrix_power(a, n, **variant))
    exact = exact_array(a)
    c = accuracy.bound_constant("gemm", ddblas.Options(**variant), 5)
    allowed = ((1 + c) ** (n - 1) - 1) * exact_power(abs(exact), n)
    assert (abs(got - exact_power(exact, n)) <= allowed).all()


def test_matrix_power_takes_numpys_products_in_numpys_order(device):
    a = random_matrix(6, 6, seed=1, device=device, spread=2)

    def mm(x, y):
        return ddblas.matmul(x, y)

    a2 = mm(a, a)
    a4 = mm(a2, a2)
    expected = {2: a2, 3: mm(a2, a), 5: mm(a, a4), 6: mm(a2, a4), 7: mm(mm(a, a2), a4),
                -3: mm(mm(linalg.inv(a), linalg.inv(a)), linalg.inv(a))}
    for n, product in expected.items():
        got = np.linalg.matrix_power(a, n)
        assert same_bits(got, product), n
        assert same_bits(got, linalg.matrix_power(a, n)), n
    assert not same_bits(expected[5], mm(a4, a))   # the order shows in the bits


def test_matrix_power_of_stacks_is_each_matrix_power(device):
    stack = random_stack(6, 4, 4, seed=2, device=device).reshape(2, 3, 4, 4)
    for n in (0, 1, 4, 7, -2):
        got = np.linalg.matrix_power(stack, n)
        assert got.shape == (2, 3, 4, 4)
        for index in np.ndindex(2, 3):
            assert same_bits(got[index], linalg.matrix_power(stack[index], n)), (n, index)


def test_matrix_power_zero_one_and_integer_values(device):
    a = ddblas.array([[2.0, 1.0], [1.0, 1.0]], device=device)   # unimodular: A^-1 is integer
    identity = np.linalg.matrix_power(ddblas.full((3, 2, 2), "nan", device=device), 0)
    assert same_bits(identity, ddblas.array(np.broadcast_to(np.eye(2), (3, 2, 2)),
                                            device=device))
    one = np.linalg.matrix_power(a, 1)
    assert one is not a and same_bits(one, a)
    for n in (5, 9, -4, -1):   # A^-1 = [[1, -1], [-1, 2]]
        base = [[2, 1], [1, 1]] if n > 0 else [[1, -1], [-1, 2]]
        expected = exact_power(np.array(base, dtype=object), abs(n))
        assert (exact_array(np.linalg.matrix_power(a, n)) == expected).all(), n
    for shape in ((0, 0), (2, 0, 0)):
        for n in (-1, 0, 3):
            assert np.linalg.matrix_power(ddblas.zeros(shape, device=device), n).shape == \
                np.linalg.matrix_power(np.zeros(shape), n).shape


@pytest.mark.parametrize("a, n, error, match", [
    (np.ones((2, 3)), 2, np.linalg.LinAlgError, "a must be a square matrix"),
    (np.ones(3), 2, np.linalg.LinAlgError, "a must be a square matrix"),
    (np.eye(2), 1.5, TypeError, "exponent must be an integer: n = 1.5"),
    (np.eye(2), "2", TypeError, "exponent must be an integer"),
    (np.zeros((2, 2)), -1, np.linalg.LinAlgError, "singular")])
def test_matrix_power_errors_are_numpys(device, a, n, error, match):
    with pytest.raises(error):
        np.linalg.matrix_power(a, n)
    with pytest.raises(error, match=match):
        np.linalg.matrix_power(ddblas.array(a, device=device), n)


# ---- multi_dot ----
@pytest.mark.parametrize("shapes, order", [
    ([(10, 100), (100, 5), (5, 50)], "(AB)C"), ([(2, 3), (3, 40), (40, 2)], "A(BC)"),
    ([(4, 4), (4, 4), (4, 4)], "A(BC)")])   # equal costs: A(BC), as NumPy
def test_multi_dot_of_three_takes_the_cheaper_order(device, shapes, order):
    a, b, c = (random_matrix(*shape, seed=i, device=device, spread=2)
               for i, shape in enumerate(shapes))
    left, right = ddblas.matmul(ddblas.matmul(a, b), c), ddblas.matmul(a, ddblas.matmul(b, c))
    assert not same_bits(left, right)   # the order shows in the bits
    got = np.linalg.multi_dot([a, b, c])
    assert same_bits(got, left if order == "(AB)C" else right)
    assert same_bits(got, linalg.multi_dot((a, b, c)))


def test_chain_order_is_numpys():
    numpy_order = getattr(getattr(np.linalg, "_linalg", None), "_multi_dot_matrix_chain_order",
                          None)
    if numpy_order is None:
        pytest.skip("NumPy's chain order is not where NumPy 2.4 keeps it")
    rng = np.random.default_rng(5)
    for count in range(3, 9):
        for _ in range(20):
            dims = rng.integers(1, 30, count + 1)
            shapes = [(int(dims[i]), int(dims[i + 1])) for i in range(count)]
            expected = numpy_order([np.empty(s) for s in shapes])
            split = linalg.products.chain_order(shapes)
            assert all(split[i, j] == expected[i, j] for (i, j) in split), shapes


def test_multi_dot_of_four_within_the_composed_bound(device, variant):
    """Bits of NumPy's optimal order (A B) (C D) for these shapes, and |P - ABCD| <=
    (prod (1 + c_gemm(k)) - 1) |A||B||C||D| over its three products, exactly."""
    shapes = [(3, 8), (8, 2), (2, 6), (6, 4)]
    ms = [random_matrix(*s, seed=10 + i, device=device, spread=3) for i, s in enumerate(shapes)]
    got = linalg.multi_dot(ms, **variant)
    a, b, c, d = ms
    with ddblas.options(**variant):
        assert same_bits(got, ddblas.matmul(ddblas.matmul(a, b), ddblas.matmul(c, d)))
    opts = ddblas.Options(**variant)
    factor = 1
    for k in (8, 6, 2):   # A B, C D, then their product
        factor *= 1 + accuracy.bound_constant("gemm", opts, k)
    ea, eb, ec, ed = (exact_array(m) for m in ms)
    exact = ea.dot(eb).dot(ec).dot(ed)
    scale = abs(ea).dot(abs(eb)).dot(abs(ec)).dot(abs(ed))
    assert (abs(exact_array(got) - exact) <= (factor - 1) * scale).all()


def test_multi_dot_vectors_two_arrays_and_out(device):
    v = random_matrix(1, 5, seed=1, device=device)[0]
    a = random_matrix(5, 7, seed=2, device=device)
    b = random_matrix(7, 3, seed=3, device=device)
    w = random_matrix(1, 3, seed=4, device=device)[0]
    row = np.linalg.multi_dot([v, a, b])
    assert row.shape == (3,) and same_bits(row, ddblas.matmul(ddblas.matmul(v.reshape(1, 5), a),
                                                              b).reshape(3))   # (v a) b: cheaper
    column = np.linalg.multi_dot([a, b, w])
    assert column.shape == (5,) and same_bits(column, ddblas.matmul(
        a, ddblas.matmul(b, w.reshape(3, 1))).reshape(5))
    scalar = np.linalg.multi_dot([v, a, b, w])
    assert scalar.shape == () == np.linalg.multi_dot([np.ones(5), np.ones((5, 7)),
                                                       np.ones((7, 3)), np.ones(3)]).shape
    stack = random_stack(2, 3, 5, seed=5, device=device)
    assert same_bits(np.linalg.multi_dot([stack, a]), ddblas.dot(stack, a))   # two: dot, N-d
    out = ddblas.zeros((1, 3), device=device)   # NumPy's: the 2-D product's shape
    result = np.linalg.multi_dot([v, a, b], out=out)
    assert same_bits(out.reshape(3), row) and same_bits(result, row)
    out[0, 0] = 7
    assert float(result[0].hi) == 7   # a view of out, as NumPy's
    with pytest.raises(ValueError, match="out= has shape"):
        np.linalg.multi_dot([v, a, b], out=ddblas.zeros(3, device=device))
    out2 = ddblas.zeros((2, 3, 7), device=device)
    assert np.linalg.multi_dot([stack, a], out=out2) is out2
    assert same_bits(out2, ddblas.dot(stack, a))


@pytest.mark.parametrize("arrays, error, match", [
    ([np.ones((2, 2))], ValueError, "at least two arrays, got 1"),
    ([np.ones((2, 2)), np.ones((2, 2, 2)), np.ones((2, 2))], np.linalg.LinAlgError,
     r"arrays\[1\] must be 2-D"),
    ([np.ones((2, 3)), np.ones((2, 2)), np.ones((2, 2))], ValueError,
     r"shapes \(2, 3\) \(arrays\[0\]\) and \(2, 2\) \(arrays\[1\]\) do not align")])
def test_multi_dot_errors_are_numpys(device, arrays, error, match):
    with pytest.raises(error):
        np.linalg.multi_dot(arrays)
    with pytest.raises(error, match=match):
        np.linalg.multi_dot([ddblas.array(x, device=device) for x in arrays])


# ---- vecdot, cross, linalg.trace ----
@pytest.mark.parametrize("shape1, shape2, axis", [
    ((7,), (7,), -1), ((4, 300), (300,), -1), ((3, 1, 6), (2, 6), -1), ((6, 3), (6, 1), 0),
    ((0,), (0,), -1)])
def test_vecdot_within_the_dot_bound(device, variant, shape1, shape2, axis):
    x1 = random_matrix(1, math.prod(shape1), seed=1, device=device).reshape(shape1)
    x2 = random_matrix(1, math.prod(shape2), seed=2, device=device).reshape(shape2)
    got = linalg.vecdot(x1, x2, axis=axis, **variant)
    assert got.shape == np.linalg.vecdot(np.ones(shape1), np.ones(shape2), axis=axis).shape
    e1 = np.moveaxis(exact_array(x1), axis, -1)
    e2 = np.moveaxis(exact_array(x2), axis, -1)
    products = e1 * e2   # broadcast, object arrays of Fractions
    n = products.shape[-1]
    constant = accuracy.bound_constant("dot", ddblas.Options(**variant), n)
    for index, value in np.ndenumerate(exact_array(got)):
        terms = products[index]
        assert abs(value - sum(terms)) <= constant * sum(abs(t) for t in terms), index
    with ddblas.options(**variant):
        assert same_bits(np.linalg.vecdot(x1, x2, axis=axis), got)
    if len(shape1) == len(shape2) == 1:
        assert same_bits(got, ddblas.dot(x1, x2, **variant))   # the same sums


@pytest.mark.parametrize("x1, x2, kwargs", [
    (np.ones((2, 3)), np.ones(2), {}), (np.ones(()), np.ones(()), {}),
    (np.ones(3), np.ones(3), {"axis": 1})])
def test_vecdot_errors_are_numpys(device, x1, x2, kwargs):
    error = np.exceptions.AxisError if "axis" in kwargs else ValueError
    with pytest.raises(error):
        np.linalg.vecdot(x1, x2, **kwargs)
    with pytest.raises(error):
        np.linalg.vecdot(ddblas.array(x1, device=device), ddblas.array(x2, device=device),
                         **kwargs)


@pytest.mark.parametrize("shape1, shape2, axis", [
    ((3,), (3,), -1), ((5, 3), (3,), -1), ((3, 4), (3, 1), 0), ((2, 1, 3), (4, 3), -1)])
def test_cross_within_its_bound(device, variant, shape1, shape2, axis):
    x1 = random_matrix(1, math.prod(shape1), seed=3, device=device).reshape(shape1)
    x2 = random_matrix(1, math.prod(shape2), seed=4, device=device).reshape(shape2)
    got = linalg.cross(x1, x2, axis=axis, **variant)
    assert got.shape == np.linalg.cross(np.ones(shape1), np.ones(shape2), axis=axis).shape
    e1 = np.moveaxis(exact_array(x1), axis, -1)
    e2 = np.moveaxis(exact_array(x2), axis, -1)
    mul, add = MUL[variant["fma"]], add_abs_constant(variant["add"])   # add: of |a| + |b|
    constant = mul + add * (1 + mul)
    values = np.moveaxis(exact_array(got), axis, -1)
    for i, (j, k) in enumerate(((1, 2), (2, 0), (0, 1))):
        p, q = e1[..., j] * e2[..., k], e1[..., k] * e2[..., j]
        assert np.all(abs(values[..., i] - (p - q)) <= constant * (abs(p) + abs(q))), i
    with ddblas.options(**variant):
        assert same_bits(np.linalg.cross(x1, x2, axis=axis), got)


def test_cross_of_integers_is_numpys(device):
    rng = np.random.default_rng(3)
    x1, x2 = rng.integers(-9, 10, (4, 3)).astype(float), rng.integers(-9, 10, (2, 1, 3))
    got = np.linalg.cross(ddblas.array(x1, device=device), ddblas.array(x2.astype(float),
                                                                        device=device))
    assert np.array_equal(got.to_device("cpu").hi, np.linalg.cross(x1, x2))


@pytest.mark.parametrize("x1, x2, kwargs, error", [
    (np.ones(2), np.ones(3), {}, ValueError), (np.ones((3, 2)), np.ones((3, 2)), {}, ValueError),
    (np.ones(3), np.ones(3), {"axis": 1}, IndexError)])
def test_cross_errors_are_numpys(device, x1, x2, kwargs, error):
    with pytest.raises(error):
        np.linalg.cross(x1, x2, **kwargs)
    with pytest.raises(error):
        np.linalg.cross(ddblas.array(x1, device=device), ddblas.array(x2, device=device),
                        **kwargs)


def test_linalg_trace_is_the_last_axes_trace(device):
    x = random_stack(4, 5, 6, seed=7, device=device)
    for offset in (0, 2, -3):
        got = np.linalg.trace(x, offset=offset)
        assert got.shape == (4,)
        assert same_bits(got, linalg.trace(x, offset=offset))
        assert same_bits(got, ddblas.trace(x, offset, -2, -1))
    assert same_bits(np.linalg.trace(x, dtype=ddblas.dd), linalg.trace(x))
    with pytest.raises(TypeError, match="dtype"):
        np.linalg.trace(x, dtype=np.float64)


# ---- vector_norm, matrix_norm ----
@pytest.mark.parametrize("shape, axis", [
    ((3, 4, 5), None), ((3, 4, 5), 1), ((3, 4, 5), -1), ((3, 4, 5), (0, 2)), ((3, 4, 5), (2, 0)),
    ((3, 4, 5), (0, 1, 2)), ((3, 4), ()), ((), None), ((0, 3), 0), ((2, 0, 3), (0, 1))])
@pytest.mark.parametrize("ord_", [2, 1, np.inf, -np.inf, 0, 3, -1.5])
@pytest.mark.parametrize("keepdims", [False, True])
def test_vector_norm_is_numpys_reshape_around_norm(device, shape, axis, ord_, keepdims):
    """NumPy's definition: the axes moved first and flattened into one (x.ravel() for None),
    then norm along it; the same bits as that norm, NumPy's shapes."""
    x = random_matrix(1, math.prod(shape), seed=5, device=device).reshape(shape)
    if ord_ < 0 and math.prod(shape) == 0:
        if ord_ == -np.inf:   # a minimum over no entries: NumPy's ValueError too
            with pytest.raises(ValueError):
                np.linalg.vector_norm(np.ones(shape), axis=axis, ord=ord_)
            with pytest.raises(ValueError):
                np.linalg.vector_norm(x, axis=axis, ord=ord_)
            return
        with np.errstate(divide="ignore"):   # NumPy: inf, with a warning; ddblas: inf
            assert (np.linalg.vector_norm(np.ones(shape), axis=axis, ord=ord_) == np.inf).all()
        assert (np.linalg.vector_norm(x, axis=axis, ord=ord_).to_device("cpu").hi == np.inf).all()
    with np.errstate(divide="ignore"):
        expected_shape = np.linalg.vector_norm(np.ones(shape), axis=axis, ord=ord_,
                                               keepdims=keepdims).shape
    got = np.linalg.vector_norm(x, axis=axis, ord=ord_, keepdims=keepdims)
    assert got.shape == expected_shape
    assert same_bits(got, linalg.vector_norm(x, axis=axis, ord=ord_, keepdims=keepdims))
    if axis is None:
        flat = linalg.norm(x.reshape(-1), ord_)
    else:
        axes = tuple(d % len(shape) for d in np.atleast_1d(axis)) if axis != () else ()
        rest = tuple(d for d in range(len(shape)) if d not in axes)
        vectors = x.transpose(axes + rest).reshape((math.prod(shape[d] for d in axes),)
                                                   + tuple(shape[d] for d in rest))
        flat = linalg.norm(vectors, ord_, axis=0)
    assert same_bits(got.reshape(flat.shape), flat)


def test_vector_norm_two_norm_over_axes_within_its_bound(device, variant):
    """The 2-norm over axes (0, 2) of a (3, 4, 5) array: relative error <= (c_mul + c_sum(n))/2
    + c_sqrt (first order; docs/linalg.md), n = 15, against mpmath at 400 bits."""
    x = random_matrix(12, 5, seed=8, device=device, spread=30).reshape(3, 4, 5)
    with ddblas.options(**variant):
        got = exact_array(linalg.vector_norm(x, axis=(0, 2)))
    opts = ddblas.Options(**variant)
    bound = (accuracy.bound_constant("mul", opts) + accuracy.bound_constant("sum", opts, 15)) \
        / 2 + accuracy.bound_constant("sqrt", opts)
    exact = exact_array(x)
    with mpmath.workprec(400):
        for j in range(4):
            squares = sum(v * v for v in exact[:, j, :].ravel())
            norm = mpmath.sqrt(mpmath.mpf(squares.numerator) / squares.denominator)
            value = mpmath.mpf(got[j].numerator) / got[j].denominator
            assert abs(value - norm) <= mpmath.mpf(bound.numerator) / bound.denominator * norm


@pytest.mark.parametrize("ord_", ["fro", None, 1, -1, np.inf, -np.inf])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm_is_norm_over_the_last_axes(device, ord_, keepdims):
    x = random_stack(6, 4, 5, seed=9, device=device).reshape(2, 3, 4, 5)
    got = np.linalg.matrix_norm(x, ord=ord_, keepdims=keepdims)
    assert got.shape == np.linalg.matrix_norm(np.ones(x.shape), ord=ord_,
                                              keepdims=keepdims).shape
    assert same_bits(got, linalg.norm(x, ord_, axis=(-2, -1), keepdims=keepdims))
    assert same_bits(got, linalg.matrix_norm(x, ord=ord_, keepdims=keepdims))


@pytest.mark.parametrize("function, x, kwargs, error, match", [
    ("vector_norm", np.ones((2, 2)), {"ord": "fro"}, ValueError, "ord must be a real number"),
    ("vector_norm", np.ones((2, 2)), {"ord": "nuc"}, ValueError, "ord must be a real number"),
    ("vector_norm", np.ones((2, 2)), {"axis": (0, 0)}, ValueError, "repeats an axis"),
    ("vector_norm", np.ones((2, 2)), {"axis": 2}, np.exceptions.AxisError, "out of bounds"),
    ("matrix_norm", np.ones((2, 2)), {"ord": 3}, ValueError, "ord must be"),
    ("matrix_norm", np.ones((2, 2)), {"ord": "max"}, ValueError, "ord must be"),
    ("matrix_norm", np.ones(3), {}, np.exceptions.AxisError, "out of bounds")])
def test_vector_and_matrix_norm_errors(device, function, x, kwargs, error, match):
    with pytest.raises(error):
        getattr(np.linalg, function)(x, **kwargs)
    with pytest.raises(error, match=match):
        getattr(np.linalg, function)(ddblas.array(x, device=device), **kwargs)


# ---- tensorsolve, tensorinv ----
@pytest.mark.parametrize("a_shape, b_shape, axes", [
    ((2, 3, 6), (2, 3), None), ((6, 2, 3), (2, 3), (0,)), ((3, 4, 2, 6), (3, 4), None),
    ((2, 2, 2, 2), (2, 2), (1, 0)), ((4, 4), (4,), None)])
def test_tensorsolve_is_solve_of_numpys_reshape(device, a_shape, b_shape, axes):
    size = math.prod(b_shape)
    a = (random_matrix(size, size, seed=3, device=device, spread=1)
         + ddblas.eye(size, device=device) * 4).reshape(a_shape)
    b = random_matrix(1, size, seed=4, device=device).reshape(b_shape)
    got = np.linalg.tensorsolve(a, b, axes=axes)
    reference = np.linalg.tensorsolve(a.to_device("cpu").hi, b.to_device("cpu").hi, axes=axes)
    assert got.shape == reference.shape
    assert np.allclose(got.to_device("cpu").hi, reference, rtol=1e-10, atol=0)
    moved = a if axes is None else a.transpose(
        tuple(d for d in range(a.ndim) if d not in axes) + tuple(axes))
    x = linalg.solve(moved.reshape(size, size), b.reshape(-1))
    assert same_bits(got, x.reshape(got.shape))
    assert same_bits(got, linalg.tensorsolve(a, b, axes))


@pytest.mark.parametrize("shape, ind", [((4, 6, 8, 3), 2), ((24, 2, 3, 4), 1), ((3, 3), 1),
                                        ((2, 3, 6), 2)])
def test_tensorinv_is_inv_of_numpys_reshape(device, shape, ind):
    rows = math.prod(shape[ind:])
    a = (random_matrix(rows, rows, seed=6, device=device, spread=1)
         + ddblas.eye(rows, device=device) * 4).reshape(shape)
    got = np.linalg.tensorinv(a, ind)
    reference = np.linalg.tensorinv(a.to_device("cpu").hi, ind)
    assert got.shape == reference.shape == shape[ind:] + shape[:ind]
    assert np.allclose(got.to_device("cpu").hi, reference, rtol=1e-10, atol=1e-12)
    assert same_bits(got, linalg.inv(a.reshape(rows, rows)).reshape(got.shape))
    assert same_bits(got, linalg.tensorinv(a, ind=ind))


@pytest.mark.parametrize("function, args, error, match", [
    ("tensorsolve", (np.ones((2, 3, 4)), np.ones((2, 3))), np.linalg.LinAlgError,
     "do not make a square system"),
    ("tensorsolve", (np.ones((2, 2, 2, 2)), np.ones((2, 2)), (5,)), ValueError,
     "axes must name distinct axes of a"),
    ("tensorsolve", (np.zeros((2, 2, 4)), np.ones((2, 2))), np.linalg.LinAlgError, "singular"),
    ("tensorinv", (np.ones((4, 2, 2)), 0), ValueError, "ind must be a positive integer"),
    ("tensorinv", (np.ones((4, 2, 3)), 1), np.linalg.LinAlgError, "square"),
    ("tensorinv", (np.zeros((2, 2, 4)), 2), np.linalg.LinAlgError, "singular")])
def test_tensor_errors_are_numpys(device, function, args, error, match):
    with pytest.raises(error):
        getattr(np.linalg, function)(*args)
    with pytest.raises(error, match=match):
        getattr(np.linalg, function)(ddblas.array(args[0], device=device),
                                     *(ddblas.array(x, device=device) if isinstance(x, np.ndarray)
                                       else x for x in args[1:]))


# ---- numpy.linalg's solvers and factorizations on DDArrays ----
def well_conditioned(n: int, seed: int, device: str, stack: tuple = ()) -> ddblas.DDArray:
    """Random matrices plus n times the identity (diagonally dominant)."""
    count = math.prod(stack)
    a = random_matrix(count * n, n, seed=seed, device=device, spread=0).reshape(stack + (n, n))
    return a + ddblas.eye(n, device=device) * n


@pytest.mark.parametrize("a_stack, b_shape", [
    ((), (40,)), ((), (40, 3)), ((), (5,)), ((3,), (5,)), ((3,), (3, 5, 2)),
    ((2, 1), (4, 5, 1)), ((5,), (5, 5))])
def test_solve_is_ddblas_solve_with_numpys_shapes(device, a_stack, b_shape):
    """NumPy 2's rule: b is a vector only when 1-D, else (..., M, K) with stacks broadcasting."""
    n = b_shape[0] if len(b_shape) == 1 else b_shape[-2]
    a = well_conditioned(n, 1, device, a_stack)
    b = random_matrix(1, math.prod(b_shape), seed=2, device=device).reshape(b_shape)
    x = np.linalg.solve(a, b)
    assert x.shape == np.linalg.solve(np.ones(a_stack + (n, n)) + np.eye(n) * n,
                                      np.ones(b_shape)).shape
    assert same_bits(x, linalg.solve(a, b))
    if not a_stack and n == 40:   # the refinement: backward error <= max(n, 16) u^2, exactly
        assert accuracy.solve_backward_error(a, x, b) <= 40


def test_solve_refuses_numpy_1s_stacked_vectors(device):
    """a (2, 3, 3), b (2, 3): NumPy 2 reads b as one 2 x 3 matrix, which does not match."""
    with pytest.raises(ValueError):
        np.linalg.solve(np.ones((2, 3, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="b must have shape"):
        np.linalg.solve(well_conditioned(3, 1, device, (2,)), ddblas.ones((2, 3), device=device))


def test_inv_det_slogdet_are_ddblas_linalgs(device):
    a = well_conditioned(6, 3, device, (4,))
    assert same_bits(np.linalg.inv(a), linalg.inv(a))
    assert same_bits(np.linalg.det(a), linalg.det(a))
    sign, logabsdet = np.linalg.slogdet(a)
    expected = linalg.slogdet(a)
    assert same_bits(sign, expected.sign) and same_bits(logabsdet, expected.logabsdet)
    result = np.linalg.slogdet(a[0])
    assert result._fields == np.linalg.slogdet(np.eye(2))._fields == ("sign", "logabsdet")
    scalar = np.float64 if device == "cpu" else type(a.hi)   # 0-d device arrays, as CuPy's
    assert isinstance(result.logabsdet, scalar) and isinstance(result.sign, scalar)
    assert np.shape(result.logabsdet) == np.shape(result.sign) == ()
    big = well_conditioned(40, 4, device)   # n > 32: refinement, each column's backward
    inverse = np.linalg.inv(big)            # error <= max(n, 16) u^2, exactly
    assert same_bits(inverse, linalg.inv(big))
    assert accuracy.solve_backward_error(big, inverse, np.eye(40)) <= 40


def test_det_and_slogdet_of_a_triangular_matrix_within_the_product_bound(device, variant):
    """Upper triangular: the LU is a itself (no interchange, no multiplier), so det's only error
    is the diagonal product's, (1 + c_mul)^(n-1) - 1 relative; slogdet's logabsdet within
    2^-51 (1 + |logabsdet|) plus that (docs/linalg.md)."""
    n = 12
    a = ddblas.triu(random_matrix(n, n, seed=4, device=device, spread=30))
    with ddblas.options(**variant):
        got = exact_array(np.linalg.det(a))[()]
        sign, logabsdet = np.linalg.slogdet(a)
    exact = math.prod(exact_array(a)[i, i] for i in range(n))
    relative = (1 + accuracy.bound_constant("mul", ddblas.Options(**variant))) ** (n - 1) - 1
    assert abs(got - exact) <= relative * abs(exact)
    assert float(sign) == (1 if exact > 0 else -1)
    with mpmath.workprec(300):
        log_exact = mpmath.log(abs(mpmath.mpf(exact.numerator) / exact.denominator))
        allowed = 2.0 ** -51 * (1 + abs(float(logabsdet))) + 2 * float(relative)
        assert abs(mpmath.mpf(float(logabsdet)) - log_exact) <= allowed


def test_cholesky_is_ddblas_cholesky_with_numpys_upper(device):
    """NumPy's default: L from the lower triangle (ddblas.linalg's default, SciPy's, is U);
    upper=True: U from the upper one. The other triangle is never read."""
    b = random_matrix(6, 6, seed=5, device=device, spread=0)
    spd = ddblas.matmul(b, b.T) + ddblas.eye(6, device=device)
    xp = spd.xp   # the masks on spd's device
    lower_only = ddblas.where(xp.asarray(np.tril(np.ones((6, 6), dtype=bool))), spd, "nan")
    low = np.linalg.cholesky(lower_only)
    assert same_bits(low, linalg.cholesky(spd, lower=True))
    upper_only = ddblas.where(xp.asarray(np.triu(np.ones((6, 6), dtype=bool))), spd, "nan")
    assert same_bits(np.linalg.cholesky(upper_only, upper=True), linalg.cholesky(spd))
    stack = ddblas.stack([spd, spd * 4])
    assert same_bits(np.linalg.cholesky(stack), linalg.cholesky(stack, lower=True))
    assert np.linalg.cholesky(ddblas.zeros((0, 0), device=device)).shape == (0, 0)
    L, A = exact_array(low), exact_array(spd)   # L L^T = A + dA, |dA| <= c_chol(n) |L||L^T|
    c = accuracy.bound_constant("cholesky", None, 6)
    assert (abs(L.dot(L.T) - A) <= c * abs(L).dot(abs(L.T))).all()


@pytest.mark.parametrize("a, match", [
    (np.array([[1.0, 2.0], [2.0, 1.0]]), "leading minor of order 2 is not positive definite"),
    (np.ones((2, 3)), "a must be a square matrix"), (np.ones(3), "a must be a square matrix")])
def test_cholesky_errors_are_numpys(device, a, match):
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cholesky(a)
    with pytest.raises(np.linalg.LinAlgError, match=match):
        np.linalg.cholesky(ddblas.array(a, device=device))


def test_cholesky_of_a_nan_in_the_triangle_read_is_not_positive_definite(device):
    """A difference on purpose: NumPy (LAPACK) returns NaNs, ddblas's pivot test fails."""
    a = np.array([[np.nan, 0.0], [0.0, 1.0]])
    assert np.isnan(np.linalg.cholesky(a)).any()
    with pytest.raises(np.linalg.LinAlgError, match="leading minor of order 1"):
        np.linalg.cholesky(ddblas.array(a, device=device))


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 5, 3), (0, 3), (3, 0)])
def test_qr_modes_are_numpys(device, shape):
    a = random_matrix(math.prod(shape[:-1]), shape[-1], seed=6, device=device,
                      spread=0).reshape(shape)
    a64 = a.to_device("cpu").hi
    reduced = np.linalg.qr(a)
    assert isinstance(reduced, linalg.QRResult) and reduced._fields == ("Q", "R")
    expected = linalg.qr(a, mode="economic")
    assert same_bits(reduced.Q, expected[0]) and same_bits(reduced.R, expected[1])
    complete = np.linalg.qr(a, "complete")
    expected = linalg.qr(a, mode="full")
    assert same_bits(complete.Q, expected[0]) and same_bits(complete.R, expected[1])
    for mode, got in (("reduced", reduced), ("complete", complete)):
        numpy_q, numpy_r = np.linalg.qr(a64, mode)
        assert got.Q.shape == numpy_q.shape and got.R.shape == numpy_r.shape, mode
    r = np.linalg.qr(a, mode="r")
    assert r.shape == np.linalg.qr(a64, mode="r").shape
    assert same_bits(r, reduced.R)
    h, tau = np.linalg.qr(a, mode="raw")
    numpy_h, numpy_tau = np.linalg.qr(a64, mode="raw")
    assert h.shape == numpy_h.shape and tau.shape == numpy_tau.shape
    (scipy_h, scipy_tau), _ = linalg.qr(a, mode="raw")
    assert same_bits(h, scipy_h.transpose(tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2)))
    assert same_bits(tau, scipy_tau)
    # LAPACK's reflectors and signs: NumPy's raw arrays to float64 accuracy
    assert np.allclose(h.to_device("cpu").hi, numpy_h, rtol=1e-12, atol=1e-14)
    assert np.allclose(tau.to_device("cpu").hi, numpy_tau, rtol=1e-12, atol=1e-14)


def test_qr_reduced_within_the_qr_bound(device):
    """||a_j - (Q R)_j||_2 <= c_QR ||a_j||_2 per column, exactly (docs/linalg.md, measured)."""
    a = random_matrix(7, 4, seed=7, device=device, spread=10)
    q, r = np.linalg.qr(a)
    A, Q, R = exact_array(a), exact_array(q), exact_array(r)
    c = accuracy.bound_constant("qr", None, 7 * 4)
    residual = A - Q.dot(R)
    for j in range(4):
        assert sum(v * v for v in residual[:, j]) <= c * c * sum(v * v for v in A[:, j]), j


def test_qr_deprecated_modes_and_errors_are_numpys(device):
    a = random_matrix(5, 3, seed=8, device=device)
    for mode in ("full", "f"):
        with pytest.warns(DeprecationWarning, match="'full' option is deprecated"):
            got = np.linalg.qr(a, mode)
        assert same_bits(got.Q, np.linalg.qr(a).Q)
    with pytest.warns(DeprecationWarning):
        assert np.linalg.qr(np.ones((5, 3)), "economic").shape == (5, 3)
    with pytest.warns(DeprecationWarning, match="'economic' option is deprecated"):
        h = np.linalg.qr(a, "e")
    assert same_bits(h, linalg.qr(a, mode="raw")[0][0])
    for bad, error, match in (("x", ValueError, "Unrecognized mode 'x'"),
                              ("economy", ValueError, "Unrecognized mode")):
        with pytest.raises(error):
            np.linalg.qr(np.ones((2, 2)), bad)
        with pytest.raises(error, match=match):
            np.linalg.qr(a, bad)
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.qr(np.ones(3))
    with pytest.raises(np.linalg.LinAlgError, match="a must be a matrix"):
        np.linalg.qr(ddblas.ones(3, device=device))


@pytest.mark.parametrize("shape, columns", [((6, 3), None), ((6, 3), 2), ((3, 6), None),
                                            ((4, 4), 1), ((6, 3), 0), ((0, 2), 1)])
def test_lstsq_is_ddblas_lstsq_with_numpys_results(device, shape, columns):
    m, n = shape
    a = random_matrix(m, n, seed=9, device=device, spread=0) + ddblas.eye(m, n, device=device) * 4
    b_shape = (m,) if columns is None else (m, columns)
    b = random_matrix(1, math.prod(b_shape), seed=10, device=device).reshape(b_shape)
    x, residuals, rank, s = np.linalg.lstsq(a, b)
    numpy_x, numpy_residuals, numpy_rank, _ = np.linalg.lstsq(a.to_device("cpu").hi,
                                                              b.to_device("cpu").hi)
    assert x.shape == numpy_x.shape and residuals.shape == numpy_residuals.shape
    assert rank == numpy_rank and s is None
    scipy_x, scipy_residues, _, _ = linalg.lstsq(a, b)
    assert same_bits(x, scipy_x)
    assert same_bits(residuals, scipy_residues.reshape(residuals.shape))
    if m > n and m and columns is None:   # the exact solution (normal equations), 2^-90
        A, B = exact_array(a), exact_array(b)
        xe = exact_least_squares(A, B)
        assert max(abs(u - v) for u, v in zip(exact_array(x), xe)) <= \
            Fraction(1, 2 ** 90) * max(abs(v) for v in xe)


def exact_least_squares(A: np.ndarray, B: np.ndarray) -> list:
    """The least-squares solution of the full-rank rational system A x = B (M >= N) from the
    normal equations, by Gauss-Jordan elimination in Fractions."""
    n = A.shape[1]
    rows = [list(r) + [v] for r, v in zip(A.T.dot(A), A.T.dot(B))]
    for c in range(n):
        p = next(i for i in range(c, n) if rows[i][c] != 0)
        rows[c], rows[p] = rows[p], rows[c]
        for i in range(n):
            if i != c and rows[i][c] != 0:
                f = rows[i][c] / rows[c][c]
                rows[i] = [x - f * y for x, y in zip(rows[i], rows[c])]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def test_lstsq_rcond_and_errors(device):
    """rcond None: max(M, N) 2^-104 (NumPy's max(M, N) eps); a negative rcond: 2^-104 (NumPy's
    machine precision); rank deficiency by that test is a LinAlgError."""
    d = 2.0 ** -103   # |R_11| / |R_00|: above 2^-104, below 3 * 2^-104
    a = ddblas.array([[1.0, 0.0], [0.0, d], [0.0, 0.0]], device=device)
    b = ddblas.array([1.0, 1.0, 1.0], device=device)
    with pytest.raises(np.linalg.LinAlgError, match=r"R\[1, 1\]"):
        np.linalg.lstsq(a, b)
    x, residuals, rank, _ = np.linalg.lstsq(a, b, rcond=-1)
    assert exact_values(x) == [1, Fraction(2) ** 103] and rank == 2
    assert exact_values(residuals) == [1]
    with pytest.raises(np.linalg.LinAlgError, match=r"R\[1, 1\]"):
        np.linalg.lstsq(a, b, rcond=2.0 ** -102)
    for bad_a, bad_b, match in ((np.ones((2, 2, 2)), np.ones(2), "a must be a 2-D matrix"),
                                (np.ones((2, 2)), np.ones((2, 2, 1)), "b .* must be a 2-D"),
                                (np.ones((3, 2)), np.ones(2), "different numbers of rows")):
        with pytest.raises(np.linalg.LinAlgError):
            np.linalg.lstsq(bad_a, bad_b)
        with pytest.raises(np.linalg.LinAlgError, match=match):
            np.linalg.lstsq(ddblas.array(bad_a, device=device),
                            ddblas.array(bad_b, device=device))


@pytest.mark.parametrize("kwargs", [{}, {"ord": 1}, {"ord": np.inf, "axis": 0},
                                    {"ord": "fro", "axis": (0, 2), "keepdims": True},
                                    {"ord": 3, "axis": -1}, {"keepdims": True}])
def test_norm_is_ddblas_norm(device, kwargs):
    x = random_stack(3, 4, 5, seed=11, device=device)
    if kwargs.get("ord") == 1:
        x = x[0]
    assert same_bits(np.linalg.norm(x, **kwargs), linalg.norm(x, **kwargs))
    assert np.linalg.norm(x, **kwargs).shape == np.linalg.norm(np.ones(x.shape), **kwargs).shape


def test_cond_takes_numpys_p(device):
    a = well_conditioned(5, 12, device, (2,))
    for p in (1, -1, np.inf, -np.inf, "fro"):
        assert same_bits(np.linalg.cond(a, p), linalg.cond(a, p)), p
    for p in (2, -2):   # NumPy's 2-norm condition numbers, from the singular values
        assert same_bits(np.linalg.cond(a, p), linalg.cond(a, p)), p
    assert same_bits(np.linalg.cond(a), linalg.cond(a, 2))   # NumPy's None: the 2-norm
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.cond(ddblas.zeros((0, 0), device=device), 1)
    inverse = exact_array(linalg.inv(a[0]))   # ||A||_1 ||A^-1||_1 from the computed inverse
    got = exact_array(np.linalg.cond(a[0], 1))[()]
    norm_a = max(sum(abs(v) for v in column) for column in exact_array(a[0]).T)
    norm_inverse = max(sum(abs(v) for v in column) for column in inverse.T)
    c_sum = accuracy.bound_constant("sum", None, 5)   # each 1-norm's column sums, then one mul
    relative = (1 + c_sum) ** 2 * (1 + accuracy.bound_constant("mul", None)) - 1
    product = norm_a * norm_inverse
    assert abs(got - product) <= relative * product


def test_diagonal_outer_matmul_are_ddblas_ops(device):
    x = random_stack(3, 4, 5, seed=13, device=device)
    for offset in (0, 1, -2):
        got = np.linalg.diagonal(x, offset=offset)
        assert got.shape == np.linalg.diagonal(np.ones((3, 4, 5)), offset=offset).shape
        assert same_bits(got, ddblas.diagonal(x, offset, -2, -1))
    v, w = x[0, 0], x[1, :, 0]
    assert same_bits(np.linalg.outer(v, w), ddblas.outer(v, w))
    with pytest.raises(ValueError):
        np.linalg.outer(np.ones((2, 2)), np.ones(2))
    with pytest.raises(ValueError, match="x1 and x2 must be 1-D, got 2-D and 1-D"):
        np.linalg.outer(x[0], w)
    y = random_stack(3, 5, 2, seed=14, device=device)
    assert same_bits(np.linalg.matmul(x, y), ddblas.matmul(x, y))
    assert same_bits(np.linalg.matmul(x[0], v), ddblas.matmul(x[0], v))


@pytest.mark.parametrize("name", ["eig", "eigvals"])
def test_functions_that_need_general_eigenvalues_are_not_dispatched(device, name):
    """No implementation: NumPy's TypeError naming the function, not a silent float64 answer."""
    with pytest.raises(TypeError, match=f"no implementation found for 'numpy.linalg.{name}'"):
        getattr(np.linalg, name)(ddblas.eye(3, device=device))
