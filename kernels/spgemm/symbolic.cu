// SpGEMM symbolic phase: nnz of each row of C by inserting its products' columns into a hash
// table (shared memory, one table per warp, for bins 1..4; global memory, one block per row,
// for huge rows). Only the count is kept; numeric recomputes the shared tables and reuses
// the global ones.
#include "spgemm/spgemm.cuh"

// Inserts the columns of row [s, e) of A times B; returns how many this lane added. Warps
// give lanes whole B rows when A's row is long (short B rows would leave lanes idle),
// else the lanes stride over each B row. Warp `w` of `nw` takes A entries s+w, s+w+nw, ...
template <class I>
__device__ u32 symbolic_insert(i64 s, i64 e, int w, int nw, const I* __restrict__ a_col, i64 a_base,
                               const I* __restrict__ b_ptr, const I* __restrict__ b_col, i64 b_base, u32* keys,
                               u32 mask) {
    const int lane = threadIdx.x & 31;
    u32 added = 0;
    bool ins;
    if ((e - s) / nw >= 16) {
        for (i64 p = s + (i64)w * 32 + lane; p < e; p += (i64)nw * 32) {
            const i64 k = (i64)a_col[p] - a_base;
            for (i64 q = (i64)b_ptr[k] - b_base; q < (i64)b_ptr[k + 1] - b_base; ++q) {
                hash_insert(keys, mask, (u32)((i64)b_col[q] - b_base), ins);
                added += ins;
            }
        }
    } else {
        for (i64 p = s + w; p < e; p += nw) {
            const i64 k = (i64)a_col[p] - a_base;
            for (i64 q = (i64)b_ptr[k] - b_base + lane; q < (i64)b_ptr[k + 1] - b_base; q += 32) {
                hash_insert(keys, mask, (u32)((i64)b_col[q] - b_base), ins);
                added += ins;
            }
        }
    }
    return added;
}

template <class I>
__device__ void spgemm_symbolic_shared(const u32* rows, u32 count, u32 table, const I* a_ptr, const I* a_col,
                                       i64 a_base, const I* b_ptr, const I* b_col, i64 b_base, u64* row_nnz) {
    extern __shared__ u32 shared_keys[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wpb = blockDim.x >> 5;
    u32* keys = shared_keys + (u64)warp * table;
    for (u64 r = (u64)blockIdx.x * wpb + warp; r < count; r += (u64)gridDim.x * wpb) {
        const u32 i = rows[r];
        for (u32 t = lane; t < table; t += 32) keys[t] = SPGEMM_EMPTY;
        __syncwarp();
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        u32 cnt = symbolic_insert(s, e, 0, 1, a_col, a_base, b_ptr, b_col, b_base, keys, table - 1);
        cnt = warp_sum(cnt);
        if (lane == 0) row_nnz[i] = cnt;
        __syncwarp();
    }
}

template <class I>
__device__ void spgemm_symbolic_global(const u32* rows, u32 count, const u64* huge_off, const u64* rowprod, i64 n,
                                       const I* a_ptr, const I* a_col, i64 a_base, const I* b_ptr, const I* b_col,
                                       i64 b_base, u32* pool_keys, u64* row_nnz) {
    const int warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (u64 r = blockIdx.x; r < count; r += gridDim.x) {
        const u32 i = rows[r];
        const u64 size = huge_table_size(rowprod[i], (u64)n);
        u32* keys = pool_keys + huge_off[r];
        for (u64 t = threadIdx.x; t < size; t += blockDim.x) keys[t] = SPGEMM_EMPTY;
        __syncthreads();
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        u32 cnt = symbolic_insert(s, e, warp, nw, a_col, a_base, b_ptr, b_col, b_base, keys, (u32)(size - 1));
        cnt = block_sum(cnt);
        if (threadIdx.x == 0) row_nnz[i] = cnt;
    }
}

#define SPGEMM_SYMBOLIC_ENTRY(I, tidx)                                                                   \
    extern "C" __global__ void spblk_spgemm_symbolic_shared_##tidx(                                      \
        const u32* rows, u32 count, u32 table, const I* a_ptr, const I* a_col, i64 a_base,               \
        const I* b_ptr, const I* b_col, i64 b_base, u64* row_nnz) {                                      \
        spgemm_symbolic_shared<I>(rows, count, table, a_ptr, a_col, a_base, b_ptr, b_col, b_base,        \
                                  row_nnz);                                                              \
    }                                                                                                    \
    extern "C" __global__ void spblk_spgemm_symbolic_global_##tidx(                                      \
        const u32* rows, u32 count, const u64* huge_off, const u64* rowprod, i64 n, const I* a_ptr,      \
        const I* a_col, i64 a_base, const I* b_ptr, const I* b_col, i64 b_base, u32* pool_keys,          \
        u64* row_nnz) {                                                                                  \
        spgemm_symbolic_global<I>(rows, count, huge_off, rowprod, n, a_ptr, a_col, a_base, b_ptr, b_col, \
                                  b_base, pool_keys, row_nnz);                                           \
    }
SPGEMM_SYMBOLIC_ENTRY(int, i32)
SPGEMM_SYMBOLIC_ENTRY(long long, i64)
