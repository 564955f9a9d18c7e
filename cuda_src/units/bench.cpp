// The "bench" family on the CPU (benchmarks only): the instruction-census kernels of the FMA
// study and the register-resident madd ceiling.
#include "cpu_entry.h"
#include "census.h"
#include "gemm_cpu.h"
DDBLAS_EACH_VARIANT(DDBLAS_MADD_CEILING_CPU_KERNEL, madd_ceiling_cpu)
