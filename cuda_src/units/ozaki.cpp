// The "ozaki" family on the CPU: slicing, accumulation and scale-back of Ozaki scheme I (ozaki.h).
#include "cpu_entry.h"
#include "ozaki.h"
