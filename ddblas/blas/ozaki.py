"""rgemm(algorithm="ozaki-fp64" / "ozaki-int8"): DD GEMM as exact GEMMs of integer slices
(Ozaki scheme I) on float64 or on int8 engines.

Python plans and orchestrates; the arithmetic is in cuda_src/ozaki.h (slicing, exact group
sums, DD accumulation, scale-back and epilogue) and in the engine, which only ever multiplies
integer matrices whose dot products are exact: for "fp64" numpy.matmul on the CPU and
cupy.matmul (cuBLAS DGEMM) on the GPU; for "int8" cuBLAS int8 x int8 -> int32 GEMMs on the GPU
and, on the CPU, numpy.matmul in float64 of the same int8 digits (exact as well: every partial
sum is an integer below 2^31). docs/ozaki.md describes the method and proves the bound.

scan() reads the data once for both engines, plan() then picks
- e_i, f_j: the exponents of each row of op(A) and column of op(B) (|x| < 2^e, from frexp of hi);
- beta, the bits per slice: for "fp64" floor((53 - ceil(log2 chunk)) / 2), chunk = min(K, CHUNK),
  so every slice product over a chunk of K is a sum of integers below 2^53, exact in any order;
  for "int8" INT8_BITS = 7 (digits in [-127, 127]), and the products with t + u = s are one
  GEMM over the concatenated K, cut into stretches of at most INT8_CHUNK (sums below 2^31);
- S, the fewest slices for which the proven error stays within rgemm's classic bound
  accuracy.bound("gemm", variant, K), using scan()'s lower bound of the scaled
  (|op(A)||op(B)|)_ij: an exact int8 GEMM of the absolute first 7-bit digits, or where that
  proves nothing a float64 GEMM of the scaled |hi| parts;
or a reason to fall back to the classic kernel (non-finite entries, entries more than 2^GAP_LIMIT
below their row's or column's maximum, or more slices than the engine's limit).
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from ..engines import backend as _backend
from ..core.bounds import OZAKI_TRUNCATION, bound_constant

CHUNK = 8192         # the longest stretch of K in one exact slice product (fp64)
MAX_SLICES = 16      # beyond this the classic kernel is used (fp64)
INT8_BITS = 7        # int8 digits: |d| <= 2^7 - 1 = 127
INT8_CHUNK = (2 ** 31 - 1) // 127 ** 2  # 133144: int8 products summed over this much of the
                                        # (concatenated) K stay below 2^31 in magnitude (int32)
INT8_ALIGN = 16      # K padded, and int8 GEMMs cut, to multiples of 16 bytes (IMMA alignment)
INT8_MAX_SLICES = 32  # beyond this the classic kernel is used (int8)
ENGINES = ("fp64", "int8")
WORKSPACE_BYTES = 1 << 33  # slices, products and accumulator of one block of C, at most
MIN_BLOCK = 1024           # the shortest block side that run() cuts C into for WORKSPACE_BYTES
LINE_BYTES = 1 << 30  # scan(): a block of lines' |hi|, of the bound GEMM's product rows, at most
ACCURACY = ("classic", "bound")  # rgemm's accuracy=: S for the classic kernel's level / the bound
GAP_LIMIT = 450      # scaled |hi| >= 2^-450: the bound GEMM's products stay normal (>= 2^-900)
_U = Fraction(1, 2 ** 53)
_GROWTH = 1 + Fraction(1, 2 ** 40)


def slice_bits(chunk: int) -> int:
    """beta: chunk * 2^(2 beta) <= 2^53, so a product of two slices summed over a chunk of K is
    exact (integers below 2^beta, partial sums integers of magnitude <= 2^53)."""
    return (53 - (chunk - 1).bit_length()) // 2


def int8_chunk() -> int:
    """The longest stretch of the concatenated K in one int8 GEMM: INT8_CHUNK rounded down to a
    multiple of INT8_ALIGN (so every GEMM starts 16-byte aligned)."""
    chunk = INT8_CHUNK // INT8_ALIGN * INT8_ALIGN
    if chunk < INT8_ALIGN:
        raise ValueError(f"INT8_CHUNK must be at least {INT8_ALIGN}, got {INT8_CHUNK}")
    return chunk


def int8_rows(n: int) -> int:
    """N rounded up to a multiple of 4: the row length of the int32 products of an int8 GEMM
    with N columns (cuBLAS's alignment of its output; the extra rows of op(B)^T are zero)."""
    return -(-n // 4) * 4


def int8_padded(k: int) -> int:
    """K rounded up to a multiple of INT8_ALIGN: the length of one int8 slice (zero-padded)."""
    return -(-k // INT8_ALIGN) * INT8_ALIGN


@dataclass
class Plan:
    """What ozaki-fp64 or ozaki-int8 (`engine`) will do for one call (or why it will not:
    `fallback`). chunk: the longest stretch of K (int8: of the concatenated K) in one slice
    product; chunks: the GEMMs of one slice pair (fp64) or of the largest group s = S + 1 (int8)."""
    slices: int = 0
    beta: int = 0
    chunk: int = 0
    chunks: int = 0
    row_exp: object = None   # e_i, int64 on the device
    col_exp: object = None   # f_j
    fallback: str | None = None
    engine: str = "fp64"
    k: int = 0
    bound: str = ""   # what gave S's lower bound: "int8 first digits", "float64", "a zero operand"

    @property
    def gemms(self) -> int:
        """The scan's bound GEMM and the slice products: fp64, one per pair t + u <= S + 1
        and chunk; int8, one per group s and stretch of its concatenated K, (s-1) padded K."""
        if self.engine == "fp64":
            return 1 + self.slices * (self.slices + 1) // 2 * self.chunks
        kp = int8_padded(self.k)
        return 1 + sum(-(-(s - 1) * kp // self.chunk) for s in range(2, self.slices + 2))

    def describe(self) -> dict:
        """The plan's entries of rgemm's info."""
        return dict(slices=self.slices, beta=self.beta, chunk=self.chunk, chunks=self.chunks,
                    gemms=0, bound=self.bound, fallback=self.fallback)


def _row_blocks(rows: int, row_bytes: int):
    """Slices of at most LINE_BYTES // row_bytes rows (at least one) that cover range(rows)."""
    step = max(1, LINE_BYTES // max(1, row_bytes))
    return [slice(i, i + step) for i in range(0, rows, step)]


def _line_stats(xp, hi, axis: int):
    """(e, largest, smallest) for each row (axis=1) or column (axis=0) of hi: the largest |hi|
    (inf or nan where the line holds one: max propagates nan), the smallest nonzero |hi| (inf
    for a zero line) and e, the frexp exponent of the largest, so |x| < 2^e for every entry
    (int64; 0 for a zero line, whose slices are zero whatever e is). Done in blocks of lines
    whose |hi| takes at most LINE_BYTES (max and min are exact: the blocks change nothing)."""
    lines, length = hi.shape[1 - axis], hi.shape[axis]
    largest, smallest = [], []
    for block in _row_blocks(max(lines, 1), 8 * length):   # one empty block for no lines
        mag = xp.abs(hi[block] if axis == 1 else hi[:, block])
        largest.append(mag.max(axis=axis))
        smallest.append(xp.where(mag != 0, mag, np.inf).min(axis=axis))
    largest, smallest = xp.concatenate(largest), xp.concatenate(smallest)
    e = xp.frexp(largest)[1].astype(np.int64)
    return xp.where(largest > 0, e, np.int64(0)), largest, smallest


def budget(variant, k: int) -> Fraction:
    """B = c_first + (K-1) c_acc - c_add: the classic bound's constant (without its growth
    factor) less the epilogue's c_mul + c_add and the last group's c_add."""
    return (bound_constant("gemm", variant, k) / _GROWTH - bound_constant("mul", variant)
            - 2 * bound_constant("add", variant))


def truncation_fits(low, k: int, beta: int, slices: int) -> bool:
    """Whether S = slices leaves Lemma 4's truncation term K (S+1) 2^(-beta S) at most
    OZAKI_TRUNCATION u^2 M for every entry with M >= low (a Fraction): the rule of
    accuracy="classic" (docs/ozaki.md, "The accuracy-faithful rule")."""
    return k * (slices + 1) * Fraction(1, 2 ** (beta * slices)) <= OZAKI_TRUNCATION * _U * _U * low


def slices_needed(low, k: int, beta: int, variant, max_slices: int = MAX_SLICES,
                  accuracy: str = "classic") -> int | None:
    """The fewest S >= 2 for which, with M the exact scaled (|op(A)||op(B)|)_ij of any entry
    with M > 0 and `low` <= M (a Fraction; None when every M is 0),
        K (S+1) 2^(-beta S) + c_add (1+2^-40) sum_(s=3..S) min(M, X_s) <= B M,
        X_s = (s-1) K 2^(-beta (s-2))
    (docs/ozaki.md, Theorem) and, for accuracy="classic", truncation_fits; None beyond
    max_slices. The left side minus the right is concave and piecewise linear in M with kinks
    at the X_s, so it is checked at M = low and at the kinks above it."""
    if accuracy not in ACCURACY:
        raise ValueError(f"accuracy must be one of {', '.join(ACCURACY)}, got {accuracy!r}")
    if low is None:     # every (|A||B|)_ij is 0: C = beta C0 exactly
        return 2
    c_add = bound_constant("add", variant) * _GROWTH
    room = budget(variant, k)
    for s in range(2, max_slices + 1):
        kinks = [Fraction((r - 1) * k, 2 ** (beta * (r - 2))) for r in range(3, s + 1)]

        def fits(m):
            return k * (s + 1) * Fraction(1, 2 ** (beta * s)) \
                + c_add * sum(min(m, x) for x in kinks) <= room * m
        if all(fits(m) for m in [low] + [x for x in kinks if x > low]) and \
                (accuracy == "bound" or truncation_fits(low, k, beta, s)):
            return s
    return None


@dataclass
class Scan:
    """What plan() reads from the data, for either engine: the exponents e_i, f_j, a lower
    bound `low` of every nonzero scaled (|op(A)||op(B)|)_ij (a Fraction; None if all are 0)
    and the GEMM it came from (`bound`), or a reason to fall back."""
    row_exp: object = None
    col_exp: object = None
    low: Fraction | None = None
    bound: str = ""
    fallback: str | None = None


def _first_digit_low(be, op_a, op_b, row_exp, col_exp, live_rows, live_cols):
    """2^-14 min P_ij over the entries with P_ij > 0, P = |A_1| |B_1| the exact product of the
    absolute first int8 digits (docs/ozaki.md, "The lower bound"), or None when some P_ij = 0
    although row i of op(A) and column j of op(B) are both nonzero (live_rows, live_cols: then
    it proves nothing there), or when K exceeds one int8 GEMM. P is formed in blocks of rows of
    at most LINE_BYTES (min and the zero test are exact: the blocks change nothing)."""
    xp = be.xp
    (m, k), n = op_a.shape, op_b.shape[1]
    if int8_padded(k) > int8_chunk():
        return None
    first = Plan(slices=1, beta=INT8_BITS, k=k)
    ldp = int8_rows(n)
    da = int8_slices(be, op_a, row_exp, first, m, reverse=False)
    db = int8_slices(be, op_b.T, col_exp, first, ldp, reverse=False)
    xp.abs(da, out=da)
    xp.abs(db, out=db)
    live_rows, live_cols = _backend.contiguous(live_rows), _backend.contiguous(live_cols)
    none = np.iinfo(np.int32).max     # above every product (each is below 2^31)
    smallest = none
    for rows in _row_blocks(m, 4 * ldp):
        p = xp.empty((da[rows].shape[0], ldp), dtype=np.int32)
        int8_gemm(op_a.device)(da[rows], db, p)
        found = xp.array([none, 0], dtype=np.int32)
        be.launch("ddblas_ozaki_first_digit_check", p.shape[0] * n, p.shape[0], n, p, ldp,
                  live_rows[rows], live_cols, found)
        least, dead = (int(v) for v in (found.get() if op_a.device == "gpu" else found))
        if dead:
            return None
        smallest = min(smallest, least)
    if smallest == none:
        return None
    return Fraction(smallest, 2 ** (2 * INT8_BITS))


def _float64_low(xp, op_a, op_b, row_exp, col_exp):
    """The smallest positive fl(M_ij) of the float64 GEMM M of the scaled |hi| parts, times
    1 - (K+2) u (a lower bound of every nonzero exact one), or None if none is positive; M in
    blocks of rows of at most LINE_BYTES."""
    (m, k), n = op_a.shape, op_b.shape[1]
    mag_b = xp.ldexp(xp.abs(op_b.hi), (-col_exp[None, :]).astype(np.int32))
    m_min = math.inf
    for rows in _row_blocks(m, 8 * n):
        mag_a = xp.ldexp(xp.abs(op_a.hi[rows]), (-row_exp[rows, None]).astype(np.int32))
        bound = xp.matmul(mag_a, mag_b)
        m_min = min(m_min, float(xp.where(bound > 0, bound, np.inf).min()))
    return Fraction(m_min) * (1 - (k + 2) * _U) if math.isfinite(m_min) else None


def scan(op_a, op_b) -> Scan:
    """The exponents and the lower bound of (|op(A)||op(B)|)_ij 2^-(e_i + f_j) for op(A)
    (m x K) and op(B) (K x n), DDArrays on one device. The bound comes from the first int8
    digits (exact, one int8 GEMM), or where that proves nothing from a float64 GEMM of the
    scaled |hi| parts: M >= fl(M) (1 - (K+2) u); None without a GEMM when every row of op(A)
    or every column of op(B) is zero. Falls back for inf or nan in either part (the lo parts
    too: a pair wrapped with normalize=False, NaN in its lo, had been sliced as a number and
    gave finite products where the classic kernel gives nan) and for entries too far below their
    row's or column's largest."""
    be = _backend.backend(op_a.device)
    xp = be.xp
    (row_exp, row_max, row_min), (col_exp, col_max, col_min) = \
        _line_stats(xp, op_a.hi, 1), _line_stats(xp, op_b.hi, 0)
    finite = (xp.isfinite(row_max).all() & xp.isfinite(col_max).all()
              & xp.isfinite(op_a.lo).all() & xp.isfinite(op_b.lo).all())
    if not bool(finite):   # one round trip for the four
        return Scan(fallback="non-finite entries (inf or nan) in A or B")
    for exps, smallest in ((row_exp, row_min), (col_exp, col_min)):  # scaled may underflow to 0
        if float(xp.ldexp(smallest, (-exps).astype(np.int32)).min()) < 2.0 ** -GAP_LIMIT:
            return Scan(fallback=f"entries more than 2^{GAP_LIMIT} below their row's (A) or "
                                 f"column's (B) largest")
    live_rows, live_cols = row_max > 0, col_max > 0
    if not (bool(live_rows.any()) and bool(live_cols.any())):
        return Scan(row_exp, col_exp, None, "a zero operand")
    low = _first_digit_low(be, op_a, op_b, row_exp, col_exp, live_rows, live_cols)
    if low is not None:
        return Scan(row_exp, col_exp, low, "int8 first digits")
    return Scan(row_exp, col_exp, _float64_low(xp, op_a, op_b, row_exp, col_exp), "float64")


def plan(op_a, op_b, variant, engine: str = "fp64", scanned: Scan | None = None,
         accuracy: str = "classic") -> Plan:
    """The slicing plan for op(A) (m x K) and op(B) (K x n), DDArrays on one device, on the
    engine "fp64" or "int8"; scanned: scan(op_a, op_b) if already done (it serves both);
    accuracy: one of ACCURACY (slices_needed)."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
    k = op_a.shape[1]
    sc = scan(op_a, op_b) if scanned is None else scanned
    if engine == "fp64":
        chunk, max_slices = min(k, CHUNK), MAX_SLICES
        beta = slice_bits(chunk)
    else:
        chunk, max_slices, beta = int8_chunk(), INT8_MAX_SLICES, INT8_BITS
    if sc.fallback is not None:
        return Plan(engine=engine, k=k, fallback=sc.fallback)
    s = slices_needed(sc.low, k, beta, variant, max_slices, accuracy)
    if s is None:
        return Plan(beta=beta, engine=engine, k=k, bound=sc.bound, fallback=f"more than "
                    f"{max_slices} slices needed (entries far below their row's or column's "
                    f"largest)")
    if engine == "fp64":
        chunks = -(-k // chunk)
    else:
        chunks, chunk = -(-s * int8_padded(k) // chunk), min(chunk, s * int8_padded(k))
    return Plan(slices=s, beta=beta, chunk=chunk, chunks=chunks, row_exp=sc.row_exp,
                col_exp=sc.col_exp, engine=engine, k=k, bound=sc.bound)


def _slice(be, kernel: str, x, exps, per_row: bool, p: Plan, out, o_rs: int, o_cs: int,
           o_t0: int, o_ts: int) -> None:
    """The digits of the DDArray x (R x C, any strides) against its rows' (per_row) or columns'
    exponents into out[i * o_rs + j * o_cs + o_t0 + (t - 1) * o_ts] (ozaki.h, slice)."""
    hi, lo, rs, cs = _backend.kernel_parts(x.hi, x.lo)
    rows, cols = x.shape
    be.launch(kernel, rows * cols, rows, cols, p.slices, p.beta, hi, lo, rs, cs,
              _backend.contiguous(exps), 1 if per_row else 0, 0 if per_row else 1, out,
              o_rs, o_cs, o_t0, o_ts)


def _slices(be, x, exps, per_row: bool, p: Plan):
    """(S, R, C) float64 digits of the DDArray x (R x C, any strides)."""
    rows, cols = x.shape
    out = be.xp.empty((p.slices, rows, cols))
    _slice(be, "ddblas_ozaki_slice", x, exps, per_row, p, out, cols, 1, 0, rows * cols)
    return out


def int8_slices(be, x, exps, p: Plan, rows: int, reverse: bool):
    """The int8 digits of the DDArray x (R x K, any strides; exponents per row) as a
    (rows, S * Kp) array, rows >= R, Kp = int8_padded(K): row i holds its slices one after the
    other, slice t at columns (t - 1) Kp (reverse: (S - t) Kp) onwards; padding (columns
    K..Kp-1 of each slice, rows R..rows-1) is zero."""
    r, k = x.shape
    kp = int8_padded(k)
    out = be.xp.zeros((rows, p.slices * kp), dtype=np.int8)
    t0, ts = ((p.slices - 1) * kp, -kp) if reverse else (0, kp)
    _slice(be, "ddblas_ozaki_slice_int8", x, exps, True, p, out, p.slices * kp, 1, t0, ts)
    return out


class _Fp64Products:
    """ozaki-fp64's slice products: float64 digits (S, R, C) and one float64 GEMM (numpy.matmul
    or cupy.matmul) per pair t + u = s and chunk of K."""
    kernels = "ddblas_ozaki_"

    def __init__(self, be, p: Plan, op_a, op_b):
        self.xp, self.p = be.xp, p
        self.sa = _slices(be, op_a, p.row_exp, True, p)
        self.sb = _slices(be, op_b, p.col_exp, False, p)
        self.stack = self.xp.empty((p.slices * p.chunks, op_a.shape[0], op_b.shape[1]))

    def group(self, s: int):
        """(products, count, ldp): the products with t + u = s, `count` planes of M x ldp."""
        count, k = 0, self.sa.shape[2]
        for t in range(1, s):
            for k0 in range(0, k, self.p.chunk):
                self.xp.matmul(self.sa[t - 1, :, k0:k0 + self.p.chunk],
                               self.sb[s - t - 1, k0:k0 + self.p.chunk], out=self.stack[count])
                count += 1
        return self.stack, count, self.stack.shape[2]


class _Int8Products:
    """ozaki-int8's slice products: int8 digits of op(A) by rows (m, S * Kp) and of op(B) by
    columns in reverse slice order (ldp, S * Kp), so that for each s the concatenations
    [A_1 | ... | A_(s-1)] and [B_(s-1) | ... | B_1] are column ranges of them (no copies), and
    their product, the whole group t + u = s, is one int8 GEMM per stretch of at most
    p.chunk of the concatenated K (int32 products, M x ldp, ldp = N rounded up to 4)."""
    kernels = "ddblas_ozaki_int8_"

    def __init__(self, be, p: Plan, op_a, op_b):
        self.device, self.xp, self.p = op_a.device, be.xp, p
        self.kp = int8_padded(p.k)
        self.ldp = int8_rows(op_b.shape[1])
        self.sa = int8_slices(be, op_a, p.row_exp, p, op_a.shape[0], reverse=False)
        self.sb = int8_slices(be, op_b.T, p.col_exp, p, self.ldp, reverse=True)

    def group(self, s: int):
        """(products, count, ldp): the group t + u = s as `count` int32 planes of M x ldp."""
        length, b0, chunk = (s - 1) * self.kp, (self.p.slices - s + 1) * self.kp, self.p.chunk
        starts = range(0, length, chunk)
        out = self.xp.empty((len(starts), self.sa.shape[0], self.ldp), dtype=np.int32)
        gemm = int8_gemm(self.device)
        for c, k0 in enumerate(starts):
            k1 = min(k0 + chunk, length)
            gemm(self.sa[:, k0:k1], self.sb[:, b0 + k0:b0 + k1], out[c])
        return out, len(starts), self.ldp


def int8_gemm(device: str):
    """The exact int8 GEMM out (int32) = a b^T of the device: _cublas_int8 or _numpy_int8."""
    return _cublas_int8 if device == "gpu" else _numpy_int8


def _numpy_int8(a, b, out) -> None:
    """out (int32) = a b^T for int8 a (M x L) and b (ldp x L), L <= INT8_CHUNK, by NumPy's
    float64 BLAS: exact, every partial sum being an integer below L 127^2 < 2^31 < 2^53."""
    out[...] = np.matmul(a.astype(np.float64), b.astype(np.float64).T)


# cuBLAS constants (cublas_api.h, library_types.h)
_CUBLAS_OP_N, _CUBLAS_OP_T = 0, 1
_CUDA_R_8I, _CUDA_R_32I = 3, 10
_CUBLAS_COMPUTE_32I = 72
_CUBLAS_GEMM_DEFAULT = -1
_CUBLAS_POINTER_MODE_HOST = 0
_INT32_ONE, _INT32_ZERO = np.ones(1, np.int32), np.zeros(1, np.int32)


def _cublas_int8(a, b, out) -> None:
    """out (int32, M x ldp, rows contiguous) = a b^T for int8 CuPy views a (M x L) and b
    (ldp x L), K-contiguous rows: cuBLAS gemmEx int8 x int8 -> int32 (CUBLAS_COMPUTE_32I), exact
    for L <= INT8_CHUNK. Column-major, out^T = b a^T is the "TN" product (both operands
    K-contiguous, the IMMA layout); leading dimensions are multiples of 16 (a, b) and 4 (out)."""
    import cupy
    from cupy_backends.cuda.libs import cublas
    handle = cupy.cuda.device.get_cublas_handle()
    cublas.setStream(handle, cupy.cuda.get_current_stream().ptr)
    mode = cublas.getPointerMode(handle)
    cublas.setPointerMode(handle, _CUBLAS_POINTER_MODE_HOST)
    try:
        cublas.gemmEx(handle, _CUBLAS_OP_T, _CUBLAS_OP_N, b.shape[0], a.shape[0], a.shape[1],
                      _INT32_ONE.ctypes.data, b.data.ptr, _CUDA_R_8I, b.strides[0],
                      a.data.ptr, _CUDA_R_8I, a.strides[0], _INT32_ZERO.ctypes.data,
                      out.data.ptr, _CUDA_R_32I, out.strides[0] // 4, _CUBLAS_COMPUTE_32I,
                      _CUBLAS_GEMM_DEFAULT)
    finally:
        cublas.setPointerMode(handle, mode)


def phase_clock(device: str, times: dict | None) -> Callable[[str], None]:
    """lap(phase): adds the seconds since the previous lap (or since this call) to
    times[phase], synchronizing the GPU first; does nothing when times is None."""
    clock = [time.perf_counter()]

    def lap(phase: str) -> None:
        if times is not None:
            if device == "gpu":
                _backend.backend(device).xp.cuda.Device().synchronize()
            now = time.perf_counter()
            times[phase] = times.get(phase, 0.0) + now - clock[0]
            clock[0] = now
    return lap


def even_blocks(total: int, most: int, align: int = 1) -> int:
    """The size of the blocks that cut `total` into as few as blocks of at most `most` allow,
    as even as multiples of `align` make them (`most` a multiple of `align`)."""
    size = -(-total // max(1, -(-total // most)))
    return max(align, -(-size // align) * align)


def workspace_bytes(p: Plan, rows: int, cols: int) -> int:
    """The bytes that run() allocates for a rows x cols block of C: both operands' slices, the
    slice products of one group (fp64: the stack of S * chunks planes) and the accumulator."""
    if p.engine == "fp64":
        return 8 * (p.slices * p.k * (rows + cols) + p.slices * p.chunks * rows * cols
                    + 2 * rows * cols)
    kp, ldp = int8_padded(p.k), int8_rows(cols)
    return p.slices * kp * (rows + ldp) + 4 * p.chunks * rows * ldp + 16 * rows * cols


def block_shape(p: Plan, m: int, n: int) -> tuple[int, int]:
    """(rows, cols) of the blocks of an m x n C that run() computes one at a time: halving the
    longer side (not below MIN_BLOCK) until workspace_bytes is at most WORKSPACE_BYTES, then
    evening the blocks out."""
    rows, cols = m, n
    while workspace_bytes(p, rows, cols) > WORKSPACE_BYTES and max(rows, cols) > MIN_BLOCK:
        if rows >= cols:
            rows = max(MIN_BLOCK, -(-rows // 2))
        else:
            cols = max(MIN_BLOCK, -(-cols // 2))
    return even_blocks(m, rows), even_blocks(n, cols)


def run(p: Plan, op_a, op_b, alpha, beta, c, flags: int, suffix: str, times: dict | None):
    """C = alpha op(A) op(B) + beta C by the plan; alpha, beta: (hi, lo) floats; flags as in
    gemm.h; C addressable in place (_backend.output_strides). times: if a dict, seconds per
    phase are added to it (phase_clock). C is done in blocks of block_shape(): each entry is
    computed as in one piece (from its row of op(A), its column of op(B) and the plan), so the
    bits do not depend on the blocks."""
    m, n = op_a.shape[0], op_b.shape[1]
    rows, cols = block_shape(p, m, n)
    for r0 in range(0, m, rows):
        for c0 in range(0, n, cols):
            r1, c1 = min(m, r0 + rows), min(n, c0 + cols)
            block = replace(p, row_exp=p.row_exp[r0:r1], col_exp=p.col_exp[c0:c1])
            _run_block(block, op_a[r0:r1], op_b[:, c0:c1], alpha, beta,
                       c[r0:r1, c0:c1], flags, suffix, times)


def _run_block(p: Plan, op_a, op_b, alpha, beta, c, flags: int, suffix: str, times):
    """run() on one block of C (op_a its rows, op_b its columns, p's exponents theirs)."""
    device = op_a.device
    be = _backend.backend(device)
    xp = be.xp
    m, n = op_a.shape[0], op_b.shape[1]
    lap = phase_clock(device, times)

    products = (_Fp64Products if p.engine == "fp64" else _Int8Products)(be, p, op_a, op_b)
    lap("slice")
    acc_hi, acc_lo = xp.empty((m, n)), xp.empty((m, n))
    c_rs, c_cs = _backend.output_strides(c.hi, c.lo)
    for s in range(p.slices + 1, 1, -1):       # smallest products first
        stack, count, ldp = products.group(s)
        lap("gemm")
        scale = 2.0 ** (-p.beta * s)
        if s > 2:
            be.launch(products.kernels + "accumulate_" + suffix, m * n, m, n, count, stack, ldp,
                      scale, int(s == p.slices + 1), acc_hi, acc_lo)
        else:
            be.launch(products.kernels + "finish_" + suffix, m * n, m, n, count, stack, ldp,
                      scale, acc_hi, acc_lo, p.row_exp, p.col_exp, *alpha, *beta, c.hi, c.lo,
                      c_rs, c_cs, flags)
        lap("accumulate")
