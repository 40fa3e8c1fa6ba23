// SpGEMM work estimation and binning.
#include "spgemm/spgemm.cuh"

// Products per row (one warp per row of A) and per-bin statistics. stats must be zeroed.
template <class I>
__device__ void spgemm_rowprod(i64 m, i64 n, const I* __restrict__ a_ptr, const I* __restrict__ a_col, i64 a_base,
                               const I* __restrict__ b_ptr, i64 b_base, u64* rowprod, u64* stats) {
    const int lane = threadIdx.x & 31;
    const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < m; i += warps) {
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        u64 P = 0;
        for (i64 p = s + lane; p < e; p += 32) {
            const i64 k = (i64)a_col[p] - a_base;
            P += (u64)((i64)b_ptr[k + 1] - (i64)b_ptr[k]);
        }
        P = warp_sum(P);
        if (lane == 0) {
            rowprod[i] = P;
            const int b = spgemm_bin(P);
            atomicAdd(&stats[b], 1ull);
            if (b == SPGEMM_HUGE_BIN) atomicAdd(&stats[SPGEMM_STAT_POOL], huge_table_size(P, (u64)n));
        }
    }
}

// Lists the rows of each bin (bin b starts at off_b) and gives each huge row its table in
// the global pool. Rows with no products get row_nnz = 0 here. The order within a bin
// varies between runs; every row is computed independently, so results do not.
__device__ void spgemm_bin_rows(i64 m, i64 n, const u64* rowprod, u32 o1, u32 o2, u32 o3, u32 o4, u32 o5,
                                u32* cursor, u32* bin_rows, u64* huge_off, u64* pool_cursor, u64* row_nnz) {
    const u32 off[SPGEMM_BINS] = {0, o1, o2, o3, o4, o5};
    GRID_STRIDE(i, m) {
        const u64 P = rowprod[i];
        const int b = spgemm_bin(P);
        if (b == 0) {
            row_nnz[i] = 0;
            continue;
        }
        const u32 pos = atomicAdd(&cursor[b], 1u);
        bin_rows[off[b] + pos] = (u32)i;
        if (b == SPGEMM_HUGE_BIN) huge_off[pos] = atomicAdd(pool_cursor, huge_table_size(P, (u64)n));
    }
}

#define SPGEMM_ANALYSIS_ENTRY(I, tidx)                                                                   \
    extern "C" __global__ void spblk_spgemm_rowprod_##tidx(i64 m, i64 n, const I* a_ptr, const I* a_col, \
                                                           i64 a_base, const I* b_ptr, i64 b_base,       \
                                                           u64* rowprod, u64* stats) {                   \
        spgemm_rowprod<I>(m, n, a_ptr, a_col, a_base, b_ptr, b_base, rowprod, stats);                    \
    }
SPGEMM_ANALYSIS_ENTRY(int, i32)
SPGEMM_ANALYSIS_ENTRY(long long, i64)

extern "C" __global__ void spblk_spgemm_bin_rows(i64 m, i64 n, const u64* rowprod, u32 o1, u32 o2, u32 o3,
                                                 u32 o4, u32 o5, u32* cursor, u32* bin_rows, u64* huge_off,
                                                 u64* pool_cursor, u64* row_nnz) {
    spgemm_bin_rows(m, n, rowprod, o1, o2, o3, o4, o5, cursor, bin_rows, huge_off, pool_cursor, row_nnz);
}
