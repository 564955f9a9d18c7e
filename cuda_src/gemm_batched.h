// gemm_batched.h: batched small GEMMs, C[p] = alpha op(A[p]) op(B[p]) + beta C[p] for
// p = 0 .. batch-1, in one launch (GPU) or one call (CPU). Product p's operands start at
// a + p * a_bs, b + p * b_bs and c + p * c_bs (strides in elements); a batch stride of 0 uses one
// A (or B) for every product (broadcast). Within a product, gemm.h's layout and order: every C
// element is gemm_dot<V> (acc = (0, 0), madd<V> over k increasing), then gemm_epilogue<V>, stored
// through canonical(), so the result is bitwise that of a loop of single rgemm calls, on either
// device.
//
// GPU: one thread block of THREADS threads per product (a grid-stride loop over products, so any
// batch fits the grid), threads over the M x N elements of C. When both operands of a product fit
// the block's dynamic shared memory (M K + K N DD values, hi and lo apart; the launch gives the
// bytes, 0 for none), they are first staged there k-major (op(A) as [k][i], op(B) as [k][j]): the
// threads of a warp then read consecutive i (distinct banks) or the same / consecutive j; a
// broadcast A or B stays resident for all of the block's products. Otherwise every element reads
// A and B from global memory.
// CPU: OpenMP over products, each product computed by one thread with the blocks of the CPU GEMM
// (gemm_cpu.h).
#pragma once
#include "kernels.h"  // the variants, DDBLAS_EACH_VARIANT and (host) gemm_cpu.h

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

// gemm_batched_gpu: every product of the batch, one block (THREADS threads) per product.
template <int THREADS, class V>
__device__ __forceinline__ void gemm_batched_gpu(
    index_t batch, index_t a_bs, index_t b_bs, index_t c_bs, index_t M, index_t N, index_t K,
    const double *__restrict__ a_hi, const double *__restrict__ a_lo, index_t a_rs, index_t a_cs,
    const double *__restrict__ b_hi, const double *__restrict__ b_lo, index_t b_rs, index_t b_cs,
    dd alpha, dd beta, double *c_hi, double *c_lo, index_t c_rs, index_t c_cs, index_t flags) {
    static_assert(THREADS >= 32 && THREADS % 32 == 0, "THREADS must be a whole number of warps");
    extern __shared__ double staged_operands[];
    const index_t a_size = M * K, b_size = K * N;
    const bool staged = (a_size + b_size) * 2 * (index_t)sizeof(double) <= dynamic_shared_bytes();
    double *as_hi = staged_operands, *as_lo = as_hi + a_size;
    double *bs_hi = as_lo + a_size, *bs_lo = bs_hi + b_size;
    for (index_t p = blockIdx.x; p < batch; p += gridDim.x) {
        const double *pa_hi = a_hi + p * a_bs, *pa_lo = a_lo + p * a_bs;
        const double *pb_hi = b_hi + p * b_bs, *pb_lo = b_lo + p * b_bs;
        // A broadcast operand (batch stride 0) is staged once, by the block's first product.
        const bool load_a = staged && (a_bs != 0 || p == blockIdx.x);
        const bool load_b = staged && (b_bs != 0 || p == blockIdx.x);
        if (load_a || load_b) {
            __syncthreads();  // the previous product's reads of the stage are done
            // as[k][i] = op(A)[i, k], bs[k][j] = op(B)[k, j]; consecutive threads walk the
            // operand's unit-stride index in global memory (coalesced loads).
            const bool a_k_fast = a_cs == 1, b_j_fast = b_cs == 1 || b_rs != 1;
            for (index_t t = threadIdx.x; load_a && t < a_size; t += THREADS) {
                const index_t i = a_k_fast ? t / K : t % M, k = a_k_fast ? t % K : t / M;
                as_hi[k * M + i] = pa_hi[i * a_rs + k * a_cs];
                as_lo[k * M + i] = pa_lo[i * a_rs + k * a_cs];
            }
            for (index_t t = threadIdx.x; load_b && t < b_size; t += THREADS) {
                const index_t k = b_j_fast ? t / N : t % K, j = b_j_fast ? t % N : t / K;
                bs_hi[k * N + j] = pb_hi[k * b_rs + j * b_cs];
                bs_lo[k * N + j] = pb_lo[k * b_rs + j * b_cs];
            }
            __syncthreads();
        }
        for (index_t e = threadIdx.x; e < M * N; e += THREADS) {
            const index_t i = e / N, j = e % N;
            const dd acc =
                staged ? gemm_dot<V>(K, as_hi + i, as_lo + i, M, bs_hi + j, bs_lo + j, N)
                       : gemm_dot<V>(K, pa_hi + i * a_rs, pa_lo + i * a_rs, a_cs,
                                     pb_hi + j * b_cs, pb_lo + j * b_cs, b_rs);
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
#pragma omp parallel if (batch * M * N * K >= 32768)
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
// ---- the extern "C" GPU kernels: ddblas_gemm_batched_<variant>, 64 threads a block (a 19 x 9 C
// is 3 passes of 2 warps; ddblas/_batched.py launches the same). No __launch_bounds__: with
// (64) ptxas capped the nofma kernels at 56 registers and spilled; unbounded they take 40-72
// (sm_80/sm_90, no spills), 14+ blocks per SM. ----
#define DDBLAS_GEMM_BATCHED_THREADS 64
#define DDBLAS_GEMM_BATCHED_KERNEL(OP, V)                                                  \
    DDBLAS_KERNEL ddblas_##OP##_##V(DDBLAS_GEMM_BATCHED_PARAMS) {                          \
        ddblas::gemm_batched_gpu<DDBLAS_GEMM_BATCHED_THREADS, ddblas::variants::V>(        \
            batch, a_bs, b_bs, c_bs, DDBLAS_GEMM_ARGS);                                    \
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
