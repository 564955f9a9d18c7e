"""CPU rgemm figures: `python bench/cpu_rgemm.py [--sizes 256 512 1024] [--json out.json]`.

DD GFLOP/s (2 N^3 / t, wall clock, median of --repeats runs after a warm-up, runs disturbed by
other processes left out: see median_time) of the CPU rgemm for
each variant at 1 and all threads, vectorised and not; the madd ceiling of each (1 and all
threads, vectorised and not) and rgemm's fraction of it; python-flint arb_mat (prec 106, exact
106-bit inputs) and xprec ddouble matmul at --compare-size if installed; the compile time of the
two CPU libraries (in a fresh cache folder). The machine should be otherwise idle: the load
average before and after is printed.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

import numpy as np

VARIANTS = [(True, "accurate"), (True, "sloppy"), (False, "accurate"), (False, "sloppy")]


def median_time(fn, repeats: int, threads: int = 1) -> float:
    """Median wall time of `repeats` runs after a warm-up, counting only runs that had the
    machine to themselves: process CPU time >= 90% of wall time x threads (other processes
    sharing the cores show up as a lower ratio). Up to 5 x repeats tries; then the fastest
    `repeats` runs are used and a warning is printed."""
    fn()
    clean, tries = [], []
    for _ in range(5 * repeats):
        cpu, start = time.process_time(), time.perf_counter()
        fn()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        tries.append(wall)
        if cpu >= 0.9 * wall * threads:
            clean.append(wall)
            if len(clean) == repeats:
                return statistics.median(clean)
    print(f"  (warning: only {len(clean)} of {len(tries)} runs without other load)")
    return statistics.median(sorted(tries)[:repeats])


def undisturbed(fn, threads: int, tries: int = 5):
    """fn()'s result from a call with process CPU time >= 90% of wall time x threads (else the
    last of `tries` calls, with a warning)."""
    for _ in range(tries):
        cpu, start = time.process_time(), time.perf_counter()
        value = fn()
        if time.process_time() - cpu >= 0.9 * (time.perf_counter() - start) * threads:
            return value
    print("  (warning: every call shared the cores with other processes)")
    return value


def compile_seconds() -> dict:
    os.environ["DDBLAS_CACHE_DIR"] = tempfile.mkdtemp(prefix="ddblas-bench-cache-")
    from ddblas import _cpu
    out = {}
    for vectorize in (True, False):
        start = time.perf_counter()
        _cpu.library(vectorize)
        out["vectorised" if vectorize else "scalar"] = time.perf_counter() - start
    return out


def flint_seconds(hi: np.ndarray, lo: np.ndarray, repeats: int) -> float | None:
    try:
        import flint
    except ImportError:
        return None
    flint.ctx.prec = 106
    n = hi.shape[0]
    m = flint.arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            m[i, j] = flint.arb(float(hi[i, j])) + flint.arb(float(lo[i, j]))  # exact
    return median_time(lambda: m * m, repeats)


def xprec_seconds(x: np.ndarray, repeats: int) -> float | None:
    try:
        import xprec
    except ImportError:
        return None
    d = x.astype(xprec.ddouble)
    return median_time(lambda: d @ d, repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024])
    parser.add_argument("--compare-size", type=int, default=512)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    result = {"load_before": os.getloadavg(), "compile_s": compile_seconds()}
    import ddblas
    from ddblas import _cpu
    all_threads = ddblas.get_cpu_threads()
    threads = sorted({1, all_threads})
    result.update(threads=threads, blocking=_cpu.blocking(), rgemm=[], ceiling=[])
    print(f"compile: {result['compile_s']}; blocking {result['blocking']}; threads {threads}")
    for fma, add in VARIANTS:
        for vectorize in (True, False):
            for t in threads:
                ceiling = undisturbed(
                    lambda: _cpu.madd_ceiling(fma, add, threads=t, vectorize=vectorize), t)
                result["ceiling"].append(dict(fma=fma, add=add, vectorize=vectorize, threads=t,
                                              gflops=ceiling))
                print(f"ceiling fma={fma} {add} vec={vectorize} threads={t}: {ceiling:.2f}",
                      flush=True)
    for n in args.sizes:
        a, b = ddblas.random((n, n), seed=1), ddblas.random((n, n), seed=2)
        for fma, add in VARIANTS:
            for vectorize in (True, False):
                for t in threads:
                    with ddblas.cpu_threads(t), _cpu.configure(vectorize=vectorize):
                        s = median_time(lambda: ddblas.rgemm(a, b, fma=fma, add=add),
                                        args.repeats, t)
                    result["rgemm"].append(dict(n=n, fma=fma, add=add, vectorize=vectorize,
                                                threads=t, seconds=s, gflops=2 * n**3 / s / 1e9))
                    print(f"rgemm N={n} fma={fma} {add} vec={vectorize} threads={t}: {s:.4f} s "
                          f"{2 * n**3 / s / 1e9:.2f} GFLOP/s", flush=True)
    n = args.compare_size
    x = ddblas.random((n, n), seed=3)
    result["flint_s"] = flint_seconds(x.hi, x.lo, args.repeats)
    result["xprec_s"] = xprec_seconds(x.hi, args.repeats)
    with ddblas.cpu_threads(all_threads):
        result["ddblas_s"] = median_time(lambda: x @ x, args.repeats, all_threads)
    print(f"N={n}: ddblas {result['ddblas_s']:.4f} s, flint {result['flint_s']}, "
          f"xprec {result['xprec_s']}")
    result["load_after"] = os.getloadavg()
    print(f"load average before {result['load_before']}, after {result['load_after']}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
