"""Runs every GPU rgemm kernel once per shape of the issue's grid, for compute-sanitizer:
    compute-sanitizer --tool memcheck  python bench/sanitize_gemm.py
    compute-sanitizer --tool racecheck python bench/sanitize_gemm.py --quick
and checks each result bitwise against the CPU twin."""
import sys

import numpy as np

import ddblas

GRID = [1, 2, 15, 16, 17, 31, 33, 127, 129]
quick = "--quick" in sys.argv
shapes = [(m, GRID[(i + 2) % len(GRID)], GRID[(i + 4) % len(GRID)]) for i, m in enumerate(GRID)]
shapes += [(129, 1, 33), (1, 129, 17), (64, 64, 64)]
if quick:
    shapes = [s for s in shapes if max(s) <= 33]
checked = 0
for m, n, k in shapes:
    for transa, transb in [("N", "N"), ("T", "N"), ("N", "T"), ("T", "T")]:
        a = ddblas.random((m, k) if transa == "N" else (k, m), seed=m)
        b = ddblas.random((k, n) if transb == "N" else (n, k), seed=n)
        for fma, add in [(True, "accurate"), (False, "sloppy")]:
            ref = ddblas.rgemm(a, b, transa=transa, transb=transb, fma=fma, add=add)
            for algorithm, block in [("naive", 2), ("tiled", 2), ("blocked", 2), ("blocked", 4)]:
                got = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), transa=transa,
                                   transb=transb, fma=fma, add=add, algorithm=algorithm,
                                   block=block).to_device("cpu")
                assert np.array_equal(ref.hi, got.hi) and np.array_equal(ref.lo, got.lo), \
                    (m, n, k, transa, transb, fma, add, algorithm, block)
                checked += 1
# The tall-and-skinny kernels, K cut into pieces of 8 (many grid-z blocks and a piece sum).
from ddblas import _tsm  # noqa: E402
_tsm.MIN_PIECE, _tsm.TARGET_BLOCKS, _tsm.WORKSPACE_SHARE = 8, 10 ** 6, 1
for m, n, k in [(129, 1, 33), (1, 129, 17), (200, 3, 50), (33, 17, 100), (5, 32, 9)]:
    for transa, transb in [("N", "N"), ("T", "N"), ("N", "T")]:
        a = ddblas.random((m, k) if transa == "N" else (k, m), seed=m)
        b = ddblas.random((k, n) if transb == "N" else (n, k), seed=n)
        ref = ddblas.rgemm(a, b, transa=transa, transb=transb, algorithm="tsm")
        got = ddblas.rgemm(a.to_device("gpu"), b.to_device("gpu"), transa=transa, transb=transb,
                           algorithm="tsm").to_device("cpu")
        assert np.array_equal(ref.hi, got.hi) and np.array_equal(ref.lo, got.lo), (m, n, k)
        checked += 1
print(f"sanitize_gemm: {checked} GPU rgemm calls over {len(shapes)} shapes, all equal to the CPU")
