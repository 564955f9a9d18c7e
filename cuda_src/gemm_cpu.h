// gemm_cpu.h: the CPU GEMM (host compilers only): cache-blocked, packed, register-tiled and
// vectorised across the columns of each micro-tile, OpenMP over blocks of C. The structure is
// Goto and van de Geijn's (K. Goto, R. van de Geijn, "Anatomy of high-performance matrix
// multiplication", ACM TOMS 34(3), 2008) with BLIS's names: an MC x NC block of C is computed
// KC steps of k at a time from a packed MC x KC panel of op(A) and a packed KC x NC panel of op(B),
// by TM x TN micro-tiles. Every element is still the gemm_dot of gemm.h: acc = (0, 0), then
// acc = madd<V>(acc, a, b) for k = 0 .. K-1 in increasing order (the accumulators are carried
// exactly, as stored doubles, from one KC panel to the next), then gemm_epilogue<V>. So the
// result is bitwise equal to the naive kernel's and the GPU's.
//
// Vectorisation: the compiler vectorises the micro-tile's column loop (`omp simd`, enabled by
// -fopenmp-simd) over plain scalar calls of madd<V>; lanes compute exactly what scalar code
// computes (no contraction, no reassociation), only several columns at once.
#pragma once
#if defined(__CUDACC__)
#error "gemm_cpu.h is for host compilers only"
#endif
#include <vector>
#if defined(_OPENMP)
#include <omp.h>
#endif
#include "gemm.h"

#if defined(DDBLAS_NO_SIMD)
#define DDBLAS_SIMD
#else
#define DDBLAS_SIMD _Pragma("omp simd")
#endif

namespace ddblas {

// The micro-tile TM x TN: TM * TN accumulators (hi and lo) plus the madd temporaries must fit in
// the vector registers, TN a multiple of the vector width. AVX-512: 32 registers of 8 doubles,
// 4 x 16 = 16 accumulator registers (measured on a Xeon with g++ 12: as fast as 8 x 8 with FMA,
// 10-20% faster without, where each row's Dekker split of a[i] serves twice as many columns);
// AVX2: 16 registers of 4, 4 x 8 (accumulators partly in L1, cheap next to ~30 flops a madd;
// measured with -march=haswell on the same Xeon: faster than 2 x 8 and 4 x 4).
#if defined(__AVX512F__)
constexpr int CPU_TM = 4, CPU_TN = 16;
#elif defined(__AVX2__)
constexpr int CPU_TM = 4, CPU_TN = 8;
#else
constexpr int CPU_TM = 4, CPU_TN = 4;
#endif
// The packed panels, per thread: A MC x KC (hi + lo: 256 KiB) and B KC x NC (128 KiB), in L2,
// and the MC x NC accumulators carried between KC panels. NC = 32 rather than 64: twice the
// blocks for OpenMP (a 64 x 64 C uses 2 threads), same speed on one thread (measured).
constexpr int CPU_MC = 64, CPU_NC = 32, CPU_KC = 256;

// micro_step: one k step of a TM x TN tile, acc[i][j] = madd<V>(acc[i][j], a[i], b[j]), a and b
// unit-stride (hi and lo apart); the j loop is vectorised, the i loop unrolled (g++ leaves it
// rolled for the accurate variants otherwise) so the rows' independent madds interleave.
template <class V, int TM, int TN>
inline void micro_step(double (&acc_hi)[TM][TN], double (&acc_lo)[TM][TN], const double *a_hi,
                       const double *a_lo, const double *b_hi, const double *b_lo) {
#pragma GCC unroll 16
    for (int i = 0; i < TM; ++i) {
        const dd a = {a_hi[i], a_lo[i]};
        DDBLAS_SIMD
        for (int j = 0; j < TN; ++j) {
            const dd r = madd<V>(dd{acc_hi[i][j], acc_lo[i][j]}, a, dd{b_hi[j], b_lo[j]});
            acc_hi[i][j] = r.hi;
            acc_lo[i][j] = r.lo;
        }
    }
}

// micro_tile: kc k steps of a TM x TN tile from packed micro-panels (a: kc x TM, b: kc x TN).
template <class V, int TM, int TN>
inline void micro_tile(index_t kc, const double *a_hi, const double *a_lo, const double *b_hi,
                       const double *b_lo, double (&acc_hi)[TM][TN], double (&acc_lo)[TM][TN]) {
    for (index_t k = 0; k < kc; ++k)
        micro_step<V, TM, TN>(acc_hi, acc_lo, a_hi + k * TM, a_lo + k * TM, b_hi + k * TN,
                              b_lo + k * TN);
}

// pack_panel: the rows x kc block of a strided matrix at (r0, k0) (element (r, k) at
// x[r * rs + k * ks]) as ceil(rows / T) micro-panels of kc x T values, rows past `rows` zero.
// Used for op(A) (rows = i) and, through swapped strides, op(B) (rows = j).
template <int T>
inline void pack_panel(index_t rows, index_t kc, index_t r0, index_t k0, const double *x_hi,
                       const double *x_lo, index_t rs, index_t ks, double *p_hi, double *p_lo) {
    for (index_t p = 0; p < rows; p += T)
        for (index_t k = 0; k < kc; ++k)
            for (int t = 0; t < T; ++t) {
                const bool inside = p + t < rows;
                const index_t off = (r0 + p + t) * rs + (k0 + k) * ks;
                *p_hi++ = inside ? x_hi[off] : 0.0;
                *p_lo++ = inside ? x_lo[off] : 0.0;
            }
}

// CpuPanels: one thread's packed panels of op(A) (MC x KC) and op(B) (KC x NC), no larger than
// an M x N x K product needs (small products are common and cheap), and the MC x NC accumulators
// carried between KC panels (only when K > KC).
template <int TM, int TN, int MC, int NC, int KC>
struct CpuPanels {
    std::vector<double> a_hi, a_lo, b_hi, b_lo, carry_hi, carry_lo;
    CpuPanels(index_t M, index_t N, index_t K) {
        const index_t kcap = K < KC ? K : KC;
        const index_t a_size = (M < MC ? (M + TM - 1) / TM * TM : MC) * kcap;
        const index_t b_size = (N < NC ? (N + TN - 1) / TN * TN : NC) * kcap;
        const index_t carry_size = K > KC ? MC * NC : 0;
        a_hi.resize(a_size), a_lo.resize(a_size), b_hi.resize(b_size), b_lo.resize(b_size);
        carry_hi.resize(carry_size), carry_lo.resize(carry_size);
    }
};

// gemm_cpu_block: block `blk` (row-major over the blocks_n columns of blocks) of C = alpha op(A)
// op(B) + beta C (gemm.h's layout and order), on the calling thread with its panels w.
template <class V, int TM, int TN, int MC, int NC, int KC>
void gemm_cpu_block(index_t blk, index_t blocks_n, index_t M, index_t N, index_t K,
                    const double *a_hi, const double *a_lo, index_t a_rs, index_t a_cs,
                    const double *b_hi, const double *b_lo, index_t b_rs, index_t b_cs, dd alpha,
                    dd beta, double *c_hi, double *c_lo, index_t c_rs, index_t c_cs,
                    index_t flags, CpuPanels<TM, TN, MC, NC, KC> &w) {
    static_assert(TM > 0 && TN > 0, "micro-tile sizes TM, TN must be positive");
    static_assert(MC % TM == 0, "MC must be a multiple of TM (whole micro-panels of A)");
    static_assert(NC % TN == 0, "NC must be a multiple of TN (whole micro-panels of B)");
    static_assert(KC > 0, "KC must be positive");
    const index_t i0 = (blk / blocks_n) * MC, j0 = (blk % blocks_n) * NC;
    const index_t mc = M - i0 < MC ? M - i0 : MC, nc = N - j0 < NC ? N - j0 : NC;
    for (index_t k0 = 0; k0 < K; k0 += KC) {
        const index_t kc = K - k0 < KC ? K - k0 : KC;
        const bool first = k0 == 0, last = k0 + kc == K;
        pack_panel<TM>(mc, kc, i0, k0, a_hi, a_lo, a_rs, a_cs, w.a_hi.data(), w.a_lo.data());
        pack_panel<TN>(nc, kc, j0, k0, b_hi, b_lo, b_cs, b_rs, w.b_hi.data(), w.b_lo.data());
        for (index_t jr = 0; jr < nc; jr += TN)
            for (index_t ir = 0; ir < mc; ir += TM) {
                double acc_hi[TM][TN] = {}, acc_lo[TM][TN] = {};
                if (!first)
                    for (int i = 0; i < TM; ++i)
                        for (int j = 0; j < TN; ++j) {
                            const index_t at = (ir + i) * NC + jr + j;
                            acc_hi[i][j] = w.carry_hi[at];
                            acc_lo[i][j] = w.carry_lo[at];
                        }
                micro_tile<V, TM, TN>(kc, w.a_hi.data() + ir * kc, w.a_lo.data() + ir * kc,
                                      w.b_hi.data() + jr * kc, w.b_lo.data() + jr * kc, acc_hi,
                                      acc_lo);
                const int ti = mc - ir < TM ? int(mc - ir) : TM;
                const int tj = nc - jr < TN ? int(nc - jr) : TN;
                for (int i = 0; i < ti; ++i)
                    for (int j = 0; j < tj; ++j) {
                        if (!last) {
                            const index_t at = (ir + i) * NC + jr + j;
                            w.carry_hi[at] = acc_hi[i][j];
                            w.carry_lo[at] = acc_lo[i][j];
                            continue;
                        }
                        const index_t off = (i0 + ir + i) * c_rs + (j0 + jr + j) * c_cs;
                        const dd r = gemm_epilogue<V>(dd{acc_hi[i][j], acc_lo[i][j]}, alpha, beta,
                                                      c_hi, c_lo, off, flags);
                        c_hi[off] = canonical(r.hi);
                        c_lo[off] = canonical(r.lo);
                    }
            }
    }
}

// gemm_cpu: C = alpha op(A) op(B) + beta C (gemm.h's layout and order), OpenMP over MC x NC
// blocks of C, each thread packing its own panels.
template <class V, int TM, int TN, int MC, int NC, int KC>
void gemm_cpu(index_t M, index_t N, index_t K, const double *a_hi, const double *a_lo,
              index_t a_rs, index_t a_cs, const double *b_hi, const double *b_lo, index_t b_rs,
              index_t b_cs, dd alpha, dd beta, double *c_hi, double *c_lo, index_t c_rs,
              index_t c_cs, index_t flags) {
    const index_t blocks_n = (N + NC - 1) / NC, blocks = ((M + MC - 1) / MC) * blocks_n;
    // One thread for small products: starting the team costs more than the work.
#pragma omp parallel if (blocks > 1 && M * N * K >= PARALLEL_MIN_MADDS)
    {
        CpuPanels<TM, TN, MC, NC, KC> panels(M, N, K);
#pragma omp for schedule(static)
        for (index_t blk = 0; blk < blocks; ++blk)
            gemm_cpu_block<V, TM, TN, MC, NC, KC>(blk, blocks_n, M, N, K, a_hi, a_lo, a_rs, a_cs,
                                                  b_hi, b_lo, b_rs, b_cs, alpha, beta, c_hi, c_lo,
                                                  c_rs, c_cs, flags, panels);
    }
}

// CEILING_DRIFT: madd_ceiling_cpu scales its a and b by this every step, so that each step's
// products are new (nothing to hoist) yet, as in the GEMM, independent of the accumulators;
// over 2^40 steps the operands shrink by less than a factor e.
constexpr double CEILING_DRIFT = 1.0 - 0x1p-40;

// madd_ceiling_cpu: the CPU's DD multiply-add rate with the GEMM's own micro-kernel on data that
// stays in registers and L1: every thread runs `iters` micro_steps of one TM x TN tile, the k-th
// with a_k = a_0 DRIFT^k, b_k = b_0 DRIFT^k (the GEMM's panel loads aside, the same work and
// dependences: TM x TN accumulator chains fed by products that do not depend on them).
// Returns the number of madds done; *sink gets a sum of the results (keeps them live).
template <class V, int TM, int TN>
index_t madd_ceiling_cpu(index_t iters, double *sink) {
    index_t madds = 0;
    double total = 0.0;
#pragma omp parallel reduction(+ : madds, total)
    {
        double a_hi[TM], a_lo[TM], b_hi[TN], b_lo[TN], acc_hi[TM][TN], acc_lo[TM][TN];
        for (int i = 0; i < TM; ++i) {  // acc grows by at most 2^-25 a step
            a_hi[i] = 1.0 + i * 0x1p-10;
            a_lo[i] = 0x1p-60;
            for (int j = 0; j < TN; ++j) {
                acc_hi[i][j] = 1.0;
                acc_lo[i][j] = 0x1p-60;
            }
        }
        for (int j = 0; j < TN; ++j) {
            b_hi[j] = (j + 1) * 0x1p-30;
            b_lo[j] = -0x1p-90;
        }
        for (index_t it = 0; it < iters; ++it) {
            for (int i = 0; i < TM; ++i) a_hi[i] *= CEILING_DRIFT;
            for (int j = 0; j < TN; ++j) b_hi[j] *= CEILING_DRIFT;
            micro_step<V, TM, TN>(acc_hi, acc_lo, a_hi, a_lo, b_hi, b_lo);
        }
        for (int i = 0; i < TM; ++i)
            for (int j = 0; j < TN; ++j) total += acc_hi[i][j] + acc_lo[i][j];
        madds += iters * TM * TN;
    }
    *sink = total;
    return madds;
}

// cpu_threads: set the OpenMP thread count of later parallel regions started by the calling
// thread (n >= 1); n <= 0 only reads it. Returns the count in effect (1 without OpenMP).
inline int cpu_threads(int n) {
#if defined(_OPENMP)
    if (n > 0) omp_set_num_threads(n);
    return omp_get_max_threads();
#else
    (void)n;
    return 1;
#endif
}

}  // namespace ddblas

// ---- the extern "C" CPU kernels (instantiated by the units: gemm, bench) ----
// cpu: the CPU twin (gemm_cpu.h): packed panels, TM x TN micro-tiles vectorised over columns,
// OpenMP over MC x NC blocks of C (the kernel starts its own team; the work count is unused).
#define DDBLAS_GEMM_CPU_KERNEL(OP, V)                                                        \
    DDBLAS_KERNEL ddblas_##OP##_##V(DDBLAS_GEMM_PARAMS) {                                    \
        ddblas::gemm_cpu<ddblas::variants::V, ddblas::CPU_TM, ddblas::CPU_TN, ddblas::CPU_MC, \
                         ddblas::CPU_NC, ddblas::CPU_KC>(DDBLAS_GEMM_ARGS);                  \
    }

// madd_ceiling_cpu: the register-resident madd rate on all threads (gemm_cpu.h); returns the
// number of DD multiply-adds done.
#define DDBLAS_MADD_CEILING_CPU_KERNEL(OP, V)                                                 \
    extern "C" ddblas::index_t ddblas_##OP##_##V(ddblas::index_t iters, double *sink) {       \
        return ddblas::madd_ceiling_cpu<ddblas::variants::V, ddblas::CPU_TM, ddblas::CPU_TN>( \
            iters, sink);                                                                     \
    }
