// The "ozaki" family on the GPU: slicing, accumulation and scale-back of Ozaki scheme I (ozaki.h).
#include "gpu_entry.h"
#include "ozaki.h"
