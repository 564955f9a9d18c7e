// elementary_kernels.h: the "elementary" family's kernels, ddblas_elem_<fn>_<variant>, written
// once for both backends with kernels.h's macros and elementwise kernel shapes: f(DD) -> DD
// for the unary functions, DD (op) DD -> DD for pow and fmod. The functions are in elementary.h.
#pragma once
#include "elementary.h"
#include "kernels.h"

#define DDBLAS_ELEM_UNARY_KERNEL(FN, V) \
    DDBLAS_UNARY_KERNEL_OF(ddblas_elem_##FN##_##V, ddblas::FN<ddblas::variants::V>(a))
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

#define DDBLAS_ELEM_BINARY_KERNEL(FN, V) \
    DDBLAS_BINARY_KERNEL_OF(ddblas_elem_##FN##_##V, ddblas::FN<ddblas::variants::V>(a, b))
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_BINARY_KERNEL, pow)
DDBLAS_EACH_VARIANT(DDBLAS_ELEM_BINARY_KERNEL, fmod)
