"""`python -m ddblas demo`: a DD matrix product (rgemm) on the GPU (if present) or the CPU,
checked exactly (ddblas.accuracy)."""
from __future__ import annotations

import time

from ddblas import introspect, random, rgemm
from ddblas.accuracy import gemm_error


def run(n: int = 512, device: str | None = None, seed: int = 0, samples: int = 16) -> float:
    """Multiply two random n x n DD matrices, check a samples x samples grid of entries exactly,
    print time and error; return the worst error in units of u^2 * (|A||B|)_ij."""
    device = device or introspect.default_device()
    a = random((n, n), seed=seed, device=device)
    b = random((n, n), seed=seed + 1, device=device)
    rgemm(a, b)  # untimed: compiles / loads the kernels (and cuBLAS, if auto plans ozaki-fp64)
    xp = a.xp
    if device == "gpu":
        xp.cuda.runtime.deviceSynchronize()
    start = time.perf_counter()
    info = {}
    c = rgemm(a, b, info=info)  # algorithm="auto": info says which one ran
    if device == "gpu":
        xp.cuda.runtime.deviceSynchronize()
    seconds = time.perf_counter() - start

    rows = [(s * 7919) % n for s in range(samples)]
    cols = [(s * 104729 + 3) % n for s in range(samples)]
    worst = gemm_error(c, a, b, rows=rows, cols=cols).max  # exact, in units of u^2
    c_host = c[:1, :1].to_device("cpu")
    print(f"ddblas demo: {n}x{n} DD matrix product on the {device}")
    print(f"  time   {seconds * 1e3:.2f} ms ({2 * n ** 3 / seconds / 1e9:.3f} DD GFLOP/s, rgemm, "
          f"algorithm {info['algorithm']!r})")
    print(f"  error  {worst:.3g} u^2 * (|A||B|)_ij at worst over {samples}x{samples} entries "
          "checked exactly (ddblas.accuracy.gemm_error)")
    print(f"  C[0,0] = {c_host[0, 0]}")
    return worst
