"""rgemm(algorithm="ozaki2-int8"): DD GEMM by Ozaki scheme II, exact integer products from their
residues modulo L small moduli, one int8 GEMM per modulus, reconstructed into DD.

Python plans and orchestrates; the arithmetic is in cuda_src/crt.h and cuda_src/ozaki2.h
(residues, Chinese-remainder reconstruction in exact multi-limb integers, one rounding to DD,
scale-back and epilogue) and in the int8 engine of ozaki-int8 (cuBLAS int8 x int8 -> int32 on
the GPU, NumPy's float64 matmul of the same digits on the CPU). docs/ozaki.md ("Ozaki scheme
II") derives the method and proves the bound.

plan() reads ozaki.scan()'s exponents e_i, f_j and lower bound `low` of the scaled
(|op(A)||op(B)|)_ij and picks
- `bits` = a, the integer width of the truncated operands A'_ik = trunc(A_ik 2^(a - e_i)),
  B'_kj = trunc(B_kj 2^(a - f_j)), the least a whose truncation error 2 K 2^-a is at most
  OZAKI_TRUNCATION u^2 low (accuracy="classic") or fits the classic kernel's bound ("bound");
- L, the fewest moduli (crt.h, OZAKI2_MODULI) whose product P exceeds 4 K 2^(2a) > 4 |C'_ij|,
  so that C' = A' B' is the symmetric residue of its CRT sum and the float64 quotient is safe;
or a reason to fall back to the classic kernel (the scan's, or a > MAX_BITS, or L > the moduli).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..core.bounds import OZAKI2_ROUNDING, OZAKI_TRUNCATION, bound_constant
from ..engines import backend as _backend
from ..engines import cpu as _cpu
from . import ozaki as _ozaki

ACCURACY = _ozaki.ACCURACY
PRODUCT_BYTES = 1 << 33   # the int32 products of one block of C (all moduli), at most
RESIDUE_BYTES = 1 << 33   # the int8 residues of a block of op(A)'s rows or op(B)'s columns, at most
_U2 = Fraction(1, 2 ** 106)
_GROWTH = 1 + Fraction(1, 2 ** 40)


@functools.lru_cache(maxsize=None)
def constants() -> dict:
    """crt.h's numbers as the compiled host unit has them: "moduli" (a tuple), "max_bits",
    "limbs", "limb_bits", "residue_max"."""
    g = _cpu.geometry()["ozaki2"]
    return {"moduli": tuple(g["modulus"][str(i)] for i in range(g["moduli"])),
            "max_bits": g["max_bits"], "limbs": g["limbs"], "limb_bits": g["limb_bits"],
            "residue_max": g["residue_max"]}


def chunk() -> int:
    """The longest stretch of K in one int8 GEMM: K 128^2 < 2^31 (int32 sums of residue
    products), rounded down to a multiple of ozaki.INT8_ALIGN."""
    top = constants()["residue_max"]
    return (2 ** 31 - 1) // top ** 2 // _ozaki.INT8_ALIGN * _ozaki.INT8_ALIGN


def modulus_product(count: int) -> int:
    """P, the product of the first `count` moduli."""
    p = 1
    for m in constants()["moduli"][:count]:
        p *= m
    return p


@dataclass
class Plan:
    """What ozaki2-int8 will do for one call (or why not: `fallback`): `moduli` int8 GEMMs per
    stretch of K (`chunks` of at most `chunk`), operands truncated to `bits`-bit integers."""
    bits: int = 0
    moduli: int = 0
    chunk: int = 0
    chunks: int = 0
    row_exp: object = None
    col_exp: object = None
    fallback: str | None = None
    engine: str = "crt"
    k: int = 0
    bound: str = ""

    @property
    def gemms(self) -> int:
        """The scan's bound GEMM and one int8 GEMM per modulus and stretch of K."""
        return 1 + self.moduli * self.chunks

    def describe(self) -> dict:
        """The plan's entries of rgemm's info."""
        return dict(moduli=self.moduli, bits=self.bits, chunk=self.chunk, chunks=self.chunks,
                    gemms=0, bound=self.bound, fallback=self.fallback)


def bits_needed(low, k: int, variant, accuracy: str = "classic") -> int | None:
    """The least a >= 1 with 2 K 2^-a <= OZAKI_TRUNCATION u^2 low (accuracy="classic") or
    2 K 2^-a <= (c_gemm / growth - c_mul - c_add - OZAKI2_ROUNDING u^2) low ("bound"), low the
    scan's lower bound of every nonzero scaled (|op(A)||op(B)|)_ij (None: all are 0, a = 1);
    None beyond crt.h's MAX_BITS."""
    if accuracy not in ACCURACY:
        raise ValueError(f"accuracy must be one of {', '.join(ACCURACY)}, got {accuracy!r}")
    if low is None:
        return 1
    if accuracy == "classic":
        room = OZAKI_TRUNCATION * _U2
    else:
        room = bound_constant("gemm", variant, k) / _GROWTH - bound_constant("mul", variant) \
            - bound_constant("add", variant) - OZAKI2_ROUNDING * _U2
    target = room * low
    for a in range(1, constants()["max_bits"] + 1):
        if 2 * k * Fraction(1, 2 ** a) <= target:
            return a
    return None


def moduli_needed(k: int, bits: int) -> int | None:
    """The fewest moduli whose product P > 4 K 2^(2 bits) (None beyond crt.h's list): then
    |C'_ij| < K 2^(2 bits) <= P / 4."""
    need, p = 4 * k * 2 ** (2 * bits), 1
    for count, m in enumerate(constants()["moduli"], 1):
        p *= m
        if p > need:
            return count
    return None


def plan(op_a, op_b, variant, scanned: _ozaki.Scan | None = None,
         accuracy: str = "classic") -> Plan:
    """The plan for op(A) (m x K) and op(B) (K x n), DDArrays on one device; scanned:
    ozaki.scan(op_a, op_b) if already done; accuracy: one of ACCURACY (bits_needed)."""
    k = op_a.shape[1]
    sc = _ozaki.scan(op_a, op_b) if scanned is None else scanned
    step = chunk()
    if sc.fallback is not None:
        return Plan(k=k, fallback=sc.fallback)
    # The float64 bound GEMM rounds differently on each device: its low is taken down to a power
    # of two, so that both devices pick the same bits (unless fl(M) lies within (K+2)u of one).
    low = sc.low if sc.low is None or sc.bound != "float64" else _power_of_two_below(sc.low)
    bits = bits_needed(low, k, variant, accuracy)
    if bits is None:
        return Plan(k=k, bound=sc.bound, fallback=f"more than {constants()['max_bits']} bits "
                    f"per operand needed (entries far below their row's or column's largest)")
    count = moduli_needed(k, bits)
    if count is None:
        return Plan(bits=bits, k=k, bound=sc.bound, fallback=f"more than "
                    f"{len(constants()['moduli'])} moduli needed for {bits}-bit operands")
    kp = _ozaki.int8_padded(k)
    return Plan(bits=bits, moduli=count, chunk=min(step, kp), chunks=-(-kp // step),
                row_exp=sc.row_exp, col_exp=sc.col_exp, k=k, bound=sc.bound)


def _power_of_two_below(x: Fraction) -> Fraction:
    """2^floor(log2 x) for x > 0."""
    e = x.numerator.bit_length() - x.denominator.bit_length()
    return Fraction(2) ** (e if Fraction(2) ** e <= x else e - 1)


@functools.lru_cache(maxsize=None)
def crt_tables(count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(q, frac, p) for the first `count` moduli, read-only: q (count x LIMBS, int32) the
    16-bit limbs of q_l = (P/m_l) ((P/m_l)^-1 mod m_l), least significant first; frac (float64)
    q_l / P rounded; p (LIMBS, int32) the limbs of P."""
    c = constants()
    limbs, width = c["limbs"], c["limb_bits"]
    big = modulus_product(count)

    def split(x: int) -> list[int]:
        return [(x >> (width * i)) & ((1 << width) - 1) for i in range(limbs)]
    q = []
    for m in c["moduli"][:count]:
        cofactor = big // m
        q.append(cofactor * pow(cofactor, -1, m))
    table = np.array([split(x) for x in q], dtype=np.int32)
    frac = np.array([float(Fraction(x, big)) for x in q])
    table.flags.writeable = frac.flags.writeable = False
    p = np.array(split(big), dtype=np.int32)
    p.flags.writeable = False
    return table, frac, p


def residues(be, x, exps, p: Plan, rows: int):
    """The residues of A'_ij = trunc(x_ij 2^(bits - exps[i])) modulo the plan's moduli, for the
    DDArray x (R x K, any strides), as int8 (moduli, rows, Kp): rows >= R, Kp = int8_padded(K),
    padding zero."""
    r, k = x.shape
    kp = _ozaki.int8_padded(k)
    out = (be.xp.empty if (r, k) == (rows, kp) else be.xp.zeros)((p.moduli, rows, kp),
                                                                 dtype=np.int8)
    hi, lo, rs, cs = _backend.kernel_parts(x.hi, x.lo)
    be.launch("ddblas_ozaki2_residues", r * k, r, k, p.bits, p.moduli, hi, lo, rs, cs,
              _backend.contiguous(exps), out, kp, rows * kp)
    return out


def run(p: Plan, op_a, op_b, alpha, beta, c, flags: int, suffix: str, times: dict | None):
    """C = alpha op(A) op(B) + beta C by the plan; alpha, beta: (hi, lo) floats; flags as in
    gemm.h; C addressable in place (_backend.output_strides). times: if a dict, seconds per
    phase ("residues", "gemm", "reconstruct") are added to it (ozaki.phase_clock). C is done in
    blocks of columns whose residues of op(B) take at most RESIDUE_BYTES and, within them,
    blocks of rows whose residues of op(A) take at most RESIDUE_BYTES and whose products take at
    most PRODUCT_BYTES (op(A)'s residues are made once per block of columns)."""
    device = op_a.device
    be = _backend.backend(device)
    xp = be.xp
    m, n = op_a.shape[0], op_b.shape[1]
    lap = _ozaki.phase_clock(device, times)

    q, frac, p_limb = (xp.asarray(t) for t in crt_tables(p.moduli))
    quads = -(-modulus_product(p.moduli).bit_length() // (4 * constants()["limb_bits"]))
    gemm = _ozaki.int8_gemm(device)
    kp = _ozaki.int8_padded(op_a.shape[1])
    residue_rows = max(1, RESIDUE_BYTES // (p.moduli * kp))   # rows of op(A) or op(B)^T
    align = _ozaki.INT8_ALIGN
    columns = _ozaki.even_blocks(n, max(align, residue_rows // align * align), align)
    c_rs, c_cs = _backend.output_strides(c.hi, c.lo)
    row_exp, col_exp = _backend.contiguous(p.row_exp), _backend.contiguous(p.col_exp)
    for c0 in range(0, n, columns):
        c1 = min(n, c0 + columns)
        ldp = _ozaki.int8_rows(c1 - c0)
        rb = residues(be, op_b.T[c0:c1], col_exp[c0:c1], p, ldp)  # B's columns as rows
        lap("residues")
        rows = _ozaki.even_blocks(m, max(1, min(PRODUCT_BYTES // (4 * p.moduli * p.chunks * ldp),
                                          residue_rows)))
        for r0 in range(0, m, rows):
            r1 = min(m, r0 + rows)
            ra = residues(be, op_a[r0:r1], row_exp[r0:r1], p, r1 - r0)
            lap("residues")
            products = xp.empty((p.moduli * p.chunks, r1 - r0, ldp), dtype=np.int32)
            for mod in range(p.moduli):
                for s, k0 in enumerate(range(0, kp, p.chunk)):
                    k1 = min(kp, k0 + p.chunk)
                    gemm(ra[mod, :, k0:k1], rb[mod, :, k0:k1], products[mod * p.chunks + s])
            lap("gemm")
            be.launch("ddblas_ozaki2_finish_" + suffix, (r1 - r0) * (c1 - c0), r1 - r0, c1 - c0,
                      p.moduli, quads, p.chunks, products, ldp, q, frac, p_limb,
                      row_exp[r0:r1], col_exp[c0:c1], 2 * p.bits, *alpha, *beta,
                      c.hi[r0:r1, c0:c1], c.lo[r0:r1, c0:c1], c_rs, c_cs, flags)
            lap("reconstruct")
