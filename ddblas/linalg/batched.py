"""Stacks of small dense systems in one launch each (cuda_src/linalg_batched.h): LU with partial
pivoting, the solve with its factors, and det from the factors.

On the GPU, orders up to geometry's batched_team_max_order (96) are factored by teams of
threads with the matrix in shared memory (8, 16 or 32 lanes of a warp a system up to order 32, a
block above) and solved by a block a system; solve() on the smaller teams (orders up to
batched_small_block_max_order) factors and solves in one launch, the right-hand sides beside the
matrix. Larger orders, and every order on the CPU, take one thread a system. The factors stay
in a batch buffer laid out for the kernel that made them (GPU teams: each system column-major;
one GPU thread a system: systems interleaved, so a warp's threads read consecutive doubles;
CPU: each system row-major); BatchLU carries its steps with the pivots. Every kernel reports
into a summary of two words (new_summary, read_summary) that a solve copies back alone. Only
strides, launch shapes and integer bookkeeping happen here: the arithmetic is the kernels'.
"""
from __future__ import annotations

import functools
import types
from dataclasses import dataclass

import numpy as np

from ..core.array import DDArray
from ..core.options import Options
from ..engines import backend as _backend
from ..engines import cpu as _cpu
from ..engines import gpu as _gpu

GPU_THREADS = 64   # one thread a system: 10^4 systems fill 157 blocks, more SMs than 256 would


@dataclass(frozen=True)
class BatchLU:
    """LU factors of `batch` systems of one order: buffer hi/lo (element (i, j) of system p at
    p * sys_step + i * row_step + j * col_step), piv (batch, order) int64 (LAPACK's ipiv,
    0-based), zero_pivot (batch,) int64 (-1, or the first zero pivot's index; None from
    from_factors), summary (the kernels' report: read_summary; "a_not_finite" and "a_large"
    of the entries)."""
    hi: object
    lo: object
    sys_step: int
    row_step: int
    col_step: int
    order: int
    batch: int
    piv: object
    zero_pivot: object
    summary: object
    device: str


def _launch(device: str, kernel: str, batch: int, *args) -> None:
    """One thread a system: OpenMP on the CPU, a grid-stride loop on the GPU."""
    be = _backend.backend(device)
    if device == "cpu":
        be.launch(kernel, batch, batch, *args)
    else:
        be.launch_grid(kernel, (-(-batch // GPU_THREADS),), (GPU_THREADS,), batch, *args)


def _teams(device: str, n: int) -> bool:
    """Whether order n runs on the GPU's team kernels (lu_shared, lu_solve_team)."""
    return device == "gpu" and n <= _cpu.geometry()["batched_team_max_order"]


@functools.lru_cache(maxsize=None)
def _team_kernel(stem: str, n: int, suffix: str) -> tuple[str, int, int]:
    """(kernel, threads a block, systems a block) of the GPU's team kernel
    <stem>_<team>_<suffix> (suffix: Options.suffix) for order n: team "quarter_warp", "half_warp"
    or "warp" (up to geometry's batched_quarter_warp_max_order, batched_half_warp_max_order and
    32: 8, 16 or 32 lanes of a warp a system, several a block), "small_block" or "block" (a
    block a system: geometry's batched_small_block_team threads up to
    batched_small_block_max_order, else batched_block_team), with "_quads" (updates in groups of
    2 x 2): a whole warp's from n^2 >= batched_quads_min_area x 32 (never the smaller teams'),
    the block teams' always."""
    g = _cpu.geometry()
    if n <= g["warp_size"]:
        team, lanes = next((name, g["warp_size"] // parts) for name, parts, top in (
            ("quarter_warp", 4, g["batched_quarter_warp_max_order"]),
            ("half_warp", 2, g["batched_half_warp_max_order"]), ("warp", 1, n)) if n <= top)
        threads = g["batched_warp_threads"]
        systems = threads // lanes
    elif n <= g["batched_small_block_max_order"]:
        team, threads, systems = "small_block", g["batched_small_block_team"], 1
    else:
        team, threads, systems = "block", g["batched_block_team"], 1
    if not team.endswith("warp") or (team == "warp" and
                                     n * n >= g["batched_quads_min_area"] * g["warp_size"]):
        team += "_quads"
    return f"ddblas_linalg_batched_{stem}_{team}_{suffix}", threads, systems


def _shared_launch(stem: str, n: int, width: int, batch: int, opts: Options, *args) -> None:
    """Launch _team_kernel(stem, n), the GPU's team kernels with each system (n rows of `width`:
    the matrix, then any right-hand sides) in dynamic shared memory."""
    kernel, threads, systems = _team_kernel(stem, n, opts.suffix)
    _backend.backend("gpu").launch_grid(
        kernel, (-(-batch // systems),), (threads,), *args,
        shared_mem=systems * _cpu.batched_shared_bytes(n, width))


def _fused_solve(device: str, n: int, nrhs: int, opts: Options) -> bool:
    """Whether solve() takes one launch (solve_shared): on the GPU's warp and small-block teams
    where a block's systems with their nrhs right-hand sides, and the kernel's static shared
    memory, fit the device's (geometry.h says why not on the block teams)."""
    if device != "gpu" or n > _cpu.geometry()["batched_small_block_max_order"]:
        return False
    kernel, _, systems = _team_kernel("solve_shared", n, opts.suffix)
    return (systems * _cpu.batched_shared_bytes(n, n + nrhs) + _gpu.static_shared_bytes(kernel)
            <= _gpu.max_shared_bytes())


def lu_factor(a: DDArray, opts: Options, summary=None) -> BatchLU:
    """LU with partial pivoting of each matrix of a (batch, n, n) stack (any strides); summary:
    the new_summary() that the kernel reports into (default: a new one), BatchLU.summary."""
    batch, n, _ = a.shape
    xp = a.xp
    hi, lo, a_bs, a_rs, a_cs = _backend.kernel_parts(a.hi, a.lo)
    teams = _teams(a.device, n)
    steps = _layout(a.device, n, batch)[1]
    lu_hi = xp.empty(batch * n * n, dtype=np.float64)
    lu_lo = xp.empty(batch * n * n, dtype=np.float64)
    piv = xp.empty((batch, n), dtype=np.int64)
    zero_pivot = xp.empty(batch, dtype=np.int64)
    if summary is None:
        summary = new_summary(xp)
    args = (batch, n, hi, lo, a_bs, a_rs, a_cs, lu_hi, lu_lo, *steps, piv, zero_pivot, summary)
    if not (batch and n):
        zero_pivot[...] = -1
    elif teams:
        _shared_launch("lu_shared", n, n, batch, opts, *args)
    else:
        _launch(a.device, "ddblas_linalg_batched_lu_factor_" + opts.suffix, *args)
    return BatchLU(lu_hi, lu_lo, *steps, n, batch, piv, zero_pivot, summary, a.device)


def _layout(device: str, n: int, batch: int) -> tuple[tuple, tuple]:
    """(axes, steps): the batch buffer's layout that lu_factor writes for `batch` systems of
    order n on `device` (BatchLU's steps), and the transpose of a (batch, n, n) stack whose
    C-contiguous copy is that buffer."""
    if _teams(device, n):
        return (0, 2, 1), (n * n, 1, n)       # column-major systems: the solve reads rows together
    if device == "gpu":
        return (1, 2, 0), (1, n * batch, batch)   # interleaved systems
    return (0, 1, 2), (n * n, n, 1)           # row-major systems


def from_factors(hi, lo, piv, device: str) -> BatchLU:
    """A BatchLU for lu_solve from factors made elsewhere (lu_factor's L\\U, as factor.lu_factor
    returns them): hi, lo (batch, n, n) float64 arrays (any strides) and piv (batch, n) integer
    row indices in [0, n) (LAPACK's ipiv, 0-based; not checked here), on `device`. The factors
    are copied into the layout lu_factor leaves them in on the device (the one the solve kernels
    read fastest: no copy for a C-contiguous stack on the CPU); zero_pivot is None (not known),
    summary a new one."""
    batch, n, _ = hi.shape
    xp = _backend.backend(device).xp
    axes, steps = _layout(device, n, batch)
    parts = [_backend.contiguous(x.transpose(axes)).reshape(-1) for x in (hi, lo)]
    return BatchLU(*parts, *steps, n, batch, _backend.contiguous(piv.astype(np.int64)), None,
                   new_summary(xp), device)


def lu_solve(f: BatchLU, b: DDArray, opts: Options, transposed: bool = False) -> DDArray:
    """X[p] = A[p]^-1 B[p] (transposed: A[p]^-T B[p]) for a (batch, n, nrhs) stack B (any
    strides) from lu_factor's f (X[p] is meaningless where A[p] has a zero pivot);
    report_bits()'s "b_not_finite" and "b_large" of B's entries and "x_not_finite" (an entry of
    X not finite) OR-ed into f.summary."""
    batch, n, nrhs = b.shape
    xp = b.xp
    x_hi = xp.empty((batch, n, nrhs), dtype=np.float64)
    x_lo = xp.empty((batch, n, nrhs), dtype=np.float64)
    if batch and n and nrhs:
        hi, lo, b_bs, b_rs, b_cs = _backend.kernel_parts(b.hi, b.lo)
        args = (batch, n, nrhs, f.hi, f.lo, f.sys_step, f.row_step, f.col_step, f.piv, hi, lo,
                b_bs, b_rs, b_cs, x_hi, x_lo, f.summary, int(transposed))
        if _teams(f.device, n):   # a block a system, its threads whole warps
            warp = _cpu.geometry()["warp_size"]
            _backend.backend("gpu").launch_grid(
                "ddblas_linalg_batched_lu_solve_team_" + opts.suffix, (batch,),
                (-(-n // warp) * warp,), *args)
        else:
            _launch(f.device, "ddblas_linalg_batched_lu_solve_" + opts.suffix, *args)
    return DDArray(x_hi, x_lo, normalize=False)


def solve(a: DDArray, b: DDArray, opts: Options, summary) -> DDArray:
    """X[p] = A[p]^-1 B[p] for (batch, n, n) and (batch, n, nrhs) stacks (any strides) without
    returning the factors, the bits of lu_factor then lu_solve: one launch on the CPU (solve:
    each system factored, then solved) and where _fused_solve says so on the GPU
    (solve_shared: b beside each matrix in shared memory), else lu_factor and lu_solve.
    summary (new_summary()) receives the report: the first zero pivot, the report_bits()
    flags of a, b and x. X[p] is meaningless where A[p] has a zero pivot."""
    batch, n, nrhs = b.shape
    cpu = a.device == "cpu"
    if not (batch and n and nrhs and (cpu or _fused_solve(a.device, n, nrhs, opts))):
        return lu_solve(lu_factor(a, opts, summary), b, opts)
    xp = a.xp
    x_hi = xp.empty((batch, n, nrhs), dtype=np.float64)
    x_lo = xp.empty((batch, n, nrhs), dtype=np.float64)
    a_hi, a_lo, a_bs, a_rs, a_cs = _backend.kernel_parts(a.hi, a.lo)
    b_hi, b_lo, b_bs, b_rs, b_cs = _backend.kernel_parts(b.hi, b.lo)
    args = (batch, n, nrhs, a_hi, a_lo, a_bs, a_rs, a_cs, b_hi, b_lo, b_bs, b_rs, b_cs, x_hi,
            x_lo)
    if cpu:   # the factors' buffer and pivots, row-major systems
        _launch("cpu", "ddblas_linalg_batched_solve_" + opts.suffix, *args,
                np.empty(batch * n * n), np.empty(batch * n * n),
                np.empty((batch, n), dtype=np.int64), summary)
    else:
        _shared_launch("solve_shared", n, n + nrhs, batch, opts, *args, summary)
    return DDArray(x_hi, x_lo, normalize=False)


def new_summary(xp):
    """A zeroed summary for the kernels' report (linalg_batched.h BatchReport): two int64 on
    the device of xp."""
    return xp.zeros(2, dtype=np.int64)


@dataclass(frozen=True)
class Summary:
    """What a batched call's kernels reported: flags, the OR of every system's report_bits();
    singular, (p, k) for the first system p with a zero pivot and its first zero pivot k, or
    None."""
    flags: int
    singular: tuple[int, int] | None


def read_summary(summary, batch: int, order: int) -> Summary:
    """The Summary of a call on `batch` systems of `order` from its summary array (one copy of
    two words to the host)."""
    flags, key = (int(v) for v in _backend.move(summary, "cpu"))
    return Summary(flags, divmod(batch * order - key, order) if key else None)


def report_bits() -> types.MappingProxyType:
    """The flags of a batched solve's report (geometry.h BATCHED_REPORT_*): "a_not_finite",
    "a_large", "a_tiny", "a_spread" (from lu_factor: a matrix's nonzero entries' exponents
    differ by more than linalg_row_spread), "b_not_finite", "b_large", "b_tiny" (an entry with
    |hi| >= 2^linalg_scale_exponent, or nonzero below 2^linalg_tiny_exponent) and
    "x_not_finite" (from lu_solve); solve_shared gives all eight."""
    return _cpu.geometry()["batched_report"]


def diagonal_product(d_hi, d_lo, piv, shift, opts: Options, device: str):
    """(det, mantissa, exponent) of factored systems: U's diagonal read from the (batch, n, n)
    float64 pair d_hi, d_lo (any strides; only the diagonal is read), the pivots piv
    (batch, n) int64 and shift (batch,) int64 added to each exponent: sign(P) prod u_kk 2^shift
    as mantissa 2^exponent (|mantissa| in [0.5, 1), 0 for a singular system; never overflows),
    and as det, a (batch,) DDArray (inf/0 only where the value itself overflows/underflows)."""
    batch, n = piv.shape
    be = _backend.backend(device)
    xp = be.xp
    out = [xp.empty(batch, dtype=np.float64) for _ in range(4)]
    exponent = xp.zeros(batch, dtype=np.int64)
    if batch:
        hi, lo, d_bs, d_rs, d_cs = _backend.kernel_parts(d_hi, d_lo)
        piv = _backend.contiguous(piv)
        shift = _backend.contiguous(shift.astype(np.int64))
        _launch(device, "ddblas_linalg_batched_det_" + opts.suffix, batch, n, hi, lo, d_bs,
                d_rs, d_cs, piv, n, shift, *out, exponent)
    return (DDArray(out[0], out[1], normalize=False), DDArray(out[2], out[3], normalize=False),
            exponent)


def factor_views(f: BatchLU):
    """(hi, lo): the factors (L below the diagonal, U on and above) as (batch, n, n) strided
    views of the batch buffer (what diagonal_product reads)."""
    view = _backend.backend(f.device).xp.lib.stride_tricks.as_strided
    shape = (f.batch, f.order, f.order)
    strides = tuple(8 * s for s in (f.sys_step, f.row_step, f.col_step))
    return view(f.hi, shape, strides), view(f.lo, shape, strides)
