// The "linalg" family on the GPU: the base-case kernels of ddblas.linalg (pivot search, laswp,
// LU column step, small trsm, small Cholesky).
#include "gpu_entry.h"
#include "linalg.h"
