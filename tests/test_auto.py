"""rgemm(algorithm="auto"), the default: the decision function on GPU-like inputs (no GPU
needed), the choice on each device, info and the "ddblas" logger's debug message."""
from __future__ import annotations

import logging

import pytest

import ddblas
from conftest import requires_gpu
from ddblas import accuracy
from ddblas.blas import auto as _auto
from ddblas.blas import ozaki as _ozaki
from ddblas.blas import gemm, gemmcall
from ddblas.blas import ozaki2 as _ozaki2
from ddvalues import random_matrix, same_bits

FMA = "fma_accurate"


def _never_planned():
    raise AssertionError("the plan must not be computed here")


def _planned(slices=5, int8_slices=15, fallback=None, int8_fallback=None):
    return lambda: {"fp64": _ozaki.Plan(slices=slices, beta=20, chunk=4096, chunks=1,
                                        fallback=fallback, bound="int8 first digits"),
                    "int8": _ozaki.Plan(slices=int8_slices, beta=7, chunk=133136, chunks=1,
                                        fallback=int8_fallback, engine="int8",
                                        bound="int8 first digits")}


def _cpu_rates(classic: float):
    """CPU rates as gemmcall.cpu_rates measures them (2 cores, about), the classic kernel's
    given."""
    return lambda: _auto.Rates(classic={FMA: classic}, dgemm=100.0, int8=0.1, memory=20.0,
                               fixed=(0.0, 0.0, 0.0), crt_entry=_auto.CPU_CRT_ENTRY_SECONDS)


def _never_measured():
    raise AssertionError("the CPU's rates must not be measured here")


def test_cpu_chooses_by_its_measured_rates():
    """Small CPU products run the classic kernel without planning or measuring; larger ones
    compare the classic kernel with the Ozaki engines at the measured rates: a slow classic
    kernel (2.35 DD GFLOP/s, issue 18's 2-core figure) loses to ozaki-fp64 at N = 1024, a fast
    one (8) wins without a scan."""
    algorithm, reason, plan = _auto.choose("cpu", 512, 512, 512, FMA, _never_planned,
                                           _never_measured)
    assert algorithm == "blocked" and "CPU" in reason and plan is None
    algorithm, reason, plan = _auto.choose("cpu", 1024, 1024, 1024, FMA, _never_planned,
                                           _cpu_rates(8.0))
    assert algorithm == "blocked" and "measured" in reason and plan is None
    algorithm, reason, plan = _auto.choose("cpu", 1024, 1024, 1024, FMA, _planned(6),
                                           _cpu_rates(2.35))
    assert algorithm == "ozaki-fp64" and plan.slices == 6 and "CPU rates" in reason


def test_cpu_rates_are_measured_once():
    """gemmcall.cpu_rates measures positive rates for the variant and caches them."""
    opts = ddblas.Options()
    rates = gemmcall.cpu_rates(opts, gemm.RUNNERS)
    assert rates.classic[opts.suffix] > 0 and rates.dgemm > 0 and rates.memory > 0
    assert gemmcall.cpu_rates(opts, gemm.RUNNERS) is rates


def test_small_gpu_products_skip_the_plan():
    algorithm, reason, plan = _auto.choose("gpu", 1024, 1024, 1023, FMA, _never_planned)
    assert algorithm == "blocked" and plan is None and str(_auto.OZAKI_MIN_WORK) in reason


def test_large_gpu_products_compare_the_estimates():
    """The smallest estimate wins: ozaki-int8 for large products, ozaki-fp64 when int8 needs
    many more slices or falls back, the classic kernel when both need many slices."""
    algorithm, reason, plan = _auto.choose("gpu", 4096, 4096, 4096, FMA, _planned())
    assert algorithm == "ozaki-int8" and plan.slices == 15 and plan.engine == "int8"
    assert "ozaki-fp64" in reason and "S = 5" in reason and "S = 15" in reason
    algorithm, reason, plan = _auto.choose("gpu", 4096, 4096, 4096, FMA, _planned(
        int8_fallback="more than 32 slices needed"))
    assert algorithm == "ozaki-fp64" and plan.slices == 5 and "ozaki-int8 falls back" in reason
    assert _auto.choose("gpu", 4096, 4096, 4096, FMA, _planned(int8_slices=30))[0] == "ozaki-fp64"
    # many slices make both slower than the classic kernel
    assert _auto.choose("gpu", 1536, 1536, 1536, FMA, _planned(16, 32))[0] == "blocked"
    # the variant's rate counts: at N = 1536 ozaki-fp64 beats fma/accurate, not fma/sloppy
    assert _auto.choose("gpu", 1536, 1536, 1536, FMA, _planned())[0] == "ozaki-fp64"
    assert _auto.choose("gpu", 1536, 1536, 1536, "fma_sloppy", _planned())[0] == "blocked"
    algorithm, reason, plan = _auto.choose("gpu", 4096, 4096, 4096, FMA, _planned(
        fallback="non-finite entries", int8_fallback="non-finite entries"))
    assert algorithm == "blocked" and plan is None
    assert "ozaki-fp64 falls back: non-finite" in reason and "ozaki-int8 falls back" in reason


def test_scheme_two_wins_large_products_when_planned():
    """With scheme II planned (L = 32 moduli, full DD data) it is the fastest estimate at
    N = 8192 and 4096, not at N = 1536 with fma/sloppy's classic rate; its fallback is named."""
    def planned(fallback=None):
        plans = _planned()()
        plans["crt"] = _ozaki2.Plan(bits=110, moduli=32, chunk=8192, chunks=1,
                                    fallback=fallback, bound="int8 first digits")
        return lambda: plans
    for n in (4096, 8192):
        algorithm, reason, plan = _auto.choose("gpu", n, n, n, FMA, planned())
        assert algorithm == "ozaki2-int8" and plan.moduli == 32 and "L = 32" in reason
    assert _auto.choose("gpu", 1536, 1536, 1536, "fma_sloppy", planned())[0] == "blocked"
    algorithm, reason, _ = _auto.choose("gpu", 8192, 8192, 8192, FMA, planned("more than 40"))
    assert algorithm == "ozaki-int8" and "ozaki2-int8 falls back: more than 40" in reason


def test_estimates_grow_with_work():
    for estimate in (_auto.ozaki_seconds, _auto.int8_seconds, _auto.crt_seconds):
        assert estimate(2048, 2048, 2048, 6) > estimate(2048, 2048, 2048, 5)
        assert estimate(2048, 2048, 4096, 5) > estimate(2048, 2048, 2048, 5)
        assert estimate(2048, 2048, 2048, 5, "float64") > estimate(2048, 2048, 2048, 5)
    for suffix in _auto.CLASSIC_GPU_GFLOPS:
        assert _auto.classic_seconds(64, 64, 128, suffix) == \
            2 * _auto.classic_seconds(64, 64, 64, suffix)


def test_auto_leaves_tsm_where_its_grid_ends(device):
    """A side longer than the tall-and-skinny kernel's grid takes (tsm_max_rows: 65535 blocks of
    128 rows) runs on the classic kernel: auto chose tsm, whose plan refused it ("use
    algorithm='blocked'"), so a @ b, rgemv and dot of such a column raised a ValueError."""
    rows = _auto.tsm_max_rows()
    assert _auto.choose("cpu", rows, 1, 1, FMA, _never_planned)[0] == "tsm"
    for m, n in ((rows + 1, 1), (1, rows + 1)):
        assert _auto.choose(device, m, n, 1, FMA, _never_planned)[0] == "blocked"
    x = ddblas.array("0.1", device=device)
    column = ddblas.broadcast_to(x.reshape(1, 1), (rows + 1, 1))   # read in place: no copy
    info = {}
    products = [ddblas.rgemm(ddblas.full((1, 1), 2, device), column.T, info=info)]
    assert info["algorithm"] == ("cpu" if device == "cpu" else "blocked")
    if device == "cpu":   # the GPU's classic kernels take at most 65535 blocks of rows of C
        products += [column @ ddblas.full((1, 1), 2, device),
                     ddblas.rgemv(column, ddblas.full((1,), 2, device))]
    for product in products:   # 2 x 0.1 in DD is exact: (2 hi, 2 lo) in every element
        product = product.to_device("cpu")
        assert product.size == rows + 1
        assert (product.hi == 2 * float(x.hi)).all() and (product.lo == 2 * float(x.lo)).all()


def test_default_is_auto_with_info_and_log(device, caplog):
    """Small products: auto runs the device's classic kernel (the same bits as "naive"), says so
    in info and in a debug message."""
    a, b = random_matrix(9, 13, 1, device), random_matrix(13, 6, 2, device)
    info = {}
    with caplog.at_level(logging.DEBUG, logger="ddblas"):
        c = ddblas.rgemm(a, b, info=info)
    assert info["algorithm"] == ("cpu" if device == "cpu" else "blocked") and info["auto"]
    assert same_bits(c, ddblas.rgemm(a, b, algorithm="naive"))
    assert same_bits(a @ b, c) and same_bits(ddblas.matmul(a, b), c)
    messages = [r.getMessage() for r in caplog.records if r.name == "ddblas"]
    assert len(messages) == 1 and "algorithm='auto' chose" in messages[0]
    assert info["algorithm"] in messages[0] and info["auto"] in messages[0]
    with caplog.at_level(logging.DEBUG, logger="ddblas"):
        ddblas.rgemm(a, b, algorithm="blocked")
    assert len([r for r in caplog.records if r.name == "ddblas"]) == 1  # explicit: no message


@requires_gpu
@pytest.mark.gpu
def test_gpu_auto_runs_ozaki_on_large_products():
    """N = 1536 (fma/accurate): the model picks ozaki-fp64 (int8 needs S ~ 17); N = 4096:
    ozaki2-int8. Each result is that algorithm's, bit for bit, and within the bound on sampled
    entries."""
    for n, expected in ((1536, "ozaki-fp64"), (4096, "ozaki2-int8")):
        a = ddblas.random((n, n), seed=1, device="gpu")
        b = ddblas.random((n, n), seed=2, device="gpu")
        info = {}
        c = ddblas.rgemm(a, b, info=info)
        assert info["algorithm"] == expected and "S = " in info["auto"]
        assert info["bound"] == "int8 first digits"
        assert same_bits(c, ddblas.rgemm(a, b, algorithm=expected))
        sample = dict(rows=[0, 700, n - 1], cols=[3, 1000, n - 2])
        assert accuracy.gemm_error(c, a, b, **sample).within(
            accuracy.bound("gemm", ddblas.Options(), n))


def test_cpu_rates_are_measured_once_while_other_threads_wait(monkeypatch):
    """Threads whose first large products came at once each measured the rates, timing each
    other's load (4 threads picked ozaki-fp64 once and the classic kernel three times)."""
    import functools
    import threading
    import time
    calls = []

    @functools.lru_cache(maxsize=None)
    def measure(opts, threads, classic):
        calls.append(threads)
        time.sleep(0.2)
        return "rates"
    monkeypatch.setattr(gemmcall, "_measured_cpu_rates", measure)
    opts = ddblas.Options()
    results = []
    workers = [threading.Thread(target=lambda: results.append(
        gemmcall.cpu_rates(opts, {"blocked": None}))) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert results == ["rates"] * 4 and len(calls) == 1
