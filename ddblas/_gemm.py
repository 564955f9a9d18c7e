"""rgemm: C = alpha * op(A) * op(B) + beta * C in DD, and matmul / @ on top of it.

Python only checks arguments, reads strides and launches a kernel of cuda_src/ (gemm.h: the
naive kernel of both devices; gemm_cpu.h: the CPU kernel; gemm_gpu.h: the tiled and
register-blocked GPU kernels). Every classic kernel sums each C element over k in increasing
order, so all of them and both devices agree bit for bit. algorithm="ozaki-fp64"
(ddblas/_ozaki.py, cuda_src/ozaki.h, docs/ozaki.md) sums exact float64 slice products instead: a
different result within the same bound, equal on both devices; algorithm="ozaki-int8" does the
same with int8 slices and exact int32 products (cuBLAS int8 GEMMs on the GPU). algorithm="auto"
(the default) chooses between the classic kernel and ozaki-fp64 by ddblas/_auto.py's cost model.
"""
from __future__ import annotations

import logging
import time

from . import _auto, _backend, _cpu, _ozaki, _transfer, _tsm
from ._array import DDArray, asarray
from ._ops import _operands, _strided, multiply
from ._options import resolve

ALGORITHMS = ("auto", "naive", "tiled", "blocked", "tsm", "ozaki-fp64", "ozaki-int8")
_OZAKI = {"ozaki-fp64": "fp64", "ozaki-int8": "int8"}   # algorithm -> _ozaki engine
_log = logging.getLogger("ddblas")
BLOCKS = (2, 4)            # the register block b (TM = TN = b) of the blocked GPU kernel

def _default_block(m: int, n: int) -> int:
    """b = 4 once C has a full wave of its 64 x 32 tiles (3 blocks per multiprocessor), else b = 2
    (32 x 32 tiles): b = 4 leaves multiprocessors idle on small C (docs/performance.md)."""
    import cupy
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    bm, bn = (_cpu.geometry()["gemm"]["b4"]["k"][x] for x in ("BM", "BN"))
    return 4 if -(-m // bm) * -(-n // bn) >= 3 * sms else 2




def _trans(value, name: str) -> bool:
    """True for a transposed operand: "T" or "C" (real data: the same), False for "N"."""
    if not isinstance(value, str) or value.upper() not in ("N", "T", "C"):
        raise ValueError(f"{name} must be 'N', 'T' or 'C', got {value!r}")
    return value.upper() != "N"


def _scalar(value, name: str) -> DDArray:
    x = asarray(value, device="cpu") if not isinstance(value, DDArray) else value.to_device("cpu")
    if x.size != 1:
        raise ValueError(f"{name} must be a scalar, got an array of shape {x.shape}")
    return x.reshape(())


def _scalars(alpha, beta):
    """alpha and beta as 0-d DDArrays on the CPU, and whether beta is zero."""
    alpha_dd, beta_dd = _scalar(alpha, "alpha"), _scalar(beta, "beta")
    return alpha_dd, beta_dd, float(beta_dd.hi) == 0 and float(beta_dd.lo) == 0


def _new_output(xp, shape: tuple, beta_zero: bool, noun: str) -> DDArray:
    """An uninitialised result when the caller passed no c (then beta must be 0)."""
    if not beta_zero:
        raise ValueError(f"beta != 0 needs an input {noun} c")
    return DDArray(xp.empty(shape), xp.empty(shape))


def _shares_memory(x: DDArray, c: DDArray) -> bool:
    may_share = x.xp.may_share_memory
    return any(may_share(p, q) for p in (x.hi, x.lo) for q in (c.hi, c.lo))


def _plan(op_a, op_b, opts, info, engines=("fp64",)) -> dict:
    """The plans of the Ozaki engines ("fp64", "int8") from one scan of the data; info (a dict
    or None) gets the time in seconds["plan"] (_record_plan adds the chosen plan)."""
    start = time.perf_counter()
    scanned = _ozaki.scan(op_a, op_b)
    plans = {e: _ozaki.plan(op_a, op_b, opts, e, scanned) for e in engines}
    if info is not None:
        info["seconds"] = {"plan": time.perf_counter() - start}
    return plans


def _record_plan(plan: _ozaki.Plan, info) -> None:
    if info is not None:
        info.update(slices=plan.slices, beta=plan.beta, chunk=plan.chunk, chunks=plan.chunks,
                    gemms=0, bound=plan.bound, fallback=plan.fallback)


def _check_writable(c: DDArray, device: str, routine: str) -> None:
    """An output c must be writable and hold distinct elements (no zero stride)."""
    if device == "cpu" and not (c.hi.flags.writeable and c.lo.flags.writeable):
        raise ValueError(f"c is read-only: {routine} overwrites c, pass a writable array")
    if c.size and any(s == 0 for s, d in zip(c.hi.strides + c.lo.strides, c.shape * 2) if d > 1):
        raise ValueError("c has overlapping elements (a zero stride): pass a real array")


def _no_product(c: DDArray, k: int, alpha_dd, beta_dd, beta_zero: bool, opts) -> bool:
    """When K = 0 or alpha = 0 there is no product: C = beta * C (zeros when beta = 0, C never
    read). Returns True when that was the whole job."""
    if k != 0 and not (float(alpha_dd.hi) == 0 and float(alpha_dd.lo) == 0):
        return False
    if beta_zero:
        c.hi[...] = 0
        c.lo[...] = 0
    else:
        c[...] = multiply(beta_dd.to_device(c.device), c, fma=opts.fma, add=opts.add)
    return True


def _flags(alpha_dd, beta_zero: bool) -> int:
    """The GemmFlags of the GEMM kernels for these scalars."""
    alpha_one = float(alpha_dd.hi) == 1 and float(alpha_dd.lo) == 0
    flags = _cpu.geometry()["flags"]  # GemmFlags of cuda_src/geometry.h
    return (flags["alpha_one"] if alpha_one else 0) | (flags["beta_zero"] if beta_zero else 0)


def _check_info(info, routine: str) -> None:
    if info is not None and not isinstance(info, dict):
        raise TypeError(f"info must be a dict (filled with what {routine} did), got "
                        f"{type(info).__name__}")


def rgemm(a, b, c=None, *, alpha=1, beta=0, transa="N", transb="N", fma=None, add=None,
          algorithm="auto", block=None, info=None, device=None, chunk=None) -> DDArray:
    """C = alpha * op(A) * op(B) + beta * C in double-double.

    a, b: 2-D DDArrays (or anything ddblas.asarray accepts) on one device; op(X) is X for
    transa/transb "N" and X.T for "T" ("C" is accepted as "T"). c: an M x N DDArray that is
    overwritten and returned (BLAS semantics); when None a new array is returned and beta must be
    0. alpha, beta: DD scalars (numbers, strings, 0-d DDArrays). beta = 0 never reads C; alpha = 0
    skips the product. fma, add: the arithmetic variant (default: ddblas.options). algorithm:
    "auto" (the default) picks by the shape and a cost model of measured rates (ddblas/_auto.py,
    docs/ozaki.md): "tsm" on both devices for tall-and-skinny products (min(M, N) <= 32 and
    max(M, N) * K >= 2^20); otherwise on the CPU the classic kernel; on the GPU the classic
    kernel for M*N*K < 1024^3, above that whichever of the classic kernel, ozaki-fp64 and
    ozaki-int8 has the lowest estimated time (from the number of slices one scan of the data
    gives each). All meet the bound below, so "auto" does too; its choice and
    the reason are in info["algorithm"] and info["auto"] and in a debug message of the logger
    "ddblas". Results equal the CPU's bit for bit when both devices pick the same algorithm;
    where the GPU picks an Ozaki scheme they differ from the CPU's (both within the bound).
    Or explicitly: "naive" (one element per thread, on either device: the reference), or on the
    GPU "tiled" (shared-memory tiles) or "blocked" (register-blocked b x b per thread, block=2
    or 4; default by size); on the CPU "tiled" and "blocked" both mean the packed, vectorised
    OpenMP kernel of cuda_src/gemm_cpu.h (threads: ddblas.cpu_threads). Every one of these sums
    each element over k in increasing order, so the results are identical bit for bit; strided
    and transposed views are read in place. "ozaki-fp64" (both devices): exact float64 GEMMs of
    integer slices (NumPy's BLAS or cuBLAS) accumulated in DD (docs/ozaki.md), within the same
    bound, with the same result on CPU and GPU; it falls back to the classic kernel (the CPU
    kernel or "blocked") for non-finite inputs and badly scaled data. "tsm" (both devices): the
    tall-and-skinny kernel (TSM2, ddblas/_tsm.py): one row of op(A) per GPU thread, the few
    columns of C in registers, K split into pieces whose partial sums are added in a fixed order
    when the rows alone cannot fill the GPU (gemm.h; a C with fewer rows than columns is
    computed as C^T); the same order on the CPU, so CPU == GPU bit for bit; info["tsm"] has its
    plan (transposed, width t2, groups, pieces, piece_len). "ozaki-int8" (both
    devices): the same scheme with 7-bit slices (int8 digits in
    [-127, 127]) whose products are exact int8 x int8 -> int32 GEMMs (cuBLAS on the GPU, NumPy
    on the CPU), the products of one t + u as one GEMM over the concatenated K; the same bound,
    the same result on CPU and GPU and the same fallbacks (S up to 24; about 14 or more for
    full DD data). info: a dict to fill with what was done ("algorithm"; for "auto" its
    reason, "auto"; when an Ozaki algorithm ran or fell back
    "slices", "beta", "chunk", "chunks", "gemms" (0 unless it ran), "bound" (the GEMM that gave
    S's lower bound: "int8 first digits" or "float64"), "fallback", "seconds" per
    phase (plan, slice, gemm, accumulate); asking for it synchronizes the GPU between phases);
    left empty when no product is formed (an empty C, K = 0 or alpha = 0).

    device: None (the default) runs on the operands' device. device="gpu" with host (NumPy)
    operands runs on the GPU as a pipeline of row chunks of op(A) and C whose copies to the
    GPU, kernels and copies back overlap (pinned buffers, CUDA streams; ddblas/_transfer.py,
    docs/performance.md) and returns a host array: c, if given (a host array, overwritten), or
    a new one. The classic kernels give the same bits as on GPU copies of the operands; for
    "auto" the algorithm is chosen once for the whole product (ozaki-fp64's S from the first
    chunk's plan); ozaki-fp64 and tsm plan every chunk, so their results are within the same
    bound but may differ in the last bits from the unchunked call. chunk: rows of op(A) a chunk (default:
    chosen by the pipeline's model of the measured bandwidths and the kernel rates); used only
    by that pipeline. info then also gets "transfer": chunk, chunks, streams, the model's
    seconds and the bandwidths (GB/s). device="cpu" with GPU operands is a ValueError,
    device="gpu" without a GPU a RuntimeError.

    Error: |C - exact| <= (2 c_mul + K c_add)(1 + 2^-40)(|alpha| |op(A)||op(B)| + |beta| |C0|)
    componentwise (docs/algorithms.md; tsm's pieces too); ozaki-fp64 and ozaki-int8 meet the
    same bound (docs/ozaki.md). Non-FMA products need entries up to 2^996 in magnitude and
    products up to 2^1000 (beyond: inf or nan in C).
    """
    flip_a, flip_b = _trans(transa, "transa"), _trans(transb, "transb")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    _check_info(info, "rgemm")
    _transfer.check_chunk(chunk)
    if block is not None and block not in BLOCKS:
        raise ValueError(f"block must be 2 or 4, got {block!r}")
    opts = resolve(fma, add)
    operands = _operands(a, b) if c is None else _operands(a, b, c)
    a, b = operands[0], operands[1]
    for name, x in (("a", a), ("b", b)):
        if x.ndim != 2:
            raise ValueError(f"rgemm needs 2-D matrices, {name} has shape {x.shape}")
    op_a, op_b = (a.T if flip_a else a), (b.T if flip_b else b)
    (m, k), (k2, n) = op_a.shape, op_b.shape
    if k != k2:
        raise ValueError(f"rgemm: op(A) is {m}x{k} (a has shape {a.shape}, transa={transa!r}) "
                         f"but op(B) is {k2}x{n} (b has shape {b.shape}, transb={transb!r})")
    target = _transfer.target_device(device, a.device)
    device = a.device
    alpha_dd, beta_dd, beta_zero = _scalars(alpha, beta)
    if c is None:
        c = _new_output(a.xp, (m, n), beta_zero, "matrix")
    else:
        c = operands[2]
        if c.shape != (m, n):
            raise ValueError(f"c has shape {c.shape}, but op(A) @ op(B) is {m}x{n}")
        _check_writable(c, device, "rgemm")
    if m == 0 or n == 0 or _no_product(c, k, alpha_dd, beta_dd, beta_zero, opts):
        return c
    if _shares_memory(a, c) or _shares_memory(b, c):  # C is written while A and B are read
        op_a, op_b = op_a.copy(), op_b.copy()
    if c.hi.strides != c.lo.strides:
        raise ValueError("c's hi and lo arrays have different layouts: pass a DDArray whose "
                         "parts are laid out alike (e.g. a copy())")
    if target != device:
        return _transfer.gemm(op_a, op_b, c, alpha=alpha_dd, beta=beta_dd, beta_zero=beta_zero,
                              opts=opts, algorithm=algorithm, block=block, chunk=chunk, info=info)
    a_hi, a_lo, a_rs, a_cs = _strided(op_a)
    b_hi, b_lo, b_rs, b_cs = _strided(op_b)
    c_hi, c_lo, c_rs, c_cs = c.hi, c.lo, c.hi.strides[0] // 8, c.hi.strides[1] // 8
    flags = _flags(alpha_dd, beta_zero)
    alpha_pair = (float(alpha_dd.hi), float(alpha_dd.lo))
    beta_pair = (float(beta_dd.hi), float(beta_dd.lo))
    args = (m, n, k, a_hi, a_lo, a_rs, a_cs, b_hi, b_lo, b_rs, b_cs, *alpha_pair, *beta_pair,
            c_hi, c_lo, c_rs, c_cs, flags)
    be = _backend.backend(device)
    plan = None
    if algorithm == "auto":
        algorithm, reason, plan = _auto.choose(
            device, m, n, k, opts.suffix, lambda: _plan(op_a, op_b, opts, info, _ozaki.ENGINES))
        _log.debug("rgemm M=%d N=%d K=%d on %s: algorithm='auto' chose %s: %s", m, n, k, device,
                   "cpu" if device == "cpu" and algorithm == "blocked" else algorithm, reason)
        if info is not None:
            info["auto"] = reason
    if algorithm in _OZAKI:
        if plan is None:
            plan = _plan(op_a, op_b, opts, info, (_OZAKI[algorithm],))[_OZAKI[algorithm]]
        _record_plan(plan, info)
        if plan.fallback is None:
            if info is not None:
                info.update(algorithm=algorithm, gemms=plan.gemms)
            _ozaki.run(plan, op_a, op_b, alpha_pair, beta_pair, c, flags, opts.suffix,
                       None if info is None else info["seconds"])
            return c
        algorithm = "blocked"
    if algorithm == "tsm":
        tsm = _tsm.plan(m, n, k, opts.suffix)
        if info is not None:
            info.update(algorithm="tsm", tsm=tsm.describe())
        _tsm.run(tsm, op_a, op_b, alpha_pair, beta_pair, c, flags, opts.suffix)
        return c
    if info is not None:
        info["algorithm"] = "cpu" if device == "cpu" and algorithm != "naive" else algorithm
    if algorithm == "naive":
        be.launch("ddblas_gemm_naive_" + opts.suffix, m * n, *args)
    elif device == "cpu":
        be.launch("ddblas_gemm_cpu_" + opts.suffix, m * n, *args)
    else:
        block = _default_block(m, n) if block is None else block
        kind = "tiled" if algorithm == "tiled" else f"b{block}"
        layout = ("m" if a_cs != 1 and a_rs == 1 else "k") + ("k" if b_cs != 1 and b_rs == 1 else "n")
        shape = _cpu.geometry()["gemm"][kind][layout[0]]
        bm, bn, threads = shape["BM"], shape["BN"], shape["threads"]
        be.launch_grid(f"ddblas_gemm_{kind}_{layout}_{opts.suffix}",
                       (-(-n // bn), -(-m // bm)), (threads,), *args, k, 0)  # one piece of K
    return c


def matmul(a, b, *, fma=None, add=None, algorithm="auto") -> DDArray:
    """a @ b in DD with NumPy's rules: 2-D operands through rgemm (algorithm as there; `@` uses
    "auto"), 3-D ones (a stack of matrices; the other operand may be 2-D, or have a batch of 1,
    and is broadcast) through rgemm_batched (its one kernel; algorithm is not used); a 1-D a is
    a row, a 1-D b a column, and that dimension is dropped from the result. Up to 3-D."""
    a, b = _operands(a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must not be scalars (use *)")
    if a.ndim > 3 or b.ndim > 3:
        raise ValueError(f"matmul takes 1-D, 2-D and 3-D operands, got shapes {a.shape} and "
                         f"{b.shape}")
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape} do not align "
                         f"({a2.shape[-1]} != {b2.shape[-2]})")
    if a2.ndim == 3 or b2.ndim == 3:
        from ._batched import rgemm_batched
        c = rgemm_batched(a2, b2, fma=fma, add=add)
    else:
        c = rgemm(a2, b2, fma=fma, add=add, algorithm=algorithm)
    if a.ndim == 1:
        c = c.reshape(c.shape[:-2] + c.shape[-1:])
    if b.ndim == 1:
        c = c.reshape(c.shape[:-1])
    return c
