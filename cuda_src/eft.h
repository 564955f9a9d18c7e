// eft.h: error-free transformations of float64 numbers (round-to-nearest, no overflow).
// u = 2^-53 is the unit roundoff. Sources:
//   [Knu]  D. E. Knuth, TAOCP vol. 2, 3rd ed., 1998, Sec. 4.2.2, Theorem B (TwoSum).
//   [Dek]  T. J. Dekker, "A floating-point technique for extending the available precision",
//          Numer. Math. 18, 1971: Fast2Sum (Sec. 4) and mul12 (Sec. 5, with Veltkamp's split).
//   [QD]   Y. Hida, X. S. Li, D. H. Bailey, "Library for double-double and quad-double
//          arithmetic", 2007 (the split's scaling above 2^996).
//   [Bol]  S. Boldo, "Pitfalls of a full floating-point proof", IJCAR 2006 (split is exact even
//          with underflow).
//   [HFPA] J.-M. Muller et al., Handbook of Floating-Point Arithmetic, 2nd ed., 2018, Sec. 4.3-4.4.
#pragma once
#include "dd_config.h"

namespace ddblas {

// two_sum: s + e == a + b exactly, s = fl(a + b). Any finite a, b whose sum does not overflow,
// except b = +-DBL_MAX and a of the other sign an odd multiple of 2^970 with |a + b| >= 2^1023 (a
// tie rounded up in magnitude): then s - a overflows and e is nan although s is finite
// (docs/algorithms.md; the DD add recomputes that case scaled).
// [Knu] Thm B; 6 flops; exact also for subnormal inputs [HFPA Thm 4.4].
DD_HD void two_sum(double a, double b, double& s, double& e) {
    s = a + b;
    double bb = s - a;
    e = (a - (s - bb)) + (b - bb);
}

// fast_two_sum: s + e == a + b exactly, s = fl(a + b), if a == 0 or exponent(a) >= exponent(b)
// (implied by |a| >= |b|). [Dek] Sec. 4 (Fast2Sum); 3 flops.
DD_HD void fast_two_sum(double a, double b, double& s, double& e) {
    s = a + b;
    e = b - (s - a);
}

// veltkamp_split: hi + lo == a exactly, each in 26 bits, for |a| <= 2^996 (splitter * a must not
// overflow). [Dek] Sec. 5 with C = 2^27 + 1; exact under underflow too [Bol]. 4 flops.
DD_HD void veltkamp_split(double a, double& hi, double& lo) {
    const double splitter = 134217729.0;  // 2^27 + 1
    double t = splitter * a;
    hi = t - (t - a);
    lo = a - hi;
}

// split: hi + lo == a exactly, hi and lo each fit in 26 bits, for any finite a: above 2^996 the
// input is scaled by 2^-28 around veltkamp_split, as in [QD]. For |a| > 2^1024 - 2^997 the nearest
// 26-bit hi would be 2^1024 (overflow), so hi is the next 26-bit value below and lo takes 27 bits;
// a product of such an |a| with a factor of another 27-bit lo overflows anyway.
DD_HD void split(double a, double& hi, double& lo) {
    if (fabs(a) > 0x1p996) {
        veltkamp_split(a * 0x1p-28, hi, lo);  // the scaling is exact
        if (fabs(hi) == 0x1p996) {            // hi * 2^28 would overflow: one 26-bit ulp down
            double step = copysign(0x1p970, hi);
            hi -= step;
            lo += step;
        }
        hi *= 0x1p28;
        lo *= 0x1p28;
    } else {
        veltkamp_split(a, hi, lo);
    }
}

// dekker_product_error: the exact error e = a*b - p of p = fl(a*b) from the two splits, for
// |a|, |b| <= 2^996, |a*b| <= 2^1000 and no underflow. [Dek] Sec. 5 (mul12), 17 flops with the
// splits; the branch-free core of two_prod_dekker, used as is in GEMM inner loops.
DD_HD double dekker_product_error(double a, double b, double p) {
    double ah, al, bh, bl;
    veltkamp_split(a, ah, al);
    veltkamp_split(b, bh, bl);
    return (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
}

// two_prod_dekker: p + e == a * b exactly, p = fl(a * b), without any FMA instruction.
// Needs |a*b| >= 2^-968 or a*b == 0 (no underflow in e) and p finite. [Dek] Sec. 5 (mul12).
// Products above 2^1000 are computed with the larger factor scaled by 2^-53, and factors above
// 2^996 are split with scaling, so no partial product overflows when p itself does not.
DD_HD void two_prod_dekker(double a, double b, double& p, double& e) {
    p = a * b;
    if (fabs(p) > 0x1p1000 || fabs(a) > 0x1p996 || fabs(b) > 0x1p996) {
        double sa = a, sb = b, unscale = 1.0;
        if (fabs(p) > 0x1p1000) {
            if (fabs(a) >= fabs(b)) sa = a * 0x1p-53;  // exact: |a| > 2^500
            else sb = b * 0x1p-53;
            unscale = 0x1p53;
        }
        double ah, al, bh, bl;
        split(sa, ah, al);
        split(sb, bh, bl);
        e = ((((ah * bh - sa * sb) + ah * bl) + al * bh) + al * bl) * unscale;
    } else {
        e = dekker_product_error(a, b, p);
    }
}

// two_prod_fma: p + e == a * b exactly, p = fl(a * b). Same preconditions as two_prod_dekker.
// [HFPA] Alg. 4.8 (2MultFMA); 2 flops.
DD_HD void two_prod_fma(double a, double b, double& p, double& e) {
    p = a * b;
    e = fma(a, b, -p);
}

// two_prod: the variant's product (FMA or Dekker); both give the same exact (p, e).
template <bool FMA>
DD_HD void two_prod(double a, double b, double& p, double& e) {
    if (FMA) two_prod_fma(a, b, p, e);
    else two_prod_dekker(a, b, p, e);
}

}  // namespace ddblas
