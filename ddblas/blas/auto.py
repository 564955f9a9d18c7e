"""rgemm(algorithm="auto"): the classic kernel, ozaki-fp64, ozaki-int8 or ozaki2-int8, by a
cost model of rates.

All of them meet the same documented bound, so the choice is about time only. The GPU's rates
are the H100 figures of docs/performance.md (constants, GPU_RATES); the CPU's are measured on
the machine at its first large product (CPU_RATES_SIZE, cached for the process by
gemmcall.cpu_rates). The model (docs/ozaki.md, "algorithm='auto'"):
- M*N*K below OZAKI_MIN_WORK: the classic kernel, without planning (the Ozaki schemes' fixed
  costs are about the classic kernel's whole time there);
- CPU, larger: the classic kernel unless ozaki-fp64 with TYPICAL_SLICES is estimated faster at
  the measured rates (so that the scan is paid only where an Ozaki scheme may win);
- then one scan of the data (an int8 GEMM of first digits) gives every engine's plan; the
  algorithm with the smallest estimate runs (an engine whose plan falls back is left out).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..engines import cpu as _cpu
from .ozaki import int8_padded

# classic kernel, GPU, GFLOP/s by variant: "blocked b=4", NN, N = 8192
CLASSIC_GPU_GFLOPS = {"fma_accurate": 1080.7, "fma_sloppy": 1923.3, "nofma_accurate": 859.4,
                      "nofma_sloppy": 1239.9}
FP64_GEMM_GFLOPS = 58127.0      # cuBLAS DGEMM, N = 8192
INT8_GEMM_TOPS = 1234.8         # cuBLAS int8 gemmEx (int32 accumulation), N = 8192
MEMORY_GBS = 2875.1             # the memory ceiling (1 GiB read + 1 GiB written)
OZAKI_FIXED_SECONDS = 1.7e-3    # ozaki-fp64 at N = 256 and 512 (1.9, 1.7 ms; its GEMMs < 0.1 ms)
INT8_FIXED_SECONDS = 4.0e-3     # ozaki-int8's time beyond its GEMMs and passes at N = 1024
CRT_FIXED_SECONDS = 4.5e-3      # ozaki2-int8's time beyond its modelled parts (N = 2048: 6.8 ms
                                # measured, its 31 small int8 GEMMs 2.0 ms against 0.43 modelled)
CRT_ENTRY_SECONDS = 5.3e-12     # ozaki2-int8's reconstruction per entry of C and modulus
                                # (N = 4096 and 8192, L = 32: 2.8 and 11.3 ms)
OZAKI_MIN_WORK = 1024 ** 3      # M*N*K below which neither device plans an Ozaki scheme (CPU:
                                # the classic kernel won at N <= 768 on 2 cores and N <= 512 on
                                # 16 threads, docs/performance.md)
CPU_RATES_SIZE = 384            # N of the CPU's calibration products (DD classic, float64 GEMM)
CPU_CRT_ENTRY_SECONDS = 9e-9    # ozaki2-int8's reconstruction per entry and modulus, 2 CPU
                                # cores (N = 1024, L = 32: 0.31 s); not measured at first use
TYPICAL_SLICES = 6              # ozaki-fp64's S on random full-precision data, accuracy="classic"
TSM_MAX_COLUMNS = 32            # the tall-and-skinny kernel (_tsm.py) for min(M, N) <= this
TSM_MIN_ELEMENTS = 1 << 20      # and max(M, N) * K >= this


@dataclass(frozen=True)
class Rates:
    """What the cost model runs on: the classic kernel's DD GFLOP/s by variant suffix, the
    float64 GEMM's GFLOP/s, the int8 GEMM's TOP/s (on the CPU: NumPy's float64 GEMM of the
    digits), the memory's GB/s (read + written), the Ozaki schemes' fixed seconds (fp64, int8,
    crt) and scheme II's reconstruction seconds per entry of C and modulus."""
    classic: Mapping[str, float]
    dgemm: float
    int8: float
    memory: float
    fixed: tuple[float, float, float]
    crt_entry: float


GPU_RATES = Rates(CLASSIC_GPU_GFLOPS, FP64_GEMM_GFLOPS, INT8_GEMM_TOPS, MEMORY_GBS,
                  (OZAKI_FIXED_SECONDS, INT8_FIXED_SECONDS, CRT_FIXED_SECONDS), CRT_ENTRY_SECONDS)


def tsm_max_rows() -> int:
    """The longest side max(M, N) that the tall-and-skinny kernel takes: its grid's limit on
    row blocks (cuda_src/geometry.h) times the rows of a block (the fewest of its shapes'),
    8388480 = 65535 x 128; tsm.plan refuses longer ones on both devices."""
    geometry = _cpu.geometry()
    rows = min(shape[layout]["BM"] for name, shape in geometry["gemm"].items()
               if name.startswith("tsm") for layout in ("k", "m"))
    return geometry["grid_yz_limit"] * rows


def tsm_suits(m: int, n: int, k: int) -> bool:
    """Whether rgemm(algorithm="auto") takes the tall-and-skinny path for M x N x K: few
    columns (or rows), a long operand, and a longest side that the kernel's grid takes (a
    longer one, which tsm.plan refuses, runs on the classic kernel)."""
    return (min(m, n) <= TSM_MAX_COLUMNS and max(m, n) * k >= TSM_MIN_ELEMENTS
            and max(m, n) <= tsm_max_rows())


def classic_seconds(m: int, n: int, k: int, suffix: str, rates: Rates = GPU_RATES) -> float:
    """The classic kernel's estimated time: 2MNK flops at the variant's rate."""
    return 2 * m * n * k / (rates.classic[suffix] * 1e9)


def _scan_seconds(m: int, n: int, k: int, bound: str, rates: Rates) -> float:
    """The plan's data scan (docs/ozaki.md "The lower bound"): a few passes over op(A) and
    op(B) and one GEMM, of int8 first digits or (where those prove nothing) float64."""
    kp = int8_padded(k)
    gemm = 2 * m * n * k / (rates.dgemm * 1e9) if bound == "float64" else \
        2 * m * n * kp / (rates.int8 * 1e12)
    return gemm + 64 * (m * k + k * n) / (rates.memory * 1e9)


def ozaki_seconds(m: int, n: int, k: int, slices: int, bound: str = "int8 first digits",
                  rates: Rates = GPU_RATES) -> float:
    """ozaki-fp64's estimated time with S slices: the fixed cost, the scan, the S(S+1)/2 slice
    products over all of K at the DGEMM rate, and its memory passes (docs/ozaki.md "Cost and
    memory": slicing reads op(A), op(B) and writes S digits; S passes over C read the products
    and the DD accumulator and write it) at the memory ceiling."""
    products = slices * (slices + 1) // 2
    flops = 2 * m * n * k * products
    traffic = (16 + 8 * slices) * (m * k + k * n) + (8 * products + 32 * slices) * m * n
    return rates.fixed[0] + _scan_seconds(m, n, k, bound, rates) + \
        flops / (rates.dgemm * 1e9) + traffic / (rates.memory * 1e9)


def int8_seconds(m: int, n: int, k: int, slices: int, bound: str = "int8 first digits",
                 rates: Rates = GPU_RATES) -> float:
    """ozaki-int8's estimated time with S slices: the fixed cost, the scan, the int8 GEMMs of
    the groups s = 2..S+1 over (s-1) Kp of the concatenated K (S(S+1) M N Kp operations) at the
    int8 rate, the slicing (S bytes a digit) and S passes over C (int32 products, DD
    accumulator in and out)."""
    kp = int8_padded(k)
    ops = m * n * kp * slices * (slices + 1)
    traffic = 16 * (m * k + k * n) + slices * kp * (m + n) + 36 * slices * m * n
    return rates.fixed[1] + _scan_seconds(m, n, k, bound, rates) + \
        ops / (rates.int8 * 1e12) + traffic / (rates.memory * 1e9)


def crt_seconds(m: int, n: int, k: int, moduli: int, bound: str = "int8 first digits",
                rates: Rates = GPU_RATES) -> float:
    """ozaki2-int8's estimated time with L moduli: the fixed cost, the scan, one int8 GEMM per
    modulus over Kp (2 L M N Kp operations) at the int8 rate, the residues (operands read, L
    bytes a digit written) and their int32 products written, and the reconstruction (which
    reads them) at CRT_ENTRY_SECONDS per entry and modulus."""
    kp = int8_padded(k)
    ops = 2 * m * n * kp * moduli
    traffic = (16 + moduli) * (m * k + k * n) + 4 * moduli * m * n
    return rates.fixed[2] + _scan_seconds(m, n, k, bound, rates) + ops / (rates.int8 * 1e12) + \
        traffic / (rates.memory * 1e9) + m * n * moduli * rates.crt_entry


# engine -> (algorithm, its estimate from a plan, the plan's size in words)
_ESTIMATES = {
    "fp64": ("ozaki-fp64", lambda m, n, k, p, r: ozaki_seconds(m, n, k, p.slices, p.bound, r),
             lambda p: f"S = {p.slices}"),
    "int8": ("ozaki-int8", lambda m, n, k, p, r: int8_seconds(m, n, k, p.slices, p.bound, r),
             lambda p: f"S = {p.slices}"),
    "crt": ("ozaki2-int8", lambda m, n, k, p, r: crt_seconds(m, n, k, p.moduli, p.bound, r),
            lambda p: f"L = {p.moduli}"),
}


def choose(device: str, m: int, n: int, k: int, suffix: str, make_plans: Callable,
           cpu_rates: Callable[[], Rates] | None = None):
    """(algorithm, reason, plan) for rgemm(algorithm="auto"): algorithm is "tsm", "blocked"
    (the classic kernel of the device), "ozaki-fp64", "ozaki-int8" or "ozaki2-int8", whichever
    is estimated fastest; make_plans() returns {engine: plan} for the Ozaki engines of
    _ESTIMATES it plans (one scan of the data) and is called only for M*N*K >= OZAKI_MIN_WORK
    (and on the CPU only where ozaki-fp64 may win); cpu_rates() returns the CPU's measured Rates
    (called only on the CPU, above that threshold); plan is the chosen Ozaki
    algorithm's (None otherwise)."""
    if tsm_suits(m, n, k):
        return "tsm", (f"min(M, N) = {min(m, n)} <= {TSM_MAX_COLUMNS}: the tall-and-skinny "
                       f"kernel"), None
    if m * n * k < OZAKI_MIN_WORK:
        return "blocked", (f"{'CPU, ' if device == 'cpu' else ''}M*N*K = {m * n * k} < "
                           f"{OZAKI_MIN_WORK}: the classic kernel"), None
    if device == "cpu":
        rates = cpu_rates()
        classic = classic_seconds(m, n, k, suffix, rates)
        typical = ozaki_seconds(m, n, k, TYPICAL_SLICES, rates=rates)
        if typical >= classic:
            return "blocked", (f"CPU: the classic kernel, estimated {classic * 1e3:.3g} ms "
                               f"against ozaki-fp64's {typical * 1e3:.3g} ms at S = "
                               f"{TYPICAL_SLICES} ({_describe(rates, suffix)})"), None
    else:
        rates = GPU_RATES
    plans = make_plans()
    options = [("blocked", classic_seconds(m, n, k, suffix, rates), None, f"({suffix})")]
    falls_back = []
    for engine, plan in plans.items():
        name, estimate, size = _ESTIMATES[engine]
        if plan.fallback is not None:
            falls_back.append(f"{name} falls back: {plan.fallback}")
        else:
            options.append((name, estimate(m, n, k, plan, rates), plan, f"({size(plan)})"))
    algorithm, _, plan, _ = min(options, key=lambda o: o[1])
    estimates = ", ".join(f"{name} {t * 1e3:.3g} ms {note}" for name, t, _, note in options)
    where = [f"CPU rates: {_describe(rates, suffix)}"] if device == "cpu" else []
    return algorithm, "; ".join([f"estimated {estimates}"] + falls_back + where), plan


def _describe(rates: Rates, suffix: str) -> str:
    """The rates a CPU choice used, in words."""
    return (f"classic {rates.classic[suffix]:.3g} DD GFLOP/s, float64 GEMM {rates.dgemm:.3g} "
            f"GFLOP/s, memory {rates.memory:.3g} GB/s, measured")
