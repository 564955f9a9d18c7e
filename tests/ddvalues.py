"""Test helpers: hypothesis strategies for DD values, exact values, and the proven bounds (taken
from ddblas.accuracy, which documents them for users). u = 2^-53. The bounds (docs/algorithms.md):
- accurate add  3u^2/(1-4u) relative                [JMP17, Alg. 6]
- sloppy add    (3+u)/(1-u) u^2 (|a|+|b|) absolute  [docs/algorithms.md, Sec. "sloppy add"]
- mul, FMA      5u^2 relative                       [JMP17, Alg. 12; MR22 prove 4u^2]
- mul, no FMA   (8+6u+2u^2)/(1-u)^2 u^2 relative    [docs/algorithms.md; JMP17 Alg. 10]
- fused sloppy madd (GEMM)  c_acc |acc| + c_prod |ab|  [docs/algorithms.md, "Fused sloppy ..."]
- div           15u^2 + 56u^3 relative              [JMP17, Alg. 17]
- sqrt          6u^2 relative                        [docs/algorithms.md, Sec. "sqrt"]
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

import ddblas
from ddblas._convert import dd_from_fraction
from ddblas.accuracy import bound_constant
from ddblas._options import Options

U = Fraction(1, 2 ** 53)
ACCURATE_ADD = bound_constant("add", "fma/accurate")
SLOPPY_ADD = bound_constant("add", "fma/sloppy")
MUL = {fma: bound_constant("mul", Options(fma=fma)) for fma in (True, False)}
DIV = bound_constant("div")
SQRT = bound_constant("sqrt")


def add_abs_constant(add: str) -> Fraction:
    """c with |computed - (a+b)| <= c (|a| + |b|) for this add kind (relative bounds imply it)."""
    return ACCURATE_ADD if add == "accurate" else SLOPPY_ADD


def gemm_constant(fma: bool, add: str, k: int) -> Fraction:
    """c with |C - exact| <= c (|alpha| |op(A)||op(B)| + |beta| |C0|) for rgemm."""
    return bound_constant("gemm", Options(fma=fma, add=add), k)


def dd_value(min_exp: int = -400, max_exp: int = 400, allow_zero: bool = True):
    """A strategy for DD values with 106 random bits (or a plain double, or zero)."""
    full = st.builds(lambda m, e, s: (-1) ** s * Fraction(m) * Fraction(2) ** e,
                     st.integers(2 ** 105, 2 ** 106 - 1),
                     st.integers(min_exp - 106, max_exp - 106), st.integers(0, 1))
    double = st.builds(lambda m, e, s: (-1) ** s * Fraction(m) * Fraction(2) ** e,
                       st.integers(2 ** 52, 2 ** 53 - 1), st.integers(min_exp - 53, max_exp - 53),
                       st.integers(0, 1))
    options = [full, full, double] + ([st.just(Fraction(0))] if allow_zero else [])
    return st.one_of(*options).map(dd_from_fraction)


def dd_arrays(n: int = 12, **kw):
    return st.lists(dd_value(**kw), min_size=n, max_size=n)


def to_ddarray(pairs, device: str) -> ddblas.DDArray:
    hi = np.array([p[0] for p in pairs], dtype=np.float64)
    lo = np.array([p[1] for p in pairs], dtype=np.float64)
    return ddblas.DDArray(hi, lo).to_device(device)


def exact_values(x: ddblas.DDArray) -> list[Fraction]:
    """The exact values hi + lo of a finite DDArray, flattened."""
    hi, lo = (np.asarray(p).ravel() for p in (x.to_device("cpu").hi, x.to_device("cpu").lo))
    return [Fraction(float(h)) + Fraction(float(l)) for h, l in zip(hi, lo)]


def is_normalized(x: ddblas.DDArray) -> bool:
    """hi == fl(hi + lo) elementwise (finite entries)."""
    c = x.to_device("cpu")
    hi, lo = np.asarray(c.hi), np.asarray(c.lo)
    finite = np.isfinite(hi)
    return bool(np.all((hi + lo)[finite] == hi[finite]))


def rel_error(computed: Fraction, exact: Fraction) -> Fraction:
    """|computed - exact| / |exact|; an exact zero must be computed exactly (else 1)."""
    if exact == 0:
        return Fraction(0) if computed == 0 else Fraction(1)
    return abs(computed - exact) / abs(exact)
