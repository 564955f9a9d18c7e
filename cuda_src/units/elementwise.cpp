// The "elementwise" family on the CPU: DD arithmetic, comparisons, EFTs, sum and dot.
#include "cpu_entry.h"
#include "elementwise.h"
