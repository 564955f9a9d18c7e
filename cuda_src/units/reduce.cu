// The "reduce" family on the GPU: prod, squared deviations (var, std), cumsum, cumprod.
#include "gpu_entry.h"
#include "reductions.h"
