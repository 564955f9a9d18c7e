// trigonometric_kernels.h: the "trig" family's kernels (ddblas_trig_<fn>_<variant>), written once
// for both backends with kernels.h's macros over trigonometric.h's functions.
#pragma once
#include "kernels.h"
#include "trigonometric.h"

// ---- f(DD) -> DD per variant: sin, cos, tan, asin, acos, atan ----
#define DDBLAS_TRIG_UNARY_KERNEL(FN, V) \
    DDBLAS_UNARY_KERNEL_OF(ddblas_trig_##FN##_##V, ddblas::trig::FN<ddblas::variants::V>(a))
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, sin)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, cos)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, tan)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, asin)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, acos)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_UNARY_KERNEL, atan)

// ---- f(DD, DD) -> DD per variant: atan2, hypot ----
#define DDBLAS_TRIG_BINARY_KERNEL(FN, V) \
    DDBLAS_BINARY_KERNEL_OF(ddblas_trig_##FN##_##V, ddblas::trig::FN<ddblas::variants::V>(a, b))
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_BINARY_KERNEL, atan2)
DDBLAS_EACH_VARIANT(DDBLAS_TRIG_BINARY_KERNEL, hypot)
