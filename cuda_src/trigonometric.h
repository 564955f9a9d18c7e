// trigonometric.h: sin, cos, tan, their inverses, atan2 and hypot of normalized DD values, each
// templated on the variant V (the DD mul/add/div/sqrt it uses). u = 2^-53; errors are relative.
// Algorithms (our own code after):
//   [QD]   Y. Hida, X. S. Li, D. H. Bailey, "Library for double-double and quad-double
//          arithmetic", 2007: dd_real sin/cos (reduction modulo pi/16 with a table of
//          sin(j pi/16), cos(j pi/16) and Taylor series on |r| <= pi/32).
//   [CW80] W. J. Cody, W. Waite, "Software Manual for the Elementary Functions", 1980: reduction
//          x - k c with c split into several words (here pi/16 in 5 doubles, ~280 bits), used
//          for |x| <= 2^90.
//   [PH83] M. Payne, R. Hanek, "Radian reduction for trigonometric functions", SIGNUM Newsl.
//          18(1), 1983: x 16/pi mod 32 from the bits of 16/pi that matter, beyond 2^90, and
//          with twice the bits wherever x lies within 2^-70 pi/16 of a multiple of pi/16.
//   [ORO05] T. Ogita, S. M. Rump, S. Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput.
//          26(6), 2005: VecSum (Alg. 4.3) and SumK (Alg. 4.8), used to sum the reduction's
//          exact terms with cancellation.
//   [Mul16] J.-M. Muller, "Elementary Functions", 3rd ed., 2016, Ch. 6 (table + series for
//          arctan: atan(t) = atan(c) + atan((t - c) / (1 + t c))) and Ch. 11 (reduction).
// Measured bounds (docs/algorithms.md, "Trigonometric functions"; ddblas/core/bounds.py) hold for
// finite inputs without underflow; special values follow float64 (C99 Annex F).
#pragma once
#include "dd.h"

#if !defined(__CUDACC__)
using std::fmax;
using std::fmod;
using std::ilogb;
using std::isinf;
using std::ldexp;
using std::rint;
#endif

namespace ddblas {
namespace trig {

// DD constants, each the DD nearest the real value (test_constants_are_the_nearest_dd checks the
// four angles; the tables below are checked through the accuracy tests).
constexpr dd PI = {0x1.921fb54442d18p+1, 0x1.1a62633145c07p-53};
constexpr dd HALF_PI = {0x1.921fb54442d18p+0, 0x1.1a62633145c07p-54};
constexpr dd QUARTER_PI = {0x1.921fb54442d18p-1, 0x1.1a62633145c07p-55};
constexpr dd THREE_QUARTER_PI = {0x1.2d97c7f3321d2p+1, 0x1.a79394c9e8a0ap-54};
constexpr dd SIXTEEN_OVER_PI = {0x1.45f306dc9c883p+2, -0x1.6b01ec5417056p-52};

// CODY_WAITE_LIMIT: |x| up to 2^90 is reduced with the 5 words of pi/16 (reduce_pi16_sum): there
// q = x 16/pi in DD errs by < 8u^2 |q| < 2^-10, so k = round(q) is within 2^-10 of x 16/pi and
// |r| <= (1/2 + 2^-10) pi/16; larger finite |x| by Payne-Hanek (reduce_payne_hanek).
constexpr double CODY_WAITE_LIMIT = 0x1p90;
constexpr int PI16_WORDS = 5;
constexpr int VECSUM_PASSES = 3;  // SumK with K = 4 [ORO05]: passes, then one DD summation
constexpr dd PI_OVER_16 = {0x1.921fb54442d18p-3, 0x1.1a62633145c07p-57};

// Payne-Hanek: 16/pi = sum_i g_i 2^(3 - 24 (i + 1)), g_i the 24-bit chunks below (1488 bits,
// enough for every double: chunks i0 .. i0 + PH_LONG_CHUNKS - 1 with i0 <= 40). PH_CHUNKS
// chunks leave out < 2^-183 of x 16/pi, PH_LONG_CHUNKS < 2^-447 (reduce_near_multiple).
constexpr int PH_CHUNKS = 11;
constexpr int PH_LONG_CHUNKS = 22;
constexpr int PH_TABLE_CHUNKS = 62;
// NEAR_MULTIPLE: a reduced f = x 16/pi - k below this (in units of pi/16) leaves the usual
// reductions' truncations (2^-183 absolute) above u^2 / 2^7 of it: reduce_near_multiple instead.
// NEAR_MULTIPLE_CW: the same for Cody-Waite's r, relative to |k| (words: |k| 2^-279 absolute).
constexpr double NEAR_MULTIPLE = 0x1p-70;
constexpr double NEAR_MULTIPLE_CW = 0x1p-140;
// VecSum passes of the long reduction: its terms' sum cancels by up to ~2^350 (|f| >= 2^-337
// with 2^-447 left out), each pass gains ~46 bits for its 89 terms [ORO05].
constexpr int PH_LONG_PASSES = 10;
DD_HD double sixteen_over_pi_chunk(int i) {
    static constexpr double CHUNKS[PH_TABLE_CHUNKS] = {
        0xa2f983, 0x6e4e44, 0x1529fc, 0x2757d1, 0xf534dd, 0xc0db62, 0x95993c, 0x439041,
        0xfe5163, 0xabdebb, 0xc561b7, 0x246e3a, 0x424dd2, 0xe00649, 0x2eea09, 0xd1921c,
        0xfe1deb, 0x1cb129, 0xa73ee8, 0x8235f5, 0x2ebb44, 0x84e99c, 0x7026b4, 0x5f7e41,
        0x3991d6, 0x398353, 0x39f49c, 0x845f8b, 0xbdf928, 0x3b1ff8, 0x97ffde, 0x05980f,
        0xef2f11, 0x8b5a0a, 0x6d1f6d, 0x367ecf, 0x27cb09, 0xb74f46, 0x3f669e, 0x5fea2d,
        0x7527ba, 0xc7ebe5, 0xf17b3d, 0x0739f7, 0x8a5292, 0xea6bfb, 0x5fb11f, 0x8d5d08,
        0x560330, 0x46fc7b, 0x6babf0, 0xcfbc20, 0x9af436, 0x1da9e3, 0x91615e, 0xe61b08,
        0x659985, 0x5f14a0, 0x68408d, 0xffd880, 0x4d7327, 0x310606,
    };
    return CHUNKS[i];
}

// pi16_word: word i of pi/16 = sum of the 5 words + O(2^-279), each the double nearest the rest.
DD_HD double pi16_word(int i) {
    static constexpr double WORDS[PI16_WORDS] = {0x1.921fb54442d18p-3, 0x1.1a62633145c07p-57,
                                                 -0x1.f1976b7ed8fbcp-113, 0x1.4cf98e804177dp-167,
                                                 0x1.31d89cd9128a5p-221};
    return WORDS[i];
}

// sin_j_pi16: sin(j pi / 16) for 0 <= j <= 8 (cos(j pi/16) = sin_j_pi16(8 - j)), DD nearest.
DD_HD dd sin_j_pi16(int j) {
    static constexpr dd TABLE[9] = {
        {0.0, 0.0},
        {0x1.8f8b83c69a60bp-3, -0x1.26d19b9ff8d82p-57},
        {0x1.87de2a6aea963p-2, -0x1.72cedd3d5a610p-57},
        {0x1.1c73b39ae68c8p-1, 0x1.b25dd267f6600p-55},
        {0x1.6a09e667f3bcdp-1, -0x1.bdd3413b26456p-55},
        {0x1.a9b66290ea1a3p-1, 0x1.9f630e8b6dac8p-60},
        {0x1.d906bcf328d46p-1, 0x1.457e610231ac2p-56},
        {0x1.f6297cff75cb0p-1, 0x1.562172a361fd3p-56},
        {1.0, 0.0}};
    return TABLE[j];
}

// atan_j32: atan(j / 32) for 0 <= j <= 32, DD nearest.
DD_HD dd atan_j32(int j) {
    static constexpr dd TABLE[33] = {
        {0.0, 0.0},
        {0x1.ffd55bba97625p-6, -0x1.5ec431444912cp-60},
        {0x1.ff55bb72cfdeap-5, -0x1.c934d86d23f1dp-60},
        {0x1.7ee182602f10fp-4, -0x1.cfb654c0c3d98p-58},
        {0x1.fd5ba9aac2f6ep-4, -0x1.cd37686760c17p-59},
        {0x1.3d6eee8c6626cp-3, 0x1.61a3b0ce9281bp-57},
        {0x1.7b97b4bce5b02p-3, 0x1.347b0b4f881cap-58},
        {0x1.b90d7529260a2p-3, 0x1.17b10d2e0e5abp-61},
        {0x1.f5b75f92c80ddp-3, 0x1.8ab6e3cf7afbdp-57},
        {0x1.18bf5a30bf178p-2, 0x1.30ca4748b1bf9p-57},
        {0x1.362773707ebccp-2, -0x1.963a544b672d8p-57},
        {0x1.530ad9951cd4ap-2, -0x1.2566480884082p-57},
        {0x1.6f61941e4def1p-2, -0x1.c63aae6f6e918p-56},
        {0x1.8b24d394a1b25p-2, 0x1.b6d0ba3748fa8p-56},
        {0x1.a64eec3cc23fdp-2, -0x1.24dec1b50b7ffp-56},
        {0x1.c0db4c94ec9f0p-2, -0x1.cc1ce70934c34p-56},
        {0x1.dac670561bb4fp-2, 0x1.a2b7f222f65e2p-56},
        {0x1.f40dd0b541418p-2, -0x1.a3992dc382a23p-57},
        {0x1.0657e94db30d0p-1, -0x1.d5b495f6349e6p-56},
        {0x1.1255d9bfbd2a9p-1, -0x1.2bdaee1c0ee35p-58},
        {0x1.1e00babdefeb4p-1, -0x1.928df287a668fp-58},
        {0x1.2958e59308e31p-1, -0x1.09e73b0c6c087p-56},
        {0x1.345f01cce37bbp-1, 0x1.1021137c71102p-55},
        {0x1.3f13fb89e96f4p-1, 0x1.ecf8b492644f0p-56},
        {0x1.4978fa3269ee1p-1, 0x1.2419a87f2a458p-56},
        {0x1.538f57b89061fp-1, -0x1.1bb74abda520cp-55},
        {0x1.5d58987169b18p-1, 0x1.0028e4bc5e7cap-57},
        {0x1.66d663923e087p-1, -0x1.6ea6febe8bbbap-56},
        {0x1.700a7c5784634p-1, -0x1.8c34d25aadef6p-56},
        {0x1.78f6bbd5d315ep-1, 0x1.406a089803740p-55},
        {0x1.819d0b7158a4dp-1, -0x1.bf76229d3b917p-56},
        {0x1.89ff5ff57f1f8p-1, -0x1.55b9a5e177a1bp-55},
        {0x1.921fb54442d18p-1, 0x1.1a62633145c07p-55}};
    return TABLE[j];
}

// Series coefficients, DD nearest: SIN_TAYLOR[i] = (-1)^(i+1) / (2i+3)!, COS_TAYLOR[i] =
// (-1)^(i+1) / (2i+2)!, ATAN_TAYLOR[i] = (-1)^(i+1) / (2i+3), i = 0..8.
constexpr int SERIES_TERMS = 9;
DD_HD dd sin_taylor(int i) {
    static constexpr dd C[SERIES_TERMS] = {
        {-0x1.5555555555555p-3, -0x1.5555555555555p-57}, {0x1.1111111111111p-7, 0x1.1111111111111p-63},
        {-0x1.a01a01a01a01ap-13, -0x1.a01a01a01a01ap-73}, {0x1.71de3a556c734p-19, -0x1.c154f8ddc6c00p-73},
        {-0x1.ae64567f544e4p-26, 0x1.c062e06d1f209p-80}, {0x1.6124613a86d09p-33, 0x1.f28e0cc748ebep-87},
        {-0x1.ae7f3e733b81fp-41, -0x1.1d8656b0ee8cbp-97}, {0x1.952c77030ad4ap-49, 0x1.ac981465ddc6cp-103},
        {-0x1.2f49b46814157p-57, -0x1.2650f61dbdcb4p-112}};
    return C[i];
}
DD_HD dd cos_taylor(int i) {
    static constexpr dd C[SERIES_TERMS] = {
        {-0x1.0000000000000p-1, 0.0}, {0x1.5555555555555p-5, 0x1.5555555555555p-59},
        {-0x1.6c16c16c16c17p-10, 0x1.f49f49f49f49fp-65}, {0x1.a01a01a01a01ap-16, 0x1.a01a01a01a01ap-76},
        {-0x1.27e4fb7789f5cp-22, -0x1.cbbc05b4fa99ap-76}, {0x1.1eed8eff8d898p-29, -0x1.2aec959e14c06p-83},
        {-0x1.93974a8c07c9dp-37, -0x1.05d6f8a2efd1fp-92}, {0x1.ae7f3e733b81fp-45, 0x1.1d8656b0ee8cbp-101},
        {-0x1.6827863b97d97p-53, -0x1.eec01221a8b0bp-107}};
    return C[i];
}
DD_HD dd atan_taylor(int i) {
    static constexpr dd C[SERIES_TERMS] = {
        {-0x1.5555555555555p-2, -0x1.5555555555555p-56}, {0x1.999999999999ap-3, -0x1.999999999999ap-57},
        {-0x1.2492492492492p-3, -0x1.2492492492492p-57}, {0x1.c71c71c71c71cp-4, 0x1.c71c71c71c71cp-58},
        {-0x1.745d1745d1746p-4, 0x1.745d1745d1746p-59}, {0x1.3b13b13b13b14p-4, -0x1.3b13b13b13b14p-58},
        {-0x1.1111111111111p-4, -0x1.1111111111111p-60}, {0x1.e1e1e1e1e1e1ep-5, 0x1.e1e1e1e1e1e1ep-61},
        {-0x1.af286bca1af28p-5, -0x1.af286bca1af28p-59}};
    return C[i];
}

enum class Series { sin, cos, atan };

template <Series S>
DD_HD dd coefficient(int i) {
    if constexpr (S == Series::sin) return sin_taylor(i);
    else if constexpr (S == Series::cos) return cos_taylor(i);
    else return atan_taylor(i);
}

// series: sum_i coefficient<S>(i) z^i for 0 <= z <= 2^-6.7 (sin, cos: z = r^2 <= (pi/32)^2; atan:
// z = delta^2 <= 2^-12). Terms i < DD_TERMS by Horner's rule in DD; the tail i >= DD_TERMS, below
// 2^-47 of the first term, in double (the hi parts of the coefficients, z.hi), whose rounding
// (< 2^-99 of the series) is far below what the callers need: they use z * series, at most 2^-6.7
// of their result, so 2^-98 relative suffices.
constexpr int DD_TERMS = 4;
template <class V, Series S>
DD_HD dd series(dd z) {
    double tail = coefficient<S>(SERIES_TERMS - 1).hi;
    for (int i = SERIES_TERMS - 2; i >= DD_TERMS; --i) tail = coefficient<S>(i).hi + z.hi * tail;
    dd acc = {tail, 0.0};
    for (int i = DD_TERMS - 1; i >= 0; --i) acc = add<V>(coefficient<S>(i), mul<V>(z, acc));
    return acc;
}

// not_a_number: (nan, 0); kernels store it canonically.
DD_HD dd not_a_number() {
    const double zero = 0.0;
    const dd r = {zero / zero, 0.0};
    return r;
}

// sincos_small: sin r and cos r - 1 for |r| <= pi/32 (slightly more is fine) by Taylor series
// [QD]: sin r = r + r z P(z), cos r - 1 = z Q(z), z = r^2, truncated after r^19/19! and r^18/18!
// (next terms < 2^-117 |r| and 2^-128). sin(+-0) = +-0. cos r - 1 rather than cos r keeps the
// table's angle-addition (sincos) free of the rounding of 1 + z Q(z).
template <class V>
DD_HD void sincos_small(dd r, dd& s, dd& c_minus_1) {
    const dd z = mul<V>(r, r);
    s = r.hi == 0.0 ? r : add<V>(r, mul<V>(r, mul<V>(z, series<V, Series::sin>(z))));
    c_minus_1 = mul<V>(z, series<V, Series::cos>(z));
}

// vecsum_to_dd: the sum of v[0..n) as a DD: `passes` error-free VecSum passes, then a DD summation
// (SumK with K = passes + 1 [ORO05]); v is overwritten. The GPU unrolls the short sums of the
// regular reductions (v in registers) and keeps the long Payne-Hanek sums as loops over local
// memory: unrolled, reduce_near_multiple's 89 terms took 236 registers in every sin, cos and tan
// kernel (125 before it), which halved their resident warps and their speed (H200).
template <int n>
DD_HD dd vecsum_to_dd(double* v, int passes) {
    constexpr int UNROLL = n < 32 ? n : 1;
#pragma unroll UNROLL
    for (int pass = 0; pass < passes; ++pass)
#pragma unroll UNROLL
        for (int i = 1; i < n; ++i) two_sum(v[i], v[i - 1], v[i], v[i - 1]);
    dd acc = {v[0], 0.0};
#pragma unroll UNROLL
    for (int i = 1; i < n; ++i) {
        const dd term = {v[i], 0.0};
        acc = add_accurate(acc, term);
    }
    return acc;
}

// reduce_pi16_sum: x - (kh + kl) pi/16 for integers kh, kl (doubles), |x| <= 2^90 [CW80]: the
// exact terms x.hi, x.lo, -(kh w_i), -(kl w_i) (two_prod, exact) for the words w_i of pi/16,
// then VECSUM_PASSES error-free VecSum passes and a DD sum of the result [ORO05, SumK]: the
// cancellation of x against k pi/16 is exact. SPLIT_K = false: kl is 0 and left out.
template <class V, bool SPLIT_K>
DD_HD dd reduce_pi16_sum(dd x, double kh, double kl) {
    constexpr int n = 2 + 2 * PI16_WORDS * (SPLIT_K ? 2 : 1);
    double v[n];
    v[0] = x.hi;
    v[1] = x.lo;
    for (int i = 0; i < PI16_WORDS; ++i) {
        two_prod<V::fma>(-kh, pi16_word(i), v[2 + 2 * i], v[3 + 2 * i]);
        if (SPLIT_K) two_prod<V::fma>(-kl, pi16_word(i), v[2 + 2 * PI16_WORDS + 2 * i],
                                      v[3 + 2 * PI16_WORDS + 2 * i]);
    }
    return vecsum_to_dd<n>(v, VECSUM_PASSES);
}

// payne_hanek_terms: 2 CHUNKS doubles whose sum is a * 16/pi modulo 32, exactly up to the
// chunks left out (< 2^-183 absolute for PH_CHUNKS, < 2^-447 for PH_LONG_CHUNKS), for a finite
// double a [PH83; Mul16, Ch. 11]: a = M 2^E (M an integer, |M| < 2^53), the chunks g_i with
// M g_i 2^(E + 3 - 24(i+1)) a multiple of 32 are skipped (i < i0), each kept product M g_i is
// exact as p + e (two_prod: 77 bits), scaled by its power of 2 (exact but for underflow, which
// only tiny a reach: absolute error < 2^-1000) and reduced modulo 32 by fmod (exact).
template <class V, int CHUNKS>
DD_HD void payne_hanek_terms(double a, double* v) {
    const int e = a == 0.0 ? 0 : ilogb(a) - 52;
    const double m = ldexp(a, -e);
    const int i0 = e - 2 > 0 ? (e - 2) / 24 : 0;
#pragma unroll 1  // cold (Payne-Hanek): a loop, not registers (vecsum_to_dd)
    for (int j = 0; j < CHUNKS; ++j) {
        const int i = i0 + j;
        double p, err;
        two_prod<V::fma>(m, sixteen_over_pi_chunk(i), p, err);
        const int scale = e + 3 - 24 * (i + 1);
        v[2 * j] = fmod(ldexp(p, scale), 32.0);
        v[2 * j + 1] = fmod(ldexp(err, scale), 32.0);
    }
}

// payne_hanek_fraction: f = x 16/pi - k for finite x, k = round(x 16/pi) from the plain sum of
// the Payne-Hanek terms of x.hi and x.lo (error < 2^-30) and k mod 32: the terms and -k summed
// by PASSES VecSum passes and a DD sum [ORO05] (the cancellation is exact), so f errs by the
// chunks left out (payne_hanek_terms) and the SumK rest.
template <class V, int CHUNKS, int PASSES>
DD_HD dd payne_hanek_fraction(dd x, int& k_mod_32) {
    constexpr int n = 4 * CHUNKS + 1;
    double v[n];
    payne_hanek_terms<V, CHUNKS>(x.hi, v);
    payne_hanek_terms<V, CHUNKS>(x.lo, v + 2 * CHUNKS);
    double approx = 0.0;
#pragma unroll 1
    for (int i = 0; i < n - 1; ++i) approx += v[i];
    const double k = rint(approx);
    v[n - 1] = -k;
    k_mod_32 = (((int)fmod(k, 32.0)) % 32 + 32) % 32;
    return vecsum_to_dd<n>(v, PASSES);
}

// reduce_near_multiple: r = x - k pi/16 and k mod 32 for a finite x within NEAR_MULTIPLE pi/16 of
// k pi/16 (a DD whose lo cancels hi's distance to it: |r| / |x| down to 2^-1137 was found), where
// the usual reductions' truncations would show: payne_hanek_fraction with PH_LONG_CHUNKS (f to
// 2^-447 absolute, so u^2 |f| for |f| >= 2^-337) and PH_LONG_PASSES, then r = f pi/16.
template <class V>
DD_COLD dd reduce_near_multiple(dd x, int& k_mod_32) {
    return mul<V>(payne_hanek_fraction<V, PH_LONG_CHUNKS, PH_LONG_PASSES>(x, k_mod_32),
                  PI_OVER_16);
}

// reduce_payne_hanek: r = x - k pi/16 and k mod 32 for finite |x| > CODY_WAITE_LIMIT:
// payne_hanek_fraction with PH_CHUNKS and 4 passes (f to 2^-183 absolute), then r = (f - k) pi/16
// (a DD product); reduce_near_multiple where |f| < NEAR_MULTIPLE.
template <class V>
DD_COLD dd reduce_payne_hanek(dd x, int& k_mod_32) {
    const dd f = payne_hanek_fraction<V, PH_CHUNKS, 4>(x, k_mod_32);
    if (fabs(f.hi) < NEAR_MULTIPLE) return reduce_near_multiple<V>(x, k_mod_32);
    return mul<V>(f, PI_OVER_16);
}

// reduce_pi16: r = x - k pi/16 with k = round(16 x / pi), |r| <= (1 + 2^-9) pi/32, and
// k mod 32 in [0, 32), for finite x. Up to CODY_WAITE_LIMIT: k = kh + kl from q = x * 16/pi in
// DD (below 2^52 k fits one double; above, kh = q.hi, an integer, and kl = round(q.lo)) and
// reduce_pi16_sum, or reduce_near_multiple where |r| < |k| NEAR_MULTIPLE_CW; beyond,
// reduce_payne_hanek.
template <class V>
DD_HD dd reduce_pi16(dd x, int& k_mod_32) {
    if (fabs(x.hi) <= 0x1.921fb54442d18p-4) {  // |x| <= pi/32: no reduction
        k_mod_32 = 0;
        return x;
    }
    if (!isfinite(x.lo)) {  // a pair that is not a DD (normalize=False): nan, no table reads
        k_mod_32 = 0;
        const dd nan = {quiet_nan(), 0.0};
        return nan;
    }
    if (fabs(x.hi) > CODY_WAITE_LIMIT) return reduce_payne_hanek<V>(x, k_mod_32);
    const dd q = mul<V>(x, SIXTEEN_OVER_PI);
    dd r;
    double kh, kl;
    if (fabs(q.hi) < 0x1p52) {
        kh = rint(q.hi);
        kh += rint((q.hi - kh) + q.lo);  // q.hi - kh is exact
        kl = 0.0;
        r = reduce_pi16_sum<V, false>(x, kh, kl);
    } else {
        kh = q.hi;
        kl = rint(q.lo);
        r = reduce_pi16_sum<V, true>(x, kh, kl);
    }
    // the words' truncation |k| 2^-279 and the SumK rest would show in a tiny r
    if (fabs(r.hi) < fabs(kh) * NEAR_MULTIPLE_CW) return reduce_near_multiple<V>(x, k_mod_32);
    const int m = (int)(fmod(kh, 32.0) + fmod(kl, 32.0));  // exact, in (-64, 64)
    k_mod_32 = ((m % 32) + 32) % 32;
    return r;
}

// sincos: sin x and cos x [QD]: x = r + j pi/16 + q pi/2 (reduce_pi16, j = k mod 8, q = k/8 mod
// 4), sin and cos of theta = r + j pi/16 from sincos_small and the table by the angle-addition
// formulas written around the table's values: sin theta = S + (sin r C + (cos r - 1) S), cos theta
// = C + ((cos r - 1) C - sin r S) with S, C = sin, cos(j pi/16), so that where the two products
// cancel their errors are relative to the small correction only. Then the quadrant's rotation.
// nan for inf and nan.
template <class V>
DD_HD void sincos(dd x, dd& s, dd& c) {
    if (!isfinite(x.hi)) {
        s = c = not_a_number();
        return;
    }
    int k;
    const dd r = reduce_pi16<V>(x, k);
    dd sr, cr_minus_1;
    sincos_small<V>(r, sr, cr_minus_1);
    const int j = k % 8, quadrant = k / 8;
    const dd one = {1.0, 0.0};
    dd st = sr, ct = add<V>(one, cr_minus_1);
    if (j != 0) {
        const dd sj = sin_j_pi16(j), cj = sin_j_pi16(8 - j);
        st = add<V>(sj, add<V>(mul<V>(sr, cj), mul<V>(cr_minus_1, sj)));
        ct = add<V>(cj, sub<V>(mul<V>(cr_minus_1, cj), mul<V>(sr, sj)));
    }
    switch (quadrant) {
        case 0: s = st; c = ct; break;
        case 1: s = ct; c = neg(st); break;
        case 2: s = neg(st); c = neg(ct); break;
        default: s = neg(ct); c = st; break;
    }
}

template <class V>
DD_HD dd sin(dd x) {
    dd s, c;
    sincos<V>(x, s, c);
    return s;
}
template <class V>
DD_HD dd cos(dd x) {
    dd s, c;
    sincos<V>(x, s, c);
    return c;
}
// tan: sin x / cos x by div_accurate (dd.h; with div, DWDivDW2, the quotient alone measured
// 6.2u^2 and tan 7.2u^2); tan(+-0) = +-0 (s itself), nan for inf and nan.
template <class V>
DD_HD dd tan(dd x) {
    dd s, c;
    sincos<V>(x, s, c);
    if (s.hi == 0.0 || !isfinite(s.hi)) return s;
    return div_accurate<V>(s, c);
}

// atan_ratio: atan(num / den) for 0 <= num <= den, den > 0 finite [Mul16, Ch. 6]: both scaled to
// den in [1, 2) (exact), c = j/32 nearest t = num/den, delta = (t - c)/(1 + t c) = (num - c den) /
// (den + c num) with |delta| <= 1/64 (one DD division; c den and c num are exact up to the
// rounding of lo * c, c having 6 bits), atan(t) = atan(c) + delta + delta w R(w), w = delta^2,
// the series truncated after delta^19/19 (next term < 2^-124 |delta|). j = 0: delta = t.
// j is kept in [0, 32] for any input (a nan or out-of-range ratio from a pair that is not a DD,
// normalize=False, read the table out of bounds: rint gave INT_MIN).
template <class V>
DD_HD dd atan_ratio(dd num, dd den) {
    const int e = ilogb(den.hi);
    num = ldexp_dd(num, -e);
    den = ldexp_dd(den, -e);
    const double nearest = rint(num.hi / den.hi * 32.0);
    const int j = nearest > 0.0 ? (nearest < 32.0 ? (int)nearest : 32) : 0;
    dd delta;
    if (j == 0) {
        delta = div<V>(num, den);
    } else {
        const dd c = {j * 0x1p-5, 0.0};
        delta = div<V>(sub<V>(num, mul<V>(den, c)), add<V>(den, mul<V>(num, c)));
    }
    const dd w = mul<V>(delta, delta);
    const dd a = delta.hi == 0.0 ? delta
                                 : add<V>(delta, mul<V>(delta, mul<V>(w, series<V, Series::atan>(w))));
    return j == 0 ? a : add<V>(atan_j32(j), a);
}

// atan2: the angle of the point (x, y), in [-pi, pi] [Mul16]: atan_ratio(min(|x|,|y|),
// max(|x|,|y|)), then pi/2 - a where |y| > |x| and pi - a where x < 0, with y's sign. Zeros,
// infinities and nans as C99 Annex F (atan2(+-0, -0) = +-pi, atan2(+-inf, -inf) = +-3pi/4, ...).
template <class V>
DD_HD dd atan2(dd y, dd x) {
    if (isnan(x.hi) || isnan(y.hi)) return not_a_number();
    const bool x_negative = signbit(x.hi);
    const dd zero = {0.0, 0.0};
    dd angle;
    if (y.hi == 0.0) {
        angle = x_negative ? PI : zero;
    } else if (isinf(y.hi)) {
        angle = isinf(x.hi) ? (x_negative ? THREE_QUARTER_PI : QUARTER_PI) : HALF_PI;
    } else if (x.hi == 0.0) {
        angle = HALF_PI;
    } else if (isinf(x.hi)) {
        angle = x_negative ? PI : zero;
    } else {
        const dd ax = abs(x), ay = abs(y);
        const bool steep = greater(ay, ax);
        angle = steep ? atan_ratio<V>(ax, ay) : atan_ratio<V>(ay, ax);
        if (steep) angle = sub<V>(HALF_PI, angle);
        if (x_negative) angle = sub<V>(PI, angle);
    }
    return signbit(y.hi) ? neg(angle) : angle;
}

// atan: atan2(x, 1).
template <class V>
DD_HD dd atan(dd x) {
    const dd one = {1.0, 0.0};
    return atan2<V>(x, one);
}

// cos_of_asin: sqrt(1 - x^2) computed as sqrt((1 - x)(1 + x)) (no cancellation near |x| = 1),
// for |x| <= 1.
template <class V>
DD_HD dd cos_of_asin(dd x) {
    const dd one = {1.0, 0.0};
    return sqrt<V>(mul<V>(sub<V>(one, x), add<V>(one, x)));
}

// asin: atan2(x, sqrt(1 - x^2)); nan for |x| > 1 or nan.
template <class V>
DD_HD dd asin(dd x) {
    const dd one = {1.0, 0.0};
    if (!less_equal(abs(x), one)) return not_a_number();
    return atan2<V>(x, cos_of_asin<V>(x));
}

// acos: atan2(sqrt(1 - x^2), x); nan for |x| > 1 or nan.
template <class V>
DD_HD dd acos(dd x) {
    const dd one = {1.0, 0.0};
    if (!less_equal(abs(x), one)) return not_a_number();
    return atan2<V>(cos_of_asin<V>(x), x);
}

// hypot: sqrt(a^2 + b^2) without intermediate overflow or underflow: both scaled by 2^-e, e the
// exponent of the larger hi part (exact), then scaled back. hypot(+-inf, anything) = +inf (nan
// included), as C99; otherwise a nan gives nan.
template <class V>
DD_HD dd hypot(dd a, dd b) {
    if (isinf(a.hi) || isinf(b.hi)) {
        const dd inf = {fabs(isinf(a.hi) ? a.hi : b.hi), 0.0};
        return inf;
    }
    if (isnan(a.hi) || isnan(b.hi)) return not_a_number();
    const double big = fmax(fabs(a.hi), fabs(b.hi));
    if (big == 0.0) {
        const dd zero = {0.0, 0.0};
        return zero;
    }
    const int e = ilogb(big);
    const dd as = ldexp_dd(a, -e), bs = ldexp_dd(b, -e);
    const dd r = ldexp_dd(sqrt<V>(add<V>(mul<V>(as, as), mul<V>(bs, bs))), e);
    return float64_special_cases(r, r.hi);
}

}  // namespace trig
}  // namespace ddblas
