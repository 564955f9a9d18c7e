"""rgemm(algorithm="ozaki-fp64"): DD GEMM as exact float64 GEMMs of integer slices (Ozaki scheme I).

Python plans and orchestrates; the arithmetic is in cuda_src/ozaki.h (slicing, exact group
sums, DD accumulation, scale-back and epilogue) and in the float64 engine (numpy.matmul on the
CPU, cupy.matmul = cuBLAS DGEMM on the GPU), which only ever multiplies integer matrices whose
dot products are exact. docs/ozaki.md describes the method and proves the bound.

plan() picks from the data
- e_i, f_j: the exponents of each row of op(A) and column of op(B) (|x| < 2^e, from frexp of hi);
- beta = floor((53 - ceil(log2 chunk)) / 2) bits per slice, chunk = min(K, CHUNK): every slice
  product over a chunk of K is a sum of integers below 2^53, exact in any order;
- S, the fewest slices for which the proven error stays within rgemm's classic bound
  accuracy.bound("gemm", variant, K), using a float64 lower bound of (|op(A)||op(B)|)_ij
  (one more float64 GEMM);
or a reason to fall back to the classic kernel (non-finite entries, entries more than 2^GAP_LIMIT
below their row's or column's maximum, or S > MAX_SLICES).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from . import _backend
from ._ops import _strided

CHUNK = 8192         # the longest stretch of K in one exact slice product
MAX_SLICES = 16      # beyond this the classic kernel is used
GAP_LIMIT = 450      # scaled |hi| >= 2^-450: the bound GEMM's products stay normal (>= 2^-900)
_U = Fraction(1, 2 ** 53)
_GROWTH = 1 + Fraction(1, 2 ** 40)


def slice_bits(chunk: int) -> int:
    """beta: chunk * 2^(2 beta) <= 2^53, so a product of two slices summed over a chunk of K is
    exact (integers below 2^beta, partial sums integers of magnitude <= 2^53)."""
    return (53 - (chunk - 1).bit_length()) // 2


@dataclass
class Plan:
    """What ozaki-fp64 will do for one call (or why it will not: `fallback`)."""
    slices: int = 0
    beta: int = 0
    chunk: int = 0
    chunks: int = 0
    row_exp: object = None   # e_i, int64 on the device
    col_exp: object = None   # f_j
    fallback: str | None = None

    @property
    def gemms(self) -> int:
        """float64 GEMMs: the bound's |A||B| and one per slice pair t + u <= S + 1 and chunk."""
        return 1 + self.slices * (self.slices + 1) // 2 * self.chunks


def _exponents(xp, hi, axis: int):
    """max over `axis` of the frexp exponent of hi (|hi| < 2^e), zeros ignored; 0 for all-zero
    rows/columns (their slices are zero whatever e is)."""
    _, e = xp.frexp(hi)
    e = xp.where(hi != 0, e.astype(np.int64), np.int64(-(2 ** 20)))
    m = e.max(axis=axis)
    return xp.where(m == -(2 ** 20), np.int64(0), m).astype(np.int64)


def budget(variant, k: int) -> Fraction:
    """B = c_first + (K-1) c_acc - c_add: the classic bound's constant (without its growth
    factor) less the epilogue's c_mul + c_add and the last group's c_add."""
    from .accuracy import bound_constant
    return (bound_constant("gemm", variant, k) / _GROWTH - bound_constant("mul", variant)
            - 2 * bound_constant("add", variant))


def slices_needed(m_min: float, k: int, beta: int, variant) -> int | None:
    """The fewest S >= 2 for which, with M the exact scaled (|op(A)||op(B)|)_ij of any entry,
    M >= L = m_min (1 - (K+2) u) (m_min: the smallest nonzero entry of the bound GEMM),
        K (S+1) 2^(-beta S) + c_add (1+2^-40) (S-2) min(M, 2K 2^-beta) <= B M
    (docs/ozaki.md, Theorem); None beyond MAX_SLICES. The left side minus the right is piecewise
    linear in M, so it is checked at M = L and at the kink M = 2K 2^-beta."""
    from .accuracy import bound_constant
    if not math.isfinite(m_min):     # every (|A||B|)_ij is 0: C = beta C0 exactly
        return 2
    c_add = bound_constant("add", variant) * _GROWTH
    room = budget(variant, k)
    low = Fraction(m_min) * (1 - (k + 2) * _U)
    kink = Fraction(2 * k, 2 ** beta)
    for s in range(2, MAX_SLICES + 1):
        def fits(m):
            return k * (s + 1) * Fraction(1, 2 ** (beta * s)) + c_add * (s - 2) * min(m, kink) \
                <= room * m
        if fits(low) and (kink <= low or fits(kink)):
            return s
    return None


def plan(op_a, op_b, variant) -> Plan:
    """The slicing plan for op(A) (m x K) and op(B) (K x n), DDArrays on one device. An inf or
    nan among the hi parts reaches the bound GEMM (inf * 0 = nan), which is how it is detected
    (a normalized DD with a finite hi has a finite lo)."""
    xp = op_a.xp
    k = op_a.shape[1]
    chunk = min(k, CHUNK)
    beta = slice_bits(chunk)
    row_exp, col_exp = _exponents(xp, op_a.hi, 1), _exponents(xp, op_b.hi, 0)
    mag_a = xp.ldexp(xp.abs(op_a.hi), (-row_exp[:, None]).astype(np.int32))
    mag_b = xp.ldexp(xp.abs(op_b.hi), (-col_exp[None, :]).astype(np.int32))
    with np.errstate(invalid="ignore"):  # inf * 0 in NumPy's BLAS: the nan is the detection
        bound = xp.matmul(mag_a, mag_b)  # (|op(A)||op(B)|)_ij 2^-(e_i + f_j), rounded
    if not bool(xp.isfinite(bound).all()):
        return Plan(fallback="non-finite entries (inf or nan) in A or B")
    for x, mag in ((op_a, mag_a), (op_b, mag_b)):  # a scaled entry may underflow to 0
        if float(xp.where(x.hi != 0, mag, np.inf).min()) < 2.0 ** -GAP_LIMIT:
            return Plan(fallback=f"entries more than 2^{GAP_LIMIT} below their row's (A) or "
                                 f"column's (B) largest")
    m_min = float(xp.where(bound > 0, bound, np.inf).min())
    s = slices_needed(m_min, k, beta, variant)
    if s is None:
        return Plan(beta=beta, chunk=chunk, fallback=f"more than {MAX_SLICES} slices needed "
                    f"(entries far below their row's or column's largest)")
    return Plan(slices=s, beta=beta, chunk=chunk, chunks=-(-k // chunk), row_exp=row_exp,
                col_exp=col_exp)


def _slices(be, x, exps, per_row: bool, p: Plan):
    """(S, R, C) float64 digits of the DDArray x (R x C, any strides)."""
    xp = be.xp
    hi, lo, rs, cs = _strided(x)
    rows, cols = x.shape
    out = xp.empty((p.slices, rows, cols))
    be.launch("ddblas_ozaki_slice", rows * cols, rows, cols, p.slices, p.beta, hi, lo, rs, cs,
              xp.ascontiguousarray(exps), 1 if per_row else 0, 0 if per_row else 1, out)
    return out


def run(p: Plan, op_a, op_b, alpha, beta, c, flags: int, suffix: str, times: dict | None):
    """C = alpha op(A) op(B) + beta C by the plan; alpha, beta: (hi, lo) floats; flags as in
    gemm.h. times: if a dict, seconds per phase are added to it (synchronizing the GPU)."""
    device = op_a.device
    be = _backend.backend(device)
    xp = be.xp
    m, k = op_a.shape
    n = op_b.shape[1]
    clock = [time.perf_counter()]

    def lap(phase):
        if times is not None:
            if device == "gpu":
                xp.cuda.Device().synchronize()
            now = time.perf_counter()
            times[phase] = times.get(phase, 0.0) + now - clock[0]
            clock[0] = now

    sa = _slices(be, op_a, p.row_exp, True, p)
    sb = _slices(be, op_b, p.col_exp, False, p)
    lap("slice")
    acc_hi, acc_lo = xp.empty((m, n)), xp.empty((m, n))
    stack = xp.empty((p.slices * p.chunks, m, n))
    c_rs, c_cs = c.hi.strides[0] // 8, c.hi.strides[1] // 8
    for s in range(p.slices + 1, 1, -1):       # smallest products first
        count = 0
        for t in range(1, s):
            for k0 in range(0, k, p.chunk):
                xp.matmul(sa[t - 1, :, k0:k0 + p.chunk], sb[s - t - 1, k0:k0 + p.chunk],
                          out=stack[count])
                count += 1
        lap("gemm")
        scale = 2.0 ** (-p.beta * s)
        if s > 2:
            be.launch("ddblas_ozaki_accumulate_" + suffix, m * n, m, n, count, stack, scale,
                      int(s == p.slices + 1), acc_hi, acc_lo)
        else:
            be.launch("ddblas_ozaki_finish_" + suffix, m * n, m, n, count, stack, scale,
                      acc_hi, acc_lo, p.row_exp, p.col_exp, *alpha, *beta, c.hi, c.lo,
                      c_rs, c_cs, flags)
        lap("accumulate")
