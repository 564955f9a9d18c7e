"""rgemm(algorithm="auto"): the classic kernel, ozaki-fp64, ozaki-int8 or ozaki2-int8, by a
cost model of measured rates.

All three meet the same documented bound, so the choice is about time only. The rates are the
H100 figures of docs/performance.md; they are constants, not measured at import. The model
(docs/ozaki.md, "algorithm='auto'"):
- CPU: the classic kernel (measured faster than ozaki-fp64 at N = 256..1024 on 2 and 16 cores);
- GPU, M*N*K < OZAKI_MIN_WORK: the classic kernel, without planning (the Ozaki schemes' fixed
  cost, ~2-4 ms, is about the classic kernel's whole time at N = 1024, 2.2 ms, and more below);
- GPU, larger: one scan of the data (an int8 GEMM of first digits) gives both engines' S; the
  algorithm with the smallest estimate runs (an engine whose plan falls back is left out).
"""
from __future__ import annotations

from collections.abc import Callable

# classic kernel, GPU, GFLOP/s by variant: "blocked b=4", NN, N = 8192
CLASSIC_GPU_GFLOPS = {"fma_accurate": 1080.7, "fma_sloppy": 1923.3, "nofma_accurate": 859.4,
                      "nofma_sloppy": 1239.9}
FP64_GEMM_GFLOPS = 58127.0      # cuBLAS DGEMM, N = 8192
INT8_GEMM_TOPS = 1234.8         # cuBLAS int8 gemmEx (int32 accumulation), N = 8192
MEMORY_GBS = 2875.1             # the memory ceiling (1 GiB read + 1 GiB written)
OZAKI_FIXED_SECONDS = 1.7e-3    # ozaki-fp64 at N = 256 and 512 (1.9, 1.7 ms; its GEMMs < 0.1 ms)
INT8_FIXED_SECONDS = 4.0e-3     # ozaki-int8's time beyond its GEMMs and passes at N = 1024
CRT_FIXED_SECONDS = 3.0e-3      # ozaki2-int8's time beyond its GEMMs, passes and reconstruction
CRT_ENTRY_SECONDS = 5.3e-12     # ozaki2-int8's reconstruction per entry of C and modulus
                                # (N = 4096 and 8192, L = 32: 2.8 and 11.3 ms)
OZAKI_MIN_WORK = 1024 ** 3      # M*N*K below which the GPU never plans an Ozaki scheme
TSM_MAX_COLUMNS = 32            # the tall-and-skinny kernel (_tsm.py) for min(M, N) <= this
TSM_MIN_ELEMENTS = 1 << 20      # and max(M, N) * K >= this


def tsm_suits(m: int, n: int, k: int) -> bool:
    """Whether rgemm(algorithm="auto") takes the tall-and-skinny path for M x N x K."""
    return min(m, n) <= TSM_MAX_COLUMNS and max(m, n) * k >= TSM_MIN_ELEMENTS


def classic_seconds(m: int, n: int, k: int, suffix: str) -> float:
    """The classic GPU kernel's estimated time: 2MNK flops at the variant's measured rate."""
    return 2 * m * n * k / (CLASSIC_GPU_GFLOPS[suffix] * 1e9)


def _scan_seconds(m: int, n: int, k: int, bound: str) -> float:
    """The plan's data scan (docs/ozaki.md "The lower bound"): a few passes over op(A) and
    op(B) and one GEMM, of int8 first digits or (where those prove nothing) float64."""
    kp = -(-k // 16) * 16
    gemm = 2 * m * n * k / (FP64_GEMM_GFLOPS * 1e9) if bound == "float64" else \
        2 * m * n * kp / (INT8_GEMM_TOPS * 1e12)
    return gemm + 64 * (m * k + k * n) / (MEMORY_GBS * 1e9)


def ozaki_seconds(m: int, n: int, k: int, slices: int, bound: str = "int8 first digits") -> float:
    """ozaki-fp64's estimated time with S slices: the fixed cost, the scan, the S(S+1)/2 slice
    products over all of K at the DGEMM rate, and its memory passes (docs/ozaki.md "Cost and
    memory": slicing reads op(A), op(B) and writes S digits; S passes over C read the products
    and the DD accumulator and write it) at the memory ceiling."""
    products = slices * (slices + 1) // 2
    flops = 2 * m * n * k * products
    traffic = (16 + 8 * slices) * (m * k + k * n) + (8 * products + 32 * slices) * m * n
    return OZAKI_FIXED_SECONDS + _scan_seconds(m, n, k, bound) + \
        flops / (FP64_GEMM_GFLOPS * 1e9) + traffic / (MEMORY_GBS * 1e9)


def int8_seconds(m: int, n: int, k: int, slices: int, bound: str = "int8 first digits") -> float:
    """ozaki-int8's estimated time with S slices: the fixed cost, the scan, the int8 GEMMs of
    the groups s = 2..S+1 over (s-1) Kp of the concatenated K (S(S+1) M N Kp operations) at the
    int8 rate, the slicing (S bytes a digit) and S passes over C (int32 products, DD
    accumulator in and out)."""
    kp = -(-k // 16) * 16
    ops = m * n * kp * slices * (slices + 1)
    traffic = 16 * (m * k + k * n) + slices * kp * (m + n) + 36 * slices * m * n
    return INT8_FIXED_SECONDS + _scan_seconds(m, n, k, bound) + \
        ops / (INT8_GEMM_TOPS * 1e12) + traffic / (MEMORY_GBS * 1e9)


def crt_seconds(m: int, n: int, k: int, moduli: int, bound: str = "int8 first digits") -> float:
    """ozaki2-int8's estimated time with L moduli: the fixed cost, the scan, one int8 GEMM per
    modulus over Kp (2 L M N Kp operations) at the int8 rate, the residues (operands read, L
    bytes a digit written) and their int32 products written, and the reconstruction (which
    reads them) at CRT_ENTRY_SECONDS per entry and modulus."""
    kp = -(-k // 16) * 16
    ops = 2 * m * n * kp * moduli
    traffic = (16 + moduli) * (m * k + k * n) + 4 * moduli * m * n
    return CRT_FIXED_SECONDS + _scan_seconds(m, n, k, bound) + ops / (INT8_GEMM_TOPS * 1e12) + \
        traffic / (MEMORY_GBS * 1e9) + m * n * moduli * CRT_ENTRY_SECONDS


# engine -> (algorithm, its estimate from a plan, the plan's size in words)
_ESTIMATES = {
    "fp64": ("ozaki-fp64", lambda m, n, k, p: ozaki_seconds(m, n, k, p.slices, p.bound),
             lambda p: f"S = {p.slices}"),
    "int8": ("ozaki-int8", lambda m, n, k, p: int8_seconds(m, n, k, p.slices, p.bound),
             lambda p: f"S = {p.slices}"),
    "crt": ("ozaki2-int8", lambda m, n, k, p: crt_seconds(m, n, k, p.moduli, p.bound),
            lambda p: f"L = {p.moduli}"),
}


def choose(device: str, m: int, n: int, k: int, suffix: str, make_plans: Callable):
    """(algorithm, reason, plan) for rgemm(algorithm="auto"): algorithm is "tsm", "blocked"
    (the classic kernel of the device), "ozaki-fp64", "ozaki-int8" or "ozaki2-int8", whichever
    is estimated fastest; make_plans() returns {engine: plan} for the Ozaki engines of
    _ESTIMATES it plans (one scan of the data) and is called only on the GPU for M*N*K >= OZAKI_MIN_WORK; plan is the chosen Ozaki
    algorithm's (None otherwise)."""
    if tsm_suits(m, n, k):
        return "tsm", (f"min(M, N) = {min(m, n)} <= {TSM_MAX_COLUMNS}: the tall-and-skinny "
                       f"kernel"), None
    if device == "cpu":
        return "blocked", "CPU: the classic kernel (faster than ozaki-fp64 as measured)", None
    if m * n * k < OZAKI_MIN_WORK:
        return "blocked", f"M*N*K = {m * n * k} < {OZAKI_MIN_WORK}: the classic kernel", None
    plans = make_plans()
    options = [("blocked", classic_seconds(m, n, k, suffix), None, f"({suffix})")]
    falls_back = []
    for engine, plan in plans.items():
        name, estimate, size = _ESTIMATES[engine]
        if plan.fallback is not None:
            falls_back.append(f"{name} falls back: {plan.fallback}")
        else:
            options.append((name, estimate(m, n, k, plan), plan, f"({size(plan)})"))
    algorithm, _, plan, _ = min(options, key=lambda o: o[1])
    estimates = ", ".join(f"{name} {t * 1e3:.3g} ms {note}" for name, t, _, note in options)
    return algorithm, "; ".join([f"estimated {estimates}"] + falls_back), plan
