"""NumPy's products tensordot, inner, vdot, kron and np.cross (NEP 18 and ddblas.<name>): NumPy's
shapes and exceptions, the bits of the ddblas product each one claims (a @ b, ddblas.dot,
ddblas.multiply, ddblas.linalg.cross) and the documented bounds against exact rational values
(docs/linalg.md, "NumPy's entry points")."""
from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

import ddblas
from ddblas import accuracy, linalg
from conftest import requires_gpu
from ddvalues import MUL, add_abs_constant, exact_values, random_matrix, same_bits


def exact_array(x) -> np.ndarray:
    """The exact values of a finite DDArray (any device) as an object array of Fractions."""
    return np.array(exact_values(x), dtype=object).reshape(x.shape)


def random_array(shape, seed, device) -> ddblas.DDArray:
    return random_matrix(1, max(math.prod(shape), 1), seed, device, spread=6).ravel()[
        :math.prod(shape)].reshape(shape)


def within_dot_bound(got, terms, constant) -> bool:
    """|got - sum(terms)| <= constant sum|terms| for each entry: terms the exact products summed
    into it along the last axis (object arrays of Fractions)."""
    exact, scale = terms.sum(axis=-1), abs(terms).sum(axis=-1)
    return bool(np.all(abs(exact_array(got) - exact) <= constant * scale))


# ---- tensordot ----
TENSORDOT_CASES = [
    ((2, 3), (3, 4), 1), ((2, 3, 4), (3, 4, 5), 2), ((3, 4), (3, 4), 2), ((2, 3), (4,), 0),
    ((), (2, 3), 0), ((3, 4, 2), (4, 3, 5), ([1, 0], [0, 1])), ((3, 4, 2), (5, 4), (1, 1)),
    ((3, 4, 2), (2, 5, 3), ([-1, 0], [0, -1])), ((2, 0), (0, 3), 1), ((4,), (4,), ([0], [0])),
    ((2, 3), (3, 2), np.int64(1)), ((2, 3), (2, 3), (np.array([0, 1]), (0, 1)))]


@pytest.mark.parametrize("shape_a, shape_b, axes", TENSORDOT_CASES)
def test_tensordot_shapes_are_numpys(device, shape_a, shape_b, axes):
    a, b = random_array(shape_a, 1, device), random_array(shape_b, 2, device)
    got = ddblas.tensordot(a, b, axes)
    assert got.shape == np.tensordot(np.ones(shape_a), np.ones(shape_b), axes).shape
    assert same_bits(np.tensordot(a, b, axes), got)
    assert same_bits(np.linalg.tensordot(a, b, axes=axes), got)
    if axes == 2:   # the default
        assert same_bits(np.tensordot(a, b), got)


def test_tensordot_within_the_gemm_bound(device, variant):
    """One product over K = 4 * 5 summed entries: |C - AB| <= c_gemm(K) |A||B|, exactly."""
    a, b = random_array((3, 4, 5), 3, device), random_array((5, 4, 2), 4, device)
    got = ddblas.tensordot(a, b, ([1, 2], [1, 0]), **variant)
    ea, eb = exact_array(a), exact_array(b).transpose(1, 0, 2)
    terms = ea.reshape(3, 1, 20) * eb.reshape(20, 2).T[None, :, :]
    c = accuracy.bound_constant("gemm", ddblas.Options(**variant), 20)
    assert got.shape == (3, 2) and within_dot_bound(got, terms, c)


def test_tensordot_of_matrices_is_matmul(device):
    a, b = random_array((5, 7), 5, device), random_array((7, 3), 6, device)
    for axes in (1, ([1], [0]), (-1, 0)):
        assert same_bits(ddblas.tensordot(a, b, axes), a @ b)
    assert same_bits(ddblas.tensordot(a, b.T, (1, 1)), a @ b)   # b.T moved back: b's bits
    assert same_bits(ddblas.tensordot(a, b, 1, fma=False, add="sloppy"),
                     ddblas.matmul(a, b, fma=False, add="sloppy"))


@pytest.mark.parametrize("shape_a, shape_b, axes, error, match", [
    ((2, 3), (4, 5), 1, ValueError, "shape-mismatch for sum"),
    ((2, 3), (3, 5), ([1], [0, 1]), ValueError, "shape-mismatch for sum"),
    ((2, 3), (3, 3), 3, IndexError, "axes of a"),
    ((2, 3), (3, 3), ([1], [2]), IndexError, "axes of b"),
    ((2, 3), (3, 3), ([1, 1], [0, 1]), ValueError, "duplicate axes"),
    ((2, 3), (3,), 1.5, TypeError, "axes must be an int"),
    ((2, 3), (3,), ([1], [0], [0]), ValueError, None)])
def test_tensordot_errors_are_numpys(device, shape_a, shape_b, axes, error, match):
    with pytest.raises(error):
        np.tensordot(np.ones(shape_a), np.ones(shape_b), axes)
    a, b = ddblas.ones(shape_a, device=device), ddblas.ones(shape_b, device=device)
    with pytest.raises(error, match=match):
        np.tensordot(a, b, axes)


def test_tensordot_refuses_a_negative_number_of_axes(device):
    """NumPy sums over no axes for axes=-1 (an outer product); ddblas names the argument."""
    a = ddblas.ones((2, 3), device=device)
    with pytest.raises(ValueError, match="axes must be a non-negative int"):
        ddblas.tensordot(a, a, -1)


# ---- inner, vdot ----
@pytest.mark.parametrize("shape_a, shape_b", [
    ((), (2, 3)), ((4,), ()), ((6,), (6,)), ((3, 5), (5,)), ((5,), (4, 5)), ((2, 3, 4), (5, 4)),
    ((0,), (0,))])
def test_inner_shapes_and_bits(device, shape_a, shape_b):
    a, b = random_array(shape_a, 7, device), random_array(shape_b, 8, device)
    got = np.inner(a, b)
    assert got.shape == np.inner(np.ones(shape_a), np.ones(shape_b)).shape
    assert same_bits(ddblas.inner(a, b), got)
    if a.ndim == 0 or b.ndim == 0:
        assert same_bits(got, a * b)
    elif a.ndim == b.ndim == 1:
        assert same_bits(got, ddblas.dot(a, b))   # the fixed-order dot kernel
    else:
        assert same_bits(got, ddblas.tensordot(a, b, (-1, -1)))


def test_inner_of_matrices_is_matmul_and_within_the_bounds(device, variant):
    a, b = random_array((4, 6), 9, device), random_array((3, 6), 10, device)
    assert same_bits(ddblas.inner(a, b, **variant), ddblas.matmul(a, b.T, **variant))
    got = ddblas.inner(a, b, **variant)
    terms = exact_array(a)[:, None, :] * exact_array(b)[None, :, :]
    opts = ddblas.Options(**variant)
    assert within_dot_bound(got, terms, accuracy.bound_constant("gemm", opts, 6))
    got = ddblas.inner(a[0], b[0], **variant)
    assert within_dot_bound(got, exact_array(a[0]) * exact_array(b[0]),
                            accuracy.bound_constant("dot", opts, 6))


def test_vdot_is_the_dot_of_the_flattened_arrays(device, variant):
    a, b = random_array((3, 4), 11, device), random_array((2, 6), 12, device)
    got = ddblas.vdot(a, b, **variant)
    assert got.shape == () and same_bits(got, ddblas.dot(a.ravel(), b.ravel(), **variant))
    with ddblas.options(**variant):
        assert same_bits(np.vdot(a, b), got)
    terms = exact_array(a).ravel() * exact_array(b).ravel()
    assert within_dot_bound(got, terms, accuracy.bound_constant("dot", ddblas.Options(**variant),
                                                                12))
    assert float(ddblas.vdot(2.0, ddblas.array(3.0, device=device)).hi) == np.vdot(2.0, 3.0)


@pytest.mark.parametrize("function, shape_a, shape_b, match", [
    (np.inner, (2, 3), (4,), r"not aligned: 3 \(dim 1\) != 4 \(dim 0\)"),
    (np.inner, (3,), (4,), "not aligned"),
    (np.vdot, (3,), (2, 2), r"differ in size \(3 and 4\)")])
def test_inner_and_vdot_errors_are_numpys(device, function, shape_a, shape_b, match):
    with pytest.raises(ValueError):
        function(np.ones(shape_a), np.ones(shape_b))
    with pytest.raises(ValueError, match=match):
        function(ddblas.ones(shape_a, device=device), ddblas.ones(shape_b, device=device))


# ---- kron ----
@pytest.mark.parametrize("shape_a, shape_b", [
    ((2, 3), (3, 2)), ((), (2, 3)), ((2, 3), ()), ((), ()), ((3,), (2, 4)), ((2, 1, 3), (4,)),
    ((0, 2), (3, 1))])
def test_kron_is_numpys_with_one_multiply_an_entry(device, shape_a, shape_b):
    a, b = random_array(shape_a, 13, device), random_array(shape_b, 14, device)
    got = np.kron(a, b)
    expected = np.asarray(np.kron(exact_array(a), exact_array(b)), dtype=object)   # exact
    assert got.shape == expected.shape == np.kron(np.ones(shape_a), np.ones(shape_b)).shape
    assert same_bits(ddblas.kron(a, b), got)
    assert np.all(abs(exact_array(got) - expected) <= MUL[True] * abs(expected))
    if (shape_a, shape_b) == ((2, 3), (3, 2)):   # each entry is ddblas.multiply's bits
        # blocks of b.shape (3, 2): got[3 i + r, 2 j + c] = a[i, j] b[r, c]
        assert same_bits(got[1:3, 4:6], a[0, 2] * b[1:3])
        assert same_bits(got[3:6, 2:4], a[1, 1] * b)


def test_kron_variants_and_bound(device, variant):
    a, b = random_array((2, 2), 15, device), random_array((3,), 16, device)
    got = ddblas.kron(a, b, **variant)
    assert same_bits(got.reshape(2, 2, 3), ddblas.multiply(a[:, :, None], b, **variant))
    expected = np.kron(exact_array(a), exact_array(b))
    assert np.all(abs(exact_array(got) - expected) <= MUL[variant["fma"]] * abs(expected))


# ---- np.cross ----
@pytest.mark.parametrize("shape_a, shape_b, kwargs", [
    ((3,), (3,), {}), ((4, 3), (3,), {}), ((3, 4), (4, 3), {"axisa": 0}),
    ((3, 4), (3, 4), {"axis": 0}), ((2, 3, 5), (3, 5), {"axisa": 1, "axisb": 0, "axisc": 0}),
    ((5, 3), (5, 3), {"axisc": -2}), ((2, 1, 3), (4, 3), {"axisc": 1})])
def test_numpy_cross_moves_axes_around_linalg_cross(device, shape_a, shape_b, kwargs):
    a, b = random_array(shape_a, 17, device), random_array(shape_b, 18, device)
    got = np.cross(a, b, **kwargs)
    assert got.shape == np.cross(np.ones(shape_a), np.ones(shape_b), **kwargs).shape
    axisa = kwargs.get("axis", kwargs.get("axisa", -1))
    axisb = kwargs.get("axis", kwargs.get("axisb", -1))
    axisc = kwargs.get("axis", kwargs.get("axisc", -1))
    expected = linalg.cross(ddblas.moveaxis(a, axisa, -1), ddblas.moveaxis(b, axisb, -1))
    assert same_bits(got, ddblas.moveaxis(expected, -1, axisc))


def test_numpy_cross_of_2_vectors_is_numpys_deprecated_form(device):
    """As the installed NumPy: its deprecated form, or its ValueError where it refuses them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            np.cross(np.zeros(2), np.zeros(3))
        except ValueError as error:
            with pytest.raises(ValueError, match=f"^{re.escape(str(error))}$"):
                np.cross(ddblas.zeros(2, device=device), ddblas.zeros(3, device=device))
            return
    rng = np.random.default_rng(19)
    x3, x2 = rng.integers(-9, 10, (4, 3)).astype(float), rng.integers(-9, 10, (4, 2)).astype(float)
    for x, y in ((x2, x2[::-1]), (x2, x3), (x3, x2)):
        with pytest.warns(DeprecationWarning, match="2-dimensional vectors are deprecated"):
            got = np.cross(ddblas.array(x, device=device), ddblas.array(y, device=device))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            expected = np.cross(x, y)
        assert got.shape == expected.shape
        assert np.array_equal(got.to_device("cpu").hi, expected)   # small integers: exact
    a = random_array((2,), 20, device)
    with pytest.warns(DeprecationWarning):
        got = np.cross(a, a[::-1], axisc=5)   # two 2-vectors: axisc unused, as NumPy
    exact = exact_array(a)
    mul, add = max(MUL.values()), add_abs_constant("sloppy")   # any variant: linalg.cross's bound
    assert within_dot_bound(got, np.array([exact[0] * exact[0], -exact[1] * exact[1]]),
                            mul + add * (1 + mul))


@pytest.mark.parametrize("shape_a, shape_b, kwargs, error, match", [
    ((), (3,), {}, ValueError, "zero dimension"), ((4,), (3,), {}, ValueError, None),
    ((3,), (3,), {"axisa": 1}, IndexError, "axisa"), ((3,), (3,), {"axisb": -2}, IndexError, "axisb"),
    ((3,), (3,), {"axisc": 1}, IndexError, "axisc"), ((2, 3), (4, 3), {}, ValueError, "broadcast")])
def test_numpy_cross_errors_are_numpys(device, shape_a, shape_b, kwargs, error, match):
    with pytest.raises(error) as numpys:
        np.cross(np.ones(shape_a), np.ones(shape_b), **kwargs)
    if match is None:   # the vectors' lengths: the installed NumPy's own message
        match = f"^{re.escape(str(numpys.value))}$"
    with pytest.raises(error, match=match):
        np.cross(ddblas.ones(shape_a, device=device), ddblas.ones(shape_b, device=device),
                 **kwargs)


# ---- NumPy 2's gufuncs: np.vecdot, np.matvec, np.vecmat ----
def test_numpy_gufuncs_are_the_matmul_and_vecdot_forms(device):
    """np.vecdot (with axis=) is linalg.vecdot, np.matvec and np.vecmat the matmul forms, bit
    for bit, with NumPy's shapes; keywords beyond axis= and core-dimension errors are refused."""
    a, v, w = random_array((2, 3, 4), 23, device), random_array((4,), 24, device), \
        random_array((3,), 25, device)
    host = [np.asarray(x.to_device("cpu").hi) for x in (a, v, w)]
    assert same_bits(np.vecdot(a, v), linalg.vecdot(a, v))
    b = a[::-1]
    assert same_bits(np.vecdot(a, b, axis=1), linalg.vecdot(a, b, axis=1))
    assert np.vecdot(a, b, axis=1).shape == np.vecdot(host[0], host[0], axis=1).shape
    if hasattr(np, "matvec"):
        got = np.matvec(a, v)
        assert got.shape == np.matvec(host[0], host[1]).shape
        assert same_bits(got, ddblas.matvec(a, v))
        assert same_bits(got, ddblas.matmul(a, v[:, None])[..., 0])
        got = np.vecmat(w, a)
        assert got.shape == np.vecmat(host[2], host[0]).shape
        assert same_bits(got, ddblas.matmul(w[None, :], a)[..., 0, :])
    with pytest.raises(ValueError, match="matvec: x1 needs at least 2"):
        ddblas.matvec(v, v)
    with pytest.raises(TypeError, match="keepdims"):
        np.vecdot(a, v, keepdims=True)
    with pytest.raises(TypeError, match="axis"):
        np.matmul(a, a, axis=0)


@requires_gpu
def test_operands_on_two_devices_raise():
    cpu = random_array((3, 3), 21, "cpu")
    gpu = cpu.to_device("gpu")
    for function in (ddblas.tensordot, ddblas.inner, ddblas.vdot, ddblas.kron, np.cross):
        with pytest.raises(ValueError, match="different devices"):
            function(cpu, gpu)
    for function in (ddblas.tensordot, ddblas.inner, ddblas.vdot, ddblas.kron):
        assert same_bits(function(gpu, gpu), function(cpu, cpu))
