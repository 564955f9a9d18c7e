"""ddblas.dask: DD arrays and rgemm on dask (threaded scheduler, a LocalCluster of processes)."""
from __future__ import annotations

import math
import operator
import os
import pickle
import signal
import time
import warnings
from fractions import Fraction

import numpy as np
import pytest

import ddblas
from ddblas.core.bounds import bound_constant
from ddvalues import check_gemm_bound, exact_values, random_matrix, same_bits

dask = pytest.importorskip("dask")
dd = pytest.importorskip("ddblas.dask")

SHAPES = [((7, 5), (3, 2), (5, 4), (2, 3)),     # nothing divides: edge blocks everywhere
          ((1, 9), (1, 4), (9, 1), (4, 1)),     # a row times a column
          ((12, 8), (6, 8), (8, 6), (8, 3))]    # k in one chunk


def _variant_name(variant) -> str:
    return ("fma" if variant["fma"] else "nofma") + "/" + variant["add"]


# ---- pickling (what moves between processes) ----

def test_ddarray_pickles_as_its_parts():
    x = ddblas.DDArray(np.array([1.0, np.nan, -0.0, np.inf]),
                       np.array([2 ** -60, np.nan, 0.0, 0.0]))
    y = pickle.loads(pickle.dumps(x))
    assert same_bits(x, y)
    big = ddblas.random((100, 100), seed=1)
    assert len(pickle.dumps(big, protocol=5)) <= 2 * big.hi.nbytes + 1024
    # unpickling wraps the parts as they are (no normalising pass that could change them)
    raw = ddblas.DDArray(np.array([1.0]), np.array([1.0]), normalize=False)
    assert same_bits(pickle.loads(pickle.dumps(raw)), raw)


# ---- construction and evaluation ----

def test_from_ddarray_round_trip(device):
    x = random_matrix(9, 11, seed=1, device=device)[::2, 1::3]   # a strided view
    a = dd.from_ddarray(x, chunks=(2, 3))
    assert a.shape == x.shape and a.chunks == ((2, 2, 1), (3, 1)) and a.device == device
    back = a.compute()
    assert back.device == device and same_bits(back, x)
    assert same_bits(a.rechunk((5, 1)).compute(), x) and same_bits(a.persist().compute(), x)
    assert same_bits(a.T.compute(), x.T) and same_bits(a[1:, :1].compute(), x[1:, :1])
    for shape in [(0, 3), (1,), ()]:
        z = ddblas.random(shape, seed=2, device=device)
        assert same_bits(dd.from_ddarray(z).compute(), z)


def test_from_dask_normalises_and_checks():
    import dask.array as da
    hi = da.from_array(np.array([1.0, 3.0, np.inf]), chunks=2)
    lo = da.from_array(np.array([1.0, 0.0, 1.0]), chunks=1)
    x = dd.from_dask(hi, lo).compute()
    assert same_bits(x, ddblas.DDArray(np.array([1.0, 3.0, np.inf]), np.array([1.0, 0.0, 1.0])))
    assert np.array_equal(x.hi, [2.0, 3.0, np.inf])
    with pytest.raises(TypeError, match="lo must be float64"):
        dd.from_dask(hi, hi.astype(np.float32))
    with pytest.raises(ValueError, match="one shape"):
        dd.from_dask(hi, hi[:2])
    with pytest.raises(TypeError, match="dask arrays"):
        dd.from_dask(np.zeros(3))
    with pytest.raises(ValueError, match="chunks"):
        dd.from_ddarray(ddblas.zeros((4, 4)), chunks=(2, 2, 2))


def test_random_is_per_chunk_and_scheduler_independent(device):
    a = dd.random((10, 7), chunks=(4, 3), seed=5, device=device)
    x = a.compute(scheduler="threads")
    assert x.device == device and same_bits(a.compute(scheduler="synchronous"), x)
    # block (i, j) is ddblas.random of its shape with seed [seed, i, j]
    assert same_bits(x[4:8, 6:7], ddblas.random((4, 1), seed=[5, 1, 2], device=device))
    assert not same_bits(x, dd.random((10, 7), chunks=(4, 3), seed=6, device=device).compute())
    with pytest.raises(ValueError, match="seed"):
        dd.random((3,), seed=-1)
    for shape in [(-1, 5), -3]:
        with pytest.raises(ValueError, match="shape must not have negative sizes"):
            dd.random(shape, chunks=3, seed=0)
    for shape in [(2.5,), (True, 3), "3"]:  # dask would make (2,) and (1, 3) of the first two
        with pytest.raises(TypeError, match="shape must be an int or a tuple of ints"):
            dd.random(shape, seed=0)


def test_chunks_of_zero_size_and_repr():
    x = ddblas.random((30,), seed=1)
    for make in (lambda: dd.from_ddarray(x, chunks=0), lambda: dd.random((4, 6), chunks=(2, 0))):
        with pytest.raises(ValueError, match="chunks .* chunk sizes must be positive"):
            make()
    assert dd.from_ddarray(ddblas.zeros((0,)), chunks=0).shape == (0,)  # dask's 0 on an empty axis
    # a few words whatever the number of chunks
    many = dd.random((30, 10 ** 4), chunks=(7, 1), seed=0)
    assert repr(many) == ("DDDaskArray<shape=(30, 10000), chunksize=(7, 1), device='cpu', "
                          "blocks=50000>")


def test_a_dask_collection():
    """A DDDaskArray is a dask collection (it was an opaque object to dask: dask.compute(x)
    gave x back lazy, dask.persist(x) kept its graph, dask.is_dask_collection(x) was False)."""
    x = random_matrix(7, 5, seed=1)
    a = dd.from_ddarray(x, chunks=(3, 2))
    b = a * "0.1" + 1
    want = x * "0.1" + 1
    assert dask.is_dask_collection(a) and dask.is_dask_collection(b)
    got_a, got_b = dask.compute(a, b)
    assert isinstance(got_a, ddblas.DDArray) and same_bits(got_a, x) and same_bits(got_b, want)
    (nested,) = dask.compute({"b": [b], "n": 3})
    assert same_bits(nested["b"][0], want) and nested["n"] == 3
    assert same_bits(b.compute(), want) and same_bits(b.to_ddarray(), want)
    # persist: a DDDaskArray whose graph holds the computed (2, ...) blocks, nothing else
    (kept,) = dask.persist(b)
    assert isinstance(kept, dd.DDDaskArray) and kept.chunks == b.chunks
    graph = dict(kept.__dask_graph__())
    assert len(graph) == 3 * 3 and set(graph) == set(dask.core.flatten(kept.__dask_keys__()))
    block = graph[(kept.name, 0, 1, 2)]   # block row 1, block column 2: x[3:6, 4:5]
    assert isinstance(block, np.ndarray) and block.shape == (2, 3, 1)
    assert same_bits(ddblas.DDArray(block[0], block[1], normalize=False), want[3:6, 4:5])
    assert same_bits(kept.compute(), want) and same_bits(b.persist().compute(), want)
    (optimized,) = dask.optimize(b)
    assert isinstance(optimized, dd.DDDaskArray) and same_bits(optimized.compute(), want)
    # the graph, keys and name are those of the parts; tokens follow the graph
    assert b.dask is b.parts.dask and b.name == b.parts.name
    assert b.__dask_keys__() == b.parts.__dask_keys__()
    assert b.__dask_layers__() == b.parts.__dask_layers__()
    token = dask.base.tokenize
    assert token(a) == token(dd.from_ddarray(x, chunks=(3, 2))) and token(a) != token(b)
    # inside dask.delayed, as an argument: computed first, a DDArray reaches the function
    assert same_bits(dask.delayed(ddblas.sum)(b).compute(), ddblas.sum(want))


# ---- elementwise operations and reductions ----

def test_elementwise_equal_ddarray(device, variant):
    x = random_matrix(7, 6, seed=3, device=device)
    y = random_matrix(1, 6, seed=4, device=device)
    x[0, 0], x[1, 1], x[2, 2] = np.nan, np.inf, 2.0 ** 1000
    a, b = dd.from_ddarray(x, chunks=(3, 4)), dd.from_ddarray(y, chunks=(1, 5))
    with ddblas.options(**variant):
        expected = {"add": x + y, "sub": "0.1" - x, "mul": x * y, "div": x / 3,
                    "sqrt": ddblas.sqrt(abs(x)), "neg": -x, "abs": abs(x)}
    got = {"add": dd.add(a, b, **variant), "sub": dd.subtract("0.1", a, **variant),
           "mul": dd.multiply(a, y, **variant), "div": dd.divide(a, 3, **variant),
           "sqrt": dd.sqrt(abs(a), **variant), "neg": -a, "abs": abs(a)}
    for name, value in got.items():
        assert same_bits(value.compute(), expected[name]), name
    # the options active when the graph is built reach the tasks
    with ddblas.options(**variant):
        built = a * b
    assert same_bits(built.compute(), expected["mul"])
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        assert np.array_equal(getattr(a, op)(b).compute(), getattr(x, op)(y)), op
    with pytest.raises(TypeError, match="from_dask"):
        a + a.hi
    with pytest.raises(ValueError, match="broadcast together: shapes \\(5,\\) and \\(4,\\)"):
        dd.from_ddarray(ddblas.ones(5), 2) + dd.from_ddarray(ddblas.ones(4), 3)


def test_ddarray_and_numpy_operands_on_the_left(device):
    """DDArray's and NumPy's operators leave a DDDaskArray operand to its reflected ones."""
    x, y = random_matrix(5, 4, seed=5, device=device), random_matrix(4, 3, seed=6, device=device)
    a, b = dd.from_ddarray(x, chunks=2), dd.from_ddarray(y, chunks=3)
    for got, expected in [(x + a, x + x), (x - a, x - x), (x * a, x * x), (x / a, x / x),
                          (x @ b, x @ y)]:
        assert isinstance(got, dd.DDDaskArray) and same_bits(got.compute(), expected)
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        got = getattr(operator, op)(x[::-1], a)
        assert np.array_equal(got.compute(), getattr(operator, op)(x[::-1], x)), op
    if device == "cpu":
        assert same_bits((np.ones((5, 4)) + a).compute(), x + 1)


def test_truth_and_comparisons_with_non_numbers(device):
    """As DDArray: the truth of a one-element array, ambiguous for more (it was len() > 0, so
    `if a == b:` was always taken); against None, a dict or a string that does not parse as a
    number (2026-11-28: it raised the parser's ValueError) all False (==), all True (!=), an
    ordering a TypeError (they raised converting None)."""
    x = random_matrix(5, 3, seed=7, device=device)
    a = dd.from_ddarray(x, chunks=2)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(dd.from_ddarray(ddblas.zeros((3,), device=device)))
    assert bool(dd.from_ddarray(ddblas.zeros((), device=device))) is False
    assert bool(dd.from_ddarray(ddblas.ones((1, 1), device=device))) is True
    for other in (None, {}, "abc"):
        equal, unequal = a == other, other != a
        assert equal.chunks == a.chunks and equal.shape == x.shape
        equal, unequal = (v.get() if hasattr(v, "get") else v
                          for v in (equal.compute(), unequal.compute()))
        assert not equal.any() and unequal.all()
        with pytest.raises(TypeError, match="'<' is not supported between a DDDaskArray"):
            a < other


def test_sum_and_dot_within_bound(device, variant):
    x = random_matrix(13, 9, seed=7, device=device, spread=30)
    a = dd.from_ddarray(x, chunks=(4, 2))
    exact = np.array(exact_values(x), dtype=object).reshape(x.shape)
    for axis, keepdims in [(None, False), (0, False), (1, True), ((0, 1), True)]:
        s = dd.sum(a, axis=axis, keepdims=keepdims, split_every=2, **variant).compute()
        want = ddblas.sum(x, axis=axis, keepdims=keepdims)
        assert s.shape == want.shape and s.device == device
        axes = (0, 1) if axis is None else (axis,) if isinstance(axis, int) else axis
        n = int(np.prod([x.shape[d] for d in axes]))
        const = bound_constant("sum", _variant_name(variant), n)
        sums = exact.sum(axis=axes, keepdims=keepdims)
        mags = np.abs(exact).sum(axis=axes, keepdims=keepdims)
        for got, e, m in zip(exact_values(s), np.ravel(sums), np.ravel(mags)):
            assert abs(got - e) <= const * m
    u = ddblas.random(1000, seed=8, device=device) - "0.5"
    w = dd.from_ddarray(u, chunks=128)
    d = dd.dot(w, w[::-1].rechunk(300), **variant).compute()
    eu = exact_values(u)
    e = sum(p * q for p, q in zip(eu, eu[::-1]))
    m = sum(abs(p * q) for p, q in zip(eu, eu[::-1]))
    assert abs(exact_values(d)[0] - e) <= bound_constant("dot", _variant_name(variant), 1000) * m
    assert dd.sum(a[:0]).compute().hi == 0 and dd.dot(w[:0], w[:0]).compute().hi == 0
    with pytest.raises(ValueError, match="out of bounds"):
        dd.sum(a, axis=2)
    with pytest.raises(ValueError, match="1-D"):
        dd.dot(a, a)
    # a scalar operand multiplies (NumPy's dot)
    for got, expected in [(dd.dot(w, 2, **variant), ddblas.multiply(u, 2, **variant)),
                          (dd.dot(3, w, **variant), ddblas.multiply(3, u, **variant)),
                          (dd.dot(w, "0.1", **variant), ddblas.multiply(u, "0.1", **variant))]:
        assert same_bits(got.compute(), expected)


# ---- rgemm ----

@pytest.mark.parametrize("algorithm", ["blocked", "naive", "auto"])
@pytest.mark.parametrize("shapes", SHAPES)
def test_rgemm_whole_k_equals_one_call(device, variant, algorithm, shapes):
    (m, k), achunks, (k2, n), bchunks = shapes
    x, y = random_matrix(m, k, 11, device), random_matrix(k2, n, 12, device)
    a, b = dd.from_ddarray(x, chunks=achunks), dd.from_ddarray(y, chunks=bchunks)
    c = dd.rgemm(a, b, algorithm=algorithm, **variant).compute(scheduler="threads")
    assert c.device == device
    assert same_bits(c, ddblas.rgemm(x, y, algorithm=algorithm, **variant))
    with ddblas.options(**variant):
        assert same_bits((a @ b).compute(), x @ y)


@pytest.mark.parametrize("shapes", SHAPES)
def test_rgemm_split_k_within_bound(device, variant, shapes):
    (m, k), achunks, (k2, n), bchunks = shapes
    x, y = random_matrix(m, k, 21, device, spread=40), random_matrix(k2, n, 22, device, spread=40)
    a, b = dd.from_ddarray(x, chunks=achunks), dd.from_ddarray(y, chunks=bchunks)
    c = dd.rgemm(a, b, split_k=True, split_every=2, **variant).compute()
    assert c.device == device and c.shape == (m, n)
    check_gemm_bound(c, x, y, 1, 0, None, "N", "N", variant["fma"], variant["add"])


SCALARS = [("0.1", 0), (1, 1), ("-0.3", "0.7"), (0, "0.7"), (2, 0)]


@pytest.mark.parametrize("algorithm", ["blocked", "naive"])
def test_rgemm_alpha_beta_c_whole_k_equals_one_call(device, variant, algorithm):
    """rgemm took neither c, alpha, beta nor transa, transb: with them, k whole, each block is
    one ddblas.rgemm call with C0's block, so C is ddblas.rgemm's, bit for bit."""
    x, y = random_matrix(7, 5, 41, device), random_matrix(5, 4, 42, device)
    z = random_matrix(7, 4, 43, device)
    c = dd.from_ddarray(z, chunks=(2, 3))
    for transa, transb in [("N", "N"), ("T", "N"), ("N", "T"), ("T", "C")]:
        xa = x.T.copy() if transa != "N" else x
        yb = y.T.copy() if transb != "N" else y
        a, b = dd.from_ddarray(xa, chunks=(3, 2)), dd.from_ddarray(yb, chunks=(2, 3))
        for alpha, beta in SCALARS:
            got = dd.rgemm(a, b, c, alpha=alpha, beta=beta, transa=transa, transb=transb,
                           algorithm=algorithm, **variant).compute()
            want = ddblas.rgemm(xa, yb, z.copy(), alpha=alpha, beta=beta, transa=transa,
                                transb=transb, algorithm=algorithm, **variant)
            assert got.device == device and same_bits(got, want), (transa, transb, alpha, beta)
    assert same_bits(c.compute(), z)   # c is read, never written
    # a 0-d DDArray alpha, a DDArray c, without a c for beta = 0
    alpha = ddblas.asarray("0.7", device=device)
    a, b = dd.from_ddarray(x, chunks=(3, 2)), dd.from_ddarray(y, chunks=(2, 3))
    for got, want in [
            (dd.rgemm(a, b, z, alpha=alpha, beta=-1, algorithm=algorithm, **variant),
             ddblas.rgemm(x, y, z.copy(), alpha=alpha, beta=-1, algorithm=algorithm, **variant)),
            (dd.rgemm(a, b, alpha="0.1", algorithm=algorithm, **variant),
             ddblas.rgemm(x, y, alpha="0.1", algorithm=algorithm, **variant))]:
        assert same_bits(got.compute(), want)


def test_rgemm_beta_zero_never_reads_c_alpha_zero_forms_no_product(device):
    """beta = 0: C0's NaNs and infs do not reach C (nor C0's tasks the graph); alpha = 0: no
    product, so A's NaNs do not either (C = beta C0), as ddblas.rgemm."""
    x, y = random_matrix(6, 5, 51, device), random_matrix(5, 4, 52, device)
    z = random_matrix(6, 4, 53, device)
    z[1, 2], z[3, 0] = np.nan, np.inf
    a, b = dd.from_ddarray(x, chunks=(4, 2)), dd.from_ddarray(y, chunks=(2, 3))
    c = dd.from_ddarray(z, chunks=3)
    bad = x.copy()
    bad[0, 0], bad[2, 4] = np.nan, -np.inf
    nan_a = dd.from_ddarray(bad, chunks=(4, 2))
    for split_k in (False, True):
        got = dd.rgemm(a, b, c, alpha="0.5", beta=0, split_k=split_k, algorithm="blocked")
        assert c.parts.name not in got.dask.layers
        got = got.compute()
        assert np.isfinite(got.to_device("cpu").hi).all()
        if not split_k:
            assert same_bits(got, ddblas.rgemm(x, y, z.copy(), alpha="0.5", beta=0))
        for alpha, beta in [(0, "0.5"), (0, 0)]:
            got = dd.rgemm(nan_a, b, c, alpha=alpha, beta=beta, split_k=split_k).compute()
            assert same_bits(got, ddblas.rgemm(bad, y, z.copy(), alpha=alpha, beta=beta))
        empty = dd.rgemm(a[:, :0], b[:0], c, beta="0.5", split_k=split_k).compute()
        assert same_bits(empty, ddblas.rgemm(x[:, :0], y[:0], z.copy(), beta="0.5"))
    zeros = dd.rgemm(nan_a, b, alpha=0).compute()
    assert zeros.shape == (6, 4) and same_bits(zeros, ddblas.zeros((6, 4), device=device))


@pytest.mark.parametrize("shapes", SHAPES)
def test_rgemm_split_k_ozaki2_pieces_with_alpha_beta_meet_the_stated_bound(variant, shapes):
    """docs/distributed.md: with k split, ozaki2-int8 pieces are proven only within rgemm's
    whole bound for their L_p, so with alpha != 1 or beta != 0 C is within rgemm's bound for K
    plus (c_mul + c_add)(1 + 2^-40) |alpha| S (S = (|op(A)||op(B)|)_ij): checked in exact
    rationals on the CPU with dask's synchronous scheduler, each piece an ozaki2-int8 product
    (no fallback: checked through ddblas.rgemm's info on the same blocks)."""
    (m, k), achunks, (k2, n), bchunks = shapes
    x, y = random_matrix(m, k, 71, spread=10), random_matrix(k2, n, 72, spread=10)
    z = random_matrix(m, n, 73, spread=10)
    a, b = dd.from_ddarray(x, chunks=achunks), dd.from_ddarray(y, chunks=bchunks)
    c = dd.from_ddarray(z, chunks=(3, 2))
    for k0 in range(0, k, achunks[1]):   # the pieces: op(A)[:, p] op(B)[p, :]
        info = {}
        ddblas.rgemm(x[:, k0:k0 + achunks[1]], y[k0:k0 + achunks[1]], algorithm="ozaki2-int8",
                     info=info, **variant)
        assert info["algorithm"] == "ozaki2-int8" and info["fallback"] is None, info
    ex, ey, ez = (np.array(exact_values(v), dtype=object).reshape(v.shape) for v in (x, y, z))
    name = _variant_name(variant)
    whole = bound_constant("gemm", name, k)
    extra = (bound_constant("mul", name) + bound_constant("add", name)) * \
        (1 + Fraction(1, 2 ** 40))
    for alpha, beta in [("-0.1", "0.3"), (3, 0), (1, "0.7"), ("0.1", 0)]:
        al, be = (exact_values(ddblas.asarray(v))[0] for v in (alpha, beta))
        got = dd.rgemm(a, b, c if be else None, alpha=alpha, beta=beta, split_k=True,
                       split_every=2, algorithm="ozaki2-int8", **variant)
        got = np.array(exact_values(got.compute(scheduler="synchronous")),
                       dtype=object).reshape(m, n)
        for i in range(m):
            for j in range(n):
                s_ij = sum(abs(ex[i, t] * ey[t, j]) for t in range(k))
                exact = al * sum(ex[i, t] * ey[t, j] for t in range(k)) + be * ez[i, j]
                limit = whole * (abs(al) * s_ij + abs(be * ez[i, j])) + extra * abs(al) * s_ij
                assert abs(got[i, j] - exact) <= limit, (alpha, beta, i, j)


@pytest.mark.parametrize("shapes", SHAPES)
def test_rgemm_split_k_alpha_beta(device, variant, shapes):
    """k split with alpha, beta and C0: the summed products acc, then rgemm's epilogue
    alpha acc + beta C0 in its DD operations (bit for bit ddblas.add(ddblas.multiply(alpha,
    acc), ddblas.multiply(beta, C0))), within rgemm's bound for the whole K (exact rationals);
    with k in one chunk ddblas.rgemm's bits."""
    (m, k), achunks, (k2, n), bchunks = shapes
    x, y = random_matrix(m, k, 61, device, spread=40), random_matrix(k2, n, 62, device, spread=40)
    z = random_matrix(m, n, 63, device, spread=40)
    a, b = dd.from_ddarray(x, chunks=achunks), dd.from_ddarray(y, chunks=bchunks)
    c = dd.from_ddarray(z, chunks=(3, 2))
    alpha, beta = ddblas.asarray("-0.1", device=device), ddblas.asarray("0.3", device=device)
    exact_alpha, exact_beta = exact_values(alpha)[0], exact_values(beta)[0]
    acc = dd.rgemm(a, b, split_k=True, split_every=2, algorithm="blocked", **variant).compute()
    got = dd.rgemm(a, b, c, alpha=alpha, beta=beta, split_k=True, split_every=2,
                   algorithm="blocked", **variant).compute()
    with ddblas.options(**variant):
        assert same_bits(got, ddblas.add(ddblas.multiply(alpha, acc), ddblas.multiply(beta, z)))
    check_gemm_bound(got, x, y, exact_alpha, exact_beta, z, "N", "N", variant["fma"],
                     variant["add"])
    scaled = dd.rgemm(a, b, alpha=alpha, split_k=True, algorithm="blocked", **variant)
    with ddblas.options(**variant):
        assert same_bits(scaled.compute(), ddblas.multiply(alpha, acc))
    # transposed operands, k in one chunk: one rgemm call's bits
    xa, yb = x.T.copy(), y.T.copy()
    a1, b1 = dd.from_ddarray(xa, chunks=(k, 2)), dd.from_ddarray(yb, chunks=(3, k2))
    got = dd.rgemm(a1, b1, c, alpha=alpha, beta=beta, transa="T", transb="T", split_k=True,
                   algorithm="blocked", **variant).compute()
    want = ddblas.rgemm(xa, yb, z.copy(), alpha=alpha, beta=beta, transa="T", transb="T",
                        algorithm="blocked", **variant)
    assert same_bits(got, want)


def test_rgemm_errors():
    a = dd.random((4, 3), chunks=2, seed=1)
    with pytest.raises(ValueError, match="do not align"):
        dd.rgemm(a, a)
    with pytest.raises(ValueError, match="2-D"):
        dd.rgemm(a, 2)
    with pytest.raises(ValueError, match="algorithm must be one of .* got 'foo'"):
        dd.rgemm(a, a.T, algorithm="foo")   # when the graph is built, not at compute()
    # c, alpha, beta, transa, transb: checked when the graph is built, errors naming them
    c = dd.random((4, 4), chunks=2, seed=2)
    with pytest.raises(ValueError, match="beta != 0 needs an input matrix c"):
        dd.rgemm(a, a.T, beta=1)
    for bad in (c[:3, :3], ddblas.zeros((3, 3))):
        with pytest.raises(ValueError, match=r"c has shape \(3, 3\), but op\(A\) @ op\(B\) is 4x4"):
            dd.rgemm(a, a.T, bad, beta=1)
    with pytest.raises(TypeError, match="c must be a DDDaskArray or a DDArray, got ndarray"):
        dd.rgemm(a, a.T, np.zeros((4, 4)), beta=1)
    with pytest.raises(ValueError, match="alpha must be a DD scalar"):
        dd.rgemm(a, a.T, alpha="x")
    with pytest.raises(ValueError, match="beta must be a scalar"):
        dd.rgemm(a, a.T, c, beta=ddblas.ones(2))
    with pytest.raises(ValueError, match="transa must be 'N', 'T' or 'C'"):
        dd.rgemm(a, a.T, transa="X")
    with pytest.raises(ValueError, match=r"op\(A\) is 3x4 \(a has shape \(4, 3\), transa='T'\)"):
        dd.rgemm(a, a.T, transa="T")


# ---- a cluster of processes ----

@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    env = {"DDBLAS_CACHE_DIR": os.environ["DDBLAS_CACHE_DIR"], "OMP_NUM_THREADS": "1"}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, worker_dashboard_address=None,
                                  env=env) as cluster, distributed.Client(cluster) as c:
        yield c


def test_local_cluster_rgemm(client):
    x, y = random_matrix(37, 29, 31, "cpu"), random_matrix(29, 23, 32, "cpu")
    a, b = dd.from_ddarray(x, chunks=(10, 8)), dd.from_ddarray(y, chunks=(8, 7))
    assert same_bits(dd.rgemm(a, b, algorithm="blocked").compute(), ddblas.rgemm(x, y))
    c = dd.rgemm(a, b, split_k=True).compute()
    check_gemm_bound(c, x, y, 1, 0, None, "N", "N", True, "accurate")
    z = random_matrix(37, 23, 34, "cpu")
    got = dd.rgemm(a, b, dd.from_ddarray(z, chunks=9), alpha="0.1", beta=-2, algorithm="blocked")
    assert same_bits(got.compute(), ddblas.rgemm(x, y, z.copy(), alpha="0.1", beta=-2))
    r = dd.random((20, 20), chunks=7, seed=3)
    assert same_bits(r.compute(), r.compute(scheduler="threads"))
    assert same_bits(dd.sum(r, axis=0).compute(), dd.sum(r, axis=0).compute(scheduler="threads"))


def test_cluster_computes_and_persists_the_collection(client):
    """distributed's Client.compute / persist and dask.compute on a cluster take a DDDaskArray
    as a collection: a DDArray back, or the blocks kept on the workers."""
    x = random_matrix(9, 6, seed=33)
    a = dd.from_ddarray(x, chunks=(4, 3))
    b = a * a - "0.5"
    want = x * x - "0.5"
    assert same_bits(client.compute(b).result(), want)
    kept = client.persist(b)
    assert isinstance(kept, dd.DDDaskArray)
    futures = pytest.importorskip("distributed").futures_of(kept)
    assert len(futures) == 3 * 2 and same_bits(kept.compute(), want)
    got_a, got_b = dask.compute(a, b)
    assert same_bits(got_a, x) and same_bits(got_b, want)


def test_persist_keeps_worker_placement(client):
    """docs/distributed.md's placement recipe: blocks put on workers by a per-key `workers`
    annotation stay there with persist(optimize_graph=False) (optimisation drops the
    annotation)."""
    dask = pytest.importorskip("dask")
    workers = sorted(client.scheduler_info()["workers"])
    pattern = (1, 1, 0, 0, 0, 1, 0, 1)
    with dask.annotate(workers=lambda key: [workers[pattern[key[-2]]]], allow_other_workers=False):
        a = dd.random((80, 12), chunks=(10, 12), seed=5)
    placed = a.persist(optimize_graph=False)
    pytest.importorskip("distributed").wait(placed.parts)
    held = {key[-2]: list(holders) for key, holders in client.who_has(placed.parts).items()}
    assert held == {i: [workers[w]] for i, w in enumerate(pattern)}
    assert same_bits(placed.compute(), a.compute(scheduler="threads"))


@pytest.mark.slow
def test_worker_killed_during_rgemm_retries_same_result(client):
    a = dd.random((1200, 1200), chunks=300, seed=41)
    b = dd.random((1200, 1200), chunks=300, seed=42)
    c = dd.rgemm(a, b, algorithm="blocked")
    expected = c.compute(scheduler="threads")
    future = client.compute(c.parts)
    deadline = time.monotonic() + 30
    while not any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.05)
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)
    parts = future.result(timeout=300)
    assert future.status == "finished"
    assert same_bits(ddblas.DDArray(parts[0], parts[1], normalize=False), expected)
    assert victim not in client.run(os.getpid).values()  # the work went on without it


def test_rechunk_split_every_masks_unknown_sizes_and_seeds():
    """Found by an adversarial review: rechunk merged the axes a dict or None left out and
    dropped negative keys; sum's split_every dict was read on the parts' axes; masks of the
    whole shape (x[x > 0.5]) failed; unknown sizes broke arithmetic, size and len; normalize
    was not checked; seeds of 2^32 and above repeated other seeds' blocks."""
    x = dd.random((6, 4), chunks=(3, 2), seed=1)
    assert x.rechunk({-1: 1}).chunks == ((3, 3), (1, 1, 1, 1))
    assert x.rechunk({0: 1}).chunks == ((1,) * 6, (2, 2))
    assert x.rechunk((None, 1)).chunks == ((3, 3), (1, 1, 1, 1))
    assert same_bits(x.rechunk({0: 1}).rechunk((3, 2)).compute(), x.compute())
    with pytest.raises(ValueError, match="axis 2 is not one of the 2 axes"):
        x.rechunk({2: 1})
    y = dd.random((64, 3), chunks=(1, 3), seed=2)
    assert len(dd.sum(y, axis=0, split_every={0: 64}).parts.dask) < \
        len(dd.sum(y, axis=0, split_every=2).parts.dask)
    z = dd.random((7, 5), chunks=(3, 2), seed=2)
    ref = z.compute()
    want = ref[ref.hi > 0.5]
    for mask in (ref.hi > 0.5, z > 0.5):
        assert same_bits(z[mask].compute(), want)
    u = z[z.hi[:, 0] > 0.5]
    assert math.isnan(u.size) and math.isnan(u.shape[0])
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        len(u)
    rows = ref[ref.hi[:, 0] > 0.5]
    assert same_bits((u * u + 1).compute(), rows * rows + 1)
    hi = dask.array.from_array(np.ones((6, 2)), chunks=3)
    kept = hi[hi[:, 0] > 0]
    assert dd.from_dask(kept, kept).compute().shape == (6, 2)
    with pytest.raises(TypeError, match="normalize must be True or False"):
        dd.from_dask(hi, hi, normalize=None)
    with pytest.raises(ValueError, match=r"seed must be an int in \[0, 2\^32\)"):
        dd.random((3,), seed=2 ** 32 + 7)
    for flag in (True, np.False_):   # dask read True as the index 1
        assert same_bits(z[flag].compute(), ref[flag])
        with pytest.raises(IndexError, match="boolean scalar index"):
            z[flag, 0]


def test_axes_chunks_iteration_and_index_errors_as_a_ddarrays():
    """Probe of 2026-11-28: transpose hid out-of-range axes by a modulo (transpose(0, 5) of a
    2-D array was the identity); "auto" and byte-size chunks counted 8 bytes a DD element (blocks
    of twice dask's size); dict chunk axes were passed to dask unmapped (-1 and 5 ignored);
    iterating a 0-d array gave nothing; index errors named the axis after (the parts axis)."""
    a = dd.random((7, 5), chunks=2, seed=1)
    for axes in ((0, 5), (-3, 0)):
        with pytest.raises(np.exceptions.AxisError):
            a.transpose(*axes)
    assert a.transpose(-1, 0).shape == (5, 7)
    assert dd.random((20000, 20000), seed=1).parts.chunksize == (2, 2896, 2896)   # 128 MiB
    assert dd.random((1000, 1000), chunks="1MiB", seed=1).parts.chunksize == (2, 256, 256)
    assert dd.from_ddarray(ddblas.random((6, 4)), chunks={-1: 1}).chunks == ((6,), (1,) * 4)
    with pytest.raises(ValueError, match="axis 5 is not one of the 2 axes"):
        dd.from_ddarray(ddblas.random((6, 4)), chunks={5: 1})
    with pytest.raises(TypeError, match="0-d"):
        list(dd.from_ddarray(ddblas.asarray("0.7")))
    rows = list(a)
    assert len(rows) == 7 and same_bits(rows[3].compute(), a.compute()[3])
    with pytest.raises(IndexError, match="axis 0 with size 7"):
        a[10]


def test_dot_takes_a_0d_operand_as_a_scalar():
    """A 0-d DDDaskArray operand of dot multiplies, as ddblas.dot's (it was refused as not 1-D)."""
    z = ddblas.asarray("0.7")
    v = dd.random((5,), chunks=2, seed=2)
    for x, y, want in ((dd.from_ddarray(z), v, ddblas.dot(z, v.compute())),
                       (v, dd.from_ddarray(z), ddblas.dot(v.compute(), z)),
                       (dd.from_ddarray(z), dd.from_ddarray(z), ddblas.dot(z, z))):
        assert same_bits(dd.dot(x, y).compute(), want)


def test_sum_checks_split_every_and_the_method_takes_its_keywords():
    """split_every {0: 0} was dask's math domain error, a dict for a 0-d array a
    ZeroDivisionError; DDDaskArray.sum took neither split_every nor fma and add."""
    a = dd.random((7, 5), chunks=(1, 2), seed=3)
    z = dd.from_ddarray(ddblas.asarray("0.7"))
    for x, bad in ((a, {0: 0}), (a, {0: 1}), (a, {2: 4}), (a, 1), (a, 2.5), (a, True),
                   (z, {0: 2})):
        with pytest.raises(ValueError, match="split_every"):
            dd.sum(x, axis=0 if x.ndim else None, split_every=bad)
    assert same_bits(dd.sum(z, split_every=2).compute(), z.compute())
    want = dd.sum(a, axis=0, split_every={-2: 2}, fma=False, add="sloppy")
    got = a.sum(0, split_every={0: 2}, fma=False, add="sloppy")
    assert same_bits(got.compute(), want.compute())
    assert len(got.parts.dask) > len(a.sum(0).parts.dask)


def test_masks_as_numpy_reads_them():
    """A whole-shape mask with an Ellipsis, a (nested) list of booleans and a 0-d bool array
    failed with dask's misleading 'not long enough for axis' (a 0-d array was a 1-element mask);
    masks dask cannot take beside other indices are an error naming them."""
    x = ddblas.random((7, 5), seed=1)
    a = dd.from_ddarray(x, (3, 2))
    m = x.hi > 0.5
    for key in ((m, ...), (..., m), m.tolist(), m[:, 0].tolist(), (m[:, 0].tolist(), 1),
                np.array(True), np.array(False)):
        assert same_bits(a[key].compute(), x[key])
    with pytest.raises(IndexError, match=r"mask of shape \(7, 4\) does not match"):
        a[m[:, :4]]
    with pytest.raises(IndexError, match="mask of 2 axes"):
        a[m, 0]


def test_masks_of_some_axes_as_numpy_reads_them():
    """Boolean masks of some of the axes (x[m], m.shape == x.shape[:2] of a 3-D x; beside other
    indices) were refused; None beside a mask was dask's TypeError; integers and an array index
    apart gave dask's order, not NumPy's (x[0, :, m]: the masked axis first in NumPy)."""
    x = ddblas.random((4, 5, 6), seed=3)
    a = dd.from_ddarray(x, (3, 2, 4))
    rng = np.random.default_rng(7)
    m1, m2, m3 = (rng.random(x.shape[:k]) > 0.4 for k in (1, 2, 3))
    m23 = rng.random((5, 6)) > 0.4
    for key in (m1, m2, m3, (m2, ...), (m2, slice(1, 4)), (m2, 2), (m2, slice(None, None, -1)),
                (slice(None), m23), (1, m23), (..., m23), (None, m2), (m2, None),
                (None, m1), (slice(None), None, m23), m2.tolist(), (0, slice(None), m23[0]),
                (0, slice(None), [5, 1]), (0, ..., m23[1]), (slice(1, 3), 0, [2, 3])):
        got = a[key]
        assert same_bits(got.compute(), x[key]), [getattr(k, "shape", k) for k in key]
    # dask masks: of the leading axes, and one computed from the array
    assert same_bits(a[dask.array.from_array(m2, chunks=2)].compute(), x[m2])
    assert same_bits(a[a.sum(axis=2) > 3].compute(), x[ddblas.sum(x, axis=2) > 3])
    y = ddblas.random((3, 4, 5, 2), seed=4)
    b = dd.from_ddarray(y, (2, 3, 2, 1))
    m45 = rng.random((4, 5)) > 0.4
    for key in ((0, slice(None), m45[0]), (1, m45), (0, slice(None), m45.T[:, :2]),
                (m45[:3, :4], slice(None), 1)):
        assert same_bits(b[key].compute(), y[key]), [getattr(k, "shape", k) for k in key]
    with pytest.raises(IndexError, match="too many indices .* mask of 2 axes"):
        a[m2, 0, 0]
    with pytest.raises(IndexError, match=r"mask of shape \(3, 5\) does not match .*axes 0 to 1"):
        a[m2[:3]]
    with pytest.raises(IndexError, match="single ellipsis"):
        a[m2, ..., ...]
    with pytest.raises(IndexError, match="sizes of the axes it covers known"):
        a[a.hi[:, 0, 0] > 0.5][m2]
    with pytest.raises(IndexError, match="dask's arrays do not take it"):
        a[m2, [0, 1]]   # two array indices: NumPy takes them, dask does not
    with pytest.raises(IndexError, match="integer array of 2 axes"):   # dask's TypeError
        a[0, :, [[1], [2]]]


def test_products_of_many_blocks_do_not_warn():
    """Every product of more than 10 block rows or columns gave dask's PerformanceWarning
    'Increasing number of chunks by factor of ...', though its blocks are made by design."""
    b = dd.random((110, 110), chunks=10, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", dask.array.PerformanceWarning)
        c = b @ b
        dd.rgemm(b, b, split_k=True)
    assert c.numblocks == (11, 11)
