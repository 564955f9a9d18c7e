// pivot.h: the pivot rule of every LU with partial pivoting (linalg.h's panels and column
// steps, linalg_batched.h's small systems), named once so that any search order, sequential or
// a tree, picks the same row on both devices.
#pragma once
#include "dd.h"

namespace ddblas {
namespace linalg {

// pivot_beats: whether |a| = x in row i is the better pivot than y in row j (i != j): the larger
// magnitude (exact DD compare, a NaN low part counting as -inf), the smaller row among equals
// (LAPACK idamax's tie rule), any number before NaN. A strict total order, so every reduction
// order picks the same row.
DD_HD bool pivot_beats(dd x, index_t i, dd y, index_t j) {
    const bool x_nan = isnan(x.hi), y_nan = isnan(y.hi);
    if (x_nan != y_nan) return y_nan;
    if (!x_nan) {
        if (x.hi != y.hi) return x.hi > y.hi;
        const double x_lo = isnan(x.lo) ? -infinity() : x.lo;
        const double y_lo = isnan(y.lo) ? -infinity() : y.lo;
        if (x_lo != y_lo) return x_lo > y_lo;
    }
    return i < j;
}

}  // namespace linalg
}  // namespace ddblas
