// The "elementwise" family on the GPU: DD arithmetic, comparisons, EFTs, sum, dot, simple functions.
#include "gpu_entry.h"
#include "elementwise.h"
