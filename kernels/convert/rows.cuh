// The row (old major index) of each stored entry of a compressed pattern, a tile at a time,
// for the conversions' rows kernel (csr.cu) and the mirror transpose (mirror.cu). A block takes
// ROWS_TILE consecutive entries: the row holding the first one (a 32-way search by one warp),
// then each row that starts inside the tile marks its first entry in shared memory (the
// largest row wins where empty rows start at the same entry), and a running maximum over the
// tile gives every entry its row. Every entry costs the same whatever the row lengths (a warp
// per row left 3 of 4 lanes idle on stencils).
#pragma once
#include "common/types.cuh"

#define ROWS_ITEMS 8
#define ROWS_TILE (256 * ROWS_ITEMS)

// Last row r in [0, rows) with ptr[r] - base <= e, by the whole warp: each round the 32 lanes
// probe evenly spaced rows and the range shrinks to the gap after the last probe at or before e.
template <class I> __device__ i64 row_holding(const I* ptr, i64 base, u64 e, i64 rows) {
    const int lane = threadIdx.x & 31;
    i64 lo = 0, hi = rows - 1;
    while (lo < hi) {
        const i64 len = hi - lo + 1;
        const i64 probe = lo + (i64)(((u64)len * lane) >> 5);
        const unsigned ok = __ballot_sync(SPBLK_FULL_MASK, (u64)((i64)ptr[probe] - base) <= e);
        const int j = 31 - __clz(ok);  // lane 0 probes lo, which always qualifies
        const i64 next = __shfl_sync(SPBLK_FULL_MASK, probe, j + 1 < 32 ? j + 1 : 31);
        lo = __shfl_sync(SPBLK_FULL_MASK, probe, j);
        if (j < 31) hi = next - 1;
    }
    return lo;
}

struct TileRowsShared {
    u32 row_at[ROWS_TILE];
    u32 warp_max[8];
    i64 first_row;
};

// Rows of entries [first, end) (end - first <= ROWS_TILE): row[k] is the row of entry
// first + threadIdx.x * ROWS_ITEMS + k (meaningless past `end`). Called by all 256 threads;
// the caller synchronises before the next call reuses `sh`. With `search` false, the caller
// has put the row holding entry `first` in `sh.first_row` (the last row of the tile before).
template <class I>
__device__ void tile_rows(const I* ptr, i64 rows, i64 base, u64 first, u64 end, TileRowsShared& sh,
                          u32 (&row)[ROWS_ITEMS], bool search = true) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (search && warp == 0) {
        const i64 r0 = row_holding(ptr, base, first, rows);
        if (lane == 0) sh.first_row = r0;
    }
    for (u32 i = threadIdx.x; i < ROWS_TILE; i += 256) sh.row_at[i] = 0;
    __syncthreads();
    const i64 r0 = sh.first_row;
    if (threadIdx.x == 0) sh.row_at[0] = (u32)r0;
    // Rows after r0 start at or after `first` (r0 holds it); stop at the first beyond the tile.
    for (i64 r = r0 + 1 + threadIdx.x; r < rows; r += 256) {
        const u64 s = (u64)((i64)ptr[r] - base);
        if (s >= end) break;
        atomicMax(&sh.row_at[s - first], (u32)r);
    }
    __syncthreads();
    // Running maximum: each thread over its entries, then across threads.
    u32 m = 0;
#pragma unroll
    for (int k = 0; k < ROWS_ITEMS; ++k) {
        m = max(m, sh.row_at[threadIdx.x * ROWS_ITEMS + k]);
        row[k] = m;
    }
    u32 inc = m;
    for (int off = 1; off < 32; off <<= 1) {
        const u32 o = __shfl_up_sync(SPBLK_FULL_MASK, inc, off);
        if (lane >= off) inc = max(inc, o);
    }
    if (lane == 31) sh.warp_max[warp] = inc;
    __syncthreads();
    u32 carry = __shfl_up_sync(SPBLK_FULL_MASK, inc, 1);
    if (lane == 0) carry = 0;
    for (int w = 0; w < warp; ++w) carry = max(carry, sh.warp_max[w]);
#pragma unroll
    for (int k = 0; k < ROWS_ITEMS; ++k) row[k] = max(row[k], carry);
}
