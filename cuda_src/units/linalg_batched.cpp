// The "linalg_batched" family on the CPU: batched small LU, solve and det (linalg_batched.h).
#include "cpu_entry.h"
#include "linalg_batched.h"
