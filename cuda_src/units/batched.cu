// The "batched" family on the GPU: rgemm_batched's kernels (gemm_batched.h).
#include "gpu_entry.h"
#include "gemm_batched.h"
