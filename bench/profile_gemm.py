"""One rgemm call per arithmetic variant on the GPU, for Nsight Compute and the SASS census:
    ncu --kernel-name regex:ddblas_gemm_b ... python bench/profile_gemm.py [--n 4096] [--block 4]
Prints the kernel time of each call (a warm-up call precedes it)."""
import argparse

import ddblas
from ddblas.tools.timing import time_gpu

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--n", type=int, default=4096)
parser.add_argument("--block", type=int, default=4)
parser.add_argument("--variants", nargs="+", default=["fma/sloppy", "fma/accurate"])
args = parser.parse_args()
a = ddblas.random((args.n, args.n), seed=1, device="gpu")
b = ddblas.random((args.n, args.n), seed=2, device="gpu")
for name in args.variants:
    fma, add = name.split("/")
    options = dict(algorithm="blocked", fma=fma == "fma", add=add, block=args.block)
    seconds = time_gpu(lambda: ddblas.rgemm(a, b, **options), 1)  # a warm-up, then one call
    print(f"{name} b={args.block} n={args.n}: {2 * args.n ** 3 / seconds / 1e9:.0f} GFLOP/s")
