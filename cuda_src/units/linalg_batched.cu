// The "linalg_batched" family on the GPU: batched small LU, solve and det (linalg_batched.h).
#include "gpu_entry.h"
#include "linalg_batched.h"
