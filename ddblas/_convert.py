"""Exact conversions between Python numbers and DD (hi, lo) pairs.

Parsing is exact rational arithmetic (``fractions.Fraction``), done once per value on the host:
the DD nearest to a value x is hi = fl(x), lo = fl(x - hi), within 2^-106 relative of x.
"""
from __future__ import annotations

import decimal
import math
import numbers
from fractions import Fraction

import numpy as np

_SPECIAL_STRINGS = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf,
                    "infinity": math.inf, "+infinity": math.inf, "-infinity": -math.inf,
                    "nan": math.nan, "+nan": math.nan, "-nan": math.nan}
_EXACT_INT = 2 ** 53


def dd_from_fraction(q: Fraction) -> tuple[float, float]:
    """The DD nearest q: hi = fl(q) (correctly rounded), lo = fl(q - hi); +-inf past DBL_MAX."""
    try:
        hi = float(q)
    except OverflowError:
        return (math.inf if q > 0 else -math.inf), 0.0
    if math.isinf(hi):
        return hi, 0.0
    return hi, float(q - Fraction(hi))


def _mpf_to_fraction(x) -> Fraction:
    sign, man, exp, _ = x._mpf_
    q = Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)
    return -q if sign else q


def scalar_to_dd(x) -> tuple[float, float]:
    """A Python/NumPy scalar, decimal string, Fraction, Decimal or mpmath mpf as a DD pair."""
    if isinstance(x, (bool, np.bool_)):
        return float(x), 0.0
    if isinstance(x, (float, np.float64, np.float32, np.float16)):
        return float(x), 0.0
    if isinstance(x, (int, np.integer)):
        x = int(x)
        return (float(x), 0.0) if -_EXACT_INT <= x <= _EXACT_INT else dd_from_fraction(Fraction(x))
    if isinstance(x, str):
        text = x.strip().lower()
        if text in _SPECIAL_STRINGS:
            return _SPECIAL_STRINGS[text], 0.0
        try:
            q = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise ValueError(f"cannot parse {x!r} as a number") from None
        if q == 0:
            return (-0.0 if text.startswith("-") else 0.0), 0.0
        return dd_from_fraction(q)
    if isinstance(x, decimal.Decimal):
        if not x.is_finite():
            return float(x), 0.0
        return dd_from_fraction(Fraction(x))
    if isinstance(x, Fraction):
        return dd_from_fraction(x)
    if hasattr(x, "_mpf_"):  # mpmath mpf, or a constant such as mpmath.pi
        import mpmath
        if type(x).__name__ != "mpf":
            with mpmath.workprec(256):  # a constant: its value to 256 bits, then the nearest DD
                x = mpmath.mpf(x)
        if not mpmath.isfinite(x):
            return float(x), 0.0
        return dd_from_fraction(_mpf_to_fraction(x))
    if isinstance(x, np.floating):  # long double: exact through its integer ratio
        return dd_from_fraction(Fraction(*x.as_integer_ratio()))
    if isinstance(x, numbers.Complex) and not isinstance(x, numbers.Real):
        raise TypeError(f"ddblas holds real numbers only, got complex value {x!r}")
    if isinstance(x, numbers.Rational):
        return dd_from_fraction(Fraction(x.numerator, x.denominator))
    raise TypeError(f"cannot convert {type(x).__name__} value {x!r} to a DD number")


def dd_to_fraction(hi: float, lo: float) -> Fraction:
    """The exact value hi + lo (finite hi, lo)."""
    return Fraction(hi) + Fraction(lo)


def dd_to_mpf(hi: float, lo: float):
    """The exact value hi + lo as an mpmath mpf (inf/nan as mpmath's)."""
    import mpmath
    if not math.isfinite(hi):
        return mpmath.mpf(hi)
    return mpmath.fadd(mpmath.mpf(hi), mpmath.mpf(lo), exact=True)


def dd_to_string(hi: float, lo: float, digits: int = 32) -> str:
    """hi + lo in scientific notation with `digits` significant digits, correctly rounded."""
    if not math.isfinite(hi):
        return "nan" if math.isnan(hi) else ("inf" if hi > 0 else "-inf")
    negative = math.copysign(1.0, hi) < 0
    with decimal.localcontext() as ctx:
        ctx.prec = 1200  # enough to hold hi + lo exactly (at most 1074 + 17 digits)
        value = decimal.Decimal(hi) + decimal.Decimal(lo)
        if value == 0:
            return ("-" if negative else "") + "0." + "0" * (digits - 1) + "e+00"
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{mantissa}e{int(exponent):+03d}"
