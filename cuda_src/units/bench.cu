// The "bench" family on the GPU (benchmarks only): the instruction-census kernels of the FMA
// study and the in-register madd ceiling.
#include "gpu_entry.h"
#include "census.h"
#include "gemm_gpu.h"
DDBLAS_EACH_VARIANT(DDBLAS_MADD_CEILING_KERNEL, madd_ceiling)
