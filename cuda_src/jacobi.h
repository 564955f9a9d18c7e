// jacobi.h: the rounds of ddblas.linalg's Jacobi methods (ddblas/linalg/jacobi.py; the "linalg"
// family), written once for both backends with kernels.h's macros: one item a pair of columns
// (p[k], q[k]) of a round, the pairs of a round disjoint, so that a round is one launch and
// its items never touch the same entries.
//
// Algorithms (docs/linalg.md, "Singular values and symmetric eigenvalues"):
//   rotation: Rutishauser's, zeta = d / (2 gamma), t = sign(zeta) / (|zeta| + sqrt(1 + zeta^2)),
//     c = 1 / sqrt(1 + t^2), s = c t (Golub and Van Loan, Matrix Computations, 4th ed.,
//     Alg. 8.5.1), where sqrt(1 + zeta^2) is |zeta| from |zeta| = 2^500 on (zeta^2 would
//     overflow; the relative change is below 2^-1000).
//   svd round: the one-sided Jacobi SVD's step (Demmel and Veselic 1992, Alg. 4.1) on columns
//     p and q of W and of V: their norms and inner product from the columns scaled by powers of
//     two (exact), summed in ddblas.sum's fixed order (ChunkedSum); the rotation where |gamma| >
//     tolerance sqrt(alpha beta) and neither column is rounding debris; then
//     (w_p, w_q) := (c w_p - s w_q, s w_p + c w_q), and the same for V.
//   eigh round: the two-sided cyclic Jacobi step (Golub and Van Loan Alg. 8.5.3, parallel
//     ordering) in two launches: the rotation from a_pp, a_qq, a_pq where |a_pq| > tolerance,
//     applied to columns p and q of A and of V; then to rows p and q of A.
// Bounds: each step is DD arithmetic of dd.h (a rotation of two columns by DD multiply-adds),
// which Higham's Lemma 19.9 on disjoint rotations turns into accuracy.bound("svd" | "eigh").
#pragma once
#include "kernels.h"

namespace ddblas {
namespace jacobi {

// ChunkedSum: the terms taken one by one, summed in ddblas.sum's fixed order (ops.py
// REDUCTION_CHUNK: `chunk` terms at a time left to right, then the chunk sums likewise, level
// by level, until one is left), so that a fused kernel gives sum()'s bits without storing the
// terms. LEVELS levels hold chunk^LEVELS terms.
template <class V, int LEVELS = 4>
struct ChunkedSum {
    dd partial[LEVELS];
    index_t count[LEVELS] = {};
    index_t chunk;
    DD_HD explicit ChunkedSum(index_t chunk_size) : chunk(chunk_size) {}
    // take: x into `level`'s open chunk; a full chunk goes up as one term of the next level
    DD_HD void take(dd x, int level = 0) {
        for (;;) {
            partial[level] = count[level] == 0 ? x : add<V>(partial[level], x);
            if (++count[level] < chunk || level + 1 == LEVELS) return;
            x = partial[level];
            count[level] = 0;
            ++level;
        }
    }
    // total: the sum (0 for no terms): each open chunk closed into the level above while a
    // higher level holds terms, as sum() reduces the chunk results again
    DD_HD dd total() {
        for (int level = 0; level + 1 < LEVELS; ++level) {
            bool above = false;
            for (int h = level + 1; h < LEVELS; ++h) above = above || count[h] > 0;
            if (!above) return count[level] ? partial[level] : dd{0.0, 0.0};
            if (count[level]) take(partial[level], level + 1);
        }
        return partial[LEVELS - 1];
    }
};

// plus_zero: (hi + 0.0, lo + 0.0), -0.0 parts as +0.0: what sum() returns (ops.plus_zero).
DD_HD dd plus_zero(dd x) { return dd{x.hi + 0.0, x.lo + 0.0}; }

// Column: `rows` DD entries, contiguous.
struct Column {
    double *hi, *lo;
    DD_HD dd get(index_t i) const { return dd{hi[i], lo[i]}; }
};

// top_exponent: e with max_i |hi_i| in [2^(e - 1), 2^e) (frexp's), 0 for a zero column.
DD_HD int top_exponent(const Column &x, index_t rows) {
    double largest = 0.0;
    for (index_t i = 0; i < rows; ++i) largest = fmax(largest, fabs(x.hi[i]));
    int e;
    frexp(largest, &e);
    return e;
}

// times_power_of_two: x 2^k as jacobi.py's _scaled makes it: two DD multiplications by 2^(k // 2)
// (Python's floor division) and 2^(k - k // 2), exact in the range used here.
template <class V>
DD_HD dd times_power_of_two(dd x, int k) {
    const int half = k >= 0 ? k / 2 : -((-k + 1) / 2);
    x = mul<V>(x, dd{ldexp(1.0, half), 0.0});
    return mul<V>(x, dd{ldexp(1.0, k - half), 0.0});
}

// rotation: Rutishauser's (c, s) for zeta = difference / (2 gamma) (top of file), gamma != 0;
// false (and c = 1, s = 0) where t underflows to zero.
template <class V>
DD_HD bool rotation(dd difference, dd gamma, dd &c, dd &s) {
    const dd one = {1.0, 0.0};
    const dd zeta = div<V>(difference, mul<V>(dd{2.0, 0.0}, gamma));
    const dd size = abs(zeta);
    const dd root = less(size, dd{0x1p500, 0.0}) ? sqrt<V>(add<V>(one, mul<V>(zeta, zeta))) : size;
    dd t = div<V>(one, add<V>(size, root));
    if (less(zeta, dd{0.0, 0.0})) t = neg(t);
    c = div<V>(one, sqrt<V>(add<V>(one, mul<V>(t, t))));
    s = mul<V>(c, t);
    return t.hi != 0.0;
}

// rotate: (x_i, y_i) := (c x_i - s y_i, s x_i + c y_i) for i < rows (x_i at x + i step).
template <class V>
DD_HD void rotate(double *x_hi, double *x_lo, double *y_hi, double *y_lo, index_t rows,
                  index_t step, dd c, dd s) {
    for (index_t i = 0; i < rows * step; i += step) {
        const dd x = {x_hi[i], x_lo[i]}, y = {y_hi[i], y_lo[i]};
        const dd rx = sub<V>(mul<V>(c, x), mul<V>(s, y)), ry = add<V>(mul<V>(s, x), mul<V>(c, y));
        x_hi[i] = canonical(rx.hi);
        x_lo[i] = canonical(rx.lo);
        y_hi[i] = canonical(ry.hi);
        y_lo[i] = canonical(ry.lo);
    }
}

// svd_pair: the svd round's step on columns x and y of W (rows entries each) and vx, vy of V
// (vrows each); true where it rotated. Debris: a column whose largest entry lies below
// 2^floor_exponent is left alone.
template <class V>
DD_HD bool svd_pair(Column x, Column y, Column vx, Column vy, index_t rows, index_t vrows,
                    index_t chunk, double tolerance, int floor_exponent) {
    const int ex = top_exponent(x, rows), ey = top_exponent(y, rows);
    if (!(ex > floor_exponent && ey > floor_exponent)) return false;
    ChunkedSum<V> alpha(chunk), beta(chunk), gamma(chunk);
    for (index_t i = 0; i < rows; ++i) {
        const dd sx = times_power_of_two<V>(x.get(i), -ex);
        const dd sy = times_power_of_two<V>(y.get(i), -ey);
        alpha.take(mul<V>(sx, sx));
        beta.take(mul<V>(sy, sy));
        gamma.take(mul<V>(sx, sy));
    }
    const dd a = plus_zero(alpha.total()), b = plus_zero(beta.total());
    const dd g = plus_zero(gamma.total());
    if (!greater(abs(g), mul<V>(dd{tolerance, 0.0}, sqrt<V>(mul<V>(a, b))))) return false;
    dd c, s;
    const dd difference =
        sub<V>(times_power_of_two<V>(b, ey - ex), times_power_of_two<V>(a, ex - ey));
    if (!rotation<V>(difference, g, c, s)) return false;
    rotate<V>(x.hi, x.lo, y.hi, y.lo, rows, 1, c, s);
    rotate<V>(vx.hi, vx.lo, vy.hi, vy.lo, vrows, 1, c, s);
    return true;
}

// eigh_pair: the eigh round's first step on pair (p, q) of A (order x order, row-major) and V
// (by columns, column j at v + j order): where |a_pq| > tolerance, the rotation from a_pp, a_qq
// and a_pq applied to columns p and q of A and of V; true where it rotated. (c, s) is kept for
// the rows: (1, +-0) where nothing rotated.
template <class V>
DD_HD bool eigh_pair(double *a_hi, double *a_lo, double *v_hi, double *v_lo, index_t order,
                     index_t p, index_t q, double tolerance, dd &c, dd &s) {
    c = dd{1.0, 0.0};
    s = dd{0.0, 0.0};
    const dd off = {a_hi[p * order + q], a_lo[p * order + q]};
    if (!greater(abs(off), dd{tolerance, 0.0})) return false;
    const dd app = {a_hi[p * (order + 1)], a_lo[p * (order + 1)]};
    const dd aqq = {a_hi[q * (order + 1)], a_lo[q * (order + 1)]};
    if (!rotation<V>(sub<V>(aqq, app), off, c, s)) return false;
    rotate<V>(a_hi + p, a_lo + p, a_hi + q, a_lo + q, order, order, c, s);
    rotate<V>(v_hi + p * order, v_lo + p * order, v_hi + q * order, v_lo + q * order, order, 1,
              c, s);
    return true;
}

}  // namespace jacobi
}  // namespace ddblas

// ---- kernels: n pairs (p[k], q[k]) of one round; rotated[k] set to 1 where pair k rotated ----
// svd_round: W and V stored by columns (column j of W at w + j rows, of V at v + j vrows),
// chunk = ops.REDUCTION_CHUNK, tolerance the orthogonality test's (|gamma| > tolerance
// sqrt(alpha beta)), floor_exponent the debris floor (jacobi.py JACOBI_FLOOR_EXPONENT).
#define DDBLAS_LINALG_JACOBI_SVD_ROUND(OP, V)                                                  \
    DDBLAS_KERNEL ddblas_linalg_##OP##_##V(                                                    \
        ddblas::index_t n, ddblas::index_t rows, ddblas::index_t vrows, ddblas::index_t chunk, \
        double *w_hi, double *w_lo, double *v_hi, double *v_lo, const ddblas::index_t *p,      \
        const ddblas::index_t *q, double tolerance, ddblas::index_t floor_exponent,            \
        ddblas::index_t *rotated) {                                                            \
        DDBLAS_FOR_EACH_SYSTEM(k, n, 5 * rows + 2 * vrows) {                                   \
            using ddblas::jacobi::Column;                                                      \
            const Column x = {w_hi + p[k] * rows, w_lo + p[k] * rows};                         \
            const Column y = {w_hi + q[k] * rows, w_lo + q[k] * rows};                         \
            const Column vx = {v_hi + p[k] * vrows, v_lo + p[k] * vrows};                      \
            const Column vy = {v_hi + q[k] * vrows, v_lo + q[k] * vrows};                      \
            if (ddblas::jacobi::svd_pair<ddblas::variants::V>(x, y, vx, vy, rows, vrows, chunk, \
                                                              tolerance, int(floor_exponent))) \
                rotated[k] = 1;                                                                \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_JACOBI_SVD_ROUND, jacobi_svd_round)

// eigh_columns: eigh_pair for each pair k, its (c, s) kept for eigh_rows.
#define DDBLAS_LINALG_JACOBI_EIGH_COLUMNS(OP, V)                                               \
    DDBLAS_KERNEL ddblas_linalg_##OP##_##V(                                                    \
        ddblas::index_t n, ddblas::index_t order, double *a_hi, double *a_lo, double *v_hi,    \
        double *v_lo, const ddblas::index_t *p, const ddblas::index_t *q, double tolerance,    \
        double *c_hi, double *c_lo, double *s_hi, double *s_lo, ddblas::index_t *rotated) {    \
        DDBLAS_FOR_EACH_SYSTEM(k, n, 4 * order) {                                              \
            ddblas::dd c, s;                                                                   \
            if (ddblas::jacobi::eigh_pair<ddblas::variants::V>(a_hi, a_lo, v_hi, v_lo, order,  \
                                                               p[k], q[k], tolerance, c, s))   \
                rotated[k] = 1;                                                                \
            c_hi[k] = c.hi;                                                                    \
            c_lo[k] = c.lo;                                                                    \
            s_hi[k] = s.hi;                                                                    \
            s_lo[k] = s.lo;                                                                    \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_JACOBI_EIGH_COLUMNS, jacobi_eigh_columns)

// eigh_rows: rows p and q of A rotated by eigh_columns' (c, s) for pair k (none where s = 0:
// it did not rotate; where it did, |s| >= |t| / sqrt(2) > 0).
#define DDBLAS_LINALG_JACOBI_EIGH_ROWS(OP, V)                                                  \
    DDBLAS_KERNEL ddblas_linalg_##OP##_##V(                                                    \
        ddblas::index_t n, ddblas::index_t order, double *a_hi, double *a_lo,                  \
        const ddblas::index_t *p, const ddblas::index_t *q, const double *c_hi,                \
        const double *c_lo, const double *s_hi, const double *s_lo) {                          \
        DDBLAS_FOR_EACH_SYSTEM(k, n, 2 * order) {                                              \
            if (s_hi[k] == 0.0) continue;                                                      \
            const ddblas::index_t pk = p[k] * order, qk = q[k] * order;                        \
            ddblas::jacobi::rotate<ddblas::variants::V>(                                       \
                a_hi + pk, a_lo + pk, a_hi + qk, a_lo + qk, order, 1,                          \
                ddblas::dd{c_hi[k], c_lo[k]}, ddblas::dd{s_hi[k], s_lo[k]});                   \
        }                                                                                      \
    }
DDBLAS_EACH_VARIANT(DDBLAS_LINALG_JACOBI_EIGH_ROWS, jacobi_eigh_rows)
