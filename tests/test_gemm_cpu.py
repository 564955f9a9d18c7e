"""The CPU rgemm (cuda_src/gemm_cpu.h): bitwise equal to the naive kernel (one element at a time,
gemm.h's order) around every blocking boundary, for every variant, transpose, view, alpha/beta,
thread count and with vectorisation on and off; the thread-count API; the madd ceiling kernel;
builds without OpenMP or without AVX."""
from __future__ import annotations

import ctypes
import os
import platform

import numpy as np
import pytest

import ddblas
from ddblas.engines import build as _build
from ddblas.engines import cpu as _cpu
from ddvalues import TRANS, random_matrix, same_bits

VARIANTS = [(True, "accurate"), (True, "sloppy"), (False, "accurate"), (False, "sloppy")]


def _around(x):
    return [x - 1, x, x + 1]


def _shapes():
    """(m, n, k) around the micro-tile TM x TN, the blocks MC x NC and the panel depth KC (+-1),
    with K = 1 and several KC panels."""
    b = _cpu.blocking()
    tm, tn, mc, nc, kc = b["TM"], b["TN"], b["MC"], b["NC"], b["KC"]
    shapes = [(m, n, 5) for m in _around(tm) for n in _around(tn)]
    shapes += [(m, n, 1) for m, n in [(1, 1), (tm + 1, tn - 1), (mc + 1, 3)]]
    shapes += [(m, tn + 1, 7) for m in _around(mc) + [2 * mc + 1]]
    shapes += [(tm - 1, n, 7) for n in _around(nc) + [2 * nc + 1]]
    shapes += [(tm + 3, tn + 2, k) for k in _around(kc) + [2 * kc + 1]]
    shapes += [(mc + 1, nc - 1, kc + 1)]
    return shapes


@pytest.mark.parametrize("shape", _shapes(), ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("vectorize", [True, False], ids=["simd", "scalar"])
def test_blocked_equals_naive_bitwise(shape, vectorize):
    m, n, k = shape
    for t, (transa, transb) in enumerate(TRANS):
        a = random_matrix(*((m, k) if transa == "N" else (k, m)), 10 + t)
        b = random_matrix(*((k, n) if transb == "N" else (n, k)), 20 + t)
        c0 = random_matrix(m, n, 30 + t)
        for fma, add in VARIANTS:
            kw = dict(transa=transa, transb=transb, fma=fma, add=add, alpha="0.7", beta=-2)
            ref = ddblas.rgemm(a, b, c0.copy(), algorithm="naive", **kw)
            for threads in (1, 2):
                with ddblas.cpu_threads(threads), _cpu.configure(vectorize=vectorize):
                    got = ddblas.rgemm(a, b, c0.copy(), algorithm="blocked", **kw)
                assert same_bits(got, ref), (transa, transb, fma, add, threads)


@pytest.mark.parametrize("vectorize", [True, False], ids=["simd", "scalar"])
def test_strided_views_and_special_values_equal_naive(vectorize):
    big_a, big_b = random_matrix(150, 200, 1), random_matrix(210, 160, 2)
    big_a[4, 4], big_a[8, 7], big_b[4, 2] = "inf", "nan", "-inf"  # all inside the views
    a = big_a[::2, 1::3]            # 75 x 67, both strides > 1
    b = big_b[1::3, ::2].T[:, :67]  # transposed strided view, 80 x 67; op(B) = b.T
    c_big = random_matrix(160, 180, 3)
    for fma, add in VARIANTS:
        for alpha, beta in [(1, 0), ("-0.3", 0), (1, "0.5"), ("1.25", -1)]:
            kw = dict(transb="T", fma=fma, add=add, alpha=alpha, beta=beta)
            ref = c_big.copy()
            ddblas.rgemm(a, b, ref[1:151:2, :160:2], algorithm="naive", **kw)
            for threads in (1, 2):
                got = c_big.copy()
                with ddblas.cpu_threads(threads), _cpu.configure(vectorize=vectorize):
                    ddblas.rgemm(a, b, got[1:151:2, :160:2], **kw)
                assert same_bits(got, ref), (fma, add, alpha, beta, threads)
    assert not np.isfinite(ref.hi).all()  # the special values reached C


def test_cpu_threads_sets_and_restores():
    before = ddblas.get_cpu_threads()
    with ddblas.cpu_threads(1) as setting:
        assert ddblas.get_cpu_threads() == 1 and setting.previous == before
        with ddblas.cpu_threads(2):
            assert ddblas.get_cpu_threads() in (1, 2)  # 1 when built without OpenMP
        assert ddblas.get_cpu_threads() == 1
    assert ddblas.get_cpu_threads() == before
    ddblas.cpu_threads(1)  # the plain setter
    try:
        assert ddblas.get_cpu_threads() == 1
    finally:
        ddblas.cpu_threads(before)


def test_a_cpu_threads_object_entered_again_sets_and_restores():
    """As numpy.errstate, an instance can be entered again or nested: it sets its count on
    entry and gives back the count in force then (it gave back the count of its construction
    and did not set its own again)."""
    before = ddblas.get_cpu_threads()
    one = ddblas.cpu_threads(1)
    try:
        with one:
            assert ddblas.get_cpu_threads() == 1
        ddblas.cpu_threads(2)
        expected = ddblas.get_cpu_threads()   # 2, or 1 without OpenMP
        with one:
            assert ddblas.get_cpu_threads() == 1
            with one:
                assert ddblas.get_cpu_threads() == 1
            assert ddblas.get_cpu_threads() == 1
        assert ddblas.get_cpu_threads() == expected
    finally:
        ddblas.cpu_threads(before)


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2", None])
def test_cpu_threads_rejects_bad_counts(bad):
    with pytest.raises(ValueError, match=r"\bn\b.*thread count.*" + repr(bad).replace(".", r"\.")):
        ddblas.cpu_threads(bad)


def test_configure_is_scoped_and_checked():
    assert _cpu.vectorized()
    with _cpu.configure(vectorize=False):
        assert not _cpu.vectorized()
    assert _cpu.vectorized()
    with pytest.raises(ValueError, match="vectorize"):
        with _cpu.configure(vectorize="no"):
            pass


@pytest.mark.parametrize("vectorize", [True, False], ids=["simd", "scalar"])
def test_madd_ceiling_kernel_counts_its_madds(vectorize, variant):
    b = _cpu.blocking()
    suffix = ("fma_" if variant["fma"] else "nofma_") + variant["add"]
    kernel = getattr(_cpu.library("bench", vectorize), "ddblas_madd_ceiling_cpu_" + suffix)
    sink = ctypes.c_double()
    for threads in (1, 2):
        with ddblas.cpu_threads(threads):
            madds = kernel(ctypes.c_int64(1000), ctypes.byref(sink))
            teams = ddblas.get_cpu_threads()  # 1 when built without OpenMP
        assert madds == 1000 * b["TM"] * b["TN"] * teams
        assert np.isfinite(sink.value) and sink.value > 0
    assert _cpu.madd_ceiling(suffix, seconds=0.01, repeats=1, threads=1,
                             vectorize=vectorize) > 0


def _other_builds():
    builds = [pytest.param(False, None, id="no-openmp")]
    if platform.machine() in ("x86_64", "AMD64"):  # the portable 4 x 4 tile (SSE2 only)
        builds.append(pytest.param(True, "-march=x86-64", id="x86-64-baseline"))
    return builds


@pytest.mark.toolchain
@pytest.mark.parametrize("openmp, march", _other_builds())
def test_other_builds_are_bitwise_equal(tmp_path, monkeypatch, openmp, march):
    """A compiler without OpenMP builds the same kernels (serial), and a processor without
    AVX gets the portable micro-tile: same bits as the naive kernel of the default build."""
    cxx = _cpu.find_compiler()
    flags = tuple(march if march and f == "-march=native" else f
                  for f in _cpu.compile_flags(cxx) if openmp or f != _cpu.OPENMP_FLAG)
    others = {}
    for family in ("gemm", "host"):  # what rgemm "naive"/"blocked" and the thread count use
        out = os.path.join(tmp_path, family + ".so")
        result = _cpu.compile_unit(cxx, flags, _build.unit(family, "cpu"), out)
        assert result.returncode == 0, result.stderr
        others[family] = _cpu.load(out)
    cases = [(70, 90, 66), (37, 300, 35)]  # the second spans two KC panels of every build
    operands = [(random_matrix(m, k, 4), random_matrix(k, n, 5), random_matrix(m, n, 6)) for m, k, n in cases]
    refs = [{v: ddblas.rgemm(a, b, c0.copy(), alpha=3, beta="0.25", fma=v[0], add=v[1],
                             algorithm="naive") for v in VARIANTS} for a, b, c0 in operands]
    # the whole units (every variant) stand in for the per-variant gemm libraries
    monkeypatch.setattr(_cpu, "library",
                        lambda family, vectorize=True, variant=None: others[family])
    if not openmp:
        assert ddblas.get_cpu_threads() == 1
    for (a, b, c0), ref in zip(operands, refs):
        for v in VARIANTS:
            got = ddblas.rgemm(a, b, c0.copy(), alpha=3, beta="0.25", fma=v[0], add=v[1],
                               algorithm="blocked")
            assert same_bits(got, ref[v]), v
