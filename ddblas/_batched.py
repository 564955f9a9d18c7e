"""rgemm_batched: C[p] = alpha * op(A[p]) * op(B[p]) + beta * C[p] for a batch of small DD GEMMs
in one kernel launch (cuda_src/gemm_batched.h), and matmul / @ on 3-D operands on top of it.

Python checks arguments, reads the operands' strides (a batch stride of 0 broadcasts one A or B
over the batch) and launches ddblas_gemm_batched_<variant>. Every element is summed like a
single rgemm's, so the result equals a loop of rgemm calls bit for bit, on either device.
"""
from __future__ import annotations

from . import _backend, _cpu, _transfer
from ._array import DDArray
from ._gemm import (_check_info, _check_writable, _flags, _new_output, _no_product, _scalars,
                    _shares_memory, _trans)
from ._ops import _operands, _strided
from ._options import resolve

WARP = 32
MAX_GRID = 65535              # blocks launched at most (the kernel loops over the groups)
MAX_DIM = 2**31 - 1           # m and n at most (the kernel's 32-bit element coordinates)


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
    elements = m * n
    MAX_THREADS = _cpu.geometry()["batched_max_threads"]  # noqa: N806  (named as in geometry.h)
    SHARED_BYTES = _cpu.geometry()["static_shared_bytes"]  # noqa: N806

    def stage(g):
        return ((g if a_bs else 1) * m * k + (g if b_bs else 1) * k * n) * 16

    def block(g):  # (threads, passes)
        passes = _ceil_div(g * elements, MAX_THREADS)
        return _ceil_div(_ceil_div(g * elements, passes), WARP) * WARP, passes

    def busy(g):
        threads, passes = block(g)
        return g * elements / (threads * passes)

    groups = [g for g in range(1, min(batch, MAX_THREADS // elements) + 1)
              if stage(g) <= SHARED_BYTES]
    group = max(groups, key=lambda g: (busy(g), -g), default=1)
    return group, block(group)[0], stage(group) if stage(group) <= SHARED_BYTES else 0


def _op(x: DDArray, flip: bool) -> DDArray:
    """op(X) of a 2-D or 3-D operand (a transpose of its last two axes)."""
    return x.transpose(*range(x.ndim - 2), x.ndim - 1, x.ndim - 2) if flip else x


def _batch_strided(x: DDArray, batch: int):
    """(hi, lo, batch stride, row stride, column stride) in elements of a 2-D or 3-D operand read
    in place (batch stride 0 for a 2-D operand or a batch of 1 broadcast over `batch`); one
    contiguous copy when hi and lo are laid out differently."""
    hi, lo, *strides = _strided(x)
    if hi.ndim == 2:
        return hi, lo, 0, *strides
    return hi, lo, strides[0] if hi.shape[0] == batch else 0, strides[1], strides[2]


def rgemm_batched(a, b, c=None, *, alpha=1, beta=0, transa="N", transb="N", fma=None,
                  add=None, device=None, chunk=None, info=None) -> DDArray:
    """C[p] = alpha * op(A[p]) * op(B[p]) + beta * C[p] in double-double for every p of a batch.

    a, b: 3-D DDArrays (batch, m, k) and (batch, k, n) after op() (op(X) transposes the last two
    axes for "T" or "C"), on one device. A 2-D operand, or one with a batch of 1, is used for
    every product (NumPy's matmul broadcasting; it is read once in place, not copied); at least
    one of a, b must be 3-D. c: a (batch, m, n) DDArray that is overwritten and returned (BLAS
    semantics); when None a new array is returned and beta must be 0. alpha, beta: DD scalars;
    beta = 0 never reads C, alpha = 0 skips the products. fma, add: the arithmetic variant
    (default: ddblas.options). Strided and transposed views are read in place. One kernel launch
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
    flip_a, flip_b = _trans(transa, "transa"), _trans(transb, "transb")
    _check_info(info, "rgemm_batched")
    _transfer.check_chunk(chunk)
    opts = resolve(fma, add)
    operands = _operands(a, b) if c is None else _operands(a, b, c)
    a, b = operands[0], operands[1]
    for name, x in (("a", a), ("b", b)):
        if x.ndim not in (2, 3):
            raise ValueError(f"rgemm_batched needs 3-D (batch, rows, columns) or 2-D operands, "
                             f"{name} has shape {x.shape}")
    if a.ndim == 2 and b.ndim == 2:
        raise ValueError(f"rgemm_batched needs a 3-D operand, got shapes {a.shape} and {b.shape} "
                         f"(use rgemm for a single product)")
    op_a, op_b = _op(a, flip_a), _op(b, flip_b)
    (m, k), (k2, n) = op_a.shape[-2:], op_b.shape[-2:]
    if k != k2:
        raise ValueError(f"rgemm_batched: op(A) is {m}x{k} (a has shape {a.shape}, "
                         f"transa={transa!r}) but op(B) is {k2}x{n} (b has shape {b.shape}, "
                         f"transb={transb!r})")
    batches = [x.shape[0] for x in (op_a, op_b) if x.ndim == 3]
    batch = max(batches)
    if any(s not in (1, batch) for s in batches):
        raise ValueError(f"rgemm_batched: the batch sizes of a {a.shape} and b {b.shape} differ "
                         f"and neither is 1")
    target = _transfer.target_device(device, a.device)
    device = a.device
    alpha_dd, beta_dd, beta_zero = _scalars(alpha, beta)
    if c is None:
        c = _new_output(a.xp, (batch, m, n), beta_zero, "array")
    else:
        c = operands[2]
        if c.shape != (batch, m, n):
            raise ValueError(f"c has shape {c.shape}, but the batch of op(A) @ op(B) is "
                             f"{(batch, m, n)}")
        _check_writable(c, device, "rgemm_batched")
        if c.hi.strides != c.lo.strides:
            raise ValueError("c's hi and lo arrays have different layouts: pass a DDArray whose "
                             "parts are laid out alike (e.g. a copy())")
    if c.size == 0 or _no_product(c, k, alpha_dd, beta_dd, beta_zero, opts):
        return c
    if _shares_memory(a, c) or _shares_memory(b, c):  # C is written while A and B are read
        op_a, op_b = op_a.copy(), op_b.copy()
    if target != device:
        return _transfer.gemm_batched(op_a, op_b, c, alpha=alpha_dd, beta=beta_dd,
                                      beta_zero=beta_zero, opts=opts, chunk=chunk, info=info)
    a_hi, a_lo, a_bs, a_rs, a_cs = _batch_strided(op_a, batch)
    b_hi, b_lo, b_bs, b_rs, b_cs = _batch_strided(op_b, batch)
    c_bs, c_rs, c_cs = (s // 8 for s in c.hi.strides)
    flags = _flags(alpha_dd, beta_zero)
    args = (batch, a_bs, b_bs, c_bs, m, n, k, a_hi, a_lo, a_rs, a_cs, b_hi, b_lo, b_rs, b_cs,
            float(alpha_dd.hi), float(alpha_dd.lo), float(beta_dd.hi), float(beta_dd.lo),
            c.hi, c.lo, c_rs, c_cs, flags)
    be = _backend.backend(device)
    kernel = "ddblas_gemm_batched_" + opts.suffix
    if device == "cpu":
        be.launch(kernel, batch * m * n, *args)
    else:
        if max(m, n) > MAX_DIM:
            raise ValueError(f"rgemm_batched on the GPU needs m, n <= {MAX_DIM}, got {m}, {n}")
        group, threads, shared = _gpu_launch(batch, m, n, k, a_bs, b_bs)
        be.launch_grid(kernel, (min(_ceil_div(batch, group), MAX_GRID),), (threads,), group,
                       *args, shared_mem=shared)
    return c
