// The "tsm" family on the GPU: TSM2 kernels (geometry.h's DDBLAS_GEMM_TSM_SHAPES) and the sum of
// the pieces of K.
#include "gpu_entry.h"
#include "gemm_gpu.h"
DDBLAS_EACH_VARIANT(DDBLAS_GEMM_PIECES_KERNEL, gemm_pieces)
DDBLAS_GEMM_TSM_SHAPES(DDBLAS_GEMM_SHAPE_KERNELS)
