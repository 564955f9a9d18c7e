"""The one GEMM front end: rgemm, rgemm_batched, matmul and the host-transfer pipeline all go
through it.

prepare() turns a call into a GemmCall, a checked and normalised record (op(A), op(B), the
output C, alpha and beta, the variant, the algorithm, the devices, the pipeline's chunk and the
info dict); execute() runs it: the cases without a product (empty C, K = 0, alpha = 0), a C
that kernels cannot address in place (computed into a contiguous copy and written back), operands
that overlap C (copied), the host-to-GPU pipeline (ddblas/_transfer.py), algorithm="auto"
(ddblas/_auto.py, the one chooser) and Ozaki's fallback, and finally one runner of the routine's
dispatch table {algorithm: runner(call, plan)} (ddblas/_gemm.py: the classic kernels, tsm and the
Ozaki schemes; ddblas/_batched.py: the batched kernel). Every kernel's strides come from
_backend.element_strides (kernel_parts for inputs, output_strides for C), which proves them
exact or has the data copied.
"""
from __future__ import annotations

import dataclasses
import functools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import auto as _auto
from ..engines import backend as _backend
from ..engines import cpu as _cpu
from . import ozaki as _ozaki
from . import ozaki2 as _ozaki2
from . import transfer as _transfer
from . import tsm as _tsm
from ..core.array import DDArray, asarray
from ..core.ops import check_output, multiply, on_one_device, operands, overlapping
from ..core.options import Options, resolve

ALGORITHMS = ("auto", "naive", "tiled", "blocked", "tsm", "ozaki-fp64", "ozaki-int8",
              "ozaki2-int8")
BATCHED = "batched"        # the algorithm of rgemm_batched (its one kernel)
BLOCKS = (2, 4)            # the register block b (TM = TN = b) of the blocked GPU kernel
# algorithm -> Ozaki engine: _ozaki's "fp64" and "int8" (scheme I), _ozaki2's "crt" (scheme II)
_OZAKI = {"ozaki-fp64": "fp64", "ozaki-int8": "int8", "ozaki2-int8": "crt"}
_CALIBRATING = threading.Lock()   # cpu_rates: one measurement at a time
OZAKI_ENGINES = tuple(_OZAKI.values())
_log = logging.getLogger("ddblas")


def transposed(value, name: str) -> bool:
    """True for a transposed operand: "T" or "C" (real data: the same), False for "N"."""
    if not isinstance(value, str) or value.upper() not in ("N", "T", "C"):
        raise ValueError(f"{name} must be 'N', 'T' or 'C', got {value!r}")
    return value.upper() != "N"


@functools.lru_cache(maxsize=64)
def _int_scalar(value: int) -> DDArray:
    """A Python int as a read-only 0-d DDArray on the CPU (the -1, 0 and 1 of the factorizations'
    thousands of updates are converted once)."""
    x = asarray(value, device="cpu").reshape(())
    x.hi.flags.writeable = x.lo.flags.writeable = False
    return x


def dd_scalar(value, name: str) -> DDArray:
    """alpha or beta as a 0-d DDArray on the CPU; a bad value is an error naming it."""
    if type(value) is int:
        return _int_scalar(value)
    try:
        x = value.to_device("cpu") if isinstance(value, DDArray) else asarray(value, device="cpu")
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name} must be a DD scalar (a number, a numeric string or a 0-d "
                        f"DDArray), got {value!r}: {exc}") from None
    if x.size != 1:
        raise ValueError(f"{name} must be a scalar, got an array of shape {x.shape}")
    return x.reshape(())


def gemm_flags(alpha_one: bool, beta_zero: bool) -> int:
    """The GemmFlags of the GEMM kernels (cuda_src/geometry.h) for these scalars."""
    flags = _cpu.geometry()["flags"]
    return (flags["alpha_one"] if alpha_one else 0) | (flags["beta_zero"] if beta_zero else 0)


def _is(x: DDArray, value: float) -> bool:
    return float(x.hi) == value and float(x.lo) == 0


@dataclass(frozen=True)
class GemmCall:
    """A checked GEMM: C = alpha op(A) op(B) + beta C, of one product (routine "rgemm", 2-D) or a
    batch ("rgemm_batched": op(A), op(B) 2-D or 3-D, C 3-D)."""
    routine: str
    op_a: DDArray          # op(A), m x k (or batch x m x k)
    op_b: DDArray          # op(B), k x n (or batch x k x n)
    c: DDArray | None      # the output, overwritten (None: a call only asked about)
    alpha: DDArray         # 0-d, on the CPU
    beta: DDArray
    opts: Options
    algorithm: str         # one of ALGORITHMS for rgemm, BATCHED for rgemm_batched
    block: int | None
    device: str            # where the operands are
    target: str            # where it runs ("gpu" with host operands: the pipeline)
    chunk: int | None
    info: dict | None
    accuracy: str = "classic"  # Ozaki's rule for S: one of _ozaki.ACCURACY

    @property
    def m(self) -> int:
        return self.op_a.shape[-2]

    @property
    def n(self) -> int:
        return self.op_b.shape[-1]

    @property
    def k(self) -> int:
        return self.op_a.shape[-1]

    @property
    def beta_zero(self) -> bool:
        return _is(self.beta, 0)

    @property
    def flags(self) -> int:
        return gemm_flags(_is(self.alpha, 1), self.beta_zero)

    @property
    def scalars(self) -> tuple:
        """(alpha hi, alpha lo, beta hi, beta lo) as floats, the kernels' scalar arguments."""
        return (float(self.alpha.hi), float(self.alpha.lo), float(self.beta.hi),
                float(self.beta.lo))


def _op(x: DDArray, flip: bool) -> DDArray:
    """op(X) of a 2-D or 3-D operand (a transpose of its last two axes)."""
    return x.transpose(*range(x.ndim - 2), x.ndim - 1, x.ndim - 2) if flip else x


def require_algorithm(algorithm) -> None:
    """ValueError naming `algorithm` unless it is one of rgemm's ALGORITHMS (rgemm, matmul of
    stacks, which does not use it, and every linalg routine, whose products run on rgemm)."""
    if not isinstance(algorithm, str) or algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {', '.join(map(repr, ALGORITHMS))}, got "
                         f"{algorithm!r}")


def _check_options(routine: str, algorithm, block, chunk, info, accuracy) -> None:
    if routine == "rgemm":
        require_algorithm(algorithm)
    if accuracy not in _ozaki.ACCURACY:
        raise ValueError(f"accuracy must be one of {', '.join(map(repr, _ozaki.ACCURACY))}, got "
                         f"{accuracy!r}")
    if info is not None and not isinstance(info, dict):
        raise TypeError(f"info must be a dict (filled with what {routine} did), got "
                        f"{type(info).__name__}")
    _transfer.check_chunk(chunk)
    if block is not None and (isinstance(block, bool) or not isinstance(block, (int, np.integer))
                              or block not in BLOCKS):   # 2.0 named no kernel ("b2.0")
        raise ValueError(f"block must be 2 or 4, got {block!r}")


def _shapes(routine: str, a: DDArray, b: DDArray, op_a, op_b, transa, transb) -> tuple:
    """(batch or None, m, n, k) of the product, or a ValueError naming the shapes."""
    dims = (2,) if routine == "rgemm" else (2, 3)
    for name, x in (("a", a), ("b", b)):
        if x.ndim not in dims:
            raise ValueError(f"rgemm needs 2-D matrices, {name} has shape {x.shape}"
                             if routine == "rgemm" else
                             f"rgemm_batched needs 3-D (batch, rows, columns) or 2-D operands, "
                             f"{name} has shape {x.shape}")
    if routine != "rgemm" and a.ndim == 2 and b.ndim == 2:
        raise ValueError(f"rgemm_batched needs a 3-D operand, got shapes {a.shape} and {b.shape} "
                         f"(use rgemm for a single product)")
    (m, k), (k2, n) = op_a.shape[-2:], op_b.shape[-2:]
    if k != k2:
        raise ValueError(f"{routine}: op(A) is {m}x{k} (a has shape {a.shape}, "
                         f"transa={transa!r}) but op(B) is {k2}x{n} (b has shape {b.shape}, "
                         f"transb={transb!r})")
    if routine == "rgemm":
        return None, m, n, k
    # NumPy's broadcasting: a batch of 1 goes with any other (0 included)
    batches = {x.shape[0] for x in (op_a, op_b) if x.ndim == 3} - {1}
    batch = batches.pop() if batches else 1
    if batches:
        raise ValueError(f"rgemm_batched: the batch sizes of a {a.shape} and b {b.shape} differ "
                         f"and neither is 1")
    return batch, m, n, k


def _check_output(c: DDArray, shape: tuple, routine: str) -> None:
    """c must have the product's shape and be writable element by element (check_output)."""
    if c.shape != shape:
        what = "op(A) @ op(B) is " + "x".join(map(str, shape)) if len(shape) == 2 else \
            f"the batch of op(A) @ op(B) is {shape}"
        raise ValueError(f"c has shape {c.shape}, but {what}")
    check_output(c, "c", routine)


def prepare(routine: str, a, b, c=None, *, alpha=1, beta=0, transa="N", transb="N", fma=None,
            add=None, algorithm="auto", block=None, device=None, chunk=None,
            info=None, accuracy="classic", new_output=True) -> GemmCall:
    """Check every argument of rgemm or rgemm_batched (routine) and normalise it into a GemmCall:
    a, b, c as DDArrays on one device (a and b readable by kernels in place, else copied), op()
    applied, alpha and beta as 0-d DDArrays, the variant resolved; c None: a new output (then
    beta must be 0), or none with new_output=False (a call to ask about, never to execute).
    Errors name the argument."""
    flip_a, flip_b = transposed(transa, "transa"), transposed(transb, "transb")
    _check_options(routine, algorithm, block, chunk, info, accuracy)
    opts = resolve(fma, add)
    if c is not None and not isinstance(c, DDArray):   # a NumPy c would lose its lo part
        raise TypeError(f"{routine}: c must be a DDArray ({routine} overwrites it), got "
                        f"{type(c).__name__}")
    given = on_one_device(a, b, names=("a", "b")) if c is None else \
        on_one_device(a, b, c, names=("a", "b", "c"))
    a, b = operands(*given[:2])
    op_a, op_b = _op(a, flip_a), _op(b, flip_b)
    batch, m, n, k = _shapes(routine, a, b, op_a, op_b, transa, transb)
    target = _transfer.target_device(device, a.device)
    alpha_dd, beta_dd = dd_scalar(alpha, "alpha"), dd_scalar(beta, "beta")
    shape = (m, n) if batch is None else (batch, m, n)
    if c is None:
        if not _is(beta_dd, 0):
            raise ValueError(f"beta != 0 needs an input {'matrix' if batch is None else 'array'} "
                             f"c")
        c = DDArray(a.xp.empty(shape), a.xp.empty(shape), normalize=False) if new_output else None
    else:
        c = given[2]
        _check_output(c, shape, routine)
    return GemmCall(routine, op_a, op_b, c, alpha_dd, beta_dd, opts,
                    algorithm if routine == "rgemm" else BATCHED, block, a.device, target, chunk,
                    info, accuracy)


def subtract(op_a: DDArray, op_b: DDArray, c: DDArray, opts: Options, algorithm: str,
             runners: dict[str, Callable]) -> None:
    """Run rgemm(op_a, op_b, c, alpha=-1, beta=1) without prepare's checks and execute's copies,
    for blocks that a factorization owns and has checked: 2-D DDArrays on one device, op_a and
    op_b readable by kernels in place, c addressable in place (_backend.in_place) and disjoint
    from both, shapes that agree, algorithm one of ALGORITHMS. K = 0 or an empty C: C stays."""
    if op_a.shape[1] and c.size:
        _dispatch(GemmCall("rgemm", op_a, op_b, c, _int_scalar(-1), _int_scalar(1), opts,
                           algorithm, None, c.device, c.device, None, None), runners)


def execute(call: GemmCall, runners: dict[str, Callable]) -> DDArray:
    """Run a prepared call with the routine's runners and return call.c. A C that kernels
    cannot address in place (odd byte strides, a misaligned address, hi and lo laid out
    differently) is computed into a contiguous copy and written back."""
    c = call.c
    if c.size == 0:
        return c
    if _backend.in_place(c.hi, c.lo):
        _compute(call, runners)
        return c
    work = DDArray(_backend.contiguous(c.hi), _backend.contiguous(c.lo), normalize=False)
    _compute(dataclasses.replace(call, c=work), runners)
    _backend.copy_into(c.hi, work.hi)
    _backend.copy_into(c.lo, work.lo)
    return c


def _compute(call: GemmCall, runners: dict[str, Callable]) -> None:
    c = call.c
    if call.k == 0 or _is(call.alpha, 0):   # no product: C = beta C, C never read if beta = 0
        if call.beta_zero:
            c.hi[...] = 0
            c.lo[...] = 0
        else:
            c[...] = multiply(call.beta.to_device(c.device), c, fma=call.opts.fma,
                              add=call.opts.add)
        return
    if overlapping(call.op_a, c) or overlapping(call.op_b, c):  # C written, A, B read
        call = dataclasses.replace(call, op_a=call.op_a.copy(), op_b=call.op_b.copy())
    if call.target != call.device:
        _pipeline(call, runners)
    else:
        _dispatch(call, runners)


def plans(op_a, op_b, opts: Options, info, engines=("fp64",), accuracy="classic") -> dict:
    """The plans of the Ozaki engines (OZAKI_ENGINES) from one scan of the data, by the rule
    `accuracy`; info (a dict or None) gets the time in seconds["plan"]."""
    start = time.perf_counter()
    scanned = _ozaki.scan(op_a, op_b)
    found = {e: _ozaki2.plan(op_a, op_b, opts, scanned, accuracy) if e == "crt" else
             _ozaki.plan(op_a, op_b, opts, e, scanned, accuracy) for e in engines}
    if info is not None:
        info["seconds"] = {"plan": time.perf_counter() - start}
    return found


def cpu_rates(opts: Options, runners: dict[str, Callable]) -> _auto.Rates:
    """The CPU's rates for auto's model, measured at the first call for the variant and the
    OpenMP thread count, then cached for the process: the classic kernel (runners["blocked"]) and
    NumPy's float64 GEMM on CPU_RATES_SIZE^3 products, the memory on a 64 MiB copy; best of
    three, after a warm-up. One thread measures while the others wait (threads that measured
    at once timed each other's load: 4 threads' first 1024^3 products picked differently)."""
    with _CALIBRATING:
        return _measured_cpu_rates(opts, _cpu.get_threads(), runners["blocked"])


@functools.lru_cache(maxsize=None)
def _measured_cpu_rates(opts: Options, threads: int, classic: Callable) -> _auto.Rates:
    n = _auto.CPU_RATES_SIZE
    rng = np.random.default_rng(0)
    x = rng.random((n, n))
    a, b = DDArray(x, x * 2.0 ** -60), DDArray(x.T.copy(), x.T * 2.0 ** -61)

    def best(f) -> float:
        f()
        times = []
        for _ in range(3):
            start = time.perf_counter()
            f()
            times.append(time.perf_counter() - start)
        return min(times)
    flops = 2 * n ** 3
    dd = best(lambda: execute(prepare("rgemm", a, b, algorithm="blocked", fma=opts.fma,
                                      add=opts.add), {"blocked": classic}))
    dgemm = best(lambda: x @ x)
    block = np.ones(1 << 23)       # 64 MiB
    copy = np.empty_like(block)
    memory = best(lambda: np.copyto(copy, block))
    return _auto.Rates(classic={opts.suffix: flops / dd / 1e9}, dgemm=flops / dgemm / 1e9,
                       int8=flops / dgemm / 1e12, memory=2 * block.nbytes / memory / 1e9,
                       fixed=(0.0, 0.0, 0.0), crt_entry=_auto.CPU_CRT_ENTRY_SECONDS)


def _choose(call: GemmCall, device: str, m: int, info, runners: dict[str, Callable]) -> tuple:
    """(algorithm, reason, plan) of algorithm="auto" for an m-row product on `device`, planned
    on call's operands."""
    algorithm, reason, plan = _auto.choose(
        device, m, call.n, call.k, call.opts.suffix,
        lambda: plans(call.op_a, call.op_b, call.opts, info, OZAKI_ENGINES, call.accuracy),
        lambda: cpu_rates(call.opts, runners))
    _log.debug("rgemm M=%d N=%d K=%d on %s: algorithm='auto' chose %s: %s", m, call.n, call.k,
               device, "cpu" if device == "cpu" and algorithm == "blocked" else algorithm,
               reason)
    return algorithm, reason, plan


def _dispatch(call: GemmCall, runners: dict[str, Callable]) -> None:
    """Resolve "auto" and Ozaki's fallback (to "blocked"), then run the runner."""
    algorithm, plan, info = call.algorithm, None, call.info
    if algorithm == "auto":
        algorithm, reason, plan = _choose(call, call.device, call.m, info, runners)
        if info is not None:
            info["auto"] = reason
    if algorithm in _OZAKI:
        engine = _OZAKI[algorithm]
        if plan is None:
            plan = plans(call.op_a, call.op_b, call.opts, info, (engine,), call.accuracy)[engine]
        if info is not None:
            info.update(plan.describe())
        if plan.fallback is not None:
            algorithm = "blocked"
    runners[algorithm](dataclasses.replace(call, algorithm=algorithm), plan)


def _pipeline(call: GemmCall, runners: dict[str, Callable]) -> None:
    """Host operands on the GPU through _transfer's pipeline of chunks; each chunk is a
    GemmCall on device views run by _dispatch. For "auto" the algorithm is chosen once, for
    the whole product, when the first chunk's data is on the GPU."""
    decided = [call.algorithm]

    def compute(views: list, out: DDArray) -> None:
        part = dataclasses.replace(call, op_a=views[0], op_b=views[1], c=out,
                                   device=out.device, target=out.device, info=None,
                                   algorithm=decided[0])
        if decided[0] == "auto":
            decided[0], reason, _ = _choose(part, call.target, call.m, None, runners)
            part = dataclasses.replace(part, algorithm=decided[0])
            if call.info is not None:
                call.info["auto"] = reason + (" (S planned on the first chunk of rows)" if
                                              call.m * call.n * call.k >= _auto.OZAKI_MIN_WORK
                                              else "")
        _dispatch(part, runners)

    if call.routine == "rgemm":
        _transfer.gemm(call, compute)
        if call.info is not None:
            call.info["algorithm"] = decided[0]
    else:
        _transfer.gemm_batched(call, compute)


def run_tsm(call: GemmCall, plan=None) -> None:
    """The runner of algorithm="tsm" (ddblas/_tsm.py)."""
    tsm = _tsm.plan(call.m, call.n, call.k, call.opts.suffix)
    if call.info is not None:
        call.info.update(algorithm="tsm", tsm=tsm.describe())
    scalars = call.scalars
    _tsm.run(tsm, call.op_a, call.op_b, scalars[:2], scalars[2:], call.c, call.flags,
             gemm_flags(True, True), call.opts.suffix)


def run_ozaki(call: GemmCall, plan: _ozaki.Plan) -> None:
    """The runner of algorithm="ozaki-fp64", "ozaki-int8" (ozaki.py) and "ozaki2-int8"
    (ozaki2.py) with a plan that does not fall back."""
    if call.info is not None:
        call.info.update(algorithm=call.algorithm, gemms=plan.gemms)
    scalars = call.scalars
    scheme = _ozaki2 if plan.engine == "crt" else _ozaki
    scheme.run(plan, call.op_a, call.op_b, scalars[:2], scalars[2:], call.c, call.flags,
               call.opts.suffix, None if call.info is None else call.info["seconds"])
