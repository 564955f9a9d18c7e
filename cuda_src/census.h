// census.h: the instruction-census kernels of the FMA study (the "bench" family).
#pragma once
#include "kernels.h"

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
