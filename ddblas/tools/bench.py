"""`python -m ddblas bench {rgemm,baselines,fma,batched,transfers,tsm,linalg,all} [--quick]`: where
ddblas stands.

- rgemm: GPU kernels (every variant, b = 2 and 4, the ladder's tiled and naive rungs, NN and TN)
  against the in-register DD ceiling, cuBLAS DGEMM and Nakasato's transfer model; the CPU rgemm
  per variant against the CPU ceiling, and the CPU ladder: 1 thread / all threads, vectorisation
  off / on (the CUDA matmul lectures' CPU table).
- baselines: the CPU quad-precision libraries, float64 and cuBLAS DGEMM on the same inputs
  (ddblas/baselines.py), each with its measured error; ddblas's speed-up over each.
- fma: Nakasato's FMA vs non-FMA table for this machine (ddblas/fmastudy.py): instruction counts
  read from the compiled code, and the throughput of elementwise add, mul, div, of the in-register
  madd and of rgemm per variant, with the measured and predicted non-FMA / FMA ratios; and the
  elementwise functions (exp, log, ..., power; default variant): results/s, GB/s (16 bytes per DD
  read or written) and, on the GPU, the fraction of the device copy rate.
- transfers (GPU only): host operands to a host result, synchronous (copy in, compute, copy back)
  against the overlapped pipeline (device="gpu", ddblas/blas/transfer.py) for square rgemm and the
  batched shapes, against min(kernel rate, transfer rate): the kernel timed on device-resident
  data in the same run, the transfers at the measured pinned bandwidths.
- tsm: the tall-and-skinny kernel (rgemm algorithm="tsm", ddblas/blas/tsm.py) against the classic
  kernel for C = op(A) B, A n x n, B n x k, k = 1 .. 32 (NN and TN): GFLOP/s, the bandwidth it
  draws from op(A) (16 n^2 bytes per call) against the measured device copy rate, and the
  fraction of the in-register DD ceiling; the CPU runs the same sweep at a small n.
- dask (needs the extra `dask`; not part of "all"): rgemm of N x N random DD matrices on Dask
  (ddblas.dask, k whole per task, and k split): on the CPU a LocalCluster of processes, on the
  GPU a dask_cuda LocalCUDACluster (one worker per GPU) when dask-cuda is installed; N, chunk,
  workers, GFLOP/s, the share of one ddblas.rgemm call's rate on the same device at the same N
  with the same algorithm, and the bytes moved between workers (the workers' outgoing-transfer
  counters); a progress bar through distributed's diagnostics while C is computed (C stays on
  the workers: nothing is copied back).
- linalg: ddblas.linalg (issue 16): solve at large n with prescribed kappa (time, iterations,
  backward and forward error, against float64 LU alone: cuSOLVER / LAPACK); DD GFLOP/s of
  lu_factor (getrf, 2n^3/3), cholesky (potrf, n^3/3) and qr (geqrf, 2mn^2 - 2n^3/3, mode "r")
  against float64; the batched small-system
  solve (10^4 systems of 9x9, 19x19, 64x64 on the GPU) against the in-register DD madd ceiling;
  python-flint arb_mat.solve (prec 106) and mpmath lu_solve (dps 32) on the same systems; the
  forward error against kappa (1e2 .. 1e30) of float64 solve, ddblas refine and the DD LU; and
  MPLAPACK's published dd figures, quoted.
- batched: rgemm_batched on the issue's CFD shapes (m x k x n) and batches, its speed-up over a
  Python loop of single rgemm calls (timed on the first `batched_loop` products, scaled), and the
  rate with m, k, n zero-padded to multiples of 16 (counting only the unpadded flops).

Sizes: `--sizes` and `--cpu-sizes` set each suite's own (SIZE_FIELDS, set_sizes); batched has
none.

Figures: DD GFLOP/s = 2 M N K / time (elementwise: results per second). GPU times use CUDA events
(one warm-up, median of the repeats), CPU times the wall clock (one warm-up, median). Nakasato's
model: T = T_comm + T_kernel with T_comm = bytes / PCIe bandwidth (measured) and T_kernel =
2 N^3 / rate; for square N the two balance at N = 24 rate / bandwidth (48 N^2 bytes: A and B
in, C out, 16 bytes per DD). Output (ddblas/benchreport.py): tables, bench.json and bench.csv
with the machine, versions, date and commit, PNG plots, and a markdown section.
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np

import ddblas
from ddblas import (DDArray, Options, accuracy, add, cpu_threads, divide, get_cpu_threads,
                    gpu_available, introspect, multiply, random, rgemm, rgemm_batched)

from . import baselines, fmastudy
from .timing import gflops, time_best, time_gpu, time_gpu_graph, time_on, time_wall

BATCHED_CALLS = 20          # launches of a captured rgemm_batched call timed together (GPU)
SUITES = ("rgemm", "baselines", "fma", "batched", "transfers", "tsm", "linalg")
OPTIONAL_SUITES = ("dask",)  # need an extra; left out of "all"
# the classic kernel and the Ozaki schemes (I on float64, II on int8) of both devices
RGEMM_ALGORITHMS = ("blocked", "ozaki-fp64", "ozaki2-int8")
VARIANTS = [Options(True, "accurate"), Options(True, "sloppy"), Options(False, "accurate"),
            Options(False, "sloppy")]
DEFAULT = Options()


def variant_name(v: Options) -> str:
    return f"{'fma' if v.fma else 'nofma'}/{v.add}"


@dataclasses.dataclass
class Plan:
    """The sizes of one run. `full()` is the documented run; `quick()` fits 2 minutes on 2 CPU
    cores (CI)."""

    gpu_sizes: tuple = (256, 512, 1024, 2048, 4096, 8192)
    gpu_ladder_sizes: tuple = (1024, 2048)      # the tiled and naive rungs too
    cpu_sizes: tuple = (256, 512, 1024)
    cpu_ladder_n: int = 512                     # 1 / all threads, vectorisation off / on
    baseline_sizes: tuple = (64, 128, 256, 512, 1024)
    fma_gpu_n: int = 4096
    fma_cpu_n: int = 512
    elementwise_gpu_n: int = 1 << 24
    elementwise_cpu_n: int = 1 << 20
    # rgemm_batched: (m, k, n) of the CFD code (issue 6) and the batch sizes per device
    batched_shapes: tuple = tuple((19, k, n) for k in (24, 32, 56) for n in (5, 8, 9)) + (
        (34, 56, 9),)
    batched_gpu_batches: tuple = (1000, 10000, 100000)
    batched_cpu_batches: tuple = (1000, 10000)
    batched_loop: int = 200                     # products timed as a loop of rgemm calls
    transfer_sizes: tuple = (1024, 2048, 4096, 8192)   # square rgemm from and to the host
    transfer_batches: tuple = (1000, 10000, 100000)    # batched_shapes from and to the host
    tsm_gpu_sizes: tuple = (8192, 16384, 32768)        # tall-and-skinny: A n x n, B n x k
    tsm_cpu_n: int = 2048
    tsm_columns: tuple = (1, 2, 4, 8, 16, 32)
    dask_cpu: tuple = (1024, 512, 2)               # N, chunk, worker processes
    dask_gpu: tuple = (16384, 8192)                # N, chunk (one worker per GPU)
    dask_algorithm: str = "blocked"
    # linalg: solve sizes and kappas, factorization sizes, batched (order, batch), baselines
    solve_gpu_sizes: tuple = (4096, 16384)
    solve_cpu_sizes: tuple = (1000,)
    solve_kappas: tuple = (1e8, 1e12)
    factor_gpu_sizes: tuple = (4096, 8192, 16384)
    factor_cpu_sizes: tuple = (256, 512, 1024)
    qr_gpu_sizes: tuple = (2048, 8192)
    qr_cpu_sizes: tuple = (128, 256)
    batched_solve_orders: tuple = (9, 19, 64)
    batched_solve_gpu_batch: int = 10000
    batched_solve_cpu_batch: int = 1000
    flint_n: int = 1000
    mpmath_n: int = 200
    kappa_sweep: tuple = (1e2, 1e6, 1e10, 1e14, 1e18, 1e22, 1e26, 1e30)
    kappa_sweep_n: int = 24
    repeat: int = 3

    @classmethod
    def quick(cls) -> "Plan":
        return cls(gpu_sizes=(256, 1024), gpu_ladder_sizes=(256,), cpu_sizes=(128, 256),
                   cpu_ladder_n=256, baseline_sizes=(64, 128), fma_gpu_n=1024, fma_cpu_n=128,
                   elementwise_gpu_n=1 << 20, elementwise_cpu_n=1 << 16,
                   batched_shapes=((19, 32, 9), (34, 56, 9)), batched_gpu_batches=(1000,),
                   batched_cpu_batches=(1000,), transfer_sizes=(1024,),
                   transfer_batches=(10000,), tsm_gpu_sizes=(4096,), tsm_cpu_n=512,
                   tsm_columns=(1, 4, 16), dask_cpu=(512, 256, 2), dask_gpu=(8192, 4096),
                   solve_gpu_sizes=(2048,), solve_cpu_sizes=(200,),
                   factor_gpu_sizes=(1024,), factor_cpu_sizes=(128,),
                   qr_gpu_sizes=(256,), qr_cpu_sizes=(64,),
                   batched_solve_orders=(9, 19), batched_solve_gpu_batch=1000,
                   batched_solve_cpu_batch=100, flint_n=60, mpmath_n=30,
                   kappa_sweep=(1e4, 1e12, 1e20, 1e28), kappa_sweep_n=10, repeat=3)


# What `--sizes` and `--cpu-sizes` set, per suite: the Plan fields of its GPU runs and of its CPU
# runs. A field holding one int (fma_gpu_n, tsm_cpu_n, ...) or one (N, chunk[, workers]) case
# (dask) takes one size. batched has none (shapes and batches); baselines runs one list on both
# devices; transfers is GPU only; "all" sets the rgemm suite's, as bench/device_run.sh relies on.
SIZE_FIELDS = {
    "rgemm": (("gpu_sizes",), ("cpu_sizes",)),
    "baselines": (("baseline_sizes",), ()),
    "fma": (("fma_gpu_n",), ("fma_cpu_n",)),
    "batched": ((), ()),
    "transfers": (("transfer_sizes",), ()),
    "tsm": (("tsm_gpu_sizes",), ("tsm_cpu_n",)),
    "linalg": (("solve_gpu_sizes", "factor_gpu_sizes", "qr_gpu_sizes"),
               ("solve_cpu_sizes", "factor_cpu_sizes", "qr_cpu_sizes")),
    "dask": (("dask_gpu",), ("dask_cpu",)),
    "all": (("gpu_sizes",), ("cpu_sizes",)),
}


def set_sizes(plan: Plan, suite: str, sizes=None, cpu_sizes=None, gpu: bool = True) -> None:
    """Set the sizes of `suite` (a key of SIZE_FIELDS) in plan, in place, from the command
    line's --sizes (a list of ints or None: the sizes of the GPU runs, and of the CPU runs on a
    machine without a GPU) and --cpu-sizes (the CPU runs' sizes, whatever the machine).

    Raises
    ------
    ValueError
        For a suite without sizes (batched), --cpu-sizes for a suite without CPU sizes
        (baselines, transfers), or more than one size where the suite takes one (fma; tsm's
        CPU n; dask's N, whose chunk becomes min(chunk, N // 2)).
    """
    gpu_fields, cpu_fields = SIZE_FIELDS[suite]
    if sizes is not None and not gpu_fields:
        raise ValueError(f"--sizes: bench {suite} has no sizes to set (its shapes and batches "
                         f"are fixed: Plan.batched_shapes and the batch counts)")
    if cpu_sizes is not None and not cpu_fields:
        why = "one list for both devices: give --sizes" if suite == "baselines" else \
            "it runs on the GPU only" if suite == "transfers" else "it has no sizes"
        raise ValueError(f"--cpu-sizes: bench {suite} has no CPU sizes ({why})")
    cpu = cpu_sizes if cpu_sizes is not None else None if gpu else sizes
    for fields, values, device in ((gpu_fields, sizes, "GPU"), (cpu_fields, cpu, "CPU")):
        for field in fields if values is not None else ():
            current = getattr(plan, field)
            if isinstance(current, (int, np.integer)) or field.startswith("dask_"):
                if len(values) != 1:
                    option = "--sizes" if values is sizes else "--cpu-sizes"
                    where = " (no GPU here: --sizes gives the CPU's)" \
                        if device == "CPU" and values is sizes else ""
                    raise ValueError(f"{option}: bench {suite} takes one size on the "
                                     f"{device}{where}, got {' '.join(map(str, values))}")
                n = int(values[0])
                if field.startswith("dask_"):   # (N, chunk[, workers])
                    current = (n, min(current[1], max(1, n // 2)), *current[2:])
                    setattr(plan, field, current)
                else:
                    setattr(plan, field, n)
            else:
                setattr(plan, field, tuple(int(v) for v in values))


# ---- reference figures ----

def gpu_madd_ceiling(v: Options, iters=2048, repeat=5) -> float:
    """DD GFLOP/s of register-resident multiply-adds on the GPU (ddblas_madd_ceiling_*)."""
    import cupy
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    blocks, threads, chains = sms * 16, 256, 8
    seed = cupy.asarray([0.5, 2.0 ** -60, 2.0 ** -30, 2.0 ** -90])
    out = cupy.empty(blocks * threads)
    name = "ddblas_madd_ceiling_" + v.suffix
    t = time_gpu(lambda: introspect.gpu_launch(name, (blocks,), (threads,), iters, seed, out),
                 repeat)
    return 2 * blocks * threads * chains * iters / t / 1e9


def cublas_dgemm(n=8192, repeat=5) -> float:
    import cupy
    a, b = cupy.random.rand(n, n), cupy.random.rand(n, n)
    return gflops(n, time_gpu(lambda: a @ b, repeat))


def cublas_int8(n=8192, repeat=5) -> float:
    """TOP/s of cuBLAS's int8 x int8 -> int32 GEMM (gemmEx, as ozaki-int8 calls it)."""
    import cupy
    a = cupy.random.randint(-127, 128, (n, n), dtype=np.int8)
    b = cupy.random.randint(-127, 128, (n, n), dtype=np.int8)
    out = cupy.empty((n, n), dtype=np.int32)
    return 2 * n ** 3 / time_gpu(lambda: introspect.int8_gemm(a, b, out), repeat) / 1e12


def pcie_bandwidth(nbytes=1 << 28) -> float:
    """Host-to-device GB/s for a pageable NumPy array (what DDArray.to_device uses)."""
    host = np.ones(nbytes // 8)
    return nbytes / time_wall(lambda: introspect.to_device(host, "gpu"), 3) / 1e9


def ceilings(gpu: bool, progress) -> list[dict]:
    """The in-register madd ceiling of every variant: GPU, CPU on 1 thread and on all."""
    rows = []
    for v in progress(VARIANTS, "ceilings"):
        if gpu:
            rows.append(dict(device="gpu", variant=variant_name(v), threads=None,
                             gflops=gpu_madd_ceiling(v)))
        for threads in (1, None):
            rows.append(dict(device="cpu", variant=variant_name(v),
                             threads=threads or get_cpu_threads(),
                             gflops=introspect.cpu_madd_ceiling(v.fma, v.add, threads=threads)))
    return rows


def _ceiling(rows, device, variant, threads=None) -> float:
    return next(r["gflops"] for r in rows if r["device"] == device and r["variant"] == variant
                and (threads is None or r["threads"] == threads))


# ---- suites ----

def suite_rgemm(plan: Plan, progress) -> dict:
    gpu = gpu_available()
    ceiling_rows = ceilings(gpu, progress)
    tables = {"ceilings": ceiling_rows}
    summary = {}
    if gpu:
        summary["cublas_dgemm_gflops"] = cublas_dgemm()
        summary["cublas_int8_tops"] = cublas_int8()
        summary["pcie_gbs"] = pcie_bandwidth()
        tables["rgemm-gpu"] = _rgemm_gpu(plan, ceiling_rows, progress)
        tables["rgemm-transfers"] = _rgemm_transfers(plan, tables["rgemm-gpu"], summary)
        rate = max(r["gflops"] for r in tables["rgemm-gpu"]) * 1e9
        summary["balance_n"] = 24 * rate / (summary["pcie_gbs"] * 1e9)
    tables["rgemm-cpu"] = _rgemm_cpu(plan, ceiling_rows, progress)
    tables["cpu-ladder"] = _cpu_ladder(plan, ceiling_rows)
    tables["rgemm-algorithms"] = _algorithms(plan, ceiling_rows, summary, progress)
    return dict(tables=tables, summary=summary)


def _algorithms(plan, ceiling_rows, summary, progress):
    """The classic kernel against Ozaki schemes I and II at the default variant: DD GFLOP/s, the
    engine's share (classic: of the in-register ceiling; ozaki-fp64: slice GEMM flops over the
    engine's float64 GEMM rate, cuBLAS DGEMM or NumPy's matmul at that N; ozaki-int8 (GPU only)
    and ozaki2-int8 (on the GPU; on the CPU as ozaki-fp64): its int8 GEMM operations over
    cuBLAS's int8 rate at N = 8192), S (scheme II: L, the moduli) and the number of GEMMs,
    the exact error on 16 sampled rows and columns (units of u^2), and which one
    algorithm="auto" picks (ddblas/blas/auto.py's cost model)."""
    rows = []
    sizes = [("gpu", n) for n in plan.gpu_sizes if gpu_available()]
    sizes += [("cpu", n) for n in plan.cpu_sizes]
    for device, n in progress(sizes, "algorithms"):
        a, b = random((n, n), seed=1, device=device), random((n, n), seed=2, device=device)
        sample = dict(rows=baselines.sample(n, 16), cols=baselines.sample(n, 16))
        if device == "gpu":
            engine = summary["cublas_dgemm_gflops"]
        else:
            x = np.random.default_rng(0).random((n, n))  # NumPy's BLAS at its best of 10 runs
            engine = gflops(n, time_best(lambda: x @ x, max(plan.repeat, 10)))
        picked = introspect.auto_algorithm(a, b, fma=DEFAULT.fma, add=DEFAULT.add)
        for algorithm in RGEMM_ALGORITHMS + (("ozaki-int8",) if device == "gpu" else ()):
            info = {}
            c = rgemm(a, b, algorithm=algorithm, info=info)
            t = time_on(device, lambda: rgemm(a, b, algorithm=algorithm), plan.repeat)
            rate = gflops(n, t)
            ozaki = info["algorithm"].startswith("ozaki")
            if info["algorithm"] == "ozaki-int8":   # (s - 1) Kp long products for s = 2 .. S + 1
                s = info["slices"]
                share = n * n * introspect.ozaki_int8_padded(n) * s * (s + 1) / t / 1e12 / summary[
                    "cublas_int8_tops"]
            elif info["algorithm"] == "ozaki2-int8" and device == "gpu":  # L products over Kp
                share = 2 * n * n * introspect.ozaki_int8_padded(n) * info["moduli"] / t / 1e12 \
                    / summary["cublas_int8_tops"]
            elif ozaki:
                share = info["gemms"] * rate / engine
            else:
                share = rate / _ceiling(ceiling_rows, device, variant_name(DEFAULT),
                                        None if device == "gpu" else get_cpu_threads())
            rows.append(dict(device=device, n=n, algorithm=algorithm, variant=variant_name(
                DEFAULT), seconds=t, gflops=rate,
                slices=info.get("slices", info.get("moduli")) if ozaki else None,
                gemms=info["gemms"] if ozaki else None, fallback=info.get("fallback"),
                engine_fraction=share, error=accuracy.gemm_error(c, a, b, **sample).max,
                auto="yes" if algorithm == picked else ""))
    return rows


def _rgemm_gpu(plan, ceiling_rows, progress):
    rows = []
    for n in progress(plan.gpu_sizes, "rgemm gpu"):
        a, b = random((n, n), seed=1, device="gpu"), random((n, n), seed=2, device="gpu")
        at = a.T.copy()
        c = DDArray(a.xp.empty((n, n)), a.xp.empty((n, n)))
        configs = [("blocked", 2), ("blocked", 4)]
        configs += [("tiled", None), ("naive", None)] if n in plan.gpu_ladder_sizes else []
        for v in VARIANTS:
            for algorithm, block in configs:
                for trans in ("NN", "TN"):
                    lhs = at if trans == "TN" else a
                    t = time_gpu(lambda: rgemm(lhs, b, c, transa=trans[0], fma=v.fma, add=v.add,
                                                algorithm=algorithm, block=block), plan.repeat)
                    rate = gflops(n, t)
                    rows.append(dict(n=n, variant=variant_name(v),
                                     algorithm=algorithm + (f" b={block}" if block else ""),
                                     trans=trans, seconds=t, gflops=rate,
                                     ceiling_fraction=rate / _ceiling(ceiling_rows, "gpu",
                                                                      variant_name(v))))
    return rows


def _rgemm_transfers(plan, kernel_rows, summary):
    """From NumPy inputs to a NumPy result with the classic kernel ("blocked", default block)
    and the default variant, against Nakasato's T_comm + T_kernel."""
    rows = []
    for n in plan.gpu_sizes:
        ha, hb = random((n, n), seed=1), random((n, n), seed=2)
        default = f"blocked b={introspect.default_gemm_block(n, n)}"
        kernel = next(r for r in kernel_rows if r["n"] == n and r["algorithm"] == default
                      and r["variant"] == variant_name(DEFAULT) and r["trans"] == "NN")
        t = time_wall(lambda: rgemm(ha.to_device("gpu"), hb.to_device("gpu"),
                                     algorithm="blocked").to_device("cpu"),
                       1)
        model = 48 * n * n / (summary["pcie_gbs"] * 1e9) + kernel["seconds"]
        rows.append(dict(n=n, variant=variant_name(DEFAULT), algorithm=default, seconds=t,
                         gflops=gflops(n, t), model_seconds=model))
    return rows


def _rgemm_cpu(plan, ceiling_rows, progress):
    rows = []
    threads = get_cpu_threads()
    for n in progress(plan.cpu_sizes, "rgemm cpu"):
        a, b = random((n, n), seed=1), random((n, n), seed=2)
        for v in VARIANTS:
            t = time_wall(lambda: rgemm(a, b, fma=v.fma, add=v.add, algorithm="blocked"),
                           plan.repeat)
            rate = gflops(n, t)
            rows.append(dict(n=n, variant=variant_name(v), threads=threads, seconds=t,
                             gflops=rate, ceiling_fraction=rate / _ceiling(
                                 ceiling_rows, "cpu", variant_name(v), threads)))
    return rows


def _cpu_ladder(plan, ceiling_rows):
    """The default variant at cpu_ladder_n: each step's speed-up over 1 scalar thread."""
    n = plan.cpu_ladder_n
    a, b = random((n, n), seed=1), random((n, n), seed=2)
    rows = []
    for threads in (1, get_cpu_threads()):
        for vectorize in (False, True):
            with cpu_threads(threads), introspect.cpu_vectorization(vectorize):
                t = time_wall(lambda: rgemm(a, b, algorithm="blocked"), plan.repeat)
            rows.append(dict(n=n, variant=variant_name(DEFAULT), threads=threads,
                             vectorize=vectorize, seconds=t, gflops=gflops(n, t)))
    for r in rows:
        r["speedup"] = rows[0]["seconds"] / r["seconds"]
        r["ceiling_fraction"] = r["gflops"] / _ceiling(ceiling_rows, "cpu", r["variant"],
                                                        r["threads"])
    return rows


def suite_baselines(plan: Plan, progress) -> dict:
    """Every available library at every size it allows, on the same inputs; the speed-up is that
    of the faster ddblas algorithm on the same engine (CPU, or GPU for cuBLAS)."""
    engines = ["cpu"] + (["gpu"] if gpu_available() else [])
    rows, too_slow = [], {}
    notes = [f"{a.name}: skipped, {a.skip_reason}" for a in baselines.ADAPTERS
             if not a.available()]
    for n in progress(plan.baseline_sizes, "baselines"):
        a, b = baselines.bench_inputs(n, seed=n)
        measured = [baselines.measure(baselines.DDBlas(e, algorithm), a, b, repeat=plan.repeat)
                    for e in engines for algorithm in RGEMM_ALGORITHMS]
        best = {e: min(r["seconds"] for r in measured if r["engine"] == e) for e in engines}
        for adapter in baselines.ADAPTERS:
            if adapter.available() and adapter.engine in best:
                r = baselines.measure(adapter, a, b, repeat=plan.repeat)
                if r["skipped"]:
                    too_slow.setdefault(adapter.name, []).append(n)
                else:
                    measured.append(r)
        rows += [dict(r, speedup=r["seconds"] / best[r["engine"]]) for r in measured]
    notes += [f"{name}: not run at N = {', '.join(map(str, ns))} (above its max_n: too slow)"
              for name, ns in too_slow.items()]
    return dict(tables={"baselines": rows}, summary={}, notes=notes)


def suite_fma(plan: Plan, progress) -> dict:
    gpu = gpu_available()
    devices = ["cpu"] + (["gpu"] if gpu else [])
    census = {"cpu": fmastudy.cpu_counts()}
    gpu_counts = fmastudy.gpu_counts()
    notes = []
    if gpu_counts[0] is not None:
        census["gpu"] = gpu_counts
    else:
        notes.append(f"GPU instruction census skipped: {gpu_counts[1]}")
    census_rows = [dict(code=code, source=source, op=op, variant=variant.replace("_", "/"), **c)
                   for code, (counts, source) in census.items()
                   for (op, variant), c in counts.items()]
    throughput = []
    for device in progress(devices, "fma study"):
        n = plan.elementwise_gpu_n if device == "gpu" else plan.elementwise_cpu_n
        x = random((n,), seed=1, device=device) + 0.5
        y = random((n,), seed=2, device=device) + 0.5
        gemm_n = plan.fma_gpu_n if device == "gpu" else plan.fma_cpu_n
        a, b = random((gemm_n, gemm_n), seed=1, device=device), random((gemm_n, gemm_n), seed=2,
                                                                          device=device)
        for v in VARIANTS:
            kw = dict(fma=v.fma, add=v.add)
            for op, fn in (("add", add), ("mul", multiply), ("div", divide)):
                t = time_on(device, lambda: fn(x, y, **kw), plan.repeat)
                throughput.append(dict(device=device, kind=f"elementwise {op}", n=n,
                                       variant=variant_name(v), rate=n / t / 1e9,
                                       unit="G results/s"))
            t = time_on(device, lambda: rgemm(a, b, algorithm="blocked", **kw), plan.repeat)
            throughput.append(dict(device=device, kind="rgemm", n=gemm_n, variant=variant_name(v),
                                   rate=gflops(gemm_n, t), unit="GFLOP/s"))
            ceiling = gpu_madd_ceiling(v) if device == "gpu" else introspect.cpu_madd_ceiling(v.fma, v.add)
            throughput.append(dict(device=device, kind="madd ceiling", n=None,
                                   variant=variant_name(v), rate=ceiling, unit="GFLOP/s"))
    ratios = []
    for device in devices:
        code = device if device in census else "cpu"
        for add_kind in ("accurate", "sloppy"):
            row = dict(device=device, add=add_kind, census=census[code][1],
                       predicted=fmastudy.predicted_ratio(census[code][0], add_kind))
            for kind in ("madd ceiling", "rgemm", "elementwise mul"):
                rate = {r["variant"]: r["rate"] for r in throughput
                        if r["device"] == device and r["kind"] == kind}
                row[kind] = rate[f"fma/{add_kind}"] / rate[f"nofma/{add_kind}"]
            ratios.append(row)
    functions = [row for device in progress(devices, "elementwise functions")
                 for row in _function_rows(plan, device)]
    return dict(tables={"fma-census": census_rows, "fma-throughput": throughput,
                        "fma-ratio": ratios, "elementwise-functions": functions},
                summary={}, notes=notes)


# The elementwise functions timed by the fma suite: name -> number of DD operands (inputs).
ELEMENTWISE_FUNCTIONS = {
    **dict.fromkeys(("abs", "square", "reciprocal", "sqrt", "exp", "exp2", "expm1", "log", "log2",
                     "log10", "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh",
                     "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "floor", "ceil", "trunc",
                     "rint", "sign", "isfinite", "isinf", "isnan"), 1),
    **dict.fromkeys(("power", "arctan2", "hypot", "fmod", "copysign", "maximum", "minimum",
                     "fmax", "fmin"), 2)}
UNIT_INTERVAL_FUNCTIONS = ("arcsin", "arccos", "arctanh")  # timed on [0, 0.5), the rest on [1, 1.5)
PREDICATES = ("isfinite", "isinf", "isnan")               # boolean results: 1 byte written


def _function_rows(plan: Plan, device: str) -> list[dict]:
    """One row per ELEMENTWISE_FUNCTIONS entry (default variant) on arguments in [1, 1.5) (or
    [0, 0.5) for the functions of [-1, 1]: in every function's domain, no special-value branch):
    results/s, GB/s moved (16 bytes per DD read or written, 1 per boolean), and on the GPU the
    fraction of the measured device copy rate."""
    n = plan.elementwise_gpu_n if device == "gpu" else plan.elementwise_cpu_n
    x = random((n,), seed=3, device=device) * 0.5 + 1
    y = random((n,), seed=4, device=device) * 0.5 + 1
    memory = device_copy_gbs() if device == "gpu" else None
    rows = []
    for name, inputs in ELEMENTWISE_FUNCTIONS.items():
        first = x - 1 if name in UNIT_INTERVAL_FUNCTIONS else x
        fn, args = getattr(ddblas, name), (first, y)[:inputs]
        t = time_on(device, lambda fn=fn, args=args: fn(*args), plan.repeat)
        gbs = (16 * inputs + (1 if name in PREDICATES else 16)) * n / t / 1e9
        rows.append(dict(device=device, function=name, n=n, variant=variant_name(DEFAULT),
                         rate=n / t / 1e9, gbs=gbs,
                         memory_fraction=gbs / memory if memory else None, seconds=t))
    return rows


def _padded(x: DDArray, rows: int, cols: int) -> DDArray:
    """x (batch, r, c) zero-padded to (batch, rows, cols)."""
    out = DDArray(x.xp.zeros((x.shape[0], rows, cols)), x.xp.zeros((x.shape[0], rows, cols)))
    out[:, :x.shape[1], :x.shape[2]] = x
    return out


def suite_batched(plan: Plan, progress) -> dict:
    devices = ["cpu"] + (["gpu"] if gpu_available() else [])
    steps = [(d, shape, batch) for d in devices for shape in plan.batched_shapes
             for batch in (plan.batched_gpu_batches if d == "gpu" else plan.batched_cpu_batches)]
    ceiling = {"cpu": introspect.cpu_madd_ceiling(DEFAULT.fma, DEFAULT.add)}
    if "gpu" in devices:
        ceiling["gpu"] = gpu_madd_ceiling(DEFAULT)
    rows = []
    for device, (m, k, n), batch in progress(steps, "batched"):
        a = random((batch, m, k), seed=1, device=device)
        b = random((batch, k, n), seed=2, device=device)
        flops = 2 * m * k * n * batch
        c = DDArray(a.xp.empty((batch, m, n)), a.xp.empty((batch, m, n)))
        t = time_on(device, lambda: rgemm_batched(a, b), plan.repeat)
        t_stream, timing = (time_gpu_graph(lambda: rgemm_batched(a, b, c), plan.repeat,
                                            BATCHED_CALLS) if device == "gpu" else (t, "call"))
        loop = min(plan.batched_loop, batch)
        t_loop = time_on(device, lambda: [rgemm(a[p], b[p]) for p in range(loop)], plan.repeat)
        pad = [-(-d // 16) * 16 for d in (m, k, n)]
        pa, pb = _padded(a, pad[0], pad[1]), _padded(b, pad[1], pad[2])
        t_pad = time_on(device, lambda: rgemm_batched(pa, pb), plan.repeat)
        rows.append(dict(device=device, shape=f"{m}x{k}x{n}", batch=batch,
                         gflops=flops / t / 1e9, seconds=t, stream_gflops=flops / t_stream / 1e9,
                         kernel_timing=timing,
                         ceiling_fraction=flops / t_stream / 1e9 / ceiling[device],
                         loop_speedup=t_loop * batch / loop / t,
                         padded_shape="x".join(map(str, pad)), padded_gflops=flops / t_pad / 1e9))
    return dict(tables={"batched": rows}, summary={}, notes=[])


def _transfer_row(case, flops, bytes_in, bytes_out, rates, kernel, synchronous, overlapped):
    """Times (seconds) of one case; the model throughput is min(kernel rate, transfer rate), the
    transfer time the longer direction (the two copy engines run at once)."""
    transfer = max(bytes_in / rates.h2d, bytes_out / rates.d2h)
    model = flops / max(kernel, transfer) / 1e9
    info = {}
    seconds = overlapped(info)
    return dict(case, kernel_gflops=flops / kernel / 1e9, transfer_gflops=flops / transfer / 1e9,
                model_gflops=model, sync_gflops=flops / synchronous / 1e9,
                overlapped_gflops=flops / seconds / 1e9,
                model_fraction=flops / seconds / 1e9 / model, speedup=synchronous / seconds,
                staging_seconds=(bytes_in + bytes_out) / rates.host, seconds=seconds,
                chunk=info["transfer"]["chunk"], chunks=info["transfer"]["chunks"],
                registered=info["transfer"]["registered"])


def suite_transfers(plan: Plan, progress) -> dict:
    """GPU only (a note on the CPU): synchronous against overlapped, default variant, classic
    kernel."""
    if not gpu_available():
        return dict(tables={}, summary={}, notes=["transfers: no GPU, nothing measured"])
    rates = introspect.transfer_rates()
    steps = [("rgemm", (n, n, n), 1) for n in plan.transfer_sizes]
    steps += [("rgemm_batched", shape, batch) for shape in plan.batched_shapes
              for batch in plan.transfer_batches]
    rows = []
    for routine, (m, k, n), batch in progress(steps, "transfers"):
        if routine == "rgemm":
            a, b = random((m, k), seed=1), random((k, n), seed=2)
            bytes_in = 16 * (m * k + k * n)
            kw = dict(algorithm="blocked")
        else:
            a, b = random((batch, m, k), seed=1), random((batch, k, n), seed=2)
            bytes_in = 16 * batch * (m * k + k * n)
            kw = {}
        f = rgemm if routine == "rgemm" else rgemm_batched
        da, db = a.to_device("gpu"), b.to_device("gpu")
        kernel = time_gpu(lambda: f(da, db, **kw), plan.repeat)
        synchronous = time_wall(lambda: f(a.to_device("gpu"), b.to_device("gpu"), **kw)
                                 .to_device("cpu"), plan.repeat)

        def overlapped(info):
            f(a, b, device="gpu", info=info, **kw)
            return time_wall(lambda: f(a, b, device="gpu", **kw), plan.repeat)

        case = dict(routine=routine, shape=f"{m}x{k}x{n}", batch=batch,
                    variant=variant_name(DEFAULT))
        rows.append(_transfer_row(case, 2 * m * k * n * batch, bytes_in, 16 * batch * m * n,
                                  rates, kernel, synchronous, overlapped))
    summary = dict(pinned_h2d_gbs=rates.h2d / 1e9, pinned_d2h_gbs=rates.d2h / 1e9,
                   staging_gbs=rates.host / 1e9, register_gbs=rates.register / 1e9)
    return dict(tables={"transfers": rows}, summary=summary, notes=[])


def device_copy_gbs(nbytes=1 << 31) -> float:
    """The GPU's memory rate: GB/s read plus written by a device-to-device copy."""
    import cupy
    x = cupy.ones(nbytes // 8)
    y = cupy.empty_like(x)
    return 2 * nbytes / time_gpu(lambda: cupy.copyto(y, x), 3) / 1e9


def suite_tsm(plan: Plan, progress) -> dict:
    """C = op(A) B, A n x n and B n x k, by the tall-and-skinny kernel and the classic one
    (default variant; NN and TN); on the GPU also the tsm kernel in fma/sloppy (fewer FP64
    instructions a multiply-add: memory-bound up to a larger k)."""
    gpu = gpu_available()
    cases = [("cpu", plan.tsm_cpu_n)] + [("gpu", n) for n in plan.tsm_gpu_sizes if gpu]
    memory = device_copy_gbs() if gpu else None
    sloppy = Options(True, "sloppy")
    ceiling = {("cpu", DEFAULT): introspect.cpu_madd_ceiling(DEFAULT.fma, DEFAULT.add)}
    if gpu:
        ceiling.update({("gpu", v): gpu_madd_ceiling(v) for v in (DEFAULT, sloppy)})
    steps = [(d, n, k, trans, algorithm, v) for d, n in cases for k in plan.tsm_columns
             for trans in ("N", "T")
             for algorithm, v in [("tsm", DEFAULT), ("blocked", DEFAULT)] + (
                 [("tsm", sloppy)] if d == "gpu" else [])]
    rows, operands = [], {}
    for device, n, k, trans, algorithm, v in progress(steps, "tsm"):
        if operands.get("key") != (device, n):
            operands.clear()       # one n x n A per size (17 GB at n = 32768)
            operands.update(key=(device, n), a=random((n, n), seed=1, device=device))
        b = random((n, k), seed=2, device=device)
        info = {}
        kw = dict(transa=trans, algorithm=algorithm, fma=v.fma, add=v.add)
        rgemm(operands["a"], b, info=info, **kw)
        t = time_on(device, lambda: rgemm(operands["a"], b, **kw), plan.repeat)
        gflops = 2 * n * n * k / t / 1e9
        tsm = info.get("tsm")
        rows.append(dict(device=device, n=n, k=k, trans=f"{trans}N", algorithm=algorithm,
                         variant=variant_name(v),
                         gflops=gflops, gbs=16 * n * n / t / 1e9,
                         memory_fraction=16 * n * n / t / 1e9 / memory if device == "gpu" else None,
                         ceiling_fraction=gflops / ceiling[device, v],
                         plan=f"t2 {tsm['width']} x {tsm['groups']}, P {tsm['pieces']}"
                         if tsm else "", seconds=t))
    summary = {"gpu_copy_gbs": memory} if gpu else {}
    return dict(tables={"tsm": rows}, summary=summary, notes=[])


def _dask_case(client, device, n, chunk, split_k, algorithm, single_seconds, repeat):
    """One row of the dask suite: C = A B on the cluster of `client`, timed to C persisted. Each
    repetition multiplies another B (equal graphs would share keys and find C computed)."""
    import distributed
    import ddblas.dask as ddd

    def moved():
        return sum(client.run(lambda dask_worker: dask_worker.transfer_outgoing_bytes_total)
                   .values())

    warm = ddd.random((chunk, chunk), chunks=chunk, seed=0, device=device)
    distributed.wait(ddd.rgemm(warm, warm, algorithm=algorithm).persist().parts)  # kernels built
    a = ddd.random((n, n), chunks=chunk, seed=1, device=device).persist()
    bs = [ddd.random((n, n), chunks=chunk, seed=2 + i, device=device).persist()
          for i in range(repeat)]
    distributed.wait([a.parts] + [b.parts for b in bs])
    times, before = [], moved()
    for i, b in enumerate(bs):
        start = time.perf_counter()
        c = ddd.rgemm(a, b, algorithm=algorithm, split_k=split_k).persist()
        if i == 0:
            distributed.progress(c.parts, notebook=False)
        distributed.wait(c.parts)
        times.append(time.perf_counter() - start)
        del c
    t = float(np.median(times))
    return dict(device=device, n=n, chunk=chunk, workers=len(client.scheduler_info()["workers"]),
                k="split" if split_k else "whole", algorithm=algorithm, gflops=2 * n ** 3 / t / 1e9,
                single_gflops=2 * n ** 3 / single_seconds / 1e9, share=single_seconds / t,
                moved_gb=(moved() - before) / repeat / 1e9, seconds=t)


def suite_dask(plan: Plan, progress) -> dict:
    """rgemm on Dask against one ddblas.rgemm call on the same device (see the module
    docstring)."""
    try:
        import distributed
    except ImportError as exc:
        raise RuntimeError(f"bench dask needs the extra 'dask' ({exc}): pip install "
                           "'ddblas[dask]'") from None
    algorithm = plan.dask_algorithm
    cases = [("cpu", *plan.dask_cpu)]
    if gpu_available():
        cases.append(("gpu", *plan.dask_gpu, 1))
    rows, notes = [], []
    for device, n, chunk, workers in progress(cases, "dask"):
        x, y = random((n, n), seed=1, device=device), random((n, n), seed=2, device=device)
        single = time_on(device, lambda x=x, y=y: rgemm(x, y, algorithm=algorithm),
                         plan.repeat)
        del x, y   # the single GPU's operands freed before the cluster's
        if device == "cpu":
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                               processes=True, dashboard_address=None)
        else:
            try:
                import dask_cuda
            except ImportError:
                notes.append("dask on the GPU skipped: dask-cuda is not installed "
                             "(pip install 'ddblas[dask-gpu]')")
                continue
            cluster = dask_cuda.LocalCUDACluster(dashboard_address=None)
        with cluster, distributed.Client(cluster) as client:
            for split_k in (False, True):
                rows.append(_dask_case(client, device, n, chunk, split_k, algorithm, single,
                                       plan.repeat))
    return dict(tables={"dask": rows}, summary={}, notes=notes)
# ---- linalg (issue 16) ----
# MPLAPACK's dd (double-double) figures as quoted in issue 16, from M. Nakata, "MPLAPACK version
# 2.0.1 user manual", arXiv:2109.13406 (2022): not measured here.
MPLAPACK_DD = (
    "MPLAPACK 2.0.1 dd (published, arXiv:2109.13406, as quoted in issue 16): Rgetrf 7.7 DD "
    "GFLOP/s on an A100 at n = 3496 and 5.2 on a V100 (CUDA: Rgemm offloaded, the panel on the "
    "CPU); Rpotrf 0.86 on a V100; CPU OpenMP on 32 cores: Rgetrf 2.2, Rpotrf 1.0.")


def conditioned_float64(n: int, kappa: float, xp, seed: int = 0):
    """A float64 n x n matrix Q1 diag(s) Q2 (Q's from the QR of Gaussian matrices, s geometric
    from 1 to 1/kappa) on the device of `xp`: 2-norm condition close to kappa (the rounding
    moves it by about kappa u); the bench's large inputs (accuracy.ill_conditioned_matrix is
    exact but meant for n of a few dozen)."""
    rng = xp.random.default_rng(seed) if hasattr(xp.random, "default_rng") else xp.random
    q1, _ = xp.linalg.qr(rng.standard_normal((n, n)))
    q2, _ = xp.linalg.qr(rng.standard_normal((n, n)))
    s = kappa ** (-xp.arange(n) / max(n - 1, 1))
    return (q1 * s) @ q2.T


def _float64_solver(device: str):
    """(factor, solve) of float64 LU: cuSOLVER through CuPy, LAPACK through SciPy."""
    if device == "gpu":
        import cupyx.scipy.linalg as la
    else:
        import scipy.linalg as la
    return (lambda a: la.lu_factor(a, check_finite=False),
            lambda f, b: la.lu_solve(f, b, check_finite=False))


def _sync(device: str):
    if device == "gpu":
        import cupy
        cupy.cuda.runtime.deviceSynchronize()


def _solve_rows(plan: Plan, device: str) -> list[dict]:
    """Large solves: ddblas.linalg.solve against float64 LU alone, with the errors."""
    import time
    rows = []
    sizes = plan.solve_gpu_sizes if device == "gpu" else plan.solve_cpu_sizes
    factor, solve64 = _float64_solver(device)
    for n in sizes:
        for kappa in plan.solve_kappas:
            xp = ddblas.zeros(1, device=device).xp
            a64 = conditioned_float64(n, kappa, xp)
            a = DDArray(a64, xp.zeros_like(a64))
            x_true = random((n, 1), seed=3, device=device)
            b = rgemm(a, x_true)   # b's own rounding (<= gamma_n |A||x|) is in the forward error
            t64 = time_on(device, lambda: solve64(factor(a64), b.hi), plan.repeat)
            info = {}
            ddblas.linalg.solve(a, b)  # warm-up (compiles)
            _sync(device)
            t0 = time.perf_counter()
            x = ddblas.linalg.solve(a, b, info=info)
            _sync(device)
            seconds = time.perf_counter() - t0
            err = ddblas.linalg.norm(x - x_true, np.inf) / ddblas.linalg.norm(x_true, np.inf)
            rows.append(dict(device=device, n=n, kappa=kappa, seconds=seconds,
                             float64_lu_seconds=t64, method=info["method"],
                             iterations=info["iterations"],
                             backward_error_u2=(info["backward_errors"] or [np.nan])[-1]
                             / 2.0 ** -106,
                             forward_error=float(err.hi),
                             forward_over_kappa_u2=float(err.hi) / (kappa * 2.0 ** -106)))
    return rows


def _factor_rows(plan: Plan, device: str) -> list[dict]:
    """DD GFLOP/s of lu_factor (2n^3/3), cholesky (n^3/3) and qr (4n^3/3) against float64
    (same n)."""
    rows = []
    sizes = plan.factor_gpu_sizes if device == "gpu" else plan.factor_cpu_sizes
    factor64, _ = _float64_solver(device)
    for n in sizes:
        a = random((n, n), seed=4, device=device)
        spd = rgemm(a, a, transb="T") + ddblas.eye(n, device=device) * n
        xp = a.xp
        for name, flops, dd_call, call64 in (
                ("getrf", 2 * n ** 3 / 3, lambda: ddblas.linalg.lu_factor(a),
                 lambda: factor64(a.hi)),
                ("potrf", n ** 3 / 3, lambda: ddblas.linalg.cholesky(spd, lower=True),
                 lambda: xp.linalg.cholesky(spd.hi))):
            t = time_on(device, dd_call, plan.repeat)
            t64 = time_on(device, call64, plan.repeat)
            rows.append(dict(device=device, routine=name, n=n, seconds=t,
                             dd_gflops=flops / t / 1e9, float64_seconds=t64,
                             float64_gflops=flops / t64 / 1e9, slowdown=t / t64))
    for n in plan.qr_gpu_sizes if device == "gpu" else plan.qr_cpu_sizes:
        a = random((n, n), seed=4, device=device)
        flops = 2 * n ** 3 - 2 * n ** 3 / 3   # geqrf: 2mn^2 - 2n^3/3 at m = n
        t = time_on(device, lambda: ddblas.linalg.qr(a, mode="r"), plan.repeat)
        t64 = time_on(device, lambda: a.xp.linalg.qr(a.hi, mode="r"), plan.repeat)
        rows.append(dict(device=device, routine="geqrf", n=n, seconds=t,
                         dd_gflops=flops / t / 1e9, float64_seconds=t64,
                         float64_gflops=flops / t64 / 1e9, slowdown=t / t64))
    return rows


def _batched_rows(plan: Plan, device: str, ceiling: float) -> list[dict]:
    """linalg.solve on stacks of small systems (batched.solve: one launch on the GPU's teams)."""
    rows = []
    batch = plan.batched_solve_gpu_batch if device == "gpu" else plan.batched_solve_cpu_batch
    for n in plan.batched_solve_orders:
        a = random((batch, n, n), seed=5, device=device) + ddblas.eye(n, device=device)
        b = random((batch, n, 1), seed=6, device=device)
        t = time_on(device, lambda: ddblas.linalg.solve(a, b), plan.repeat)
        flops = batch * (2 * n ** 3 / 3 + 2 * n ** 2)
        rows.append(dict(device=device, order=n, batch=batch, seconds=t,
                         dd_gflops=flops / t / 1e9, ceiling_fraction=flops / t / 1e9 / ceiling,
                         systems_per_second=batch / t))
    return rows


def _library_rows(plan: Plan) -> list[dict]:
    """CPU: ddblas.linalg.solve against python-flint arb_mat.solve (prec 106) and mpmath
    lu_solve (dps 32) on one float64-valued system each (exact inputs for all)."""
    import time
    rows = []
    for library, n in (("python-flint arb_mat.solve (prec 106)", plan.flint_n),
                       ("mpmath lu_solve (dps 32)", plan.mpmath_n)):
        a64 = np.asarray(conditioned_float64(n, 1e6, np))
        b64 = np.random.default_rng(7).standard_normal(n)
        a, b = ddblas.asarray(a64), ddblas.asarray(b64)
        t_dd = time_wall(lambda: ddblas.linalg.solve(a, b), plan.repeat)
        x = ddblas.linalg.solve(a, b)
        eta = accuracy.solve_backward_error(a, x, b)
        try:
            if library.startswith("python-flint"):
                import flint
                flint.ctx.prec = 106
                am = flint.arb_mat([[flint.arb(float(v)) for v in row] for row in a64])
                bm = flint.arb_mat([[flint.arb(float(v))] for v in b64])
                t0 = time.perf_counter()
                am.solve(bm)
                t_lib = time.perf_counter() - t0
            else:
                import mpmath
                with mpmath.workdps(32):
                    am = mpmath.matrix(a64.tolist())
                    bm = mpmath.matrix(b64.tolist())
                    t0 = time.perf_counter()
                    mpmath.lu_solve(am, bm)
                    t_lib = time.perf_counter() - t0
        except ImportError as exc:
            rows.append(dict(library=library, n=n, note=f"not installed: {exc}"))
            continue
        rows.append(dict(library=library, n=n, library_seconds=t_lib, ddblas_seconds=t_dd,
                         speedup=t_lib / t_dd, ddblas_backward_error_u2=eta))
    return rows


def _kappa_rows(plan: Plan) -> list[dict]:
    """Forward error against kappa (CPU, exact references from mpmath at 320 bits)."""
    import mpmath
    import scipy.linalg
    rows = []
    n = plan.kappa_sweep_n
    for kappa in plan.kappa_sweep:
        a = accuracy.ill_conditioned_matrix(n, kappa, seed=8)
        b = accuracy.random_dd((n,), exponents=(0, 0), seed=9)
        with mpmath.workprec(320):
            exact = mpmath.lu_solve(a.to_mpmath(), b.to_mpmath())
            scale = max(abs(v) for v in exact)

            def fwd(values):
                return float(max(abs(mpmath.mpf(values[i]) - exact[i]) for i in range(n)) / scale)

            info = {}
            solutions = (
                ("float64 solve (LAPACK)", [float(v) for v in scipy.linalg.solve(a.hi, b.hi)], ""),
                ("ddblas refine", ddblas.linalg.solve(a, b, method="refine", info=info).to_mpmath(),
                 info["method"]),
                ("ddblas dd-lu", ddblas.linalg.solve(a, b, method="dd-lu").to_mpmath(), ""))
            rows += [dict(kappa=kappa, solver=label, forward_error=fwd(values), ran=ran)
                     for label, values, ran in solutions]
    return rows


def suite_linalg(plan: Plan, progress) -> dict:
    devices = ["cpu"] + (["gpu"] if gpu_available() else [])
    tables = {"linalg-solve": [], "linalg-factor": [], "linalg-batched": []}
    ceiling = {"cpu": introspect.cpu_madd_ceiling(DEFAULT.fma, DEFAULT.add)}
    if "gpu" in devices:
        ceiling["gpu"] = gpu_madd_ceiling(DEFAULT)
    for device in progress(devices, "linalg"):
        tables["linalg-solve"] += _solve_rows(plan, device)
        tables["linalg-factor"] += _factor_rows(plan, device)
        tables["linalg-batched"] += _batched_rows(plan, device, ceiling[device])
    tables["linalg-libraries"] = _library_rows(plan)
    tables["linalg-kappa"] = _kappa_rows(plan)
    return dict(tables=tables, summary={}, notes=[MPLAPACK_DD])


def run(suites=SUITES, plan: Plan | None = None, out_dir: str = "bench-results",
        doc: str | None = None, section: str | None = None, command: str = "") -> dict:
    """Run the suites, print the tables and write out_dir/bench.{json,csv}, the plots and
    out_dir/bench.md (and the `section` block of `doc`, if given). Returns the results."""
    from . import benchreport
    plan = plan or Plan()
    progress = benchreport.progress_bar
    results = dict(meta=benchreport.metadata(command, plan), tables={}, summary={}, notes=[])
    for suite in suites:
        part = {"rgemm": suite_rgemm, "baselines": suite_baselines, "fma": suite_fma,
                "batched": suite_batched, "transfers": suite_transfers,
                "tsm": suite_tsm, "linalg": suite_linalg, "dask": suite_dask}[suite](plan, progress)
        results["tables"].update(part["tables"])
        results["summary"].update(part["summary"])
        results["notes"] += part.get("notes", [])
    benchreport.write(results, out_dir, doc=doc, section=section)
    return results
