// geometry.h: every launch geometry and threshold that the Python side must agree with, named
// once. The kernels (NVRTC and the host compiler) are instantiated from these tables, and the host
// unit (units/host.cpp) exports them (ddblas_geometry), which ddblas/_cpu.geometry() reads: a new
// tile configuration is one row of a table below, seen by the kernels and Python alike.
#pragma once
#include "dd_config.h"

namespace ddblas {

// The flags argument of every GEMM kernel (gemm.h's epilogue).
enum GemmFlags {
    GEMM_ALPHA_ONE = 1,   // alpha == 1: C = acc (+ beta C0), no multiplication by alpha
    GEMM_BETA_ZERO = 2,   // beta == 0: C0 is never read (a NaN in C does not leak)
};

constexpr unsigned STATIC_SHARED_LIMIT = 48 * 1024;     // static __shared__ at most, per block;
                                                        // also the dynamic bytes without opt-in
constexpr unsigned DYNAMIC_SHARED_LIMIT = 227 * 1024;   // dynamic, after the opt-in (sm_90)

// CPU: loops with at least this many items run on an OpenMP team (DDBLAS_FOR_EACH, the Ozaki
// loops); smaller ones stay on one thread (starting the team costs more than the work).
constexpr index_t PARALLEL_MIN_ITEMS = 16384;
// CPU GEMMs (single and batched) start a team from this many multiply-adds M N K (batch M N K),
// the batched small systems from count x a system's (cpu_entry.h DDBLAS_FOR_EACH_SYSTEM).
constexpr index_t PARALLEL_MIN_MADDS = 32768;

// CUDA's launch limits that the Python side plans with: threads a warp, gridDim.y and gridDim.z.
constexpr int WARP_SIZE = 32;
constexpr int GRID_YZ_LIMIT = 65535;

// GPU batched GEMM: the largest block (gemm_batched.h; ddblas/_batched.py picks the size), the
// blocks launched at most (the kernel loops over the groups) and the largest m and n (IndexWalk's
// 32-bit element coordinates).
constexpr int GEMM_BATCHED_MAX_THREADS = 256;
constexpr int GEMM_BATCHED_MAX_BLOCKS = 65535;
constexpr long long GEMM_BATCHED_MAX_DIM = 2147483647;
static_assert(GEMM_BATCHED_MAX_THREADS % 32 == 0 && GEMM_BATCHED_MAX_THREADS <= 256,
              "whole warps, launchable at 255 registers a thread");

// LU's pivot search outside the panels (ddblas/linalg/factor.py): its first pass scans a column
// in items of PIVOT_CHUNK rows.
constexpr index_t PIVOT_CHUNK = 256;

// Row interchanges (linalg.h apply_interchanges): LASWP_BATCH interchanges of a column at a time,
// their loads issued together when their row pairs are disjoint.
constexpr int LASWP_BATCH = 8;

// LU panels (ddblas/linalg/factor.py): at most LU_PANEL_WIDTH columns, factored column by column
// (GPU: by one block of LU_PANEL_THREADS threads, linalg.h lu_panel_block, a row's entries in
// registers).
constexpr int LU_PANEL_WIDTH = 16;
constexpr int LU_PANEL_THREADS = 256;
// GPU panels of at least LU_PANEL_GRID_MIN_ROWS rows are factored by a cooperative grid of
// such blocks instead (linalg.h lu_panel_grid): one block would stream every row through one SM
// at every column.
constexpr int LU_PANEL_GRID_MIN_ROWS = 2048;
static_assert(LU_PANEL_THREADS >= 32 && (LU_PANEL_THREADS & (LU_PANEL_THREADS - 1)) == 0,
              "a power of two of whole warps: the pivot search's tree reduction halves it");

// Batched small LU on the GPU (linalg_batched.h lu_shared), the matrix in shared memory: orders <=
// WARP_SIZE a warp a system (BATCHED_WARP_THREADS / WARP_SIZE systems a block; a quarter of a warp
// up to BATCHED_QUARTER_WARP_MAX_ORDER, a half up to BATCHED_HALF_WARP_MAX_ORDER), orders up to
// BATCHED_SMALL_BLOCK_MAX_ORDER a block of BATCHED_SMALL_BLOCK_TEAM threads a system, orders up to
// BATCHED_TEAM_MAX_ORDER a block of BATCHED_BLOCK_TEAM (measured on an H100 before the block teams
// looked ahead: 128 threads 1.1-1.6x faster than 256 at orders 33-48, 256 faster from 56 on);
// larger orders keep one thread a system. The solve (lu_solve_team) takes a block of >= order
// threads a system. 96: a system's shared memory (151 KB) fits one block on sm_80 (163 KB) as well
// as sm_90 (227 KB). The warp and small-block teams also solve as they factor (solve_shared: the
// right-hand sides beside the matrix, where its shared memory fits the device); on blocks of
// BATCHED_BLOCK_TEAM the back substitution's n dependent steps on one warp, the system's shared
// memory held throughout, made that slower than lu_shared_block then lu_solve_team (H100, 10^4
// systems, one right-hand side: 56 x 56 4.9 against 4.2 ms, 64 x 64 5.8 against 5.4, 96 x 96 26
// against 23).
constexpr int BATCHED_TEAM_MAX_ORDER = 96;
// Teams of 8 and 16 lanes put more systems in flight where a warp's lanes would idle: an SM holds
// as many systems as shared memory and registers allow, and a warp team's registers capped it at
// about 30 (order 9: a quarter of a warp fits 4 times as many). Measured (H100, 10^4 systems, one
// right-hand side, solve's kernels in us, quarter / half / warp): 9: 37 / 53 / 71, 12: 63 / 81 /
// 104, 13: 123 / 94 / 119, 16: 193 / 141 / 163, 17: - / 166 / 182, 19: - / 259 / 218.
constexpr int BATCHED_QUARTER_WARP_MAX_ORDER = 12;
constexpr int BATCHED_HALF_WARP_MAX_ORDER = 17;
static_assert(BATCHED_QUARTER_WARP_MAX_ORDER < BATCHED_HALF_WARP_MAX_ORDER &&
              BATCHED_HALF_WARP_MAX_ORDER < WARP_SIZE, "teams grow with the order");
constexpr int BATCHED_WARP_THREADS = 128;
constexpr int BATCHED_SMALL_BLOCK_TEAM = 128;
constexpr int BATCHED_SMALL_BLOCK_MAX_ORDER = 48;
constexpr int BATCHED_BLOCK_TEAM = 256;
// lu_solve_team's blocks (a thread a row, whole warps up to BATCHED_TEAM_MAX_ORDER) are built for
// this many resident an SM: 60-62 registers instead of the 80 the compiler took unbounded.
constexpr int BATCHED_SOLVE_TEAM_MIN_BLOCKS = 10;
// The block teams' kernels are built for as many blocks an SM as an H100's shared memory allows
// their largest common systems (order 48 with a right-hand side: 38 KB, 6 blocks of 128 threads;
// order 64: 66 KB, 3 blocks of 256; an A100 fits 4 and 2), at most 80 registers a thread.
// Unbounded, the look-ahead took 84-96, and registers (allocated 256 a warp at a time) then left
// 2 blocks of 256 an SM: 64 x 64 5.8 ms instead of 4.7 (H100, 10^4 systems).
constexpr int BATCHED_SMALL_BLOCK_MIN_BLOCKS = 6;
constexpr int BATCHED_BLOCK_MIN_BLOCKS = 3;
// The teams' updates go round the threads one entry a thread or in groups of 2 x 2 entries
// (four independent madds a thread; linalg_batched.h trailing_update). A warp team takes groups
// from order^2 >= BATCHED_QUADS_MIN_AREA x WARP_SIZE (order 22 on), about 3.5 groups a thread at
// the first step (measured, 10^4 systems on the H200: single entries 4-7 % faster up to 19,
// groups from 24 on 5-26 %). The block teams, which look ahead (lu_shared), always take groups:
// single entries measured 2-4x slower there (H100).
constexpr int BATCHED_QUADS_MIN_AREA = 14;
static_assert(BATCHED_WARP_THREADS % WARP_SIZE == 0 && BATCHED_SMALL_BLOCK_TEAM % WARP_SIZE == 0 &&
              BATCHED_BLOCK_TEAM % WARP_SIZE == 0, "blocks of whole warps");
static_assert(WARP_SIZE < BATCHED_SMALL_BLOCK_MAX_ORDER &&
              BATCHED_SMALL_BLOCK_MAX_ORDER <= BATCHED_SMALL_BLOCK_TEAM,
              "a block team offers a pivot candidate a thread for every row");
static_assert(BATCHED_TEAM_MAX_ORDER % WARP_SIZE == 0 && BATCHED_TEAM_MAX_ORDER <= 1024,
              "the solve's blocks: whole warps, within CUDA's limit");
static_assert(BATCHED_TEAM_MAX_ORDER <= BATCHED_BLOCK_TEAM,
              "a block team offers a pivot candidate a thread for every row");
// batched_shared_entries: the 16-byte DD entries of dynamic shared memory a system takes in
// lu_shared: order rows of width (the matrix, then the fused solve's right-hand sides) padded to
// an odd leading dimension.
DD_HD constexpr index_t batched_shared_entries(index_t order, index_t width) {
    return order * (width | 1);
}

// The batched LU's report flags (linalg_batched.h BatchReport: the factor kernels OR in the A_*
// flags as they load the entries, the solve kernels the B_* flags and X_NOT_FINITE), read by
// ddblas/linalg/solve.py in place of separate passes over a and b. An entry is "large" at
// |hi| >= 2^LINALG_SCALE_EXPONENT, where solve scales its operands by powers of two
// (ddblas/linalg/scaling.py), and "tiny" when nonzero below 2^LINALG_TINY_EXPONENT, where solve
// scales columns up (their low parts would be subnormal near 2^-970); either sends the call down
// solve's scaled path.
constexpr int LINALG_SCALE_EXPONENT = 512;
constexpr int LINALG_TINY_EXPONENT = -500;
// solve and det equilibrate the rows of a matrix whose rows' largest entries' exponents differ by
// more than LINALG_ROW_SPREAD (LU's multipliers 2^-spread would lose bits to the subnormals);
// the batched kernels flag A_SPREAD where the nonzero entries' exponents (hi parts) do, which
// includes every such matrix, and solve then takes its equilibrating path.
constexpr int LINALG_ROW_SPREAD = 500;
constexpr int BATCHED_REPORT_A_NOT_FINITE = 1;
constexpr int BATCHED_REPORT_A_LARGE = 2;
constexpr int BATCHED_REPORT_B_NOT_FINITE = 4;
constexpr int BATCHED_REPORT_B_LARGE = 8;
constexpr int BATCHED_REPORT_X_NOT_FINITE = 16;
constexpr int BATCHED_REPORT_A_SPREAD = 32;
constexpr int BATCHED_REPORT_A_TINY = 64;
constexpr int BATCHED_REPORT_B_TINY = 128;

// Cholesky (ddblas/linalg/factor.py): the potrf kernel factors matrices of order up to
// POTRF_MAX_ORDER (on the GPU one warp a matrix, linalg.h potrf_warp): stacks of them in one
// launch; the recursive Cholesky of a larger matrix splits it down to blocks of at most
// POTRF_BLOCK rows.
constexpr int POTRF_BLOCK = 32;
constexpr int POTRF_MAX_ORDER = 64;
static_assert(POTRF_BLOCK <= POTRF_MAX_ORDER, "the recursion's leaves go to the potrf kernel");

// Triangular solves (ddblas/blas/level3.py): diagonal blocks of at most TRSM_BLOCK rows go to the
// trsm kernel; on the GPU a warp solves a right-hand side column, TRSM_ROWS_PER_LANE rows a lane
// (linalg.h solve_column_warp), TRSM_THREADS / WARP_SIZE columns a block sharing the staged
// triangle (2 order^2 doubles of dynamic shared memory for a block of `order` rows).
constexpr int TRSM_BLOCK = 64;
constexpr int TRSM_THREADS = 256;
constexpr int TRSM_ROWS_PER_LANE = TRSM_BLOCK / WARP_SIZE;
static_assert(TRSM_BLOCK % WARP_SIZE == 0 && TRSM_THREADS % WARP_SIZE == 0,
              "trsm: whole rows a lane, whole warps a block");

// QR panels (linalg.h geqr2_panel): their sums run over QR_LANES lanes in a fixed order (one GPU
// thread a lane; the CPU emulates them), so both devices give the same bits.
constexpr int QR_LANES = 256;
static_assert(QR_LANES >= 32 && (QR_LANES & (QR_LANES - 1)) == 0,
              "a power of two of whole warps: the lanes' partial sums are added as a tree");

// gemm_threads: the block size of a shared-memory GEMM configuration (a thread per TM x TN tile).
DD_HD constexpr int gemm_threads(int BM, int BN, int TM, int TN) { return (BM / TM) * (BN / TN); }

// GEMM_TILE_PAD: the doubles that pad each k row of gemm_gpu.h's shared-memory tiles.
constexpr int GEMM_TILE_PAD = 2;
// gemm_tiles_bytes: the size of gemm_gpu.h's GemmTiles<BM, BN, BK, STAGES> (STAGES copies of a
// BK x (BM + PAD) tile of op(A) and a BK x (BN + PAD) tile of op(B), hi and lo, 8 bytes a value).
DD_HD constexpr unsigned gemm_tiles_bytes(int BM, int BN, int BK, int STAGES) {
    return unsigned(STAGES) * BK * (BM + GEMM_TILE_PAD + BN + GEMM_TILE_PAD) * 2 * 8;
}

}  // namespace ddblas

// The shared-memory GEMM kernels of the GPU (gemm_gpu.h's gemm_shared), one row per kernel
// ddblas_gemm_<NAME>_<A><B>_<variant> for both B layouts B = n, k and every variant:
//   X(NAME, A, BM, BN, BK, TM, TN, K_UNROLL, MIN_BLOCKS, PREFETCH, PIECES)
// A: op(A)'s layout, "k" (a_cs == 1 or a general stride) or "m" (a_rs == 1); a block has
// (BM / TM) (BN / TN) threads; MIN_BLOCKS: the resident blocks per SM promised to ptxas
// (__launch_bounds__; 0: none); PREFETCH: a second shared-memory stage; PIECES: the K range is
// cut into pieces, one per grid z (tall-and-skinny). Why these numbers: gemm_gpu.h.
// The classic ladder: tiled, then Nakasato's register blocking b = 2 and b = 4 (TM = TN = b).
#define DDBLAS_GEMM_CLASSIC_SHAPES(X)                         \
    X(tiled, k, 16, 16, 16, 1, 1, 16, 0, false, false)        \
    X(tiled, m, 16, 16, 16, 1, 1, 16, 0, false, false)        \
    X(b2, k, 32, 32, 16, 2, 2, 4, 0, true, false)             \
    X(b2, m, 32, 32, 16, 2, 2, 4, 0, true, false)             \
    X(b4, k, 64, 32, 16, 4, 4, 2, 3, true, false)             \
    X(b4, m, 64, 32, 16, 4, 4, 2, 3, true, false)
// TSM2 (tall and skinny): tsm<t2>, t1 = BM threads a block, t2 = TN = BN columns, t3 = BK.
#define DDBLAS_GEMM_TSM_SHAPES(X)                             \
    X(tsm1, k, 128, 1, 16, 1, 1, 8, 3, true, true)            \
    X(tsm1, m, 128, 1, 8, 1, 1, 8, 0, true, true)             \
    X(tsm2, k, 128, 2, 16, 1, 2, 8, 3, true, true)            \
    X(tsm2, m, 128, 2, 8, 1, 2, 8, 0, true, true)             \
    X(tsm4, k, 128, 4, 16, 1, 4, 8, 3, true, true)            \
    X(tsm4, m, 128, 4, 8, 1, 4, 8, 0, true, true)             \
    X(tsm8, k, 128, 8, 16, 1, 8, 4, 3, true, true)            \
    X(tsm8, m, 128, 8, 8, 1, 8, 4, 2, true, true)             \
    X(tsm16, k, 128, 16, 16, 1, 16, 2, 3, true, true)         \
    X(tsm16, m, 128, 16, 8, 1, 16, 2, 1, true, true)
