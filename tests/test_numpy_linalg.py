"""numpy.linalg's functions (and np.trace) on DDArrays (NEP 18): each gives ddblas.linalg's bits
(or those of the ddblas function it runs) with NumPy's signature and semantics, and ddblas's
new array-API functions (matrix_power, multi_dot, vector_norm, matrix_norm, tensorsolve,
tensorinv, trace, vecdot, cross) are within their documented bounds (docs/linalg.md, "NumPy's
entry points") against exact rational values, with NumPy's shapes and exceptions."""
from __future__ import annotations

import math

import numpy as np
import pytest

import ddblas
from ddblas import accuracy
from ddvalues import exact_values, random_matrix, random_stack, same_bits


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
