// The "gemm" family on the CPU: the naive reference kernel and the blocked, vectorised gemm_cpu.
#include "cpu_entry.h"
#include "gemm_cpu.h"
DDBLAS_EACH_VARIANT(DDBLAS_GEMM_NAIVE_KERNEL, gemm_naive)
DDBLAS_EACH_VARIANT(DDBLAS_GEMM_CPU_KERNEL, gemm_cpu)
