// elementary_kernels.h: the "elementary" family's kernels, ddblas_elem_<fn>_<variant>, written
// once for both backends with kernels.h's macros and elementwise.h's kernel shapes: f(DD) -> DD
// for the unary functions, DD (op) DD -> DD for pow and fmod. The functions are in elementary.h.
#pragma once
#include "elementary.h"
#include "kernels.h"

#define DDBLAS_ELEM_UNARY_KERNEL(FN, V)                                                        \
    DDBLAS_KERNEL ddblas_elem_##FN##_##V(ddblas::index_t n, DDBLAS_DD_PARAM(a), double *out_hi, \
                                         double *out_lo) {                                     \
        DDBLAS_FOR_EACH(i, n) {                                                                \
            ddblas::dd a = DDBLAS_DD_LOAD(a, i);                                               \
            ddblas::dd r = ddblas::FN<ddblas::variants::V>(a);                                 \
            DDBLAS_DD_STORE(out, i, r);                                                        \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, exp)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, exp2)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, expm1)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, log)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, log2)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, log10)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, log1p)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, sinh)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, cosh)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, tanh)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, arcsinh)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, arccosh)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_UNARY_KERNEL, arctanh)

#define DDBLAS_ELEM_POW_KERNEL(FN, V)                                                          \
    DDBLAS_KERNEL ddblas_elem_##FN##_##V(ddblas::index_t n, DDBLAS_DD_PARAM(a),                 \
                                         DDBLAS_DD_PARAM(b), double *out_hi, double *out_lo) {  \
        DDBLAS_FOR_EACH(i, n) {                                                                \
            ddblas::dd a = DDBLAS_DD_LOAD(a, i), b = DDBLAS_DD_LOAD(b, i);                     \
            ddblas::dd r = ddblas::FN<ddblas::variants::V>(a, b);                              \
            DDBLAS_DD_STORE(out, i, r);                                                        \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_POW_KERNEL, pow)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_POW_KERNEL, fmod)
