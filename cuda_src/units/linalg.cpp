// The "linalg" family on the CPU: the base-case kernels of ddblas.linalg (pivot search, laswp,
// LU column step, small trsm, small Cholesky).
#include "cpu_entry.h"
#include "linalg.h"
