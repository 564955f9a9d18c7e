// ozaki2.h (the "ozaki" family, units/ozaki.*): the DD parts of rgemm(algorithm="ozaki2-int8"),
// Ozaki scheme II [OUI25] for DD. Each row of op(A) and column of op(B) is scaled by a power of
// two and truncated to an integer of `bits` bits, A'_ik = trunc(A_ik 2^(bits - e_i)) and B'_kj
// likewise against 2^f_j; the integer product C' = A' B' is then computed exactly from its
// residues modulo L pairwise coprime moduli (crt.h), one int8 GEMM each (called from
// ddblas/blas/ozaki2.py), and reconstructed by the Chinese remainder theorem in exact
// multi-limb integer arithmetic, rounded once to DD and scaled by 2^(e_i + f_j - 2 bits).
// docs/ozaki.md, "Ozaki scheme II", derives the bound: truncation 2 K 2^-bits and rounding u^2
// of the scaled (|A||B|)_ij, then the epilogue.
#pragma once
#include "crt.h"
#include "ozaki.h"

namespace ddblas {

// ozaki2_digits: A' = trunc(x 2^(bits - e)) (|x| < 2^e, bits <= OZAKI2_MAX_BITS) as digits
// d[t] of weight 2^(16 t), |d[t]| < 2^16, all of x's sign (ozaki_slice_step, most significant
// first; the digits above bits are 0).
DD_HD void ozaki2_digits(dd x, index_t e, index_t bits, int *d) {
#pragma unroll
    for (int t = OZAKI2_MAX_DIGITS - 1; t >= 0; --t)
        d[t] = OZAKI2_DIGIT_BITS * t < bits
                   ? int(ozaki_slice_step(x, e - bits + OZAKI2_DIGIT_BITS * t))
                   : 0;
}

// ozaki2_finish_entry: C' from the products of one entry (p[(l chunks + c) plane], l < count,
// c < chunks) by crt_accumulate and crt_to_dd, scaled by 2^(e - shift) and stored through the
// epilogue (ozaki_store_entry).
template <class V>
DD_HD void ozaki2_finish_entry(const int *p, index_t chunks, index_t plane, index_t count,
                               index_t quads, const int *q, const double *frac,
                               const int *p_limb, index_t e, dd alpha, dd beta, double *c_hi,
                               double *c_lo, index_t off, index_t flags) {
    int limb[OZAKI2_LIMBS] = {};
    double quotient = 0.0;
    crt_accumulate<0>(p, chunks, plane, int(count), int(quads), q, frac, limb, quotient);
    // The nearest integer to sum u_l q_l / P: its fraction is within 1/4 of an integer (|C'| <=
    // P / 4 by the plan), and the float64 sum is off by far less.
    int exponent;
    const dd r = crt_to_dd(limb, (long long)floor(quotient + 0.5), p_limb, exponent);
    ozaki_store_entry<V>(r, e + exponent, alpha, beta, c_hi, c_lo, off, flags);
}

}  // namespace ddblas

// ---- kernels ----
// residues: the residues of A'_ij = trunc(x[i, j] 2^(bits - exps[i])) (ozaki2_digits) modulo the
// first `count` moduli, as int8 at out[l * plane + i * o_rs + j], for x[i, j] = (hi, lo)[i * x_rs
// + j * x_cs], R x C. The GPU runs a thread per entry, the CPU an OpenMP loop over entries.
DDBLAS_KERNEL ddblas_ozaki2_residues(ddblas::index_t R, ddblas::index_t C, ddblas::index_t bits,
                                     ddblas::index_t count, const double *x_hi,
                                     const double *x_lo, ddblas::index_t x_rs,
                                     ddblas::index_t x_cs, const ddblas::index_t *exps,
                                     signed char *out, ddblas::index_t o_rs,
                                     ddblas::index_t plane) {
    const ddblas::index_t n = R * C;
    DDBLAS_FOR_EACH(w, n) {
        const ddblas::index_t i = w / C, j = w % C, off = i * x_rs + j * x_cs;
        int d[ddblas::OZAKI2_MAX_DIGITS];
        ddblas::ozaki2_digits(ddblas::dd{x_hi[off], x_lo[off]}, exps[i], bits, d);
        ddblas::crt_residues<0>(d, int(count), out + i * o_rs + j, plane);
    }
}

// finish: C[i, j] = gemm_epilogue(C'_ij 2^(row_exp[i] + col_exp[j] - shift)) (alpha, beta, flags
// as in gemm.h), C' reconstructed from the int32 products[(l chunks + c) M ldp + i ldp + j] of
// the first `count` moduli (q: their CRT constants' limbs, count x OZAKI2_LIMBS, of which the
// first 4 quads can be nonzero; frac: q_l / P in float64; p_limb: P's limbs), stored canonically
// through C's strides.
#define DDBLAS_OZAKI2_FINISH_KERNEL(V)                                                             \
    DDBLAS_KERNEL ddblas_ozaki2_finish_##V(                                                        \
        ddblas::index_t M, ddblas::index_t N, ddblas::index_t count, ddblas::index_t quads,        \
        ddblas::index_t chunks, const int *products, ddblas::index_t ldp, const int *q,            \
        const double *frac, const int *p_limb, const ddblas::index_t *row_exp,                     \
        const ddblas::index_t *col_exp, ddblas::index_t shift, double alpha_hi, double alpha_lo,   \
        double beta_hi, double beta_lo, double *c_hi, double *c_lo, ddblas::index_t c_rs,          \
        ddblas::index_t c_cs, ddblas::index_t flags) {                                             \
        const ddblas::index_t n = M * N;                                                           \
        const ddblas::dd alpha = {alpha_hi, alpha_lo}, beta = {beta_hi, beta_lo};                  \
        DDBLAS_FOR_EACH(w, n) {                                                                    \
            const ddblas::index_t i = w / N, j = w % N;                                            \
            ddblas::ozaki2_finish_entry<ddblas::variants::V>(                                      \
                products + i * ldp + j, chunks, M * ldp, count, quads, q, frac, p_limb,            \
                row_exp[i] + col_exp[j] - shift, alpha, beta, c_hi, c_lo, i * c_rs + j * c_cs,     \
                flags);                                                                            \
        }                                                                                          \
    }
#define DDBLAS_OZAKI2_KERNELS(OP, V) DDBLAS_OZAKI2_FINISH_KERNEL(V)
DDBLAS_EACH_VARIANT(DDBLAS_OZAKI2_KERNELS, ozaki2)
