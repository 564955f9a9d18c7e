// cpu_kernels.cpp: the CPU backend's translation unit. Compiled by ddblas/_cpu.py with the system
// C++ compiler (-O3 -ffp-contract=off, no fast-math, OpenMP) into a shared library.
#define DDBLAS_KERNEL extern "C" void
// Small arrays stay on one thread: starting the OpenMP team costs more than the work.
#define DDBLAS_FOR_EACH(i, n) \
    _Pragma("omp parallel for schedule(static) if (n >= 16384)") for (ddblas::index_t i = 0; i < n; ++i)
#include "kernels.h"
#include "gemm_batched.h"
