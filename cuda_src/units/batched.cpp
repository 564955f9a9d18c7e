// The "batched" family on the CPU: rgemm_batched's kernels (gemm_batched.h).
#include "cpu_entry.h"
#include "gemm_batched.h"
