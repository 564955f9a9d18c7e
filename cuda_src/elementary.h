// elementary.h: exponentials, logarithms, power and the hyperbolic functions of DD values, written
// once for both backends from +, -, *, /, fma, sqrt, trunc, round, frexp and ldexp only (all
// exact or correctly rounded in IEEE 754, so the CPU and the GPU give the same bits; no libm exp
// or log).
// Relative errors below are measured against mpmath at 300 bits (tests/test_elementary.py,
// docs/algorithms.md "Elementary functions"); they are not proven. Sources:
//   [QD]   Y. Hida, X. S. Li, D. H. Bailey, QD library 2.3, dd_real.cpp: exp (reduction by ln 2
//          and by 2^9, Taylor series, squaring back), the constants' DD splitting.
//   [Tan]  P. T. P. Tang, "Table-driven implementation of the exponential function in IEEE
//          floating-point arithmetic", ACM TOMS 15(2), 1989 (k ln 2 in parts, k * L1 exact).
//   [Gol]  D. Goldberg, "What every computer scientist should know about floating-point
//          arithmetic", 1991, Thm. 4 (log1p without cancellation); the series
//          log(1 + t) = 2 atanh(t / (2 + t)) as in fdlibm's e_log.c.
// Special values follow float64 (C99 Annex F): exp(-inf) = 0, log(0) = -inf, log(-1) = nan,
// results past the DD range are +-inf with lo = 0, nan in gives nan.
#pragma once
#include "dd.h"

namespace ddblas {

#if !defined(__CUDACC__)
using std::frexp;
using std::ldexp;
#endif

namespace elementary {

// DD constants, rounded to nearest DD (|error| <= 2^-107 relative).
constexpr dd LN2 = {0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56};
constexpr dd LOG2_E = {0x1.71547652b82fep+0, 0x1.777d0ffda0d24p-56};   // 1 / ln 2
constexpr dd LOG10_E = {0x1.bcb7b1526e50ep-2, 0x1.95355baaafad3p-57};  // 1 / ln 10
// ln 2 = LN2_1 + LN2_2 + LN2_3 + O(2^-155): LN2_1 has 42 bits, so k LN2_1 is exact for |k| < 2^11
// [Tan].
constexpr double LN2_1 = 0x1.62e42fefa3800p-1;
constexpr double LN2_2 = 0x1.ef35793c76730p-45;
constexpr double LN2_3 = 0x1.f97b57a079a19p-103;
constexpr double SQRT2 = 0x1.6a09e667f3bcdp+0;  // fl(sqrt 2)

constexpr int EXP_HALVINGS = 5;  // the reduced argument is divided by up to 2^5 ([QD]: 2^9)
constexpr double NEGLIGIBLE = 0x1p-54;  // odd f(x) = x (1 + O(x^2)): x within u^2 / 3 below this
constexpr double LINEAR = 0x1p-110;     // expm1, log1p = x (1 + O(x)): x within u^2 / 8 below this
// fmod's loops, bounded so that no input can hang a kernel: 2^2100 / 2^52 needs 41 passes;
// trunc(a.hi / bs.hi) is within 2 of the quotient a / bs.
constexpr int FMOD_PASSES = 48;
constexpr int FMOD_FIXES = 4;

}  // namespace elementary

// dd_of: the DD (x, 0), exact.
DD_HD dd dd_of(double x) {
    dd r = {x, 0.0};
    return r;
}

// as_is: x itself where finite, else (x.hi, 0) (a nan or inf passed through as float64 does).
DD_HD dd as_is(dd x) { return isfinite(x.hi) ? x : dd_of(x.hi); }

// nearest_integer: the integer nearest x (ties away from zero); exact. (trunc(x + 1/2) is not:
// for x = 1/2 - 2^-54 the sum rounds up to 1.)
DD_HD double nearest_integer(double x) { return round(x); }

// is_integer: whether the DD a is an integer (both parts are, for a normalized a), exact.
DD_HD bool is_integer(dd a) { return trunc(a.hi) == a.hi && trunc(a.lo) == a.lo; }

// is_odd_integer: whether the integer DD a is odd: hi's and lo's parities differ, exact.
DD_HD bool is_odd_integer(dd a) {
    const bool hi_odd = trunc(a.hi * 0.5) != a.hi * 0.5, lo_odd = trunc(a.lo * 0.5) != a.lo * 0.5;
    return is_integer(a) && hi_odd != lo_odd;
}

// expm1_reduced: exp(r) - 1 for |r| <= 0.35 (ln 2 / 2 plus rounding), r = 0 or |r| >= 2^-110:
// [QD]'s exp core with fewer halvings: x = r / 2^h, h = 0..5 the fewest with |x| < 2^-6, Taylor to
// x^13/13! (truncation < 2^-110 relative; terms 8..13 in float64, below u of the sum), then h
// doublings s <- 2s + s^2 (s = e^(r/2^j) - 1 throughout, so no cancellation near r = 0).
template <class V>
DD_HD dd expm1_reduced(dd r) {
    using namespace elementary;
    int e;
    frexp(r.hi, &e);  // |r| < 2^e
    const int halvings = e + 6 < 0 ? 0 : (e + 6 > EXP_HALVINGS ? EXP_HALVINGS : e + 6);
    const dd x = scaled(r, ldexp(1.0, -halvings));
    // 1/n! for n = 2..13: DD for the terms that need it (n <= 7), then float64.
    constexpr dd inv_fact_dd[6] = {{0x1.0000000000000p-1, 0.0},
                                   {0x1.5555555555555p-3, 0x1.5555555555555p-57},
                                   {0x1.5555555555555p-5, 0x1.5555555555555p-59},
                                   {0x1.1111111111111p-7, 0x1.1111111111111p-63},
                                   {0x1.6c16c16c16c17p-10, -0x1.f49f49f49f49fp-65},
                                   {0x1.a01a01a01a01ap-13, 0x1.a01a01a01a01ap-73}};
    constexpr double inv_fact_tail[6] = {0x1.a01a01a01a01ap-16, 0x1.71de3a556c734p-19,
                                         0x1.27e4fb7789f5cp-22, 0x1.ae64567f544e4p-26,
                                         0x1.1eed8eff8d898p-29, 0x1.6124613a86d09p-33};
    double tail = inv_fact_tail[5];
    for (int n = 4; n >= 0; --n) tail = tail * x.hi + inv_fact_tail[n];
    dd p = dd_of(tail);
    for (int n = 5; n >= 0; --n) p = add<V>(inv_fact_dd[n], mul<V>(x, p));
    dd s = add<V>(x, mul<V>(mul<V>(x, x), p));
    for (int j = 0; j < halvings; ++j) s = add<V>(scaled(s, 2.0), mul<V>(s, s));
    return s;
}

// reduce_ln2: x - k ln 2 for the integer k = round(x / ln 2), |x| <= 746: x.hi - k * LN2_1
// exactly by two_sum, then the other parts of x and k ln 2 added with the variant's addition.
// Result within 0.35 of 0; absolute error about u^2 |result| + 2^-150 |x|.
template <class V>
DD_HD dd reduce_ln2(dd x, double k) {
    using namespace elementary;
    dd r;
    two_sum(x.hi, -k * LN2_1, r.hi, r.lo);
    r = add<V>(r, dd_of(x.lo));
    dd middle;
    two_prod<V::fma>(k, LN2_2, middle.hi, middle.lo);
    r = sub<V>(r, middle);
    return sub<V>(r, dd_of(k * LN2_3));
}

// exp_scaled: e^x * 2^shift for finite |x| <= 746 and |shift| <= 2, as 2^(k + shift) (1 + s).
template <class V>
DD_HD dd exp_scaled(dd x, int shift) {
    const double k = nearest_integer(x.hi * elementary::LOG2_E.hi);
    const dd r = k == 0.0 ? x : reduce_ln2<V>(x, k);
    if (r.hi == 0.0) return ldexp_dd(dd_of(1.0), static_cast<int>(k) + shift);
    return ldexp_dd(add<V>(dd_of(1.0), expm1_reduced<V>(r)), static_cast<int>(k) + shift);
}

// exp: e^x, [QD]'s dd_real exp with [Tan]'s exact first reduction step. Overflow past 709.79 to
// inf, underflow below -745.2 to 0 (subnormal results carry an absolute error of ~2^-1074).
template <class V>
DD_HD dd exp(dd x) {
    if (isnan(x.hi)) return dd_of(x.hi);
    if (x.hi > 710.0) return dd_of(infinity());
    if (x.hi < -746.0) return dd_of(0.0);
    return exp_scaled<V>(x, 0);
}

// exp2: 2^x = 2^n e^((x - n) ln 2), n = round(x): x - n is exact (Sterbenz, then two_sum), so only
// the reduced product is rounded, whatever the size of x.
template <class V>
DD_HD dd exp2(dd x) {
    if (isnan(x.hi)) return dd_of(x.hi);
    if (x.hi > 1025.0) return dd_of(infinity());
    if (x.hi < -1080.0) return dd_of(0.0);
    const double n = nearest_integer(x.hi);
    dd f;
    two_sum(x.hi - n, x.lo, f.hi, f.lo);
    const dd r = mul<V>(f, elementary::LN2);
    const dd e = r.hi == 0.0 ? dd_of(1.0) : add<V>(dd_of(1.0), expm1_reduced<V>(r));
    return ldexp_dd(e, static_cast<int>(n));
}

// expm1: e^x - 1 without cancellation: for |x| < ln 2 / 2 the reduced core itself; else
// (2^k - 1) + 2^k (e^r - 1), with 2^k - 1 exact as a DD. expm1(x) = x below 2^-110.
template <class V>
DD_HD dd expm1(dd x) {
    if (isnan(x.hi) || fabs(x.hi) < elementary::LINEAR) return as_is(x);
    if (x.hi < -80.0) return dd_of(-1.0);  // e^x < 2^-115
    if (x.hi > 700.0) return exp<V>(x);    // the -1 is below 2^-1000 relative
    const double k = nearest_integer(x.hi * elementary::LOG2_E.hi);
    if (k == 0.0) return expm1_reduced<V>(x);
    const dd r = reduce_ln2<V>(x, k);
    const dd s = r.hi == 0.0 ? dd_of(0.0) : expm1_reduced<V>(r);
    dd power_minus_one;
    two_sum(ldexp(1.0, static_cast<int>(k)), -1.0, power_minus_one.hi, power_minus_one.lo);
    return add<V>(power_minus_one, ldexp_dd(s, static_cast<int>(k)));
}

// atanh_series: atanh(s) = s + s z / 3 + s z^2 / 5 + ... for |s| <= 0.1716 (z = s^2 <= 0.0295):
// 21 terms (terms 11..20 in float64, below u of the sum), truncation below 2^-110 relative.
template <class V>
DD_HD dd atanh_series(dd s) {
    using namespace elementary;
    const dd z = mul<V>(s, s);
    // 1/(2j+1) for j = 1..20: DD for j <= 10, float64 for the tail.
    constexpr dd inv_odd_dd[10] = {
        {0x1.5555555555555p-2, 0x1.5555555555555p-56},
        {0x1.999999999999ap-3, -0x1.999999999999ap-57},
        {0x1.2492492492492p-3, 0x1.2492492492492p-57},
        {0x1.c71c71c71c71cp-4, 0x1.c71c71c71c71cp-58},
        {0x1.745d1745d1746p-4, -0x1.745d1745d1746p-59},
        {0x1.3b13b13b13b14p-4, -0x1.3b13b13b13b14p-58},
        {0x1.1111111111111p-4, 0x1.1111111111111p-60},
        {0x1.e1e1e1e1e1e1ep-5, 0x1.e1e1e1e1e1e1ep-61},
        {0x1.af286bca1af28p-5, 0x1.af286bca1af28p-59},
        {0x1.8618618618618p-5, 0x1.8618618618618p-59}};
    constexpr double inv_odd_tail[10] = {0x1.642c8590b2164p-5, 0x1.47ae147ae147bp-5,
                                         0x1.2f684bda12f68p-5, 0x1.1a7b9611a7b96p-5,
                                         0x1.0842108421084p-5, 0x1.f07c1f07c1f08p-6,
                                         0x1.d41d41d41d41dp-6, 0x1.bacf914c1bad0p-6,
                                         0x1.a41a41a41a41ap-6, 0x1.8f9c18f9c18fap-6};
    double tail = inv_odd_tail[9];
    for (int j = 8; j >= 0; --j) tail = tail * z.hi + inv_odd_tail[j];
    dd p = dd_of(tail);
    for (int j = 9; j >= 0; --j) p = add<V>(inv_odd_dd[j], mul<V>(z, p));
    return add<V>(s, mul<V>(s, mul<V>(z, p)));
}

// log1p_reduced: log(1 + t) for |t| <= sqrt(2) - 1 as 2 atanh(t / (2 + t)) ([Gol]; fdlibm);
// no cancellation: t / (2 + t) has t's sign and about half its size.
template <class V>
DD_HD dd log1p_reduced(dd t) {
    if (t.hi == 0.0) return t;
    return scaled(atanh_series<V>(div_accurate<V>(t, add<V>(t, dd_of(2.0)))), 2.0);
}

// reduction_exponent: k with a * 2^-k in [sqrt(1/2), sqrt(2)) for a normal positive double a.
DD_HD int reduction_exponent(double a) {
    int e;
    const double m = 2.0 * frexp(a, &e);  // a = m 2^(e-1), m in [1, 2)
    return m >= elementary::SQRT2 ? e : e - 1;
}

// k_ln2_plus: k ln 2 + l for an integer |k| <= 1200 and |l| <= 0.35 (no cancellation for k != 0).
template <class V>
DD_HD dd k_ln2_plus(int k, dd l) {
    return k == 0 ? l : add<V>(mul_by_double<V>(elementary::LN2, k), l);
}

// log_positive: for finite x > 0: log(x) = k ln 2 + log1p(m - 1), x = 2^k m, m in [sqrt 1/2,
// sqrt 2); m - 1 is exact (Sterbenz, then two_sum). Subnormal x is scaled by 2^106 first.
template <class V>
DD_HD dd log_positive(dd x, int& k, dd& l) {
    int shift = 0;
    if (x.hi < 0x1p-969) {
        x = ldexp_dd(x, 106);
        shift = 106;
    }
    k = reduction_exponent(x.hi);
    const dd m = ldexp_dd(x, -k);
    dd t;
    two_sum(m.hi - 1.0, m.lo, t.hi, t.lo);
    k -= shift;
    l = log1p_reduced<V>(t);
    return k_ln2_plus<V>(k, l);
}

// log_special: float64's log for x <= 0, inf or nan ((r, true)); (_, false) for finite x > 0.
DD_HD bool log_special(dd x, dd& r) {
    if (isnan(x.hi) || x.hi < 0.0) r = dd_of(quiet_nan());
    else if (x.hi == 0.0) r = dd_of(-infinity());
    else if (!isfinite(x.hi)) r = dd_of(x.hi);
    else return false;
    return true;
}

// log: natural logarithm (docs/algorithms.md "Elementary functions").
template <class V>
DD_HD dd log(dd x) {
    dd r, l;
    int k;
    if (log_special(x, r)) return r;
    return log_positive<V>(x, k, l);
}

// log2: k + log1p(m - 1) / ln 2 with the same reduction as log (k exact).
template <class V>
DD_HD dd log2(dd x) {
    dd r, l;
    int k;
    if (log_special(x, r)) return r;
    log_positive<V>(x, k, l);
    const dd f = mul<V>(l, elementary::LOG2_E);
    return k == 0 ? f : add<V>(dd_of(k), f);
}

// log10: log(x) / ln 10 (one more DD product).
template <class V>
DD_HD dd log10(dd x) {
    dd r;
    if (log_special(x, r)) return r;
    return mul<V>(log<V>(x), elementary::LOG10_E);
}

// log1p: log(1 + x). |x| < 2^-110: x. 1 + x in [sqrt 1/2, sqrt 2): log1p_reduced(x) directly.
// x <= -1/2: log(1 + x) with 1 + x exact (Sterbenz, two_sum). Else x = 2^k m - 1 and
// log1p(x) = k ln 2 + log1p(x 2^-k + (2^-k - 1)), 2^-k - 1 exact as a DD.
template <class V>
DD_HD dd log1p(dd x) {
    using namespace elementary;
    if (isnan(x.hi) || fabs(x.hi) < LINEAR) return as_is(x);
    if (less_equal(x, dd_of(-1.0))) return dd_of(equal(x, dd_of(-1.0)) ? -infinity() : quiet_nan());
    if (!isfinite(x.hi)) return x;
    if (x.hi > 1.0 / SQRT2 - 1.0 && x.hi < SQRT2 - 1.0) return log1p_reduced<V>(x);
    if (x.hi <= -0.5) {
        dd y;
        two_sum(1.0 + x.hi, x.lo, y.hi, y.lo);
        return log<V>(y);
    }
    const int k = reduction_exponent(add<V>(dd_of(1.0), x).hi);
    dd c;
    two_sum(ldexp(1.0, -k), -1.0, c.hi, c.lo);
    return k_ln2_plus<V>(k, log1p_reduced<V>(add<V>(ldexp_dd(x, -k), c)));
}

// pow: x^y = e^(y log x) (C99 pow's special cases: pow(x, +-0) = 1, pow(1, y) = 1, pow(-1, +-inf)
// = 1, zeros and infinities by the parity of an integer y, nan for x < 0 and y not an integer).
// The error grows with |y log x|: the product's relative error becomes an absolute one in e^.
template <class V>
DD_HD dd pow(dd x, dd y) {
    using namespace elementary;
    if (y.hi == 0.0 || (x.hi == 1.0 && x.lo == 0.0)) return dd_of(1.0);
    if (isnan(x.hi) || isnan(y.hi)) return dd_of(x.hi + y.hi);
    const bool odd = is_odd_integer(y), negative_y = y.hi < 0.0;
    if (!isfinite(y.hi)) {
        const dd ax = abs(x);
        if (ax.hi == 1.0 && ax.lo == 0.0) return dd_of(1.0);
        return dd_of(less(ax, dd_of(1.0)) == negative_y ? infinity() : 0.0);
    }
    if (x.hi == 0.0 || !isfinite(x.hi)) {  // |x|^y is 0 or inf; the sign from odd y
        const bool zero = (x.hi == 0.0) != negative_y;
        return dd_of(copysign(zero ? 0.0 : infinity(), odd ? x.hi : 1.0));
    }
    if (x.hi < 0.0 && !is_integer(y)) return dd_of(quiet_nan());
    const dd r = exp<V>(mul<V>(y, log<V>(abs(x))));
    return x.hi < 0.0 && odd ? neg(r) : r;
}

// sinh: |x| < 2^-54: x; |x| <= 40: (E + E / (E + 1)) / 2 with E = expm1(|x|) (positive terms);
// beyond: e^|x| / 2 (e^-|x| < 2^-115 relative), computed as exp_scaled so it overflows where
// sinh does. Odd.
template <class V>
DD_HD dd sinh(dd x) {
    if (!isfinite(x.hi) || fabs(x.hi) < elementary::NEGLIGIBLE) return as_is(x);
    const dd a = abs(x);
    dd r;
    if (a.hi > 711.0) {
        r = dd_of(infinity());
    } else if (a.hi > 40.0) {
        r = exp_scaled<V>(a, -1);
    } else {
        const dd e = expm1<V>(a);
        r = scaled(add<V>(e, div_accurate<V>(e, add<V>(e, dd_of(1.0)))), 0.5);
    }
    return signbit(x.hi) ? neg(r) : r;
}

// cosh: (e^|x| + 1 / e^|x|) / 2 (positive terms) for |x| <= 40, e^|x| / 2 beyond.
template <class V>
DD_HD dd cosh(dd x) {
    if (!isfinite(x.hi)) return dd_of(fabs(x.hi));
    const dd a = abs(x);
    if (a.hi > 711.0) return dd_of(infinity());
    if (a.hi > 40.0) return exp_scaled<V>(a, -1);
    const dd e = exp<V>(a);
    return scaled(add<V>(e, div_accurate<V>(dd_of(1.0), e)), 0.5);
}

// tanh: E / (E + 2) with E = expm1(2|x|) (no cancellation); +-1 beyond |x| = 40
// (1 - tanh(40) < 2^-114); x below 2^-54. Odd.
template <class V>
DD_HD dd tanh(dd x) {
    if (isnan(x.hi) || fabs(x.hi) < elementary::NEGLIGIBLE) return as_is(x);
    const dd a = abs(x);
    dd r = dd_of(1.0);
    if (a.hi <= 40.0) {
        const dd e = expm1<V>(scaled(a, 2.0));
        r = div_accurate<V>(e, add<V>(e, dd_of(2.0)));
    }
    return signbit(x.hi) ? neg(r) : r;
}

// arcsinh: log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) (positive terms, [Gol]); beyond 2^60:
// log|x| + ln 2 (the dropped 1 / (4 x^2) is below 2^-120). Odd.
template <class V>
DD_HD dd arcsinh(dd x) {
    if (!isfinite(x.hi) || fabs(x.hi) < elementary::NEGLIGIBLE) return as_is(x);
    const dd a = abs(x);
    dd r;
    if (a.hi > 0x1p60) {
        r = add<V>(log<V>(a), elementary::LN2);
    } else {
        const dd a2 = mul<V>(a, a);
        const dd root = add<V>(dd_of(1.0), sqrt<V>(add<V>(dd_of(1.0), a2)));
        r = log1p<V>(add<V>(a, div_accurate<V>(a2, root)));
    }
    return signbit(x.hi) ? neg(r) : r;
}

// arccosh: for x >= 1, log1p(t + sqrt(t^2 + 2t)), t = x - 1 (exact below 2 by Sterbenz, positive
// terms); beyond 2^60: log x + ln 2. nan below 1.
template <class V>
DD_HD dd arccosh(dd x) {
    using namespace elementary;
    if (isnan(x.hi) || less(x, dd_of(1.0))) return dd_of(quiet_nan());
    if (!isfinite(x.hi)) return x;
    if (x.hi > 0x1p60) return add<V>(log<V>(x), LN2);
    const dd t = sub<V>(x, dd_of(1.0));
    return log1p<V>(add<V>(t, sqrt<V>(add<V>(mul<V>(t, t), scaled(t, 2.0)))));
}

// arctanh: the series for |x| <= 0.17, log1p(2|x| / (1 - |x|)) / 2 up to 1 (1 - |x| exact above
// 1/2 by Sterbenz), (log(1 + |x|) - log(1 - |x|)) / 2 where 1 - |x| < 2^-1000 (the quotient
// would overflow; no cancellation: log(1 - |x|) < -693); +-inf at +-1, nan beyond; x below
// 2^-54. Odd.
template <class V>
DD_HD dd arctanh(dd x) {
    using namespace elementary;
    if (isnan(x.hi) || fabs(x.hi) < NEGLIGIBLE) return as_is(x);
    const dd a = abs(x), one = dd_of(1.0);
    if (greater(a, one)) return dd_of(quiet_nan());
    if (a.hi <= 0.17) return atanh_series<V>(x);
    const dd gap = sub<V>(one, a);  // exact above 1/2 (Sterbenz)
    dd r;
    if (equal(a, one))
        r = dd_of(infinity());
    else if (gap.hi < 0x1p-1000)  // 2|x| / (1 - |x|) overflows: log(1 + |x|) - log(1 - |x|)
        r = scaled(sub<V>(log<V>(add<V>(one, a)), log<V>(gap)), 0.5);
    else
        r = scaled(log1p<V>(div_accurate<V>(scaled(a, 2.0), gap)), 0.5);
    return signbit(x.hi) ? neg(r) : r;
}

// minus_multiple: a - q b for an integer double q (|q| < 2^53), finite a, b: the six exact parts
// a.hi, a.lo, -(q b.hi) and -(q b.lo) (two_prod's pairs; exact with FMA, and without FMA where no
// part underflows) summed by a two_sum cascade and rounded once to a DD. Exact whenever the exact
// result is a DD whose lo part the cascade's last fast_two_sum keeps (measured, not proven).
template <class V>
DD_HD dd minus_multiple(dd a, double q, dd b) {
    double p1, e1, p2, e2, s, t1, t2, t3, t4, t5;
    two_prod<V::fma>(q, b.hi, p1, e1);
    two_prod<V::fma>(q, b.lo, p2, e2);
    two_sum(a.hi, -p1, s, t1);
    two_sum(s, a.lo, s, t2);
    two_sum(s, -p2, s, t3);
    two_sum(s, -e1, s, t4);
    two_sum(s, -e2, s, t5);
    dd r;
    fast_two_sum(s, (((t1 + t2) + t3) + t4) + t5, r.hi, r.lo);
    return r;
}

// fmod: x - n y with n = trunc(x / y), C's fmod (the sign of x, |r| < |y|), by long division in
// base 2^52 on a = |x|, b = |y| (no x - y trunc(x / y), which loses everything for quotients past
// 2^106 [QD]): while a >= b, take bs = b 2^k with k >= 0 the largest that keeps a / bs < 2^53
// (exact scaling), q = trunc(a.hi / bs.hi) (2 less for a >= 2^1023, so that q bs does not
// overflow) and a = a - q bs (minus_multiple), then add or subtract bs until 0 <= a < bs; each
// pass removes 52 bits of the quotient (<= 41 passes over the whole range; the loops are bounded). Every pass computes a mod bs, whose bits lie between the lowest bit of x or of b 2^k and
// the top of bs: for float64 x and y (and DDs with no gap between their parts) it is a DD and the
// result is exact; otherwise each pass rounds once (measured bound in docs/algorithms.md).
// Special values as float64: fmod(x, 0), fmod(+-inf, y) and nan in give nan; fmod(x, +-inf) = x;
// a zero result has the sign of x.
template <class V>
DD_HD dd fmod(dd x, dd y) {
    if (!isfinite(x.hi) || isnan(y.hi) || y.hi == 0.0) return dd_of(quiet_nan());
    if (!isfinite(y.hi) || x.hi == 0.0) return x;  // y = +-inf here
    dd a = abs(x);
    const dd b = abs(y);
    int eb;
    frexp(b.hi, &eb);
    for (int pass = 0; pass < elementary::FMOD_PASSES && !less(a, b); ++pass) {
        int ea;
        frexp(a.hi, &ea);
        const int k = ea - eb > 52 ? ea - eb - 52 : 0;
        const dd bs = {ldexp(b.hi, k), ldexp(b.lo, k)};  // exact: no overflow since bs <= a
        double q = trunc(a.hi / bs.hi);  // within 2 of a / bs
        // q bs.hi may round past DBL_MAX when a.hi >= 2^1023: q - 2 keeps it below a.hi
        if (ea > 1023) q = q > 2.0 ? q - 2.0 : 0.0;
        a = minus_multiple<V>(a, q, bs);
        for (int fix = 0; fix < elementary::FMOD_FIXES && a.hi < 0.0; ++fix)
            a = minus_multiple<V>(a, -1.0, bs);
        for (int fix = 0; fix < elementary::FMOD_FIXES && !less(a, bs); ++fix)
            a = minus_multiple<V>(a, 1.0, bs);
    }
    if (a.hi == 0.0) return dd_of(copysign(0.0, x.hi));
    return signbit(x.hi) ? neg(a) : a;
}

}  // namespace ddblas
