"""`python -m ddblas bench rgemm`: rgemm throughput against the in-register DD ceiling, cuBLAS
DGEMM and Nakasato's transfer model (GPU), and the CPU twin.

Figures: DD GFLOP/s = 2 M N K / time. GPU kernel-only times use CUDA events (one warm-up, median
of the repeats); transfer-inclusive times are wall clock from NumPy inputs to a NumPy result.
Nakasato's model: T = T_comm + T_kernel with T_comm = bytes / PCIe bandwidth (measured here) and
T_kernel = 2 N^3 / rate; for square N the two balance at N = 24 rate / bandwidth (48 N^2 bytes:
A and B in, C out, 16 bytes per DD).
"""
from __future__ import annotations

import json
import statistics
import time

import numpy as np

from . import _backend
from ._array import DDArray, random
from ._gemm import _default_block, rgemm

VARIANTS = [(True, "accurate"), (True, "sloppy"), (False, "accurate"), (False, "sloppy")]


def _variant_name(fma, add):
    return f"{'fma' if fma else 'nofma'}/{add}"


def _time_gpu(fn, repeat):
    import cupy
    fn()
    times = []
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    return statistics.median(times)


def _time_wall(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def madd_ceiling(fma, add, iters=2048, repeat=5):
    """DD GFLOP/s of register-resident multiply-adds (kernel ddblas_madd_ceiling_*)."""
    import cupy
    from ._options import Options
    be = _backend.backend("gpu")
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    blocks, threads, chains = sms * 16, 256, 8
    seed = cupy.asarray([0.5, 2.0 ** -60, 2.0 ** -30, 2.0 ** -90])
    out = cupy.empty(blocks * threads)
    name = "ddblas_madd_ceiling_" + Options(fma=fma, add=add).suffix
    t = _time_gpu(lambda: be.launch_grid(name, (blocks,), (threads,), iters, seed, out), repeat)
    return 2 * blocks * threads * chains * iters / t / 1e9


def cublas_dgemm(n=8192, repeat=5):
    import cupy
    a, b = cupy.random.rand(n, n), cupy.random.rand(n, n)
    return 2 * n ** 3 / _time_gpu(lambda: a @ b, repeat) / 1e9


def pcie_bandwidth(nbytes=1 << 28):
    """Host-to-device GB/s for a pageable NumPy array (what DDArray.to_device uses)."""
    host = np.ones(nbytes // 8)
    return nbytes / _time_wall(lambda: _backend.move(host, "gpu"), 3) / 1e9


def run(sizes=(1024, 2048, 4096, 8192), ladder_sizes=(1024, 2048), cpu_sizes=(256, 512),
        repeat=3, out=None):
    rows = []
    gpu = _backend.gpu_available()
    summary = {}
    if gpu:
        summary["ceiling"] = {_variant_name(f, a): madd_ceiling(f, a) for f, a in VARIANTS}
        summary["cublas_dgemm_gflops"] = cublas_dgemm()
        summary["pcie_gbs"] = pcie_bandwidth()
        for n in sizes:
            a, b = random((n, n), seed=1, device="gpu"), random((n, n), seed=2, device="gpu")
            at = a.T.copy()
            c = DDArray(a.xp.empty((n, n)), a.xp.empty((n, n)))
            configs = [("blocked", 2), ("blocked", 4)]
            configs += [("tiled", 2), ("naive", 2)] if n in ladder_sizes else []
            for fma, add in VARIANTS:
                for algorithm, block in configs:
                    for trans in ("NN", "TN"):
                        lhs = at if trans == "TN" else a
                        t = _time_gpu(lambda: rgemm(lhs, b, c, transa=trans[0], fma=fma, add=add,
                                                    algorithm=algorithm, block=block), repeat)
                        rate = 2 * n ** 3 / t / 1e9
                        name = algorithm + (f" b={block}" if algorithm == "blocked" else "")
                        rows.append(dict(device="gpu", n=n, variant=_variant_name(fma, add),
                                         algorithm=name, trans=trans, seconds=t, gflops=rate,
                                         ceiling_fraction=rate / summary["ceiling"][
                                             _variant_name(fma, add)]))
        # Transfer-inclusive, from host arrays, with the default kernel and variant.
        for n in sizes:
            ha, hb = random((n, n), seed=1), random((n, n), seed=2)
            default = f"blocked b={_default_block(n, n)}"
            kernel = next(r for r in rows if r["n"] == n and r["algorithm"] == default
                          and r["variant"] == "fma/accurate" and r["trans"] == "NN")
            t = _time_wall(lambda: rgemm(ha.to_device("gpu"), hb.to_device("gpu"))
                           .to_device("cpu"), 1)
            model = 48 * n * n / (summary["pcie_gbs"] * 1e9) + kernel["seconds"]
            rows.append(dict(device="gpu+transfers", n=n, variant="fma/accurate",
                             algorithm=default, trans="NN", seconds=t,
                             gflops=2 * n ** 3 / t / 1e9, model_seconds=model))
        rate = max(r["gflops"] for r in rows if r["device"] == "gpu") * 1e9
        summary["balance_n"] = 24 * rate / (summary["pcie_gbs"] * 1e9)
    for n in cpu_sizes:
        a, b = random((n, n), seed=1), random((n, n), seed=2)
        for fma, add in VARIANTS:
            t = _time_wall(lambda: rgemm(a, b, fma=fma, add=add), repeat)
            rows.append(dict(device="cpu", n=n, variant=_variant_name(fma, add),
                             algorithm="cpu 4x4", trans="NN", seconds=t, gflops=2 * n ** 3 / t / 1e9))
    _print(rows, summary)
    if out:
        with open(out, "w") as f:
            json.dump(dict(summary=summary, rows=rows), f, indent=1)
    return rows, summary


def _print(rows, summary):
    if summary:
        print("in-register DD ceiling (GFLOP/s): " + ", ".join(
            f"{k} {v:.0f}" for k, v in summary["ceiling"].items()))
        print(f"cuBLAS DGEMM n=8192: {summary['cublas_dgemm_gflops']:.0f} GFLOP/s; "
              f"PCIe H2D {summary['pcie_gbs']:.1f} GB/s; transfer/compute balance at "
              f"N = {summary['balance_n']:.0f}")
    print(f"{'device':14} {'n':>5} {'variant':15} {'algorithm':12} {'tr':3} {'GFLOP/s':>9} "
          f"{'ceil%':>6} {'model s':>8} {'s':>8}")
    for r in rows:
        frac = f"{100 * r['ceiling_fraction']:.0f}" if "ceiling_fraction" in r else ""
        model = f"{r['model_seconds']:.3f}" if "model_seconds" in r else ""
        print(f"{r['device']:14} {r['n']:5d} {r['variant']:15} {r['algorithm']:12} {r['trans']:3} "
              f"{r['gflops']:9.1f} {frac:>6} {model:>8} {r['seconds']:8.4f}")
