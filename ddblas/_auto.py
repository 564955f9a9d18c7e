"""rgemm(algorithm="auto"): the classic kernel or ozaki-fp64, by a cost model of measured rates.

Both algorithms meet the same documented bound, so the choice is about time only. The rates are
the H100 figures of docs/performance.md (section "H100 and its host CPU", 2026-11-22); they are
constants, not measured at import. The model (docs/ozaki.md, "algorithm='auto'"):
- CPU: the classic kernel (measured faster than ozaki-fp64 at N = 256..1024 on 2 and 16 cores);
- GPU, M*N*K < OZAKI_MIN_WORK: the classic kernel, without planning (ozaki-fp64's fixed cost,
  ~1.7 ms, is about the classic kernel's whole time at N = 1024, 2.2 ms, and more below);
- GPU, larger: ozaki-fp64's plan (one float64 GEMM) gives S; ozaki-fp64 runs when its estimate
  beats the classic kernel's, else (and when the plan falls back) the classic kernel.
"""
from __future__ import annotations

from collections.abc import Callable

from . import _tsm

# classic kernel, GPU, GFLOP/s by variant: "blocked b=4", NN, N = 8192
CLASSIC_GPU_GFLOPS = {"fma_accurate": 1080.7, "fma_sloppy": 1923.3, "nofma_accurate": 859.4,
                      "nofma_sloppy": 1239.9}
FP64_GEMM_GFLOPS = 58127.0      # cuBLAS DGEMM, N = 8192
MEMORY_GBS = 2875.1             # the memory ceiling (1 GiB read + 1 GiB written)
OZAKI_FIXED_SECONDS = 1.7e-3    # ozaki-fp64 at N = 256 and 512 (1.9, 1.7 ms; its GEMMs < 0.1 ms)
OZAKI_MIN_WORK = 1024 ** 3      # M*N*K below which the GPU never plans ozaki-fp64


def classic_seconds(m: int, n: int, k: int, suffix: str) -> float:
    """The classic GPU kernel's estimated time: 2MNK flops at the variant's measured rate."""
    return 2 * m * n * k / (CLASSIC_GPU_GFLOPS[suffix] * 1e9)


def ozaki_seconds(m: int, n: int, k: int, slices: int) -> float:
    """ozaki-fp64's estimated time with S slices: the fixed cost, the bound GEMM and the
    S(S+1)/2 slice products over all of K at the DGEMM rate, and its memory passes (docs/ozaki.md
    "Cost and memory": slicing reads op(A), op(B) and writes S digits; S passes over C read the
    products and the DD accumulator and write it) at the memory ceiling."""
    products = slices * (slices + 1) // 2
    flops = 2 * m * n * k * (1 + products)
    traffic = (16 + 8 * slices) * (m * k + k * n) + (8 * products + 32 * slices) * m * n
    return OZAKI_FIXED_SECONDS + flops / (FP64_GEMM_GFLOPS * 1e9) + traffic / (MEMORY_GBS * 1e9)


def choose(device: str, m: int, n: int, k: int, suffix: str, make_plan: Callable):
    """(algorithm, reason, plan) for rgemm(algorithm="auto"): algorithm is "ozaki-fp64" or
    "blocked" (the classic kernel of the device); make_plan() returns _ozaki.plan's Plan and is
    called only on the GPU for M*N*K >= OZAKI_MIN_WORK (plan is None otherwise)."""
    if _tsm.suits(m, n, k):
        return "tsm", (f"min(M, N) = {min(m, n)} <= {_tsm.MAX_COLUMNS}: the tall-and-skinny "
                       f"kernel"), None
    if device == "cpu":
        return "blocked", "CPU: the classic kernel (faster than ozaki-fp64 as measured)", None
    if m * n * k < OZAKI_MIN_WORK:
        return "blocked", f"M*N*K = {m * n * k} < {OZAKI_MIN_WORK}: the classic kernel", None
    plan = make_plan()
    if plan.fallback is not None:
        return "blocked", f"ozaki-fp64 falls back: {plan.fallback}", plan
    ozaki, classic = ozaki_seconds(m, n, k, plan.slices), classic_seconds(m, n, k, suffix)
    estimate = (f"estimated ozaki-fp64 {ozaki * 1e3:.3g} ms (S = {plan.slices}) against the "
                f"classic kernel {classic * 1e3:.3g} ms ({suffix})")
    return ("ozaki-fp64" if ozaki < classic else "blocked"), estimate, plan
