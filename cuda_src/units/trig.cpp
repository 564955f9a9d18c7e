// The "trig" family on the CPU: sin, cos, tan, asin, acos, atan, atan2, hypot.
#include "cpu_entry.h"
#include "trigonometric_kernels.h"
