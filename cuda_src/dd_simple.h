// dd_simple.h: the simple elementwise DD functions: rounding to integers, sign, copy_sign,
// classification, maximum/minimum (IEEE 754-2019 maximum / maximumNumber), square, reciprocal and
// integer powers. Inputs are normalized DD values (dd.h); u = 2^-53. docs/algorithms.md, "Simple
// functions", proves what each comment states. The names avoid those of <cmath> (floor, fmax,
// copysign...), which unqualified calls on doubles inside namespace ddblas must still find.
#pragma once
#include "dd.h"

namespace ddblas {

// ---- rounding to an integer: exact on the DD value hi + lo ----
enum class Rounding { down, up, toward_zero, to_nearest_even };

// round_double: x rounded to an integer in direction R (float64, exact).
template <Rounding R>
DD_HD double round_double(double x) {
    if constexpr (R == Rounding::down) return ::floor(x);
    if constexpr (R == Rounding::up) return ::ceil(x);
    if constexpr (R == Rounding::toward_zero) return ::trunc(x);
    return ::rint(x);  // the default rounding mode: to nearest, ties to even
}

// round_to_integer: R applied to the exact value a = hi + lo, exact (the result is a DD integer).
// hi not an integer: |hi| < 2^52 and |lo| <= ulp(hi)/2 < distance from hi to the next integer or
// half-integer, so hi + lo rounds as hi does, except a half-integer hi under to_nearest_even,
// where lo's sign decides. hi an integer: R(hi + lo) = hi + R(lo) for down, up and to_nearest_even
// (an odd hi has ulp(hi) <= 1, so |lo| < 1/2 by normalization and no tie arises; an even hi keeps
// ties' parity); toward_zero is down or up by a's sign. Fast2Sum(hi, R(lo)) is exact: |hi| >= 1
// >= |R(lo)| or |hi| >= 2 > u|hi| + 1 >= |R(lo)|. A zero result has a's sign (float64's rule);
// inf and nan come back as (hi, 0).
template <Rounding R>
DD_HD dd round_to_integer(dd a) {
    if constexpr (R == Rounding::toward_zero) {
        return signbit(a.hi) ? round_to_integer<Rounding::up>(a) : round_to_integer<Rounding::down>(a);
    } else {
        dd r = {a.hi, 0.0};
        if (!isfinite(a.hi)) return r;
        const double rounded = round_double<R>(a.hi);
        if (rounded != a.hi) {
            r.hi = rounded;
            if constexpr (R == Rounding::to_nearest_even) {
                const double below = ::floor(a.hi);
                const double twice = 2.0 * a.hi;  // exact; an integer iff hi is a half-integer
                if (::floor(twice) == twice && a.lo != 0.0) r.hi = a.lo > 0.0 ? below + 1.0 : below;
            }
        } else {
            fast_two_sum(a.hi, round_double<R>(a.lo), r.hi, r.lo);
        }
        if (r.hi == 0.0) r.hi = copysign(0.0, a.hi);
        return r;
    }
}

// ---- sign and classification: exact ----
// sign: -1, +0 or 1 as (s, 0) by the sign of a (NumPy's sign: +0 for both zeros, nan stays).
DD_HD dd sign(dd a) {
    dd r = {a.hi > 0.0 ? 1.0 : a.hi < 0.0 ? -1.0 : a.hi == 0.0 ? 0.0 : a.hi, 0.0};
    return r;
}

// copy_sign: |a| with the sign bit of b.hi (C copysign on the DD value), exact.
DD_HD dd copy_sign(dd a, dd b) { return signbit(a.hi) != signbit(b.hi) ? neg(a) : a; }

// is_nan, is_inf, is_finite: the class of hi + lo (a nan in either part makes it nan).
DD_HD bool is_nan(dd a) { return isnan(a.hi) || isnan(a.lo); }
DD_HD bool is_inf(dd a) { return !isfinite(a.hi) && !is_nan(a); }
DD_HD bool is_finite(dd a) { return isfinite(a.hi) && isfinite(a.lo); }

// ---- maximum and minimum of the exact values: exact ----
// nan_of: the nan that a nan operand gives, (nan, 0).
DD_HD dd nan_of(dd a) {
    dd r = {a.hi + a.lo, 0.0};
    return r;
}
// maximum, minimum: NaN-propagating (IEEE 754-2019 maximum; NumPy's maximum); between equal
// values (+0 and -0) b, as NumPy gives.
DD_HD dd maximum(dd a, dd b) {
    if (is_nan(a)) return nan_of(a);
    if (is_nan(b)) return nan_of(b);
    return greater(a, b) ? a : b;
}
DD_HD dd minimum(dd a, dd b) {
    if (is_nan(a)) return nan_of(a);
    if (is_nan(b)) return nan_of(b);
    return less(a, b) ? a : b;
}
// maximum_number, minimum_number: NaN-ignoring (IEEE 754-2019 maximumNumber; C and NumPy fmax,
// fmin): the other operand when one is nan; between equal values a, as NumPy gives.
DD_HD dd maximum_number(dd a, dd b) {
    if (is_nan(a)) return is_nan(b) ? nan_of(a) : b;
    if (is_nan(b)) return a;
    return less(a, b) ? b : a;
}
DD_HD dd minimum_number(dd a, dd b) {
    if (is_nan(a)) return is_nan(b) ? nan_of(a) : b;
    if (is_nan(b)) return a;
    return greater(a, b) ? b : a;
}

// ---- square, reciprocal, integer powers ----
// square: a * a by the variant's mul (dd.h), with its bound c_mul relative.
template <class V>
DD_HD dd square(dd a) { return mul<V>(a, a); }

// reciprocal: 1 / a by the variant's div (dd.h), with its bound c_div relative.
template <class V>
DD_HD dd reciprocal(dd a) {
    const dd one = {1.0, 0.0};
    return div<V>(one, a);
}

// power: a^n for an integer n by binary powering (right to left: the set bits of |n| from the
// lowest pick the squares a^(2^k) into the product), then the reciprocal for n < 0. Each computed
// a^m carries at most m - 1 factors (1 + d), |d| <= c_mul (squares and products alike), so with
// g = (|n| - 1) c_mul: relative error <= g / (1 - g) for n > 0, (1 + c_div) / (1 - g / (1 - g)) - 1
// for n < 0 (docs/algorithms.md). The squares and the product are kept as mantissa_exponent's
// m 2^e (exact power-of-two scalings: the same roundings as unscaled), so no intermediate
// overflows or underflows, and a^n is scaled to its exponent once at the end: a^-307 of 0.1
// is accurate although 0.1^307 is below the normal range. a^0 = 1 (nan and inf included, as C
// pow); a^1 = a exactly. Special values and overflow as mul and div give them.
template <class V>
DD_HD dd power(dd a, long long n) {
    // |exponents| beyond this make a^n inf or 0 whatever the mantissas: clamped, none overflows
    constexpr index_t EXPONENT_LIMIT = index_t(1) << 40;
    unsigned long long m = n < 0 ? 0ULL - (unsigned long long)n : (unsigned long long)n;
    dd r = {1.0, 0.0};
    index_t r_exponent = 0, square_exponent = 0, e = 0;
    bool empty = true;  // r is still the empty product 1
    dd square_k = mantissa_exponent(a, square_exponent);  // a^(2^k) = square_k 2^square_exponent
    while (m != 0) {
        if (m & 1ULL) {
            r = mantissa_exponent(empty ? square_k : mul<V>(r, square_k), e);
            r_exponent = clamped(r_exponent + square_exponent + e, EXPONENT_LIMIT);
            empty = false;
        }
        m >>= 1;
        if (m != 0) {
            square_k = mantissa_exponent(mul<V>(square_k, square_k), e);
            square_exponent = clamped(2 * square_exponent + e, EXPONENT_LIMIT);
        }
    }
    if (n < 0) {
        r = reciprocal<V>(r);
        r_exponent = -r_exponent;
    }
    return ldexp_dd(r, r_exponent);  // overflow: (+-inf, 0), as mul gives it
}

}  // namespace ddblas
