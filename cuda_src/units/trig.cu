// The "trig" family on the GPU: sin, cos, tan, asin, acos, atan, atan2, hypot.
#include "gpu_entry.h"
#include "trigonometric_kernels.h"
