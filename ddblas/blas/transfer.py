"""device="gpu" on host operands: rgemm and rgemm_batched as a pipeline of chunks whose host
copies, host-to-device copies, kernels and device-to-host copies overlap.

The pipeline. The chunked operands (the rows of op(A) and C for rgemm; the batch of rgemm_batched)
are cut into chunks of `chunk` units; the others (op(B); a broadcast operand) are sent once, first.
Chunk i runs on slot i mod STREAMS, each slot a CUDA stream with its own pinned host buffers and
device buffers, allocated once: the host copies chunk i from the caller's (pageable) arrays into
the slot's pinned buffer (NumPy copies on COPY_THREADS threads), queues its host-to-device copy,
the kernel (the plain rgemm / rgemm_batched on device views, inside `with stream:`) and the copy
back into pinned memory, records an event, and goes on with chunk i + 1 while the GPU works. A
slot is reused once its event has fired; then its result is copied into the caller's C.

Registered mode. The staging copy runs at the host's memory rate (33 GB/s on the H100's host,
below PCIe's 54) and every byte in and out passes it, so small-matrix batches, whose kernels are
short, are bound by it. Instead the C-contiguous chunked arrays (hi and lo of each, and C) can be
page-locked in place (cudaHostRegister, undone in a finally) and copied straight from and to the
caller's memory by cudaMemcpyAsync; strided arrays keep the staging path. Registration has its
own cost (the kernel pins every page and the driver maps it: from ~1 to ~100 GB/s depending on
the host and on huge pages), paid before the first chunk, so no fixed size threshold fits every
machine: rates() measures it once, like the copy rates, and the model below picks the faster
mode; a registration CUDA refuses (memory already pinned, a read-only mapping, limits) falls
back to staging.

The model: Nakasato's T = T_comm + T_kernel ("On evaluation of matrix-multiply kernels on a GPU",
eqs. 2-6) per chunk, as in Webster's chunk-size study of overlapped streams (figure 3.17). A
chunk of c units has four stages:
    T_host(c) = staged_bytes(c) / BW_host + HOST_CHUNK_SECONDS   (staging in and out)
    T_h2d(c)  = bytes_in(c) / BW_h2d
    T_k(c)    = the kernel's estimated time (rates of ddblas/_auto.py; LAUNCH_SECONDS added)
    T_d2h(c)  = bytes_out(c) / BW_d2h
and the pipeline of n = ceil(units / c) chunks takes about
    T(c) = bytes_fixed (1 / BW_host + 1 / BW_h2d) [+ bytes_registered / BW_register]
           + sum of the stages + (n - 1) max of the stages:
the operands sent once (and the registration), one chunk's fill and drain, and the slowest stage
once per further chunk. staged_bytes counts all bytes in and out when staging, only those of the
strided arrays when registered.
choose_chunk() takes the c of least T(c) among ceil(units / n), n = 1, 2, ..., with c at least
the minimum that keeps the GPU full (rgemm: rows whose tiles cover every multiprocessor 3 times;
rgemm_batched: MIN_BATCH_CHUNK_PER_SM products a multiprocessor) and the slots' buffers within
MAX_STAGING_BYTES, in each mode; _sized() keeps the faster. The bandwidths are measured once per
process (rates(): pinned copies of PROBE_BYTES each way, a staging copy, a registration).
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import math
import mmap
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import auto as _auto
from ..engines import backend as _backend
from ..engines import gpu as _gpu
from . import ozaki as _ozaki
from ..core.array import DDArray

STREAMS = 3                   # slots: chunk i + 2 is staged while chunks i, i + 1 are on the GPU
COPY_THREADS = max(1, min(8, os.cpu_count() or 1))
PARALLEL_COPY_BYTES = 1 << 22  # smaller host copies stay on one thread
PROBE_BYTES = 1 << 26
MAX_STAGING_BYTES = 1 << 30   # pinned (and device) chunk buffers of all slots together
MAX_CHUNKS = 1024             # chunk counts tried by choose_chunk
HOST_CHUNK_SECONDS = 1e-4     # Python work to issue one chunk (checks, launches, copy set-up)
LAUNCH_SECONDS = 2e-5         # one kernel launch
# rgemm_batched on the H100 (docs/performance.md, 19x32x9, fma/accurate): 0.32 ms at batch 10^4
# and 1.69 ms at 10^5 fit 0.15 ms + 2 m k n batch / 710 GFLOP/s.
BATCHED_GPU_GFLOPS = 710.0
BATCHED_FIXED_SECONDS = 1.5e-4
# Products per multiprocessor a batched chunk keeps at least: the GPU's fill only; small chunks
# are charged by BATCHED_FIXED_SECONDS (batch 1000, 7.6 a multiprocessor, took 0.13 ms on the
# H100, within the fit). 64 forced one chunk, hence no overlap at all, up to batch 16895.
MIN_BATCH_CHUNK_PER_SM = 16
TILE_ROWS, TILE_COLS, WAVES = 64, 32, 3   # rgemm's b = 4 tile, and the tiles per multiprocessor


@dataclass(frozen=True)
class Rates:
    """Bytes per second: pinned host to device, device to pinned host, pageable to pinned host
    (COPY_THREADS threads), and registering plus unregistering pageable memory (0: refused)."""
    h2d: float
    d2h: float
    host: float
    register: float = 0.0


@dataclass(frozen=True)
class Work:
    """A chunked problem for the model: units (rows or products), bytes a unit brings in and
    takes out, bytes sent once, the kernel's seconds for a chunk of c units; for registered
    mode, the bytes of unit_in + unit_out that skip staging and the bytes to register."""
    units: int
    unit_in: int
    unit_out: int
    fixed_in: int
    kernel_seconds: Callable[[int], float]
    unit_direct: int = 0
    registered: int = 0


def check_chunk(chunk) -> None:
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer))
                              or chunk < 1):
        raise ValueError(f"chunk must be a positive int (rows of op(A) for rgemm, products for "
                         f"rgemm_batched) or None (chosen by the model), got {chunk!r}")


def target_device(device, operands: str) -> str:
    """The device a GEMM runs on: the operands' (device=None), or "gpu" for host operands (the
    overlapped pipeline); a clear error for anything else."""
    if device is None:
        return operands
    _backend.check_device(device)
    if device == "cpu" and operands == "gpu":
        raise ValueError("device='cpu' with GPU operands: ddblas does not copy GPU operands "
                         "back to run on the CPU; pass .to_device('cpu') copies, or device=None")
    if device == "gpu":
        _gpu.require()
    return device


# ---- the model ----

def model_seconds(work: Work, chunk: int, rates: Rates, register: bool = False) -> float:
    """T(chunk) of the module docstring, staged or registered."""
    c = min(chunk, work.units)
    staged = work.unit_in + work.unit_out - (work.unit_direct if register else 0)
    stages = (c * staged / rates.host + HOST_CHUNK_SECONDS,
              c * work.unit_in / rates.h2d, work.kernel_seconds(c), c * work.unit_out / rates.d2h)
    fixed = work.fixed_in / rates.host + work.fixed_in / rates.h2d
    if register:
        fixed += work.registered / rates.register if rates.register else math.inf
    return fixed + sum(stages) + (-(-work.units // c) - 1) * max(stages)


def choose_chunk(work: Work, min_chunk: int, rates: Rates,
                 register: bool = False) -> tuple[int, float]:
    """(chunk, modelled seconds): the least T(c) over c = ceil(units / n), n = 1, 2, ...,
    with c >= min_chunk (or all units) and the slots' buffers within MAX_STAGING_BYTES (unless
    min_chunk alone exceeds it)."""
    floor = max(1, min(min_chunk, work.units))
    cap = max(floor, MAX_STAGING_BYTES // (STREAMS * max(1, work.unit_in + work.unit_out)))
    best = None
    for count in range(1, min(MAX_CHUNKS, work.units) + 1):
        chunk = -(-work.units // count)
        if chunk < floor:
            break
        if chunk <= cap:
            seconds = model_seconds(work, chunk, rates, register)
            if best is None or seconds < best[1]:
                best = (chunk, seconds)
    if best is None:  # even MAX_CHUNKS chunks are above the cap
        best = (cap, model_seconds(work, cap, rates, register))
    return best


def rgemm_min_rows(n: int, sms: int) -> int:
    """Rows of op(A) whose b = 4 tiles (64 x 32) of an n-column C cover every multiprocessor
    WAVES times."""
    return TILE_ROWS * -(-WAVES * sms // -(-n // TILE_COLS))


def rgemm_work(m: int, n: int, k: int, read_c: bool, seconds: Callable[[int], float]) -> Work:
    """16 bytes a DD: a row of op(A) (and of C when beta != 0) in, a row of C out; op(B) once."""
    return Work(m, 16 * k + (16 * n if read_c else 0), 16 * n, 16 * k * n, seconds)


def rgemm_kernel_seconds(algorithm: str, n: int, k: int, suffix: str) -> Callable[[int], float]:
    if algorithm == "ozaki-fp64":
        return lambda rows: _auto.ozaki_seconds(rows, n, k, _auto.TYPICAL_SLICES)
    return lambda rows: _auto.classic_seconds(rows, n, k, suffix) + LAUNCH_SECONDS


def batched_kernel_seconds(m: int, n: int, k: int, suffix: str) -> Callable[[int], float]:
    rate = BATCHED_GPU_GFLOPS * _auto.CLASSIC_GPU_GFLOPS[suffix] \
        / _auto.CLASSIC_GPU_GFLOPS["fma_accurate"]
    return lambda batch: BATCHED_FIXED_SECONDS + 2 * m * n * k * batch / (rate * 1e9)


# ---- host copies and rates ----

@functools.lru_cache(maxsize=None)
def _copy_pool():
    return concurrent.futures.ThreadPoolExecutor(COPY_THREADS, thread_name_prefix="ddblas-copy")


def _copy(dst: np.ndarray, src: np.ndarray) -> None:
    """dst[...] = src, split along axis 0 over COPY_THREADS threads when large (NumPy releases
    the GIL while it copies)."""
    pieces = min(COPY_THREADS, dst.shape[0]) if dst.nbytes >= PARALLEL_COPY_BYTES else 1
    if pieces <= 1:
        np.copyto(dst, src)
        return
    bounds = np.linspace(0, dst.shape[0], pieces + 1).astype(int)
    list(_copy_pool().map(lambda i: np.copyto(dst[bounds[i]:bounds[i + 1]],
                                              src[bounds[i]:bounds[i + 1]]), range(pieces)))


def _memcpy(dst_ptr: int, src_ptr: int, nbytes: int, to_device: bool, stream) -> None:
    from cupy.cuda import runtime
    kind = runtime.memcpyHostToDevice if to_device else runtime.memcpyDeviceToHost
    runtime.memcpyAsync(dst_ptr, src_ptr, nbytes, kind, stream.ptr)


def _contiguous(x: DDArray) -> bool:
    return x.hi.flags.c_contiguous and x.lo.flags.c_contiguous


def _register(arrays: list) -> list[int] | None:
    """Page-lock host arrays in place: the pages they span, merged (hi and lo, or two operands,
    may share a page, and a page registered twice is an error). The registered base addresses,
    or None, with nothing left registered, where CUDA refuses."""
    from cupy.cuda import runtime
    page = mmap.PAGESIZE
    spans = sorted((x.ctypes.data // page * page, -(-(x.ctypes.data + x.nbytes) // page) * page)
                   for x in arrays if x.nbytes)
    merged = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    done = []
    try:
        for start, end in merged:
            runtime.hostRegister(start, end - start, 0)  # cudaHostRegisterDefault
            done.append(start)
    except runtime.CUDARuntimeError:
        _unregister(done)
        return None
    return done


def _unregister(addresses: list[int]) -> None:
    from cupy.cuda import runtime
    for address in addresses:
        runtime.hostUnregister(address)


@functools.lru_cache(maxsize=None)
def rates() -> Rates:
    """The bandwidths of this machine, measured on first use: the best of 3 copies of
    PROBE_BYTES each way between pinned host memory and the GPU, of the staging copy, and of
    registering and unregistering PROBE_BYTES of (touched) pageable memory."""
    import cupy
    import cupyx
    words = PROBE_BYTES // 8
    pageable, pinned = np.ones(words), cupyx.empty_pinned(words)
    device = cupy.empty(words)
    stream = cupy.cuda.get_current_stream()  # ordered after work that used this memory before

    def best(fn) -> float:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return PROBE_BYTES / min(times)

    def copy(to_device: bool):
        dst, src = (device.data.ptr, pinned.ctypes.data) if to_device else \
            (pinned.ctypes.data, device.data.ptr)
        _memcpy(dst, src, PROBE_BYTES, to_device, stream)
        stream.synchronize()

    registered, register = _register([pageable]), 0.0  # refused: never registered mode
    if registered is not None:
        _unregister(registered)
        register = best(lambda: _unregister(_register([pageable])))
    return Rates(h2d=best(lambda: copy(True)), d2h=best(lambda: copy(False)),
                 host=best(lambda: _copy(pinned, pageable)), register=register)


# ---- the pipeline ----

def _memory_order(x: np.ndarray) -> tuple:
    """The axes of x from the largest stride to the smallest: a copy of x.transpose(order) into
    a C-contiguous buffer reads x about sequentially."""
    return tuple(sorted(range(x.ndim), key=lambda axis: -abs(x.strides[axis])))


class _Staging:
    """A pinned host buffer and a device buffer for up to `size` DDs (hi then lo), moving a host
    DDArray in the memory order of its hi part."""

    def __init__(self, size: int):
        import cupy
        import cupyx
        self.pinned, self.device = cupyx.empty_pinned(2 * size), cupy.empty(2 * size)

    def _views(self, x: DDArray):
        order = _memory_order(x.hi)
        shape, n = tuple(x.shape[axis] for axis in order), x.size
        back = tuple(int(a) for a in np.argsort(order))
        return order, back, shape, n

    def stage(self, x: DDArray) -> None:
        """Copy host x into the pinned buffer."""
        order, _, shape, n = self._views(x)
        for offset, part in ((0, x.hi), (n, x.lo)):
            _copy(self.pinned[offset:offset + n].reshape(shape), part.transpose(order))

    def device_view(self, x: DDArray) -> DDArray:
        """The device buffer as an array shaped like x (its chunk's data once sent)."""
        _, back, shape, n = self._views(x)
        return DDArray(self.device[:n].reshape(shape).transpose(back),
                       self.device[n:2 * n].reshape(shape).transpose(back), normalize=False)

    def send(self, x: DDArray, stream) -> None:
        _memcpy(self.device.data.ptr, self.pinned.ctypes.data, 16 * x.size, True, stream)

    def receive(self, x: DDArray, stream) -> None:
        _memcpy(self.pinned.ctypes.data, self.device.data.ptr, 16 * x.size, False, stream)

    def unstage(self, x: DDArray) -> None:
        """Copy the pinned buffer (a received chunk) into host x."""
        order, _, shape, n = self._views(x)
        for offset, part in ((0, x.hi), (n, x.lo)):
            _copy(part.transpose(order), self.pinned[offset:offset + n].reshape(shape))


class _Direct(_Staging):
    """A device buffer for up to `size` DDs moving C-contiguous, registered host DDArrays
    straight from and to the caller's memory: no pinned buffer, no host copy."""

    def __init__(self, size: int):
        import cupy
        self.device = cupy.empty(2 * size)

    def _views(self, x: DDArray):
        axes = tuple(range(x.ndim))
        return axes, axes, x.shape, x.size

    def stage(self, x: DDArray) -> None:
        pass

    unstage = stage

    def _copies(self, x: DDArray, to_device: bool, stream) -> None:
        for offset, part in ((0, x.hi), (x.size, x.lo)):
            device, host = self.device.data.ptr + 8 * offset, part.ctypes.data
            dst, src = (device, host) if to_device else (host, device)
            _memcpy(dst, src, 8 * x.size, to_device, stream)

    def send(self, x: DDArray, stream) -> None:
        self._copies(x, True, stream)

    def receive(self, x: DDArray, stream) -> None:
        self._copies(x, False, stream)


def _with_direct(work: Work, operands: list[tuple[DDArray, bool]], out: DDArray,
                 read_out: bool) -> Work:
    """work with what registered mode moves straight from and to the caller's memory: its
    C-contiguous chunked arrays (out both ways when read)."""
    inputs = [x for x, chunked in operands if chunked and _contiguous(x)]
    outs = [out] if _contiguous(out) else []

    def per_unit(arrays):
        return sum(16 * x.size // max(1, x.shape[0]) for x in arrays)

    return dataclasses.replace(work, unit_direct=per_unit(inputs) + (1 + read_out) * per_unit(outs),
                               registered=16 * sum(x.size for x in inputs + outs))


def run(operands: list[tuple[DDArray, bool]], out: DDArray, read_out: bool, chunk: int,
        compute: Callable[[list[DDArray], DDArray], None], register: bool) -> tuple[int, bool]:
    """The pipeline over axis 0 of `out` and of the operands marked chunked (True); the others
    are sent once. compute(device operands, device out) runs each chunk's kernel(s) on the
    current stream. out is read (sent) when read_out. register: registered mode for the
    C-contiguous chunked arrays and out. Returns the number of chunks and whether it
    registered."""
    direct = [register and chunked and _contiguous(x) for x, chunked in operands]
    direct_out = register and _contiguous(out)
    arrays = [x for (x, _), d in zip(operands, direct) if d] + ([out] if direct_out else [])
    registered = _register([part for x in arrays for part in (x.hi, x.lo)]) if arrays else None
    if registered is None:  # nothing to register, or refused: stage everything
        direct, direct_out = [False] * len(operands), False
    try:  # _pipeline synchronizes its streams before it returns or raises
        return _pipeline(operands, direct, out, direct_out, read_out, chunk,
                         compute), registered is not None
    finally:
        _unregister(registered or [])


def _pipeline(operands: list[tuple[DDArray, bool]], direct: list[bool], out: DDArray,
              direct_out: bool, read_out: bool, chunk: int,
              compute: Callable[[list[DDArray], DDArray], None]) -> int:
    """run() with each chunked array's mode decided (direct: registered)."""
    import cupy
    units = out.shape[0]
    chunks = -(-units // chunk)
    slots = min(STREAMS, chunks)
    streams = [cupy.cuda.Stream(non_blocking=True) for _ in range(slots)]
    done = [cupy.cuda.Event(disable_timing=True) for _ in range(slots)]
    kinds = [(_Direct if d else _Staging, x.size // max(1, x.shape[0]))
             for (x, chunked), d in zip(operands, direct) if chunked]
    buffers = [[kind(chunk * size) for kind, size in kinds] for _ in range(slots)]
    out_buffers = [(_Direct if direct_out else _Staging)(chunk * (out.size // units))
                   for _ in range(slots)]
    in_flight = [None] * slots  # the out chunk each slot computes

    def finish(slot):
        if in_flight[slot] is not None:
            done[slot].synchronize()
            out_buffers[slot].unstage(in_flight[slot])
            in_flight[slot] = None

    try:
        # Buffers come from CuPy's pool in the order of the current stream: start after it.
        start = cupy.cuda.get_current_stream().record()
        for stream in streams:
            stream.wait_event(start)
        fixed = {}
        for i, (x, chunked) in enumerate(operands):
            if not chunked:
                fixed[i] = _Staging(x.size)
                fixed[i].stage(x)
                fixed[i].send(x, streams[0])
        ready = streams[0].record()
        for stream in streams[1:]:
            stream.wait_event(ready)
        for index, start in enumerate(range(0, units, chunk)):
            slot, part = index % slots, slice(start, start + chunk)
            stream = streams[slot]
            finish(slot)
            staged, views = iter(buffers[slot]), []
            for i, (x, chunked) in enumerate(operands):
                if chunked:
                    buffer = next(staged)
                    buffer.stage(x[part])
                    buffer.send(x[part], stream)
                    views.append(buffer.device_view(x[part]))
                else:
                    views.append(fixed[i].device_view(x))
            target = out_buffers[slot]
            if read_out:
                target.stage(out[part])
                target.send(out[part], stream)
            with stream:
                compute(views, target.device_view(out[part]))
            target.receive(out[part], stream)
            done[slot].record(stream)
            in_flight[slot] = out[part]
        for step in range(slots):  # the oldest chunk first
            finish((chunks + step) % slots)
    finally:  # no buffer may be freed, nor memory unregistered, while a copy or kernel uses it
        for stream in streams:
            stream.synchronize()
    return chunks


def transfer_info(chunk: int, chunks: int, registered: bool, seconds: float, r: Rates) -> dict:
    return dict(chunk=chunk, chunks=chunks, streams=min(STREAMS, chunks), registered=registered,
                model_seconds=seconds, h2d_gbs=r.h2d / 1e9, d2h_gbs=r.d2h / 1e9,
                host_gbs=r.host / 1e9, register_gbs=r.register / 1e9)


def _sized(work: Work, chunk, min_chunk: Callable[[], int]) -> tuple[int, float, bool, Rates]:
    """(chunk, modelled seconds, register, rates): the caller's chunk (at most all units) or the
    model's, in the mode (staged or registered) the model finds faster."""
    measured = rates()
    if chunk is None:
        floor = min_chunk()
        options = [(*choose_chunk(work, floor, measured, register), register)
                   for register in (False, True)]
    else:
        chunk = min(int(chunk), work.units)
        options = [(chunk, model_seconds(work, chunk, measured, register), register)
                   for register in (False, True)]
    return (*min(options, key=lambda option: option[1]), measured)


def _typical_plans() -> dict:
    """The plan _auto.choose is given before any data is on the GPU: ozaki-fp64 with
    TYPICAL_SLICES (ozaki-int8 is not modelled)."""
    return {"fp64": _ozaki.Plan(slices=_auto.TYPICAL_SLICES, engine="fp64",
                                bound="int8 first digits")}


def gemm(call, compute: Callable[[list[DDArray], DDArray], None]) -> None:
    """rgemm's GemmCall (ddblas/_gemmcall.py) on host op(A), op(B), C through the pipeline over
    rows; compute(device operands, device C) runs one chunk. The chunk size is modelled on the
    algorithm _auto.choose expects (ozaki-fp64 with TYPICAL_SLICES slices, before any data is
    on the GPU). The classic kernels sum every element as the unchunked call does: the same
    bits. ozaki-fp64 and tsm plan each chunk (ozaki-fp64's S and fallback, tsm's pieces of K,
    may differ from the whole product's plan): within the same bound, possibly not the same
    last bits. info gets "transfer"."""
    op_a, op_b, c = call.op_a, call.op_b, call.c
    (m, k), n = op_a.shape, op_b.shape[1]
    suffix = call.opts.suffix
    modelled = call.algorithm
    if modelled == "auto":
        modelled = _auto.choose("gpu", m, n, k, suffix, _typical_plans)[0]
    operands = [(op_a, True), (op_b, False)]
    work = _with_direct(rgemm_work(m, n, k, not call.beta_zero,
                                   rgemm_kernel_seconds(modelled, n, k, suffix)),
                        operands, c, not call.beta_zero)
    chunk, seconds, register, measured = _sized(work, call.chunk,
                                                lambda: rgemm_min_rows(n, _gpu.multiprocessors()))
    chunks, registered = run(operands, c, not call.beta_zero, chunk, compute, register)
    if call.info is not None:
        call.info["transfer"] = transfer_info(chunk, chunks, registered, seconds, measured)


def gemm_batched(call, compute: Callable[[list[DDArray], DDArray], None]) -> None:
    """rgemm_batched's GemmCall on host operands through the pipeline over the batch: a 2-D
    operand or one with a batch of 1 is sent once; compute(device operands, device C) runs one
    chunk. Same bits as the unchunked call (each product is computed alone). info gets
    "transfer"."""
    op_a, op_b, c = call.op_a, call.op_b, call.c
    batch, m, n = c.shape
    k = op_a.shape[-1]
    beta_zero = call.beta_zero
    chunked = [x.ndim == 3 and x.shape[0] == batch for x in (op_a, op_b)]
    sizes = [x.size // (batch if split else 1) for x, split in zip((op_a, op_b), chunked)]
    unit_in = sum(s for s, split in zip(sizes, chunked) if split) * 16 + \
        (16 * m * n if not beta_zero else 0)
    fixed_in = sum(s for s, split in zip(sizes, chunked) if not split) * 16
    operands = list(zip((op_a, op_b), chunked))
    work = _with_direct(Work(batch, unit_in, 16 * m * n, fixed_in,
                             batched_kernel_seconds(m, n, k, call.opts.suffix)),
                        operands, c, not beta_zero)
    chunk, seconds, register, measured = _sized(
        work, call.chunk, lambda: MIN_BATCH_CHUNK_PER_SM * _gpu.multiprocessors())
    chunks, registered = run(operands, c, not beta_zero, chunk, compute, register)
    if call.info is not None:
        call.info["transfer"] = transfer_info(chunk, chunks, registered, seconds, measured)
