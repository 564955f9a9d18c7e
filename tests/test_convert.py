"""Conversions to DD: nearest DD against exact Fractions, in time bounded by the DD precision;
repr: the shortest decimal string that parses back to the same pair (issue 14, parts 3 and 5)."""
from __future__ import annotations

import decimal
import math
import numbers
import struct
import time
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ddblas

DBL_MAX = float.fromhex("0x1.fffffffffffffp+1023")
TIME_LIMIT = 5.0  # seconds (about 0.1 s unloaded): each conversion below took 13 s to forever before


def nearest_dd(q: Fraction) -> tuple[float, float]:
    """The reference: hi = fl(q) (Python's correctly rounded int division), lo = fl(q - hi);
    when fl(hi + lo) != hi (lo half an ulp of an odd hi) the same value as the normalised
    (fl(hi + lo), exact rest); inf when hi + lo overflows ((DBL_MAX, 2^970): past the largest
    DD)."""
    try:
        hi = q.numerator / q.denominator
    except OverflowError:
        return (math.inf if q > 0 else -math.inf), 0.0
    if math.isinf(hi):
        return hi, 0.0
    rest = q - Fraction(hi)
    lo = rest.numerator / rest.denominator
    total = hi + lo
    if math.isinf(total):
        return total, 0.0
    return total, float(Fraction(hi) + Fraction(lo) - Fraction(total))


def pair(x: ddblas.DDArray) -> tuple[float, float]:
    x = x.to_device("cpu")
    return float(x.hi), float(x.lo)


def same_value(a: float, b: float) -> bool:
    """Equal bits (so -0.0 differs from 0.0), or both NaN whatever their sign and payload."""
    return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))


def decimal_string(q: Fraction) -> str:
    """q to 5000 significant digits: the exact decimal expansion of a dyadic rational q."""
    with decimal.localcontext() as ctx:
        ctx.prec = 5000
        return format(decimal.Decimal(q.numerator) / decimal.Decimal(q.denominator), "f")


# ---- part 3: conversions that cannot hang ----
HUGE_INPUTS = [
    ("1e10000000", math.inf), ("1e100000000", math.inf), ("-1e100000000", -math.inf),
    ("1e-100000000", 0.0), ("-1e-100000000", -0.0), ("1e" + "9" * 100000, math.inf),
    ("0e99999999999999999999999999", 0.0), ("1" * 10 ** 6, math.inf),
    (decimal.Decimal("1e100000000"), math.inf), (decimal.Decimal("-1e100000000"), -math.inf),
    (decimal.Decimal("1e-999999999"), 0.0), (decimal.Decimal("-1e-999999999"), -0.0),
    (mpmath.mpf(2) ** (10 ** 9), math.inf), (mpmath.mpf(2) ** (10 ** 11), math.inf),
    (-mpmath.mpf(2) ** (-10 ** 11), -0.0),
    (10 ** (10 ** 6), math.inf), (-(2 ** (10 ** 7)), -math.inf),
    (Fraction(1, 3 ** (10 ** 6)), 0.0), (Fraction(-(3 ** (10 ** 6)), 7), -math.inf),
]


@pytest.mark.parametrize("value, expected", HUGE_INPUTS,
                         ids=lambda v: type(v).__name__ if not isinstance(v, float) else str(v))
def test_values_beyond_the_range_are_decided_from_the_exponent(device, value, expected):
    start = time.perf_counter()
    hi, lo = pair(ddblas.array(value, device=device))
    assert time.perf_counter() - start < TIME_LIMIT
    assert same_value(hi, expected) and lo == 0


def test_long_digit_strings_and_big_numbers_round_to_nearest(device):
    ninth = nearest_dd(Fraction(1, 9))  # 1/9 is > 10^-1400 from every rounding boundary
    cases = [
        ("0." + "1" * 10 ** 6, ninth),                   # 10^6 digits: 1/9 - 10^-10^6 / 9
        ("1" * 10 ** 6 + "e-1000000", ninth),            # the same value, as an integer string
        ("3" * 5000 + "e-5300", nearest_dd(Fraction((10 ** 5000 - 1) // 3, 10 ** 5300))),
        (Fraction(10 ** (10 ** 5) + 1, 10 ** (10 ** 5)), (1.0, 0.0)),  # lo = fl(10^-100000) = 0
        (Fraction(3 ** 200000 + 1, 3 ** 200000 * 7), nearest_dd(Fraction(1, 7))),
        ((2 ** 900 + 1) * 2 ** 100, nearest_dd(Fraction((2 ** 900 + 1) * 2 ** 100))),
        # the largest DD is OMEGA = (DBL_MAX, 2^970 - 2^917); from OMEGA + 2^916 on: inf
        (2 ** 1024 - 2 ** 970 - 2 ** 916 - 1, (DBL_MAX, float(2 ** 970 - 2 ** 917))),
        (2 ** 1024 - 2 ** 970 - 2 ** 916, (math.inf, 0.0)),            # on it: ties to inf
        (-(2 ** 1024) + 2 ** 970 + 2 ** 916 + 1, (-DBL_MAX, -float(2 ** 970 - 2 ** 917))),
    ]
    for value, expected in cases:
        start = time.perf_counter()
        got = pair(ddblas.array(value, device=device))
        assert time.perf_counter() - start < TIME_LIMIT, str(value)[:30]
        assert got == expected, str(value)[:30]


def test_long_double_and_numpy_scalars(device):
    third = np.longdouble(1) / np.longdouble(3)
    q = Fraction(*third.as_integer_ratio())
    assert pair(ddblas.array(third, device=device)) == nearest_dd(q)
    assert same_value(pair(ddblas.array(-np.longdouble(0), device=device))[0], -0.0)
    assert pair(ddblas.array(np.longdouble("inf"), device=device))[0] == math.inf


@settings(max_examples=60)
@given(st.integers(-1140, 1030), st.integers(1, 2 ** 160), st.integers(1, 2 ** 40),
       st.booleans())
def test_fractions_round_to_the_nearest_dd_over_the_whole_range(device, exponent, num, den, neg):
    """Near DBL_MAX, in the subnormal range and beyond both: hi correctly rounded, lo = fl(x-hi)."""
    q = Fraction(num, den) * Fraction(2) ** (exponent - num.bit_length() + den.bit_length())
    q = -q if neg else q
    assert pair(ddblas.array(q, device=device)) == nearest_dd(q)
    text = decimal_string(q)  # 5000 digits (rounded when q is not dyadic)
    assert pair(ddblas.array(text, device=device)) == nearest_dd(Fraction(decimal.Decimal(text)))


def test_rounding_boundaries_near_dbl_max_and_in_the_subnormal_range(device):
    tiny = Fraction(1, 10 ** 1700)  # below the 1400 significant digits kept: a sticky digit
    boundaries = [
        Fraction(DBL_MAX) + Fraction(2) ** 969,                 # below the overflow threshold
        Fraction(DBL_MAX) + Fraction(2) ** 970 - Fraction(2) ** 916,  # threshold: ties to inf
        Fraction(1) + Fraction(2) ** -53,                       # hi's midpoint: ties to even
        Fraction(DBL_MAX) + Fraction(2) ** -1075,               # lo's midpoint far below hi
        Fraction(1) + 3 * Fraction(2) ** -1075,
        Fraction(2) ** -1075, 3 * Fraction(2) ** -1075,         # subnormal hi midpoints
        Fraction(2) ** -1022 + Fraction(2) ** -1075,
    ]
    for b in boundaries:
        for q in (b, b + tiny, b - tiny, -b, -b - tiny):
            expected = nearest_dd(q)
            assert pair(ddblas.array(q, device=device)) == expected
            text = decimal_string(q)
            assert pair(ddblas.array(text, device=device)) == expected, (b, q - b)
    assert pair(ddblas.array(Fraction(DBL_MAX) + Fraction(2) ** 969)) == (DBL_MAX, 2.0 ** 969)
    threshold = Fraction(DBL_MAX) + Fraction(2) ** 970 - Fraction(2) ** 916
    assert pair(ddblas.array(threshold)) == (math.inf, 0.0)
    assert pair(ddblas.array(threshold - 1)) == (DBL_MAX, 2.0 ** 970 - 2.0 ** 917)


@pytest.mark.parametrize("text, expected", [
    ("1_000.000_1", "1000.0001"), (" \t0.5\n", "0.5"), ("+.5", "0.5"), ("5.", "5"),
    ("1_0e1_0", "10e10"), ("-0", "-0"), ("INFINITY", "inf"), ("-nAn", "nan"), ("١٢", "12"),
    ("1E+2", "100"),
])
def test_strings_accepted_as_float_accepts_them(device, text, expected):
    got = pair(ddblas.array(text, device=device))
    want = pair(ddblas.array(expected))
    assert same_value(got[0], want[0]) and same_value(got[1], want[1])
    assert same_value(got[0], float(text))


@pytest.mark.parametrize("text", ["1__0", "_1", "1_", "1_.5", "1._5", "1e_5", "1e5_", ".", "e5",
                                  "1e", "0x10", "1/3", "", "  ", "1 2", "--1", "nan(1)", "infinit"])
def test_strings_rejected_as_float_rejects_them(text):
    with pytest.raises(ValueError):
        float(text)
    with pytest.raises(ValueError, match="cannot parse"):
        ddblas.array(text)


def test_negative_zero_from_every_input_kind(device):
    for value in ("-0", "-0.0e5", decimal.Decimal("-0"), decimal.Decimal("-0E+10"), -0.0,
                  np.longdouble("-0")):
        hi, lo = pair(ddblas.array(value, device=device))
        assert math.copysign(1, hi) == -1 and lo == 0, value


def test_signaling_nan_decimal_is_refused_as_float_refuses_it(device):
    """Decimal('snan') became a quiet NaN silently; float() and NumPy raise a ValueError."""
    for value in (decimal.Decimal("snan"), [1.0, decimal.Decimal("-sNaN")]):
        with pytest.raises(ValueError, match="signaling NaN"):
            ddblas.array(value, device=device)
    assert math.isnan(pair(ddblas.array(decimal.Decimal("nan"), device=device))[0])


def test_unsupported_objects_name_what_was_passed():
    with pytest.raises(TypeError, match="NoneType"):
        ddblas.array(None)
    with pytest.raises(TypeError, match="complex"):
        ddblas.array(1j)


# ---- part 5: repr round-trips exactly ----
def parse_repr(text: str) -> list[str]:
    """The element strings of a DDArray repr."""
    body = text[len("DDArray("):text.rindex(", device=")]
    return [s.strip() for s in body.replace("[", " ").replace("]", " ").split(",") if s.strip()]


def is_shortest(text: str, hi: float, lo: float) -> bool:
    """No decimal with fewer significant digits parses to (hi, lo): the interval of strings that
    do is convex, so checking the two neighbours one digit shorter suffices."""
    with decimal.localcontext() as ctx:
        ctx.prec = 5000
        d = decimal.Decimal(text).normalize()
        if d == 0:
            return True
        step = decimal.Decimal(1).scaleb(d.as_tuple().exponent + 1)
        for rounding in (decimal.ROUND_FLOOR, decimal.ROUND_CEILING):
            shorter = d.quantize(step, rounding=rounding)
            got = ddblas.core.convert.string_to_dd(str(shorter))
            if got[0] == hi and got[1] == lo:
                return False
    return True


def check_round_trip(x: ddblas.DDArray):
    x = x.to_device("cpu")
    strings = parse_repr(repr(x)) if x.ndim else [repr(x)[len("DDArray("):repr(x).rindex(", dev")]]
    assert len(strings) == x.size
    for text, hi, lo in zip(strings, x.hi.ravel().tolist(), x.lo.ravel().tolist()):
        back = pair(ddblas.array(text))
        assert same_value(back[0], hi) and (back[1] == lo or math.isnan(lo)), (text, hi, lo)
        if math.isfinite(hi):
            assert is_shortest(text, hi, lo), text


@st.composite
def dd_pairs(draw):
    """Normalised pairs over the whole range: lo anywhere from hi's last bit down to the
    subnormals, half of hi's last bit, zero, or a plain double; negative zero, subnormal hi."""
    hi = draw(st.floats(allow_nan=False, allow_infinity=False))
    if hi == 0 or not math.isfinite(hi):
        return hi, 0.0
    kind = draw(st.sampled_from(["zero", "near", "far", "half"]))
    if kind == "zero":
        return hi, 0.0
    if kind == "half":  # lo half the gap to an (odd) neighbour of an even hi: strings that
        # convert to (neighbour, -lo) first, renormalised to (hi, lo), parse back too
        if struct.unpack("<q", struct.pack("<d", hi))[0] & 1:
            hi = math.nextafter(hi, 0.0)
        neighbour = math.nextafter(hi, draw(st.sampled_from([math.inf, -math.inf])))
        return nearest_dd(Fraction(hi) + (Fraction(neighbour) - Fraction(hi)) / 2)
    drop = draw(st.integers(1, 60) if kind == "near" else st.integers(60, 2200))
    mantissa = draw(st.integers(1, 2 ** 53 - 1)) * draw(st.sampled_from([1, -1]))
    q = Fraction(hi) + mantissa * Fraction(2) ** (math.frexp(hi)[1] - 53 - drop - 53)
    return nearest_dd(q)


@settings(max_examples=150)
@given(st.lists(dd_pairs(), min_size=1, max_size=4))
def test_repr_is_the_shortest_string_that_round_trips(device, pairs):
    hi = np.array([p[0] for p in pairs])
    lo = np.array([p[1] for p in pairs])
    x = ddblas.DDArray(hi, lo, normalize=False).to_device(device)
    check_round_trip(x)
    check_round_trip(x[0])


def test_random_values_round_trip_through_repr(device):
    x = ddblas.random(2000, seed=5, device=device).to_device("cpu")
    start = time.perf_counter()
    for i in range(x.size):
        check_round_trip(x[i])
    assert time.perf_counter() - start < 20


def test_repr_examples_of_the_issue(device):
    x = ddblas.DDArray(1.0, 2.0 ** -200).to_device(device)
    assert repr(x) != f"DDArray({1:.31e}, device='{device}')"
    check_round_trip(x)
    assert repr(ddblas.array("0.1", device=device)) == f"DDArray(0.1, device='{device}')"
    assert repr(ddblas.array(1, device=device)) == f"DDArray(1.0, device='{device}')"
    assert repr(ddblas.array("-1e300", device=device)) == f"DDArray(-1e+300, device='{device}')"
    assert repr(ddblas.array(["-0", "inf", "-inf", "nan", "2.5e-5"], device=device)) == (
        f"DDArray([-0.0, inf, -inf, nan, 2.5e-05], device='{device}')")
    assert repr(ddblas.DDArray(1.0, math.nan, normalize=False).to_device(device)) == (
        f"DDArray(nan, device='{device}')")
    big = repr(ddblas.random((50, 50), seed=1, device=device))
    # NumPy's summarised layout: 6 of 50 rows, up to 3 lines each at 2 values of ~36 characters.
    assert "..." in big and big.count("\n") < 40


def test_str_keeps_32_digits(device):
    assert str(ddblas.array("0.1", device=device)) == "1.0000000000000000000000000000000e-01"
    assert str(ddblas.DDArray(1.0, math.nan, normalize=False)) == "nan"


def test_values_past_the_largest_dd_round_to_inf():
    """Between OMEGA = (DBL_MAX, 2^970 - 2^917) and 2^1024 the nearest DD is OMEGA below
    OMEGA + 2^916 and inf from there (lo = fl(x - DBL_MAX) would be 2^970: not normalised)."""
    omega = Fraction(2) ** 1024 - Fraction(2) ** 970 - Fraction(2) ** 917
    largest = (1.7976931348623157e308, 2.0 ** 970 - 2.0 ** 917)
    for sign in (1, -1):
        signed = tuple(sign * v for v in largest)
        assert ddblas.core.convert.dd_from_fraction(sign * omega) == signed
        below = sign * (omega + Fraction(2) ** 916 - 1)
        assert ddblas.core.convert.dd_from_fraction(below) == signed
        for beyond in (omega + Fraction(2) ** 916, Fraction(2) ** 1024 - Fraction(2) ** 970 - 1):
            assert ddblas.core.convert.dd_from_fraction(sign * beyond) == (sign * math.inf, 0.0)
        assert ddblas.core.convert.scalar_to_dd(str(sign * (Fraction(2) ** 1024 - 1).__floor__())) \
            == (sign * math.inf, 0.0)


def check_nearest_and_normalised(q: Fraction, got: tuple[float, float]):
    """got is the reference nearest DD of q, a normalised pair (fl(hi + lo) == hi, so wrapping
    it again changes nothing), within the conversion bound max(2^-106 |q|, 2^-1075)."""
    hi, lo = got
    assert got == nearest_dd(q)
    if math.isfinite(hi):
        assert hi + lo == hi
        assert pair(ddblas.DDArray(hi, lo)) == got
        error = abs(q - Fraction(hi) - Fraction(lo))
        assert error <= max(abs(q) * Fraction(2) ** -106, Fraction(2) ** -1075)
        for closer in (math.nextafter(lo, math.inf), math.nextafter(lo, -math.inf)):
            assert error <= abs(q - Fraction(hi) - Fraction(closer))


def test_lo_of_half_an_ulp_of_an_odd_hi_is_renormalised(device):
    """fl(x - hi) rounding to half an ulp of an odd hi gives a pair fl(hi + lo) != hi: the same
    value must come back as the normalised pair (hi's even neighbour, -lo)."""
    n = (2 ** 52 + 1) * 2 ** 100 + 2 ** 99 - 1  # lo rounds up to 2^99, hi's last bit is odd
    x = ddblas.array(n, device=device)
    assert pair(x) == (float((2 ** 52 + 2) * 2 ** 100), -2.0 ** 99)
    assert bool(x == ddblas.DDArray(x.hi, x.lo)) and bool(x == n)
    odd = math.ldexp(float((1 << 52) | 1), -1073)  # lo subnormal: 3/4 of 2^-1074 rounds up
    q = Fraction(odd) + Fraction(3, 4 * 2 ** 1074)
    assert pair(ddblas.array(q, device=device)) == (math.nextafter(odd, 1.0), -2.0 ** -1074)
    below_max = Fraction(DBL_MAX) - Fraction(2) ** 970  # midpoint of DBL_MAX and its neighbour
    even = math.nextafter(DBL_MAX, 0.0)
    for offset in (2 ** 900, -(2 ** 900), 0):
        for sign in (1, -1):
            got = pair(ddblas.array(sign * (below_max + offset), device=device))
            assert got == (sign * even, sign * 2.0 ** 970), (offset, sign)
    for value in (n, q, below_max + 2 ** 900):
        check_nearest_and_normalised(Fraction(value), pair(ddblas.array(value, device=device)))


@settings(max_examples=200)
@given(st.one_of(st.integers(-1022, -930), st.integers(-1022, 1023)),
       st.integers(2 ** 52, 2 ** 53 - 1), st.integers(-(2 ** 16), 2 ** 16), st.integers(40, 75),
       st.sampled_from([1, -1]), st.booleans())
def test_conversions_give_the_nearest_normalised_dd(device, exponent, mantissa, offset, depth,
                                                    side, neg):
    """Values within 2^-depth ulps of a midpoint of hi's grid (lo about half an ulp: rounding
    up to it or not, lo subnormal below about 2^-969), as Fractions and decimal strings."""
    ulp = Fraction(2) ** (exponent - 52)
    q = (mantissa * ulp + side * ulp / 2 + Fraction(offset, 2 ** depth) * ulp) * (-1 if neg else 1)
    check_nearest_and_normalised(q, pair(ddblas.array(q, device=device)))
    text = decimal_string(q)  # 5000 digits (exact: q is dyadic)
    check_nearest_and_normalised(q, pair(ddblas.array(text, device=device)))


# ---- other number types (probe of 2026-12-01) ----
class BinaryFloat(numbers.Real):
    """A stand-in for an arbitrary-precision binary float such as gmpy2's mpfr: a numbers.Real
    with an exact as_integer_ratio (and an _mpf_ that is NOT its value for nan, as mpfr's)."""

    def __init__(self, num, den=1):
        self.num, self.den = num, den

    def as_integer_ratio(self):
        if self.den == 0:
            raise ValueError("cannot pass NaN") if self.num == 0 else OverflowError("infinity")
        return self.num, self.den

    @property
    def _mpf_(self):
        return (0, 0, -1073741823, 1)  # what an mpfr nan's looks like: a zero

    def __float__(self):
        if self.den == 0:
            return math.nan if self.num == 0 else math.copysign(math.inf, self.num)
        return -0.0 if self.num == 0 and self.den < 0 else self.num / abs(self.den)

    def __repr__(self):
        return f"BinaryFloat({self.num}, {self.den})"

    # the rest of numbers.Real, unused
    __abs__ = __add__ = __ceil__ = __eq__ = __floor__ = __floordiv__ = __le__ = __lt__ = \
        __mod__ = __mul__ = __neg__ = __pos__ = __pow__ = __radd__ = __rfloordiv__ = \
        __rmod__ = __rmul__ = __round__ = __rpow__ = __rtruediv__ = __truediv__ = \
        __trunc__ = lambda self, *args: NotImplemented


class FloatLike:
    """SymPy's Float as ddblas sees it: an _mpf_ holding its value (mpmath's protocol for
    foreign numbers) and a .func that is its class (SymPy's Basic.func), not mpmath's."""

    def __init__(self, raw):
        self._mpf_ = raw

    @property
    def func(self):
        return type(self)


def check_converted(values, device):
    """Each (value, (hi, lo)) as a scalar, in a list and in an object array: those bits."""
    for value, (hi, lo) in values:
        for obj in (value, [value], np.array([value], dtype=object)):
            got = ddblas.array(obj, device=device).to_device("cpu")
            assert same_value(float(got.hi.ravel()[0]), hi), value
            assert same_value(float(got.lo.ravel()[0]), lo), value


def test_number_types_of_other_libraries_convert_exactly(device):
    """Probe of 2026-12-01: a Fraction holding gmpy2 mpz (Fraction(mpz(1), 3)), gmpy2's mpq and
    mpz went through int true division, which for mpz gives an mpfr of gmpy2's working
    precision: with it set to 300 bits, mpq(1, 3) became (1/3, -8e-92) and mpz(2^80 + 1) lost
    its 1 in a list, and a scalar failed ("DDArray hi must be a float64 array, got dtype
    object"); an mpfr (it has an _mpf_) raised AttributeError: no 'func'; any other type with an
    _mpf_ had its .func called as mpmath constants' are."""
    third = nearest_dd(Fraction(1, 3))
    big = 2 ** 80 + 1
    check_converted([
        (BinaryFloat(1, 3), third), (BinaryFloat(-5, 7), nearest_dd(Fraction(-5, 7))),
        (BinaryFloat(big), nearest_dd(Fraction(big))), (BinaryFloat(1, 2 ** 1100), (0.0, 0.0)),
        (BinaryFloat(2 ** 1100), (math.inf, 0.0)), (BinaryFloat(1, 0), (math.inf, 0.0)),
        (BinaryFloat(0, -1), (-0.0, 0.0)), (BinaryFloat(0, 0), (math.nan, 0.0)),
        (FloatLike((0, 3, -1, 2)), (1.5, 0.0)),
        (FloatLike((1, (1 << 200) + 1, -200, 201)), (-1.0, -(2.0 ** -200)))], device)
    gmpy2 = pytest.importorskip("gmpy2")
    context = gmpy2.get_context()
    saved, context.precision = context.precision, 300
    try:
        third_300 = gmpy2.mpfr(1) / 3
        check_converted([
            (gmpy2.mpq(1, 3), third), (gmpy2.mpz(big), nearest_dd(Fraction(big))),
            (Fraction(gmpy2.mpz(1), gmpy2.mpz(3)), third),
            (third_300, nearest_dd(Fraction(*map(int, third_300.as_integer_ratio())))),
            (gmpy2.mpfr("-0"), (-0.0, 0.0)), (gmpy2.mpfr("-inf"), (-math.inf, 0.0)),
            (gmpy2.mpfr("nan"), (math.nan, 0.0))], device)
    finally:
        context.precision = saved


def test_wide_integer_and_big_endian_arrays_convert_exactly_and_at_once(device):
    """Probe of 2026-12-01: int64/uint64 arrays with entries beyond 2^53, and every array not in
    the machine's byte order (big-endian data, as FITS files hold), were converted element by
    element in Python: 4 us an element (2 x 10^6 took ~10 s); now by array operations."""
    rng = np.random.default_rng(5)
    special = [0, 1, -1, 2 ** 53 + 1, -(2 ** 53) - 1, 2 ** 54 + 2, 2 ** 54 + 6, -(2 ** 54) - 6,
               2 ** 63 - 1, -(2 ** 63), -(2 ** 63) + 1, 2 ** 62 + 2 ** 9 + 1]
    signed = np.array(special + rng.integers(-(2 ** 63), 2 ** 63 - 1, 500).tolist(), np.int64)
    for values in (signed, signed.astype(">i8"), signed.view(np.uint64),
                   signed.view(np.uint64).astype(">u8"), signed[::-3], signed.astype(">i4")):
        x = ddblas.array(values, device=device).to_device("cpu")
        assert x.shape == values.shape
        for v, hi, lo in zip(values.tolist(), x.hi.tolist(), x.lo.tolist()):
            assert (hi, lo) == nearest_dd(Fraction(v)), v
    for values in (np.array([0.1, -0.0, np.inf, 5e-324], ">f8"), np.array([0.1, -2.5], ">f4")):
        x = ddblas.array(values, device=device).to_device("cpu")
        assert [struct.pack("<d", v) for v in x.hi.tolist()] == \
            [struct.pack("<d", float(v)) for v in values.tolist()] and not x.lo.any()
    count = 2 * 10 ** 6
    start = time.perf_counter()
    ddblas.array(rng.integers(-(2 ** 63), 2 ** 63 - 1, count), device=device)
    ddblas.array(rng.random(count).astype(">f8"), device=device)
    assert time.perf_counter() - start < TIME_LIMIT


def test_unparsable_long_strings_are_quoted_short():
    """Probe of 2026-12-01: the ValueError for a string that does not parse quoted it whole (a
    message of a megabyte for 10^6 digits and a stray letter)."""
    with pytest.raises(ValueError, match="cannot parse") as info:
        ddblas.array("1" * 10 ** 6 + "x")
    assert len(str(info.value)) < 200 and "'111" in str(info.value)
