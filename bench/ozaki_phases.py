"""Where the Ozaki schemes' time goes (issue 7's "profile evidence", issue 18's scheme II): for
each N and algorithm, the end-to-end time (CUDA events, best of `--repeat`), the DD GFLOP/s, the
error of 8 x 8 sampled entries checked exactly (u^2 (|A||B|)_ij, A and B uniform in [-1, 1)
with all 106 bits random), the plan's size (S slices or L moduli) and the phases rgemm's info
reports (measured in a separate call, which synchronizes the GPU between phases).

    python3 bench/ozaki_phases.py [--sizes 4096 8192] [--repeat 3] [--algorithms ...]
"""
from __future__ import annotations

import argparse

import ddblas
from ddblas import accuracy
from ddblas.tools import timing

SAMPLES = 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4096, 8192])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--algorithms", nargs="+",
                        default=["blocked", "ozaki-fp64", "ozaki-int8", "ozaki2-int8"])
    args = parser.parse_args()
    print("| N | algorithm | S / L | s | DD GFLOP/s | error u² | phases |")
    print("|---|---|---|---|---|---|---|")
    for n in args.sizes:
        a = ddblas.random((n, n), seed=1, device="gpu") * 2 - 1
        b = ddblas.random((n, n), seed=2, device="gpu") * 2 - 1
        picks = list(range(0, n, max(1, n // SAMPLES)))[:SAMPLES]
        for algorithm in args.algorithms:
            seconds = timing.time_on("gpu", lambda: ddblas.rgemm(a, b, algorithm=algorithm),
                                     args.repeat)
            info = {}
            c = ddblas.rgemm(a, b, algorithm=algorithm, info=info)
            error = accuracy.gemm_error(c, a, b, rows=picks, cols=picks).max
            del c
            size = f"S = {info['slices']}" if "slices" in info else \
                f"L = {info['moduli']}, a = {info['bits']}" if "moduli" in info else ""
            phases = ", ".join(f"{p} {t * 1e3:.1f} ms" for p, t in info.get("seconds", {}).items())
            print(f"| {n} | {info['algorithm']} | {size} | {seconds:.4f} | "
                  f"{timing.gflops(n, seconds):.0f} | {error:.3g} | {phases} |", flush=True)


if __name__ == "__main__":
    main()
