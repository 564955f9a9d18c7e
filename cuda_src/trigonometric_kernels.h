// trigonometric_kernels.h: the "trig" family's kernels (ddblas_trig_<fn>_<variant>), written once
// for both backends with kernels.h's macros over trigonometric.h's functions.
#pragma once
#include "kernels.h"
#include "trigonometric.h"

// ---- f(DD) -> DD per variant: sin, cos, tan, asin, acos, atan ----
#define DDBLAS_TRIG_UNARY_KERNEL(FN, V)                                                        \
    DDBLAS_KERNEL ddblas_trig_##FN##_##V(ddblas::index_t n, DDBLAS_DD_PARAM(a), double *out_hi, \
                                         double *out_lo) {                                     \
        DDBLAS_FOR_EACH(i, n) {                                                                \
            const ddblas::dd a = DDBLAS_DD_LOAD(a, i);                                         \
            const ddblas::dd r = ddblas::trig::FN<ddblas::variants::V>(a);                     \
            DDBLAS_DD_STORE(out, i, r);                                                        \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, sin)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, cos)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, tan)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, asin)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, acos)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, atan)

// ---- f(DD, DD) -> DD per variant: atan2, hypot ----
#define DDBLAS_TRIG_BINARY_KERNEL(FN, V)                                                       \
    DDBLAS_KERNEL ddblas_trig_##FN##_##V(ddblas::index_t n, DDBLAS_DD_PARAM(a),                 \
                                         DDBLAS_DD_PARAM(b), double *out_hi, double *out_lo) {  \
        DDBLAS_FOR_EACH(i, n) {                                                                \
            const ddblas::dd a = DDBLAS_DD_LOAD(a, i), b = DDBLAS_DD_LOAD(b, i);               \
            const ddblas::dd r = ddblas::trig::FN<ddblas::variants::V>(a, b);                  \
            DDBLAS_DD_STORE(out, i, r);                                                        \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_BINARY_KERNEL, atan2)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_BINARY_KERNEL, hypot)
