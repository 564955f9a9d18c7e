// linalg.h: the small kernels of the DD factorizations (the "linalg" family, ddblas/linalg/):
// the base cases that the recursive LU, Cholesky and triangular solves of ddblas.linalg bottom out
// in, written once for both backends with kernels.h's macros; the bulk of every factorization is
// rgemm. Matrices are strided views (row step rs, column step cs, in items); pivots and info
// words are int64 in device memory, so no kernel needs a host round trip.
#pragma once
#include "geometry.h"  // LASWP_BATCH, LU_PANEL_THREADS, LU_PANEL_WIDTH
#include "kernels.h"
#include "pivot.h"     // pivot_beats

namespace ddblas {
namespace linalg {

// A strided DD matrix view: element (i, j) at i * rs + j * cs.
struct MatrixView {
    double *hi, *lo;
    index_t rs, cs;
    DD_HD dd get(index_t i, index_t j) const {
        dd r = {hi[i * rs + j * cs], lo[i * rs + j * cs]};
        return r;
    }
    DD_HD void set(index_t i, index_t j, dd v) const {
        hi[i * rs + j * cs] = canonical(v.hi);
        lo[i * rs + j * cs] = canonical(v.lo);
    }
};

// first_max_abs: the best pivot row (pivot_beats) of column `col` in [first, end).
// Precondition: first < end.
DD_HD index_t first_max_abs(const MatrixView &a, index_t col, index_t first, index_t end) {
    index_t best = first;
    dd best_abs = abs(a.get(first, col));
    for (index_t i = first + 1; i < end; ++i) {
        dd x = abs(a.get(i, col));
        if (pivot_beats(x, i, best_abs, best)) {
            best = i;
            best_abs = x;
        }
    }
    return best;
}

// swap_rows: exchanges a(i, col) and a(p, col); exact.
DD_HD void swap_rows(const MatrixView &a, index_t col, index_t i, index_t p) {
    dd x = a.get(i, col), y = a.get(p, col);
    a.set(i, col, y);
    a.set(p, col, x);
}

// apply_interchanges: a(i, col) <-> a(piv[i], col) for i in [k1, k2), in increasing order (or
// decreasing: reverse); exact. LASWP_BATCH interchanges whose row pairs are disjoint commute, so
// their loads are issued together (one memory latency a batch instead of one an interchange); a
// batch whose pairs share a row is applied one by one. The same result as one by one.
DD_HD void apply_interchanges(const MatrixView &a, index_t col, const index_t *piv, index_t k1,
                              index_t k2, bool reverse) {
    constexpr int B = LASWP_BATCH;
    const index_t count = k2 - k1;
    index_t step = 0;
    for (; step + B <= count; step += B) {
        index_t row[B], target[B];
        DDBLAS_UNROLL
        for (int j = 0; j < B; ++j) {
            row[j] = reverse ? k2 - 1 - (step + j) : k1 + step + j;
            target[j] = piv[row[j]];
        }
        bool disjoint = true;
        DDBLAS_UNROLL
        for (int j = 0; j < B; ++j) {
            DDBLAS_UNROLL
            for (int l = j + 1; l < B; ++l)
                disjoint = disjoint && target[j] != row[l] && target[l] != row[j] &&
                           target[j] != target[l];
        }
        if (disjoint) {
            dd x[B], y[B];
            DDBLAS_UNROLL
            for (int j = 0; j < B; ++j) {
                x[j] = a.get(row[j], col);
                y[j] = a.get(target[j], col);
            }
            DDBLAS_UNROLL
            for (int j = 0; j < B; ++j) {
                if (target[j] == row[j]) continue;
                a.set(row[j], col, y[j]);
                a.set(target[j], col, x[j]);
            }
        } else {
            DDBLAS_UNROLL
            for (int j = 0; j < B; ++j)
                if (target[j] != row[j]) swap_rows(a, col, row[j], target[j]);
        }
    }
    for (; step < count; ++step) {
        const index_t i = reverse ? k2 - 1 - step : k1 + step;
        if (piv[i] != i) swap_rows(a, col, i, piv[i]);
    }
}

// eliminate_entries: dgetf2's step on the entries r[0 .. width) of one row, r[0] in the pivot's
// column, below the pivot row u (u[0] the pivot, nonzero): r[0] = l = r[0] / u[0] (DD div),
// then r[k] = r[k] - l u[k] (DD mul, DD sub of the variant) for k in [1, width). W >= width,
// the arrays' compile-time length: every index is a constant, so r can live in registers.
template <class V, int W>
DD_HD void eliminate_entries(dd (&r)[W], const dd (&u)[W], index_t width) {
    const dd l = r[0] = div<V>(r[0], u[0]);
    DDBLAS_UNROLL
    for (int k = 1; k < W; ++k)
        if (k < width) r[k] = sub<V>(r[k], mul<V>(l, u[k]));
}

// solve_column: T x = b in place for column `col` of the view b (rows 0 .. order - 1,
// order <= TRSM_BLOCK), T the `Lower` or upper triangle of the view t (unit: t_jj taken as 1,
// not read), column-oriented (Higham, "Accuracy and Stability", 2nd ed., sec. 8.1, the column
// version of Alg. 8.1): once x_j is final (divided by t_jj), t_ij x_j is subtracted from every
// x_i still open, so x_i gets its terms in the order the x_j are finished: increasing j below the
// diagonal, decreasing j above. Each term a DD mul and a DD sub of the variant, then one DD div:
// Thm. 8.5's bound (any order of the terms). The GPU's solve_column_warp does the same steps.
template <class V, bool Lower>
DD_HD void solve_column(const MatrixView &t, const MatrixView &b, index_t col, index_t order,
                        bool unit) {
    dd x[TRSM_BLOCK];
    for (index_t k = 0; k < order; ++k) x[k] = b.get(k, col);
    for (index_t step = 0; step < order; ++step) {
        const index_t j = Lower ? step : order - 1 - step;
        if (!unit) x[j] = div<V>(x[j], t.get(j, j));
        const index_t first = Lower ? j + 1 : 0, end = Lower ? order : j;
        for (index_t i = first; i < end; ++i) x[i] = sub<V>(x[i], mul<V>(t.get(i, j), x[j]));
    }
    for (index_t k = 0; k < order; ++k) b.set(k, col, x[k]);
}

// load_row, store_row: r[k] <-> a(i, j + k) for k in [0, width) (width <= W).
template <int W>
DD_HD void load_row(dd (&r)[W], const MatrixView &a, index_t i, index_t j, index_t width) {
    DDBLAS_UNROLL
    for (int k = 0; k < W; ++k)
        if (k < width) r[k] = a.get(i, j + k);
}
template <int W>
DD_HD void store_row(const dd (&r)[W], const MatrixView &a, index_t i, index_t j, index_t width) {
    DDBLAS_UNROLL
    for (int k = 0; k < W; ++k)
        if (k < width) a.set(i, j + k, r[k]);
}

#if defined(__CUDACC__)
// PivotCandidate: a thread's best pivot so far (row -1: none), kept under pivot_beats.
struct PivotCandidate {
    dd abs_value;
    index_t row;
    __device__ void offer(dd x, index_t i) {
        if (row < 0 || pivot_beats(x, i, abs_value, row)) {
            abs_value = x;
            row = i;
        }
    }
};

// block_best: the best of the block's T candidates (pivot_beats) by a tree over the shared
// arrays cand_* (T entries each), left in cand_*[0] for every thread.
template <int T>
__device__ void block_best(const PivotCandidate &mine, double *cand_hi, double *cand_lo,
                           index_t *cand_row) {
    const int t = threadIdx.x;
    cand_hi[t] = mine.abs_value.hi;
    cand_lo[t] = mine.abs_value.lo;
    cand_row[t] = mine.row;
    __syncthreads();
    for (int half = T / 2; half > 0; half /= 2) {
        if (t < half && cand_row[t + half] >= 0) {
            const dd other = {cand_hi[t + half], cand_lo[t + half]};
            const dd best = {cand_hi[t], cand_lo[t]};
            if (cand_row[t] < 0 || pivot_beats(other, cand_row[t + half], best, cand_row[t])) {
                cand_hi[t] = other.hi;
                cand_lo[t] = other.lo;
                cand_row[t] = cand_row[t + half];
            }
        }
        __syncthreads();
    }
}

// lu_panel_block: dgetf2 (unblocked LU with partial pivoting) of the m x n view `a`
// (n <= LU_PANEL_WIDTH, n <= m) by one block of LU_PANEL_THREADS threads, with no host round
// trip. Column j: the block reduces the threads' pivot candidates (pivot_beats: the row that
// first_max_abs gives), writes piv[j] (0-based, rows of `a`) and, for a zero pivot, *info =
// min(*info, column + j); interchanges rows j and p on the panel's n columns; stages the pivot
// row in shared memory; then each thread takes its rows below j, loads each row's n - j entries
// from column j on into registers at once (independent loads: one memory latency a row),
// applies eliminate_entries and stores them, offering the new a(i, j + 1) as its candidate
// for the next column. Every element gets the operations of the CPU's per-column kernels
// (pivot_chunks, pivot_pick, laswp, lu_column), so the results are the same bits.
template <class V>
__device__ void lu_panel_block(index_t m, index_t n, const MatrixView &a, index_t *piv,
                               index_t column, index_t *info) {
    constexpr int W = LU_PANEL_WIDTH, T = LU_PANEL_THREADS;
    __shared__ double cand_hi[T], cand_lo[T];
    __shared__ index_t cand_row[T];
    __shared__ dd pivot_row[W];
    const int t = threadIdx.x;
    PivotCandidate mine = {{0.0, 0.0}, -1};
    for (index_t i = t; i < m; i += T) mine.offer(abs(a.get(i, 0)), i);
    for (index_t j = 0; j < n; ++j) {
        block_best<T>(mine, cand_hi, cand_lo, cand_row);
        const index_t p = cand_row[0];
        if (t == 0) {
            piv[j] = p;
            if (cand_hi[0] == 0.0 && *info > column + j) *info = column + j;
        }
        if (p != j && t < n) swap_rows(a, t, j, p);
        __syncthreads();   // rows swapped and cand_* read before the pivot row is staged
        if (t < n - j) pivot_row[t] = a.get(j, j + t);
        __syncthreads();
        const bool eliminate = pivot_row[0].hi != 0.0;
        mine.row = -1;
        for (index_t i = j + 1 + t; i < m; i += T) {
            dd r[W];
            load_row(r, a, i, j, n - j);
            if (eliminate) {
                eliminate_entries<V>(r, pivot_row, n - j);
                store_row(r, a, i, j, n - j);
            }
            if (j + 1 < n) mine.offer(abs(r[1]), i);
        }
        __syncthreads();   // the shared pivot row is rewritten by the next column
    }
}

// grid_barrier: every block of the grid waits here for all the others (a cooperative launch
// guarantees that they are resident together). count and generation: two words of device
// memory, zero before the first launch; count is zero again after every barrier.
__device__ void grid_barrier(unsigned *count, unsigned *generation) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned *current = generation;
        const unsigned seen = *current;
        __threadfence();
        if (atomicAdd(count, 1u) == gridDim.x - 1) {
            atomicExch(count, 0u);
            __threadfence();
            atomicAdd(generation, 1u);
        } else {
            while (*current == seen) {
            }
        }
        __threadfence();
    }
    __syncthreads();
}

// lu_panel_grid: lu_panel_block's dgetf2 by all blocks of a cooperative grid, for tall panels
// (one block would stream every row through one SM at every column). Thread t of block b takes
// rows b T + t + s G T. Column j: each block reduces its threads' candidates and posts the best
// (part_*[b]); after a grid barrier every block reduces the G posts in the same order (one
// pivot row p everywhere: pivot_beats is a strict total order) and stages rows p and j in
// shared memory; after a second barrier the owner of row j writes the old row p there, the
// owner of row p writes the old row j there and eliminates it, and every thread eliminates its
// other rows below j (eliminate_entries), offering the next column's candidates. The same
// operations on every element as lu_panel_block and the CPU's column kernels: the same bits.
template <class V>
__device__ void lu_panel_grid(index_t m, index_t n, const MatrixView &a, index_t *piv,
                              index_t column, index_t *info, double *part_hi, double *part_lo,
                              index_t *part_row, unsigned *barrier) {
    constexpr int W = LU_PANEL_WIDTH, T = LU_PANEL_THREADS;
    __shared__ double cand_hi[T], cand_lo[T];
    __shared__ index_t cand_row[T];
    __shared__ dd pivot_row[W], displaced_row[W];   // rows p and j before the interchange
    __shared__ dd pivot_tail[W];                    // row p from column j on
    const int t = threadIdx.x;
    const index_t blocks = gridDim.x, stride = blocks * T, first = blockIdx.x * T + t;
    PivotCandidate mine = {{0.0, 0.0}, -1};
    for (index_t i = first; i < m; i += stride) mine.offer(abs(a.get(i, 0)), i);
    for (index_t j = 0; j < n; ++j) {
        block_best<T>(mine, cand_hi, cand_lo, cand_row);
        if (t == 0) {
            part_hi[blockIdx.x] = cand_hi[0];
            part_lo[blockIdx.x] = cand_lo[0];
            part_row[blockIdx.x] = cand_row[0];
        }
        grid_barrier(barrier, barrier + 1);
        if (t == 0) {
            PivotCandidate best = {{0.0, 0.0}, -1};
            for (index_t b = 0; b < blocks; ++b)
                if (part_row[b] >= 0) best.offer({part_hi[b], part_lo[b]}, part_row[b]);
            cand_hi[0] = best.abs_value.hi;
            cand_row[0] = best.row;
            if (blockIdx.x == 0) {
                piv[j] = best.row;
                if (best.abs_value.hi == 0.0 && *info > column + j) *info = column + j;
            }
        }
        __syncthreads();
        const index_t p = cand_row[0];
        const bool eliminate = cand_hi[0] != 0.0;
        if (t < n) {
            pivot_row[t] = a.get(p, t);
            displaced_row[t] = a.get(j, t);
        }
        if (t < n - j) pivot_tail[t] = a.get(p, j + t);
        grid_barrier(barrier, barrier + 1);   // rows j and p read everywhere before written
        mine.row = -1;
        for (index_t i = first; i < m; i += stride) {
            if (i == j && p != j) {
                for (index_t k = 0; k < n; ++k) a.set(j, k, pivot_row[k]);
                continue;
            }
            if (i <= j) continue;
            dd r[W];
            if (i == p) {
                DDBLAS_UNROLL
                for (int k = 0; k < W; ++k)
                    if (k < n - j) r[k] = displaced_row[j + k];
                for (index_t k = 0; k < j; ++k) a.set(p, k, displaced_row[k]);
            } else {
                load_row(r, a, i, j, n - j);
            }
            if (eliminate) eliminate_entries<V>(r, pivot_tail, n - j);
            if (eliminate || i == p) store_row(r, a, i, j, n - j);
            if (j + 1 < n) mine.offer(abs(r[1]), i);
        }
        __syncthreads();   // cand_* and the staged rows are rewritten by the next column
    }
}
#endif

}  // namespace linalg
}  // namespace ddblas

#define DDBLAS_LINALG_VIEW(x) ddblas::linalg::MatrixView x = {x##_hi, x##_lo, x##_rs, x##_cs}
#define DDBLAS_LINALG_MATRIX_PARAM(x) \
    double *x##_hi, double *x##_lo, ddblas::index_t x##_rs, ddblas::index_t x##_cs

// ---- LU pivot search, pass 1: chunk c of column 0 of `a` (rows [c * PIVOT_CHUNK, ...) of
// `rows`) writes the row of its first largest |a(i, 0)| to best[c].
DDBLAS_KERNEL ddblas_linalg_pivot_chunks(ddblas::index_t n, ddblas::index_t rows,
                                         DDBLAS_LINALG_MATRIX_PARAM(a), ddblas::index_t *best) {
    DDBLAS_LINALG_VIEW(a);
    DDBLAS_FOR_EACH(c, n) {
        const ddblas::index_t first = c * ddblas::PIVOT_CHUNK;
        const ddblas::index_t end = first + ddblas::PIVOT_CHUNK < rows
                                        ? first + ddblas::PIVOT_CHUNK : rows;
        best[c] = ddblas::linalg::first_max_abs(a, 0, first, end);
    }
}

// ---- LU pivot search, pass 2 (one item): the first largest of the `chunks` candidates is the
// pivot row; piv[0] = offset + that row (LAPACK's ipiv, 0-based, relative to the matrix that
// `offset` counts from). A zero pivot (the whole column below the diagonal is zero) sets
// *info = min(*info, column): the first zero pivot in column order is what the caller reports.
DDBLAS_KERNEL ddblas_linalg_pivot_pick(ddblas::index_t n, ddblas::index_t chunks,
                                       DDBLAS_LINALG_MATRIX_PARAM(a), const ddblas::index_t *best,
                                       ddblas::index_t offset, ddblas::index_t *piv,
                                       ddblas::index_t column, ddblas::index_t *info) {
    DDBLAS_LINALG_VIEW(a);
    DDBLAS_FOR_EACH(item, n) {
        ddblas::index_t p = best[0];
        ddblas::dd p_abs = ddblas::abs(a.get(p, 0));
        for (ddblas::index_t c = 1; c < chunks; ++c) {
            ddblas::dd x = ddblas::abs(a.get(best[c], 0));
            if (ddblas::linalg::pivot_beats(x, best[c], p_abs, p)) {
                p = best[c];
                p_abs = x;
            }
        }
        piv[0] = offset + p;
        if (p_abs.hi == 0.0 && *info > column) *info = column;
    }
}

// ---- laswp: for each of the n columns of `a`, the row interchanges i <-> piv[i] for i in
// [k1, k2), in increasing order, or decreasing when `reverse` != 0 (LAPACK dlaswp with incx = 1
// or -1; piv 0-based, rows of `a`; apply_interchanges). Exact.
DDBLAS_KERNEL ddblas_linalg_laswp(ddblas::index_t n, DDBLAS_LINALG_MATRIX_PARAM(a),
                                  const ddblas::index_t *piv, ddblas::index_t k1,
                                  ddblas::index_t k2, ddblas::index_t reverse) {
    DDBLAS_LINALG_VIEW(a);
    DDBLAS_FOR_EACH(col, n) ddblas::linalg::apply_interchanges(a, col, piv, k1, k2, reverse != 0);
}

// ---- LU column step (one item per row below the pivot): a is the panel from the pivot
// a(0, 0) on, `width` <= LU_PANEL_WIDTH columns. Row i + 1 gets eliminate_entries: l =
// a(i + 1, 0) / a(0, 0) (DD div, 15u^2 + 56u^3 relative) and a(i + 1, k) - l * a(0, k) (DD mul,
// then DD sub of the variant), k = 1 .. width - 1: dgetf2's scale and rank-1 update. A zero
// pivot leaves the rows as they are (the column below it is zero too; pivot_pick recorded it).
#define DDBLAS_LINALG_LU_COLUMN_KERNEL(OP, V)                                                 \
    DDBLAS_KERNEL ddblas_linalg_##OP##_##V(ddblas::index_t n, ddblas::index_t width,           \
                                           DDBLAS_LINALG_MATRIX_PARAM(a)) {                    \
        constexpr int W = ddblas::LU_PANEL_WIDTH;                                              \
        DDBLAS_LINALG_VIEW(a);                                                                 \
        ddblas::dd pivot_row[W];                                                               \
        ddblas::linalg::load_row(pivot_row, a, 0, 0, width);                                   \
        DDBLAS_FOR_EACH(i, n) {                                                                \
            if (pivot_row[0].hi == 0.0) continue;                                              \
            ddblas::dd r[W];                                                                   \
            ddblas::linalg::load_row(r, a, i + 1, 0, width);                                   \
            ddblas::linalg::eliminate_entries<ddblas::variants::V>(r, pivot_row, width);       \
            ddblas::linalg::store_row(r, a, i + 1, 0, width);                                  \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_LU_COLUMN_KERNEL, lu_column)

#if defined(__CUDACC__)
// ---- LU panel in one launch (GPU only; one block of LU_PANEL_THREADS threads):
// lu_panel_block on the m x n view `a`. The CPU runs the per-column kernels above instead (its
// launches cost microseconds, the GPU's tens of microseconds from Python).
#define DDBLAS_LINALG_LU_PANEL_KERNEL(OP, V)                                                  \
    extern "C" __global__ void __launch_bounds__(ddblas::LU_PANEL_THREADS)                     \
    ddblas_linalg_##OP##_##V(ddblas::index_t m, ddblas::index_t n,                             \
                             DDBLAS_LINALG_MATRIX_PARAM(a), ddblas::index_t *piv,              \
                             ddblas::index_t column, ddblas::index_t *info) {                  \
        DDBLAS_LINALG_VIEW(a);                                                                 \
        ddblas::linalg::lu_panel_block<ddblas::variants::V>(m, n, a, piv, column, info);       \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_LU_PANEL_KERNEL, lu_panel)

// ---- LU panel by a cooperative grid (GPU only; blocks of LU_PANEL_THREADS threads, launched
// cooperatively): lu_panel_grid on the m x n view `a`; part_* hold one candidate a block,
// barrier two words of zeroed device memory.
#define DDBLAS_LINALG_LU_PANEL_GRID_KERNEL(OP, V)                                             \
    extern "C" __global__ void __launch_bounds__(ddblas::LU_PANEL_THREADS)                     \
    ddblas_linalg_##OP##_##V(ddblas::index_t m, ddblas::index_t n,                             \
                             DDBLAS_LINALG_MATRIX_PARAM(a), ddblas::index_t *piv,              \
                             ddblas::index_t column, ddblas::index_t *info, double *part_hi,   \
                             double *part_lo, ddblas::index_t *part_row, unsigned *barrier) {  \
        DDBLAS_LINALG_VIEW(a);                                                                 \
        ddblas::linalg::lu_panel_grid<ddblas::variants::V>(m, n, a, piv, column, info,         \
                                                           part_hi, part_lo, part_row,         \
                                                           barrier);                           \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_LU_PANEL_GRID_KERNEL, lu_panel_grid)
#endif


namespace ddblas {
namespace linalg {

// potrf_pivot: d = a(j, j) - sum_{k<j} a(j, k)^2, in increasing k (DD mul, DD sub of the variant):
// Cholesky's (Higham Alg. 10.2, jik form) pivot of column j, from the columns before it.
template <class V>
DD_HD dd potrf_pivot(const MatrixView &a, index_t j) {
    dd d = a.get(j, j);
    for (index_t k = 0; k < j; ++k) {
        const dd l = a.get(j, k);
        d = sub<V>(d, mul<V>(l, l));
    }
    return d;
}

// potrf_entry: l_ij = (a(i, j) - sum_{k<j} a(i, k) a(j, k)) / diagonal, in increasing k (DD mul,
// DD sub, DD div of the variant).
template <class V>
DD_HD dd potrf_entry(const MatrixView &a, index_t i, index_t j, dd diagonal) {
    dd s = a.get(i, j);
    for (index_t k = 0; k < j; ++k) s = sub<V>(s, mul<V>(a.get(i, k), a.get(j, k)));
    return div<V>(s, diagonal);
}

}  // namespace linalg
}  // namespace ddblas

#if defined(__CUDACC__)
namespace ddblas {
namespace linalg {

// potrf_warp: the small Cholesky below (order <= POTRF_MAX_ORDER) by one warp, the lower
// triangle in shared memory, right-looking: the pivot d is entry (j, j) after the updates of
// columns 0..j-1, l_jj = sqrt(d), l_ij = a_ij / l_jj for i > j (lane i mod WARP_SIZE), column j
// stored, then every entry (i, k), j < k <= i, updated by a_ik -= l_ij l_kj (the entries dealt
// evenly to the lanes). Each entry thus gets the terms of potrf_pivot / potrf_entry in the same
// increasing order: the same bits as the CPU's left-looking loop (shared entries are kept
// canonical like stored ones; that only picks a NaN's payload). Columns from a failing one on
// are left unwritten, as there. shared: 2 * order * (order + 1) doubles (hi parts, then lo
// parts; a row padded by one so that neighbouring rows fall in different banks). Returns the
// failing column, or order.
template <class V>
__device__ int potrf_warp(const MatrixView &a, int order, double *shared) {
    static_assert(POTRF_MAX_ORDER % WARP_SIZE == 0, "potrf_warp: whole rows a lane");
    const int lane = threadIdx.x % WARP_SIZE;
    const MatrixView rows = {shared, shared + order * (order + 1), order + 1, 1};
    for (int i = lane; i < order; i += WARP_SIZE)   // the lower triangle: the upper is not read
        for (int k = 0; k <= i; ++k) rows.set(i, k, a.get(i, k));
    __syncwarp();
    for (int j = 0; j < order; ++j) {
        const dd d = rows.get(j, j);
        __syncwarp();   // every lane has d before the owner of row j overwrites it with l_jj
        if (!(d.hi > 0.0)) return j;
        const dd diagonal = sqrt<V>(d);
        for (int i = lane; i < order; i += WARP_SIZE) {
            if (i < j) continue;
            rows.set(i, j, i == j ? diagonal : div<V>(rows.get(i, j), diagonal));
            a.set(i, j, rows.get(i, j));
        }
        __syncwarp();
        // The trailing triangle's entries (i, k), j < k <= i, numbered row by row, dealt to the
        // lanes in turn (entry e to lane e mod WARP_SIZE): lane l walks (r, c) = (i, k) - j - 1
        // from its first entry in steps of WARP_SIZE.
        const int below = order - 1 - j;
        int r = 0, c = lane;
        while (r < below && c > r) c -= ++r;
        while (r < below) {
            const int i = j + 1 + r, k = j + 1 + c;
            rows.set(i, k, sub<V>(rows.get(i, k), mul<V>(rows.get(i, j), rows.get(k, j))));
            c += WARP_SIZE;
            while (r < below && c > r) c -= ++r;
        }
        __syncwarp();
    }
    return order;
}

// solve_column_warp: solve_column's steps for column `col` by one warp, lane l holding x_i for
// the rows i = l + r WARP_SIZE (r < TRSM_ROWS_PER_LANE): the owner of x_j divides it by t_jj,
// the warp reads the final x_j by a shuffle, every open x_i takes t_ij x_j. Every x_i gets
// solve_column's operations in its order: the CPU's bits. t: the triangle in shared memory.
template <class V, bool Lower>
__device__ void solve_column_warp(const MatrixView &t, const MatrixView &b, index_t col,
                                  int order, bool unit) {
    constexpr int R = TRSM_ROWS_PER_LANE;
    constexpr unsigned all_lanes = 0xffffffffu;
    const int lane = threadIdx.x % WARP_SIZE;
    dd x[R];
    DDBLAS_UNROLL
    for (int r = 0; r < R; ++r) {
        const int i = lane + r * WARP_SIZE;
        x[r] = i < order ? b.get(i, col) : dd{0.0, 0.0};
    }
    for (int step = 0; step < order; ++step) {
        const int j = Lower ? step : order - 1 - step;
        const int owner = j % WARP_SIZE, owner_r = j / WARP_SIZE;
        dd x_j = x[0];
        DDBLAS_UNROLL
        for (int r = 0; r < R; ++r) {   // registers are indexed by constants: select x[owner_r]
            if (r != owner_r) continue;
            if (!unit && lane == owner) x[r] = div<V>(x[r], t.get(j, j));
            x_j = x[r];
        }
        x_j.hi = __shfl_sync(all_lanes, x_j.hi, owner);
        x_j.lo = __shfl_sync(all_lanes, x_j.lo, owner);
        DDBLAS_UNROLL
        for (int r = 0; r < R; ++r) {
            const int i = lane + r * WARP_SIZE;
            const bool open = Lower ? i > j : i < j;
            if (open && i < order) x[r] = sub<V>(x[r], mul<V>(t.get(i, j), x_j));
        }
    }
    DDBLAS_UNROLL
    for (int r = 0; r < R; ++r) {
        const int i = lane + r * WARP_SIZE;
        if (i < order) b.set(i, col, x[r]);
    }
}

}  // namespace linalg
}  // namespace ddblas
#endif

// ---- small Cholesky, in place, of each `order` x `order` matrix (order <= POTRF_MAX_ORDER) of a
// stack, `batch_step` items apart: the lower triangle becomes L with A = L L^T, column by column:
// d = potrf_pivot, l_jj = sqrt(d) (DD sqrt), l_ij = potrf_entry for i > j. The upper triangle is
// not touched. The first column whose d is not > 0 (or NaN) stops the matrix: info[b] =
// min(info[b], offset + j + 1), the order of the leading minor that is not positive definite,
// counted from `offset`. CPU: one item per matrix. GPU: one warp (WARP_SIZE threads) per
// matrix, a grid-stride loop over the stack, potrf_warp with 2 order (order + 1) doubles of
// dynamic shared memory: the same operations on every entry, so the same bits.
#if defined(__CUDACC__)
#define DDBLAS_LINALG_POTRF_KERNEL(OP, V)                                                     \
    extern "C" __global__ void __launch_bounds__(ddblas::WARP_SIZE)                            \
    ddblas_linalg_##OP##_##V(ddblas::index_t n, ddblas::index_t order, double *a_hi,           \
                             double *a_lo, ddblas::index_t a_bs, ddblas::index_t a_rs,         \
                             ddblas::index_t a_cs, ddblas::index_t *info,                      \
                             ddblas::index_t offset) {                                         \
        for (ddblas::index_t item = blockIdx.x; item < n; item += gridDim.x) {                 \
            ddblas::linalg::MatrixView a = {a_hi + item * a_bs, a_lo + item * a_bs, a_rs, a_cs}; \
            extern __shared__ double potrf_rows[];                                             \
            const int failed = ddblas::linalg::potrf_warp<ddblas::variants::V>(a, int(order),  \
                                                                               potrf_rows);    \
            if (threadIdx.x == 0 && failed < order && info[item] > offset + failed + 1)        \
                info[item] = offset + failed + 1;                                              \
        }                                                                                      \
    }
#else
#define DDBLAS_LINALG_POTRF_KERNEL(OP, V)                                                     \
    DDBLAS_KERNEL ddblas_linalg_##OP##_##V(ddblas::index_t n, ddblas::index_t order,           \
                                           double *a_hi, double *a_lo, ddblas::index_t a_bs,   \
                                           ddblas::index_t a_rs, ddblas::index_t a_cs,         \
                                           ddblas::index_t *info, ddblas::index_t offset) {    \
        DDBLAS_FOR_EACH(item, n) {                                                             \
            ddblas::linalg::MatrixView a = {a_hi + item * a_bs, a_lo + item * a_bs, a_rs, a_cs}; \
            for (ddblas::index_t j = 0; j < order; ++j) {                                      \
                const ddblas::dd d = ddblas::linalg::potrf_pivot<ddblas::variants::V>(a, j);   \
                if (!(d.hi > 0.0)) {                                                           \
                    if (info[item] > offset + j + 1) info[item] = offset + j + 1;              \
                    break;                                                                     \
                }                                                                              \
                const ddblas::dd diagonal = ddblas::sqrt<ddblas::variants::V>(d);              \
                a.set(j, j, diagonal);                                                         \
                for (ddblas::index_t i = j + 1; i < order; ++i)                                \
                    a.set(i, j, ddblas::linalg::potrf_entry<ddblas::variants::V>(a, i, j, diagonal)); \
            }                                                                                  \
        }                                                                                      \
    }
#endif
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_POTRF_KERNEL, potrf)

// ---- small triangular solve, in place, of each right-hand side column of b: op(T) x = b with
// T the `order` x `order` view `a`, order <= TRSM_BLOCK (only its `lower` or upper triangle is
// read; unit != 0: the diagonal is taken as 1 and not read). CPU: solve_column, an item a
// column. GPU: blocks of TRSM_THREADS, the triangle staged in 2 order^2 doubles of dynamic
// shared memory (column-major, leading dimension order, so a warp's lanes read consecutive
// words), solve_column_warp, a warp a column: the same bits.
#if defined(__CUDACC__)
#define DDBLAS_LINALG_TRSM_KERNEL(OP, V)                                                      \
    extern "C" __global__ void __launch_bounds__(ddblas::TRSM_THREADS, 1)                      \
    ddblas_linalg_##OP##_##V(ddblas::index_t n, ddblas::index_t order,                         \
                             DDBLAS_LINALG_MATRIX_PARAM(a), DDBLAS_LINALG_MATRIX_PARAM(b),     \
                             ddblas::index_t lower, ddblas::index_t unit) {                    \
        using ddblas::variants::V;                                                             \
        const int m = int(order);                                                              \
        extern __shared__ double trsm_triangle[];                                              \
        double *t_hi = trsm_triangle, *t_lo = trsm_triangle + m * m;                           \
        for (int e = threadIdx.x; e < m * m; e += blockDim.x) {                                \
            const int i = e % m, j = e / m;                                                    \
            if (lower ? i >= j : i <= j) {                                                     \
                t_hi[e] = a_hi[i * a_rs + j * a_cs];                                           \
                t_lo[e] = a_lo[i * a_rs + j * a_cs];                                           \
            }                                                                                  \
        }                                                                                      \
        __syncthreads();                                                                       \
        const ddblas::linalg::MatrixView t = {t_hi, t_lo, 1, m};                               \
        DDBLAS_LINALG_VIEW(b);                                                                 \
        const ddblas::index_t warps = blockDim.x / ddblas::WARP_SIZE;                          \
        for (ddblas::index_t col = blockIdx.x * warps + threadIdx.x / ddblas::WARP_SIZE;       \
             col < n; col += gridDim.x * warps) {                                              \
            if (lower)                                                                         \
                ddblas::linalg::solve_column_warp<V, true>(t, b, col, m, unit != 0);           \
            else                                                                               \
                ddblas::linalg::solve_column_warp<V, false>(t, b, col, m, unit != 0);          \
        }                                                                                      \
    }
#else
#define DDBLAS_LINALG_TRSM_KERNEL(OP, V)                                                      \
    DDBLAS_KERNEL ddblas_linalg_##OP##_##V(ddblas::index_t n, ddblas::index_t order,           \
                                           DDBLAS_LINALG_MATRIX_PARAM(a),                      \
                                           DDBLAS_LINALG_MATRIX_PARAM(b), ddblas::index_t lower, \
                                           ddblas::index_t unit) {                             \
        using ddblas::variants::V;                                                             \
        DDBLAS_LINALG_VIEW(a);                                                                 \
        DDBLAS_LINALG_VIEW(b);                                                                 \
        DDBLAS_FOR_EACH(col, n) {                                                              \
            if (lower)                                                                         \
                ddblas::linalg::solve_column<V, true>(a, b, col, order, unit != 0);            \
            else                                                                               \
                ddblas::linalg::solve_column<V, false>(a, b, col, order, unit != 0);           \
        }                                                                                      \
    }
#endif
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_TRSM_KERNEL, trsm)

namespace ddblas {
namespace linalg {

// power_of_two_scale: splits the scaling of values near |largest| to about 1 into two powers of
// two (each representable when the whole factor 2^-e is not, e.g. for subnormal `largest`):
// x * first * second is x * 2^-e with frexp(largest) = f * 2^e. Exact unless a part underflows.
DD_HD void power_of_two_scale(double largest, double &first, double &second, int &e) {
    ::frexp(largest, &e);
    first = ::ldexp(1.0, -e / 2);
    second = ::ldexp(1.0, -e - (-e / 2));
}

// ---- The QR panel's parallel steps, written once for one CPU thread (SerialLanes) and one GPU
// block of QR_LANES threads (BlockLanes), with the same operations on every value:
//   sum(first, end, term): lane l (0 <= l < QR_LANES) adds term(i) for i = first + l,
//     first + l + QR_LANES, ... in increasing i to its partial (from 0, DD add of the variant),
//     then the partials are added as a tree: partial[l] += partial[l + half] for
//     half = QR_LANES / 2, ..., 1 (l < half); the result is partial[0];
//   rows(first, end, f): f(i) for every i in [first, end) (any order: f touches row i only);
//   once(f): f() by one thread; sync(): the block barrier (none on the CPU);
//   any(first, end, pred): whether pred(i) holds for some i;
//   largest(first, end, x): max of x(i) >= 0, NaN if some x(i) is NaN (order-independent).
struct SerialLanes {
    template <class V, class Term>
    DD_HD dd sum(index_t first, index_t end, Term term) const {
        dd partial[QR_LANES];
        for (int l = 0; l < QR_LANES; ++l) {
            partial[l] = dd{0.0, 0.0};
            for (index_t i = first + l; i < end; i += QR_LANES) partial[l] = add<V>(partial[l], term(i));
        }
        for (int half = QR_LANES / 2; half > 0; half /= 2)
            for (int l = 0; l < half; ++l) partial[l] = add<V>(partial[l], partial[l + half]);
        return partial[0];
    }
    template <class F>
    DD_HD void rows(index_t first, index_t end, F f) const {
        for (index_t i = first; i < end; ++i) f(i);
    }
    template <class F>
    DD_HD void once(F f) const { f(); }
    DD_HD void sync() const {}
    template <class P>
    DD_HD bool any(index_t first, index_t end, P pred) const {
        for (index_t i = first; i < end; ++i)
            if (pred(i)) return true;
        return false;
    }
    template <class X>
    DD_HD double largest(index_t first, index_t end, X x) const {
        double m = 0.0;
        for (index_t i = first; i < end; ++i) {
            const double v = x(i);
            if (isnan(v)) return v;
            if (v > m) m = v;
        }
        return m;
    }
};

#if defined(__CUDACC__)
struct BlockLanes {
    dd *partial;        // QR_LANES values of shared memory
    double *scratch;    // QR_LANES values of shared memory
    template <class V, class Term>
    __device__ dd sum(index_t first, index_t end, Term term) const {
        const int l = threadIdx.x;
        dd p = {0.0, 0.0};
        for (index_t i = first + l; i < end; i += QR_LANES) p = add<V>(p, term(i));
        partial[l] = p;
        __syncthreads();
        for (int half = QR_LANES / 2; half > 0; half /= 2) {
            if (l < half) partial[l] = add<V>(partial[l], partial[l + half]);
            __syncthreads();
        }
        const dd r = partial[0];
        __syncthreads();   // partial is free again
        return r;
    }
    template <class F>
    __device__ void rows(index_t first, index_t end, F f) const {
        for (index_t i = first + threadIdx.x; i < end; i += QR_LANES) f(i);
    }
    template <class F>
    __device__ void once(F f) const {
        if (threadIdx.x == 0) f();
    }
    __device__ void sync() const { __syncthreads(); }
    template <class P>
    __device__ bool any(index_t first, index_t end, P pred) const {
        bool mine = false;
        for (index_t i = first + threadIdx.x; i < end && !mine; i += QR_LANES) mine = pred(i);
        return __syncthreads_or(mine) != 0;
    }
    template <class X>
    __device__ double largest(index_t first, index_t end, X x) const {
        const int l = threadIdx.x;
        double m = 0.0;
        for (index_t i = first + l; i < end; i += QR_LANES) {
            const double v = x(i);
            if (isnan(v) || v > m) m = v;
            if (isnan(m)) break;
        }
        scratch[l] = m;
        __syncthreads();
        for (int half = QR_LANES / 2; half > 0; half /= 2) {
            if (l < half) {
                const double o = scratch[l + half];
                if (isnan(o) || (!isnan(scratch[l]) && o > scratch[l])) scratch[l] = o;
            }
            __syncthreads();
        }
        const double r = scratch[0];
        __syncthreads();
        return r;
    }
};
#endif

// column_norm: sqrt(a(first, col)^2 + ... + a(end - 1, col)^2), scaled by a power of two so that
// neither squares of columns near DBL_MAX overflow nor those of subnormal columns vanish
// (LAPACK dnrm2's idea with an exact power-of-two scale): each term a DD mul of the variant on
// values <= 1, summed by lanes.sum, then one DD sqrt and the exact scaling back. 0 for an
// all-zero range; inf or NaN for a column holding one.
template <class V, class Lanes>
DD_HD dd column_norm(const Lanes &lanes, const MatrixView &a, index_t col, index_t first,
                     index_t end) {
    const double largest = lanes.largest(first, end, [&](index_t i) { return ::fabs(a.get(i, col).hi); });
    if (largest == 0.0 || !isfinite(largest)) return dd{largest, 0.0};
    double down1, down2;
    int e;
    power_of_two_scale(largest, down1, down2, e);
    const dd sum = lanes.template sum<V>(first, end, [&](index_t i) {
        const dd x = scaled(scaled(a.get(i, col), down1), down2);
        return mul<V>(x, x);
    });
    return scaled(scaled(sqrt<V>(sum), 1.0 / down1), 1.0 / down2);
}

// householder: dlarfg on column j of a from row j: overwrites a(j:rows, j) with (beta, v) and
// returns tau (0 when a(j+1:rows, j) = 0).
template <class V, class Lanes>
DD_HD dd householder(const Lanes &lanes, const MatrixView &a, index_t rows, index_t j) {
    const dd alpha = a.get(j, j);
    if (!lanes.any(j + 1, rows, [&](index_t i) { return a.get(i, j).hi != 0.0; })) return dd{0.0, 0.0};
    const dd norm = column_norm<V>(lanes, a, j, j, rows);
    const dd beta = signbit(alpha.hi) ? norm : neg(norm);
    const dd tau = div<V>(sub<V>(beta, alpha), beta);
    const dd pivot = sub<V>(alpha, beta);
    lanes.rows(j + 1, rows, [&](index_t i) { a.set(i, j, div<V>(a.get(i, j), pivot)); });
    lanes.once([&] { a.set(j, j, beta); });
    lanes.sync();
    return tau;
}

// reflector_dot: V(:, i)^T a(:, k) from row j on, with V(j, i) = a(j, i) (or 1 for i = j, the
// implied unit): that entry plus lanes.sum over rows > j of a(r, i) a(r, k).
template <class V, class Lanes>
DD_HD dd reflector_dot(const Lanes &lanes, const MatrixView &a, index_t rows, index_t j,
                       index_t i, index_t k) {
    const dd head = i == j ? a.get(j, k) : a.get(j, i);
    const dd rest = lanes.template sum<V>(j + 1, rows, [&](index_t r) {
        return mul<V>(a.get(r, i), a.get(r, k));
    });
    return add<V>(head, rest);
}

// geqr2_panel: the kernel's work (DDBLAS_LINALG_GEQR2_KERNEL's comment).
template <class V, class Lanes>
DD_HD void geqr2_panel(const Lanes &lanes, const MatrixView &a, index_t rows, index_t width,
                       double *tau_hi, double *tau_lo, const MatrixView &t) {
    const index_t steps = rows < width ? rows : width;
    for (index_t j = 0; j < steps; ++j) {
        const dd tau = householder<V>(lanes, a, rows, j);
        lanes.once([&] {
            tau_hi[j] = canonical(tau.hi);
            tau_lo[j] = canonical(tau.lo);
        });
        for (index_t k = j + 1; k < width && tau.hi != 0.0; ++k) {
            const dd w = mul<V>(tau, reflector_dot<V>(lanes, a, rows, j, j, k));
            lanes.once([&] { a.set(j, k, sub<V>(a.get(j, k), w)); });
            lanes.rows(j + 1, rows, [&](index_t i) { a.set(i, k, sub<V>(a.get(i, k), mul<V>(w, a.get(i, j)))); });
            lanes.sync();
        }
        // t(0:j, j) = -tau T(0:j, 0:j) z with z_i = V(:, i)^T v_j (reflector_dot from row j:
        // a(j, i) + sum_{r > j} a(r, i) a(r, j)); row i reads z_l for l >= i only, so the
        // product overwrites z in increasing i.
        for (index_t i = 0; i < j; ++i) {
            const dd z = reflector_dot<V>(lanes, a, rows, j, i, j);
            lanes.once([&] { t.set(i, j, z); });
        }
        lanes.sync();
        lanes.once([&] {
            for (index_t i = 0; i < j; ++i) {
                dd s = {0.0, 0.0};
                for (index_t l = i; l < j; ++l) s = add<V>(s, mul<V>(t.get(i, l), t.get(l, j)));
                t.set(i, j, neg(mul<V>(tau, s)));
            }
            t.set(j, j, tau);
        });
        lanes.sync();
    }
}

}  // namespace linalg
}  // namespace ddblas

// ---- Householder panel QR: dgeqr2 + dlarft of the m x width view a, in place; on the CPU one
// item (SerialLanes), on the GPU one block of QR_LANES threads (BlockLanes): the same bits.
// Column j: LAPACK dlarfg on (alpha, x) = (a(j, j), a(j+1:m, j)): beta = -sign(alpha) *
// ||(alpha, x)|| (column_norm: scaled, no spurious over/underflow), tau = (beta - alpha) / beta,
// v = x / (alpha - beta) stored below the diagonal (v_0 = 1 implied), a(j, j) = beta; x = 0 gives
// tau = 0 (H = I) as dlarfg. Then H_j = I - tau v v^T applied to the panel's columns k > j
// (w = v^T a(:, k), a(:, k) -= (tau w) v). tau[j] is written, and the upper triangle of the
// width x width view t becomes the compact WY factor (Schreiber & Van Loan 1989; dlarft
// "Forward", "Columnwise"): H_0 ... H_{k-1} = I - V T V^T, t(j, j) = tau_j,
// t(0:j, j) = -tau_j T(0:j, 0:j) V(:, 0:j)^T v_j. Every step is a DD mul / add / div / sqrt of
// the variant in a fixed order (the sums: SerialLanes' comment); bounds in docs/linalg.md ("QR").
#if defined(__CUDACC__)
#define DDBLAS_LINALG_GEQR2_KERNEL(OP, V)                                                     \
    extern "C" __global__ void __launch_bounds__(ddblas::QR_LANES, 1)                          \
    ddblas_linalg_##OP##_##V(ddblas::index_t rows, ddblas::index_t width,                      \
                             DDBLAS_LINALG_MATRIX_PARAM(a), double *tau_hi, double *tau_lo,    \
                             DDBLAS_LINALG_MATRIX_PARAM(t)) {                                  \
        __shared__ ddblas::dd partial[ddblas::QR_LANES];                                       \
        __shared__ double scratch[ddblas::QR_LANES];                                           \
        DDBLAS_LINALG_VIEW(a);                                                                 \
        DDBLAS_LINALG_VIEW(t);                                                                 \
        const ddblas::linalg::BlockLanes lanes = {partial, scratch};                           \
        ddblas::linalg::geqr2_panel<ddblas::variants::V>(lanes, a, rows, width, tau_hi,        \
                                                         tau_lo, t);                           \
    }
#else
#define DDBLAS_LINALG_GEQR2_KERNEL(OP, V)                                                     \
    DDBLAS_KERNEL ddblas_linalg_##OP##_##V(ddblas::index_t rows, ddblas::index_t width,        \
                                           DDBLAS_LINALG_MATRIX_PARAM(a), double *tau_hi,      \
                                           double *tau_lo, DDBLAS_LINALG_MATRIX_PARAM(t)) {    \
        DDBLAS_LINALG_VIEW(a);                                                                 \
        DDBLAS_LINALG_VIEW(t);                                                                 \
        ddblas::linalg::geqr2_panel<ddblas::variants::V>(ddblas::linalg::SerialLanes{}, a,     \
                                                         rows, width, tau_hi, tau_lo, t);      \
    }
#endif
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_GEQR2_KERNEL, geqr2)
