// bench/mplapack_rgemm.cu: MPLAPACK's CUDA Rgemm (double-double, its "fermi" kernels, the ones
// its Rgemm_cuda calls) as a shared library with a C entry point on device pointers, so that
// bench/mplapack_rgemm.py can time it beside ddblas's rgemm on the same data in one process.
// MPLAPACK's sources are not part of ddblas: they are compiled from a checkout of
// https://github.com/nakatamaho/mplapack (BSD-2-Clause), mpblas/optimized/dd/cuda, whose path
// the build passes with -I (bench/mplapack_rgemm.py builds this file). MPLAPACK's own build
// compiles them with nvcc -O3 and default contraction; so does the benchmark.
#include <cctype>
#include <cstdint>
#include <cstdio>

#include <cuda_runtime.h>

typedef int64_t mplapackint;  // MPLAPACK 2's integer type (its mplapack_config.h, generated)
#define cudaThreadSynchronize cudaDeviceSynchronize  // removed from CUDA 13's runtime API

// MPLAPACK's kernels include <mplapack_config.h>; the build points -I at a directory holding an
// empty one, as the typedef above is all they take from it.
#include "Rgemm_fermi.cu"

// The two helpers MPLAPACK's Rgemm_fermi.cu declares and the rest of MPLAPACK defines: LAPACK's
// lsame (case-insensitive equality of the first letters) and xerbla (argument error report).
mplapackint Mlsame_dd(const char *a, const char *b) { return std::toupper(*a) == std::toupper(*b); }
void Mxerbla_dd(const char *srname, int info) {
    std::fprintf(stderr, "%s: argument %d has an illegal value\n", srname, info);
}

// mplapack_rgemm: C = alpha op(A) op(B) + beta C, column-major, entries interleaved (hi, lo)
// as MPLAPACK's dd_real; a, b, c are device pointers. Returns the CUDA error after the call
// (Rgemm_fermi_cuda synchronizes the device).
extern "C" int mplapack_rgemm(char transa, char transb, int64_t m, int64_t n, int64_t k,
                              double alpha_hi, double alpha_lo, void *a, int64_t lda, void *b,
                              int64_t ldb, double beta_hi, double beta_lo, void *c, int64_t ldc) {
    dd_real alpha, beta;
    dd_set(alpha, alpha_hi, alpha_lo);
    dd_set(beta, beta_hi, beta_lo);
    const char ta[2] = {transa, 0}, tb[2] = {transb, 0};
    Rgemm_fermi_cuda(ta, tb, m, n, k, alpha, static_cast<dd_real *>(a), lda,
                     static_cast<dd_real *>(b), ldb, beta, static_cast<dd_real *>(c), ldc);
    return static_cast<int>(cudaGetLastError());
}
