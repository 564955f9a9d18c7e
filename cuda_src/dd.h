// dd.h: double-double (DD) arithmetic on normalized pairs (hi, lo). u = 2^-53.
// Bounds are relative errors |computed - exact| / |exact| for finite inputs and results with no
// underflow. Sources (besides those of eft.h):
//   [JMP17] M. Joldes, J.-M. Muller, V. Popescu, "Tight and rigorous error bounds for basic
//           building blocks of double-word arithmetic", ACM TOMS 44(2), 2017.
//   [MR22]  J.-M. Muller, L. Rideau, "Formalization of double-word arithmetic, and comments on
//           [JMP17]", ACM TOMS 48(1), 2022 (corrected, formally checked proofs of the products).
//   docs/algorithms.md derives the bounds that [JMP17] does not state (sloppy add, sqrt).
//
// Special values follow float64: when an input is inf/nan, or the result overflows, the result is
// (f, 0) where f is what float64 gives on the hi parts (or +-inf on overflow), so the lo part
// never turns an inf into a nan; a zero result carries float64's sign (-0 + -0 = -0, -0 * 1 = -0).
// Range (docs/algorithms.md, "Representable range"): the largest normalized DD is
// OMEGA = DBL_MAX + (2^970 - 2^917) = 2^1024 - 2^970 - 2^917. add, sub, mul, div and sqrt meet their
// bounds up to it: where an intermediate overflows although the inputs are finite (a rarely taken
// branch, after the algorithm), add, sub, mul and div recompute at half scale and double the
// result (sqrt never overflows); a result past OMEGA (within its bound of OMEGA or beyond) is +-inf
// with float64's sign.
#pragma once
#include "eft.h"

namespace ddblas {

// float64_special_cases: r is the DD algorithm's output, naive the float64 operation on the hi
// parts. A finite nonzero r passes unchanged (the usual case); a zero takes naive's sign (also
// where naive is a nonzero subnormal that the DD algorithm rounded to zero, as 5e-324 / -1.5:
// -0, not +0); an inf stays (overflow); a nan that the algorithm made from inf inputs (e.g.
// inf - inf inside two_sum) becomes float64's answer.
DD_HD dd float64_special_cases(dd r, double naive) {
    if (isfinite(r.hi) && r.hi != 0.0) return r;
    dd out = {r.hi, 0.0};
    if (isnan(r.hi)) out.hi = naive;
    else if (r.hi == 0.0) out.hi = copysign(0.0, naive);
    return out;
}

// normalized: the pair (hi, lo) as DDArray(normalize=True) stores it, `changed` where that is
// not the pair given, which otherwise stays bit for bit (a -0 in lo, a NaN's payload): a pair
// with a non-finite part as `loaded` reads it; a finite one as two_sum(hi, lo), kept where that
// equals it (hi == fl(hi + lo), lo the exact rest), its lo 0 where the sum overflows. Exact:
// the result's hi + lo is hi + lo (but for the overflow, and two_sum's one exception, eft.h).
DD_HD dd normalized(double hi, double lo, bool &changed) {
    dd r;
    if (!isfinite(hi) || !isfinite(lo)) {
        r = loaded(hi, lo);
        const auto same = [](double x, double y) { return x == y || (isnan(x) && isnan(y)); };
        changed = !(same(r.hi, hi) && same(r.lo, lo));
    } else {
        two_sum(hi, lo, r.hi, r.lo);
        changed = !(r.hi == hi && r.lo == lo);
        if (!isfinite(r.hi)) r.lo = 0.0;   // the sum overflowed (finite parts: no nan)
    }
    return changed ? r : dd{hi, lo};
}

// scaled: (a.hi * factor, a.lo * factor) for a power of two factor. Exact unless a part overflows
// or a lo part is subnormal after scaling down (then it loses at most its last bit, 2^-1075).
// Scaling a normalized DD up keeps it normalized, or makes hi +-inf (float64_special_cases then
// drops lo): the way results computed at a reduced scale come back.
DD_HD dd scaled(dd a, double factor) {
    dd r = {a.hi * factor, a.lo * factor};
    return r;
}

// clamped: e limited to [-limit, limit].
DD_HD index_t clamped(index_t e, index_t limit) {
    return e > limit ? limit : (e < -limit ? -limit : e);
}

// ldexp_dd: a * 2^k, each part rounded once (exact unless the result is below 2^-969, where
// each part loses at most 2^-1075 and the pair is renormalized, or overflows: then (+-inf, 0)).
// Two steps, since 2^k itself may not be a double; k beyond +-2100, where every finite a gives
// inf or 0 already, is clamped.
DD_HD dd ldexp_dd(dd a, index_t k) {
    const int steps = int(clamped(k, 2100)), half = steps / 2;
    dd r = {ldexp(ldexp(a.hi, half), steps - half), ldexp(ldexp(a.lo, half), steps - half)};
    if (!isfinite(r.hi)) r.lo = 0.0;
    else if (r.hi != 0.0 && fabs(r.hi) < 0x1p-969)  // parts rounded apart; a zero keeps its sign
        fast_two_sum(r.hi, r.lo, r.hi, r.lo);
    return r;
}

// mantissa_exponent: a = m 2^e with |m.hi| in [0.5, 1), exact (ldexp_dd: a subnormal hi, whose
// 2^-e is not a double, works too); a zero, inf or nan a comes back as it is with e = 0.
DD_HD dd mantissa_exponent(dd a, index_t &e) {
    if (a.hi == 0.0 || !isfinite(a.hi)) {
        e = 0;
        return a;
    }
    int exponent = 0;
    frexp(a.hi, &exponent);
    e = exponent;
    return ldexp_dd(a, -e);
}

// DD_COLD: the recomputations at half scale below, taken only where an intermediate overflowed,
// stay out of line, so the registers of the kernels around add, mul and div (the GEMM epilogue
// among them) are those of the common path.
#if defined(__CUDACC__)
#define DD_COLD __host__ __device__ __noinline__
#else
#define DD_COLD __attribute__((noinline, cold))
#endif

// overflowed: whether r, a DD algorithm's output on inputs with finite hi parts x and y, is not
// finite: an intermediate overflowed (a result beyond the range, or a spurious overflow near it).
DD_HD bool overflowed(dd r, double x, double y) {
    return !isfinite(r.hi) && isfinite(x) && isfinite(y);
}

// add_sloppy: a + b, QD's sloppy_add = [JMP17] Alg. 5 (SloppyDWPlusDW), 11 flops.
// Bound: |err| <= (3 + u)/(1 - u) * u^2 * (|a| + |b|) (docs/algorithms.md); no relative bound
// when a and b have opposite signs and cancel.
DD_HD dd add_sloppy(dd a, dd b) {
    double s, e;
    two_sum(a.hi, b.hi, s, e);
    e += a.lo + b.lo;
    dd r;
    fast_two_sum(s, e, r.hi, r.lo);
    return r;
}

// add_accurate: a + b, QD's ieee_add = [JMP17] Alg. 6 (AccurateDWPlusDW), 20 flops.
// Bound: 3u^2 / (1 - 4u) relative [JMP17].
DD_HD dd add_accurate(dd a, dd b) {
    double sh, sl, th, tl;
    two_sum(a.hi, b.hi, sh, sl);
    two_sum(a.lo, b.lo, th, tl);
    double c = sl + th;
    double vh, vl;
    fast_two_sum(sh, c, vh, vl);
    double w = tl + vl;
    dd r;
    fast_two_sum(vh, w, r.hi, r.lo);
    return r;
}

// add_finite: the variant's DD addition algorithm, for finite inputs and result (no checks).
template <class V>
DD_HD dd add_finite(dd a, dd b) {
    return V::accurate ? add_accurate(a, b) : add_sloppy(a, b);
}

// add: the variant's DD addition with float64's special values, over the whole range: where an
// intermediate overflows (fl(a.hi + b.hi) or the final sum past DBL_MAX, or two_sum's spurious
// overflow at b.hi = +-DBL_MAX, eft.h) it adds a/2 and b/2 and doubles the result.
template <class V>
DD_COLD dd add_at_half_scale(dd a, dd b) {
    return scaled(add_finite<V>(scaled(a, 0.5), scaled(b, 0.5)), 2.0);
}
template <class V>
DD_HD dd add(dd a, dd b) {
    dd r = add_finite<V>(a, b);
    if (overflowed(r, a.hi, b.hi)) r = add_at_half_scale<V>(a, b);
    return float64_special_cases(r, a.hi + b.hi);
}

// neg: -a, exact.
DD_HD dd neg(dd a) {
    dd r = {-a.hi, -a.lo};
    return r;
}

// sub: a - b = add(a, -b), with add's bound.
template <class V>
DD_HD dd sub(dd a, dd b) {
    return add<V>(a, neg(b));
}

// mul (no FMA): a * b, QD's operator* = [JMP17] Alg. 10 (DWTimesDW1) with Dekker's exact
// two_prod, ~30 flops. Bound: (8 + 6u + 2u^2)/(1 - u)^2 * u^2 relative (docs/algorithms.md;
// [JMP17]/[MR22] prove tighter constants). GUARDED = false drops two_prod_dekker's overflow
// guards (a branch per product that made register-blocked GEMM kernels spill): then valid for
// |a.hi|, |b.hi| <= 2^996 and |a.hi * b.hi| <= 2^1000 (outside: inf or nan, never a finite
// wrong value).
template <bool GUARDED = true>
DD_HD dd mul_dekker(dd a, dd b) {
    double p, e;
    if (GUARDED) {
        two_prod_dekker(a.hi, b.hi, p, e);
    } else {
        p = a.hi * b.hi;
        e = dekker_product_error(a.hi, b.hi, p);
    }
    e += a.hi * b.lo + a.lo * b.hi;
    dd r;
    fast_two_sum(p, e, r.hi, r.lo);
    return r;
}

// mul (FMA): a * b, [JMP17] Alg. 12 (DWTimesDW3), 9 flops of which 3 fma.
// Bound: 5u^2 relative [JMP17]; [MR22] improve it to 4u^2.
DD_HD dd mul_fma(dd a, dd b) {
    double p, e;
    two_prod_fma(a.hi, b.hi, p, e);
    double t = a.lo * b.lo;
    t = fma(a.hi, b.lo, t);
    t = fma(a.lo, b.hi, t);
    e += t;
    dd r;
    fast_two_sum(p, e, r.hi, r.lo);
    return r;
}

// mul_finite: the variant's DD multiplication algorithm, for finite inputs and result.
template <class V>
DD_HD dd mul_finite(dd a, dd b) {
    return V::fma ? mul_fma(a, b) : mul_dekker<true>(a, b);
}

// mul: the variant's DD multiplication with float64's special values, over the whole range: where
// an intermediate overflows (fl(a.hi * b.hi) past DBL_MAX) it multiplies a/2 by b and doubles the
// result.
template <class V>
DD_COLD dd mul_at_half_scale(dd a, dd b) {
    return scaled(mul_finite<V>(scaled(a, 0.5), b), 2.0);
}
template <class V>
DD_HD dd mul(dd a, dd b) {
    dd r = mul_finite<V>(a, b);
    if (overflowed(r, a.hi, b.hi)) r = mul_at_half_scale<V>(a, b);
    return float64_special_cases(r, a.hi * b.hi);
}

// madd_sloppy: acc + a * b as one fused DD multiply-add (docs/algorithms.md, "Fused sloppy
// multiply-add"): the exact product a.hi*b.hi = p + e, its tail e + a.hi*b.lo + a.lo*b.hi (a.lo*b.lo
// dropped) added to acc.lo, then QD's sloppy_add of (acc.hi, p) with that tail and one final
// Fast2Sum. 15 flops with FMA (mul_fma + add_sloppy: 20); no FMA: the same with Dekker's product.
// Bound: |err| <= c_acc |acc| + c_prod |a b| with c_acc = (3+u)/(1-u) u^2 (= add_sloppy's) and
// c_prod = (13+16u+9u^2+2u^3)/(1-u)^2 u^2 (FMA) or (15+23u+18u^2+7u^3+u^4)/(1-u)^2 u^2 (no FMA).
// Unguarded like mul_dekker<false>: without FMA, entries up to 2^996 and products up to 2^1000.
template <bool FMA>
DD_HD dd madd_sloppy(dd acc, dd a, dd b) {
    double p, e;
    if (FMA) {
        two_prod_fma(a.hi, b.hi, p, e);
    } else {
        p = a.hi * b.hi;
        e = dekker_product_error(a.hi, b.hi, p);
    }
    const double tail = FMA ? fma(a.lo, b.hi, fma(a.hi, b.lo, e)) : (e + a.hi * b.lo) + a.lo * b.hi;
    const double q = acc.lo + tail;
    double s, f;
    two_sum(acc.hi, p, s, f);
    dd r;
    fast_two_sum(s, f + q, r.hi, r.lo);
    return r;
}

// mul_unguarded: the variant's DD product as GEMM inner loops use it: mul_fma, or
// mul_dekker<false> (no overflow guards: entries up to 2^996, products up to 2^1000).
template <class V>
DD_HD dd mul_unguarded(dd a, dd b) {
    return V::fma ? mul_fma(a, b) : mul_dekker<false>(a, b);
}

// madd: acc + a * b, the inner step of every GEMM, without special-value checks. Accurate
// variants: the variant's DD product then add_accurate, error <= c_mul |a b| + c_add (|acc| +
// |a b|)(1 + c_mul); sloppy variants: the fused madd_sloppy. Without FMA the product is
// unguarded (mul_unguarded, madd_sloppy<false>): entries up to 2^996, products up to 2^1000.
template <class V>
DD_HD dd madd(dd acc, dd a, dd b) {
    if (!V::accurate) return madd_sloppy<V::fma>(acc, a, b);
    return add_accurate(acc, mul_unguarded<V>(a, b));
}

// mul_by_double: y * t for a DD y and a double t, [JMP17] Alg. 7 (DWTimesFP1).
// Bound: 1.5u^2 + 4u^3 relative [JMP17]. Finite inputs; used inside div.
template <class V>
DD_HD dd mul_by_double(dd y, double t) {
    double ch, cl1;
    two_prod<V::fma>(y.hi, t, ch, cl1);
    double cl2 = y.lo * t;
    double th, tl1;
    fast_two_sum(ch, cl2, th, tl1);
    double tl2 = tl1 + cl1;
    dd r;
    fast_two_sum(th, tl2, r.hi, r.lo);
    return r;
}

// div_finite: a / b, [JMP17] Alg. 17 (DWDivDW2), for finite inputs and result (no checks).
// Bound: 15u^2 + 56u^3 relative [JMP17]. Both two_prod paths give the same result (two_prod is
// exact); the add variant is not used.
template <class V>
DD_HD dd div_finite(dd a, dd b) {
    double th = a.hi / b.hi;
    dd r = mul_by_double<V>(b, th);
    double pih, pil;
    two_sum(a.hi, -r.hi, pih, pil);
    double dh = pil - r.lo;
    double dl = dh + a.lo;
    double d = pih + dl;
    double tl = d / b.hi;
    dd q;
    fast_two_sum(th, tl, q.hi, q.lo);
    return q;
}

// div: a / b with float64's special values, over the whole range: where an intermediate
// overflows (fl(a.hi / b.hi), or fl(b.hi * th) near a.hi = +-DBL_MAX) it divides a/2 by b and
// doubles the result. Division by zero is float64's (no retry).
template <class V>
DD_COLD dd div_at_half_scale(dd a, dd b) {
    return scaled(div_finite<V>(scaled(a, 0.5), b), 2.0);
}
template <class V>
DD_HD dd div(dd a, dd b) {
    dd q = div_finite<V>(a, b);
    if (overflowed(q, a.hi, b.hi) && b.hi != 0.0) q = div_at_half_scale<V>(a, b);
    return float64_special_cases(q, a.hi / b.hi);
}

// div_accurate: a / b for finite a, b (b != 0, no overflow or underflow), the quotient in three
// float64 digits as [QD]'s accurate_div: q1 = a.hi / b.hi; the remainder a - q1 b summed exactly
// from two_prod's parts (a.hi - q1 b.hi is exact by Sterbenz) and kept as a DD to ~u^2 of itself;
// q2 = r.hi / b.hi; the second remainder to ~u of itself; q3; then (q1, q2, q3) renormalized.
// Not proven; div above (DWDivDW2, proven 15u^2) measured 6.3u^2 on log1p's quotients t/(2+t),
// and with this one log's measured worst fell from 5.3u^2 to 2.0u^2. The same bits for both
// variants (every two_prod is exact). 3 divisions and ~40 flops. Used by elementary.h and
// trigonometric.h (tan).
template <class V>
DD_HD dd div_accurate(dd a, dd b) {
    const double q1 = a.hi / b.hi;
    double p, e, f, g;
    two_prod<V::fma>(q1, b.hi, p, e);
    two_prod<V::fma>(q1, b.lo, f, g);
    double s1, c1, s2, c2, s3, c3;
    two_sum(a.hi - p, -e, s1, c1);
    two_sum(s1, a.lo, s2, c2);
    two_sum(s2, -f, s3, c3);
    dd r;
    fast_two_sum(s3, ((c1 + c2) + c3) - g, r.hi, r.lo);
    const double q2 = r.hi / b.hi;
    two_prod<V::fma>(q2, b.hi, p, e);
    const double r2 = (((r.hi - p) - e) + r.lo) - q2 * b.lo;
    const double q3 = r2 / b.hi;
    dd q;
    fast_two_sum(q1, q2, q.hi, q.lo);
    fast_two_sum(q.hi, q.lo + q3, q.hi, q.lo);
    return q;
}

// sqrt: sqrt(a) for a >= 0: one Newton-like correction of s = fl(sqrt(a.hi)) by
// (a - s^2) / (2s), with a.hi - s^2 computed exactly-rounded (by fma, or by Dekker's product
// and Sterbenz's lemma: both give fl(a.hi - s^2), so both variants agree bit for bit).
// Bound: (41/8)u^2 + O(u^3) <= 6u^2 relative (docs/algorithms.md). Negative a gives nan;
// sqrt(+-0) = +-0 exactly, as IEEE 754 says (taken before the division by 2s). No intermediate
// overflows: s <= 2^512 - 2^459, so s^2 < DBL_MAX (docs/algorithms.md, "Representable range").
// Below 2^-920 a is scaled by 2^212 and the root by 2^-106 (both exact), so that a - s^2 stays
// out of the subnormals: the bound then holds down to the smallest subnormal (sqrt(1e-310) had
// been 9e-17 from exact).
template <class V>
DD_HD dd sqrt(dd a) {
    if (a.hi == 0.0) {
        dd zero = {a.hi, 0.0};
        return zero;
    }
    const bool tiny = a.hi > 0.0 && a.hi < 0x1p-920;
    if (tiny) {
        a.hi *= 0x1p212;
        a.lo *= 0x1p212;
    }
    double s = ::sqrt(a.hi);
    double r1;
    if (V::fma) {
        r1 = fma(-s, s, a.hi);
    } else {
        double p, e;
        two_prod_dekker(s, s, p, e);
        r1 = (a.hi - p) - e;
    }
    double r2 = a.lo + r1;
    double sl = r2 / (2.0 * s);
    dd r;
    fast_two_sum(s, sl, r.hi, r.lo);
    if (tiny) {
        r.hi *= 0x1p-106;
        r.lo *= 0x1p-106;
    }
    return float64_special_cases(r, s);
}

// abs: |a|, exact (the sign of a DD is the sign of its hi part).
DD_HD dd abs(dd a) {
    return signbit(a.hi) ? neg(a) : a;
}

// Comparisons of normalized DD values, exact; any nan compares false (and != true).
DD_HD bool equal(dd a, dd b) { return a.hi == b.hi && a.lo == b.lo; }
DD_HD bool not_equal(dd a, dd b) { return !equal(a, b); }
DD_HD bool less(dd a, dd b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
DD_HD bool less_equal(dd a, dd b) { return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo); }
DD_HD bool greater(dd a, dd b) { return less(b, a); }
DD_HD bool greater_equal(dd a, dd b) { return less_equal(b, a); }

}  // namespace ddblas
