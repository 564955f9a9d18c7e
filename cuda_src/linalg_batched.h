// linalg_batched.h: many small dense systems in one launch (the "linalg_batched" family): LU
// with partial pivoting, the solve with its factors, and the product of the diagonal (det,
// slogdet), written once for both backends with kernels.h's macros.
//
// Two organisations of the same arithmetic. One thread a system (lu_factor_in_place,
// lu_solve_in_place; GPU: a grid-stride loop over systems, CPU: OpenMP over systems) for every
// order on the CPU and for orders above BATCHED_TEAM_MAX_ORDER on the GPU. On the GPU, smaller
// systems are factored by a team of threads, 8 or 16 lanes of a warp, a warp or a block, with the
// matrix in shared memory
// (lu_shared: each step's pivot search a reduction, its updates spread over the threads), and
// solved by a block a system (lu_solve_team), or up to BATCHED_SMALL_BLOCK_MAX_ORDER factored
// and solved in one kernel, the right-hand sides beside the matrix (solve_shared). Every entry
// gets the same operations in the same order in all of them, so the GPU's factors and solutions
// equal the CPU's bit for bit.
//
// The factors live in a batch buffer in which element (i, j) of system p sits at
// p * sys_step + i * row_step + j * col_step (BatchMatrix): one thread a system on the GPU
// interleaves the systems (sys_step = 1, so a warp's threads, one system each, read consecutive
// doubles), the GPU's teams write each system column-major (the solve's threads, a row each,
// read consecutive doubles), the CPU row-major.
//
// Algorithms (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., 2002):
//   LU: Gaussian elimination, kij (right-looking) form, partial pivoting: Alg. 9.1 with the
//     pivot rule of pivot.h (the largest |a_ik| by exact DD comparison; the first such row).
//     Thm. 9.3 with DD arithmetic: P A + dA = L U, |dA| <= gamma_n |L| |U|, gamma_n = n e /
//     (1 - n e), e = (c_mul + c_add) u^2 (u = 2^-53; the variant's constants, docs/linalg.md).
//   solve: the row interchanges, then forward substitution (each y_i's terms in increasing j)
//     and back substitution (each x_i's terms in decreasing j, the order in which a column
//     sweep finishes the x_j): (A + dA) x = b, |dA| <= gamma_3n |L| |U| (Thm. 9.4; Thm. 8.5's
//     bound holds for any order of the inner sums). Transposed (A^T = U^T L^T P^T): U^T z = b
//     forward (each z_i's terms in increasing j, then the division by u_ii), L^T y = z backward
//     (terms in decreasing j), x = P^T y: (A + dA)^T x = b with the same bound.
//   diagonal_product: det = sign(P) prod u_kk, kept as m 2^e (no overflow or underflow in the
//     product), relative error <= (n - 1) c_mul u^2 (to first order) on top of the
//     factorization's backward error.
#pragma once
#include "geometry.h"  // BATCHED_TEAM_*
#include "kernels.h"
#include "pivot.h"     // pivot_beats

namespace ddblas {

// BatchMatrix: one system's order x order matrix inside a batch buffer (see the top).
struct BatchMatrix {
    double *hi, *lo;
    index_t order, row_step, col_step;
    DD_HD index_t at(index_t i, index_t j) const { return i * row_step + j * col_step; }
    DD_HD dd load(index_t i, index_t j) const {
        dd v = {hi[at(i, j)], lo[at(i, j)]};
        return v;
    }
    DD_HD void store(index_t i, index_t j, dd v) const {
        hi[at(i, j)] = canonical(v.hi);
        lo[at(i, j)] = canonical(v.lo);
    }
    DD_HD void swap_rows(index_t r, index_t s) const {
        for (index_t j = 0; j < order; ++j) {
            dd t = load(r, j);
            store(r, j, load(s, j));
            store(s, j, t);
        }
    }
};

// StridedMatrix: a read-only matrix with element strides (row rs, column cs); what Python passes
// for the caller's operands. Entries are read as `loaded` reads them: a pair with a NaN or
// infinite low part is a non-finite value (read raw, a NaN low part was dropped by the division's
// special-value rule, and a system whose a was not finite got a finite solution).
struct StridedMatrix {
    const double *hi, *lo;
    index_t rs, cs;
    DD_HD dd load(index_t i, index_t j) const {
        return loaded(hi[i * rs + j * cs], lo[i * rs + j * cs]);
    }
};

// ReportedOperand: whose entry report_flags looks at: the matrix a, the right-hand sides b or
// the solution x.
enum class ReportedOperand { a, b, x };

// report_flags: the operand's NOT_FINITE bit for a non-finite x, its LARGE bit (a and b) for
// |x| >= 2^LINALG_SCALE_EXPONENT, its TINY bit (a and b) for 0 < |x| < 2^LINALG_TINY_EXPONENT,
// else 0: the batched kernels' report (geometry.h BATCHED_REPORT_*) of what solve.py's checks of
// finite entries and its scalings look at (hi parts).
DD_HD unsigned report_flags(double x, ReportedOperand of) {
    const double large_from = from_bits((1023ULL + LINALG_SCALE_EXPONENT) << 52);
    const double tiny_below = from_bits((unsigned long long)(1023 + LINALG_TINY_EXPONENT) << 52);
    const unsigned not_finite = of == ReportedOperand::a   ? BATCHED_REPORT_A_NOT_FINITE
                                : of == ReportedOperand::b ? BATCHED_REPORT_B_NOT_FINITE
                                                           : BATCHED_REPORT_X_NOT_FINITE;
    const unsigned large = of == ReportedOperand::a   ? BATCHED_REPORT_A_LARGE
                           : of == ReportedOperand::b ? BATCHED_REPORT_B_LARGE
                                                      : 0u;
    const unsigned tiny = of == ReportedOperand::a   ? BATCHED_REPORT_A_TINY
                          : of == ReportedOperand::b ? BATCHED_REPORT_B_TINY
                                                     : 0u;
    const double magnitude = fabs(x);
    return !isfinite(x)                             ? not_finite
           : magnitude >= large_from                ? large
           : magnitude < tiny_below && x != 0.0     ? tiny
                                                    : 0u;
}

// ExponentRange: the largest and smallest exponents (as stored, hi parts) of the finite nonzero
// values taken; flags() gives A_SPREAD where they differ by more than LINALG_ROW_SPREAD. Every
// matrix whose rows' largest entries span more (solve.py's test for row equilibration) has
// entries that do, so the flag sends each such system to solve's equilibrating path (a matrix
// with a few tiny entries goes there too, and comes back unscaled).
struct ExponentRange {
    int high = 0, low = 0x7ff;   // none taken: high < low
    // join: widen to [other_low, other_high] too (another range's bounds, or e, e for one value)
    DD_HD void join(int other_high, int other_low) {
        high = other_high > high ? other_high : high;
        low = other_low < low ? other_low : low;
    }
    DD_HD void take(double x) {
        const int e = int((bits_of(x) >> 52) & 0x7ff);
        if (x != 0.0 && e != 0x7ff) join(e, e);
    }
    DD_HD unsigned flags() const {
        return high - low > LINALG_ROW_SPREAD ? unsigned(BATCHED_REPORT_A_SPREAD) : 0u;
    }
};

// BatchReport: what a batched call reports. info (the factor kernels'; null where not kept):
// info[p] = system p's first zero pivot, -1 for none. summary (index_t[2], zeroed by the caller):
// summary[0] = the OR of every system's report_flags, summary[1] = batch * order - (p * order +
// k) for the first singular system p and its first zero pivot k (0: none). Two words come back
// to the host instead of a word a system (10^4 systems of order 9: 160 KB copied and reduced
// at each solve); the atomics run only where a flag or a zero pivot is found.
struct BatchReport {
    index_t *info, *summary;
    index_t batch, order;
    DD_HD void flags(unsigned f) const {
        if (!f) return;
#if defined(__CUDA_ARCH__)
        atomicOr(reinterpret_cast<unsigned long long *>(summary), (unsigned long long)f);
#else
        __atomic_fetch_or(summary, index_t(f), __ATOMIC_RELAXED);
#endif
    }
    DD_HD void factored(index_t p, index_t zero_pivot) const {
        if (info) info[p] = zero_pivot;
        if (zero_pivot < 0) return;
        const index_t key = batch * order - (p * order + zero_pivot);   // the largest: the first
#if defined(__CUDA_ARCH__)
        atomicMax(reinterpret_cast<long long *>(summary + 1), (long long)key);
#else
        index_t seen = __atomic_load_n(summary + 1, __ATOMIC_RELAXED);
        while (seen < key && !__atomic_compare_exchange_n(summary + 1, &seen, key, true,
                                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
#endif
    }
};

// lu_factor_in_place: P A = L U in place (L unit lower below the diagonal, U on and above),
// piv[k] = the row swapped with row k at step k (LAPACK's ipiv, 0-based). Returns -1, or the
// first k whose pivot is zero (the whole column k from row k down is zero); like LAPACK's getrf
// the elimination goes on past a zero pivot, leaving that column unscaled.
// Precondition: finite entries (checked in Python). Bound: Thm. 9.3 (top of file).
template <class V>
DD_HD index_t lu_factor_in_place(BatchMatrix a, index_t *piv) {
    index_t zero_pivot = -1;
    for (index_t k = 0; k < a.order; ++k) {
        index_t p = k;
        dd largest = abs(a.load(k, k));
        for (index_t i = k + 1; i < a.order; ++i) {
            dd candidate = abs(a.load(i, k));
            if (linalg::pivot_beats(candidate, i, largest, p)) {
                largest = candidate;
                p = i;
            }
        }
        piv[k] = p;
        if (p != k) a.swap_rows(k, p);
        dd pivot = a.load(k, k);
        if (pivot.hi == 0.0) {
            if (zero_pivot < 0) zero_pivot = k;
            continue;
        }
        for (index_t i = k + 1; i < a.order; ++i) {
            dd l = div<V>(a.load(i, k), pivot);
            a.store(i, k, l);
            dd minus_l = neg(l);
            for (index_t j = k + 1; j < a.order; ++j)
                a.store(i, j, madd<V>(a.load(i, j), minus_l, a.load(k, j)));
        }
    }
    return zero_pivot;
}

// swap_entries: entries i and j of the DD array (hi, lo) exchanged (nothing where i = j).
DD_HD void swap_entries(double *hi, double *lo, index_t i, index_t j) {
    const double th = hi[i], tl = lo[i];
    hi[i] = hi[j];
    lo[i] = lo[j];
    hi[j] = th;
    lo[j] = tl;
}

// lu_solve_in_place: x (order x nrhs, row-major, on entry b) := A^-1 b from lu_factor_in_place's
// factors. Precondition: no zero pivot. Bound: Thm. 9.4 (top of file).
template <class V>
DD_HD void lu_solve_in_place(BatchMatrix lu, const index_t *piv, double *x_hi, double *x_lo,
                             index_t nrhs) {
    const index_t n = lu.order;
    for (index_t r = 0; r < nrhs; ++r) {
        for (index_t k = 0; k < n; ++k)  // P b
            swap_entries(x_hi, x_lo, k * nrhs + r, piv[k] * nrhs + r);
        for (index_t i = 1; i < n; ++i) {  // L y = P b, L unit lower
            dd acc = {x_hi[i * nrhs + r], x_lo[i * nrhs + r]};
            for (index_t j = 0; j < i; ++j) {
                dd xj = {x_hi[j * nrhs + r], x_lo[j * nrhs + r]};
                acc = madd<V>(acc, neg(lu.load(i, j)), xj);
            }
            DDBLAS_DD_STORE(x, i * nrhs + r, acc);
        }
        for (index_t i = n - 1; i >= 0; --i) {  // U x = y
            dd acc = {x_hi[i * nrhs + r], x_lo[i * nrhs + r]};
            for (index_t j = n - 1; j > i; --j) {
                dd xj = {x_hi[j * nrhs + r], x_lo[j * nrhs + r]};
                acc = madd<V>(acc, neg(lu.load(i, j)), xj);
            }
            dd xi = div<V>(acc, lu.load(i, i));
            DDBLAS_DD_STORE(x, i * nrhs + r, xi);
        }
    }
}

// lu_solve_transposed_in_place: x (order x nrhs, row-major, on entry b) := A^-T b from
// lu_factor_in_place's factors: U^T z = b, L^T y = z, x = P^T y (the interchanges undone in
// reverse). Precondition: no zero pivot. Bound: the transposed form of Thm. 9.4 (top of file).
template <class V>
DD_HD void lu_solve_transposed_in_place(BatchMatrix lu, const index_t *piv, double *x_hi,
                                        double *x_lo, index_t nrhs) {
    const index_t n = lu.order;
    for (index_t r = 0; r < nrhs; ++r) {
        for (index_t i = 0; i < n; ++i) {  // U^T z = b: column i of U above the diagonal
            dd acc = {x_hi[i * nrhs + r], x_lo[i * nrhs + r]};
            for (index_t j = 0; j < i; ++j) {
                dd zj = {x_hi[j * nrhs + r], x_lo[j * nrhs + r]};
                acc = madd<V>(acc, neg(lu.load(j, i)), zj);
            }
            DDBLAS_DD_STORE(x, i * nrhs + r, div<V>(acc, lu.load(i, i)));
        }
        for (index_t i = n - 2; i >= 0; --i) {  // L^T y = z, L unit: column i of L below it
            dd acc = {x_hi[i * nrhs + r], x_lo[i * nrhs + r]};
            for (index_t j = n - 1; j > i; --j) {
                dd yj = {x_hi[j * nrhs + r], x_lo[j * nrhs + r]};
                acc = madd<V>(acc, neg(lu.load(j, i)), yj);
            }
            DDBLAS_DD_STORE(x, i * nrhs + r, acc);
        }
        for (index_t k = n - 1; k >= 0; --k)  // x = P^T y
            swap_entries(x_hi, x_lo, k * nrhs + r, piv[k] * nrhs + r);
    }
}

// factor_system: system p's part of the factor kernels: its entries as loaded (StridedMatrix) into
// lu, lu_factor_in_place there (pivots into piv[0 .. order)), the entries' A_* flags (A_SPREAD:
// ExponentRange) and the zero pivot into the report.
template <class V>
DD_HD void factor_system(index_t p, const StridedMatrix &a, const BatchMatrix &lu, index_t *piv,
                         const BatchReport &report) {
    unsigned flags = 0;
    ExponentRange range;
    for (index_t i = 0; i < lu.order; ++i)
        for (index_t j = 0; j < lu.order; ++j) {
            const dd v = a.load(i, j);
            flags |= report_flags(v.hi, ReportedOperand::a);
            range.take(v.hi);
            lu.store(i, j, v);
        }
    report.flags(flags | range.flags());
    report.factored(p, lu_factor_in_place<V>(lu, piv));
}

// solve_system: one system's part of the solve kernels: x (contiguous, order x nrhs) := b's
// entries as loaded, then lu_solve_in_place (transposed: lu_solve_transposed_in_place) with
// factor_system's lu and piv; b's B_* flags and X_NOT_FINITE into the report.
template <class V>
DD_HD void solve_system(const BatchMatrix &lu, const index_t *piv, const StridedMatrix &b,
                        index_t nrhs, double *x_hi, double *x_lo, const BatchReport &report,
                        bool transposed) {
    unsigned flags = 0;
    for (index_t i = 0; i < lu.order; ++i)
        for (index_t r = 0; r < nrhs; ++r) {
            const dd v = b.load(i, r);
            flags |= report_flags(v.hi, ReportedOperand::b);
            DDBLAS_DD_STORE(x, i * nrhs + r, v);
        }
    if (transposed) lu_solve_transposed_in_place<V>(lu, piv, x_hi, x_lo, nrhs);
    else lu_solve_in_place<V>(lu, piv, x_hi, x_lo, nrhs);
    for (index_t i = 0; i < lu.order * nrhs; ++i)
        flags |= report_flags(x_hi[i], ReportedOperand::x);
    report.flags(flags);
}

// diagonal_product: the product of d's diagonal times sign = (-1)^(number of k with piv[k] !=
// k) as m 2^e (|m.hi| in [0.5, 1), never overflowing; m = 0, e = 0 for a zero factor), e
// including `shift`, for slogdet; and det = m 2^e in DD (ldexp_dd), which overflows (inf) or
// underflows only where m 2^e does, whatever the partial products (parts in the subnormal range
// are rounded apart: |error| <= 2^-1074 each).
// Bound: relative error <= (n - 1) c_mul u^2 to first order, for det and m 2^e alike.
template <class V>
DD_HD void diagonal_product(index_t order, StridedMatrix d, const index_t *piv, index_t shift,
                            dd &det, dd &mantissa, index_t &exponent) {
    mantissa = {1.0, 0.0};
    for (index_t k = 0; k < order; ++k)
        if (piv[k] != k) mantissa = neg(mantissa);
    exponent = shift;
    for (index_t k = 0; k < order; ++k) {
        index_t ek, em;
        dd mk = mantissa_exponent(d.load(k, k), ek);
        mantissa = mantissa_exponent(mul<V>(mantissa, mk), em);
        exponent += ek + em;
    }
    if (mantissa.hi == 0.0) {   // +0, as NumPy's det and slogdet (a signed zero pivot gave -0)
        mantissa = {0.0, 0.0};
        exponent = 0;
    }
    det = ldexp_dd(mantissa, exponent);
}


#if defined(__CUDACC__)
// TeamPivot: a pivot candidate in lu_shared's reduction: the entry (signed) and its row (-1: no
// candidate).
struct TeamPivot {
    dd value;
    int row;
    // keep the better of this and o under pivot_beats on |value|
    __device__ void take_better(const TeamPivot &o) {
        if (o.row >= 0 && (row < 0 || linalg::pivot_beats(abs(o.value), o.row, abs(value), row)))
            *this = o;
    }
};

constexpr unsigned FULL_WARP = 0xffffffffu;

// lanes_best: the best candidate of LANES lanes (a warp, or an aligned segment of one: `mask`,
// `lane` within it) under pivot_beats, in lane 0 (the other lanes' results are partial). A tree:
// pivot_beats is a strict total order, so it picks what a sequential scan picks.
template <int LANES>
__device__ TeamPivot lanes_best(TeamPivot c, int lane, unsigned mask) {
    for (unsigned down = LANES / 2; down > 0; down /= 2) {
        TeamPivot o;   // the candidate of lane + down (past the lanes: c's own, not taken)
        o.value.hi = __shfl_down_sync(mask, c.value.hi, down, LANES);
        o.value.lo = __shfl_down_sync(mask, c.value.lo, down, LANES);
        o.row = __shfl_down_sync(mask, c.row, down, LANES);
        if (lane + int(down) < LANES) c.take_better(o);
    }
    return c;
}

// pivot_key: a candidate's rank by |hi| alone, as an integer: 0 none, 1 NaN, then |hi| in
// increasing order (-0 as +0), so that pivot_beats settles only between equal keys.
__device__ unsigned long long pivot_key(const TeamPivot &c) {
    if (c.row < 0) return 0;
    if (isnan(c.value.hi)) return 1;
    return (unsigned long long)__double_as_longlong(fabs(c.value.hi)) + 2;
}

// lanes_best_row: the row of the best of LANES lanes' candidates (as lanes_best) under
// pivot_beats (-1: none), in each of them: the largest pivot_key by a butterfly, then where
// several lanes share it (equal |hi|, NaNs, no candidates) lanes_best among those. Two 32-bit
// shuffles a level instead of five and pivot_beats (the search had cost a quarter of the
// factorization at order 19).
template <int LANES>
__device__ int lanes_best_row(const TeamPivot &c, int lane, unsigned mask) {
    const unsigned long long key = pivot_key(c);
    unsigned long long top = key;
    for (unsigned d = LANES / 2; d > 0; d /= 2) {
        const unsigned long long o = __shfl_xor_sync(mask, top, d, LANES);
        top = o > top ? o : top;
    }
    const unsigned tied = __ballot_sync(mask, key == top) & mask;
    if (__popc(tied) == 1) return __shfl_sync(mask, c.row, __ffs(tied) - 1);
    TeamPivot only_tied = c;
    if (key != top) only_tied.row = -1;
    return __shfl_sync(mask, lanes_best<LANES>(only_tied, lane, mask).row, 0, LANES);
}

// small_quotient: a / b rounded down for 0 <= a < 2^20 and 0 < b < 2^20, in single precision
// instead of the integer division's ~20 instructions: (a + 1/2) / b lies at least 1/(2b), a
// relative 2^-21, from an integer, and the reciprocal and the product err by under 2^-23.
__device__ int small_quotient(int a, int b) {
    return int(__fmul_rn(float(a) + 0.5f, __frcp_rn(float(b))));
}

// TeamCursor: the entries e = t, t + stride, ... of a block `cols` wide, row-major, as (row, col),
// stepped without a division an entry (a thread walks them in the order e does).
struct TeamCursor {
    int row, col, step_r, step_c, cols;
    __device__ TeamCursor(int t, int stride, int width) : cols(width) {
        row = small_quotient(t, cols);
        col = t - row * cols;
        step_r = small_quotient(stride, cols);
        step_c = stride - step_r * cols;
    }
    __device__ void next() {
        row += step_r;
        col += step_c;
        if (col >= cols) {
            col -= cols;
            ++row;
        }
    }
};

// trailing_update: lu_shared's updates of step k, a_ij := a_ij - l_i u_j for rows k < i < order
// and columns first <= j < width (l_i = a_ik, u_j = a_kj; the columns from order on are the fused
// solve's right-hand sides), by groups of Q x Q entries going round the TEAM threads `t`: rows
// k + 1 + r + q hr and columns first + j + q hc (q < Q, hr = ceil(rows / Q), hc = ceil(cols /
// Q); group r hc + j), so that a thread loads Q multipliers, Q entries of u and Q^2 entries for
// Q^2 independent madds, consecutive threads on consecutive columns (no bank conflicts). Where
// a group's row or column is past the block, its madds run on the first one's entries and are
// not stored. Each entry still gets one madd a step: the bits of lu_factor_in_place (and, in the
// right-hand sides, of lu_solve_in_place's forward substitution). A thread's groups go by
// TeamCursor.
template <class V, int TEAM, int Q>
__device__ void trailing_update(dd *m, int ld, int k, int order, int first, int width, int t) {
    const int rows = order - k - 1, cols = width - first;
    if (rows <= 0 || cols <= 0) return;
    const int side_r = (rows + Q - 1) / Q, side_c = (cols + Q - 1) / Q;
    const auto group = [&](int r, int j) {
        int is[Q], js[Q];
        bool row_in[Q], col_in[Q];
        dd l[Q], u[Q], a[Q][Q];
#pragma unroll
        for (int q = 0; q < Q; ++q) {
            row_in[q] = q == 0 || r + q * side_r < rows;   // r < side_r <= rows
            col_in[q] = q == 0 || j + q * side_c < cols;
            is[q] = k + 1 + (row_in[q] ? r + q * side_r : r);
            js[q] = first + (col_in[q] ? j + q * side_c : j);
            l[q] = neg(m[is[q] * ld + k]);
            u[q] = m[k * ld + js[q]];
        }
#pragma unroll
        for (int q = 0; q < Q; ++q)
#pragma unroll
            for (int w = 0; w < Q; ++w) a[q][w] = madd<V>(m[is[q] * ld + js[w]], l[q], u[w]);
#pragma unroll
        for (int q = 0; q < Q; ++q)
#pragma unroll
            for (int w = 0; w < Q; ++w)
                if (row_in[q] && col_in[w]) m[is[q] * ld + js[w]] = a[q][w];
    };
    for (TeamCursor g(t, TEAM, side_c); g.row < side_r; g.next()) group(g.row, g.col);
}

// SharedRhs: what lu_shared's fused solve adds: the right-hand sides b (order x nrhs) and x
// (contiguous, order x nrhs a system).
struct SharedRhs {
    StridedMatrix b;
    index_t nrhs;
    double *x_hi, *x_lo;
};

// report_lanes_flags: the OR of the flags of the lanes in `mask` (all of them call it; `lane`
// within them) into the report by their lane 0: a vote first, so flag-free calls cost one
// instruction.
__device__ void report_lanes_flags(const BatchReport &report, unsigned flags, int lane,
                                   unsigned mask) {
    if (!__any_sync(mask, flags != 0u)) return;
    flags = __reduce_or_sync(mask, flags);
    if (lane == 0) report.flags(flags);
}

// lu_shared: lu_factor_in_place of system p by a team of TEAM threads (an aligned half or quarter
// of a warp, a warp, or a block of whole warps), the matrix in shared memory `m` (row-major,
// leading dimension ld >= width), n <= BATCHED_TEAM_MAX_ORDER: the same steps, each spread over
// the threads. Step k: the pivot (column_best under pivot_beats), rows k and pk swap (thread j
// moves column j), thread t divides row k + 1 + t's a_ik by the pivot, and the updates of the
// trailing block go round the threads in groups of Q x Q (trailing_update), so that a step costs
// the threads what it has to do rather than a row each. A block team looks ahead: its first warp
// updates column k + 1 and finds step k + 1's pivot while the other warps update the rest (the
// search cost a third of the time at order 64 when the whole team waited for it). Writes lu
// (BatchMatrix), piv[k] and the report: system p's zero pivot and the A_* flags of the entries as
// loaded (report_flags; A_SPREAD of their ExponentRange, over the team).
//
// SOLVE: lu_solve_in_place's arithmetic on the way instead of lu and piv. rhs.b's nrhs columns
// sit beside the matrix (width = n + nrhs), so the interchanges move them with the rows and the
// updates carry out the forward substitution (L y = P b: each y_i's terms in increasing j, as in
// lu_solve_in_place); then the team's first warp substitutes backwards by columns (x_j =
// y_j / u_jj, then the rows above take their term: each sum's terms in decreasing j), all
// columns at once, while the other warps leave. Writes x and the report: the zero pivot, the A_*
// and B_* flags of the entries as loaded and X_NOT_FINITE.
template <class V, int TEAM, int Q, bool SOLVE>
__device__ void lu_shared(index_t n, index_t p, bool valid, const StridedMatrix &a, dd *m, int ld,
                          const BatchMatrix &lu, index_t *piv, const BatchReport &report,
                          const SharedRhs &rhs) {
    static_assert(TEAM % WARP_SIZE == 0 || WARP_SIZE % TEAM == 0,
                  "whole warps, or a team a half or quarter of one");
    constexpr bool IN_WARP = TEAM <= WARP_SIZE;   // several teams a block: warp barriers
    static_assert(IN_WARP || Q == 2, "a block team updates in groups of 2 x 2 (geometry.h)");
    constexpr int LANES = IN_WARP ? TEAM : WARP_SIZE;   // a team's lanes in one warp
    const int t = threadIdx.x % TEAM, lane = t % LANES, order = int(n);
    // an in-warp team's lanes (the others of its warp may be at other steps), else the warp's
    const unsigned mask =
        IN_WARP && TEAM < WARP_SIZE
            ? (FULL_WARP >> (WARP_SIZE - LANES)) << (threadIdx.x % WARP_SIZE - lane)
            : FULL_WARP;
    const int width = order + (SOLVE ? int(rhs.nrhs) : 0);
    const auto barrier = [mask] {
        if constexpr (IN_WARP) __syncwarp(mask);
        else __syncthreads();
    };
    // column_best: the pivot row of column k (rows k.., lane l offering rows k + l + LANES q),
    // in every lane of the calling team (in-warp) or warp
    const auto column_best = [&](int k) {
        const int i = k + lane;
        TeamPivot c = {i < order ? m[i * ld + k] : dd{0.0, 0.0}, valid && i < order ? i : -1};
        for (int r = i + LANES; r < order && valid; r += LANES)
            c.take_better(TeamPivot{m[r * ld + k], r});
        return lanes_best_row<LANES>(c, lane, mask);
    };
    __shared__ int ahead;   // a block team's next pivot row, found by its first warp
    // a block team's warps' exponent ranges, for its first thread's A_SPREAD
    constexpr int WARPS = IN_WARP ? 1 : TEAM / WARP_SIZE;
    __shared__ int warps_high[WARPS], warps_low[WARPS];
    unsigned flags = 0;
    ExponentRange range;
    for (TeamCursor e(t, TEAM, width); e.row < order; e.next()) {
        const int i = e.row, j = e.col;
        dd v = {0.0, 0.0};
        if (valid && j < order) {
            v = a.load(i, j);
            flags |= report_flags(v.hi, ReportedOperand::a);
            range.take(v.hi);
        } else if (SOLVE && valid) {
            v = rhs.b.load(i, j - order);
            flags |= report_flags(v.hi, ReportedOperand::b);
        }
        m[i * ld + j] = v;
    }
    range.high = __reduce_max_sync(mask, range.high);
    range.low = __reduce_min_sync(mask, range.low);
    if constexpr (IN_WARP) {
        flags |= range.flags();
    } else if (lane == 0) {
        warps_high[t / WARP_SIZE] = range.high;
        warps_low[t / WARP_SIZE] = range.low;
    }
    report_lanes_flags(report, flags, lane, mask);
    barrier();
    if constexpr (!IN_WARP) {
        if (t == 0 && valid) {
            for (int w = 1; w < WARPS; ++w) range.join(warps_high[w], warps_low[w]);
            report.flags(range.flags());
        }
    }
    // the first warp: find step k + 1's pivot for the team (k + 1 < order)
    const auto look_ahead = [&](int k) {
        const int row = column_best(k + 1);
        if (lane == 0) ahead = row;
    };
    if (!IN_WARP) {
        if (t < WARP_SIZE) look_ahead(-1);
        barrier();
    }
    index_t zero_pivot = -1;
    for (int k = 0; k < order; ++k) {
        int best;
        if constexpr (IN_WARP) best = column_best(k);
        else best = ahead;
        const int pk = best < 0 ? k : best;
        if (!SOLVE && valid && t == 0) piv[p * n + k] = pk;
        if (pk != k)
            for (int j = t; j < width; j += TEAM) {
                const dd r = m[k * ld + j];
                m[k * ld + j] = m[pk * ld + j];
                m[pk * ld + j] = r;
            }
        barrier();
        const bool more = k + 1 < order;
        const dd pivot = m[k * ld + k];
        if (pivot.hi == 0.0) {
            if (zero_pivot < 0) zero_pivot = k;
            if (!IN_WARP && more) {
                if (t < WARP_SIZE) look_ahead(k);
                barrier();
            }
            continue;
        }
        for (int r = k + 1 + t; r < order; r += TEAM) m[r * ld + k] = div<V>(m[r * ld + k], pivot);
        barrier();
        if constexpr (IN_WARP) {
            trailing_update<V, TEAM, Q>(m, ld, k, order, k + 1, width, t);
        } else if (t >= WARP_SIZE) {
            trailing_update<V, TEAM - WARP_SIZE, Q>(m, ld, k, order, k + 2, width, t - WARP_SIZE);
        } else if (more) {   // column k + 1, then the search
            trailing_update<V, WARP_SIZE, 1>(m, ld, k, order, k + 1, k + 2, lane);
            __syncwarp();
            look_ahead(k);
        }
        barrier();
    }
    if (!valid) return;
    if (t == 0) report.factored(p, zero_pivot);
    if constexpr (SOLVE) {
        if (t >= WARP_SIZE) return;   // the first warp substitutes
        // U x = y for the nrhs columns at once: y_ir (in column order + r) belongs to lane
        // (i nrhs + r) % LANES, which divides it when i = j and takes its terms
        const int nrhs = int(rhs.nrhs);
        int first = ((lane - order * nrhs) % LANES + LANES) % LANES;
        flags = 0;
        for (int j = order - 1; j >= 0; --j) {
            first = (first + nrhs) % LANES;   // this lane's first r in row j
            for (int r = first; r < nrhs; r += LANES) {
                const dd x = div<V>(m[j * ld + order + r], m[j * ld + j]);
                m[j * ld + order + r] = x;
                DDBLAS_DD_STORE(rhs.x, (p * n + j) * nrhs + r, x);
                flags |= report_flags(x.hi, ReportedOperand::x);
            }
            __syncwarp(mask);   // row j's x written before the others read them
            for (int e = lane; e < j * nrhs; e += LANES) {
                const int i = nrhs == 1 ? e : e / nrhs, r = e - i * nrhs;   // (no division for one)
                m[i * ld + order + r] = madd<V>(m[i * ld + order + r], neg(m[i * ld + j]),
                                                m[j * ld + order + r]);
            }
        }
        report_lanes_flags(report, flags, lane, mask);
    } else {
        for (TeamCursor e(t, TEAM, order); e.row < order; e.next())   // column-major lu
            lu.store(e.col, e.row, m[e.col * ld + e.row]);
    }
}

// lu_solve_team: lu_solve_in_place (transposed: lu_solve_transposed_in_place) for system
// blockIdx.x by a block of >= n threads, thread i holding row i's running sum: b's rows gathered
// through the interchanges (transposed: b's row i, and the result scattered through them at the
// end), then column sweeps (forward: y_j once final is shared and the rows below take their
// term; back: x_j = sum / u_jj, then the rows above; transposed: the divisions in the forward
// sweep, the factors read down columns), so each sum gets the in-place solve's terms in its
// order; a thread reads its next factor before each barrier, so the load's latency overlaps the
// wait. Reports b's B_* flags and X_NOT_FINITE (an entry of x not finite).
template <class V>
__device__ void lu_solve_team(index_t n, index_t nrhs, const BatchMatrix &lu, const index_t *piv,
                              const StridedMatrix &b, double *x_hi, double *x_lo,
                              const BatchReport &report, bool transposed) {
    __shared__ dd shared_x[BATCHED_TEAM_MAX_ORDER];
    __shared__ unsigned block_flags;
    unsigned flags = 0;
    const index_t i = threadIdx.x;
    if (i == 0) block_flags = 0;   // before the first barrier
    const bool has_row = i < n;
    // the row of b that the interchanges bring to row i (undo them in reverse); transposed, the
    // row of x = P^T y that takes y_i
    index_t q = i;
    for (index_t k = n - 1; k >= 0; --k) {
        const index_t pk = piv[k];
        if (q == k) q = pk;
        else if (q == pk) q = k;
    }
    const dd zero = {0.0, 0.0};
    const index_t row = has_row ? i : 0;   // the row (transposed: column) of the factors read
    // sweep step j's factor: (row, j) of L\U, transposed (j, row)
    const auto factor = [&](index_t j) { return transposed ? lu.load(j, row) : lu.load(row, j); };
    for (index_t r = 0; r < nrhs; ++r) {
        dd acc = zero;
        if (has_row) {
            acc = b.load(transposed ? i : q, r);
            flags |= report_flags(acc.hi, ReportedOperand::b);
        }
        dd next = factor(0);   // each step's factor read a step ahead, over the barrier
        for (index_t j = 0; j < n; ++j) {   // L y = P b, L unit lower; transposed U^T z = b
            const dd f = next;
            if (j + 1 < n) next = factor(j + 1);
            if (i == j) {
                if (transposed) acc = div<V>(acc, f);
                shared_x[j] = acc;
            }
            __syncthreads();
            if (has_row && i > j) acc = madd<V>(acc, neg(f), shared_x[j]);
        }
        __syncthreads();   // the forward sweep's last reads before the back sweep writes
        next = factor(n - 1);
        for (index_t j = n - 1; j >= 0; --j) {   // U x = y; transposed L^T y = z, L unit
            const dd f = next;
            if (j > 0) next = factor(j - 1);
            if (i == j) {
                if (!transposed) {
                    acc = div<V>(acc, f);
                    DDBLAS_DD_STORE(x, j * nrhs + r, acc);
                    flags |= report_flags(acc.hi, ReportedOperand::x);
                }
                shared_x[j] = acc;
            }
            __syncthreads();
            if (has_row && i < j) acc = madd<V>(acc, neg(f), shared_x[j]);
        }
        if (transposed && has_row) {   // x = P^T y
            DDBLAS_DD_STORE(x, q * nrhs + r, acc);
            flags |= report_flags(acc.hi, ReportedOperand::x);
        }
        __syncthreads();   // the next right-hand side rewrites shared_x
    }
    if (flags) atomicOr(&block_flags, flags);
    __syncthreads();
    if (i == 0) report.flags(block_flags);
}
#endif
}  // namespace ddblas

// ---- kernels: one per variant; `n` is the number of systems ----
// The factor kernels' parameters: n systems of `order` at a (a + p a_bs, strides a_rs, a_cs);
// the batch buffer lu (BatchMatrix's steps), piv (n x order), info (n) and summary (2), the
// BatchReport (the A_* flags of the entries, geometry.h BATCHED_REPORT_*).
#define DDBLAS_BATCHED_FACTOR_PARAMS                                                           \
    ddblas::index_t n, ddblas::index_t order, const double *a_hi, const double *a_lo,          \
        ddblas::index_t a_bs, ddblas::index_t a_rs, ddblas::index_t a_cs, double *lu_hi,        \
        double *lu_lo, ddblas::index_t sys_step, ddblas::index_t row_step,                     \
        ddblas::index_t col_step, ddblas::index_t *piv, ddblas::index_t *info,                 \
        ddblas::index_t *summary
// The solve kernels' parameters: the factors as the factor kernels left them, b (b + p b_bs,
// strides b_rs, b_cs, order x nrhs each), x (contiguous, n x order x nrhs), summary (the
// BatchReport's: the B_* flags of b's entries and X_NOT_FINITE OR-ed in), transposed (nonzero:
// A[p]^T x = b[p]).
#define DDBLAS_BATCHED_SOLVE_PARAMS                                                            \
    ddblas::index_t n, ddblas::index_t order, ddblas::index_t nrhs, const double *lu_hi,       \
        const double *lu_lo, ddblas::index_t sys_step, ddblas::index_t row_step,               \
        ddblas::index_t col_step, const ddblas::index_t *piv, const double *b_hi,              \
        const double *b_lo, ddblas::index_t b_bs, ddblas::index_t b_rs, ddblas::index_t b_cs,  \
        double *x_hi, double *x_lo, ddblas::index_t *summary, ddblas::index_t transposed
// System p's right-hand sides `b` and factors `lu` from the solve kernels' parameters.
#define DDBLAS_BATCHED_SOLVE_SYSTEM(p, b, lu)                                                  \
    const ddblas::StridedMatrix b = {b_hi + (p) * b_bs, b_lo + (p) * b_bs, b_rs, b_cs};        \
    const ddblas::BatchMatrix lu = {const_cast<double *>(lu_hi) + (p) * sys_step,              \
                                    const_cast<double *>(lu_lo) + (p) * sys_step, order,       \
                                    row_step, col_step}

// lu_factor: copies system p of A (a + p a_bs, strides a_rs, a_cs) into the batch buffer lu and
// factors it there; piv[p * order + k], info[p] = -1 or the first zero pivot's index, and the
// entries' flags in the summary.
#define DDBLAS_LINALG_BATCHED_LU_FACTOR(OP, V)                                                 \
    DDBLAS_KERNEL ddblas_linalg_batched_##OP##_##V(                                            \
        DDBLAS_BATCHED_FACTOR_PARAMS) {                                                        \
        DDBLAS_FOR_EACH_SYSTEM(p, n, order * order * order / 3 + 1) {                          \
            const ddblas::StridedMatrix a = {a_hi + p * a_bs, a_lo + p * a_bs, a_rs, a_cs};    \
            const ddblas::BatchMatrix lu = {lu_hi + p * sys_step, lu_lo + p * sys_step, order, \
                                            row_step, col_step};                               \
            ddblas::factor_system<ddblas::variants::V>(p, a, lu, piv + p * order,              \
                                                       {info, summary, n, order});             \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_BATCHED_LU_FACTOR, lu_factor)

// lu_solve: x[p] (contiguous, order x nrhs) := A[p]^-1 b[p] (transposed: A[p]^-T b[p]) from
// lu_factor's buffer and pivots; b[p] at b + p b_bs with strides b_rs, b_cs; b's flags and
// X_NOT_FINITE OR-ed into the summary.
#define DDBLAS_LINALG_BATCHED_LU_SOLVE(OP, V)                                                  \
    DDBLAS_KERNEL ddblas_linalg_batched_##OP##_##V(                                            \
        DDBLAS_BATCHED_SOLVE_PARAMS) {                                                         \
        DDBLAS_FOR_EACH_SYSTEM(p, n, order * (order + 1) * nrhs) {                             \
            DDBLAS_BATCHED_SOLVE_SYSTEM(p, b, lu);                                             \
            ddblas::solve_system<ddblas::variants::V>(                                         \
                lu, piv + p * order, b, nrhs, x_hi + p * order * nrhs, x_lo + p * order * nrhs, \
                {nullptr, summary, n, order}, transposed != 0);                                \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_BATCHED_LU_SOLVE, lu_solve)

#if !defined(__CUDACC__)
// solve (CPU): lu_factor's and lu_solve's work on each system in one pass, in one launch, the
// factors still in cache when the solve reads them: a (a + p a_bs, strides a_rs, a_cs), b (b +
// p b_bs, strides b_rs, b_cs, order x nrhs), x (contiguous, n x order x nrhs), the factors'
// buffer lu (row-major, order^2 a system), piv (n x order) and the summary (the first zero
// pivot; a's, b's and x's flags).
#define DDBLAS_LINALG_BATCHED_SOLVE(OP, V)                                                     \
    DDBLAS_KERNEL ddblas_linalg_batched_##OP##_##V(                                            \
        ddblas::index_t n, ddblas::index_t order, ddblas::index_t nrhs, const double *a_hi,    \
        const double *a_lo, ddblas::index_t a_bs, ddblas::index_t a_rs, ddblas::index_t a_cs,  \
        const double *b_hi, const double *b_lo, ddblas::index_t b_bs, ddblas::index_t b_rs,    \
        ddblas::index_t b_cs, double *x_hi, double *x_lo, double *lu_hi, double *lu_lo,        \
        ddblas::index_t *piv, ddblas::index_t *summary) {                                      \
        DDBLAS_FOR_EACH_SYSTEM(p, n, order * order * order / 3 + order * (order + 1) * nrhs) { \
            const ddblas::index_t size = order * order;                                        \
            const ddblas::BatchMatrix lu = {lu_hi + p * size, lu_lo + p * size, order, order,  \
                                            1};                                                \
            const ddblas::BatchReport report = {nullptr, summary, n, order};                   \
            ddblas::factor_system<ddblas::variants::V>(                                        \
                p, {a_hi + p * a_bs, a_lo + p * a_bs, a_rs, a_cs}, lu, piv + p * order,        \
                report);                                                                       \
            ddblas::solve_system<ddblas::variants::V>(                                         \
                lu, piv + p * order, {b_hi + p * b_bs, b_lo + p * b_bs, b_rs, b_cs}, nrhs,     \
                x_hi + p * order * nrhs, x_lo + p * order * nrhs, report, false);              \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_BATCHED_SOLVE, solve)
#endif

// det: for each of n factored systems (U's diagonal: d + p d_bs, element (k, k) at
// k (d_rs + d_cs); pivots piv + p piv_bs; shift[p] added to the exponent: the matrix was
// scaled by 2^(-shift[p] / order)) det[p], and the same value unrounded as mant[p] 2^expo[p].
#define DDBLAS_LINALG_BATCHED_DET(OP, V)                                                       \
    DDBLAS_KERNEL ddblas_linalg_batched_##OP##_##V(                                            \
        ddblas::index_t n, ddblas::index_t order, const double *d_hi, const double *d_lo,      \
        ddblas::index_t d_bs, ddblas::index_t d_rs, ddblas::index_t d_cs,                      \
        const ddblas::index_t *piv, ddblas::index_t piv_bs, const ddblas::index_t *shift,      \
        double *det_hi, double *det_lo, double *mant_hi, double *mant_lo,                      \
        ddblas::index_t *expo) {                                                               \
        DDBLAS_FOR_EACH_SYSTEM(p, n, order) {                                                  \
            ddblas::StridedMatrix d = {d_hi + p * d_bs, d_lo + p * d_bs, d_rs, d_cs};          \
            ddblas::dd det, mant;                                                              \
            ddblas::diagonal_product<ddblas::variants::V>(order, d, piv + p * piv_bs,          \
                                                          shift[p], det, mant, expo[p]);       \
            DDBLAS_DD_STORE(det, p, det);                                                      \
            DDBLAS_DD_STORE(mant, p, mant);                                                    \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_BATCHED_DET, det)

#if defined(__CUDACC__)
// lu_shared_<team>[_quads] and solve_shared_<team>[_quads], team quarter_warp, half_warp, warp,
// small_block or block (GPU, order <= BATCHED_QUARTER_WARP_MAX_ORDER | BATCHED_HALF_WARP_MAX_ORDER
// | WARP_SIZE | BATCHED_SMALL_BLOCK_MAX_ORDER | BATCHED_TEAM_MAX_ORDER; _quads: trailing_update's
// groups of 2 x 2, else of one entry: the warp team's by geometry.h BATCHED_QUADS_MIN_AREA, the
// block teams' always): lu_shared by 8, 16 or 32 lanes of a warp a system (BATCHED_WARP_THREADS /
// team systems a block) or a block of BATCHED_SMALL_BLOCK_TEAM or BATCHED_BLOCK_TEAM threads a
// system, each system with batched_shared_entries(order, width) DD
// entries of dynamic shared memory (order rows of ld = width rounded up to odd: no bank conflicts
// on columns). lu_shared: lu_factor's arguments and results (width = order; lu column-major per
// system). solve_shared (in-warp and small-block teams; width = order + nrhs): x[p] = A[p]^-1
// b[p] (b + p b_bs, strides b_rs, b_cs, order x nrhs; x contiguous) and the summary (the first zero
// pivot; a's, b's and x's flags).
#define DDBLAS_BATCHED_SHARED_SYSTEM(TEAM, THREADS, WIDTH)                                      \
    extern __shared__ ddblas::dd shared_systems[];                                             \
    const int team = threadIdx.x / (TEAM), ld = int(WIDTH) | 1;                                \
    const ddblas::index_t p = ddblas::index_t(blockIdx.x) * ((THREADS) / (TEAM)) + team;       \
    const bool valid = p < n;                                                                  \
    ddblas::dd *m = shared_systems + team * ddblas::batched_shared_entries(order, WIDTH);      \
    const ddblas::StridedMatrix a = {a_hi + (valid ? p * a_bs : 0),                            \
                                     a_lo + (valid ? p * a_bs : 0), a_rs, a_cs}
#define DDBLAS_LINALG_BATCHED_LU_SHARED(V, NAME, TEAM, THREADS, Q, MIN_BLOCKS)                 \
    DDBLAS_KERNEL __launch_bounds__(THREADS, MIN_BLOCKS) ddblas_linalg_batched_##NAME##_##V(   \
        DDBLAS_BATCHED_FACTOR_PARAMS) {                                                        \
        DDBLAS_BATCHED_SHARED_SYSTEM(TEAM, THREADS, order);                                    \
        const ddblas::BatchMatrix lu = {lu_hi + (valid ? p * sys_step : 0),                    \
                                        lu_lo + (valid ? p * sys_step : 0), order, row_step,   \
                                        col_step};                                             \
        const ddblas::SharedRhs rhs = {{}, 0, nullptr, nullptr};                               \
        ddblas::lu_shared<ddblas::variants::V, TEAM, Q, false>(                                \
            order, p, valid, a, m, ld, lu, piv, {info, summary, n, order}, rhs);               \
    }
#define DDBLAS_LINALG_BATCHED_SOLVE_SHARED(V, NAME, TEAM, THREADS, Q, MIN_BLOCKS)              \
    DDBLAS_KERNEL __launch_bounds__(THREADS, MIN_BLOCKS) ddblas_linalg_batched_##NAME##_##V(   \
        ddblas::index_t n, ddblas::index_t order, ddblas::index_t nrhs, const double *a_hi,    \
        const double *a_lo, ddblas::index_t a_bs, ddblas::index_t a_rs, ddblas::index_t a_cs,  \
        const double *b_hi, const double *b_lo, ddblas::index_t b_bs, ddblas::index_t b_rs,    \
        ddblas::index_t b_cs, double *x_hi, double *x_lo, ddblas::index_t *summary) {          \
        DDBLAS_BATCHED_SHARED_SYSTEM(TEAM, THREADS, order + nrhs);                             \
        const ddblas::SharedRhs rhs = {                                                        \
            {b_hi + (valid ? p * b_bs : 0), b_lo + (valid ? p * b_bs : 0), b_rs, b_cs},        \
            nrhs, x_hi, x_lo};                                                                 \
        const ddblas::BatchMatrix none = {nullptr, nullptr, order, 0, 0};                      \
        ddblas::lu_shared<ddblas::variants::V, TEAM, Q, true>(                                 \
            order, p, valid, a, m, ld, none, nullptr, {nullptr, summary, n, order}, rhs);      \
    }
#define DDBLAS_BATCHED_SMALL_TEAMS(KERNEL, STEM)                                               \
    DDBLAS_FOR_VARIANTS(KERNEL, STEM##_quarter_warp, ddblas::WARP_SIZE / 4,                    \
                        ddblas::BATCHED_WARP_THREADS, 1, 1)                                    \
    DDBLAS_FOR_VARIANTS(KERNEL, STEM##_half_warp, ddblas::WARP_SIZE / 2,                       \
                        ddblas::BATCHED_WARP_THREADS, 1, 1)                                    \
    DDBLAS_FOR_VARIANTS(KERNEL, STEM##_warp, ddblas::WARP_SIZE, ddblas::BATCHED_WARP_THREADS,  \
                        1, 1)                                                                  \
    DDBLAS_FOR_VARIANTS(KERNEL, STEM##_warp_quads, ddblas::WARP_SIZE,                          \
                        ddblas::BATCHED_WARP_THREADS, 2, 1)                                    \
    DDBLAS_FOR_VARIANTS(KERNEL, STEM##_small_block_quads, ddblas::BATCHED_SMALL_BLOCK_TEAM,    \
                        ddblas::BATCHED_SMALL_BLOCK_TEAM, 2,                                   \
                        ddblas::BATCHED_SMALL_BLOCK_MIN_BLOCKS)
DDBLAS_BATCHED_SMALL_TEAMS(DDBLAS_LINALG_BATCHED_LU_SHARED, lu_shared)
DDBLAS_FOR_VARIANTS(DDBLAS_LINALG_BATCHED_LU_SHARED, lu_shared_block_quads,
                    ddblas::BATCHED_BLOCK_TEAM, ddblas::BATCHED_BLOCK_TEAM, 2,
                    ddblas::BATCHED_BLOCK_MIN_BLOCKS)
DDBLAS_BATCHED_SMALL_TEAMS(DDBLAS_LINALG_BATCHED_SOLVE_SHARED, solve_shared)

// lu_solve_team (GPU, order <= BATCHED_TEAM_MAX_ORDER): lu_solve's arguments and results, one
// block of >= order threads a system (lu_solve_team).
#define DDBLAS_LINALG_BATCHED_LU_SOLVE_TEAM(OP, V)                                             \
    DDBLAS_KERNEL __launch_bounds__(ddblas::BATCHED_TEAM_MAX_ORDER,                            \
                                    ddblas::BATCHED_SOLVE_TEAM_MIN_BLOCKS)                     \
        ddblas_linalg_batched_##OP##_##V(                                                      \
        DDBLAS_BATCHED_SOLVE_PARAMS) {                                                         \
        const ddblas::index_t p = blockIdx.x;                                                  \
        if (p >= n) return;                                                                    \
        DDBLAS_BATCHED_SOLVE_SYSTEM(p, b, lu);                                                 \
        ddblas::lu_solve_team<ddblas::variants::V>(order, nrhs, lu, piv + p * order, b,        \
                                                   x_hi + p * order * nrhs,                    \
                                                   x_lo + p * order * nrhs,                    \
                                                   {nullptr, summary, n, order},               \
                                                   transposed != 0);                           \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_BATCHED_LU_SOLVE_TEAM, lu_solve_team)
#endif
