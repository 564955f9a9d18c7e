// The "ozaki" family on the GPU: slicing, accumulation and scale-back of Ozaki scheme I (ozaki.h) and
// the residues and reconstruction of Ozaki scheme II (ozaki2.h).
#include "gpu_entry.h"
#include "ozaki.h"
#include "ozaki2.h"
