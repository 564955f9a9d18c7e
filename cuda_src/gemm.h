// gemm.h: what every DD GEMM kernel shares, on both backends: operand access through strides,
// the per-element summation order and the epilogue.
//
// C = alpha * op(A) * op(B) + beta * C. Element (i, k) of op(A) is a[i * a_rs + k * a_cs] and
// element (k, j) of op(B) is b[k * b_rs + j * b_cs]: transposes and views are just strides.
// Every kernel (CPU or GPU, naive, tiled or register-blocked) computes each C element as
//     acc = (0, 0);  for k = 0 .. K-1:  acc = madd(acc, op(A)[i, k], op(B)[k, j]);
//     C[i, j] = gemm_epilogue(acc)
// in increasing k with no split-K, so all kernels and both backends agree bit for bit.
// The tall-and-skinny order (rgemm's "tsm", ddblas/_tsm.py) splits K into P pieces of piece_len
// (the last shorter), sums each piece as above into its own acc_p, then adds them in order:
//     acc = acc_0;  for p = 1 .. P-1:  acc = add(acc, acc_p);  C[i, j] = gemm_epilogue(acc)
// (gemm_add_pieces); P = 1 is the order above. A C with fewer rows than columns is computed as
// C^T = op(B)^T op(A)^T, so its products are madd(acc, op(B)[k, j], op(A)[i, k]) (the DD product
// is not commutative bit for bit; its bound is). Both backends compute it the same way.
// Bound (docs/algorithms.md): |C - exact| <= (c_mul + c_add + c_first + (K-1) c_acc)(1 + 2^-40)
// (|alpha| |op(A)||op(B)| + |beta| |C0|) componentwise, with c_mul, c_add the variant's multiply
// and add bounds and c_first, c_acc those of its madd (dd.h); the pieces' order meets it too.
#pragma once
#include "dd.h"
#include "geometry.h"  // GemmFlags
#include "kernels.h"   // the variants, for the kernel macros below

// The argument list of every GEMM kernel (CPU and GPU), and the call that forwards it.
#define DDBLAS_GEMM_PARAMS                                                                       \
    ddblas::index_t M, ddblas::index_t N, ddblas::index_t K, const double *a_hi,                 \
        const double *a_lo, ddblas::index_t a_rs, ddblas::index_t a_cs, const double *b_hi,      \
        const double *b_lo, ddblas::index_t b_rs, ddblas::index_t b_cs, double alpha_hi,         \
        double alpha_lo, double beta_hi, double beta_lo, double *c_hi, double *c_lo,             \
        ddblas::index_t c_rs, ddblas::index_t c_cs, ddblas::index_t flags
#define DDBLAS_GEMM_ARGS                                                                         \
    M, N, K, a_hi, a_lo, a_rs, a_cs, b_hi, b_lo, b_rs, b_cs, ddblas::dd{alpha_hi, alpha_lo},     \
        ddblas::dd{beta_hi, beta_lo}, c_hi, c_lo, c_rs, c_cs, flags

namespace ddblas {


// gemm_epilogue: alpha * acc + beta * C0 (C0 read only when beta != 0), float64 special values.
template <class V>
DD_HD dd gemm_epilogue(dd acc, dd alpha, dd beta, const double *c_hi, const double *c_lo,
                       index_t off, index_t flags) {
    dd r = (flags & GEMM_ALPHA_ONE) ? acc : mul<V>(alpha, acc);
    if (!(flags & GEMM_BETA_ZERO)) {
        dd c0 = {c_hi[off], c_lo[off]};
        r = add<V>(r, mul<V>(beta, c0));
    }
    return r;
}

// gemm_dot: sum over k < K of a[k * a_step] * b[k * b_step] in the GEMM order (one C element).
template <class V>
DD_HD dd gemm_dot(index_t K, const double *a_hi, const double *a_lo, index_t a_step,
                  const double *b_hi, const double *b_lo, index_t b_step) {
    dd acc = {0.0, 0.0};
    for (index_t k = 0; k < K; ++k) {
        dd a = {a_hi[k * a_step], a_lo[k * a_step]};
        dd b = {b_hi[k * b_step], b_lo[k * b_step]};
        acc = madd<V>(acc, a, b);
    }
    return acc;
}

// gemm_add_pieces: element e of C (C[i, j], e = i * N + j) from the partial sums of the P pieces
// of K, stored as P consecutive M x N matrices (w + p * M * N): acc_0 + acc_1 + ... + acc_{P-1}
// left to right with add<V>, then gemm_epilogue<V>, stored through canonical().
template <class V>
DD_HD void gemm_add_pieces(index_t e, index_t M, index_t N, index_t P, const double *w_hi,
                           const double *w_lo, dd alpha, dd beta, double *c_hi, double *c_lo,
                           index_t c_rs, index_t c_cs, index_t flags) {
    dd acc = {w_hi[e], w_lo[e]};
    for (index_t p = 1; p < P; ++p) acc = add<V>(acc, dd{w_hi[p * M * N + e], w_lo[p * M * N + e]});
    const index_t off = (e / N) * c_rs + (e % N) * c_cs;
    const dd r = gemm_epilogue<V>(acc, alpha, beta, c_hi, c_lo, off, flags);
    c_hi[off] = canonical(r.hi);
    c_lo[off] = canonical(r.lo);
}

}  // namespace ddblas

// ---- the GEMM kernels both backends share (instantiated by the units: gemm, tsm) ----
// naive: one C element per work item, the reference kernel of the optimization ladder.
#define DDBLAS_GEMM_NAIVE_KERNEL(OP, V)                                                      \
    DDBLAS_KERNEL ddblas_##OP##_##V(DDBLAS_GEMM_PARAMS) {                                    \
        const ddblas::index_t n = M * N;                                                     \
        const ddblas::dd alpha = {alpha_hi, alpha_lo}, beta = {beta_hi, beta_lo};            \
        DDBLAS_FOR_EACH(t, n) {                                                              \
            const ddblas::index_t i = t / N, j = t % N;                                      \
            ddblas::dd acc = ddblas::gemm_dot<ddblas::variants::V>(                          \
                K, a_hi + i * a_rs, a_lo + i * a_rs, a_cs, b_hi + j * b_cs, b_lo + j * b_cs, \
                b_rs);                                                                       \
            const ddblas::index_t off = i * c_rs + j * c_cs;                                 \
            ddblas::dd r = ddblas::gemm_epilogue<ddblas::variants::V>(acc, alpha, beta, c_hi, \
                                                                      c_lo, off, flags);     \
            c_hi[off] = ddblas::canonical(r.hi);                                             \
            c_lo[off] = ddblas::canonical(r.lo);                                             \
        }                                                                                    \
    }

// pieces: C from the partial sums of P pieces of K (the tall-and-skinny order of gemm.h), one C
// element per work item; w is the P x M x N workspace the pieces were written to.
#define DDBLAS_GEMM_PIECES_KERNEL(OP, V)                                                       \
    DDBLAS_KERNEL ddblas_##OP##_##V(ddblas::index_t M, ddblas::index_t N, ddblas::index_t P,     \
                                    const double *w_hi, const double *w_lo, double alpha_hi,   \
                                    double alpha_lo, double beta_hi, double beta_lo,           \
                                    double *c_hi, double *c_lo, ddblas::index_t c_rs,          \
                                    ddblas::index_t c_cs, ddblas::index_t flags) {             \
        const ddblas::index_t n = M * N;                                                       \
        DDBLAS_FOR_EACH(e, n) {                                                                \
            ddblas::gemm_add_pieces<ddblas::variants::V>(                                      \
                e, M, N, P, w_hi, w_lo, ddblas::dd{alpha_hi, alpha_lo},                        \
                ddblas::dd{beta_hi, beta_lo}, c_hi, c_lo, c_rs, c_cs, flags);                  \
        }                                                                                      \
    }
