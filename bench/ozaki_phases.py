"""Where ozaki-fp64's and ozaki-int8's time goes (issue 7's "profile evidence"): for each N, the
end-to-end time (CUDA events, best of `--repeat`) and the phases rgemm's info reports (plan =
the scan and S, slice, gemm, accumulate; measured in a separate call, which synchronizes the
GPU between phases), S, the scan's bound and the DD GFLOP/s.

    python3 bench/ozaki_phases.py [--sizes 4096 8192] [--repeat 3]
"""
from __future__ import annotations

import argparse

import ddblas
from ddblas.tools import timing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[4096, 8192])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--algorithms", nargs="+", default=["ozaki-fp64", "ozaki-int8"])
    args = parser.parse_args()
    print("| N | algorithm | S | bound | s | GFLOP/s | plan | slice | gemm | accumulate |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in args.sizes:
        a = ddblas.random((n, n), seed=1, device="gpu")
        b = ddblas.random((n, n), seed=2, device="gpu")
        for algorithm in args.algorithms:
            seconds = timing.time_on("gpu", lambda: ddblas.rgemm(a, b, algorithm=algorithm),
                                     args.repeat)
            info = {}
            ddblas.rgemm(a, b, algorithm=algorithm, info=info)
            phases = " | ".join(f"{info['seconds'].get(p, 0.0) * 1e3:.1f} ms"
                                for p in ("plan", "slice", "gemm", "accumulate"))
            print(f"| {n} | {info['algorithm']} | {info.get('slices')} | {info.get('bound')} | "
                  f"{seconds:.4f} | {timing.gflops(n, seconds):.0f} | {phases} |", flush=True)


if __name__ == "__main__":
    main()
