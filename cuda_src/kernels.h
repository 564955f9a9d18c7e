// kernels.h: every elementwise and reduction kernel of ddblas, written once for both backends.
// The including entry file defines
//   DDBLAS_KERNEL           the function head: `extern "C" __global__ void` (GPU) or
//                           `extern "C" void` (CPU);
//   DDBLAS_FOR_EACH(i, n)   a loop header running the body for i in [0, n): a grid-stride loop
//                           (GPU) or an OpenMP loop (CPU). The count must be a variable named n.
// Kernel names are ddblas_<op>[_<variant>], variant in {fma,nofma}_{accurate,sloppy}; the Python
// backends build the same names (ddblas/_kernels.py).
//
// Array arguments are contiguous float64 arrays; an input with step 0 is one value broadcast over
// all n elements (step 1: element i). Reductions sum each chunk in increasing index order and the
// chunk results again in order, so the summation order is fixed and identical on CPU and GPU.
#pragma once
#include "dd.h"
#include "gemm.h"

namespace ddblas {
// Named types, not typedefs, so that every template instantiated for a variant carries its name
// in the symbol (e.g. ..._ZN6ddblas8variants14nofma_accurate...): the host check of
// `check-kernels` finds FMA-free code by the name "nofma" even in functions left out of line.
namespace variants {
struct fma_accurate : Variant<true, true> {};
struct fma_sloppy : Variant<true, false> {};
struct nofma_accurate : Variant<false, true> {};
struct nofma_sloppy : Variant<false, false> {};
}  // namespace variants
}  // namespace ddblas

#define DDBLAS_EACH_VARIANT(M, OP) \
    M(OP, fma_accurate) M(OP, fma_sloppy) M(OP, nofma_accurate) M(OP, nofma_sloppy)

#define DDBLAS_DD_PARAM(x) const double *x##_hi, const double *x##_lo, ddblas::index_t x##_step
#define DDBLAS_DD_LOAD(x, i) {x##_hi[(i) * x##_step], x##_lo[(i) * x##_step]}
// Every float64 a kernel stores goes through canonical() (dd_config.h): NaNs bit-identical.
#define DDBLAS_DD_STORE(out, i, r)            \
    out##_hi[i] = ddblas::canonical((r).hi); \
    out##_lo[i] = ddblas::canonical((r).lo)

// ---- DD (op) DD -> DD, per variant: add, sub, mul, div ----
#define DDBLAS_BINARY_KERNEL(OP, V)                                                          \
    DDBLAS_KERNEL ddblas_##OP##_##V(ddblas::index_t n, DDBLAS_DD_PARAM(a), DDBLAS_DD_PARAM(b), \
                                    double *out_hi, double *out_lo) {                         \
        DDBLAS_FOR_EACH(i, n) {                                                               \
            ddblas::dd a = DDBLAS_DD_LOAD(a, i), b = DDBLAS_DD_LOAD(b, i);                    \
            ddblas::dd r = ddblas::OP<ddblas::variants::V>(a, b);                             \
            DDBLAS_DD_STORE(out, i, r);                                                       \
        }                                                                                     \
    }
DDBLAS_EACH_VARIANT(DDBLAS_BINARY_KERNEL, add)
DDBLAS_EACH_VARIANT(DDBLAS_BINARY_KERNEL, sub)
DDBLAS_EACH_VARIANT(DDBLAS_BINARY_KERNEL, mul)
DDBLAS_EACH_VARIANT(DDBLAS_BINARY_KERNEL, div)

// ---- f(DD) -> DD: sqrt per variant; neg and abs (exact, no variant) ----
#define DDBLAS_UNARY_BODY(EXPR)                                      \
    DDBLAS_FOR_EACH(i, n) {                                          \
        ddblas::dd a = DDBLAS_DD_LOAD(a, i);                         \
        ddblas::dd r = EXPR;                                         \
        DDBLAS_DD_STORE(out, i, r);                                  \
    }
#define DDBLAS_UNARY_HEAD(NAME) \
    DDBLAS_KERNEL NAME(ddblas::index_t n, DDBLAS_DD_PARAM(a), double *out_hi, double *out_lo)
#define DDBLAS_UNARY_VARIANT_KERNEL(OP, V) \
    DDBLAS_UNARY_HEAD(ddblas_##OP##_##V) { DDBLAS_UNARY_BODY(ddblas::OP<ddblas::variants::V>(a)) }
DDBLAS_EACH_VARIANT(DDBLAS_UNARY_VARIANT_KERNEL, sqrt)
DDBLAS_UNARY_HEAD(ddblas_neg) { DDBLAS_UNARY_BODY(ddblas::neg(a)) }
DDBLAS_UNARY_HEAD(ddblas_abs) { DDBLAS_UNARY_BODY(ddblas::abs(a)) }

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

DDBLAS_KERNEL ddblas_split(ddblas::index_t n, const double *a, double *x, double *y) {
    DDBLAS_FOR_EACH(i, n) {
        double hi, lo;
        ddblas::split(a[i], hi, lo);
        x[i] = ddblas::canonical(hi);
        y[i] = ddblas::canonical(lo);
    }
}

// ---- instruction census (python -m ddblas bench fma): one DD operation per call on x[0..5],
// with no loop and no special-value handling, so the FP64 instructions of the compiled function
// are those of the operation alone: the variant's finite DD add, its unguarded product (as in
// GEMM) and the GEMM step madd (dd.h). ddblas/_fmastudy.py counts them in SASS or assembly. ----
#define DDBLAS_CENSUS_KERNEL(NAME, EXPR, V)                                                  \
    DDBLAS_KERNEL ddblas_census_##NAME##_##V(const double *x, double *out) {                 \
        typedef ddblas::variants::V Var;                                                     \
        const ddblas::dd a = {x[0], x[1]}, b = {x[2], x[3]}, c = {x[4], x[5]};               \
        const ddblas::dd r = EXPR;                                                           \
        (void)c; /* only madd reads a third operand */                                       \
        out[0] = r.hi;                                                                       \
        out[1] = r.lo;                                                                       \
    }
#define DDBLAS_CENSUS_KERNELS(UNUSED, V)                                                     \
    DDBLAS_CENSUS_KERNEL(add, ddblas::add_finite<Var>(a, b), V)                              \
    DDBLAS_CENSUS_KERNEL(mul, ddblas::mul_unguarded<Var>(a, b), V)                           \
    DDBLAS_CENSUS_KERNEL(madd, ddblas::madd<Var>(c, a, b), V)
DDBLAS_EACH_VARIANT(DDBLAS_CENSUS_KERNELS, census)

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
            ddblas::dd acc = {h[first], l[first]};                                            \
            for (ddblas::index_t k = first + 1; k < end; ++k) {                               \
                ddblas::dd x = {h[k], l[k]};                                                  \
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

// ---- GEMM (gemm.h) ----
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
DDBLAS_EACH_VARIANT(DDBLAS_GEMM_NAIVE_KERNEL, gemm_naive)

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
DDBLAS_EACH_VARIANT(DDBLAS_GEMM_PIECES_KERNEL, gemm_pieces)

#if !defined(__CUDACC__)
#include "gemm_cpu.h"
// cpu: the CPU twin (gemm_cpu.h): packed panels, TM x TN micro-tiles vectorised over columns,
// OpenMP over MC x NC blocks of C (the kernel starts its own team; the work count is unused).
#define DDBLAS_GEMM_CPU_KERNEL(OP, V)                                                        \
    DDBLAS_KERNEL ddblas_##OP##_##V(DDBLAS_GEMM_PARAMS) {                                    \
        ddblas::gemm_cpu<ddblas::variants::V, ddblas::CPU_TM, ddblas::CPU_TN, ddblas::CPU_MC, \
                         ddblas::CPU_NC, ddblas::CPU_KC>(DDBLAS_GEMM_ARGS);                  \
    }
DDBLAS_EACH_VARIANT(DDBLAS_GEMM_CPU_KERNEL, gemm_cpu)

// madd_ceiling_cpu: the register-resident madd rate on all threads (gemm_cpu.h); returns the
// number of DD multiply-adds done.
#define DDBLAS_MADD_CEILING_CPU_KERNEL(OP, V)                                                 \
    extern "C" ddblas::index_t ddblas_##OP##_##V(ddblas::index_t iters, double *sink) {       \
        return ddblas::madd_ceiling_cpu<ddblas::variants::V, ddblas::CPU_TM, ddblas::CPU_TN>( \
            iters, sink);                                                                     \
    }
DDBLAS_EACH_VARIANT(DDBLAS_MADD_CEILING_CPU_KERNEL, madd_ceiling_cpu)

// The OpenMP thread count of the calling thread's later kernels: set (n >= 1) and/or read.
extern "C" int ddblas_cpu_threads(int n) { return ddblas::cpu_threads(n); }

// The blocking this library was built with: TM, TN, MC, NC, KC into out[0..4].
extern "C" void ddblas_gemm_cpu_blocking(ddblas::index_t *out) {
    const ddblas::index_t sizes[5] = {ddblas::CPU_TM, ddblas::CPU_TN, ddblas::CPU_MC,
                                      ddblas::CPU_NC, ddblas::CPU_KC};
    for (int i = 0; i < 5; ++i) out[i] = sizes[i];
}
#endif

// ---- Ozaki scheme I (ozaki.h): slicing, accumulation, scale-back of ozaki-fp64 and -int8 ----
#include "ozaki.h"
