// The "linalg" family on the GPU: the base-case kernels of ddblas.linalg (pivot search, laswp,
// LU column step, small trsm, small Cholesky) and the Jacobi rounds.
#include "gpu_entry.h"
#include "jacobi.h"
#include "linalg.h"
