// crt.h: the moduli and the integer pieces of Ozaki scheme II (ozaki2.h): residues of an integer
// given by digits, and the Chinese-remainder reconstruction of an integer from its residues as
// signed multi-limb integers. Everything here is exact integer arithmetic, identical on both
// backends. Python reads the moduli through ddblas_geometry (units/host.cpp).
// Sources:
//   [OUI25] K. Ozaki, Y. Uchino, T. Imamura, "Ozaki Scheme II: A GEMM-oriented emulation of
//           floating-point matrix multiplication using an integer modular technique",
//           arXiv:2504.08009, 2025 (int8 residues, one int8 GEMM per modulus, CRT).
#pragma once
#include "eft.h"

namespace ddblas {

// The moduli, largest first: the greedy pairwise-coprime choice from 256 down (static_asserted
// below). Their residues in [-128, 127] are int8 digits; the product of the first L of them is P.
constexpr int OZAKI2_MODULI[] = {256, 255, 253, 251, 247, 241, 239, 233, 229, 227,
                                 223, 217, 211, 199, 197, 193, 191, 181, 179, 173,
                                 167, 163, 157, 151, 149, 139, 137, 131, 127, 113,
                                 109, 107, 103, 101, 97,  89,  83,  79,  73,  71};
constexpr int OZAKI2_MAX_MODULI = sizeof(OZAKI2_MODULI) / sizeof(OZAKI2_MODULI[0]);
// The largest residue magnitude: |r| <= 128, so an int8 GEMM sums products <= 2^14.
constexpr int OZAKI2_RESIDUE_MAX = 128;
// Digits of the scaled integer A' = trunc(x 2^(a - e)): DIGIT_BITS bits each, least significant
// first; MAX_DIGITS of them hold a <= 160 bits.
constexpr int OZAKI2_DIGIT_BITS = 16;
constexpr int OZAKI2_MAX_DIGITS = 10;
constexpr int OZAKI2_MAX_BITS = OZAKI2_DIGIT_BITS * OZAKI2_MAX_DIGITS;
// Limbs of the reconstructed integer: LIMB_BITS bits each, enough for P of all the moduli
// (< 2^292); accumulated in int32 (crt_accumulate says why that is exact), read four at a time.
constexpr int OZAKI2_LIMB_BITS = 16;
constexpr int OZAKI2_LIMBS = 20;

DD_HD constexpr long long crt_gcd(long long a, long long b) {
    return b == 0 ? a : crt_gcd(b, a % b);
}
DD_HD constexpr bool crt_moduli_coprime() {
    for (int i = 0; i < OZAKI2_MAX_MODULI; ++i)
        for (int j = i + 1; j < OZAKI2_MAX_MODULI; ++j)
            if (crt_gcd(OZAKI2_MODULI[i], OZAKI2_MODULI[j]) != 1) return false;
    return true;
}
DD_HD constexpr double crt_product() {  // P of all the moduli, within a relative 2^-46
    double p = 1.0;
    for (int i = 0; i < OZAKI2_MAX_MODULI; ++i) p *= OZAKI2_MODULI[i];
    return p;
}
DD_HD constexpr double crt_pow2(int k) { return k == 0 ? 1.0 : 2.0 * crt_pow2(k - 1); }
static_assert(crt_moduli_coprime(), "OZAKI2_MODULI must be pairwise coprime");
static_assert(OZAKI2_MODULI[0] <= 2 * OZAKI2_RESIDUE_MAX,
              "every modulus must be <= 256 for its residues to fit in int8");
static_assert(crt_pow2(OZAKI2_LIMBS * OZAKI2_LIMB_BITS) > 2 * crt_product(),
              "OZAKI2_LIMBS must hold the product of all the moduli");
static_assert(OZAKI2_LIMBS % 4 == 0, "the limbs are read as groups of four (CrtQuad)");
// crt_accumulate's int32 bound: MAX_MODULI residues (< 256) times limbs (< 2^16).
static_assert((long long)OZAKI2_MAX_MODULI * 255 * ((1 << OZAKI2_LIMB_BITS) - 1) <
                  (1LL << 31),
              "the limb sums of crt_accumulate must fit in int32");

// crt_digit_weights: w[t] = 2^(DIGIT_BITS t) mod m, the residues of the digit weights.
struct CrtWeights {
    int w[OZAKI2_MAX_DIGITS];
};
DD_HD constexpr CrtWeights crt_digit_weights(int m) {
    CrtWeights r{};
    long long w = 1 % m;
    for (int t = 0; t < OZAKI2_MAX_DIGITS; ++t, w = (w << OZAKI2_DIGIT_BITS) % m) r.w[t] = int(w);
    return r;
}
// The residue sum over all digits stays in int32: digits < 2^16 times weights < 256.
static_assert((long long)OZAKI2_MAX_DIGITS * ((1 << OZAKI2_DIGIT_BITS) - 1) * 255 < (1LL << 31),
              "the digit sums of crt_residue must fit in int32");

// crt_residue<M>: the residue in [-128, 127] of the integer sum_t d[t] 2^(16 t) modulo M, the
// digits |d[t]| < 2^16 of one sign. Exact: the weighted sum is below 2^31 (static_assert above).
template <int M>
DD_HD int crt_residue(const int *d) {
    constexpr CrtWeights weight = crt_digit_weights(M);  // folded at compile time
    int s = 0;
#pragma unroll
    for (int t = 0; t < OZAKI2_MAX_DIGITS; ++t) s += d[t] * weight.w[t];
    int r = s % M;  // in (-M, M), of s's sign
    if (r > OZAKI2_RESIDUE_MAX - 1) r -= M;
    if (r < -OZAKI2_RESIDUE_MAX) r += M;
    return r;
}

// crt_residues<L>: out[l * plane] = crt_residue<OZAKI2_MODULI[l]>(d) for l = L .. count - 1.
template <int L, class OUT>
DD_HD void crt_residues(const int *d, int count, OUT *out, index_t plane) {
    if constexpr (L < OZAKI2_MAX_MODULI) {
        if (L < count) {
            out[L * plane] = OUT(crt_residue<OZAKI2_MODULI[L]>(d));
            crt_residues<L + 1>(d, count, out, plane);
        }
    }
}

// crt_unsigned_residue<M>: the residue in [0, M) of first + the int32 values p[c * plane],
// 1 <= c < chunks (each reduced first, so nothing overflows).
template <int M>
DD_HD int crt_unsigned_residue(int first, const int *p, index_t chunks, index_t plane) {
    int r = first % M;
    for (index_t c = 1; c < chunks; ++c) r += p[c * plane] % M;  // |r| < chunks M
    r %= M;
    return r < 0 ? r + M : r;
}

// CrtQuad: four limbs of a CRT constant, one 16-byte load (the tables are 16-byte aligned).
struct alignas(16) CrtQuad {
    int v[4];
};

// The moduli are reconstructed in groups of CRT_GROUP: the group's first products are loaded
// together (predicated, not branched), so that their memory latencies overlap.
constexpr int CRT_GROUP = 8;

// crt_add_modulus<B, g>: for modulus l = B + g < count, its residue u_l in [0, m_l) from the
// products p[(l chunks + c) plane] (first[g] = the one of c = 0; crt_unsigned_residue), then
// limb[k] += u_l q[l * LIMBS + k] for the limbs (< 2^16) of the CRT constant
// q_l = (P / m_l) ((P / m_l)^-1 mod m_l), and quotient += u_l frac[l], frac[l] ~ q_l / P; the
// same for g + 1 .. G - 1. The limb sums stay below 2^31 (static_assert above).
template <int B, int g, int G>
DD_HD void crt_add_modulus(const int *first, const int *p, index_t chunks, index_t plane,
                           int count, int quads, const int *q, const double *frac, int *limb,
                           double &quotient) {
    if constexpr (g < G) {
        constexpr int l = B + g;
        if (l < count) {
            const int u = crt_unsigned_residue<OZAKI2_MODULI[l]>(first[g], p + l * chunks * plane,
                                                                chunks, plane);
            quotient += u * frac[l];
            const CrtQuad *quad = reinterpret_cast<const CrtQuad *>(q + l * OZAKI2_LIMBS);
#pragma unroll
            for (int k = 0; k < OZAKI2_LIMBS / 4; ++k) {
                if (k < quads) {  // the limbs above P's are 0 in every q_l
                    const CrtQuad w = quad[k];
#pragma unroll
                    for (int i = 0; i < 4; ++i) limb[4 * k + i] += u * w.v[i];
                }
            }
            crt_add_modulus<B, g + 1, G>(first, p, chunks, plane, count, quads, q, frac, limb,
                                         quotient);
        }
    }
}

// crt_accumulate<B>: crt_add_modulus for the moduli B .. count - 1, a group at a time; quads:
// the groups of four limbs that hold P (the rest of q is 0).
template <int B>
DD_HD void crt_accumulate(const int *p, index_t chunks, index_t plane, int count, int quads,
                          const int *q, const double *frac, int *limb, double &quotient) {
    if constexpr (B < OZAKI2_MAX_MODULI) {
        if (B < count) {
            constexpr int G =
                CRT_GROUP < OZAKI2_MAX_MODULI - B ? CRT_GROUP : OZAKI2_MAX_MODULI - B;
            int first[G];
#pragma unroll
            for (int g = 0; g < G; ++g) first[g] = B + g < count ? p[(B + g) * chunks * plane] : 0;
            crt_add_modulus<B, 0, G>(first, p, chunks, plane, count, quads, q, frac, limb,
                                     quotient);
            crt_accumulate<B + G>(p, chunks, plane, count, quads, q, frac, limb, quotient);
        }
    }
}

// crt_top_bit: the index of the highest set bit of v > 0.
DD_HD int crt_top_bit(unsigned v) {
#if defined(__CUDA_ARCH__)
    return 31 - __clz(int(v));
#else
    return 31 - __builtin_clz(v);
#endif
}

// crt_limb: limb[k] for a k known only at run time, without indexing the array by it (which
// would put the limbs in GPU local memory).
DD_HD int crt_limb(const int *limb, int k) {
    int v = 0;
#pragma unroll
    for (int i = 0; i < OZAKI2_LIMBS; ++i) v = i == k ? limb[i] : v;
    return v;
}

// crt_bits: bits [pos, pos + width) of the nonnegative integer sum_k limb[k] 2^(16 k) (limbs in
// [0, 2^16)), width <= 53; bits below 0 are 0.
DD_HD unsigned long long crt_bits(const int *limb, int pos, int width) {
    unsigned long long v = 0;
#pragma unroll
    for (int k = 0; k < OZAKI2_LIMBS; ++k) {
        const int shift = k * OZAKI2_LIMB_BITS - pos;  // where limb k lands in v
        if (shift >= 64 || shift <= -OZAKI2_LIMB_BITS) continue;
        const unsigned long long x = (unsigned long long)(unsigned)limb[k];
        v |= shift >= 0 ? x << shift : x >> -shift;
    }
    return v & ((1ULL << width) - 1);
}

// crt_to_dd: the integer C = sum_k limb[k] 2^(16 k) - quotient P (limb sums from crt_accumulate,
// p_limb the limbs of P, |C| < P / 2) as a DD times 2^exponent: the top 53 bits of |C| exactly,
// the next 53 rounded to nearest at bit t - 106 (t: the top bit of |C|), so the error is at most
// 2^(t - 106) <= u^2 |C|. The limbs are modified.
DD_HD dd crt_to_dd(int *limb, long long quotient, const int *p_limb, int &exponent) {
    long long carry = 0;  // carry propagation into limbs in [0, 2^16) plus a sign
#pragma unroll
    for (int k = 0; k < OZAKI2_LIMBS; ++k) {
        const long long v = limb[k] - quotient * p_limb[k] + carry;
        limb[k] = int(v & ((1 << OZAKI2_LIMB_BITS) - 1));
        carry = v >> OZAKI2_LIMB_BITS;  // arithmetic shift: floor division
    }
    const bool negative = carry < 0;  // C < 0: the limbs hold 2^(16 LIMBS) + C
    if (negative) {                   // two's complement: the magnitude
        int borrow = 1;
#pragma unroll
        for (int k = 0; k < OZAKI2_LIMBS; ++k) {
            const int v = ((1 << OZAKI2_LIMB_BITS) - 1 - limb[k]) + borrow;
            limb[k] = v & ((1 << OZAKI2_LIMB_BITS) - 1);
            borrow = v >> OZAKI2_LIMB_BITS;
        }
    }
    int top_limb = -1;
#pragma unroll
    for (int k = 0; k < OZAKI2_LIMBS; ++k)
        if (limb[k] != 0) top_limb = k;
    const int top = top_limb < 0 ? -1
                                 : top_limb * OZAKI2_LIMB_BITS +
                                       crt_top_bit(unsigned(crt_limb(limb, top_limb)));
    exponent = top - 105;
    if (top < 0) return dd{0.0, 0.0};
    // |C| ~ (hi 2^53 + lo) 2^(t - 105): hi the bits [t - 52, t], lo the bits [t - 105, t - 53]
    // plus the rounding bit t - 106 (which may carry lo to 2^53, still a float64).
    const double hi = double(crt_bits(limb, top - 52, 53)) * 0x1p53;
    const double lo = double(crt_bits(limb, top - 105, 53) + crt_bits(limb, top - 106, 1));
    dd r;
    fast_two_sum(hi, lo, r.hi, r.lo);  // exact: |lo| <= 2^53 <= ulp(hi)
    return negative ? dd{-r.hi, -r.lo} : r;
}

}  // namespace ddblas
