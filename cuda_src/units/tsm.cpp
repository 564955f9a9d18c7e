// The "tsm" family on the CPU: the sum of the pieces of K (the pieces themselves are gemm_cpu).
#include "cpu_entry.h"
#include "gemm.h"
DDBLAS_EACH_VARIANT(DDBLAS_GEMM_PIECES_KERNEL, gemm_pieces)
