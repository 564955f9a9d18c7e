"""Where the overlapped host-operand pipeline spends its time (ddblas/blas/transfer.py): one
rgemm_batched(host a, host b, device="gpu") call of a benchmark shape under cProfile (the host
functions by own time; waits on events show up as time in synchronize), with the pipeline's
info and the model's figures, and, for reference, a first-touch write of a fresh array the size
of C and a copy of the inputs at the host's memory rate.

    python3 bench/profile_transfer.py [--shape 19 32 9] [--batch 100000]
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np

import ddblas
from ddblas import introspect


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", type=int, nargs=3, default=[19, 32, 9])
    parser.add_argument("--batch", type=int, default=100000)
    args = parser.parse_args()
    (m, k, n), batch = args.shape, args.batch
    a = ddblas.random((batch, m, k), seed=1)
    b = ddblas.random((batch, k, n), seed=2)
    ddblas.rgemm_batched(a[:100], b[:100], device="gpu")   # compile, rates(), pools
    info = {}
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    ddblas.rgemm_batched(a, b, device="gpu", info=info)
    profile.disable()
    seconds = time.perf_counter() - start
    print(f"{m}x{k}x{n} batch {batch}: {seconds:.4f} s; transfer info {info['transfer']}")
    pstats.Stats(profile).sort_stats("tottime").print_stats(14)
    t0 = time.perf_counter()
    fresh = np.empty((2, batch, m, n))
    fresh[...] = 1.0
    touch = time.perf_counter() - t0
    t0 = time.perf_counter()
    for x in (a.hi, a.lo, b.hi, b.lo):
        np.copyto(np.empty_like(x), x)
    copy = time.perf_counter() - t0
    inputs = sum(x.nbytes for x in (a.hi, a.lo, b.hi, b.lo))
    print(f"first touch of a fresh C-sized array: {touch:.4f} s "
          f"({fresh.nbytes / touch / 1e9:.1f} GB/s); one-thread copy of the inputs (into fresh "
          f"arrays): {copy:.4f} s ({inputs / copy / 1e9:.1f} GB/s); rates {introspect.transfer_rates()}")


if __name__ == "__main__":
    main()
