// elementwise.h: every elementwise and reduction kernel (the "elementwise" family: DD arithmetic,
// comparisons, error-free transformations, sum and dot, the simple functions of dd_simple.h),
// written once for both backends with kernels.h's macros.
#pragma once
#include "kernels.h"
#include "dd_simple.h"

// ---- DD (op) DD -> DD, per variant: add, sub, mul, div ----
#define DDBLAS_BINARY_KERNEL(OP, V) \
    DDBLAS_BINARY_KERNEL_OF(ddblas_##OP##_##V, ddblas::OP<ddblas::variants::V>(a, b))
DDBLAS_EACH_VARIANT(DDBLAS_BINARY_KERNEL, add)
DDBLAS_EACH_VARIANT(DDBLAS_BINARY_KERNEL, sub)
DDBLAS_EACH_VARIANT(DDBLAS_BINARY_KERNEL, mul)
DDBLAS_EACH_VARIANT(DDBLAS_BINARY_KERNEL, div)

// ---- f(DD) -> DD: sqrt per variant; neg and abs (exact, no variant) ----
#define DDBLAS_UNARY_VARIANT_KERNEL(OP, V) \
    DDBLAS_UNARY_KERNEL_OF(ddblas_##OP##_##V, ddblas::OP<ddblas::variants::V>(a))
DDBLAS_EACH_VARIANT(DDBLAS_UNARY_VARIANT_KERNEL, sqrt)
DDBLAS_UNARY_KERNEL_OF(ddblas_neg, ddblas::neg(a))
DDBLAS_UNARY_KERNEL_OF(ddblas_abs, ddblas::abs(a))

// ---- DD (compare) DD -> bool ----
#define DDBLAS_COMPARE_KERNEL(OP)                                                          \
    DDBLAS_KERNEL ddblas_##OP(ddblas::index_t n, DDBLAS_DD_PARAM(a), DDBLAS_DD_PARAM(b),    \
                              bool *out) {                                                 \
        DDBLAS_FOR_EACH(i, n) {                                                            \
            ddblas::dd a = DDBLAS_DD_LOAD(a, i), b = DDBLAS_DD_LOAD(b, i);                 \
            out[i] = ddblas::OP(a, b);                                                     \
        }                                                                                  \
    }
DDBLAS_COMPARE_KERNEL(equal)
DDBLAS_COMPARE_KERNEL(not_equal)
DDBLAS_COMPARE_KERNEL(less)
DDBLAS_COMPARE_KERNEL(less_equal)
DDBLAS_COMPARE_KERNEL(greater)
DDBLAS_COMPARE_KERNEL(greater_equal)

// ---- error-free transformations on float64 arrays: (a, b) -> (x, y) ----
#define DDBLAS_EFT2_KERNEL(OP)                                                              \
    DDBLAS_KERNEL ddblas_##OP(ddblas::index_t n, const double *a, ddblas::index_t a_step,    \
                              const double *b, ddblas::index_t b_step, double *x, double *y) { \
        DDBLAS_FOR_EACH(i, n) {                                                              \
            double s, t;                                                                     \
            ddblas::OP(a[i * a_step], b[i * b_step], s, t);                                  \
            x[i] = ddblas::canonical(s);                                                     \
            y[i] = ddblas::canonical(t);                                                     \
        }                                                                                    \
    }
DDBLAS_EFT2_KERNEL(two_sum)
DDBLAS_EFT2_KERNEL(fast_two_sum)
DDBLAS_EFT2_KERNEL(two_prod_fma)
DDBLAS_EFT2_KERNEL(two_prod_dekker)

// normalize: (x_hi, x_lo)[i] := the pair (hi, lo)[i] as DDArray(normalize=True) stores it
// (normalized); changed[i] where that is not the pair given. Pairs kept are stored bit for bit,
// new ones canonically.
DDBLAS_KERNEL ddblas_normalize(ddblas::index_t n, const double *hi, ddblas::index_t hi_step,
                               const double *lo, ddblas::index_t lo_step, double *x_hi,
                               double *x_lo, bool *changed) {
    DDBLAS_FOR_EACH(i, n) {
        bool c;
        const ddblas::dd r = ddblas::normalized(hi[i * hi_step], lo[i * lo_step], c);
        x_hi[i] = c ? ddblas::canonical(r.hi) : r.hi;
        x_lo[i] = c ? ddblas::canonical(r.lo) : r.lo;
        changed[i] = c;
    }
}

DDBLAS_KERNEL ddblas_split(ddblas::index_t n, const double *a, double *x, double *y) {
    DDBLAS_FOR_EACH(i, n) {
        double hi, lo;
        ddblas::split(a[i], hi, lo);
        x[i] = ddblas::canonical(hi);
        y[i] = ddblas::canonical(lo);
    }
}

// ---- reductions in a fixed order ----
// sum: in is rows x len (row-major); out[r, c] = sum of in[r, c*chunk : (c+1)*chunk] taken left
// to right, for c < ceil(len / chunk). Calling it again on out until one chunk is left gives the
// row sums in an order fixed by len and chunk alone.
#define DDBLAS_SUM_KERNEL(OP, V)                                                            \
    DDBLAS_KERNEL ddblas_##OP##_##V(ddblas::index_t rows, ddblas::index_t len,                \
                                    ddblas::index_t chunk, const double *in_hi,               \
                                    const double *in_lo, double *out_hi, double *out_lo) {    \
        const ddblas::index_t chunks = (len + chunk - 1) / chunk;                             \
        const ddblas::index_t n = rows * chunks;                                              \
        DDBLAS_FOR_EACH(t, n) {                                                               \
            const ddblas::index_t row = t / chunks, first = (t % chunks) * chunk;             \
            const ddblas::index_t end = first + chunk < len ? first + chunk : len;            \
            const double *h = in_hi + row * len, *l = in_lo + row * len;                      \
            ddblas::dd acc = ddblas::loaded(h[first], l[first]);                              \
            for (ddblas::index_t k = first + 1; k < end; ++k) {                               \
                ddblas::dd x = ddblas::loaded(h[k], l[k]);                                    \
                acc = ddblas::add<ddblas::variants::V>(acc, x);                               \
            }                                                                                 \
            DDBLAS_DD_STORE(out, t, acc);                                                     \
        }                                                                                     \
    }
DDBLAS_EACH_VARIANT(DDBLAS_SUM_KERNEL, sum)

// dot: out[c] = sum of x[k] * y[k] over k in chunk c, left to right (each product a DD mul,
// each sum a DD add); the chunk results are then reduced by the sum kernel.
#define DDBLAS_DOT_KERNEL(OP, V)                                                            \
    DDBLAS_KERNEL ddblas_##OP##_##V(ddblas::index_t len, ddblas::index_t chunk,              \
                                    DDBLAS_DD_PARAM(x), DDBLAS_DD_PARAM(y), double *out_hi,   \
                                    double *out_lo) {                                         \
        const ddblas::index_t n = (len + chunk - 1) / chunk;                                  \
        DDBLAS_FOR_EACH(c, n) {                                                               \
            const ddblas::index_t first = c * chunk;                                          \
            const ddblas::index_t end = first + chunk < len ? first + chunk : len;            \
            ddblas::dd acc = {0.0, 0.0};                                                      \
            for (ddblas::index_t k = first; k < end; ++k) {                                   \
                ddblas::dd xk = DDBLAS_DD_LOAD(x, k), yk = DDBLAS_DD_LOAD(y, k);              \
                ddblas::dd p = ddblas::mul<ddblas::variants::V>(xk, yk);                      \
                acc = k == first ? p : ddblas::add<ddblas::variants::V>(acc, p);              \
            }                                                                                 \
            DDBLAS_DD_STORE(out, c, acc);                                                     \
        }                                                                                     \
    }
DDBLAS_EACH_VARIANT(DDBLAS_DOT_KERNEL, dot)

// ---- the simple functions of dd_simple.h ----
// f(DD) -> DD, exact: rounding to integers and sign; per variant: square, reciprocal.
DDBLAS_UNARY_KERNEL_OF(ddblas_floor, ddblas::round_to_integer<ddblas::Rounding::down>(a))
DDBLAS_UNARY_KERNEL_OF(ddblas_ceil, ddblas::round_to_integer<ddblas::Rounding::up>(a))
DDBLAS_UNARY_KERNEL_OF(ddblas_trunc, ddblas::round_to_integer<ddblas::Rounding::toward_zero>(a))
DDBLAS_UNARY_KERNEL_OF(ddblas_rint, ddblas::round_to_integer<ddblas::Rounding::to_nearest_even>(a))
DDBLAS_UNARY_KERNEL_OF(ddblas_sign, ddblas::sign(a))
DDBLAS_EACH_VARIANT(DDBLAS_UNARY_VARIANT_KERNEL, square)
DDBLAS_EACH_VARIANT(DDBLAS_UNARY_VARIANT_KERNEL, reciprocal)

// DD -> bool: classification.
#define DDBLAS_CLASSIFY_KERNEL(OP)                                                           \
    DDBLAS_KERNEL ddblas_##OP(ddblas::index_t n, DDBLAS_DD_PARAM(a), bool *out) {            \
        DDBLAS_FOR_EACH(i, n) {                                                              \
            ddblas::dd a = DDBLAS_DD_LOAD(a, i);                                             \
            out[i] = ddblas::OP(a);                                                          \
        }                                                                                    \
    }
DDBLAS_CLASSIFY_KERNEL(is_nan)
DDBLAS_CLASSIFY_KERNEL(is_inf)
DDBLAS_CLASSIFY_KERNEL(is_finite)

// DD (op) DD -> DD, exact: copy_sign, maximum, minimum and the NaN-ignoring maximum_number,
// minimum_number.
#define DDBLAS_BINARY_EXACT_KERNEL(OP) DDBLAS_BINARY_KERNEL_OF(ddblas_##OP, ddblas::OP(a, b))
DDBLAS_BINARY_EXACT_KERNEL(copy_sign)
DDBLAS_BINARY_EXACT_KERNEL(maximum)
DDBLAS_BINARY_EXACT_KERNEL(minimum)
DDBLAS_BINARY_EXACT_KERNEL(maximum_number)
DDBLAS_BINARY_EXACT_KERNEL(minimum_number)

// DD ^ int64 -> DD per variant: power (binary powering; exponent step 0: one exponent for all).
#define DDBLAS_POWER_KERNEL(OP, V)                                                           \
    DDBLAS_KERNEL ddblas_##OP##_##V(ddblas::index_t n, DDBLAS_DD_PARAM(a),                    \
                                    const long long *exponent, ddblas::index_t exponent_step, \
                                    double *out_hi, double *out_lo) {                         \
        DDBLAS_FOR_EACH(i, n) {                                                               \
            ddblas::dd a = DDBLAS_DD_LOAD(a, i);                                              \
            ddblas::dd r = ddblas::OP<ddblas::variants::V>(a, exponent[i * exponent_step]);   \
            DDBLAS_DD_STORE(out, i, r);                                                       \
        }                                                                                     \
    }
DDBLAS_EACH_VARIANT(DDBLAS_POWER_KERNEL, power)
