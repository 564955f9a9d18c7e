// The "host" unit of the CPU (no kernels, compiled in about a second): the OpenMP thread count,
// the CPU GEMM's blocking and every launch geometry of geometry.h, for ddblas/_cpu.py.
#include <string>

#include "cpu_entry.h"
#include "crt.h"
#include "gemm_cpu.h"

// The OpenMP thread count of the calling thread's later kernels: set (n >= 1) and/or read. One
// OpenMP runtime serves every family's library, so the count holds for all of them.
extern "C" int ddblas_cpu_threads(int n) { return ddblas::cpu_threads(n); }

// The blocking the CPU libraries are built with (same flags): TM, TN, MC, NC, KC into out[0..4].
extern "C" void ddblas_gemm_cpu_blocking(ddblas::index_t *out) {
    const ddblas::index_t sizes[5] = {ddblas::CPU_TM, ddblas::CPU_TN, ddblas::CPU_MC,
                                      ddblas::CPU_NC, ddblas::CPU_KC};
    for (int i = 0; i < 5; ++i) out[i] = sizes[i];
}

// The dynamic shared memory bytes of one system of the given order and width (order, plus the
// fused solve's right-hand sides) in the batched LU's shared kernels (geometry.h
// batched_shared_entries).
extern "C" long long ddblas_batched_shared_bytes(long long order, long long width) {
    return ddblas::batched_shared_entries(order, width) * (long long)sizeof(ddblas::dd);
}

// ddblas_geometry: geometry.h as text, one "dotted.name value" line per number, copied into
// out[0 .. size - 1] (NUL-terminated when it fits); returns the text's length (call again with a
// larger buffer when it is >= size).
static std::string geometry_text() {
    std::string text;
    auto put = [&text](const std::string &name, long long value) {
        text += name + " " + std::to_string(value) + "\n";
    };
    put("flags.alpha_one", ddblas::GEMM_ALPHA_ONE);
    put("flags.beta_zero", ddblas::GEMM_BETA_ZERO);
    put("static_shared_bytes", ddblas::STATIC_SHARED_LIMIT);
    put("dynamic_shared_limit", ddblas::DYNAMIC_SHARED_LIMIT);
    put("parallel_min_items", ddblas::PARALLEL_MIN_ITEMS);
    put("parallel_min_madds", ddblas::PARALLEL_MIN_MADDS);
    put("warp_size", ddblas::WARP_SIZE);
    put("grid_yz_limit", ddblas::GRID_YZ_LIMIT);
    put("batched_max_threads", ddblas::GEMM_BATCHED_MAX_THREADS);
    put("batched_max_blocks", ddblas::GEMM_BATCHED_MAX_BLOCKS);
    put("batched_max_dim", ddblas::GEMM_BATCHED_MAX_DIM);
    put("pivot_chunk", ddblas::PIVOT_CHUNK);
    put("lu_panel_threads", ddblas::LU_PANEL_THREADS);
    put("lu_panel_width", ddblas::LU_PANEL_WIDTH);
    put("lu_panel_grid_min_rows", ddblas::LU_PANEL_GRID_MIN_ROWS);
    put("qr_lanes", ddblas::QR_LANES);
    put("potrf_block", ddblas::POTRF_BLOCK);
    put("potrf_max_order", ddblas::POTRF_MAX_ORDER);
    put("trsm_block", ddblas::TRSM_BLOCK);
    put("trsm_threads", ddblas::TRSM_THREADS);
    put("batched_team_max_order", ddblas::BATCHED_TEAM_MAX_ORDER);
    put("batched_warp_threads", ddblas::BATCHED_WARP_THREADS);
    put("batched_quarter_warp_max_order", ddblas::BATCHED_QUARTER_WARP_MAX_ORDER);
    put("batched_half_warp_max_order", ddblas::BATCHED_HALF_WARP_MAX_ORDER);
    put("batched_block_team", ddblas::BATCHED_BLOCK_TEAM);
    put("batched_small_block_team", ddblas::BATCHED_SMALL_BLOCK_TEAM);
    put("batched_small_block_max_order", ddblas::BATCHED_SMALL_BLOCK_MAX_ORDER);
    put("batched_quads_min_area", ddblas::BATCHED_QUADS_MIN_AREA);
    put("linalg_scale_exponent", ddblas::LINALG_SCALE_EXPONENT);
    put("linalg_row_spread", ddblas::LINALG_ROW_SPREAD);
    put("linalg_tiny_exponent", ddblas::LINALG_TINY_EXPONENT);
    put("batched_report.a_not_finite", ddblas::BATCHED_REPORT_A_NOT_FINITE);
    put("batched_report.a_large", ddblas::BATCHED_REPORT_A_LARGE);
    put("batched_report.b_not_finite", ddblas::BATCHED_REPORT_B_NOT_FINITE);
    put("batched_report.b_large", ddblas::BATCHED_REPORT_B_LARGE);
    put("batched_report.x_not_finite", ddblas::BATCHED_REPORT_X_NOT_FINITE);
    put("batched_report.a_spread", ddblas::BATCHED_REPORT_A_SPREAD);
    put("batched_report.a_tiny", ddblas::BATCHED_REPORT_A_TINY);
    put("batched_report.b_tiny", ddblas::BATCHED_REPORT_B_TINY);
    put("ozaki2.moduli", ddblas::OZAKI2_MAX_MODULI);
    for (int i = 0; i < ddblas::OZAKI2_MAX_MODULI; ++i)
        put("ozaki2.modulus." + std::to_string(i), ddblas::OZAKI2_MODULI[i]);
    put("ozaki2.max_bits", ddblas::OZAKI2_MAX_BITS);
    put("ozaki2.limbs", ddblas::OZAKI2_LIMBS);
    put("ozaki2.limb_bits", ddblas::OZAKI2_LIMB_BITS);
    put("ozaki2.residue_max", ddblas::OZAKI2_RESIDUE_MAX);
#define DDBLAS_PUT_SHAPE(NAME, A, BM, BN, BK, TM, TN, K_UNROLL, MIN_BLOCKS, PREFETCH, PIECES) \
    {                                                                                         \
        const std::string row = "gemm." #NAME "." #A ".";                                   \
        put(row + "BM", BM);                                                                  \
        put(row + "BN", BN);                                                                  \
        put(row + "BK", BK);                                                                  \
        put(row + "TM", TM);                                                                  \
        put(row + "TN", TN);                                                                  \
        put(row + "k_unroll", K_UNROLL);                                                      \
        put(row + "min_blocks", MIN_BLOCKS);                                                  \
        put(row + "prefetch", PREFETCH);                                                      \
        put(row + "pieces", PIECES);                                                          \
        put(row + "threads", ddblas::gemm_threads(BM, BN, TM, TN));                           \
        put(row + "tile_bytes", ddblas::gemm_tiles_bytes(BM, BN, BK, (PREFETCH) ? 2 : 1));    \
    }
    DDBLAS_GEMM_CLASSIC_SHAPES(DDBLAS_PUT_SHAPE)
    DDBLAS_GEMM_TSM_SHAPES(DDBLAS_PUT_SHAPE)
#undef DDBLAS_PUT_SHAPE
    return text;
}

extern "C" long long ddblas_geometry(char *out, long long size) {
    const std::string text = geometry_text();
    if (size > 0) {
        const std::size_t n = text.size() < std::size_t(size) ? text.size() : std::size_t(size - 1);
        text.copy(out, n);
        out[n] = '\0';
    }
    return (long long)text.size();
}
