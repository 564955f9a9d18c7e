// gpu_entry.h: the GPU backend's kernel macros, included first by every GPU unit (units/*.cu,
// compiled by ddblas/_gpu.py with NVRTC, --fmad=false, into one cubin per family).
#pragma once
#define DDBLAS_KERNEL extern "C" __global__ void
#define DDBLAS_FOR_EACH(i, n)                                                       \
    for (ddblas::index_t i = blockIdx.x * (ddblas::index_t)blockDim.x + threadIdx.x; i < n; \
         i += (ddblas::index_t)blockDim.x * gridDim.x)
// Heavy items (a whole small system each; madds: the CPU's measure of one): the same loop.
#define DDBLAS_FOR_EACH_SYSTEM(i, count, madds)                                            \
    for (ddblas::index_t i = blockIdx.x * (ddblas::index_t)blockDim.x + threadIdx.x; i < count; \
         i += (ddblas::index_t)blockDim.x * gridDim.x)
