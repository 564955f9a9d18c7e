"""The proven error bounds of the DD operations (docs/algorithms.md derives each), in one low
module: the library (ozaki's choice of S) takes them from here and `ddblas.accuracy` re-exports
them for users, so that no library module imports `accuracy`.

u = 2^-53; `bound_constant` gives the exact constant c as a Fraction, `bound` c / u^2 rounded
up; what each bound is relative to is in the docstring of ddblas.accuracy.
"""
from __future__ import annotations

import math
import numbers
import sys
from fractions import Fraction

from .options import ADD_KINDS, Options, get_options

U = Fraction(1, 2 ** 53)
U2 = U ** 2
GROWTH = 1 + Fraction(1, 2 ** 40)  # partial sums' growth by their own errors (n < 2^60)


# The elementary functions (cuda_src/elementary.h): MEASURED, not proven (docs/algorithms.md,
# "Elementary functions"): the worst relative error found over 3,000 random arguments per range
# and variant and by adversarial searches (hill-climbing by ulps, 2026-11-26, 2026-11-27)
# against mpmath at 300 bits, times about 1.3, in units of u^2; the same for every variant.
# power: relative to (1 + |y ln x|) (its error grows with |y ln x|).
ELEMENTARY_MEASURED = {
    "exp": 3, "exp2": 3.5, "expm1": 8.5, "log": 4, "log2": 6.5, "log10": 6, "log1p": 4,
    "sinh": 8.5, "cosh": 4, "tanh": 8, "arcsinh": 5, "arccosh": 5.5, "arctanh": 5,
    "real_power": 4.5,  # x ** y by exp(y log x): c (1 + |y ln x|) u^2 (the integer powers: "power")
}


def _add_constant(accurate: bool) -> Fraction:
    # [JMP17] Alg. 6 (relative) / docs/algorithms.md "Sloppy addition" (relative to |a| + |b|)
    return 3 * U2 / (1 - 4 * U) if accurate else (3 + U) / (1 - U) * U2


def _mul_constant(fma: bool) -> Fraction:
    # [JMP17] Alg. 12 / docs/algorithms.md "Multiplication without FMA"
    return 5 * U2 if fma else (8 + 6 * U + 2 * U ** 2) / (1 - U) ** 2 * U2


def _madd_sloppy_product_constant(fma: bool) -> Fraction:
    # docs/algorithms.md "Fused sloppy multiply-add": c_prod (c_acc is the sloppy add's constant)
    if fma:
        return (13 + 16 * U + 9 * U ** 2 + 2 * U ** 3) / (1 - U) ** 2 * U2
    return (15 + 23 * U + 18 * U ** 2 + 7 * U ** 3 + U ** 4) / (1 - U) ** 2 * U2


# Measured (not proven) relative bounds of the trigonometric functions in units of u^2, every
# variant: the worst error over 40000 random DD inputs per function and variant and by
# adversarial searches (2026-11-26, 2026-11-27) against mpmath at 300 bits, times at least 1.3,
# rounded up to an integer (docs/algorithms.md, "Trigonometric functions", gives the ranges and
# the sweep); finite inputs, results above 2^-968 (no underflow).
TRIG_MEASURED = {"sin": 7, "cos": 6, "tan": 7, "arcsin": 9, "arccos": 8, "arctan": 7,
                 "arctan2": 10, "hypot": 6}


def variant_options(variant) -> Options:
    """The Options a variant names: None (the active options), an Options, or
    'fma|nofma/accurate|sloppy'."""
    if variant is None:
        return get_options()
    if isinstance(variant, Options):
        return variant
    if isinstance(variant, str) and variant.count("/") == 1:
        fma, add = variant.split("/")
        if fma in ("fma", "nofma") and add in ADD_KINDS:
            return Options(fma=fma == "fma", add=add)
    raise ValueError(f"variant must be None, an Options or 'fma|nofma/accurate|sloppy', "
                     f"got {variant!r}")


def bound_constant(op: str, variant=None, k: int | None = None) -> Fraction:
    """The exact constant c of `bound` (not scaled by u^2), as a Fraction."""
    if op not in OPERATIONS:
        raise ValueError(f"unknown operation {op!r}: one of {', '.join(OPERATIONS)}")
    opts = variant_options(variant)
    c_add, c_mul = _add_constant(opts.add == "accurate"), _mul_constant(opts.fma)
    needs_k = op in ("sum", "dot", "gemm", "power", "ozaki", "refine") + FACTORIZATIONS
    if needs_k and (isinstance(k, bool) or not isinstance(k, numbers.Integral)
                    or (k < 0 and op != "power")):   # k=True gave sum's bound for one term
        raise ValueError(f"bound({op!r}) needs k, a{'n' if op == 'power' else ' non-negative'} "
                         f"integer (got {k!r})")
    if not needs_k and k is not None:
        raise ValueError(f"bound({op!r}) takes no k")
    if op in ("add", "sub"):
        return c_add
    c_div = 15 * U2 + 56 * U ** 3  # [JMP17] Alg. 17
    if op in ("mul", "square"):
        return c_mul
    if op in ("div", "reciprocal"):
        return c_div
    if op == "power":
        return _power_constant(c_mul, c_div, k)
    if op == "sqrt":
        return 6 * U2  # docs/algorithms.md "Square root"
    if op in TRIG_MEASURED:
        return TRIG_MEASURED[op] * U2
    if op in ELEMENTARY_MEASURED:
        return Fraction(ELEMENTARY_MEASURED[op]) * U2
    if op == "sum":
        return max(k - 1, 0) * c_add * GROWTH
    if op == "dot":
        return (c_mul + max(k - 1, 0) * c_add) * GROWTH
    if op == "gemm":
        if opts.add == "accurate":
            c_first, c_acc = c_mul, c_add
        else:
            c_first, c_acc = _madd_sloppy_product_constant(opts.fma), c_add
        return (c_mul + c_add + c_first + max(k - 1, 0) * c_acc) * GROWTH
    if op == "ozaki":   # k = S: docs/ozaki.md, "The accuracy-faithful rule"
        if k < 1:
            raise ValueError(f"bound('ozaki') needs k = S >= 1 slices, got {k}")
        return (OZAKI_TRUNCATION * U2 + c_mul + c_add + max(k - 1, 1) * c_add) * GROWTH
    if op == "refine":
        return max(k, REFINEMENT_TARGET) * U2
    if op == "ozaki2":  # docs/ozaki.md, "Ozaki scheme II": truncation, one rounding, epilogue
        return ((OZAKI_TRUNCATION + OZAKI2_ROUNDING) * U2 + c_mul + c_add) * GROWTH
    return _factorization_constant(op, opts, k)   # op in FACTORIZATIONS


# ddblas.linalg's recursive algorithms (docs/linalg.md): rgemm updates per element, at most
# (depth + 1) for trsm and 2 (depth + 1) for LU and Cholesky, with depth = ceil(log2 n) for any
# block sizes; kernel chains of at most n DD mul + sub steps; one DD div (and one sqrt).
# "qr" (k = m * n): Householder QR's column-wise backward error and |Q^T Q - I|, Higham Thm 19.4's
# form gamma~_{mn} = 20 m n delta with delta the variant's largest DD add/mul/div/sqrt constant:
# MEASURED (the factor 20 is a margin checked by tests/test_linalg_qr.py, not derived).
# "svd" (k = rounds + m): one-sided Jacobi's backward error ||A - U S V^T||_F / ||A||_F, the
# orthogonality of U and V and |s_i - sigma_i| / ||A||_2, Higham Lemma 19.9's form for r rounds
# of disjoint plane rotations (r gamma~_c, plus the m-term column norms), the same delta and
# MEASURED factor (tests/test_linalg_jacobi.py). "eigh" (k = rounds + n): two-sided Jacobi's
# ||A V - V Lambda||_F / ||A||_F, |V^T V - I| and |lambda_i - exact| / ||A||_F, the same form.
FACTORIZATIONS = ("trsm", "lu", "cholesky", "qr", "svd", "eigh")
OPERATIONS = (("add", "sub", "mul", "div", "sqrt", "square", "reciprocal", "power", "sum", "dot",
               "gemm", "ozaki", "ozaki2", "refine") + FACTORIZATIONS + tuple(TRIG_MEASURED)
              + tuple(ELEMENTARY_MEASURED))
QR_MEASURED_FACTOR = 20
# rgemm's Ozaki schemes with accuracy="classic" choose S so that the truncation of the slice
# products (docs/ozaki.md, Lemma 4) is at most OZAKI_TRUNCATION u^2 (|op(A)||op(B)|)_ij.
OZAKI_TRUNCATION = 1
# Ozaki scheme II rounds the exact integer product once to DD: at most OZAKI2_ROUNDING u^2 of it
# (crt.h, crt_to_dd), so of (|op(A)||op(B)|)_ij scaled alike.
OZAKI2_ROUNDING = 1
# solve's iterative refinement (docs/linalg.md, "Refinement"): it refines until the normwise
# backward error is at most REFINEMENT_TARGET u^2 and accepts stagnation at max(n, it) u^2
# ("refine", k = n: the acceptance test, on the computed residual, not a proven bound).
REFINEMENT_TARGET = 16


def _factorization_constant(op: str, opts: Options, n: int) -> Fraction:
    if op in ("qr", "svd", "eigh"):
        delta = max(_mul_constant(opts.fma), _add_constant(opts.add == "accurate"),
                    bound_constant("div", opts), bound_constant("sqrt", opts))
        return QR_MEASURED_FACTOR * max(n, 1) * delta
    depth = max(n - 1, 0).bit_length()   # ceil(log2 n) for n >= 1
    gemm = bound_constant("gemm", opts, n)
    updates = depth + 1 if op == "trsm" else 2 * (depth + 1)
    c = updates * gemm + n * (_mul_constant(opts.fma) + _add_constant(opts.add == "accurate"))
    c += bound_constant("div", opts)
    if op == "cholesky":
        c += bound_constant("sqrt", opts)
    return c * GROWTH


def _power_constant(c_mul: Fraction, c_div: Fraction, n: int) -> Fraction:
    # docs/algorithms.md "Integer powers": a^|n| carries at most |n| - 1 factors (1 + d),
    # |d| <= c_mul, so its relative error is <= (1 + c_mul)^(|n|-1) - 1 <= g / (1 - g) with
    # g = (|n| - 1) c_mul < 1; n < 0 divides 1 by it, adding c_div.
    g = max(abs(n) - 1, 0) * c_mul
    if g >= 1:
        raise ValueError(f"bound('power') holds for (|n| - 1) c_mul < 1, got n = {n}")
    positive = g / (1 - g)
    return positive if n >= 0 else (1 + c_div) / (1 - positive) - 1


def bound(op: str, variant=None, k: int | None = None) -> float:
    """The proven bound (measured for the trigonometric functions: TRIG_MEASURED) of `op` for
    `variant` ('fma/accurate', 'nofma/sloppy', ..., an Options, or
    None for the active options), in units of u^2, rounded up; see the module docstring for what
    each bound is relative to. k: the number of terms (sum, dot) or K (gemm)."""
    return in_u2(bound_constant(op, variant, k))


def in_u2(c: Fraction) -> float:
    """c / u^2 rounded up to a float: a constant in units of u^2 that is never below it (inf
    beyond the largest float, -DBL_MAX below the most negative one)."""
    q = Fraction(c) / U2
    try:
        x = float(q)
    except OverflowError:   # a huge k: bound("gemm", k=10**400) raised
        return math.inf if q > 0 else -sys.float_info.max
    return x if Fraction(x) >= q else math.nextafter(x, math.inf)
