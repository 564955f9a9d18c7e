// gpu_kernels.cu: the GPU backend's translation unit. Compiled by ddblas/_gpu.py with NVRTC
// (--fmad=false) into a cubin loaded through CuPy.
#define DDBLAS_KERNEL extern "C" __global__ void
#define DDBLAS_FOR_EACH(i, n)                                                       \
    for (ddblas::index_t i = blockIdx.x * (ddblas::index_t)blockDim.x + threadIdx.x; i < n; \
         i += (ddblas::index_t)blockDim.x * gridDim.x)
#include "kernels.h"
#include "gemm_gpu.h"
#include "gemm_batched.h"
