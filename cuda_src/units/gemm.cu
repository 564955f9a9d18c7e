// The "gemm" family on the GPU: the naive reference kernel and the classic shared-memory kernels
// (tiled, b2, b4: the rows of geometry.h's DDBLAS_GEMM_CLASSIC_SHAPES).
#include "gpu_entry.h"
#include "gemm_gpu.h"
DDBLAS_EACH_VARIANT(DDBLAS_GEMM_NAIVE_KERNEL, gemm_naive)
DDBLAS_GEMM_CLASSIC_SHAPES(DDBLAS_GEMM_SHAPE_KERNELS)
