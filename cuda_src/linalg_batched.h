// linalg_batched.h: many small dense systems in one launch (the "linalg_batched" family): LU
// with partial pivoting, the solve with its factors, and the product of the diagonal (det,
// slogdet), one thread per system, written once for both backends with kernels.h's macros (GPU:
// a grid-stride loop over systems; CPU: OpenMP over systems).
//
// The factors live in a batch buffer in which element (i, j) of system p sits at
// p * sys_step + (i * order + j) * elem_step: the GPU interleaves the systems (sys_step = 1,
// elem_step = batch), so the threads of a warp, one system each, read consecutive doubles; the
// CPU keeps each system contiguous (sys_step = order^2, elem_step = 1).
//
// Algorithms (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., 2002):
//   lu_factor_in_place: Gaussian elimination, kij (right-looking) form, partial pivoting: Alg. 9.1
//     with the pivot of largest |a_ik| (exact DD comparison; the first such row). Thm. 9.3 with
//     DD arithmetic: P A + dA = L U, |dA| <= gamma_n |L| |U|, gamma_n = n e / (1 - n e),
//     e = (c_mul + c_add) u^2 (u = 2^-53; the variant's constants, docs/algorithms.md).
//   lu_solve_in_place: the row interchanges, then forward and back substitution (Alg. 8.1,
//     row-oriented dots in increasing j): (A + dA) x = b, |dA| <= gamma_3n |L| |U| (Thm. 9.4).
//   diagonal_product: det = sign(P) prod u_kk, relative error <= (n - 1) c_mul u^2 (to first
//     order) on top of the factorization's backward error.
#pragma once
#include "kernels.h"

namespace ddblas {

// BatchMatrix: one system's order x order matrix inside a batch buffer (see the top).
struct BatchMatrix {
    double *hi, *lo;
    index_t order, step;
    DD_HD index_t at(index_t i, index_t j) const { return (i * order + j) * step; }
    DD_HD dd load(index_t i, index_t j) const {
        dd v = {hi[at(i, j)], lo[at(i, j)]};
        return v;
    }
    DD_HD void store(index_t i, index_t j, dd v) const {
        hi[at(i, j)] = canonical(v.hi);
        lo[at(i, j)] = canonical(v.lo);
    }
    DD_HD void swap_rows(index_t r, index_t s) const {
        for (index_t j = 0; j < order; ++j) {
            dd t = load(r, j);
            store(r, j, load(s, j));
            store(s, j, t);
        }
    }
};

// StridedMatrix: a read-only matrix with element strides (row rs, column cs), or a writable
// one; what Python passes for the caller's operands and the solution.
struct StridedMatrix {
    const double *hi, *lo;
    index_t rs, cs;
    DD_HD dd load(index_t i, index_t j) const {
        dd v = {hi[i * rs + j * cs], lo[i * rs + j * cs]};
        return v;
    }
};

// lu_factor_in_place: P A = L U in place (L unit lower below the diagonal, U on and above),
// piv[k] = the row swapped with row k at step k (LAPACK's ipiv, 0-based). Returns -1, or the
// first k whose pivot is zero (the whole column k from row k down is zero); like LAPACK's getrf
// the elimination goes on past a zero pivot, leaving that column unscaled.
// Precondition: finite entries (checked in Python). Bound: Thm. 9.3 (top of file).
template <class V>
DD_HD index_t lu_factor_in_place(BatchMatrix a, index_t *piv) {
    index_t zero_pivot = -1;
    for (index_t k = 0; k < a.order; ++k) {
        index_t p = k;
        dd largest = abs(a.load(k, k));
        for (index_t i = k + 1; i < a.order; ++i) {
            dd candidate = abs(a.load(i, k));
            if (greater(candidate, largest)) {
                largest = candidate;
                p = i;
            }
        }
        piv[k] = p;
        if (p != k) a.swap_rows(k, p);
        dd pivot = a.load(k, k);
        if (pivot.hi == 0.0) {
            if (zero_pivot < 0) zero_pivot = k;
            continue;
        }
        for (index_t i = k + 1; i < a.order; ++i) {
            dd l = div<V>(a.load(i, k), pivot);
            a.store(i, k, l);
            dd minus_l = neg(l);
            for (index_t j = k + 1; j < a.order; ++j)
                a.store(i, j, madd<V>(a.load(i, j), minus_l, a.load(k, j)));
        }
    }
    return zero_pivot;
}

// lu_solve_in_place: x (order x nrhs, row-major, on entry b) := A^-1 b from lu_factor_in_place's
// factors. Precondition: no zero pivot. Bound: Thm. 9.4 (top of file).
template <class V>
DD_HD void lu_solve_in_place(BatchMatrix lu, const index_t *piv, double *x_hi, double *x_lo,
                             index_t nrhs) {
    const index_t n = lu.order;
    for (index_t r = 0; r < nrhs; ++r) {
        for (index_t k = 0; k < n; ++k) {
            const index_t p = piv[k];
            if (p == k) continue;
            double th = x_hi[k * nrhs + r], tl = x_lo[k * nrhs + r];
            x_hi[k * nrhs + r] = x_hi[p * nrhs + r];
            x_lo[k * nrhs + r] = x_lo[p * nrhs + r];
            x_hi[p * nrhs + r] = th;
            x_lo[p * nrhs + r] = tl;
        }
        for (index_t i = 1; i < n; ++i) {  // L y = P b, L unit lower
            dd acc = {x_hi[i * nrhs + r], x_lo[i * nrhs + r]};
            for (index_t j = 0; j < i; ++j) {
                dd xj = {x_hi[j * nrhs + r], x_lo[j * nrhs + r]};
                acc = madd<V>(acc, neg(lu.load(i, j)), xj);
            }
            DDBLAS_DD_STORE(x, i * nrhs + r, acc);
        }
        for (index_t i = n - 1; i >= 0; --i) {  // U x = y
            dd acc = {x_hi[i * nrhs + r], x_lo[i * nrhs + r]};
            for (index_t j = i + 1; j < n; ++j) {
                dd xj = {x_hi[j * nrhs + r], x_lo[j * nrhs + r]};
                acc = madd<V>(acc, neg(lu.load(i, j)), xj);
            }
            dd xi = div<V>(acc, lu.load(i, i));
            DDBLAS_DD_STORE(x, i * nrhs + r, xi);
        }
    }
}

// mantissa_exponent: a = m 2^e with |m.hi| in [0.5, 1) (exact: a power-of-two scaling of a
// normalized DD whose hi is a normal number); a = 0 gives (0, 0).
DD_HD dd mantissa_exponent(dd a, index_t &e) {
    int exponent = 0;
    frexp(a.hi, &exponent);
    e = exponent;
    return scaled(a, ldexp(1.0, -exponent));
}

// diagonal_product: det = sign * prod d_k in DD (overflows to inf, underflows to 0 as float64
// does) and the same product as m 2^e (|m.hi| in [0.5, 1), never overflowing; 0 for a zero
// factor) for slogdet; sign = (-1)^(number of k with piv[k] != k).
// Bound: relative error <= (n - 1) c_mul u^2 to first order, for det and m 2^e alike.
template <class V>
DD_HD void diagonal_product(index_t order, StridedMatrix d, const index_t *piv, dd &det,
                            dd &mantissa, index_t &exponent) {
    dd sign = {1.0, 0.0};
    for (index_t k = 0; k < order; ++k)
        if (piv[k] != k) sign = neg(sign);
    det = sign;
    mantissa = sign;
    exponent = 0;
    for (index_t k = 0; k < order; ++k) {
        dd dk = d.load(k, k);
        det = mul<V>(det, dk);
        index_t ek, em;
        dd mk = mantissa_exponent(dk, ek);
        mantissa = mantissa_exponent(mul<V>(mantissa, mk), em);
        exponent += ek + em;
    }
    if (mantissa.hi == 0.0) exponent = 0;
}

}  // namespace ddblas

// ---- kernels: one per variant; `n` is the number of systems ----
// lu_factor: copies system p of A (a + p a_bs, strides a_rs, a_cs) into the batch buffer lu and
// factors it there; piv[p * order + k], info[p] = -1 or the first zero pivot's index.
#define DDBLAS_LINALG_BATCHED_LU_FACTOR(OP, V)                                                 \
    DDBLAS_KERNEL ddblas_linalg_batched_##OP##_##V(                                            \
        ddblas::index_t n, ddblas::index_t order, const double *a_hi, const double *a_lo,      \
        ddblas::index_t a_bs, ddblas::index_t a_rs, ddblas::index_t a_cs, double *lu_hi,        \
        double *lu_lo, ddblas::index_t sys_step, ddblas::index_t elem_step,                    \
        ddblas::index_t *piv, ddblas::index_t *info) {                                         \
        DDBLAS_FOR_EACH_SYSTEM(p, n) {                                                         \
            ddblas::StridedMatrix a = {a_hi + p * a_bs, a_lo + p * a_bs, a_rs, a_cs};          \
            ddblas::BatchMatrix lu = {lu_hi + p * sys_step, lu_lo + p * sys_step, order,       \
                                      elem_step};                                              \
            for (ddblas::index_t i = 0; i < order; ++i)                                        \
                for (ddblas::index_t j = 0; j < order; ++j) lu.store(i, j, a.load(i, j));      \
            info[p] = ddblas::lu_factor_in_place<ddblas::variants::V>(lu, piv + p * order);    \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_BATCHED_LU_FACTOR, lu_factor)

// lu_solve: x[p] (contiguous, order x nrhs) := A[p]^-1 b[p] from lu_factor's buffer and pivots;
// b[p] at b + p b_bs with strides b_rs, b_cs.
#define DDBLAS_LINALG_BATCHED_LU_SOLVE(OP, V)                                                  \
    DDBLAS_KERNEL ddblas_linalg_batched_##OP##_##V(                                            \
        ddblas::index_t n, ddblas::index_t order, ddblas::index_t nrhs, const double *lu_hi,   \
        const double *lu_lo, ddblas::index_t sys_step, ddblas::index_t elem_step,              \
        const ddblas::index_t *piv, const double *b_hi, const double *b_lo,                    \
        ddblas::index_t b_bs, ddblas::index_t b_rs, ddblas::index_t b_cs, double *x_hi,         \
        double *x_lo) {                                                                        \
        DDBLAS_FOR_EACH_SYSTEM(p, n) {                                                         \
            ddblas::StridedMatrix b = {b_hi + p * b_bs, b_lo + p * b_bs, b_rs, b_cs};          \
            ddblas::BatchMatrix lu = {const_cast<double *>(lu_hi) + p * sys_step,              \
                                      const_cast<double *>(lu_lo) + p * sys_step, order,       \
                                      elem_step};                                              \
            double *xh = x_hi + p * order * nrhs, *xl = x_lo + p * order * nrhs;               \
            for (ddblas::index_t i = 0; i < order; ++i)                                        \
                for (ddblas::index_t r = 0; r < nrhs; ++r) {                                   \
                    ddblas::dd v = b.load(i, r);                                               \
                    DDBLAS_DD_STORE(x, p * order * nrhs + i * nrhs + r, v);                    \
                }                                                                              \
            ddblas::lu_solve_in_place<ddblas::variants::V>(lu, piv + p * order, xh, xl, nrhs); \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_BATCHED_LU_SOLVE, lu_solve)

// det: for each of n factored systems (U's diagonal: d + p d_bs, element (k, k) at
// k (d_rs + d_cs); pivots piv + p piv_bs) det[p], and det[p] = mant[p] 2^expo[p] unrounded.
#define DDBLAS_LINALG_BATCHED_DET(OP, V)                                                       \
    DDBLAS_KERNEL ddblas_linalg_batched_##OP##_##V(                                            \
        ddblas::index_t n, ddblas::index_t order, const double *d_hi, const double *d_lo,      \
        ddblas::index_t d_bs, ddblas::index_t d_rs, ddblas::index_t d_cs,                      \
        const ddblas::index_t *piv, ddblas::index_t piv_bs, double *det_hi, double *det_lo,    \
        double *mant_hi, double *mant_lo, ddblas::index_t *expo) {                             \
        DDBLAS_FOR_EACH_SYSTEM(p, n) {                                                         \
            ddblas::StridedMatrix d = {d_hi + p * d_bs, d_lo + p * d_bs, d_rs, d_cs};          \
            ddblas::dd det, mant;                                                              \
            ddblas::diagonal_product<ddblas::variants::V>(order, d, piv + p * piv_bs, det,     \
                                                          mant, expo[p]);                      \
            DDBLAS_DD_STORE(det, p, det);                                                      \
            DDBLAS_DD_STORE(mant, p, mant);                                                    \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_BATCHED_DET, det)
