// The "elementwise" family on the GPU: DD arithmetic, comparisons, EFTs, sum and dot.
#include "gpu_entry.h"
#include "elementwise.h"
