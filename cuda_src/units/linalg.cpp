// The "linalg" family on the CPU: the base-case kernels of ddblas.linalg (pivot search, laswp,
// LU column step, small trsm, small Cholesky) and the Jacobi rounds.
#include "cpu_entry.h"
#include "jacobi.h"
#include "linalg.h"
