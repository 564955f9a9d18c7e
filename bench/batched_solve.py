"""Batched small solves on the GPU (ddblas.linalg.solve on a stack): the whole call, and the
factor and solve kernels alone, against the in-register DD madd ceiling (bench.gpu_madd_ceiling).

    python3 bench/batched_solve.py [--batch 10000] [--orders 9 19 32 48 64 96 97]

Flops as `python -m ddblas bench linalg` counts them: 2n^3/3 + 2n^2 a system (one right-hand
side). Prints one row per order: seconds of the call (one round trip to the host: Python's
per-call cost included), of the call without the finite checks, of lu_factor and of lu_solve
(the separate kernels of lu_factor and det, of solve from order 49 on, and of the entries'
checks as they load a and b), of solve's kernels (batched.solve: up to order 48 one launch)
captured in a CUDA graph (the GPU's time alone), and DD GFLOP/s and the share of the ceiling of
the call and of the kernels.
"""
from __future__ import annotations

import argparse

import ddblas
from ddblas import linalg
from ddblas.core.options import Options
from ddblas.linalg import batched
from ddblas.tools.bench import gpu_madd_ceiling
from ddblas.tools.timing import time_gpu, time_gpu_graph


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=10000)
    parser.add_argument("--orders", type=int, nargs="+", default=[9, 19, 32, 48, 64, 96, 97])
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    opts = Options()
    ceiling = gpu_madd_ceiling(opts)
    print(f"in-register madd ceiling ({opts.suffix}): {ceiling:.1f} DD GFLOP/s; "
          f"batch {args.batch}")
    print("| n | solve call s | unchecked s | lu_factor s | lu_solve s | kernels s |"
          " DD GFLOP/s (call) | of ceiling | DD GFLOP/s (kernels) | of ceiling |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.orders:
        a = ddblas.random((args.batch, n, n), seed=5, device="gpu") + ddblas.eye(n, device="gpu")
        b = ddblas.random((args.batch, n, 1), seed=6, device="gpu")
        t_call = time_gpu(lambda: linalg.solve(a, b), args.repeat)
        t_unchecked = time_gpu(lambda: linalg.solve(a, b, check_finite=False), args.repeat)
        t_factor = time_gpu(lambda: batched.lu_factor(a, opts), args.repeat)
        f = batched.lu_factor(a, opts)
        t_solve = time_gpu(lambda: batched.lu_solve(f, b, opts), args.repeat)
        summary = batched.new_summary(a.xp)
        t_kernels, how = time_gpu_graph(lambda: batched.solve(a, b, opts, summary),
                                        args.repeat, 20)
        flops = args.batch * (2 * n ** 3 / 3 + 2 * n ** 2)
        rate, kernel_rate = flops / t_call / 1e9, flops / t_kernels / 1e9
        print(f"| {n} | {t_call:.3g} | {t_unchecked:.3g} | {t_factor:.3g} | {t_solve:.3g} | "
              f"{t_kernels:.3g} ({how}) | {rate:.1f} | {rate / ceiling:.1%} | "
              f"{kernel_rate:.1f} | {kernel_rate / ceiling:.1%} |")


if __name__ == "__main__":
    main()
