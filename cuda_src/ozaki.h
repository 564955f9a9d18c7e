// ozaki.h (the "ozaki" family, units/ozaki.*): the DD parts of rgemm(algorithm="ozaki-fp64") and
// rgemm(algorithm="ozaki-int8"), Ozaki scheme I on float64 and on int8 engines.
// op(A) and op(B) are cut into S slices of integers below 2^beta (each row of op(A) against its own
// power of two 2^e_i, each column of op(B) against 2^f_j); every slice product A_t B_u is then an
// exact GEMM (float64 digits: NumPy's BLAS or cuBLAS DGEMM; int8 digits, beta = 7: cuBLAS
// int8 x int8 -> int32, called from ddblas/_ozaki.py); these kernels add the products with
// t + u = s exactly, accumulate the groups s = S+1, ..., 2 in DD and apply the scale
// 2^(e_i + f_j) and the BLAS epilogue. docs/ozaki.md proves the bound.
// Sources:
//   [OOO12] K. Ozaki, T. Ogita, S. Oishi, S. M. Rump, "Error-free transformations of matrix
//           multiplication by using fast routines of matrix multiplication and its
//           applications", Numer. Algorithms 59(1), 2012 (the splitting, Alg. 3 / scheme I).
//   [MOI20] D. Mukunoki, K. Ozaki, T. Ogita, T. Imamura, "DGEMM using Tensor Cores, and its
//           accurate and reproducible versions", ISC 2020 (the t + u <= S + 1 truncation).
//   [OOY24] H. Ootomo, K. Ozaki, R. Yokota, "DGEMM on integer matrix multiplication unit",
//           IJHPCA 2024 (the int8 variant: 7-bit digits, int32 products).
#pragma once
#include "dd.h"
#include "gemm.h"
#include "kernels.h"
#if !defined(__CUDACC__)
#include "gemm_cpu.h"  // DDBLAS_SIMD
#endif

namespace ddblas {

// pow2: 2^k exactly, for -1022 <= k <= 1023 (normal powers), built from its bits.
DD_HD double pow2(int k) {
    const long long bits = (long long)(k + 1023) << 52;
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(bits);
#else
    double x;
    std::memcpy(&x, &bits, sizeof x);
    return x;
#endif
}

// scale2: x * 2^k by two multiplications with normal powers of two. Exact whenever x * 2^k is a
// float64 (the two exponents have one sign, so the intermediate lies between x and the result);
// identical on both backends, unlike a library ldexp, also where the result underflows. k is
// clamped to [-2044, 2044]: the slicing needs no more (x = 0 beyond), and a scale-back beyond it
// (row and column maxima both above 2^1021 or both subnormal) is outside the bound's range.
DD_HD double scale2(double x, index_t k) {
    const int kk = k > 2044 ? 2044 : (k < -2044 ? -2044 : int(k));
    return x * pow2(kk / 2) * pow2(kk - kk / 2);
}

// ozaki_trunc: trunc(x) for |x| < 2^63, the sign of a zero kept. The host converts to int64 and
// back: the same value, and g++ vectorises it (std::trunc it does not under -ftrapping-math).
DD_HD double ozaki_trunc(double x) {
#if defined(__CUDA_ARCH__)
    return trunc(x);
#else
    return copysign(double((long long)x), x);
#endif
}

// ozaki_digit: trunc(r / 2^p), rounded toward zero, of the exact DD value r = hi + lo
// (normalized, |r| < 2^(p + 52)). The scaling is exact unless |r.hi| / 2^p < 2^-1022, where the
// digit is 0 anyway; when r.hi / 2^p is an integer, a tail of the opposite sign takes one off.
DD_HD double ozaki_digit(dd r, index_t p) {
    const double x = scale2(r.hi, -p);
    const double d = ozaki_trunc(x);
    // Without branches, so that the host vectorises it (d - 0 is d, -0 included). Where the sign
    // test matters r.hi and r.lo are both nonzero.
    const bool off = (d == x) & (d != 0.0) & (r.lo != 0.0) & ((r.lo < 0.0) != (r.hi < 0.0));
    return d - (off ? copysign(1.0, r.hi) : 0.0);
}

// ozaki_slice_step: the next digit d = trunc(r / 2^p) of r, and r -= d 2^p exactly. With
// |r| < 2^(p + beta), beta <= 26: |d| < 2^beta, and afterwards r has its old sign (or is 0) and
// |r| < 2^p. Exact: d 2^p is a float64, r.hi - d 2^p is representable (docs/ozaki.md) and
// two_sum renormalizes exactly.
DD_HD double ozaki_slice_step(dd& r, index_t p) {
    const double d = ozaki_digit(r, p);
    const double h = r.hi - scale2(d, p);
    two_sum(h, r.lo, r.hi, r.lo);
    return d;
}

// OzakiSum<double>: the exact sum of integer-valued float64 products, each below 2^53 in
// magnitude (fewer than 2^26 of them), as a normalized DD, times the power of two `scale`:
// two_sum chains the leading parts, the (integer) errors add exactly in lo. The scaling is exact
// for scale >= 2^-1000 (nonzero parts are at least 1).
template <class PRODUCT>
struct OzakiSum;
template <>
struct OzakiSum<double> {
    double hi = 0.0, lo = 0.0;
    DD_HD void add(double p) {
        double e;
        two_sum(hi, p, hi, e);
        lo += e;
    }
    DD_HD dd value(double scale) const {
        dd g;
        two_sum(hi, lo, g.hi, g.lo);
        g.hi *= scale;
        g.lo *= scale;
        return g;
    }
};

// OzakiSum<int>: the exact sum of int32 products (fewer than 2^31 of them) as a normalized DD,
// times the power of two `scale`: summed in int64 (exact, |sum| < 2^62), then split into its
// nearest float64 and the exact remainder (an integer, |.| <= 2^9). The scaling is exact for
// scale >= 2^-1000 (nonzero parts are at least 1).
template <>
struct OzakiSum<int> {
    static_assert(sizeof(int) == 4, "int32 products");
    long long sum = 0;
    DD_HD void add(int p) { sum += p; }
    DD_HD dd value(double scale) const {
        dd g;
        g.hi = double(sum);
        g.lo = double(sum - (long long)g.hi);
        g.hi *= scale;
        g.lo *= scale;
        return g;
    }
};

// ozaki_group: the OzakiSum of the `count` products p[c * plane], c = 0, 1, ... in order.
template <class PRODUCT>
DD_HD dd ozaki_group(const PRODUCT *p, index_t count, index_t plane, double scale) {
    OzakiSum<PRODUCT> s;
    for (index_t c = 0; c < count; ++c) s.add(p[c * plane]);
    return s.value(scale);
}

// ozaki_slice_entry: the digits t = 1..S of x against 2^(e - beta t) (ozaki_slice_step), digit t
// stored as DIGIT at out[(t - 1) * step]. DIGIT holds every |d| < 2^beta (double: beta <= 26;
// signed char: beta <= 7).
template <class DIGIT>
DD_HD void ozaki_slice_entry(dd x, index_t e, index_t slices, index_t beta, DIGIT *out,
                             index_t step) {
    for (index_t t = 0; t < slices; ++t)
        out[t * step] = DIGIT(ozaki_slice_step(x, e - beta * (t + 1)));
}

// ozaki_scale: x * 2^e for a DD x, exact unless the result underflows or passes Omega, the
// largest DD (DBL_MAX, 2^970 - 2^917): then (+-inf, 0), except at 2^1024 - 2^970 (hi scaled to
// 2^1024 = inf and lo to -2^970, the nearest to 2^1024 a normalized pair gets), which becomes
// Omega: the Ozaki sums may round Omega up by u^2/2 to it (docs/ozaki.md, "Range"), and Omega
// is 2^917 <= u^2 Omega / 2 from it. Signs mirrored below zero.
DD_HD dd ozaki_scale(dd x, index_t e) {
    const dd r = {scale2(x.hi, e), scale2(x.lo, e)};
    if (isfinite(r.hi)) return r;
    if (isfinite(x.hi) && fabs(scale2(x.hi, e - 1)) == 0x1p1023 && r.lo == copysign(0x1p970, -r.hi))
        return signbit(r.hi) ? dd{-0x1.fffffffffffffp1023, -0x1.fffffffffffffp969}
                             : dd{0x1.fffffffffffffp1023, 0x1.fffffffffffffp969};
    return dd{r.hi, 0.0};
}

// ozaki_accumulate_entry: acc[w] = g (first) or acc[w] + g with the variant's DD addition; the
// per-entry step of the accumulate kernels, on either device.
template <class V>
DD_HD void ozaki_accumulate_entry(dd g, bool first, double *acc_hi, double *acc_lo, index_t w) {
    if (!first) g = add_finite<V>(dd{acc_hi[w], acc_lo[w]}, g);
    acc_hi[w] = g.hi;
    acc_lo[w] = g.lo;
}

// ozaki_store_entry: C[off] = gemm_epilogue(r 2^e) (alpha, beta, flags as in gemm.h), stored
// canonically: the last step of the finish kernels of both schemes, on either device.
template <class V>
DD_HD void ozaki_store_entry(dd r, index_t e, dd alpha, dd beta, double *c_hi, double *c_lo,
                             index_t off, index_t flags) {
    r = gemm_epilogue<V>(ozaki_scale(r, e), alpha, beta, c_hi, c_lo, off, flags);
    c_hi[off] = canonical(r.hi);
    c_lo[off] = canonical(r.lo);
}

// ozaki_finish_entry: the last group g added to acc[w], then stored scaled by 2^e
// (ozaki_store_entry); the per-entry step of the finish kernels, on either device.
template <class V>
DD_HD void ozaki_finish_entry(dd g, const double *acc_hi, const double *acc_lo, index_t w,
                              index_t e, dd alpha, dd beta, double *c_hi, double *c_lo,
                              index_t off, index_t flags) {
    ozaki_store_entry<V>(add_finite<V>(dd{acc_hi[w], acc_lo[w]}, g), e, alpha, beta, c_hi, c_lo,
                         off, flags);
}

// ozaki_first_digit_visit: one product p of the scan's first-digit GEMM (docs/ozaki.md, "The lower
// bound"): the smallest positive one so far, and whether a zero lies where its row of op(A) and
// column of op(B) are both nonzero (live: then the first digits prove nothing).
DD_HD void ozaki_first_digit_visit(int p, bool live, int &smallest, int &dead) {
    if (p > 0)
        smallest = p < smallest ? p : smallest;
    else if (live)
        dead = 1;
}

#if !defined(__CUDACC__)
// The CPU kernels' loop over an R x C matrix: OpenMP over rows cut into pieces of OZAKI_PIECE
// columns (a team only from PARALLEL_MIN_ITEMS entries on, as DDBLAS_FOR_EACH); f(i, j0, len)
// does row i, columns j0 .. j0 + len - 1.
constexpr index_t OZAKI_PIECE = 64;
template <class F>
inline void ozaki_for_each_piece(index_t R, index_t C, F f) {
    const index_t pieces = (C + OZAKI_PIECE - 1) / OZAKI_PIECE, n = R * pieces;
#pragma omp parallel for schedule(static) firstprivate(f) if (R * C >= PARALLEL_MIN_ITEMS)
    for (index_t w = 0; w < n; ++w) {
        const index_t j0 = w % pieces * OZAKI_PIECE;
        f(w / pieces, j0, C - j0 < OZAKI_PIECE ? C - j0 : OZAKI_PIECE);
    }
}

// ozaki_sums_cpu: s[j] (zero on entry) += the products p[c * plane + j], c = 0 .. count - 1 in
// order, j < len: ozaki_group's sums, one product plane at a time across a piece (vectorised).
template <class PRODUCT>
inline void ozaki_sums_cpu(OzakiSum<PRODUCT> *s, const PRODUCT *p, index_t count, index_t plane,
                           index_t len) {
    for (index_t c = 0; c < count; ++c) {
        const PRODUCT *pc = p + c * plane;
        DDBLAS_SIMD for (index_t j = 0; j < len; ++j) s[j].add(pc[j]);
    }
}
#endif

}  // namespace ddblas

// ---- kernels ----
// slice: the digits t = 1..S of x[i, j] = (hi, lo)[i * x_rs + j * x_cs] against
// 2^(e - beta t), e = exps[i * e_rs + j * e_cs] (a row's or a column's exponent, |x| < 2^e),
// stored at out[i * o_rs + j * o_cs + o_t0 + (t - 1) * o_ts] (o_ts < 0: the slices in reverse
// order). The digits sum to x up to a remainder of x's sign below 2^(e - beta S). Digit types:
// double (ozaki-fp64) and signed char (ozaki-int8, beta = 7).
#define DDBLAS_OZAKI_SLICE_PARAMS(DIGIT)                                                           \
    ddblas::index_t R, ddblas::index_t C, ddblas::index_t slices, ddblas::index_t beta,            \
        const double *x_hi, const double *x_lo, ddblas::index_t x_rs, ddblas::index_t x_cs,        \
        const ddblas::index_t *exps, ddblas::index_t e_rs, ddblas::index_t e_cs, DIGIT *out,       \
        ddblas::index_t o_rs, ddblas::index_t o_cs, ddblas::index_t o_t0, ddblas::index_t o_ts

// accumulate: acc = the exact sum (ozaki_group) of the `count` products of each entry,
// products[c * M * ldp + i * ldp + j] (PRODUCT: double or int), times `scale` (first != 0), or
// acc + that with the variant's DD addition. acc is contiguous M x N.
#define DDBLAS_OZAKI_ACCUMULATE_PARAMS(PRODUCT)                                                    \
    ddblas::index_t M, ddblas::index_t N, ddblas::index_t count, const PRODUCT *products,          \
        ddblas::index_t ldp, double scale, ddblas::index_t first, double *acc_hi, double *acc_lo

// finish: the last group (s = 2) added to acc as in accumulate, the result scaled by
// 2^(row_exp[i] + col_exp[j]) and C[i, j] = gemm_epilogue (alpha, beta, flags as in gemm.h),
// stored canonically through C's strides.
#define DDBLAS_OZAKI_FINISH_PARAMS(PRODUCT)                                                        \
    ddblas::index_t M, ddblas::index_t N, ddblas::index_t count, const PRODUCT *products,          \
        ddblas::index_t ldp, double scale, const double *acc_hi, const double *acc_lo,             \
        const ddblas::index_t *row_exp, const ddblas::index_t *col_exp, double alpha_hi,           \
        double alpha_lo, double beta_hi, double beta_lo, double *c_hi, double *c_lo,               \
        ddblas::index_t c_rs, ddblas::index_t c_cs, ddblas::index_t flags

#if defined(__CUDACC__)
// GPU: one thread per entry (DDBLAS_FOR_EACH).
#define DDBLAS_OZAKI_SLICE_BODY(DIGIT)                                                             \
    const ddblas::index_t n = R * C;                                                               \
    DDBLAS_FOR_EACH(w, n) {                                                                        \
        const ddblas::index_t i = w / C, j = w % C, off = i * x_rs + j * x_cs;                     \
        const ddblas::dd x = {x_hi[off], x_lo[off]};                                               \
        ddblas::ozaki_slice_entry(x, exps[i * e_rs + j * e_cs], slices, beta,                      \
                                  out + i * o_rs + j * o_cs + o_t0, o_ts);                         \
    }
#define DDBLAS_OZAKI_ACCUMULATE_BODY(PRODUCT, V)                                                   \
    const ddblas::index_t n = M * N;                                                               \
    DDBLAS_FOR_EACH(w, n) {                                                                        \
        const ddblas::index_t i = w / N, j = w % N;                                                \
        ddblas::ozaki_accumulate_entry<ddblas::variants::V>(                                       \
            ddblas::ozaki_group(products + i * ldp + j, count, M * ldp, scale), first, acc_hi,     \
            acc_lo, w);                                                                            \
    }
#define DDBLAS_OZAKI_FINISH_BODY(PRODUCT, V)                                                       \
    const ddblas::index_t n = M * N;                                                               \
    const ddblas::dd alpha = {alpha_hi, alpha_lo}, beta = {beta_hi, beta_lo};                      \
    DDBLAS_FOR_EACH(w, n) {                                                                        \
        const ddblas::index_t i = w / N, j = w % N;                                                \
        ddblas::ozaki_finish_entry<ddblas::variants::V>(                                           \
            ddblas::ozaki_group(products + i * ldp + j, count, M * ldp, scale), acc_hi, acc_lo, w, \
            row_exp[i] + col_exp[j], alpha, beta, c_hi, c_lo, i * c_rs + j * c_cs, flags);        \
    }
#else
// CPU: row pieces (ozaki_for_each_piece), each digit or product across the piece's columns at a
// time (vectorised); every entry computes the GPU thread's sequence of operations.
#define DDBLAS_OZAKI_SLICE_BODY(DIGIT)                                                             \
    ddblas::ozaki_for_each_piece(R, C, [=](ddblas::index_t i, ddblas::index_t j0,                  \
                                           ddblas::index_t len) {                                  \
        ddblas::dd r[ddblas::OZAKI_PIECE];                                                         \
        ddblas::index_t e[ddblas::OZAKI_PIECE];                                                    \
        DIGIT d[ddblas::OZAKI_PIECE];                                                              \
        DDBLAS_SIMD for (ddblas::index_t j = 0; j < len; ++j) {                                    \
            const ddblas::index_t off = i * x_rs + (j0 + j) * x_cs;                                \
            r[j] = {x_hi[off], x_lo[off]};                                                         \
            e[j] = exps[i * e_rs + (j0 + j) * e_cs];                                               \
        }                                                                                          \
        DIGIT *o = out + i * o_rs + j0 * o_cs + o_t0;                                              \
        for (ddblas::index_t t = 0; t < slices; ++t) {                                             \
            DDBLAS_SIMD for (ddblas::index_t j = 0; j < len; ++j)                                  \
                d[j] = static_cast<DIGIT>(ddblas::ozaki_slice_step(r[j], e[j] - beta * (t + 1)));  \
            for (ddblas::index_t j = 0; j < len; ++j) o[j * o_cs + t * o_ts] = d[j];               \
        }                                                                                          \
    });
#define DDBLAS_OZAKI_ACCUMULATE_BODY(PRODUCT, V)                                                   \
    ddblas::ozaki_for_each_piece(M, N, [=](ddblas::index_t i, ddblas::index_t j0,                  \
                                           ddblas::index_t len) {                                  \
        ddblas::OzakiSum<PRODUCT> s[ddblas::OZAKI_PIECE];                                          \
        ddblas::ozaki_sums_cpu(s, products + i * ldp + j0, count, M * ldp, len);                   \
        DDBLAS_SIMD for (ddblas::index_t j = 0; j < len; ++j)                                      \
            ddblas::ozaki_accumulate_entry<ddblas::variants::V>(s[j].value(scale), first, acc_hi,  \
                                                                acc_lo, i * N + j0 + j);           \
    });
#define DDBLAS_OZAKI_FINISH_BODY(PRODUCT, V)                                                       \
    const ddblas::dd alpha = {alpha_hi, alpha_lo}, beta = {beta_hi, beta_lo};                      \
    ddblas::ozaki_for_each_piece(M, N, [=](ddblas::index_t i, ddblas::index_t j0,                  \
                                           ddblas::index_t len) {                                  \
        ddblas::OzakiSum<PRODUCT> s[ddblas::OZAKI_PIECE];                                          \
        ddblas::ozaki_sums_cpu(s, products + i * ldp + j0, count, M * ldp, len);                   \
        DDBLAS_SIMD for (ddblas::index_t j = 0; j < len; ++j)                                      \
            ddblas::ozaki_finish_entry<ddblas::variants::V>(                                       \
                s[j].value(scale), acc_hi, acc_lo, i * N + j0 + j, row_exp[i] + col_exp[j0 + j],   \
                alpha, beta, c_hi, c_lo, i * c_rs + (j0 + j) * c_cs, flags);                       \
    });
#endif

// first_digit_check: out[0] = min(out[0], the smallest positive p[i * ldp + j]), out[1] = 1 if
// some p[i * ldp + j] = 0 with live_rows[i] and live_cols[j] (ozaki_first_digit_visit), over
// the M x N products of the scan's first-digit GEMM; out enters as {a value above every product,
// 0}. The GPU reduces each warp and block, then one atomic each per block; the CPU an OpenMP
// reduction.
DDBLAS_KERNEL ddblas_ozaki_first_digit_check(ddblas::index_t M, ddblas::index_t N, const int *p,
                                             ddblas::index_t ldp, const bool *live_rows,
                                             const bool *live_cols, int *out) {
    const ddblas::index_t n = M * N;
    const int none = out[0];
    int smallest = none, dead = 0;
#if defined(__CUDACC__)
    DDBLAS_FOR_EACH(w, n) {
        const ddblas::index_t i = w / N, j = w % N;
        ddblas::ozaki_first_digit_visit(p[i * ldp + j], live_rows[i] && live_cols[j], smallest,
                                        dead);
    }
    __shared__ int warp_smallest[32], warp_dead[32];
    const unsigned all = 0xffffffffu;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    smallest = __reduce_min_sync(all, smallest);
    dead = __reduce_or_sync(all, dead);
    if (lane == 0) {
        warp_smallest[warp] = smallest;
        warp_dead[warp] = dead;
    }
    __syncthreads();
    if (warp == 0) {
        const bool mine = lane < (blockDim.x + 31) / 32;
        smallest = __reduce_min_sync(all, mine ? warp_smallest[lane] : none);
        dead = __reduce_or_sync(all, mine ? warp_dead[lane] : 0);
        if (lane == 0) {
            atomicMin(out, smallest);
            if (dead) atomicOr(out + 1, 1);
        }
    }
#else
#pragma omp parallel for reduction(min : smallest) reduction(| : dead) \
    if (n >= ddblas::PARALLEL_MIN_ITEMS)
    for (ddblas::index_t w = 0; w < n; ++w) {
        const ddblas::index_t i = w / N, j = w % N;
        ddblas::ozaki_first_digit_visit(p[i * ldp + j], live_rows[i] && live_cols[j], smallest,
                                        dead);
    }
    out[0] = smallest;
    out[1] = dead;
#endif
}

#define DDBLAS_OZAKI_SLICE_KERNEL(NAME, DIGIT)                                                     \
    DDBLAS_KERNEL NAME(DDBLAS_OZAKI_SLICE_PARAMS(DIGIT)) { DDBLAS_OZAKI_SLICE_BODY(DIGIT) }
DDBLAS_OZAKI_SLICE_KERNEL(ddblas_ozaki_slice, double)
DDBLAS_OZAKI_SLICE_KERNEL(ddblas_ozaki_slice_int8, signed char)
#define DDBLAS_OZAKI_ACCUMULATE_KERNEL(PREFIX, PRODUCT, V)                                         \
    DDBLAS_KERNEL ddblas_##PREFIX##_accumulate_##V(DDBLAS_OZAKI_ACCUMULATE_PARAMS(PRODUCT)) {      \
        DDBLAS_OZAKI_ACCUMULATE_BODY(PRODUCT, V)                                                   \
    }
#define DDBLAS_OZAKI_FINISH_KERNEL(PREFIX, PRODUCT, V)                                             \
    DDBLAS_KERNEL ddblas_##PREFIX##_finish_##V(DDBLAS_OZAKI_FINISH_PARAMS(PRODUCT)) {              \
        DDBLAS_OZAKI_FINISH_BODY(PRODUCT, V)                                                       \
    }

// Both kernels per variant: ddblas_ozaki_{accumulate,finish}_<V> over float64 products
// (ozaki-fp64), ddblas_ozaki_int8_{accumulate,finish}_<V> over int32 products (ozaki-int8).
#define DDBLAS_OZAKI_KERNELS(PREFIX, PRODUCT, V)          \
    DDBLAS_OZAKI_ACCUMULATE_KERNEL(PREFIX, PRODUCT, V)    \
    DDBLAS_OZAKI_FINISH_KERNEL(PREFIX, PRODUCT, V)
#define DDBLAS_OZAKI_FP64_KERNELS(PREFIX, V) DDBLAS_OZAKI_KERNELS(PREFIX, double, V)
#define DDBLAS_OZAKI_INT32_KERNELS(PREFIX, V) DDBLAS_OZAKI_KERNELS(PREFIX, int, V)
DDBLAS_EACH_VARIANT(DDBLAS_OZAKI_FP64_KERNELS, ozaki)
DDBLAS_EACH_VARIANT(DDBLAS_OZAKI_INT32_KERNELS, ozaki_int8)
