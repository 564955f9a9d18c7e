"""rgemm_batched: C[p] = alpha * op(A[p]) * op(B[p]) + beta * C[p] for a batch of small DD GEMMs
in one kernel launch (cuda_src/gemm_batched.h), and matmul / @ on stacks of matrices on top of it.

The GEMM front end (ddblas/_gemmcall.py) checks the arguments (and runs the host pipeline); run(),
the one runner of this routine, reads the operands' strides (a batch stride of 0 broadcasts one A
or B over the batch) and launches ddblas_gemm_batched_<variant>. Every element is summed like a
single rgemm's, so the result equals a loop of rgemm calls bit for bit, on either device.
"""
from __future__ import annotations

from ..engines import backend as _backend
from ..engines import cpu as _cpu
from . import gemmcall as _gemmcall
from ..core.array import DDArray
from .gemmcall import BATCHED, GemmCall


def _ceil_div(x: int, y: int) -> int:
    return -(-x // y)


def _gpu_launch(batch: int, m: int, n: int, k: int, a_bs: int, b_bs: int):
    """(group, threads, shared bytes) of the GPU kernel: a block computes `group` products (G)
    with `threads` threads over their G m n elements, in passes = ceil(G m n / MAX_THREADS)
    of at most MAX_THREADS, balanced (whole warps). G (<= batch) maximises the busy lanes
    G m n / (passes threads), ties to the smaller G; G > 1 only when G m n <= MAX_THREADS (one
    pass) and the stage of G products' operands (a broadcast one once, 16 bytes a DD value) fits
    SHARED_BYTES. shared: the stage's bytes, 0 when one product's does not fit (the kernel then
    reads global memory). MAX_THREADS and SHARED_BYTES: cuda_src/geometry.h's
    batched_max_threads and static_shared_bytes (dynamic shared memory without an opt-in)."""
    MAX_THREADS = _cpu.geometry()["batched_max_threads"]  # noqa: N806  (named as in geometry.h)
    SHARED_BYTES = _cpu.geometry()["static_shared_bytes"]  # noqa: N806
    elements = m * n

    def stage(g):
        return ((g if a_bs else 1) * m * k + (g if b_bs else 1) * k * n) * 16

    def block(g):  # (threads, passes)
        passes = _ceil_div(g * elements, MAX_THREADS)
        warp = _cpu.geometry()["warp_size"]
        return _ceil_div(_ceil_div(g * elements, passes), warp) * warp, passes

    def busy(g):
        threads, passes = block(g)
        return g * elements / (threads * passes)

    groups = [g for g in range(1, min(batch, MAX_THREADS // elements) + 1)
              if stage(g) <= SHARED_BYTES]
    group = max(groups, key=lambda g: (busy(g), -g), default=1)
    return group, block(group)[0], stage(group) if stage(group) <= SHARED_BYTES else 0


def _batch_strided(x: DDArray, batch: int):
    """(hi, lo, batch stride, row stride, column stride) in items of a 2-D or 3-D operand
    (_backend.kernel_parts: in place when addressable; batch stride 0 for a 2-D operand or a
    batch of 1 broadcast over `batch`)."""
    hi, lo, *strides = _backend.kernel_parts(x.hi, x.lo)
    if hi.ndim == 2:
        return hi, lo, 0, *strides
    return hi, lo, strides[0] if hi.shape[0] == batch else 0, strides[1], strides[2]


def run(call: GemmCall, plan=None) -> None:
    """The runner of rgemm_batched: one launch of the batched kernel for the whole batch."""
    batch, m, n = call.c.shape
    k = call.k
    a_hi, a_lo, a_bs, a_rs, a_cs = _batch_strided(call.op_a, batch)
    b_hi, b_lo, b_bs, b_rs, b_cs = _batch_strided(call.op_b, batch)
    c_bs, c_rs, c_cs = _backend.output_strides(call.c.hi, call.c.lo)
    args = (batch, a_bs, b_bs, c_bs, m, n, k, a_hi, a_lo, a_rs, a_cs, b_hi, b_lo, b_rs, b_cs,
            *call.scalars, call.c.hi, call.c.lo, c_rs, c_cs, call.flags)
    be = _backend.backend(call.device)
    kernel = "ddblas_gemm_batched_" + call.opts.suffix
    if call.device == "cpu":
        be.launch(kernel, batch * m * n, *args)
    else:
        limits = _cpu.geometry()
        if max(m, n) > limits["batched_max_dim"]:
            raise ValueError(f"rgemm_batched on the GPU needs m, n <= "
                             f"{limits['batched_max_dim']}, got {m}, {n}")
        group, threads, shared = _gpu_launch(batch, m, n, k, a_bs, b_bs)
        be.launch_grid(kernel, (min(_ceil_div(batch, group), limits["batched_max_blocks"]),),
                       (threads,), group, *args, shared_mem=shared)


RUNNERS = {BATCHED: run}   # rgemm_batched's dispatch table


def rgemm_batched(a, b, c=None, *, alpha=1, beta=0, transa="N", transb="N", fma=None,
                  add=None, device=None, chunk=None, info=None) -> DDArray:
    """C[p] = alpha * op(A[p]) * op(B[p]) + beta * C[p] in double-double for every p of a batch.

    a, b: 3-D DDArrays (batch, m, k) and (batch, k, n) after op() (op(X) transposes the last two
    axes for "T" or "C"), on one device. A 2-D operand, or one with a batch of 1, is used for
    every product (NumPy's matmul broadcasting; it is read once in place, not copied); at least
    one of a, b must be 3-D. c: a (batch, m, n) DDArray that is overwritten and returned (BLAS
    semantics); when None a new array is returned and beta must be 0. alpha, beta: DD scalars;
    beta = 0 never reads C, alpha = 0 skips the products. fma, add: the arithmetic variant
    (default: ddblas.options). Strided and transposed views are read in place, and c of any
    layout is accepted, as by rgemm (ddblas/_gemmcall.py: the same checks). One kernel launch
    for the whole batch (GPU: a block per group of products, one thread per C element of the
    group when they fit 256 threads, the group's operands staged in shared memory when they fit;
    CPU: OpenMP over the products). Each element is summed exactly like
    rgemm's, so the result equals a loop of rgemm calls bit for bit, and the CPU equals the GPU;
    the error bound is rgemm's.

    device: None (the default) runs on the operands' device. device="gpu" with host (NumPy)
    operands runs on the GPU as a pipeline of chunks of the batch whose copies to the GPU,
    kernels and copies back overlap (ddblas/_transfer.py; a 2-D or batch-1 operand is sent
    once) and returns a host array: c, if given (a host array, overwritten), or a new one; the
    same bits as on GPU copies of the operands. chunk: products a chunk (default: chosen by the
    pipeline's model); used only by that pipeline. info: a dict that the pipeline fills with
    "transfer" (chunk, chunks, streams, the model's seconds, the bandwidths in GB/s); left empty
    otherwise. device="cpu" with GPU operands is a ValueError, device="gpu" without a GPU a
    RuntimeError.
    """
    return _gemmcall.execute(_gemmcall.prepare(
        "rgemm_batched", a, b, c, alpha=alpha, beta=beta, transa=transa, transb=transb, fma=fma,
        add=add, device=device, chunk=chunk, info=info), RUNNERS)
