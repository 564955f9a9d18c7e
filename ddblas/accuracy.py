"""ddblas.accuracy: exact errors of DD results, the proven bounds, and test inputs.

    from ddblas import accuracy
    err = accuracy.error(ddblas.sqrt(x), [mpmath.sqrt(v) for v in x.to_mpmath()])
    print(err)                                    # relative error per element, in units of u^2
    g = accuracy.gemm_error(a @ b, a, b)          # componentwise GEMM error, in units of u^2
    g.max <= accuracy.bound("gemm", "fma/accurate", k=a.shape[1])

Errors are exact: results and references are taken at their exact values (DD, float64 and mpmath
numbers are dyadic rationals; decimal strings and Fractions are rationals) and the error is
computed in rational arithmetic, GEMM and dot references with Python integers. For operations
whose exact result is irrational (sqrt) pass a reference from mpmath at 256 bits or more: its own
error (2^-256 relative) is far below u^2. u = 2^-53; every error and bound is in units of
u^2 = 2^-106. `exact_value(v)` and `exact_values(x)` give the exact values (Fractions) that
the errors are computed from; `ratio_u2(num, den)` and `in_u2(c)` express Fractions in units of
u^2.

Bounds (docs/algorithms.md derives each; defined in ddblas/core/bounds.py and re-exported here):
`bound(op, variant, k)` returns c, in units of u^2, with
    add, sub (accurate)    |err| <= c |exact|                      relative
    add, sub (sloppy)      |err| <= c (|a| + |b|)
    mul, div, sqrt         |err| <= c |exact|                      relative
    square, reciprocal     |err| <= c |exact| (mul's, div's c)     relative
    power                  |err| <= c |exact|                      relative, k = the exponent n
    sin, cos, tan, arcsin, arccos, arctan, arctan2, hypot
                           |err| <= c |exact|   relative, MEASURED (docs/algorithms.md)
    sum                    |err| <= c sum |a_i|                    k = number of terms
    dot                    |err| <= c sum |x_i y_i|                k = length
    gemm                   |C - exact| <= c (|alpha| |op(A)||op(B)| + |beta| |C0|)   k = K
    ozaki                  the same, for rgemm's Ozaki scheme I with accuracy="classic"
                           (docs/ozaki.md), k = S, their info["slices"]; they meet gemm's too
    ozaki2                 the same for scheme II (algorithm="ozaki2-int8") with
                           accuracy="classic", no k; it meets gemm's too
    exp, log, ..., arctanh |err| <= c |exact|   relative, MEASURED (not proven) on the ranges of
                           docs/algorithms.md "Elementary functions"
    power                  |err| <= c (1 + |y ln x|) |exact|       measured likewise
    trsm, lu, cholesky     docs/linalg.md's backward errors         k = n
    refine                 ||b - A x|| <= c (||A|| ||x|| + ||b||) (infinity norms), k = n:
                           the backward error linalg.solve's refinement accepts, tested on its
                           computed residual (docs/linalg.md "Refinement"); not a proven bound
    qr                     ||a_j - (Q R)_j||_2 <= c ||a_j||_2 and |Q^T Q - I| <= c, k = m n,
                           MEASURED constant (docs/linalg.md "QR")
    svd                    ||A - U S V^T||_F <= c ||A||_F, |U^T U - I|, |V^T V - I| <= c and
                           |s_i - sigma_i| <= c ||A||_F, k = rounds + m (svd's info), MEASURED
                           constant (docs/linalg.md "Singular values")
    eigh                   ||A V - V L||_F <= c ||A||_F, |V^T V - I| <= c and |l_i - lambda_i|
                           <= c ||A||_F, k = rounds + n (eigh's info), MEASURED likewise
"""
from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from .core.array import DDArray, asarray, random
from .core.bounds import GROWTH, U, U2, bound, bound_constant, in_u2
from .core.convert import dd_from_fraction, dd_to_fraction
from .blas.gemmcall import transposed

MAX_DECIMAL_EXPONENT = 100_000   # exact_value of a decimal string: |exponent| at most this
# exact_value of an mpmath number: 2^-MAX_BINARY_EXPONENT <= |v| < 2^MAX_BINARY_EXPONENT (or 0),
# the binary counterpart of MAX_DECIMAL_EXPONENT (10^100000 ~ 2^332192.8)
MAX_BINARY_EXPONENT = 332_193
# error() and gemm_error() compare a value beyond those limits through +-2^(+-_STAND_IN) of its
# sign and side: far enough out that every error comes out as the same float (_comparable_value)
_STAND_IN = 100_000

__all__ = ["GROWTH", "ErrorReport", "MAX_BINARY_EXPONENT", "MAX_DECIMAL_EXPONENT", "U", "U2",
           "bound", "bound_constant", "dot_condition",
           "error", "exact_value", "exact_values", "gemm_error", "hilbert", "ill_conditioned_dot",
           "ill_conditioned_matrix", "in_u2", "matrix_condition", "random_dd", "ratio_u2",
           "solve_backward_error", "vandermonde"]


# ---- exact errors ----

@dataclass(frozen=True)
class ErrorReport:
    """Errors per element in units of u^2 (`values`, a float64 NumPy array shaped like the
    result; inf where the reference is zero and the result is not), and their summary."""
    values: np.ndarray
    kind: str  # "relative" or "componentwise"

    @property
    def max(self) -> float:
        return float(np.max(self.values)) if self.values.size else 0.0

    @property
    def median(self) -> float:
        return float(np.median(self.values)) if self.values.size else 0.0

    @property
    def argmax(self) -> tuple:
        """Index of the worst element (a ValueError for a report of no elements)."""
        if not self.values.size:
            raise ValueError("ErrorReport.argmax: the report has no elements (max and median "
                             "are 0.0 for it)")
        return tuple(int(i) for i in np.unravel_index(int(np.argmax(self.values)),
                                                      self.values.shape))

    def within(self, bound_u2: float) -> bool:
        """Whether every element's error is at most `bound_u2` (units of u^2)."""
        return bool(np.all(self.values <= bound_u2))

    def __str__(self) -> str:
        if not self.values.size:
            return f"{self.kind} error: no elements"
        return (f"{self.kind} error / u^2: max {self.max:.4g} at {self.argmax}, median "
                f"{self.median:.4g} over {self.values.size} elements")


def _mpf_to_fraction(x) -> Fraction:
    """The exact value of a finite mpmath.mpf (of any magnitude: callers bound it first)."""
    sign, man, exp, _ = x._mpf_
    man = int(man)   # an mpz under mpmath's gmpy backend
    q = Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)
    return -q if sign else q


def _beyond(v):
    """(negative, huge) for a finite nonzero mpmath mpf or decimal string/Decimal beyond
    exact_value's limits, read off its exponent without building the value: an mpf with
    |v| >= 2^MAX_BINARY_EXPONENT (huge) or |v| < 2^-MAX_BINARY_EXPONENT, a decimal with
    |v| >= 10^(MAX_DECIMAL_EXPONENT + 1) (huge) or |v| < 10^-MAX_DECIMAL_EXPONENT. None for
    everything else."""
    import mpmath
    if isinstance(v, mpmath.mpf):
        sign, man, exp, bc = v._mpf_
        if not man:   # zero, inf, nan
            return None
        top = exp + bc   # 2^(top - 1) <= |v| < 2^top
        if top - 1 >= MAX_BINARY_EXPONENT or top <= -MAX_BINARY_EXPONENT:
            return bool(sign), top > 0
        return None
    if isinstance(v, (str, Decimal)):
        try:
            d = Decimal(v.strip() if isinstance(v, str) else v)
        except ArithmeticError:   # not a decimal number ("1/3"): exact_value reads it
            return None
        if not d.is_finite() or d.is_zero():
            return None
        top = d.adjusted()   # 10^top <= |v| < 10^(top + 1)
        if abs(top) > MAX_DECIMAL_EXPONENT:
            return d.is_signed(), top > 0
    return None


def exact_value(v):
    """The exact value of one number as a Fraction (None for inf and nan).

    Taken exactly: floats (NumPy's of any width, long double included), ints (NumPy's and bools
    too), Fractions, mpmath mpf numbers (dyadic), decimal strings and Decimals.

    Parameters
    ----------
    v : number
        One of the kinds above.

    Returns
    -------
    Fraction or None
        v's exact value; None where v is inf or nan.

    Raises
    ------
    ValueError
        Where building the exact value would take time and memory without bound: an mpmath
        mpf with |v| >= 2^MAX_BINARY_EXPONENT (2^332193 ~ 10^100000) or nonzero
        |v| < 2^-MAX_BINARY_EXPONENT, a decimal string or Decimal whose written exponent is
        beyond +-MAX_DECIMAL_EXPONENT or whose magnitude is at least 10^(MAX_DECIMAL_EXPONENT
        + 1) or below 10^-MAX_DECIMAL_EXPONENT. `error` and `gemm_error` still score such
        values, exactly: their errors, as floats, do not depend on where out there the value
        lies (against a reference beyond 2^332193 any finite result has relative error 1,
        2^106 u^2; against a nonzero one below 2^-332193 inf, unless the result is 0).
    TypeError
        For anything else, an mpmath constant such as mpmath.pi included: it has no one exact
        value, only values at a precision. Evaluate it at the precision the reference needs
        (256 bits or more against DD results), e.g. ``with mpmath.workprec(256): ref =
        +mpmath.pi``, and pass that mpf. (mpmath's default precision is 53 bits: taken
        silently, its error, 2^-53, would be scored as the DD result's.)
    """
    import mpmath
    if isinstance(v, Fraction):
        return v
    if isinstance(v, (numbers.Integral, np.bool_)):
        # as a Python int: Fraction(np.int64(3)) keeps the NumPy integer, whose arithmetic
        # wraps around or overflows (an int64 reference array made error() raise)
        return Fraction(int(v))
    if isinstance(v, (float, np.floating)):   # np.longdouble too: float() rounded it
        return Fraction(*v.as_integer_ratio()) if np.isfinite(v) else None
    if isinstance(v, mpmath.mpf):
        if not mpmath.isfinite(v):
            return None
        if _beyond(v) is not None:
            # 2^(10^12) built a Python int of 10^12 bits (hours, or MemoryError)
            raise ValueError(f"the mpmath value {mpmath.nstr(v, 5)} is beyond "
                             f"2^+-{MAX_BINARY_EXPONENT}: no exact value is built there "
                             f"(error() and gemm_error() score such references without one)")
        return _mpf_to_fraction(v)
    if isinstance(v, (str, Decimal)):
        exponent = re.search(r"[eE]\s*([-+]?\d+)\s*$", str(v))
        if (exponent and abs(int(exponent.group(1))) > MAX_DECIMAL_EXPONENT) or \
                _beyond(v) is not None:
            # Fraction would build 10^exponent exactly: "1e999999999999" never returned
            raise ValueError(f"the decimal exponent of {str(v)[:40]!r} is beyond "
                             f"+-{MAX_DECIMAL_EXPONENT}: no exact reference is taken there")
        try:
            return Fraction(v)
        except (ValueError, ArithmeticError):
            return None if str(v).strip().lower().lstrip("+-") in ("inf", "infinity", "nan") \
                else exact_value(mpmath.mpf(str(v)))
    if isinstance(v, mpmath.ctx_mp_python.mpnumeric) and hasattr(v, "_mpf_"):
        # mpmath.pi, mpmath.e, ...: its _mpf_ is the value at mpmath's current precision
        raise TypeError(f"{v!r} is an mpmath constant, which has no one exact value: evaluate "
                        f"it at the precision the reference needs (256 bits or more against "
                        f"DD results), e.g. `with mpmath.workprec(256): ref = +mpmath.pi`, "
                        f"and pass that mpf")
    raise TypeError(f"cannot take {type(v).__name__} value {v!r} as an exact number")


def _comparable_value(v):
    """exact_value(v), except that a value beyond its limits (_beyond) is replaced by
    +-2^(+-_STAND_IN) of its sign and side, for error() and gemm_error(), whose floats come out
    the same as from the exact value. What they compare it with are DD-range dyadics (each a
    multiple of 2^-3300 below 2^3200 K): against a huge v the relative error is 1 (2^106 u^2)
    and a huge C entry errs by inf, for the stand-in as for v; a tiny reference gives 2^106
    against a zero result and inf against any other; a tiny C entry moves |C - exact| / den
    from its value at C = 0 by a relative 2^-96000 at most, toward the side its sign decides:
    too little to cross a rounding boundary but one that value sits on, which it leaves on
    that same side."""
    beyond = _beyond(v)
    if beyond is None:
        return exact_value(v)
    negative, huge = beyond
    q = Fraction(2) ** (_STAND_IN if huge else -_STAND_IN)
    return -q if negative else q


def exact_values(x) -> list:
    """The elements of x, row-major, as exact Fractions (None where not finite): x a DDArray, a
    NumPy/CuPy array, or a nested list of numbers, Fractions, mpmath values or decimal strings."""
    if isinstance(x, DDArray):
        c = x.to_device("cpu")
        return [dd_to_fraction(float(h), float(l)) if math.isfinite(h) else None
                for h, l in zip(np.asarray(c.hi).ravel(), np.asarray(c.lo).ravel())]
    if hasattr(x, "get") and hasattr(x, "dtype"):  # a CuPy array
        x = x.get()
    arr = x if isinstance(x, np.ndarray) else np.asarray(x, dtype=object)
    return [exact_value(v) for v in arr.ravel()]


def _comparable_values(x) -> list:
    """exact_values(x) with the stand-ins of _comparable_value for values beyond its limits."""
    if isinstance(x, DDArray) or getattr(getattr(x, "dtype", None), "kind", "O") in "biuf":
        return exact_values(x)   # numbers of a fixed width: within the limits
    return [_comparable_value(v) for v in np.asarray(x, dtype=object).ravel()]


def _shape(x):
    return x.shape if hasattr(x, "shape") else np.asarray(x, dtype=object).shape


def _same_float(a, b) -> bool:
    fa, fb = float(a), float(b)
    return fa == fb or (math.isnan(fa) and math.isnan(fb))


def ratio_u2(num: Fraction, den: Fraction) -> float:
    """num / den in units of u^2 (0 for 0/0, inf for x/0 and where the ratio is beyond the
    largest float, with its sign)."""
    if den == 0:
        return 0.0 if num == 0 else math.inf
    q = Fraction(num) / Fraction(den) / U2
    try:
        return float(q)
    except OverflowError:   # a result 1e300 against a reference 1e-300 raised
        return math.inf if q > 0 else -math.inf


def error(result, reference) -> ErrorReport:
    """Relative error |result - reference| / |reference| per element, in units of u^2, exact.

    result: a DDArray (or anything `ddblas.asarray` takes); reference: the exact values, same
    shape: a DDArray, floats, ints, Fractions, decimal strings, or mpmath numbers (e.g. computed
    with mpmath at 256 bits or more), each taken exactly as given. Where the reference is 0 the
    error is 0 if the result is 0, else inf; a non-finite result or reference gives 0 where both
    are the same float (inf == inf), else inf. A reference beyond exact_value's limits (an mpf
    past 2^+-332193, a decimal past 10^+-100000) is scored without its exact value, to the same
    float: 2^106 (relative error 1) against a huge one; against a tiny one 2^106 for a zero
    result, inf for any other."""
    result = asarray(result)
    if hasattr(reference, "get") and not isinstance(reference, DDArray):  # a CuPy array
        reference = reference.get()
    if _shape(reference) != result.shape:
        raise ValueError(f"result has shape {result.shape} but reference has shape "
                         f"{_shape(reference)}")
    got, want = exact_values(result), _comparable_values(reference)
    raw = np.asarray(result.to_device("cpu").hi).ravel()
    ref_raw = np.asarray(reference.to_device("cpu").hi if isinstance(reference, DDArray)
                         else np.asarray(reference, dtype=object)).ravel()
    values = np.empty(len(got))
    for i, (g, w) in enumerate(zip(got, want)):
        if g is None or w is None:
            values[i] = 0.0 if g is None and w is None and _same_float(raw[i], ref_raw[i]) \
                else math.inf
        else:
            values[i] = ratio_u2(abs(g - w), abs(w))
    return ErrorReport(values.reshape(result.shape), "relative")


def _exact_array(x):
    """x as a DDArray where that holds it exactly (a DDArray, a NumPy/CuPy number array), else as
    a NumPy object array of its values as given (Fractions, mpmath numbers: never rounded)."""
    if isinstance(x, DDArray) or getattr(getattr(x, "dtype", None), "kind", "O") in "biuf":
        return asarray(x)
    return np.asarray(x, dtype=object)


def _integer_matrix(x: DDArray, caller: str = "gemm_error") -> tuple[np.ndarray, int]:
    """(m, e) with x = m * 2^e exactly: m an object array of Python ints (finite entries)."""
    vals = exact_values(x)
    if not all(isinstance(v, Fraction) for v in vals):
        raise ValueError(f"{caller} needs finite matrices")
    e = min((-(v.denominator.bit_length() - 1) for v in vals if v), default=0)
    ints = [v.numerator * (2 ** -e // v.denominator) for v in vals]
    return np.array(ints + [None], dtype=object)[:-1].reshape(x.shape), e


def _finite_scalar(value, name: str) -> Fraction:
    """A finite DD scalar's exact value; a ValueError naming it otherwise (a NaN alpha gave a
    TypeError from None, and [2, 1] used its first entry)."""
    x = asarray(value)
    (exact,) = exact_values(x.reshape(1)) if x.ndim == 0 else (None,)
    if not isinstance(exact, Fraction):
        raise ValueError(f"gemm_error: {name} must be a finite scalar, got {value!r}")
    return exact


def gemm_error(c, a, b, alpha=1, beta=0, c0=None, transa: str = "N", transb: str = "N", *,
               rows=None, cols=None) -> ErrorReport:
    """Componentwise GEMM error |C - C_exact| / (|alpha| |op(A)||op(B)| + |beta| |C0|) in units of
    u^2, C_exact = alpha op(A) op(B) + beta C0 computed exactly. c, a, b, c0: DDArrays or float
    arrays (float64 results of other libraries too); c may also be a nested list or object array
    of exact values of any precision (Fractions, mpmath numbers), taken as they are; alpha, beta:
    DD scalars. rows, cols: index sequences to check only those rows and columns of C (for large
    matrices). A non-finite entry of C gives inf; A, B and C0 must be finite. An entry of C
    beyond exact_value's limits is scored, to the same float, without its exact value (inf if
    huge)."""
    c, a, b = _exact_array(c), asarray(a), asarray(b)
    a = a.T if transposed(transa, "transa") else a
    b = b.T if transposed(transb, "transb") else b
    if (a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]
            or c.shape != (a.shape[0], b.shape[1])):
        raise ValueError(f"shapes do not match: C {c.shape}, op(A) {a.shape}, op(B) {b.shape}")
    if c0 is not None and asarray(c0).shape != c.shape:
        raise ValueError(f"c0 has shape {asarray(c0).shape}, but C has {c.shape}")
    rows = list(range(c.shape[0]) if rows is None else rows)
    cols = list(range(c.shape[1]) if cols is None else cols)
    # only the checked rows of op(A) and columns of op(B) leave the device
    a, b, c = a[rows].to_device("cpu"), b[:, cols].to_device("cpu"), c[rows][:, cols]
    al, be = (_finite_scalar(s, name) for s, name in ((alpha, "alpha"), (beta, "beta")))
    if be != 0 and c0 is None:
        raise ValueError("beta != 0 needs c0, the C that rgemm was given")
    ma, ea = _integer_matrix(a)
    mb, eb = _integer_matrix(b)
    product, magnitude = ma.dot(mb), np.abs(ma).dot(np.abs(mb))
    scale = Fraction(2) ** (ea + eb)
    got = _comparable_values(c)
    c0_vals = exact_values(asarray(c0)[rows][:, cols]) \
        if c0 is not None and be != 0 else [Fraction(0)] * len(got)
    if not all(isinstance(z, Fraction) for z in c0_vals):
        raise ValueError("gemm_error: c0 must be finite")
    values = np.empty(len(got))
    for n, (p, m, g, z) in enumerate(zip(product.ravel(), magnitude.ravel(), got, c0_vals)):
        exact = al * p * scale + be * z
        den = abs(al) * m * scale + abs(be * z)
        values[n] = math.inf if g is None else ratio_u2(abs(g - exact), den)
    return ErrorReport(values.reshape(c.shape), "componentwise")


def solve_backward_error(a, x, b) -> float:
    """The normwise backward error of a computed solution x of A x = b, exactly: max over the
    columns j of ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf + ||b_j||_inf) (Rigal and Gaches;
    Higham, Accuracy and Stability, Thm. 7.1), in units of u^2 = 2^-106. a: (n, n); x, b: (n,)
    or (n, k); DDArrays or float64 arrays (other libraries' results too), all finite."""
    a, x, b = asarray(a).to_device("cpu"), asarray(x).to_device("cpu"), asarray(b).to_device("cpu")
    if a.ndim != 2 or a.shape[0] != a.shape[1] or x.ndim not in (1, 2) or x.shape != b.shape or \
            x.shape[0] != a.shape[0]:
        raise ValueError(f"solve_backward_error: shapes do not match: a {a.shape} (square), "
                         f"x {x.shape} and b {b.shape} (the same, (n,) or (n, k))")
    x2, b2 = (v.reshape(v.shape[0], 1) if v.ndim == 1 else v for v in (x, b))
    if a.size == 0 or x2.size == 0:
        return 0.0
    (ma, ea), (mx, ex), (mb, eb) = (_integer_matrix(v, "solve_backward_error")
                                    for v in (a, x2, b2))
    residual = mb * Fraction(2) ** eb - ma.dot(mx) * Fraction(2) ** (ea + ex)
    norm_a = max(np.abs(ma).sum(axis=1)) * Fraction(2) ** ea
    worst = 0.0
    for j in range(x2.shape[1]):
        den = norm_a * max(np.abs(mx[:, j])) * Fraction(2) ** ex + \
            max(np.abs(mb[:, j])) * Fraction(2) ** eb
        worst = max(worst, ratio_u2(max(abs(r) for r in residual[:, j]), den))
    return worst


# ---- inputs ----

def random_dd(shape, *, exponents=(-30, 30), seed=None, device=None) -> DDArray:
    """Random DD values with all 106 bits random, uniform sign, times 2^e for e uniform in the
    closed range `exponents` (per element). Below about 2^-969 the lo part is subnormal and keeps
    fewer bits, and below 2^-1021 it is zero: such values have fewer random bits."""
    lo_exp, hi_exp = exponents
    if not all(isinstance(e, numbers.Integral) and not isinstance(e, bool) for e in exponents) \
            or not -1074 <= lo_exp <= hi_exp <= 1023:
        raise ValueError(f"exponents must be integers (low, high) with -1074 <= low <= high <= "
                         f"1023 (2^e finite), got {exponents!r}")
    rng = np.random.default_rng(seed)
    x = random(shape, seed=rng.integers(2 ** 62), device="cpu") * 2 - 1
    scale = np.ldexp(1.0, rng.integers(lo_exp, hi_exp + 1, size=x.shape))
    return (x * DDArray(scale, normalize=False)).to_device(device or "cpu")


def _dd_array(values, shape, device) -> DDArray:
    pairs = [dd_from_fraction(v) for v in values]
    hi = np.array([p[0] for p in pairs], dtype=np.float64).reshape(shape)
    lo = np.array([p[1] for p in pairs], dtype=np.float64).reshape(shape)
    return DDArray(hi, lo, normalize=False).to_device(device or "cpu")


def dot_condition(x, y) -> float:
    """cond(x . y) = 2 sum |x_i y_i| / |sum x_i y_i| of two vectors, exactly (inf if the dot
    product is zero) [Ogita, Rump, Oishi 2005]."""
    xs, ys = exact_values(asarray(x)), exact_values(asarray(y))
    if len(xs) != len(ys):
        raise ValueError(f"x has {len(xs)} elements but y has {len(ys)}")
    if None in xs or None in ys:   # a NaN gave a TypeError from None * Fraction
        raise ValueError("dot_condition needs finite vectors")
    dot = sum(p * q for p, q in zip(xs, ys))
    return math.inf if dot == 0 else float(2 * sum(abs(p * q) for p, q in zip(xs, ys)) / abs(dot))


def ill_conditioned_dot(n: int, cond: float, *, dd: bool = True, seed=None, device=None,
                        tries: int = 50) -> tuple[DDArray, DDArray]:
    """Vectors x, y of length n >= 6 whose dot product has condition number within a factor 10
    of `cond` (>= 2, the condition number of a dot product of same-sign terms), for cond >= 1000 by Ogita, Rump and Oishi's GenDot ("Accurate sum and dot
    product", SIAM J. Sci. Comput. 26(6), 2005, Alg. 6.1): the first half gets random exponents
    up to log2(cond)/2, the second half decreasing exponents, each y_i chosen so that the exact
    partial dot product nearly cancels; then a random permutation. Below 1000 (where GenDot
    overshoots) the products get random magnitudes, half of them negative, those scaled so that
    the negative sum is P (cond - 2)/(cond + 2) for the positive sum P. Partial sums are exact (fractions), and each
    y_i is rounded to DD (dd=True, 106 random bits per entry) or float64 (dd=False). A draw whose
    exact condition number misses the factor 10 is redrawn (at most `tries` times)."""
    if not isinstance(n, numbers.Integral) or n < 6:
        raise ValueError(f"n must be an integer >= 6, got {n!r}")
    if not cond >= 2 or not math.isfinite(cond):
        raise ValueError(f"cond must be a finite number >= 2, got {cond!r}")
    rng = np.random.default_rng(seed)
    bits = 106 if dd else 53
    rounding = dd_from_fraction if dd else (lambda q: (float(q), 0.0))

    def uniform():  # 2 rand - 1 in [-1, 1) with `bits` random bits
        m = int(rng.integers(0, 2 ** 53))
        if dd:
            m = (m << 53) | int(rng.integers(0, 2 ** 53))
        return Fraction(m, 2 ** (bits - 1)) - 1

    def rounded(q):
        h, l = rounding(q)
        return Fraction(h) + Fraction(l)

    b = math.log2(cond)
    half = n // 2
    if isinstance(tries, bool) or not isinstance(tries, numbers.Integral) or tries < 1:
        raise ValueError(f"tries must be a positive integer, got {tries!r}")
    for _ in range(tries):
        if cond < 1000:
            x = [rounded(abs(uniform())) + 1 for _ in range(n)]
            y = [rounded(abs(uniform())) + 1 for _ in range(n)]
            positive = sum(p * q for p, q in zip(x[:half], y[:half]))
            negative = sum(p * q for p, q in zip(x[half:], y[half:]))
            t = positive * Fraction(cond - 2) / Fraction(cond + 2) / negative
            y[half:] = [-rounded(q * t) for q in y[half:]]
            order = rng.permutation(n)
            xv, yv = _dd_array([x[i] for i in order], (n,), device), \
                _dd_array([y[i] for i in order], (n,), device)
            if cond / 10 <= dot_condition(xv, yv) <= cond * 10:
                return xv, yv
            continue
        e = [int(round(v)) for v in rng.uniform(0, b / 2, half)]
        e[0], e[-1] = int(round(b / 2)) + 1, 0
        x = [rounded(uniform() * Fraction(2) ** k) for k in e]
        y = [rounded(uniform() * Fraction(2) ** k) for k in e]
        dot = sum(p * q for p, q in zip(x, y))
        for k in np.round(np.linspace(b / 2, 0, n - half)).astype(int):
            xi = rounded(uniform() * Fraction(2) ** int(k))
            if xi == 0:
                xi = Fraction(2) ** int(k)
            yi = rounded((uniform() * Fraction(2) ** int(k) - dot) / xi)
            x.append(xi)
            y.append(yi)
            dot += xi * yi
        order = rng.permutation(n)
        xv, yv = _dd_array([x[i] for i in order], (n,), device), \
            _dd_array([y[i] for i in order], (n,), device)
        if cond / 10 <= dot_condition(xv, yv) <= cond * 10:
            return xv, yv
    raise RuntimeError(f"no draw within a factor 10 of cond = {cond:g} in {tries} tries")


def matrix_condition(a, *, prec: int = 256) -> float:
    """The 2-norm condition number sigma_max / sigma_min of a finite, non-empty square matrix,
    from mpmath's SVD at `prec` bits (a positive integer; inf if singular)."""
    import mpmath
    if isinstance(prec, bool) or not isinstance(prec, numbers.Integral) or prec < 1:
        # prec=0 gave inf, prec=2.5 a number, both silently
        raise ValueError(f"prec must be a positive integer (bits), got {prec!r}")
    a = asarray(a)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.size == 0:
        raise ValueError(f"matrix_condition needs a non-empty square matrix, got shape "
                         f"{a.shape}")
    if None in exact_values(a):   # mpmath's SVD iterated, then failed to converge
        raise ValueError("matrix_condition needs a finite matrix")
    with mpmath.workprec(prec):
        s = mpmath.svd_r(a.to_mpmath(), compute_uv=False)
        smin = min(s)
        return math.inf if smin == 0 else float(max(s) / smin)


def ill_conditioned_matrix(n: int, cond: float, *, seed=None, device=None) -> DDArray:
    """An n x n DD matrix with 2-norm condition number `cond` (1 <= cond <= 1e30): Q1 diag(s) Q2
    with Q1, Q2 the orthogonal factors of random Gaussian matrices and s geometric from 1 to
    1/cond, computed with mpmath at 2 * 106 + log2(cond) bits and rounded to DD. Rounding the
    entries moves the smallest singular value by about u^2 |A|, so cond is capped at 1e30."""
    import mpmath
    if not isinstance(n, numbers.Integral) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    if isinstance(cond, bool) or not 1 <= cond <= 1e30:
        raise ValueError(f"cond must be in [1, 1e30] for a DD matrix, got {cond!r}")
    rng = np.random.default_rng(seed)
    prec = 212 + int(math.log2(cond)) + 32
    with mpmath.workprec(prec):
        def orthogonal():
            q, _ = mpmath.qr(mpmath.matrix(rng.standard_normal((n, n)).tolist()))
            return q
        s = mpmath.diag([mpmath.mpf(cond) ** (-mpmath.mpf(i) / (n - 1)) for i in range(n)])
        m = orthogonal() * s * orthogonal().T
        values = [_mpf_to_fraction(m[i, j]) for i in range(n) for j in range(n)]
    return _dd_array(values, (n, n), device)


def hilbert(n: int, *, device=None) -> DDArray:
    """The n x n Hilbert matrix H[i, j] = 1 / (i + j + 1), each entry the DD nearest the exact
    rational."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    return _dd_array([Fraction(1, i + j + 1) for i in range(n) for j in range(n)], (n, n), device)


def vandermonde(x, n: int | None = None, *, device=None) -> DDArray:
    """V[i, j] = x_i ** j (j < n, default n = len(x)), computed exactly from the exact values of
    x (a 1-D sequence or array of numbers, Fractions, decimal strings, or a 1-D DDArray) and
    rounded to DD once."""
    if isinstance(x, (str, bytes)) or not np.iterable(x):   # "12" was read as [1, 2]
        raise TypeError(f"vandermonde needs a 1-D sequence of numbers x, got "
                        f"{type(x).__name__} {x!r:.40}")
    x = x if isinstance(x, DDArray) else np.asarray(list(x), dtype=object)
    if x.ndim != 1:   # a matrix was flattened silently
        raise ValueError(f"vandermonde needs a 1-D x, got shape {x.shape}")
    xs = exact_values(x)
    if any(v is None for v in xs):
        raise ValueError("vandermonde needs finite x")
    n = len(xs) if n is None else n
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"n must be a non-negative integer, got {n!r}")
    return _dd_array([v ** j for v in xs for j in range(n)], (len(xs), n), device)
