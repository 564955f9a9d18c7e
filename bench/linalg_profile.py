"""Where the DD factorizations spend their time on the GPU: lu_factor and cholesky at order n
under cProfile with CUDA_LAUNCH_BLOCKING=1, so that each kernel's time is charged to the Python
call that launched it (the blocking costs a little; the totals are printed beside the unprofiled
times).

    python bench/linalg_profile.py [--n 16384] [--top 25] [--only lu_factor|cholesky]
"""
import argparse
import cProfile
import os
import pstats
import time

os.environ["CUDA_LAUNCH_BLOCKING"] = "1"

import cupy  # noqa: E402

import ddblas  # noqa: E402
from ddblas import linalg  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=16384)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--only", choices=("lu_factor", "cholesky"), default=None)
    args = parser.parse_args()
    n = args.n
    a = ddblas.random((n, n), seed=1, device="gpu")
    spd = ddblas.rgemm(a, a, transb="T") + ddblas.eye(n, device="gpu") * n
    linalg.lu_factor(a[:512, :512])
    linalg.cholesky(spd[:512, :512], lower=True)  # kernels built
    for name, call, flops in (("lu_factor", lambda: linalg.lu_factor(a), 2 * n ** 3 / 3),
                              ("cholesky", lambda: linalg.cholesky(spd, lower=True), n ** 3 / 3)):
        if args.only not in (None, name):
            continue
        cupy.cuda.Device().synchronize()
        start = time.perf_counter()
        profile = cProfile.Profile()
        profile.runcall(call)
        cupy.cuda.Device().synchronize()
        seconds = time.perf_counter() - start
        print(f"\n== {name} n={n}: {seconds:.3f} s profiled, {flops / seconds / 1e9:.0f} DD "
              f"GFLOP/s")
        stats = pstats.Stats(profile)
        stats.sort_stats("tottime").print_stats(args.top)
        stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
