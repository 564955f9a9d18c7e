// The "elementwise" family on the CPU: DD arithmetic, comparisons, EFTs, sum, dot, simple functions.
#include "cpu_entry.h"
#include "elementwise.h"
