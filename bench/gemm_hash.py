"""A SHA-256 of rgemm / rgemm_batched outputs over a fixed set of shapes, transposes, variants and
algorithms: structural changes must leave it unchanged (bit for bit the same results).

python bench/gemm_hash.py [cpu|gpu]   prints one line per algorithm and the overall hash.
Uses public names only, so it runs at any commit since rgemm_batched and ozaki-int8 exist.
"""
import hashlib
import sys

import numpy as np

import ddblas

SHAPES = [(1, 1, 1), (7, 5, 3), (33, 17, 65), (64, 64, 64), (130, 9, 257), (5, 200, 300),
          (96, 80, 1100)]
VARIANTS = [(True, "accurate"), (True, "sloppy"), (False, "accurate"), (False, "sloppy")]
ALGORITHMS = ["naive", "blocked", "tsm", "ozaki-fp64", "ozaki-int8", "auto"]


def operands(m, n, k, ta, tb, seed, device):
    a = ddblas.random((k, m) if ta == "T" else (m, k), seed=seed, device=device)
    b = ddblas.random((n, k) if tb == "T" else (k, n), seed=seed + 1, device=device)
    scale = ddblas.random((1,), seed=seed + 2, device=device)
    return a * 3 - 1, b * scale - 0.5


def digest(h, x):
    x = x.to_device("cpu")
    h.update(np.ascontiguousarray(x.hi).tobytes())
    h.update(np.ascontiguousarray(x.lo).tobytes())


def main(device):
    total = hashlib.sha256()
    for algorithm in ALGORITHMS:
        h = hashlib.sha256()
        seed = 10
        for m, n, k in SHAPES:
            for ta, tb in (("N", "N"), ("T", "N"), ("N", "T")):
                for fma, add in VARIANTS:
                    seed += 3
                    a, b = operands(m, n, k, ta, tb, seed, device)
                    c0 = ddblas.random((m, n), seed=seed + 5, device=device)
                    c = ddblas.rgemm(a, b, c0.copy(), alpha="0.3", beta="-1.25", transa=ta,
                                     transb=tb, fma=fma, add=add, algorithm=algorithm)
                    digest(h, c)
        print(f"{algorithm:12s} {h.hexdigest()[:16]}")
        total.update(h.digest())
    h = hashlib.sha256()
    for fma, add in VARIANTS:
        a = ddblas.random((50, 7, 9), seed=1, device=device)
        b = ddblas.random((9, 5), seed=2, device=device)
        digest(h, ddblas.rgemm_batched(a, b, fma=fma, add=add))
    print(f"{'batched':12s} {h.hexdigest()[:16]}")
    total.update(h.digest())
    print(f"{'all':12s} {total.hexdigest()[:16]}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "cpu")
