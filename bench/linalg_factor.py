"""DD lu_factor, cholesky and qr speed on the GPU: DD GFLOP/s with 2n^3/3 (getrf), n^3/3 (potrf)
and 2mn^2 - 2n^3/3 = 4n^3/3 (geqrf, at n <= --qr-max = 8192: 7 s there on an H100)
flops, CUDA-event-free wall time after a warm-up at n = 1024 (which compiles the kernels).

    python bench/linalg_factor.py [n ...]      (default 4096 8192 16384; about 2 minutes on an
                                               H100; --algorithm blocked forces the classic rgemm)
"""
from __future__ import annotations

import argparse
import time

import ddblas
from ddblas import linalg


def timed(f) -> float:
    import cupy
    cupy.cuda.Device().synchronize()
    start = time.perf_counter()
    f()
    cupy.cuda.Device().synchronize()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[4096, 8192, 16384])
    parser.add_argument("--algorithm", default="auto")
    parser.add_argument("--qr-max", type=int, default=8192)
    args = parser.parse_args()
    for n in [1024] + args.sizes:
        a = ddblas.random((n, n), seed=1, device="gpu") - 0.5
        spd = ddblas.rgemm(a, a.T, algorithm=args.algorithm) + ddblas.eye(n, device="gpu") * n
        t_lu = timed(lambda: linalg.lu_factor(a, algorithm=args.algorithm))
        t_chol = timed(lambda: linalg.cholesky(spd, lower=True, algorithm=args.algorithm))
        print(f"n = {n:6d}  lu_factor {t_lu:8.3f} s {2 * n ** 3 / 3 / t_lu / 1e9:8.1f} GFLOP/s"
              f"   cholesky {t_chol:8.3f} s {n ** 3 / 3 / t_chol / 1e9:8.1f} GFLOP/s"
              + ("   (warm-up)" if n == 1024 else ""), flush=True)
        if n <= args.qr_max:
            t_qr = timed(lambda: linalg.qr(a, mode="r", algorithm=args.algorithm))
            rate = 4 * n ** 3 / 3 / t_qr / 1e9
            print(f"n = {n:6d}  qr (geqrf) {t_qr:8.3f} s {rate:8.1f} GFLOP/s", flush=True)


if __name__ == "__main__":
    main()
