// The "reduce" family on the CPU: prod, squared deviations (var, std), cumsum, cumprod.
#include "cpu_entry.h"
#include "reductions.h"
