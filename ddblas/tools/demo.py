"""`python -m ddblas demo`: a DD matrix product (rgemm) and a DD linear solve
(ddblas.linalg.solve) on the GPU (if present) or the CPU, both checked exactly (ddblas.accuracy)."""
from __future__ import annotations

import time

import ddblas
from ddblas import introspect, random, rgemm
from ddblas.accuracy import gemm_error, solve_backward_error


SOLVE_ORDER = 200   # the demo's system: refined to bound('refine', k=n) = max(n, 16) u^2


def run(n: int = 512, device: str | None = None, seed: int = 0,
        samples: int = 16) -> tuple[float, float]:
    """Multiply two random n x n DD matrices, check a samples x samples grid of entries exactly,
    print time and error, then solve (below); return (the product's worst error in units of
    u^2 * (|A||B|)_ij, the solve's backward error in units of u^2)."""
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

    rows, cols = sample_indices(n, samples, 7919, 0), sample_indices(n, samples, 104729, 3)
    worst = gemm_error(c, a, b, rows=rows, cols=cols).max  # exact, in units of u^2
    c_host = c[:1, :1].to_device("cpu")
    print(f"ddblas demo: {n}x{n} DD matrix product on the {device}")
    print(f"  time   {seconds * 1e3:.2f} ms ({2 * n ** 3 / seconds / 1e9:.3f} DD GFLOP/s, rgemm, "
          f"algorithm {info['algorithm']!r})")
    print(f"  error  {worst:.3g} u^2 * (|A||B|)_ij at worst over {len(rows)}x{len(cols)} "
          "entries checked exactly (ddblas.accuracy.gemm_error)")
    print(f"  C[0,0] = {c_host[0, 0]}")
    return worst, solve(device=device, seed=seed)


def sample_indices(n: int, samples: int, stride: int, start: int) -> list[int]:
    """min(samples, n) distinct indices of 0..n-1 spread over the range: (start + s * stride)
    mod n for s = 0, 1, ... with the prime `stride`, or where n is a multiple of it the prime
    1000003, which no such n up to the demo's 2^20 is (for n < samples the indices repeated,
    and n = 7919 checked row 0 sixteen times, while the demo reported samples x samples
    entries)."""
    step = stride if n % stride else 1000003
    return [(start + s * step) % n for s in range(min(samples, n))]


def solve(n: int = SOLVE_ORDER, device: str | None = None, seed: int = 0) -> float:
    """Solve one random n x n DD system with ddblas.linalg.solve, print the time, what ran and
    the normwise backward error from the exact residual; return that error in units of u^2."""
    device = device or introspect.default_device()
    a = random((n, n), seed=seed + 2, device=device) * 2 - 1
    b = random((n,), seed=seed + 3, device=device)
    ddblas.linalg.solve(a, b)  # untimed: compiles / loads the kernels and the float64 solver
    start = time.perf_counter()
    info = {}
    x = ddblas.linalg.solve(a, b, info=info)
    x.to_device("cpu")  # waits for the device
    seconds = time.perf_counter() - start
    eta = solve_backward_error(a, x, b)  # exact rational residual b - A x
    print(f"ddblas demo: x = ddblas.linalg.solve(A, b), A {n}x{n} DD on the {device}")
    print(f"  time   {seconds * 1e3:.2f} ms ({info['method']}, {info['iterations']} refinement "
          f"steps)")
    print(f"  error  {eta:.3g} u^2: normwise backward error ||b - A x|| / (||A|| ||x|| + ||b||) "
          f"from the exact residual (ddblas.accuracy.solve_backward_error)")
    return eta
