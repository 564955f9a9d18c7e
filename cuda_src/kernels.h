// kernels.h: what every kernel unit shares, on both backends: the named variants and the macros
// that write a kernel once. The unit's entry header (cpu_entry.h, gpu_entry.h) defines
//   DDBLAS_KERNEL           the function head: `extern "C" __global__ void` (GPU) or
//                           `extern "C" void` (CPU);
//   DDBLAS_FOR_EACH(i, n)   a loop header running the body for i in [0, n): a grid-stride loop
//                           (GPU) or an OpenMP loop (CPU). The count must be a variable named n.
//   DDBLAS_FOR_EACH_SYSTEM(i, count, madds)  the same for heavy items (a whole small system of
//                           about `madds` multiply-adds each): the CPU runs OpenMP from
//                           count x madds >= PARALLEL_MIN_MADDS (linalg_batched.h).
// Kernel names are ddblas_<op>[_<variant>], variant in {fma,nofma}_{accurate,sloppy}; the Python
// backends build the same names (ddblas/_kernels.py).
//
// Array arguments are contiguous float64 arrays; an input with step 0 is one value broadcast over
// all n elements (step 1: element i). Reductions sum each chunk in increasing index order and the
// chunk results again in order, so the summation order is fixed and identical on CPU and GPU.
#pragma once
#include "dd.h"

// DDBLAS_UNROLL: unroll the next loop (constant trip count) on both compilers.
#if defined(__CUDACC__)
#define DDBLAS_UNROLL _Pragma("unroll")
#else
#define DDBLAS_UNROLL _Pragma("GCC unroll 32")
#endif

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

// DDBLAS_EACH_VARIANT(M, OP): M(OP, V) for every variant V; DDBLAS_FOR_VARIANTS(M, ...):
// M(V, ...). A unit compiled with -DDDBLAS_UNIT_VARIANT=<V> (the families that build.py splits
// by variant, VARIANT_FAMILIES) instantiates that variant only. DDBLAS_APPLY expands the variant
// macro before M pastes it into kernel names.
#define DDBLAS_APPLY(M, ...) M(__VA_ARGS__)
#ifdef DDBLAS_UNIT_VARIANT
#define DDBLAS_EACH_VARIANT(M, OP) DDBLAS_APPLY(M, OP, DDBLAS_UNIT_VARIANT)
#define DDBLAS_FOR_VARIANTS(M, ...) DDBLAS_APPLY(M, DDBLAS_UNIT_VARIANT, __VA_ARGS__)
#else
#define DDBLAS_EACH_VARIANT(M, OP) \
    M(OP, fma_accurate) M(OP, fma_sloppy) M(OP, nofma_accurate) M(OP, nofma_sloppy)
#define DDBLAS_FOR_VARIANTS(M, ...)                                    \
    M(fma_accurate, __VA_ARGS__) M(fma_sloppy, __VA_ARGS__)            \
    M(nofma_accurate, __VA_ARGS__) M(nofma_sloppy, __VA_ARGS__)
#endif

#define DDBLAS_DD_PARAM(x) const double *x##_hi, const double *x##_lo, ddblas::index_t x##_step
// Operands whose lo is not finite are read as normalisation would make them (dd_config.h).
#define DDBLAS_DD_LOAD(x, i) ddblas::loaded(x##_hi[(i) * x##_step], x##_lo[(i) * x##_step])
// Every float64 a kernel stores goes through canonical() (dd_config.h): NaNs bit-identical.
#define DDBLAS_DD_STORE(out, i, r)            \
    out##_hi[i] = ddblas::canonical((r).hi); \
    out##_lo[i] = ddblas::canonical((r).lo)

// The elementwise kernel shapes of every family: NAME(n, a, out) and NAME(n, a, b, out) with
// out[i] = EXPR, EXPR a DD expression of the DD operands `a` (and `b`) at i.
#define DDBLAS_UNARY_KERNEL_OF(NAME, EXPR)                                                    \
    DDBLAS_KERNEL NAME(ddblas::index_t n, DDBLAS_DD_PARAM(a), double *out_hi, double *out_lo) { \
        DDBLAS_FOR_EACH(i, n) {                                                                \
            const ddblas::dd a = DDBLAS_DD_LOAD(a, i);                                         \
            const ddblas::dd r = EXPR;                                                         \
            DDBLAS_DD_STORE(out, i, r);                                                        \
        }                                                                                      \
    }
#define DDBLAS_BINARY_KERNEL_OF(NAME, EXPR)                                                   \
    DDBLAS_KERNEL NAME(ddblas::index_t n, DDBLAS_DD_PARAM(a), DDBLAS_DD_PARAM(b),              \
                       double *out_hi, double *out_lo) {                                       \
        DDBLAS_FOR_EACH(i, n) {                                                                \
            const ddblas::dd a = DDBLAS_DD_LOAD(a, i), b = DDBLAS_DD_LOAD(b, i);               \
            const ddblas::dd r = EXPR;                                                         \
            DDBLAS_DD_STORE(out, i, r);                                                        \
        }                                                                                      \
    }
