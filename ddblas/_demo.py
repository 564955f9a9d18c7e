"""`python -m ddblas demo`: a DD matrix product (rgemm) on the GPU (if present) or the CPU,
checked against mpmath."""
from __future__ import annotations

import time

import mpmath

from . import _backend
from ._array import random
from ._gemm import rgemm

U = 2.0 ** -53


def run(n: int = 512, device: str | None = None, seed: int = 0, samples: int = 16) -> float:
    """Multiply two random n x n DD matrices, check `samples` entries against mpmath at 256 bits,
    print time and error; return the worst error in units of u^2 * (|A||B|)_ij."""
    device = device or _backend.default_device()
    a = random((n, n), seed=seed, device=device)
    b = random((n, n), seed=seed + 1, device=device)
    rgemm(a[:2, :2], b[:2, :2])  # compile / load the kernels outside the timing
    xp = a.xp
    if device == "gpu":
        xp.cuda.runtime.deviceSynchronize()
    start = time.perf_counter()
    c = rgemm(a, b)
    if device == "gpu":
        xp.cuda.runtime.deviceSynchronize()
    seconds = time.perf_counter() - start

    c_host = c.to_device("cpu")
    worst = 0.0
    with mpmath.workprec(256):
        for s in range(samples):  # only the sampled row of A and column of B go to mpmath
            i, j = (s * 7919) % n, (s * 104729 + 3) % n
            row, col = a[i].to_mpmath(), b[:, j].to_mpmath()
            exact = mpmath.fsum(row[k] * col[k] for k in range(n))
            scale = mpmath.fsum(abs(row[k] * col[k]) for k in range(n))
            err = abs(c_host[i, j].to_mpmath() - exact) / scale
            worst = max(worst, float(err / U ** 2))
    print(f"ddblas demo: {n}x{n} DD matrix product on the {device}")
    print(f"  time   {seconds * 1e3:.2f} ms ({2 * n ** 3 / seconds / 1e9:.3f} DD GFLOP/s, rgemm)")
    print(f"  error  {worst:.3g} u^2 * (|A||B|)_ij at worst over {samples} entries checked "
          "against mpmath (256 bits)")
    print(f"  C[0,0] = {c_host[0, 0]}")
    return worst
