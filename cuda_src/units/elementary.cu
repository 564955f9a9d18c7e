// The "elementary" family on the GPU: exp, log, power and the hyperbolic functions of DDs.
#include "gpu_entry.h"
#include "elementary_kernels.h"
