// reductions.h: the "reduce" family: fixed-order DD reductions and scans beyond sum and dot
// (elementwise.h): prod, the sum of squared deviations of var/std, cumsum and cumprod, written
// once for both backends with kernels.h's macros. Bounds (docs/algorithms.md, "Reductions"),
// with c_add, c_mul the constants of dd.h's add and mul for the variant:
//   prod (n factors, any chunking)        |err| <= ((1 + c_mul)^(n-1) - 1) |exact|
//   cumsum, prefix of i terms             |err| <= (i - 1) c_add GROWTH sum_{k<=i} |x_k|
//   cumprod, prefix of i factors          |err| <= ((1 + c_mul)^(i-1) - 1) |exact prefix|
//   sqdev (one chunk, see the kernel)     each term (x - m)^2 as sub then mul, summed like sum
// for finite results with no underflow; special values follow float64 through add and mul,
// the operands read by loaded() (dd_config.h: a nan in either part is nan).
#pragma once
#include "kernels.h"

namespace ddblas {
namespace reduce {
// The two associative DD operations of the folds, as types so that one template serves both.
struct Plus {
    template <class V>
    DD_HD static dd apply(dd a, dd b) { return add<V>(a, b); }  // add's bound
};
struct Times {
    template <class V>
    DD_HD static dd apply(dd a, dd b) { return mul<V>(a, b); }  // mul's bound
};

// fold: Op over x[first], ..., x[end-1] left to right (first < end). Each step adds one
// operation's error, so k elements carry k - 1 of them.
template <class Op, class V>
DD_HD dd fold(const double *hi, const double *lo, index_t first, index_t end) {
    dd acc = loaded(hi[first], lo[first]);
    for (index_t k = first + 1; k < end; ++k)
        acc = Op::template apply<V>(acc, loaded(hi[k], lo[k]));
    return acc;
}

// scan: out[k] = Op(out[k-1], x[k]) for k in [0, len), out[0] = x[0]: the prefix folds, each
// the fold of its prefix (the same bits as fold(0, k + 1)).
template <class Op, class V>
DD_HD void scan(const double *hi, const double *lo, index_t len, double *out_hi, double *out_lo) {
    if (len == 0) return;
    dd acc = loaded(hi[0], lo[0]);
    out_hi[0] = canonical(acc.hi);
    out_lo[0] = canonical(acc.lo);
    for (index_t k = 1; k < len; ++k) {
        acc = Op::template apply<V>(acc, loaded(hi[k], lo[k]));
        out_hi[k] = canonical(acc.hi);
        out_lo[k] = canonical(acc.lo);
    }
}

// squared_deviations: sum of (x[k] - m)^2 over [first, end) left to right: each deviation a DD
// sub, each square a DD mul, the sum DD adds (the first square starts the sum).
template <class V>
DD_HD dd squared_deviations(const double *hi, const double *lo, index_t first, index_t end,
                            dd m) {
    dd acc = {0.0, 0.0};
    for (index_t k = first; k < end; ++k) {
        const dd d = sub<V>(loaded(hi[k], lo[k]), m);
        const dd square = mul<V>(d, d);
        acc = k == first ? square : add<V>(acc, square);
    }
    return acc;
}
}  // namespace reduce
}  // namespace ddblas

// Chunked layout, as elementwise.h's sum: in is rows x len (row-major); item t = (row, c) covers
// in[row, c*chunk : min((c+1)*chunk, len)] and writes out[row, c] (out is rows x chunks).
#define DDBLAS_CHUNK_ITEM(t)                                                                  \
    const ddblas::index_t chunks = (len + chunk - 1) / chunk;                                 \
    const ddblas::index_t n = rows * chunks;                                                  \
    DDBLAS_FOR_EACH(t, n)
#define DDBLAS_CHUNK_BOUNDS(t)                                                                \
    const ddblas::index_t row = t / chunks, first = (t % chunks) * chunk;                     \
    const ddblas::index_t end = first + chunk < len ? first + chunk : len;                    \
    const double *h = in_hi + row * len, *l = in_lo + row * len

// prod: out[row, c] = product of the chunk, left to right; called again on out until one chunk
// is left, the row products in an order fixed by len and chunk alone (CPU == GPU bitwise).
#define DDBLAS_PROD_KERNEL(OP, V)                                                             \
    DDBLAS_KERNEL ddblas_reduce_##OP##_##V(ddblas::index_t rows, ddblas::index_t len,          \
                                           ddblas::index_t chunk, const double *in_hi,         \
                                           const double *in_lo, double *out_hi,                \
                                           double *out_lo) {                                   \
        DDBLAS_CHUNK_ITEM(t) {                                                                 \
            DDBLAS_CHUNK_BOUNDS(t);                                                            \
            const ddblas::dd r =                                                               \
                ddblas::reduce::fold<ddblas::reduce::Times, ddblas::variants::V>(h, l, first, end); \
            DDBLAS_DD_STORE(out, t, r);                                                        \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_PROD_KERNEL, prod)

// sqdev: out[row, c] = squared_deviations of the chunk from m[row] (one DD per row); the chunk
// results are then summed by elementwise.h's sum kernel, as sum() orders them.
#define DDBLAS_SQDEV_KERNEL(OP, V)                                                            \
    DDBLAS_KERNEL ddblas_reduce_##OP##_##V(ddblas::index_t rows, ddblas::index_t len,          \
                                           ddblas::index_t chunk, const double *in_hi,         \
                                           const double *in_lo, const double *m_hi,            \
                                           const double *m_lo, double *out_hi,                 \
                                           double *out_lo) {                                   \
        DDBLAS_CHUNK_ITEM(t) {                                                                 \
            DDBLAS_CHUNK_BOUNDS(t);                                                            \
            const ddblas::dd m = {m_hi[row], m_lo[row]};                                       \
            const ddblas::dd r =                                                               \
                ddblas::reduce::squared_deviations<ddblas::variants::V>(h, l, first, end, m);  \
            DDBLAS_DD_STORE(out, t, r);                                                        \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_SQDEV_KERNEL, sqdev)

// cumsum, cumprod: one work item per row of the rows x len input, the prefixes in index order
// (sequential along the row, so the same order on both devices).
#define DDBLAS_SCAN_KERNEL(OP, FOLD, V)                                                       \
    DDBLAS_KERNEL ddblas_reduce_##OP##_##V(ddblas::index_t n, ddblas::index_t len,             \
                                           const double *in_hi, const double *in_lo,           \
                                           double *out_hi, double *out_lo) {                   \
        DDBLAS_FOR_EACH(row, n) {                                                              \
            ddblas::reduce::scan<ddblas::reduce::FOLD, ddblas::variants::V>(                   \
                in_hi + row * len, in_lo + row * len, len, out_hi + row * len,                 \
                out_lo + row * len);                                                           \
        }                                                                                      \
    }
#define DDBLAS_CUMSUM_KERNEL(OP, V) DDBLAS_SCAN_KERNEL(OP, Plus, V)
#define DDBLAS_CUMPROD_KERNEL(OP, V) DDBLAS_SCAN_KERNEL(OP, Times, V)
DDBLAS_EACH_VARIANT(DDBLAS_CUMSUM_KERNEL, cumsum)
DDBLAS_EACH_VARIANT(DDBLAS_CUMPROD_KERNEL, cumprod)
