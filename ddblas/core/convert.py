"""Exact conversions between Python numbers and DD (hi, lo) pairs.

Every input value x becomes the DD nearest to it: hi = fl(x) (correctly rounded, ties to even,
subnormals included), lo = fl(x - hi), so |hi + lo - x| <= 2^-106 |x| outside the subnormal range.
When lo rounds to exactly half an ulp of an odd hi, (hi, lo) is not normalised (fl(hi + lo) is
hi's even neighbour): the same value is returned as the normalised (fl(hi + lo), the exact rest).
The work is bounded by the DD precision, never by the input's exponent: magnitudes beyond the DD
range are decided from the exponent alone (inf, or a zero of the input's sign), and digits or
bits too far below the leading one to matter are folded into a sticky digit/bit (round to odd),
which provably leaves both roundings unchanged (see _nearest_dd and _nearest_dd_decimal).
The reverse, dd_to_shortest_string, gives the shortest decimal string that parses back to the
same pair.
"""
from __future__ import annotations

import decimal
import math
import numbers
import re
import struct
import sys
import unicodedata
from fractions import Fraction

import numpy as np

_SPECIAL_STRINGS = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf,
                    "infinity": math.inf, "+infinity": math.inf, "-infinity": -math.inf,
                    "nan": math.nan, "+nan": math.nan, "-nan": math.nan}
_EXACT_INT = 2 ** 53

# Python's float() syntax for finite numbers (PEP 515 underscores between digits).
_DIGITS = r"[0-9](?:_?[0-9])*"
_DECIMAL_STRING = re.compile(
    rf"(?P<sign>[-+]?)(?:(?P<int>{_DIGITS})(?:\.(?P<frac1>{_DIGITS})?)?|\.(?P<frac2>{_DIGITS}))"
    rf"(?:[eE](?P<exp>[-+]?{_DIGITS}))?")

# Every rounding boundary of the nearest DD (a midpoint of hi's grid, of lo's grid shifted by hi,
# or the overflow threshold OMEGA + 2^916 = DBL_MAX + 2^970 - 2^916) is a multiple of 2^-1075 of magnitude <= 2^1025.
_GRID_BITS = 1075
_OVERFLOW_EXPONENT = 1024         # |x| >= 2^1024 rounds to inf
_UNDERFLOW_EXPONENT = -1075       # |x| < 2^-1075 rounds to zero (2^-1075 itself: ties to even)
# Such a boundary has at most 309 integer and 1075 fraction digits, so at most 1384 significant
# digits: a decimal truncated to more digits plus a sticky digit rounds like the original.
_SIGNIFICANT_DIGITS = 1400
_MAX_DECIMAL_EXPONENT = 309       # 10^309 > 2^1024
_MIN_DECIMAL_EXPONENT = -325      # 10^-324 < 2^-1076


def _signed_zero(negative: bool) -> tuple[float, float]:
    return (-0.0 if negative else 0.0), 0.0


def _underflow(negative: bool) -> tuple[float, float]:
    """A nonzero x below the DD range: hi = fl(x) and lo = fl(x - hi) are zeros of its sign."""
    zero = -0.0 if negative else 0.0
    return zero, zero


def _infinity(negative: bool) -> tuple[float, float]:
    return (-math.inf if negative else math.inf), 0.0


def _nearest_dd(negative: bool, num: int, den: int = 1, exp2: int = 0) -> tuple[float, float]:
    """The DD nearest x = (-1)^negative * num / den * 2^exp2 (num >= 0, den > 0 integers).

    Out of range is decided from bit lengths alone. Otherwise x is rounded to odd on the grid of
    2^-(_GRID_BITS + 1) (truncated, with a sticky last bit when inexact): every rounding boundary
    of hi and lo is a multiple of 2^-_GRID_BITS, so x and its rounding lie strictly between the
    same two boundaries or are both on one, and round alike. The sizes of the integers below are
    then bounded (about 2^2200), and CPython's int true division is correctly rounded.
    """
    if num == 0:
        return _signed_zero(negative)
    top = num.bit_length() - den.bit_length() + exp2  # 2^(top-1) < x < 2^(top+1)
    if top - 1 >= _OVERFLOW_EXPONENT:
        return _infinity(negative)
    if top + 1 <= _UNDERFLOW_EXPONENT:
        return _underflow(negative)
    shift = exp2 + _GRID_BITS
    if shift >= 0:
        scaled, remainder = divmod(num << shift, den)
    else:
        scaled, remainder = divmod(num, den << -shift)
    units = 2 * scaled + (remainder != 0)  # x in units of 2^-(_GRID_BITS + 1), rounded to odd
    if negative:
        units = -units
    scale = 1 << (_GRID_BITS + 1)
    try:
        hi = units / scale
    except OverflowError:
        return _infinity(negative)
    hi_num, hi_den = hi.as_integer_ratio()  # hi_den is a power of two <= 2^1074
    lo = (units - hi_num * (scale // hi_den)) / scale
    total = hi + lo
    # The largest DD is OMEGA = (DBL_MAX, 2^970 - 2^917) (docs/algorithms.md, "Representable
    # range"): hi + lo overflowing means hi = +-DBL_MAX and x at or past OMEGA + 2^916.
    if math.isinf(total):
        return _infinity(negative)
    if total != hi:  # lo is half an ulp of an odd hi: renormalised (fast_two_sum, exact)
        hi, lo = total, lo - (total - hi)
    return hi, lo


def _nearest_dd_decimal(negative: bool, digits: str, exp10: int) -> tuple[float, float]:
    """The DD nearest (-1)^negative * int(digits) * 10^exp10 (digits: ASCII decimal digits).

    Out of range is decided from the position of the leading digit. Digits beyond the first
    _SIGNIFICANT_DIGITS are replaced by one sticky digit 1 when any of them is nonzero: no
    rounding boundary has that many significant digits, so none lies strictly between the
    truncated value and the truncated value plus one unit of its last digit, where both the
    original and the sticky value lie.
    """
    digits = digits.lstrip("0")
    if not digits:
        return _signed_zero(negative)
    leading = exp10 + len(digits) - 1  # 10^leading <= |x| < 10^(leading + 1)
    if leading >= _MAX_DECIMAL_EXPONENT:
        return _infinity(negative)
    if leading <= _MIN_DECIMAL_EXPONENT:
        return _underflow(negative)
    if len(digits) > _SIGNIFICANT_DIGITS:
        sticky = digits[_SIGNIFICANT_DIGITS:].strip("0") != ""
        exp10 += len(digits) - _SIGNIFICANT_DIGITS
        digits = digits[:_SIGNIFICANT_DIGITS]
        if sticky:
            digits += "1"
            exp10 -= 1
    mantissa = int(digits)
    if exp10 >= 0:
        return _nearest_dd(negative, mantissa * 10 ** exp10)
    return _nearest_dd(negative, mantissa, 10 ** -exp10)


def dd_from_fraction(q: Fraction) -> tuple[float, float]:
    """The DD nearest q: hi = fl(q) (correctly rounded), lo = fl(q - hi); +-inf past the range.

    q's numerator and denominator are taken as Python ints: a Fraction may hold other Rational
    integers (Fraction(gmpy2.mpz(1), 3) keeps the mpz), whose true division is not a float (an
    mpz / int is an mpfr of gmpy2's working precision)."""
    return _nearest_dd(q < 0, abs(int(q.numerator)), int(q.denominator))


def _ascii_digits(text: str) -> str:
    """text with Unicode decimal digits replaced by ASCII ones, as float() reads them."""
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if unicodedata.decimal(c, None) is not None else c
                   for c in text)


def _exponent_value(text: str | None) -> int | None:
    """The int value of an exponent string, or None when it has more than 20 digits (then it is
    far beyond any decimal exponent the DD range needs, and only its sign matters)."""
    if text is None:
        return 0
    body = text.lstrip("+-").replace("_", "").lstrip("0")
    if len(body) > 20:
        return None
    return -int(body or "0") if text.startswith("-") else int(body or "0")


def string_to_dd(x: str) -> tuple[float, float]:
    """The DD nearest the number a decimal string spells, with the syntax Python's float()
    accepts (whitespace around, sign, underscores between digits, inf/infinity/nan in any case)."""
    text = _ascii_digits(x.strip())
    special = _SPECIAL_STRINGS.get(text.lower())
    if special is not None:
        return special, 0.0
    match = _DECIMAL_STRING.fullmatch(text)
    if match is None:
        raise ValueError(f"cannot parse {_short_repr(x)} as a number (expected a decimal "
                         "string such as '0.1', '-2.5e-300' or 'inf')")
    negative = match["sign"] == "-"
    whole = (match["int"] or "").replace("_", "")
    fraction = (match["frac1"] or match["frac2"] or "").replace("_", "")
    digits = whole + fraction
    exponent = _exponent_value(match["exp"])
    if exponent is None:  # |exponent| > 10^20
        if digits.strip("0") == "":
            return _signed_zero(negative)
        return _underflow(negative) if match["exp"].startswith("-") else _infinity(negative)
    return _nearest_dd_decimal(negative, digits, exponent - len(fraction))


def _decimal_to_dd(x: decimal.Decimal) -> tuple[float, float]:
    if x.is_snan():   # as float(x) and NumPy
        raise ValueError("cannot convert signaling NaN to a DD number")
    if x.is_nan():
        return math.nan, 0.0
    if x.is_infinite():
        return _infinity(x.is_signed())
    sign, digits, exponent = x.as_tuple()
    return _nearest_dd_decimal(bool(sign), "".join(map(str, digits)), exponent)


def _is_mpmath_number(x) -> bool:
    """Whether x is an mpmath real: an mpf (ddblas's ExactMpf too) or a constant (mpmath.pi).
    Other types have an _mpf_ too (gmpy2's mpfr, SymPy's Float), which is not always their
    value (an mpfr nan's is a zero). Without mpmath imported, x is none of its numbers."""
    mpmath = sys.modules.get("mpmath")
    return mpmath is not None and isinstance(x, (mpmath.mpf, mpmath.ctx_mp_python._constant))


def _mpf_to_dd(x) -> tuple[float, float]:
    """An mpf (ddblas's ExactMpf too) exactly; a constant such as mpmath.pi from its value to
    256 bits (its own func: mpmath's process-wide precision is neither read nor set, as
    workprec did, which threads converting at once could leave changed); another type's
    _mpf_ tuple (mpmath's protocol for foreign numbers) exactly."""
    import mpmath
    libmp = mpmath.libmp
    if isinstance(x, mpmath.ctx_mp_python._constant):
        raw = x.func(256, libmp.round_nearest)
    else:
        raw = x._mpf_
    special = {libmp.fnan: math.nan, libmp.finf: math.inf, libmp.fninf: -math.inf}
    if raw in special:
        return special[raw], 0.0
    sign, man, exp, _ = raw
    return _nearest_dd(bool(sign), int(man), 1, int(exp))


def _real_to_dd(x) -> tuple[float, float]:
    """A real number with an exact as_integer_ratio() (NumPy's long double, gmpy2's mpfr...):
    nan and +-inf (which as_integer_ratio refuses) as float(x) gives them; a zero keeps the
    sign that float(x) shows."""
    try:
        num, den = x.as_integer_ratio()
    except (ValueError, OverflowError):  # nan, +-inf
        return float(x), 0.0
    num, den = int(num), int(den)
    negative = num < 0 or (num == 0 and math.copysign(1.0, float(x)) < 0)
    return _nearest_dd(negative, abs(num), den)


def scalar_to_dd(x) -> tuple[float, float]:
    """A Python/NumPy scalar, decimal string, Fraction, Decimal, mpmath mpf or another real
    number type of the numbers ABCs (gmpy2's mpz, mpq and mpfr...) as a DD pair, exactly
    rounded to the nearest DD."""
    if isinstance(x, (bool, np.bool_)):
        return float(x), 0.0
    if isinstance(x, (float, np.float64, np.float32, np.float16)):
        return float(x), 0.0
    if isinstance(x, np.timedelta64):   # a NumPy integer subclass, but a duration
        raise TypeError(f"cannot convert timedelta64 value {_short_repr(x)} to a DD number (a "
                        f"duration, not a number: take its count with .astype(np.int64))")
    if isinstance(x, (int, np.integer)) or (isinstance(x, numbers.Integral)
                                            and hasattr(x, "__index__")):
        x = int(x)   # gmpy2's mpz too: its true division would give an mpfr, not a float
        return (float(x), 0.0) if -_EXACT_INT <= x <= _EXACT_INT else _nearest_dd(x < 0, abs(x))
    if isinstance(x, str):
        return string_to_dd(x)
    if isinstance(x, decimal.Decimal):
        return _decimal_to_dd(x)
    if isinstance(x, Fraction):
        return dd_from_fraction(x)
    if _is_mpmath_number(x):  # mpmath mpf, or a constant such as mpmath.pi
        return _mpf_to_dd(x)
    if isinstance(x, numbers.Complex) and not isinstance(x, numbers.Real):
        raise TypeError(f"ddblas holds real numbers only, got complex value {x!r}")
    if isinstance(x, numbers.Rational):   # gmpy2's mpq...: exactly, as Python ints
        return dd_from_fraction(Fraction(int(x.numerator), int(x.denominator)))
    if isinstance(x, numbers.Real) and hasattr(x, "as_integer_ratio"):
        return _real_to_dd(x)   # long double, gmpy2's mpfr...: exactly
    if hasattr(x, "_mpf_"):  # mpmath's protocol for other real types (SymPy's Float)
        return _mpf_to_dd(x)
    hint = (" (an element of an array of another library's dtype: xprec ddouble arrays convert "
            "with ddblas.from_xprec, numpy-quaddtype arrays with ddblas.from_quad)"
            if isinstance(x, np.generic) else "")
    raise TypeError(f"cannot convert {type(x).__name__} value {_short_repr(x)} to a DD "
                    f"number{hint}")


def _short_repr(x) -> str:
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def dd_to_fraction(hi: float, lo: float) -> Fraction:
    """The exact value hi + lo (finite hi, lo)."""
    return Fraction(hi) + Fraction(lo)


DISPLAY_DIGITS = 32  # digits that show a DD's value: 106 bits are 31.9 decimal digits


def _exact_mpf_class():
    """ExactMpf: an mpmath mpf (a subclass: isinstance(v, mpmath.mpf) holds, and arithmetic on it
    gives plain mpf at mpmath's precision) whose repr and str show at least DISPLAY_DIGITS
    digits, so a DD value prints whole whatever mpmath.mp.dps is (15 by default)."""
    import mpmath

    class ExactMpf(mpmath.mpf):
        __slots__ = ()

        # mpmath's own formatting at max(dps, DISPLAY_DIGITS) digits, without raising the
        # process-wide precision (workdps did: threads printing at once left it raised)
        def __repr__(self):
            if mpmath.mp.pretty:
                return str(self)
            prec = max(mpmath.mp.prec, mpmath.libmp.dps_to_prec(DISPLAY_DIGITS))
            return f"mpf({mpmath.libmp.to_str(self._mpf_, mpmath.libmp.repr_dps(prec))!r})"

        def __str__(self):
            return mpmath.libmp.to_str(self._mpf_, max(mpmath.mp.dps, DISPLAY_DIGITS))

        def __reduce__(self):
            return _exact_mpf, (self._mpf_,)

    return ExactMpf


_EXACT_MPF = []  # the class, made at first use (mpmath is imported only when needed)


def _exact_mpf(raw):
    """An ExactMpf holding mpmath's raw (sign, mantissa, exponent, bits) tuple as it is."""
    if not _EXACT_MPF:
        _EXACT_MPF.append(_exact_mpf_class())
    value = _EXACT_MPF[0].__new__(_EXACT_MPF[0])
    value._mpf_ = raw
    return value


def dd_to_mpf(hi: float, lo: float):
    """The exact value hi + lo as an mpmath mpf (inf/nan as mpmath's) that displays with at least
    DISPLAY_DIGITS digits (see _exact_mpf_class)."""
    import mpmath
    if math.isnan(lo):
        return _exact_mpf(mpmath.mpf("nan")._mpf_)
    if not math.isfinite(hi):
        return _exact_mpf(mpmath.mpf(hi)._mpf_)
    # the parts as mpf exactly whatever mpmath's working precision (mpf(x) rounds to it: at
    # mp.dps = 10 the values were not exact), then their exact sum
    parts = [mpmath.libmp.from_float(x) for x in (hi, lo)]
    return _exact_mpf(mpmath.libmp.mpf_add(*parts, prec=0))


def _special_string(hi: float, lo: float) -> str | None:
    """'nan', 'inf' or '-inf' for a pair whose value is not finite, else None."""
    if math.isnan(hi) or math.isnan(lo) or (math.isinf(hi) and math.isinf(lo) and hi != lo):
        return "nan"
    if math.isinf(hi) or math.isinf(lo):
        return "inf" if (hi if math.isinf(hi) else lo) > 0 else "-inf"
    return None


def _exact_context() -> decimal.Context:
    """A decimal context holding any hi + lo exactly: its digits lie between 10^308 and 2^-1074,
    at most 1384 significant digits (<= _SIGNIFICANT_DIGITS); Inexact traps, to be sure."""
    return decimal.Context(prec=_SIGNIFICANT_DIGITS, rounding=decimal.ROUND_HALF_EVEN,
                           traps=[decimal.Inexact, decimal.InvalidOperation])


def dd_to_decimal(hi: float, lo: float) -> decimal.Decimal:
    """The exact value hi + lo (finite) as a Decimal; the sign of a zero is hi's."""
    if lo == 0:
        return decimal.Decimal(hi)
    return _exact_context().add(decimal.Decimal(hi), decimal.Decimal(lo))


def _scientific(mantissa_and_exponent: str) -> str:
    """Decimal's 'd.ddde-5' written with a two-digit signed exponent, as floats are: 'd.ddde-05'."""
    mantissa, exponent = mantissa_and_exponent.lower().split("e")
    return f"{mantissa}e{int(exponent):+03d}"


def dd_to_string(hi: float, lo: float, digits: int = 32) -> str:
    """hi + lo in scientific notation with `digits` significant digits, correctly rounded
    (ties to even) from the exact value."""
    special = _special_string(hi, lo)
    if special is not None:
        return special
    if hi == 0:
        return f"{hi:.{digits - 1}e}"
    with decimal.localcontext(_exact_context()) as ctx:
        ctx.traps[decimal.Inexact] = False  # the rounding to `digits`
        return _scientific(f"{dd_to_decimal(hi, lo):.{digits - 1}e}")


def dd_to_exact_string(hi: float, lo: float) -> str:
    """The exact value hi + lo in scientific notation with all its significant digits (up to
    1384: hi + lo is a finite binary fraction, so its decimal expansion ends)."""
    special = _special_string(hi, lo)
    if special is not None:
        return special
    if hi == 0:
        return f"{hi:.0e}"
    return _scientific(f"{_exact_context().normalize(dd_to_decimal(hi, lo)):e}")


# Python's format mini-language: [[fill]align][sign][z][#][0][width][grouping][.precision][type]
_FORMAT_SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ]?)(?P<z>z?)"
                          r"(?P<alternate>#?)(?P<zero>0?)(?P<width>\d*)(?P<grouping>[,_]?)"
                          r"(?:\.(?P<precision>\d+))?(?P<type>[eEfFgGn%]?)")


def _pad(body: str, fill: str, align: str, zero: bool, width: int) -> str:
    """body (a formatted number) padded to `width` as Python pads numbers: right-aligned by
    default, '=' (and the 0 flag) after the sign."""
    if zero and not align:
        fill, align = "0", "="
    fill, align = fill or " ", align or ">"
    if len(body) >= width:
        return body
    if align == "=":
        sign = body[:1] if body[:1] in "+- " else ""
        return sign + fill * (width - len(body)) + body[len(sign):]
    return format(body, f"{fill}{align}{width}")


def _grouped(body: str, separator: str, width: int) -> str:
    """body (a formatted number: sign, integer digits, the rest) with `separator` between its
    integer digits' groups of three, zero-padded (the zeros grouped too) to at least `width`
    characters: Python's 0 flag with grouping (a new group's separator may pass the width)."""
    sign = body[:1] if body[:1] in "+- " else ""
    rest = body[len(sign):]
    count = len(rest) - len(rest.lstrip("0123456789"))
    integer, tail = rest[:count], rest[count:]
    while True:
        groups = [integer[max(end - 3, 0):end] for end in range(len(integer), 0, -3)]
        grouped = separator.join(reversed(groups))
        if len(sign) + len(grouped) + len(tail) >= width:
            return sign + grouped + tail
        integer = "0" + integer


def _general_spec(value: decimal.Decimal, precision: int, kind: str, alternate: bool) -> str:
    """The e/f precision and type that Python's float formatting picks for the general types
    (g, G, n, and no type with a precision) at `precision` significant digits, given the exact
    value: from the value rounded to that many digits, with its trailing zeros dropped unless
    '#'. Rounding the exact value to fewer digits than `precision` where the dropped ones are
    zeros gives the same number, so formatting the exact value with the result is exact."""
    precision = max(precision, 1)
    rounded = decimal.Context(prec=precision, rounding=decimal.ROUND_HALF_EVEN).plus(value)
    exponent = rounded.adjusted()
    significant = precision if alternate else len(rounded.normalize().as_tuple().digits)
    fixed_limit = precision - 1 if kind == "" else precision  # no type: 1e16 at '.16'
    upper = "E" if kind == "G" else "e"
    if not -4 <= exponent < fixed_limit:
        return f"{significant - 1}{upper}"
    decimals = max(significant - 1 - exponent, 1 if kind == "" else 0)
    return f"{decimals}{'F' if kind == 'G' else 'f'}"


def format_dd(hi: float, lo: float, spec: str) -> str:
    """format(hi + lo, spec) as Python formats a float, from the exact value: the types e, E, f,
    F, g, G, n, % (default precision 6), no type with a precision (like g), correctly rounded
    (ties to even; '%' scales the exact value, where a float rounds x * 100 first); no type and
    no precision: the shortest round-trip string (repr's; '#' gives it a decimal point, 1.e+16),
    aligned as a string. Zeros, nan and +-inf are formatted as the float of that value."""
    match = _FORMAT_SPEC.fullmatch(spec)
    if match is None:
        raise ValueError(f"invalid format spec {spec!r} for a DD value (use the float types "
                         "e, E, f, F, g, G, n or %, e.g. '.40e')")
    kind = match["type"]
    special = _special_string(hi, lo)
    if special is not None or hi == 0:
        return format(float(special) if special is not None else hi, spec)
    pad = (match["fill"], match["align"], bool(match["zero"]), int(match["width"] or 0))
    # grouping: the zeros that the 0 flag adds are grouped too, so it pads here
    group_width = pad[3] if pad[2] and not pad[1] else 0
    if kind == "" and match["precision"] is None:
        shortest = dd_to_shortest_string(hi, lo)
        if match["sign"] in "+ " and not shortest.startswith("-"):
            shortest = match["sign"] + shortest
        if match["alternate"]:  # '#': as a float's repr, 1e+16 becomes 1.e+16
            shortest = _with_point(shortest)
        if match["grouping"]:
            shortest = _grouped(shortest, match["grouping"], group_width)
        return _pad(shortest, *pad)
    precision = int(match["precision"]) if match["precision"] is not None else 6
    with decimal.localcontext(_exact_context()) as ctx:
        ctx.traps[decimal.Inexact] = False  # the rounding to the requested digits
        value = dd_to_decimal(hi, lo)
        if kind in ("", "g", "G", "n"):
            tail = _general_spec(value, precision, kind, bool(match["alternate"]))
        else:
            tail = f"{precision}{kind}"
        body = format(value, f"{match['sign']}{match['z']}.{tail}")
    if tail[-1] in "eE":  # Decimal writes e-5; floats e-05
        mantissa, mark, exponent = body.rpartition(tail[-1])
        body = f"{mantissa}{mark}{int(exponent):+03d}"
    if match["alternate"]:  # '#' (Decimal has no '#')
        body = _with_point(body)
    if match["grouping"]:
        body = _grouped(body, match["grouping"], group_width)
    return _pad(body, *pad)


def _with_point(body: str) -> str:
    """body, a formatted number, with a decimal point after its digits where it has none (the
    '#' flag's rule)."""
    if "." in body:
        return body
    end = len(body.rstrip("%").split("e")[0].split("E")[0])
    return body[:end] + "." + body[end:]


def _is_even(x: float) -> bool:
    """True when the last bit of x's significand is 0 (ties round to such values)."""
    return struct.unpack("<q", struct.pack("<d", x))[0] & 1 == 0


def _units(x: float) -> int:
    """x as an integer multiple of 2^-_GRID_BITS (exact for every finite double)."""
    num, den = x.as_integer_ratio()
    return num * ((1 << _GRID_BITS) // den)


def _rounding_interval(x: float) -> tuple[int, int, bool]:
    """(low, high, closed): the reals that round to the finite double x (ties to even), in units
    of 2^-_GRID_BITS: [low, high] if closed else (low, high)."""
    up = math.nextafter(x, math.inf)
    down = math.nextafter(x, -math.inf)
    center = _units(x)
    # Past DBL_MAX the next value would be 2^1024, one ulp above (the overflow threshold).
    high = center + (_units(up) - center if math.isfinite(up) else _units(x - down)) // 2
    low = center - (center - _units(down) if math.isfinite(down) else _units(up - x)) // 2
    return low, high, _is_even(x)


def _shortest_in(low: int, high: int, low_closed: bool, high_closed: bool, target: int):
    """(k, q): the decimal k * 10^q with the fewest significant digits in the interval from low to
    high (units of 2^-_GRID_BITS, 0 < low < high), the nearest to target among those."""
    def multiples(q):
        """(kmin, kmax, num, den): k * 10^q is k * num / den units; it lies in the interval for
        kmin <= k <= kmax, i.e. k * num between low * den and high * den."""
        num, den = (10 ** q << _GRID_BITS, 1) if q >= 0 else (1 << _GRID_BITS, 10 ** -q)
        lo_n, hi_n = low * den, high * den
        kmin = -(-lo_n // num) if low_closed else lo_n // num + 1
        kmax = hi_n // num if high_closed else -(-hi_n // num) - 1
        return kmin, kmax, num, den

    # 10^q below the interval's width: a multiple certainly lies inside; 10^q above high: none.
    width_exponent = math.floor(math.log10(high - low) - _GRID_BITS * math.log10(2)) - 1
    top_exponent = math.floor(math.log10(high) - _GRID_BITS * math.log10(2)) + 2
    good, bad = width_exponent, top_exponent
    while multiples(good)[0] > multiples(good)[1]:  # guard against log10 rounding
        good -= 1
    while bad - good > 1:
        middle = (good + bad) // 2
        kmin, kmax, _, _ = multiples(middle)
        good, bad = (middle, bad) if kmin <= kmax else (good, middle)
    kmin, kmax, num, den = multiples(good)
    nearest = (2 * target * den + num) // (2 * num)  # round(target / 10^q), halves up
    return min(max(nearest, kmin), kmax), good


def _format_decimal(negative: bool, k: int, q: int) -> str:
    """k * 10^q as Python's repr(float) writes numbers: positional for 1e-4 <= |x| < 1e16 (with
    '.0' for integers), else d.ddde+XX."""
    digits = str(k)
    leading = q + len(digits) - 1
    sign = "-" if negative else ""
    if -4 <= leading < 16:
        if q >= 0:
            return f"{sign}{digits}{'0' * q}.0"
        if leading >= 0:
            return f"{sign}{digits[:leading + 1]}.{digits[leading + 1:]}"
        return f"{sign}0.{'0' * (-leading - 1)}{digits}"
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{leading:+03d}"


def _binding_end_closed(a: int, b: int, a_closed: bool, b_closed: bool) -> bool:
    """Whether the intersection of two intervals includes its lower end max(a, b)."""
    if a != b:
        return a_closed if a > b else b_closed
    return a_closed and b_closed


def _pair_interval(hi: float, lo: float) -> tuple[int, int, bool, bool]:
    """(low, high, low_closed, high_closed): the x with fl(x) = hi and fl(x - hi) = lo (hi > 0),
    in units of 2^-_GRID_BITS: hi's rounding interval intersected with lo's, shifted by hi."""
    hi_low, hi_high, hi_closed = _rounding_interval(hi)
    if lo == 0:  # fl(x - hi) = 0 for |x - hi| <= 2^-1075 (ties to the even zero)
        lo_low, lo_high, lo_closed = -1, 1, True
    else:
        lo_low, lo_high, lo_closed = _rounding_interval(lo)
    shift = _units(hi)
    lo_low, lo_high = lo_low + shift, lo_high + shift
    return (max(hi_low, lo_low), min(hi_high, lo_high),
            _binding_end_closed(hi_low, lo_low, hi_closed, lo_closed),
            _binding_end_closed(-hi_high, -lo_high, hi_closed, lo_closed))


def dd_to_shortest_string(hi: float, lo: float) -> str:
    """The decimal string with the fewest significant digits that parses (string_to_dd) back to
    the DD nearest hi + lo, i.e. to (hi, lo) itself when the pair is normalised (lo's sign of
    zero aside: it is not part of the value). Written like Python's repr of a float.

    The strings parsing to (hi, lo) are those x with fl(x) = hi and fl(x - hi) = lo (the
    intersection of hi's rounding interval and lo's shifted by hi) and, when lo is half the gap
    to hi's neighbour n on lo's side, those with fl(x) = n and fl(x - n) = -lo (renormalised to
    (hi, lo)), an adjacent interval. The shortest decimal of their union is found by a binary
    search on the exponent of the last digit (bounded work, exact integers)."""
    special = _special_string(hi, lo)
    if special is not None:
        return special
    if hi == 0 and lo == 0:
        return "-0.0" if math.copysign(1.0, hi) < 0 else "0.0"
    value = dd_to_fraction(hi, lo)
    hi, lo = dd_from_fraction(value)  # normalised (a no-op on a normalised pair)
    if math.isinf(hi):
        return "inf" if hi > 0 else "-inf"
    if hi == 0:
        return "-0.0" if math.copysign(1.0, hi) < 0 else "0.0"
    negative = hi < 0
    if negative:
        hi, lo, value = -hi, -lo, -value
    low, high, low_closed, high_closed = _pair_interval(hi, lo)
    neighbour = math.nextafter(hi, math.copysign(math.inf, lo))
    if lo != 0 and 2 * lo == neighbour - hi:
        beyond_low, beyond_high, beyond_low_closed, beyond_high_closed = \
            _pair_interval(neighbour, -lo)
        if lo < 0:
            low, low_closed = beyond_low, beyond_low_closed
        else:
            high, high_closed = beyond_high, beyond_high_closed
    target = value.numerator * (1 << _GRID_BITS) // value.denominator
    k, q = _shortest_in(low, high, low_closed, high_closed, target)
    return _format_decimal(negative, k, q)
