"""rgemm: C = alpha * op(A) * op(B) + beta * C in DD, and matmul / @ on top of it.

rgemm goes through the GEMM front end (ddblas/blas/gemmcall.py: checks, "auto", the host pipeline)
and its dispatch table RUNNERS: the classic kernels launched here (kernels.h: the naive kernel of
both devices; gemm_cpu.h: the CPU kernel; gemm_gpu.h: the tiled and register-blocked GPU
kernels), which all sum each C element over k in increasing order, so all of them and both
devices agree bit for bit; "tsm" (ddblas/_tsm.py: the tall-and-skinny kernel, the same order on
both devices); "ozaki-fp64" and "ozaki-int8" (ozaki.py, cuda_src/ozaki.h, docs/ozaki.md), exact
float64 or int8 slice products accumulated in DD, and "ozaki2-int8" (ozaki2.py, cuda_src/crt.h
and ozaki2.h), exact integer products from int8 residues reconstructed into DD: a different
result within the same bound, equal on both devices. algorithm="auto" (the default) chooses
among classic, tsm and the Ozaki schemes by auto.py's shape rule and cost model.
"""
from __future__ import annotations

import math

from ..engines import backend as _backend
from . import batched as _batched
from ..engines import cpu as _cpu
from ..engines import gpu as _gpu
from . import gemmcall as _gemmcall
from ..core.array import DDArray, register_operations
from .gemmcall import GemmCall
from ..core.ops import operands



def default_block(m: int, n: int) -> int:
    """b = 4 once C has a full wave of its 64 x 32 tiles (3 blocks per multiprocessor), else b = 2
    (32 x 32 tiles): b = 4 leaves multiprocessors idle on small C (docs/performance.md)."""
    sms = _gpu.multiprocessors()
    bm, bn = (_cpu.geometry()["gemm"]["b4"]["k"][x] for x in ("BM", "BN"))
    return 4 if -(-m // bm) * -(-n // bn) >= 3 * sms else 2




def _classic(call: GemmCall, plan=None) -> None:
    """The runner of "naive", "tiled" and "blocked": one launch of a classic kernel (on the GPU
    one a band of at most grid_yz_limit blocks of C's rows, the grid's y dimension)."""
    m, n, k, device = call.m, call.n, call.k, call.device
    a_hi, a_lo, a_rs, a_cs = _backend.kernel_parts(call.op_a.hi, call.op_a.lo)
    b_hi, b_lo, b_rs, b_cs = _backend.kernel_parts(call.op_b.hi, call.op_b.lo)
    c = call.c
    c_rs, c_cs = _backend.output_strides(c.hi, c.lo)

    def arguments(rows=slice(None)):   # the kernel's arguments for C's rows `rows`
        return (len(range(m)[rows]), n, k, a_hi[rows], a_lo[rows], a_rs, a_cs, b_hi, b_lo, b_rs,
                b_cs, *call.scalars, c.hi[rows], c.lo[rows], c_rs, c_cs, call.flags)

    suffix = call.opts.suffix
    be = _backend.backend(device)
    if call.info is not None:
        call.info["algorithm"] = "cpu" if device == "cpu" and call.algorithm != "naive" \
            else call.algorithm
    if call.algorithm == "naive":
        be.launch("ddblas_gemm_naive_" + suffix, m * n, *arguments())
    elif device == "cpu":
        be.launch("ddblas_gemm_cpu_" + suffix, m * n, *arguments())
    else:
        block = default_block(m, n) if call.block is None else call.block
        kind = "tiled" if call.algorithm == "tiled" else f"b{block}"
        layout = ("m" if a_cs != 1 and a_rs == 1 else "k") + \
            ("k" if b_cs != 1 and b_rs == 1 else "n")
        geometry = _cpu.geometry()
        shape = geometry["gemm"][kind][layout[0]]
        bm, bn, threads = shape["BM"], shape["BN"], shape["threads"]
        band = geometry["grid_yz_limit"] * bm   # C's entries are the same sums in any band
        for top in range(0, m, band):
            rows = slice(top, min(top + band, m))
            be.launch_grid(f"ddblas_gemm_{kind}_{layout}_{suffix}",
                           (-(-n // bn), -(-(rows.stop - top) // bm)), (threads,),
                           *arguments(rows), k, 0,  # one piece of K
                           shared_mem=_cpu.dynamic_tile_bytes(shape))


# rgemm's dispatch table: algorithm -> runner(call, Ozaki plan or None)
RUNNERS = {"naive": _classic, "tiled": _classic, "blocked": _classic, "tsm": _gemmcall.run_tsm,
           "ozaki-fp64": _gemmcall.run_ozaki, "ozaki-int8": _gemmcall.run_ozaki,
           "ozaki2-int8": _gemmcall.run_ozaki}


def rgemm(a, b, c=None, *, alpha=1, beta=0, transa="N", transb="N", fma=None, add=None,
          algorithm="auto", block=None, info=None, device=None, chunk=None,
          accuracy="classic") -> DDArray:
    """C = alpha * op(A) * op(B) + beta * C in double-double.

    a, b: 2-D DDArrays (or anything ddblas.asarray accepts) on one device; op(X) is X for
    transa/transb "N" and X.T for "T" ("C" is accepted as "T"). c: an M x N DDArray that is
    overwritten and returned (BLAS semantics); when None a new array is returned and beta must be
    0. alpha, beta: DD scalars (numbers, strings, 0-d DDArrays). beta = 0 never reads C; alpha = 0
    skips the product. fma, add: the arithmetic variant (default: ddblas.options). algorithm:
    "auto" (the default) picks by the shape and a cost model of measured rates (ddblas/_auto.py,
    docs/ozaki.md): "tsm" on both devices for tall-and-skinny products (min(M, N) <= 32 and
    max(M, N) * K >= 2^20, up to max(M, N) = 8388480, its grid's); otherwise on the CPU the
    classic kernel; on the GPU the classic kernel for M*N*K < 1024^3, above that whichever of
    the classic kernel, ozaki-fp64, ozaki-int8 and ozaki2-int8 has the lowest estimated time
    (from the slices or moduli one scan of the data gives each). All meet the bound below,
    and with accuracy="classic" (the default) the Ozaki schemes are at least as accurate as
    the classic kernel, so "auto" is too; its choice and the reason are in info["algorithm"]
    and info["auto"] and in a debug message of the logger "ddblas". Results equal the CPU's
    bit for bit when both devices pick the same algorithm; where the GPU picks an Ozaki scheme
    they differ from the CPU's (both within the bound).
    Or explicitly: "naive" (one element per thread, on either device: the reference), or on the
    GPU "tiled" (shared-memory tiles) or "blocked" (register-blocked b x b per thread, block=2
    or 4; default by size); on the CPU "tiled" and "blocked" both mean the packed, vectorised
    OpenMP kernel of cuda_src/gemm_cpu.h (threads: ddblas.cpu_threads). Every one of these sums
    each element over k in increasing order, so the results are identical bit for bit; strided
    and transposed views are read in place (where _backend.element_strides proves their
    strides and address exact; others, such as record-array fields or misaligned views, are
    copied; a c that kernels cannot address in place is computed into a copy and written back;
    a c whose elements share memory (zero strides, overlapping strides) is a ValueError).
    "ozaki-fp64" (both devices): exact float64 GEMMs of
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
    the same result on CPU and GPU and the same fallbacks (S up to 32; about 17 for full DD
    data). "ozaki2-int8" (both devices; Ozaki scheme II): op(A) and op(B) truncated to a-bit
    integers per row / column, their product computed exactly from its residues modulo L
    moduli <= 256 (one int8 GEMM each) and reconstructed by the Chinese remainder theorem in
    exact multi-limb integers, rounded once to DD (a = 110, L = 32 for full DD data at
    N = 8192: 20.6 DD TFLOP/s on an H100); the same bound, result and fallbacks (a up to 160,
    L up to 40). accuracy: how the Ozaki schemes choose their number of slices S (scheme II:
    its bits a): "classic" (the default) the fewest that also keep the truncation at most
    u^2 (|op(A)||op(B)|)_ij, so that the error stays at the classic kernel's level or below
    (and within accuracy.bound("ozaki", variant, S), at most about 100 u^2 whatever K, or
    accuracy.bound("ozaki2", variant), 10 u^2 for fma/accurate); "bound" the fewest that meet
    the bound below (faster: S = 5 instead of 6 for ozaki-fp64 and 15 instead of 17
    for ozaki-int8 on full DD data, but up to about 100 times the classic kernel's error at
    large K; docs/ozaki.md, "The accuracy-faithful rule"). info: a dict to fill with what was
    done ("algorithm"; for "auto" its reason, "auto"; when an Ozaki algorithm ran or fell back
    "slices", "beta", "chunk", "chunks", "gemms" (0 unless it ran), "bound" (the GEMM that gave
    S's lower bound: "int8 first digits", "float64" or "a zero operand"), "fallback", "seconds"
    per phase (plan, slice, gemm, accumulate; scheme II: "moduli" and "bits" instead of "slices"
    and "beta", phases plan, residues, gemm, reconstruct); asking for it synchronizes the GPU
    between phases);
    left empty when no product is formed (an empty C, K = 0 or alpha = 0).

    device: None (the default) runs on the operands' device. device="gpu" with host (NumPy)
    operands runs on the GPU as a pipeline of row chunks of op(A) and C whose copies to the
    GPU, kernels and copies back overlap (pinned buffers, CUDA streams; ddblas/_transfer.py,
    docs/performance.md) and returns a host array: c, if given (a host array, overwritten), or
    a new one. The classic kernels give the same bits as on GPU copies of the operands; for
    "auto" the algorithm is chosen once for the whole product (ozaki-fp64's S from the first
    chunk's plan); ozaki-fp64 and tsm plan every chunk, so their results are within the same
    bound but may differ in the last bits from the unchunked call. chunk: rows of op(A) a chunk
    (default: chosen by the pipeline's model of the measured bandwidths and the kernel rates);
    used only by that pipeline. info then also gets "transfer": chunk, chunks, streams, the model's
    seconds and the bandwidths (GB/s). device="cpu" with GPU operands is a ValueError,
    device="gpu" without a GPU a RuntimeError.

    Error: |C - exact| <= (c_mul + c_add + c_first + (K-1) c_acc)(1 + 2^-40)
    (|alpha| |op(A)||op(B)| + |beta| |C0|) componentwise, with c_first = c_mul and c_acc = c_add
    for the accurate variants (2 c_mul + K c_add) and, for the sloppy ones (the fused
    multiply-add), c_first = c_prod and c_acc = c_add (docs/algorithms.md, "Matrix products";
    accuracy.bound("gemm", variant, K)); tsm's pieces meet it too; ozaki-fp64, ozaki-int8 and
    ozaki2-int8 meet the same bound (docs/ozaki.md). Non-FMA products need entries up to 2^996
    in magnitude and products up to 2^1000 (beyond: inf or nan in C). alpha is applied after
    the products, so products below about 2^-969 lose bits (or vanish) whatever alpha is:
    scale A or B instead (docs/algorithms.md, "Near the underflow threshold").
    """
    return _gemmcall.execute(_gemmcall.prepare(
        "rgemm", a, b, c, alpha=alpha, beta=beta, transa=transa, transb=transb, fma=fma, add=add,
        algorithm=algorithm, block=block, device=device, chunk=chunk, info=info,
        accuracy=accuracy), RUNNERS)


def subtract_product(a: DDArray, b: DDArray, c: DDArray, opts, algorithm="auto") -> None:
    """C := C - A B in place, for the blocks of a factorization or triangular solve: the same
    algorithm choice, kernels and bits as rgemm(a, b, c, alpha=-1, beta=1, algorithm=...),
    without rgemm's argument checks, copies and overlap test, which cost more than the product
    for the small blocks of the recursive factorizations (docs/performance.md). The caller
    guarantees what rgemm would check: 2-D DDArrays on one device with shapes that agree, a and
    b readable by kernels in place (ddblas.core.ops.operands), c addressable in place
    (view_args) and sharing no element with a or b; opts: a resolved Options."""
    _gemmcall.subtract(a, b, c, opts, algorithm, RUNNERS)


def _stacked(x: DDArray, batch: tuple) -> DDArray:
    """x's matrices as one operand of rgemm_batched over the stack shape `batch` (a product of
    its sizes, P): 2-D where x has no stack or one of size 1 (read once for every product,
    batch stride 0), else (P, rows, columns): a view where x's stack is `batch` and reshapes
    without a copy, otherwise its broadcast to `batch` copied (NumPy's broadcasting of the
    stack dimensions)."""
    if all(size == 1 for size in x.shape[:-2]):
        return x.reshape(x.shape[-2:])
    if x.shape[:-2] != batch:
        shape = batch + x.shape[-2:]
        x = DDArray(x.xp.broadcast_to(x.hi, shape), x.xp.broadcast_to(x.lo, shape),
                    normalize=False)
    return x.reshape((math.prod(batch),) + x.shape[-2:])


def matmul(a, b, *, fma=None, add=None, algorithm="auto") -> DDArray:
    """a @ b in DD with NumPy's rules: 2-D operands through rgemm (algorithm as there; `@` uses
    "auto"); stacks of matrices (operands of 3 or more dimensions, the stack dimensions
    broadcast as in NumPy: (2, 1, 3, 4) @ (5, 4, 2) is (2, 5, 3, 2)) through one
    rgemm_batched call (its one kernel; algorithm is not used; an operand whose stack is all
    ones, or 2-D, is read once for every product, one that must be broadcast over a larger
    stack is copied); a 1-D a is a row, a 1-D b a column, and that dimension is dropped from
    the result."""
    _gemmcall.require_algorithm(algorithm)   # unused for stacks, but a typo is an error there too
    a, b = operands(a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("matmul: operands must not be scalars (use *)")
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    b2 = b.reshape(-1, 1) if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise ValueError(f"matmul: shapes {a.shape} and {b.shape} do not align "
                         f"({a2.shape[-1]} != {b2.shape[-2]})")
    try:
        batch = _backend.broadcast_shape(a2.shape[:-2], b2.shape[:-2])
    except ValueError:   # NumPy's own message names remapped shapes
        raise ValueError(f"matmul: the stack dimensions of shapes {a.shape} and {b.shape} do "
                         f"not broadcast ({a2.shape[:-2]} and {b2.shape[:-2]})") from None
    if not batch:
        c = rgemm(a2, b2, fma=fma, add=add, algorithm=algorithm)
    else:
        sa, sb = _stacked(a2, batch), _stacked(b2, batch)
        if sa.ndim == sb.ndim == 2:   # stacks of size 1: a batch of one product
            sa = sa.reshape((1,) + sa.shape)
        c = _batched.rgemm_batched(sa, sb, fma=fma, add=add).reshape(batch + (a2.shape[-2],
                                                                             b2.shape[-1]))
    if a.ndim == 1:
        c = c.reshape(c.shape[:-2] + c.shape[-1:])
    if b.ndim == 1:
        c = c.reshape(c.shape[:-1])
    return c


register_operations(matmul=matmul)
