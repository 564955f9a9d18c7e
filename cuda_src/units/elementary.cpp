// The "elementary" family on the CPU: exp, log, power and the hyperbolic functions of DDs.
#include "cpu_entry.h"
#include "elementary_kernels.h"
