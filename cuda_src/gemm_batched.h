// gemm_batched.h: batched small GEMMs, C[p] = alpha op(A[p]) op(B[p]) + beta C[p] for
// p = 0 .. batch-1, in one launch (GPU) or one call (CPU). Product p's operands start at
// a + p * a_bs, b + p * b_bs and c + p * c_bs (strides in elements); a batch stride of 0 uses one
// A (or B) for every product (broadcast). Within a product, gemm.h's layout and order: every C
// element is gemm_dot<V> (acc = (0, 0), madd<V> over k increasing), then gemm_epilogue<V>, stored
// through canonical(), so the result is bitwise that of a loop of single rgemm calls, on either
// device.
//
// GPU: a block computes a group of G consecutive products (a grid-stride loop over groups, so
// any batch fits the grid), its threads (blockDim.x <= GEMM_BATCHED_MAX_THREADS, geometry.h)
// walking the group's G x M x N (product, i, j) elements, j fastest. ddblas/_batched.py picks G and the block
// size from M and N so that G M N fills the block's lanes (one pass over the elements when
// G M N <= the largest block, else balanced passes). When the group's operands fit the block's
// dynamic shared memory (G (M K + K N) DD values, hi and lo apart; a broadcast operand once; the
// launch gives the bytes, 0 for none), all of them are first copied there in one phase
// (cp.async on sm_80+) k-major (op(A) as [q][k][i], op(B) as [q][k][j]): one pair of
// __syncthreads per group; a broadcast A or B (batch stride 0) is staged once and stays resident
// for all of the block's groups. Otherwise every element reads A and B from global memory.
// M, N, K >= 1 (Python handles empty products and K = 0).
// CPU: OpenMP over products, each product computed by one thread with the blocks of the CPU GEMM
// (gemm_cpu.h).
#pragma once
#include "kernels.h"  // the variants, DDBLAS_EACH_VARIANT
#if defined(__CUDACC__)
#include "gemm_gpu.h"  // copy_to_shared, commit_copies, wait_copies
#else
#include "gemm_cpu.h"
#endif

// The argument list of every batched GEMM kernel: the batch, the operands' batch strides, then
// the single GEMM's arguments (the first product's pointers).
#define DDBLAS_GEMM_BATCHED_PARAMS                                                 \
    ddblas::index_t batch, ddblas::index_t a_bs, ddblas::index_t b_bs, ddblas::index_t c_bs, \
        DDBLAS_GEMM_PARAMS

namespace ddblas {

#if defined(__CUDACC__)
// dynamic_shared_bytes: the dynamic shared memory the launch gave this block.
__device__ __forceinline__ unsigned dynamic_shared_bytes() {
    unsigned bytes;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
    return bytes;
}

// IndexWalk: the coordinates (q, r, c) of t = start, start + step, start + 2 step, ... in a
// [*][rows][cols] index space (c fastest), advanced by additions: no division in the loops.
// Invariants r < rows, c < cols (steps dr < rows, dc < cols: one carry each suffices). 32-bit
// coordinates (fewer registers): rows, cols and the q reached < 2^31 (ddblas/_batched.py);
// the divisions of the start in I (unsigned for a stage walk, redone every group: 32-bit
// division is the cheaper).
struct IndexWalk {
    int q, r, c, dq, dr, dc, rows, cols;
    template <class I>
    __device__ IndexWalk(I start, I step, I rows_, I cols_)
        : q(int(start / (rows_ * cols_))), r(int(start / cols_ % rows_)), c(int(start % cols_)),
          dq(int(step / (rows_ * cols_))), dr(int(step / cols_ % rows_)), dc(int(step % cols_)),
          rows(int(rows_)), cols(int(cols_)) {}
    __device__ void next() {
        c += dc;
        r += dr;
        q += dq;
        if (c >= cols) {
            c -= cols;
            ++r;
        }
        if (r >= rows) {
            r -= rows;
            ++q;
        }
    }
};

// stage_operand: dst[q][k][x] = X_q[x, k] for the products q < count of a group, copied from
// global to shared memory (asynchronously; the caller commits and waits). Product q's X is
// src + q * bs, X[x, k] = src[x * x_stride + k * k_stride] (op(A): x = i; op(B)^T: x = j).
// Consecutive threads walk k when it is the unit stride, otherwise x (coalesced loads). The
// walk keeps q < count, k < K, x < X: dst indices stay below count K X (< 2^32: staged).
__device__ __forceinline__ void stage_operand(double *dst_hi, double *dst_lo,
                                              const double *src_hi, const double *src_lo,
                                              index_t bs, index_t count, index_t X, index_t K,
                                              index_t x_stride, index_t k_stride) {
    const bool k_fast = k_stride == 1;
    const unsigned rows = unsigned(k_fast ? X : K), cols = unsigned(k_fast ? K : X);
    for (IndexWalk w(threadIdx.x, blockDim.x, rows, cols); w.q < count; w.next()) {
        const index_t x = k_fast ? w.r : w.c, k = k_fast ? w.c : w.r;
        const index_t to = (w.q * K + k) * X + x, from = w.q * bs + x * x_stride + k * k_stride;
        copy_to_shared(dst_hi + to, src_hi + from, true);
        copy_to_shared(dst_lo + to, src_lo + from, true);
    }
}

// gemm_batched_gpu: every product of the batch, a block per group of `group` products.
template <class V>
__device__ __forceinline__ void gemm_batched_gpu(
    index_t group, index_t batch, index_t a_bs, index_t b_bs, index_t c_bs, index_t M, index_t N,
    index_t K, const double *__restrict__ a_hi, const double *__restrict__ a_lo, index_t a_rs,
    index_t a_cs, const double *__restrict__ b_hi, const double *__restrict__ b_lo, index_t b_rs,
    index_t b_cs, dd alpha, dd beta, double *c_hi, double *c_lo, index_t c_rs, index_t c_cs,
    index_t flags) {
    extern __shared__ double staged_operands[];
    // A stage of `group` products' operands, or of one for a broadcast operand; product q's
    // staged A (B) starts q * a_q (q * b_q) after the first's.
    const index_t a_q = a_bs != 0 ? M * K : 0, b_q = b_bs != 0 ? K * N : 0;
    const index_t a_stage = M * K + (group - 1) * a_q, b_stage = K * N + (group - 1) * b_q;
    const bool staged = (a_stage + b_stage) * 2 * (index_t)sizeof(double) <= dynamic_shared_bytes();
    double *as_hi = staged_operands, *as_lo = as_hi + a_stage;
    double *bs_hi = as_lo + a_stage, *bs_lo = bs_hi + b_stage;
    // this thread's first element (q, i, j) of a group
    const IndexWalk first((index_t)threadIdx.x, (index_t)blockDim.x, M, N);
    const index_t first_p0 = (index_t)blockIdx.x * group;
    for (index_t p0 = first_p0; p0 < batch; p0 += (index_t)gridDim.x * group) {
        const index_t count = batch - p0 < group ? batch - p0 : group;
        const bool load_a = staged && (a_bs != 0 || p0 == first_p0);
        const bool load_b = staged && (b_bs != 0 || p0 == first_p0);
        if (load_a || load_b) {
            __syncthreads();  // the previous group's reads of the stage are done
            if (load_a)
                stage_operand(as_hi, as_lo, a_hi + p0 * a_bs, a_lo + p0 * a_bs, a_bs,
                              a_bs != 0 ? count : 1, M, K, a_rs, a_cs);
            if (load_b)
                stage_operand(bs_hi, bs_lo, b_hi + p0 * b_bs, b_lo + p0 * b_bs, b_bs,
                              b_bs != 0 ? count : 1, N, K, b_cs, b_rs);
            commit_copies();
            wait_copies<0>();
            __syncthreads();
        }
        for (IndexWalk w = first; w.q < count; w.next()) {
            const index_t p = p0 + w.q, i = w.r, j = w.c;
            const dd acc =
                staged ? gemm_dot<V>(K, as_hi + w.q * a_q + i, as_lo + w.q * a_q + i, M,
                                     bs_hi + w.q * b_q + j, bs_lo + w.q * b_q + j, N)
                       : gemm_dot<V>(K, a_hi + p * a_bs + i * a_rs, a_lo + p * a_bs + i * a_rs,
                                     a_cs, b_hi + p * b_bs + j * b_cs, b_lo + p * b_bs + j * b_cs,
                                     b_rs);
            const index_t off = p * c_bs + i * c_rs + j * c_cs;
            const dd r = gemm_epilogue<V>(acc, alpha, beta, c_hi, c_lo, off, flags);
            c_hi[off] = canonical(r.hi);
            c_lo[off] = canonical(r.lo);
        }
    }
}
#else
// gemm_batched_cpu: every product of the batch, OpenMP over products, each thread computing
// whole products with one set of panels (no nested parallel region: its start per product cost
// more than a small product); a single product parallelises over its blocks (gemm_cpu).
template <class V, int TM, int TN, int MC, int NC, int KC>
void gemm_batched_cpu(index_t batch, index_t a_bs, index_t b_bs, index_t c_bs, index_t M,
                      index_t N, index_t K, const double *a_hi, const double *a_lo, index_t a_rs,
                      index_t a_cs, const double *b_hi, const double *b_lo, index_t b_rs,
                      index_t b_cs, dd alpha, dd beta, double *c_hi, double *c_lo, index_t c_rs,
                      index_t c_cs, index_t flags) {
    if (batch == 1) {
        gemm_cpu<V, TM, TN, MC, NC, KC>(M, N, K, a_hi, a_lo, a_rs, a_cs, b_hi, b_lo, b_rs, b_cs,
                                        alpha, beta, c_hi, c_lo, c_rs, c_cs, flags);
        return;
    }
    const index_t blocks_n = (N + NC - 1) / NC, blocks = ((M + MC - 1) / MC) * blocks_n;
#pragma omp parallel if (batch * M * N * K >= PARALLEL_MIN_MADDS)
    {
        CpuPanels<TM, TN, MC, NC, KC> panels(M, N, K);
#pragma omp for schedule(static)
        for (index_t p = 0; p < batch; ++p)
            for (index_t blk = 0; blk < blocks; ++blk)
                gemm_cpu_block<V, TM, TN, MC, NC, KC>(
                    blk, blocks_n, M, N, K, a_hi + p * a_bs, a_lo + p * a_bs, a_rs, a_cs,
                    b_hi + p * b_bs, b_lo + p * b_bs, b_rs, b_cs, alpha, beta, c_hi + p * c_bs,
                    c_lo + p * c_bs, c_rs, c_cs, flags, panels);
    }
}
#endif

}  // namespace ddblas

#if defined(__CUDACC__)
// ---- the extern "C" GPU kernels: ddblas_gemm_batched_<variant>(group, <the batched GEMM's
// arguments>), blocks of up to GEMM_BATCHED_MAX_THREADS (geometry.h) threads (ddblas/_batched.py
// launches the group and block size it picks). No __launch_bounds__: bounded, ptxas took the
// cap (76-80 registers at (256, 3)) or spilled (nofma at (256, 4), as at (64) before);
// unbounded it takes 48-64 on sm_90 and 67-123 on sm_80, no spills. 256 threads launch with
// any count ptxas may take (255 x 256 <= 65536 registers a block). ----
#define DDBLAS_GEMM_BATCHED_KERNEL(OP, V)                                                  \
    DDBLAS_KERNEL ddblas_##OP##_##V(ddblas::index_t group, DDBLAS_GEMM_BATCHED_PARAMS) {   \
        ddblas::gemm_batched_gpu<ddblas::variants::V>(group, batch, a_bs, b_bs, c_bs,      \
                                                      DDBLAS_GEMM_ARGS);                   \
    }
#else
// ---- the extern "C" CPU kernels: ddblas_gemm_batched_<variant> (the GPU's names) ----
#define DDBLAS_GEMM_BATCHED_KERNEL(OP, V)                                                  \
    DDBLAS_KERNEL ddblas_##OP##_##V(DDBLAS_GEMM_BATCHED_PARAMS) {                          \
        ddblas::gemm_batched_cpu<ddblas::variants::V, ddblas::CPU_TM, ddblas::CPU_TN,      \
                                 ddblas::CPU_MC, ddblas::CPU_NC, ddblas::CPU_KC>(          \
            batch, a_bs, b_bs, c_bs, DDBLAS_GEMM_ARGS);                                    \
    }
#endif
DDBLAS_EACH_VARIANT(DDBLAS_GEMM_BATCHED_KERNEL, gemm_batched)
