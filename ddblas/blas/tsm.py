"""rgemm(algorithm="tsm"): tall-and-skinny products, C = op(A) op(B) with few columns (or rows).

The GPU kernel is TSM2's (cuda_src/gemm_gpu.h, "tsm"): each of t1 = BM threads of a block
owns one row of op(A) and accumulates t2 columns of C in registers; the t3 = BK deep
tiles of op(B) are shared through shared memory and the next tiles of A and B are in flight while
the current ones are used. C with few rows is computed as its transpose, C^T = op(B)^T op(A)^T.
When the rows alone give too few blocks to fill a GPU, K is split into pieces (grid z) whose
partial sums ddblas_gemm_pieces_<V> adds in order: gemm.h's tall-and-skinny order, within the
classic bound (docs/algorithms.md). The CPU computes the same order (each piece with its GEMM
kernel, then the same piece sum), so both devices agree bit for bit.

plan() is a function of the shape and the variant only (never of the device), which is what makes
the two devices agree. Its model, for t2 (C columns per pass) and the number of pieces:
- a pass over a group of t2 columns streams op(A) once (16 bytes a DD element) and does t2 DD
  multiply-adds per element of op(A); estimated time max(bytes / HBM bandwidth, flops / DD rate)
  per pass (the H100's figures of ddblas/_auto.py), summed over the ceil(N / t2) passes. Columns
  past N in the last group are computed and dropped, so t2 = 16 for N = 9 costs 16 columns of
  multiply-adds: once the DD rate (not the bandwidth) bounds a pass, narrower groups win. A DD
  multiply-add is 15-30 float64 instructions (docs/performance.md, FMA study), so a pass is
  memory-bound only for t2 <= ~3 (fma/accurate) to ~6 (fma/sloppy) on an H100, where float64
  GEMMs stay memory-bound up to t2 ~ 30: the crossover of TSM2's model moves down ~10x for DD;
- pieces: enough blocks for TARGET_BLOCKS (6 or more waves of 3-7 blocks a multiprocessor of an
  H100: a partial last wave costs at most 1/7; with the 32 pieces of 256 first tried, k = 1
  ran 3.1 waves, 1.84 TB/s under Nsight Compute), pieces no shorter than MIN_PIECE, and their
  partial sums (written and read: 32 bytes an element per piece) at most 1/16 of op(A)'s
  traffic: P <= K / (WORKSPACE_SHARE N).
rgemm(algorithm="auto") takes this path for min(M, N) <= _auto.TSM_MAX_COLUMNS when the long
operand has at least _auto.TSM_MIN_ELEMENTS elements (below, the classic kernel: the same order,
as P = 1 there) and max(M, N) fits the grid (_auto.tsm_max_rows; plan() refuses longer ones).
"""
from __future__ import annotations
from dataclasses import dataclass

from . import auto as _auto
from ..engines import backend as _backend
from ..engines import cpu as _cpu
from ..engines import gpu as _gpu
from ..core.array import DDArray

PIECE_ALIGN = 8              # piece_len: a multiple of 8, as the pieces were before the 16-deep
                             # tiles (the same sums); the "k" kernels take any piece start
TARGET_BLOCKS = 8192         # blocks worth launching: >= 6 waves on a 132-SM H100
MIN_PIECE = 64               # the shortest piece of K worth its partial sum
WORKSPACE_SHARE = 32         # partial sums move <= 1/16 of op(A)'s bytes: P <= K / (32 N)


@dataclass(frozen=True)
class Plan:
    transposed: bool   # C^T = op(B)^T op(A)^T is computed (C has the fewer rows)
    width: int         # t2: columns of C per pass
    groups: int        # passes: ceil(N / t2), N counted after the transposition
    pieces: int        # P: pieces of K
    piece_len: int     # the length of every piece but the last
    seconds: float     # the model's estimate on an H100

    def describe(self) -> dict:
        return dict(transposed=self.transposed, width=self.width, groups=self.groups,
                    pieces=self.pieces, piece_len=self.piece_len)


def pass_seconds(m: int, k: int, width: int, suffix: str) -> float:
    """The model's time of one pass of t2 = width columns over an m x k op(A)."""
    memory = 16 * m * k / (_auto.MEMORY_GBS * 1e9)
    compute = 2 * m * k * width / (_auto.CLASSIC_GPU_GFLOPS[suffix] * 1e9)
    return max(memory, compute)


def widths() -> tuple[int, ...]:
    """t2: the widths of the tsm<t2> kernels (the rows of cuda_src/geometry.h's
    DDBLAS_GEMM_TSM_SHAPES)."""
    return tuple(sorted(shape["k"]["BN"] for name, shape in _cpu.geometry()["gemm"].items()
                        if name.startswith("tsm")))


def shape(width: int, a_layout: str = "k"):
    """The tsm<width> kernel's configuration for op(A)'s layout (geometry.h): t1 = BM threads
    (rows of op(A)) a block, t3 = BK, its threads, tile_bytes..."""
    return _cpu.geometry()["gemm"][f"tsm{width}"][a_layout]


def plan(m: int, n: int, k: int, suffix: str) -> Plan:
    """The tall-and-skinny plan for an M x N x K product in variant `suffix` (M, N, K >= 1):
    the cheapest t2 by the model (ties: fewer passes, then the narrower: less compute for the
    same traffic), then the pieces of K."""
    transposed = m < n
    if transposed:
        m, n = n, m
    seconds, groups, width = min((-(-n // w) * pass_seconds(m, k, w, suffix), -(-n // w), w)
                                 for w in widths())
    rows = shape(width)["BM"]
    row_blocks = -(-m // rows)
    grid_limit = _cpu.geometry()["grid_yz_limit"]   # row blocks (y) and pieces (z)
    if row_blocks > grid_limit:
        raise ValueError(f"rgemm(algorithm='tsm'): {max(m, n)} rows exceed the kernel's grid "
                         f"({grid_limit * rows} at most); use algorithm='blocked'")
    wanted = -(-TARGET_BLOCKS // (row_blocks * groups))
    pieces = max(1, min(wanted, k // MIN_PIECE, k // (WORKSPACE_SHARE * n), grid_limit))
    piece_len = -(-k // pieces)
    piece_len = -(-piece_len // PIECE_ALIGN) * PIECE_ALIGN
    return Plan(transposed, width, groups, -(-k // piece_len), piece_len, seconds)


def dynamic_shared_bytes(width: int, a_layout: str) -> int:
    """The dynamic shared memory a tsm<width> block needs for op(A)'s layout ("k": a_cs == 1 or a
    general stride, "m": a_rs == 1): the size of its shared-memory tiles (geometry.h's
    gemm_tiles_bytes) where it exceeds static shared memory ("k": 66-74 KB), else 0 (static)."""
    return _cpu.dynamic_tile_bytes(shape(width, a_layout))


def run(p: Plan, op_a: DDArray, op_b: DDArray, alpha, beta, c: DDArray, flags: int,
        partial_flags: int, suffix: str) -> None:
    """C = alpha op(A) op(B) + beta C by the plan; alpha, beta: (hi, lo) floats; flags as in
    gemm.h, partial_flags those of alpha = 1, beta = 0 (the pieces' partial sums). op(A),
    op(B), C: DDArrays on one device, C addressable in place (_backend.output_strides)."""
    if p.transposed:
        op_a, op_b, c = op_b.T, op_a.T, c.T
    m, k = op_a.shape
    n = op_b.shape[1]
    be = _backend.backend(op_a.device)
    a_hi, a_lo, a_rs, a_cs = _backend.kernel_parts(op_a.hi, op_a.lo)
    b_hi, b_lo, b_rs, b_cs = _backend.kernel_parts(op_b.hi, op_b.lo)
    c_rs, c_cs = _backend.output_strides(c.hi, c.lo)
    if p.pieces == 1:
        out, out_rs, out_cs, out_flags, scalars = c, c_rs, c_cs, flags, (*alpha, *beta)
    else:   # each piece's partial sums, alpha = 1 and beta = 0 (the epilogue comes last)
        out = DDArray(be.xp.empty((p.pieces, m, n)), be.xp.empty((p.pieces, m, n)),
                      normalize=False)
        out_rs, out_cs, out_flags, scalars = n, 1, partial_flags, (1.0, 0.0, 0.0, 0.0)
    if op_a.device == "gpu":
        a_layout = "m" if a_cs != 1 and a_rs == 1 else "k"
        if dynamic_shared_bytes(p.width, a_layout) > _gpu.max_shared_bytes():  # sm_75: 64 KB
            a_hi, a_lo = be.xp.asfortranarray(a_hi), be.xp.asfortranarray(a_lo)  # the same sums
            a_rs, a_cs, a_layout = 1, m, "m"
        layout = a_layout + ("k" if b_cs != 1 and b_rs == 1 else "n")
        be.launch_grid(f"ddblas_gemm_tsm{p.width}_{layout}_{suffix}",
                       (p.groups, -(-m // shape(p.width, a_layout)["BM"]), p.pieces),
                       (shape(p.width, a_layout)["threads"],),
                       m, n, k, a_hi, a_lo, a_rs, a_cs, b_hi, b_lo, b_rs, b_cs, *scalars,
                       out.hi, out.lo, out_rs, out_cs, out_flags, p.piece_len, m * n,
                       shared_mem=dynamic_shared_bytes(p.width, a_layout))
    else:
        for piece in range(p.pieces):
            k0, k1 = piece * p.piece_len, min(k, (piece + 1) * p.piece_len)
            o_hi, o_lo = (out.hi, out.lo) if p.pieces == 1 else (out.hi[piece], out.lo[piece])
            be.launch("ddblas_gemm_cpu_" + suffix, m * n, m, n, k1 - k0, a_hi[:, k0:k1],
                      a_lo[:, k0:k1], a_rs, a_cs, b_hi[k0:k1], b_lo[k0:k1], b_rs, b_cs,
                      *scalars, o_hi, o_lo, out_rs, out_cs, out_flags)
    if p.pieces > 1:
        be.launch("ddblas_gemm_pieces_" + suffix, m * n, m, n, p.pieces, out.hi, out.lo,
                  *alpha, *beta, c.hi, c.lo, c_rs, c_cs, flags)
