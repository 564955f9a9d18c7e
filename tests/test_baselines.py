"""The baseline adapters of `python -m ddblas bench baselines`: each library's product of the
benchmark inputs, scored exactly, is within that library's expected accuracy (so a broken
library or conversion fails here instead of giving a fast number), the inputs are exact in every
format, and a missing library is a skip with a note, never an error.

Expected accuracy (componentwise, relative to |A||B|, units of u^2 = 2^-106; each adapter's
error_bound(k) states its derivation):
- python-flint arb_mat, prec 106: 3 (final sum rounded toward zero, < 2^-105 |c|, plus guard-bit
  truncation); Arb's ball also encloses the exact value (checked on its own)
- xprec ddouble: (6 + 3 (k - 1) / (1 - 4u)) (1 + 2^-40)  ([JMP17] Alg. 11 products, Alg. 6 sums)
- numpy-quaddtype binary128: gamma_k(2^-113), about k / 128
- mpmath, prec 106: 1 (exact dot product, one rounding to nearest)
- gmpy2 mpfr, prec 106: gamma_k(2^-106), about k
- float64 / cuBLAS DGEMM on the hi parts: (gamma_k(u) + 2u + u^2) / (1 - u)^2, about (k + 2) 2^53
- ddblas: accuracy.bound("gemm", k)
"""
from __future__ import annotations

import sys
from fractions import Fraction

import numpy as np
import pytest

import ddblas
from ddblas import accuracy
from ddblas.tools import baselines

from conftest import requires_gpu

ALL = list(baselines.ADAPTERS) + [baselines.DDBlas("cpu"), baselines.DDBlas("gpu")]


@pytest.fixture(params=[pytest.param(ad, id=f"{ad.name}-{ad.engine}",
                                     marks=[pytest.mark.gpu, requires_gpu] * (ad.engine == "gpu"))
                        for ad in ALL])
def adapter(request):
    """Each adapter; pytest.importorskip where its library is missing."""
    pytest.importorskip(request.param.module)
    assert request.param.available(), request.param.skip_reason
    return request.param


def test_bench_inputs_are_106_bit_dyadics():
    a, b = baselines.bench_inputs(40, seed=5)
    for x in (a, b):
        values = accuracy.exact_values(x)
        scaled = [v * 2 ** 106 for v in values]
        assert all(s.denominator == 1 and abs(s.numerator) < 2 ** 106 for s in scaled)
        assert max(abs(s.numerator) for s in scaled).bit_length() == 106  # all bits in use
        assert 0.4 < np.mean(np.asarray(x.hi) < 0) < 0.6
        hi, lo = np.asarray(x.hi), np.asarray(x.lo)
        assert np.all(hi + lo == hi)  # normalized pairs
    again = baselines.bench_inputs(40, seed=5)
    assert all(np.array_equal(x.hi, y.hi) and np.array_equal(x.lo, y.lo)
               for x, y in zip((a, b), again))
    assert not np.array_equal(a.hi, b.hi)
    with pytest.raises(ValueError, match="positive integer"):
        baselines.bench_inputs(0)


@requires_gpu
@pytest.mark.gpu
def test_bench_inputs_are_the_same_on_the_gpu():
    a, b = baselines.bench_inputs(16, seed=2)
    ga, gb = baselines.bench_inputs(16, seed=2, device="gpu")
    assert ga.device == "gpu"
    assert np.array_equal(ga.hi.get(), a.hi) and np.array_equal(gb.lo.get(), b.lo)


def test_inputs_round_trip_exactly(adapter):
    """prepare then to_fractions gives back every input value exactly (float64: the hi parts)."""
    a, b = baselines.bench_inputs(12, seed=7)
    prepared = adapter.prepare(a, b)
    every = list(range(12))
    for x, native in zip((a, b), prepared):
        got = adapter.to_fractions(native, every, every).ravel().tolist()
        want = [Fraction(float(h)) for h in np.asarray(x.to_device("cpu").hi).ravel()] \
            if isinstance(adapter, baselines.Float64) else accuracy.exact_values(x)
        assert got == want


@pytest.mark.parametrize("n", [8, 21])
def test_adapter_is_within_its_expected_accuracy(adapter, n):
    a, b = baselines.bench_inputs(n, seed=n)
    row = baselines.measure(adapter, a, b, repeat=1, error_sample=n)
    assert row["skipped"] is None and row["n"] == n and row["version"]
    assert row["error_bound"] == adapter.error_bound(n)
    assert row["within_bound"] and 0 <= row["error"] <= row["error_bound"], row
    assert row["gflops"] == pytest.approx(2 * n ** 3 / row["seconds"] / 1e9)
    # the score is the exact one, on every entry
    c = adapter.multiply(adapter.prepare(a, b))
    every = list(range(n))
    assert accuracy.gemm_error(adapter.to_fractions(c, every, every), a, b).max == row["error"]


def test_float64_baselines_err_like_float64():
    """float64 is what it says: its error is near u relative to |A||B|, far above u^2."""
    a, b = baselines.bench_inputs(20, seed=3)
    row = baselines.measure(baselines.Float64(), a, b, repeat=1)
    assert 2.0 ** 48 < row["error"] <= row["error_bound"] < 23 * 2.0 ** 53


def test_the_bounds_are_the_stated_ones():
    k, u = 100, Fraction(1, 2 ** 53)
    assert baselines.Mpmath().error_bound(k) == 1.0
    assert baselines.Flint().error_bound(k) == 3.0
    assert 6 + 3 * 99 < baselines.Xprec().error_bound(k) < 6 + 3 * 99 + 1e-6
    assert k / 128 < baselines.QuadDType().error_bound(k) < k / 128 * (1 + 1e-15)
    assert k < baselines.Gmpy2().error_bound(k) < k * (1 + 1e-15)
    hi_bound = baselines.Float64().error_bound(k)
    assert Fraction(hi_bound) >= (k * u / (1 - k * u) + 2 * u + u * u) / (1 - u) ** 2 / u ** 2
    assert hi_bound < (k + 2.01) * 2.0 ** 53
    assert baselines.CublasDgemm().error_bound(k) == hi_bound
    assert baselines.DDBlas().error_bound(k) == accuracy.bound("gemm", None, k)


def test_arb_encloses_the_exact_product():
    flint = pytest.importorskip("flint")
    a, b = baselines.bench_inputs(12, seed=11)
    fl = baselines.Flint()
    c = fl.multiply(fl.prepare(a, b))
    ma, ea = accuracy._integer_matrix(a)
    mb, eb = accuracy._integer_matrix(b)
    exact = ma.dot(mb)
    for i in range(12):
        for j in range(12):
            mid = fl.to_fractions(c, [i], [j])[0, 0]
            r, e = c[i, j].rad().man_exp()
            radius = Fraction(int(r)) * Fraction(2) ** int(e)
            assert 0 < abs(mid - exact[i, j] * Fraction(2) ** (ea + eb)) <= radius
    assert isinstance(c, flint.arb_mat)


def test_library_contexts_are_restored():
    flint = pytest.importorskip("flint")
    gmpy2 = pytest.importorskip("gmpy2")
    a, b = baselines.bench_inputs(4, seed=1)
    prec, threads, mpfr_prec = flint.ctx.prec, flint.ctx.threads, gmpy2.get_context().precision
    for adapter in (baselines.Flint(), baselines.Gmpy2()):
        c = adapter.multiply(adapter.prepare(a, b))
    assert c[0, 0].precision == baselines.PREC
    assert (flint.ctx.prec, flint.ctx.threads, gmpy2.get_context().precision) == \
        (prec, threads, mpfr_prec)


def test_a_missing_library_is_a_skip_not_an_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "flint", None)  # makes `import flint` fail
    fl = baselines.Flint()
    assert not fl.available()
    assert fl.skip_reason == ("python-flint not installed (pip install 'ddblas[bench]', or "
                              "'.[bench]' in a source checkout)")
    a, b = baselines.bench_inputs(4, seed=0)
    row = baselines.measure(fl, a, b)
    assert row["skipped"] == fl.skip_reason
    assert row["seconds"] is row["gflops"] is row["error"] is row["version"] is None


def test_a_broken_library_is_a_skip_too(monkeypatch):
    def broken(self):
        raise OSError("libquadmath.so: cannot open shared object file")
    monkeypatch.setattr(baselines.QuadDType, "_library", broken)
    reason = baselines.QuadDType().skip_reason
    assert reason.startswith("numpy-quaddtype does not import: OSError: libquadmath.so")


def test_no_gpu_is_a_skip(monkeypatch):
    monkeypatch.setattr(ddblas, "gpu_available", lambda: False)
    assert baselines.CublasDgemm().skip_reason == "no GPU (needs CuPy and a CUDA device)"
    assert not baselines.DDBlas("gpu").available() and baselines.DDBlas("cpu").available()


def test_sizes_above_max_n_are_skipped():
    a, b = baselines.bench_inputs(baselines.Mpmath.max_n + 1, seed=0)
    row = baselines.measure(baselines.Mpmath(), a, b)
    assert row["skipped"] == "N = 129 is above its max_n = 128 (too slow)" and row["error"] is None
    with pytest.raises(ValueError, match="two n x n matrices"):
        baselines.measure(baselines.Mpmath(), a, b[:3])


def test_every_adapter_has_the_interface():
    names = [ad.name for ad in baselines.ADAPTERS]
    assert len(set(names)) == len(names) and {ad.engine for ad in ALL} == {"cpu", "gpu"}
    for ad in ALL:
        assert ad.note and ad.module and ad.package
        assert ad.max_n is None or ad.max_n >= 128
        assert isinstance(ad.available(), bool)
        assert (ad.skip_reason is None) == ad.available()
