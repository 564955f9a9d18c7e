"""Throughput of the elementwise DD kernels on the CPU and (if present) the GPU.

    python bench/elementwise.py [--n N] [--repeat R]

Each op reads two DD arrays and writes one (48 bytes per element, 32 for the unary ones: sqrt and
the trigonometric functions, whose inputs are in [0.5, 1.5), arcsin and arccos's in [0, 1)); the table gives
millions of DD results per second and the effective memory bandwidth, next to the bandwidth of a
plain device-to-device copy of 1 GiB (bytes read + written) as the memory ceiling. GPU times use
CUDA events after a warm-up, CPU times the wall clock; both report the median of the repeats.
"""
from __future__ import annotations

import argparse

import ddblas
from ddblas.tools.timing import time_on

OPS = {"add": (ddblas.add, 2), "mul": (ddblas.multiply, 2), "div": (ddblas.divide, 2),
       "sqrt": (ddblas.sqrt, 1), "sin": (ddblas.sin, 1), "cos": (ddblas.cos, 1),
       "tan": (ddblas.tan, 1), "arcsin": (ddblas.arcsin, 1), "arccos": (ddblas.arccos, 1),
       "arctan": (ddblas.arctan, 1), "arctan2": (ddblas.arctan2, 2), "hypot": (ddblas.hypot, 2)}
UNIT_INTERVAL = ("arcsin", "arccos")  # defined on [-1, 1]: their inputs are shifted into [0, 1)
VARIANTS = [(f, a) for f in (True, False) for a in ("accurate", "sloppy")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 24)
    parser.add_argument("--cpu-n", type=int, default=1 << 20)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    devices = ["cpu"] + (["gpu"] if ddblas.gpu_available() else [])
    rows = []
    for device in devices:
        n = args.n if device == "gpu" else args.cpu_n
        a = ddblas.random((n,), seed=1, device=device) + 0.5
        b = ddblas.random((n,), seed=2, device=device) + 0.5
        for name, (fn, arity) in OPS.items():
            args_in = (a - 0.5, b - 0.5) if name in UNIT_INTERVAL else (a, b)
            for fma, add in VARIANTS:
                t = time_on(device, lambda: fn(*args_in[:arity], fma=fma, add=add), args.repeat)
                nbytes = 16 * (arity + 1) * n
                rows.append((device, name, f"{'fma' if fma else 'nofma'}/{add}", n,
                             n / t / 1e6, nbytes / t / 1e9))
    if "gpu" in devices:
        import cupy
        src = cupy.ones(1 << 27)  # 1 GiB of float64
        dst = cupy.empty_like(src)
        t = time_on("gpu", lambda: dst.__setitem__(Ellipsis, src), args.repeat)
        print(f"gpu copy ceiling: {2 * src.nbytes / t / 1e9:.1f} GB/s (1 GiB read + 1 GiB written)")
    print(f"{'device':6} {'op':7} {'variant':15} {'n':>9} {'Mresult/s':>10} {'GB/s':>8}")
    for device, name, variant, n, rate, bw in rows:
        print(f"{device:6} {name:7} {variant:15} {n:9d} {rate:10.1f} {bw:8.1f}")


if __name__ == "__main__":
    main()
