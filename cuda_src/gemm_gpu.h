// gemm_gpu.h: the shared-memory GEMM kernels of the GPU (the naive kernel is in gemm.h, the CPU's
// in gemm_cpu.h). One template covers three rungs of the classic optimization ladder and the
// tall-and-skinny kernel:
//   tiled:   BM = BN = BK = 16, TM = TN = 1: tiles of A and B staged through padded shared
//            memory, inner loop unrolled, one C element per thread;
//   blocked: Nakasato's register blocking: each thread accumulates TM x TN (= b x b) elements of
//            C in registers, and the next tiles of A and B are prefetched (copied into a second
//            shared-memory stage) while the current ones are used. A thread's elements are
//            strided (rows ty + i * BM / TM, columns tx + j * BN / TN), so a warp's shared-memory
//            reads of B are consecutive doubles (no bank conflicts) and its stores to C coalesce.
//   tsm:     TSM2 for tall-and-skinny products (C = A B, few columns; J. Chen, N. Xiong, X. Liang,
//            D. Tao, S. Li, K. Ouyang, K. Zhao, N. DeBardeleben, Q. Guan, Z. Chen, "TSM2:
//            optimizing tall-and-skinny matrix-matrix multiplication on GPUs", ICS 2019):
//            BM = t1 = 128 threads each own one row of A and accumulate a whole row of the
//            TN = t2 columns of C in registers (an outer-product update per k); the BK x TN tile
//            of B is shared through shared memory; A streams through once, BK = t3 elements per
//            thread per tile (16 for a row-major op(A), else 8: the kernel macros below), the
//            next tile in flight. The K range is split into pieces (grid z)
//            when the rows alone give too few blocks (ddblas/_tsm.py chooses t2 and the pieces).
// Tiles move global -> shared with cp.async (sm_80+; no staging registers, so more blocks fit
// per SM), or with plain loads and stores on older GPUs.
// Every C element is summed over its K range in increasing order exactly as gemm_dot does
// (gemm.h); a launch with several pieces of K writes partial sums that gemm_add_pieces adds.
#pragma once
#include "gemm.h"

namespace ddblas {

// copy_to_shared: *smem = in ? *gmem : 0, asynchronously on sm_80+ (cp.async with a zero-byte
// source when !in: nothing is read, the destination is zero-filled); gmem must be a valid
// address either way. commit_copies() closes a group of copies; wait_copies<P>() waits until at
// most P groups are pending. The __syncthreads() that follows every wait publishes the tile to
// the block and keeps the compiler from moving reads of the stage above it, so the asm needs no
// memory clobber (nothing reads a stage while its copies are in flight).
__device__ __forceinline__ void copy_to_shared(double *smem, const double *gmem, bool in) {
#if __CUDA_ARCH__ >= 800
    const unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(dst), "l"(gmem),
                 "r"(in ? 8 : 0));
#else
    *smem = in ? *gmem : 0.0;
#endif
}
__device__ __forceinline__ void commit_copies() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int PENDING>
__device__ __forceinline__ void wait_copies() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING));
#endif
}


// GemmTiles: the shared-memory tiles of a configuration, STAGES deep: hi and lo parts apart
// (hi and lo of one value side by side, 128-bit DD accesses, measured 6% slower on the H100 at
// N = 4096, docs/performance.md), k-major so the inner loop reads rows of them. Rows are padded
// by GEMM_TILE_PAD doubles (geometry.h): against bank conflicts of the copies that walk k, and
// an even row length keeps every row 16-byte aligned for the 128-bit reads of two adjacent
// values (gemm_shared's thread tiles in pairs). sizeof(GemmTiles) = gemm_tiles_bytes(BM, BN, BK,
// STAGES) (geometry.h, exported to Python).
template <int BM, int BN, int BK, int STAGES>
struct GemmTiles {
    static constexpr int PAD = GEMM_TILE_PAD;
    double a_hi[STAGES][BK][BM + PAD], a_lo[STAGES][BK][BM + PAD];
    double b_hi[STAGES][BK][BN + PAD], b_lo[STAGES][BK][BN + PAD];
};
static_assert(sizeof(GemmTiles<64, 32, 8, 2>) == gemm_tiles_bytes(64, 32, 8, 2) &&
                  sizeof(GemmTiles<128, 3, 16, 1>) == gemm_tiles_bytes(128, 3, 16, 1),
              "geometry.h's gemm_tiles_bytes is the size of GemmTiles");

// gemm_tiles: a block's tiles, in static shared memory when they fit its 48 KB, else in the
// launch's dynamic shared memory, which must hold sizeof(Tiles) bytes (the kernel opted in).
// Static where possible: ptxas allocates registers differently for dynamic tiles (4-byte spills
// in tsm8 at sm_90 without a __launch_bounds__ minimum).
template <class Tiles>
__device__ __forceinline__ Tiles &gemm_tiles() {
    static_assert(sizeof(Tiles) <= DYNAMIC_SHARED_LIMIT,
                  "the tiles exceed the shared memory a block can have");
    if constexpr (sizeof(Tiles) <= STATIC_SHARED_LIMIT) {
        __shared__ Tiles tiles;
        return tiles;
    } else {
        extern __shared__ double gemm_dynamic_tiles[];
        return *reinterpret_cast<Tiles *>(gemm_dynamic_tiles);
    }
}

// read_tile_row: a thread's COUNT values of one k row of a tile (hi and lo apart), value p at
// first + p * SPREAD, or, with PAIRS, values 2q and 2q + 1 side by side at first + q * SPREAD
// (one 128-bit load a part for both; first even and rows 16-byte aligned).
template <int COUNT, int SPREAD, bool PAIRS>
__device__ __forceinline__ void read_tile_row(dd (&out)[COUNT], const double *hi, const double *lo,
                                              int first) {
    if constexpr (PAIRS) {
        static_assert(COUNT % 2 == 0, "values in pairs need an even count");
#pragma unroll
        for (int q = 0; q < COUNT / 2; ++q) {
            const double2 h = *reinterpret_cast<const double2 *>(hi + first + q * SPREAD);
            const double2 l = *reinterpret_cast<const double2 *>(lo + first + q * SPREAD);
            out[2 * q] = dd{h.x, l.x};
            out[2 * q + 1] = dd{h.y, l.y};
        }
    } else {
#pragma unroll
        for (int p = 0; p < COUNT; ++p) out[p] = dd{hi[first + p * SPREAD], lo[first + p * SPREAD]};
    }
}

// copy_tile_rows: a thread's LOADS copies of one operand's tile into the k-major shared tiles:
// copy r is element (k, x + r STEP) or, STEPS_K, (k + r STEP, x) of the tile (x along m for A, n
// for B), from hi/lo + first + r step. CHECKED: an element at k >= k_left or x >= x_left (past
// the K range or the operand) is zero-filled, read from nowhere; unchecked, the tile lies wholly
// inside and each address is one step from the last. The checked copies of a 16-deep b4 tile
// took ~235 instructions beside its 4,128 in the multiply-adds (Nsight Compute); copying whole
// tiles unchecked made b4 fma/sloppy 2 % faster at N = 4096 (docs/performance.md).
template <bool CHECKED, int LOADS, int STEP, bool STEPS_K, int ROWS, int COLS>
__device__ __forceinline__ void copy_tile_rows(double (&hi_tile)[ROWS][COLS],
                                               double (&lo_tile)[ROWS][COLS], const double *hi,
                                               const double *lo, index_t first, index_t step, int k,
                                               int x, index_t k_left, index_t x_left) {
#pragma unroll
    for (int r = 0; r < LOADS; ++r, first += step) {
        const int kr = k + (STEPS_K ? r * STEP : 0), xr = x + (STEPS_K ? 0 : r * STEP);
        const bool in = !CHECKED || (kr < k_left && xr < x_left);
        const index_t off = in ? first : 0;  // hi and lo themselves are valid addresses to name
        copy_to_shared(&hi_tile[kr][xr], hi + off, in);
        copy_to_shared(&lo_tile[kr][xr], lo + off, in);
    }
}

// copy_tile: copy_tile_rows, unchecked where the whole ROWS x (tile width) tile is inside.
template <int LOADS, int STEP, bool STEPS_K, int ROWS, int COLS>
__device__ __forceinline__ void copy_tile(double (&hi_tile)[ROWS][COLS],
                                          double (&lo_tile)[ROWS][COLS], const double *hi,
                                          const double *lo, index_t first, index_t step, int k,
                                          int x, index_t k_left, index_t x_left, int width) {
    if (k_left >= ROWS && x_left >= width)
        copy_tile_rows<false, LOADS, STEP, STEPS_K>(hi_tile, lo_tile, hi, lo, first, step, k, x,
                                                    k_left, x_left);
    else
        copy_tile_rows<true, LOADS, STEP, STEPS_K>(hi_tile, lo_tile, hi, lo, first, step, k, x,
                                                   k_left, x_left);
}

// The layout of a tile's source in global memory decides which index consecutive threads walk,
// so that their loads are coalesced: A_K_CONTIG means a_cs == 1 (op(A) row-major), otherwise
// consecutive threads walk i (a_rs == 1, or a general stride); B_N_CONTIG means b_cs == 1. With
// A_K_CONTIG, a warp copies 32 / BK rows of BK doubles a part: BK = 16 makes each row's segment a
// whole 128-byte line.
template <int BM, int BN, int BK, int TM, int TN, int K_UNROLL, bool A_K_CONTIG, bool B_N_CONTIG,
          bool PREFETCH, class V>
__device__ __forceinline__ void gemm_shared(
    index_t M, index_t N, index_t K, const double *__restrict__ a_hi,
    const double *__restrict__ a_lo, index_t a_rs, index_t a_cs, const double *__restrict__ b_hi,
    const double *__restrict__ b_lo, index_t b_rs, index_t b_cs, dd alpha, dd beta, double *c_hi,
    double *c_lo, index_t c_rs, index_t c_cs, index_t flags, index_t k_begin, index_t k_end) {
    static_assert(BM % TM == 0 && BN % TN == 0, "the thread tile TM x TN must divide BM x BN");
    static_assert(K_UNROLL >= 1 && BK % K_UNROLL == 0, "K_UNROLL must divide BK");
    constexpr int THREADS_M = BM / TM, THREADS_N = BN / TN;
    constexpr int THREADS = THREADS_M * THREADS_N;
    constexpr int B_TILE = BK * BN;
    static_assert((BM * BK) % THREADS == 0, "each thread must load the same number of A elements");
    static_assert(B_TILE % THREADS == 0 || THREADS % B_TILE == 0,
                  "the B tile must be a whole number of loads per thread, or fewer than a load "
                  "per thread (then the first B_TILE threads load it)");
    constexpr int A_LOADS = BM * BK / THREADS;
    constexpr int B_LOADS = (B_TILE + THREADS - 1) / THREADS;
    constexpr int STAGES = PREFETCH ? 2 : 1;
    using Tiles = GemmTiles<BM, BN, BK, STAGES>;
    Tiles &tiles = gemm_tiles<Tiles>();
    auto &as_hi = tiles.a_hi, &as_lo = tiles.a_lo;
    auto &bs_hi = tiles.b_hi, &bs_lo = tiles.b_lo;

    // A thread's C elements: rows ty + i * THREADS_M and columns tx + j * THREADS_N, strided so
    // that a warp's reads of B are consecutive doubles and its stores to C coalesce. A thread
    // with four or more columns (b4, tsm4 and wider) has them in pairs of adjacent ones, columns
    // 2 tx + {0, 1} + 2 q THREADS_N, each pair read by one 128-bit load a part (b4: 1-2% faster
    // on the H200). Rows stay single: pairs of rows as well cost b4's kk non-FMA kernel spills at
    // its 168 registers, and b2's 2 x 2 tiles spilled with pairs (docs/performance.md).
    constexpr bool PAIRS_N = TN % 2 == 0 && TN >= 4;
    constexpr int VEC_N = PAIRS_N ? 2 : 1;
    static_assert(!PAIRS_N || (BN + Tiles::PAD) % 2 == 0,
                  "pairs are read from tile rows of an even number of doubles (16-byte aligned)");
    const int tid = threadIdx.x;
    const int tx = tid % THREADS_N, ty = tid / THREADS_N;
    const index_t row0 = (index_t)blockIdx.y * BM, col0 = (index_t)blockIdx.x * BN;

    // gmem -> smem. Element l = tid + r * THREADS of the A tile is (m, k) = (l / BK, l % BK) or
    // (l % BM, l / BM) (B alike); as THREADS is a multiple of BM, BN and BK, a thread's elements
    // share one k (or m) and step by A_STEP in the other index: per tile, one offset and a bound
    // check per element. Tiles are stored k-major so the inner loop reads rows of as/bs.
    static_assert(THREADS % BM == 0 && THREADS % BN == 0 && THREADS % BK == 0,
                  "THREADS must be a multiple of BM, BN and BK");
    constexpr int A_STEP = A_K_CONTIG ? THREADS / BK : THREADS / BM;
    constexpr int B_STEP = B_N_CONTIG ? THREADS / BN : THREADS / BK;
    const int a_m = A_K_CONTIG ? tid / BK : tid % BM, a_k = A_K_CONTIG ? tid % BK : tid / BM;
    const index_t a_i = row0 + a_m;
    const index_t a_off = a_i * a_rs + a_k * a_cs, a_step = A_STEP * (A_K_CONTIG ? a_rs : a_cs);
    const int b_k = B_N_CONTIG ? tid / BN : tid % BK, b_n = B_N_CONTIG ? tid % BN : tid / BK;
    const index_t b_j = col0 + b_n;
    const index_t b_off = b_k * b_rs + b_j * b_cs, b_step = B_STEP * (B_N_CONTIG ? b_rs : b_cs);
    const bool loads_b = B_TILE >= THREADS || tid < B_TILE;
    auto load_tiles = [&](index_t k0, int stage) {
        const index_t k_left = k_end - k0;
        copy_tile<A_LOADS, A_STEP, !A_K_CONTIG>(as_hi[stage], as_lo[stage], a_hi, a_lo,
                                                a_off + k0 * a_cs, a_step, a_k, a_m, k_left,
                                                M - row0, BM);
        if (loads_b)
            copy_tile<B_LOADS, B_STEP, B_N_CONTIG>(bs_hi[stage], bs_lo[stage], b_hi, b_lo,
                                                   b_off + k0 * b_rs, b_step, b_k, b_n, k_left,
                                                   N - col0, BN);
        commit_copies();
    };

    dd acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = dd{0.0, 0.0};

    if (k_begin < k_end) load_tiles(k_begin, 0);
    int stage = 0;
    for (index_t k0 = k_begin; k0 < k_end; k0 += BK, stage ^= int(PREFETCH)) {
        const bool more = k0 + BK < k_end;
        if constexpr (PREFETCH) {
            if (more) {
                load_tiles(k0 + BK, stage ^ 1);  // the next tiles in flight during this compute
                wait_copies<1>();                // this tile's copies are done
            } else {
                wait_copies<0>();
            }
        } else {
            wait_copies<0>();
        }
        __syncthreads();
        const int kmax = k_end - k0 < BK ? int(k_end - k0) : BK;
#pragma unroll K_UNROLL
        for (int kk = 0; kk < BK; ++kk) {
            if (kk < kmax) {  // the last tile is summed only over its valid k: same order as gemm_dot
                dd a[TM], b[TN];
                read_tile_row<TM, THREADS_M, false>(a, as_hi[stage][kk], as_lo[stage][kk], ty);
                read_tile_row<TN, THREADS_N * VEC_N, PAIRS_N>(b, bs_hi[stage][kk],
                                                              bs_lo[stage][kk], tx * VEC_N);
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int j = 0; j < TN; ++j) acc[i][j] = madd<V>(acc[i][j], a[i], b[j]);
            }
        }
        __syncthreads();  // every thread is done with this stage before it is refilled
        if constexpr (!PREFETCH) {
            if (more) load_tiles(k0 + BK, 0);
        }
    }

#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const index_t gi = row0 + ty + i * THREADS_M;
            const index_t gj = col0 + (j / VEC_N) * (THREADS_N * VEC_N) + tx * VEC_N + j % VEC_N;
            if (gi < M && gj < N) {
                const index_t off = gi * c_rs + gj * c_cs;
                dd r = gemm_epilogue<V>(acc[i][j], alpha, beta, c_hi, c_lo, off, flags);
                c_hi[off] = canonical(r.hi);
                c_lo[off] = canonical(r.lo);
            }
        }
}

// The in-register ceiling: each thread runs ITERS rounds of CHAINS DD multiply-adds on values held
// in registers (no memory traffic in the loop): acc[c] += acc[c+1] * y. Each product uses another
// chain's value, so it is neither loop-invariant nor on its own chain's critical path (as in a
// GEMM, where a*b does not depend on acc); y ~ 2^-30 keeps the values bounded. This is the speed
// limit of any GEMM kernel built on madd<V>.
template <int CHAINS, class V>
__device__ __forceinline__ void madd_ceiling(index_t iters, const double *seed, double *out) {
    const index_t t = (index_t)blockIdx.x * blockDim.x + threadIdx.x;
    dd acc[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) acc[c] = dd{seed[0] + (double)(t + c), seed[1]};
    const dd y = {seed[2], seed[3]};
    for (index_t it = 0; it < iters; ++it) {
        dd prev[CHAINS];
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) prev[c] = acc[c];
#pragma unroll
        for (int c = 0; c < CHAINS; ++c) acc[c] = madd<V>(acc[c], prev[(c + 1) % CHAINS], y);
    }
    double s = 0.0;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) s += acc[c].hi + acc[c].lo;
    out[t] = s;
}

}  // namespace ddblas

// ---- the extern "C" GPU GEMM kernels: ddblas_gemm_<algorithm>_<layout>_<variant> ----
// layout: A "k" (a_cs == 1) or "m"; B "n" (b_cs == 1) or "k". The configurations are the rows of
// geometry.h's DDBLAS_GEMM_CLASSIC_SHAPES and DDBLAS_GEMM_TSM_SHAPES (the block has
// gemm_threads(BM, BN, TM, TN) threads; ddblas/_gemm.py and _tsm.py read the same rows through
// ddblas/_cpu.geometry()); the units gemm.cu and tsm.cu instantiate them.
// b4 is 64 x 32 x 16 with 128 threads, 3 blocks (12 warps) per SM: 64 x 32 chosen on the H100
// over the 64 x 64 256-thread block (1 block per SM) and others (bench/tile_sweep.py); 16 deep
// (51 KB of dynamic shared memory a block, half the barriers of 8 deep) 1% faster on the H200.
// Every kernel takes piece_len and piece_stride; those with PIECES (tsm) sum, in block z of the
// grid, the piece k in [z piece_len, min(K, (z + 1) piece_len)) and write C + z piece_stride:
// one piece (piece_len >= K, grid z = 1) is the whole product; several write their partial sums
// (flags: alpha = 1, beta = 0) into a workspace for ddblas_gemm_pieces_<V>. The others sum all
// of K (the pieces' index arithmetic cost b2 registers: spills on sm_90).
// tsm with A "k" (row-major op(A)) uses BK = 16, so that a warp's copies are whole 128-byte lines
// of two rows (at BK = 8: 64-byte segments, 58-62% of the H100's HBM bandwidth at t2 <= 2); its
// 66-74 KB of tiles are dynamic (ddblas/_tsm.py) and fit 3 blocks an SM, the minimum promised.
// With A "m" a warp copies 256 contiguous bytes at any BK: BK = 8 keeps 33-37 KB, 6 blocks.
// tsm16 with A "m" promises one block an SM: without a promise, ptxas held its non-FMA accurate
// kernels to 128 registers and spilled 4 bytes on sm_90 (with one block promised: 162, no spill).
#define DDBLAS_A_K_CONTIG_k true
#define DDBLAS_A_K_CONTIG_m false
#define DDBLAS_B_N_CONTIG_n true
#define DDBLAS_B_N_CONTIG_k false
#define DDBLAS_GEMM_SHARED_KERNEL(NAME, A, B, V, BM, BN, BK, TM, TN, K_UNROLL, MIN_BLOCKS,      \
                                  PREFETCH, PIECES)                                               \
    DDBLAS_KERNEL __launch_bounds__(ddblas::gemm_threads(BM, BN, TM, TN), MIN_BLOCKS)           \
        ddblas_gemm_##NAME##_##A##B##_##V(DDBLAS_GEMM_PARAMS, ddblas::index_t piece_len,         \
                                          ddblas::index_t piece_stride) {                        \
        ddblas::index_t piece = 0, k_begin = 0, k_end = K;                                       \
        if constexpr (PIECES) {                                                                  \
            piece = (ddblas::index_t)blockIdx.z;                                                 \
            k_begin = piece * piece_len;                                                         \
            k_end = K - k_begin < piece_len ? K : k_begin + piece_len;                           \
        }                                                                                        \
        ddblas::gemm_shared<BM, BN, BK, TM, TN, K_UNROLL, DDBLAS_A_K_CONTIG_##A,                \
                            DDBLAS_B_N_CONTIG_##B, PREFETCH, ddblas::variants::V>(               \
            M, N, K, a_hi, a_lo, a_rs, a_cs, b_hi, b_lo, b_rs, b_cs, ddblas::dd{alpha_hi, alpha_lo}, \
            ddblas::dd{beta_hi, beta_lo}, c_hi + piece * piece_stride, c_lo + piece * piece_stride, \
            c_rs, c_cs, flags, k_begin, k_end);                                                  \
    }
// DDBLAS_GEMM_SHAPE_KERNELS: the kernels of one row of a geometry.h table, both B layouts, every
// variant of the unit (use: DDBLAS_GEMM_CLASSIC_SHAPES(DDBLAS_GEMM_SHAPE_KERNELS)).
#define DDBLAS_GEMM_SHAPE_LAYOUTS(V, NAME, A, ...)              \
    DDBLAS_GEMM_SHARED_KERNEL(NAME, A, n, V, __VA_ARGS__)       \
    DDBLAS_GEMM_SHARED_KERNEL(NAME, A, k, V, __VA_ARGS__)
#define DDBLAS_GEMM_SHAPE_KERNELS(...) DDBLAS_FOR_VARIANTS(DDBLAS_GEMM_SHAPE_LAYOUTS, __VA_ARGS__)
// madd_ceiling: the in-register ceiling kernel per variant (the "bench" unit).
#define DDBLAS_MADD_CEILING_KERNEL(OP, V)                                                        \
    DDBLAS_KERNEL ddblas_##OP##_##V(ddblas::index_t iters, const double *seed, double *out) {   \
        ddblas::madd_ceiling<8, ddblas::variants::V>(iters, seed, out);                         \
    }
