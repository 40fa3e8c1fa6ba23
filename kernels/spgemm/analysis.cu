// SpGEMM work estimation and binning. Counters are gathered per block in shared memory and
// added to global memory once per block and bin: one global atomic per row on a handful of
// addresses serialises (about 1.5 ms for 2 M rows on an H100).
#include "spgemm/spgemm.cuh"

// A row's products P into rowprod[i] and the block's statistics `local` (shared memory).
__device__ __forceinline__ void spgemm_count_row(i64 i, u64 P, i64 n, u64 cap_words, bool global_numeric,
                                                 u64* rowprod, u64* local) {
    rowprod[i] = P;
    const int b = spgemm_bin(P);
    atomicAdd((unsigned long long*)&local[b], 1ull);
    atomicAdd((unsigned long long*)&local[SPGEMM_STAT_PRODUCTS], (unsigned long long)P);
    const u64 d = P < (u64)n ? P : (u64)n;  // at most this many entries
    if (b == SPGEMM_BIG_BIN && big_symbolic_method(P, (u64)n, cap_words) == 2) {
        atomicAdd((unsigned long long*)&local[SPGEMM_STAT_POOL], global_table_size(d));
        atomicMax((unsigned long long*)&local[SPGEMM_STAT_POOL_MAX], global_table_size(d));
    }
    // big_numeric_kind 2 needs a table over SPGEMM_BIG_NUMERIC_SLOTS, so more than half as
    // many entries.
    if (global_numeric && 2 * d > SPGEMM_BIG_NUMERIC_SLOTS) {
        atomicAdd((unsigned long long*)&local[SPGEMM_STAT_GLOBAL_SLOTS], global_table_size(d));
        atomicAdd((unsigned long long*)&local[SPGEMM_STAT_GLOBAL_ENTRIES], d);
        atomicMax((unsigned long long*)&local[SPGEMM_STAT_GLOBAL_MAX_ENTRIES], d);
    }
}

// Rows of A longer than this are counted by the whole block after its other rows (up to
// ROWPROD_LONG_SLOTS of them; more are counted in place): four lanes walking a hub row of a
// power-law matrix were the launch's tail (SMs active 8 % of it on power-law 2^18).
#define ROWPROD_LONG_ENTRIES 512
#define ROWPROD_LONG_SLOTS 64

// Adds to `local[SPGEMM_STAT_B_DESCENTS]` the descents inside B's rows among this block's
// share of its entries: descents anywhere, less those from a row's last entry to the next
// row's first. Every thread of the block calls it (block-wide counts).
template <class I>
__device__ void count_b_descents(i64 b_rows, const I* __restrict__ b_ptr, const I* __restrict__ b_col, i64 b_base,
                                 u64* local) {
    const i64 nnz = (i64)b_ptr[b_rows] - b_base;
    const i64 end = nnz > b_rows ? nnz : b_rows;
    for (i64 t0 = (i64)blockIdx.x * blockDim.x; t0 < end; t0 += (i64)gridDim.x * blockDim.x) {
        const i64 t = t0 + threadIdx.x;
        const bool descent = t + 1 < nnz && b_col[t] > b_col[t + 1];
        bool between = false;
        if (t >= 1 && t < b_rows) {
            // Row t-1's last entry (when it has one) against the next entry.
            const i64 first = (i64)b_ptr[t] - b_base;
            between = first > (i64)b_ptr[t - 1] - b_base && first < nnz && b_col[first - 1] > b_col[first];
        }
        const int d = __syncthreads_count(descent), b = __syncthreads_count(between);
        if (threadIdx.x == 0 && d != b)
            atomicAdd((unsigned long long*)&local[SPGEMM_STAT_B_DESCENTS], (unsigned long long)(long long)(d - b));
    }
}

// Products per row (G lanes per row of A) and per-bin statistics. stats must be zeroed.
// `cap_words`: the shared memory (u32 words) the big rows' symbolic kernel will have;
// `dense_max`: the numeric phase's narrowest dense window (columns) over the compute types
// (f64's), so that the bounds hold whichever type the later calls give.
template <class I>
__device__ void spgemm_rowprod(i64 m, i64 n, const I* __restrict__ a_ptr, const I* __restrict__ a_col, i64 a_base,
                               i64 b_rows, const I* __restrict__ b_ptr, const I* __restrict__ b_col, i64 b_base,
                               u64 cap_words, u64 dense_max, u64* rowprod, u64* stats) {
    // big_numeric_kind 2 needs a span over 16 dense windows: never with so few columns.
    const bool global_numeric = pow2_at_least((u64)n, 256) / dense_max > 16;
    __shared__ u64 local[SPGEMM_STATS];
    __shared__ u32 long_rows[ROWPROD_LONG_SLOTS];
    __shared__ u32 long_count;
    if (threadIdx.x < SPGEMM_STATS) local[threadIdx.x] = 0;
    if (threadIdx.x == 0) long_count = 0;
    __syncthreads();
    // Groups of G lanes per row: most rows are short.
    const int G = 4;
    const int g = threadIdx.x & (G - 1);
    const unsigned gmask = group_mask(G);
    const i64 groups = ((i64)gridDim.x * blockDim.x) / G;
    for (i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / G; i < m; i += groups) {
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        if (e - s > ROWPROD_LONG_ENTRIES) {
            u32 slot = 0;
            if (g == 0) slot = atomicAdd(&long_count, 1u);
            slot = __shfl_sync(gmask, slot, 0, G);
            if (slot < ROWPROD_LONG_SLOTS) {
                if (g == 0) long_rows[slot] = (u32)i;
                continue;
            }
        }
        u64 P = 0;
        for (i64 p = s + g; p < e; p += G) {
            const i64 k = (i64)a_col[p] - a_base;
            P += (u64)((i64)b_ptr[k + 1] - (i64)b_ptr[k]);
        }
        P = group_sum(P, G, gmask);
        if (g == 0) spgemm_count_row(i, P, n, cap_words, global_numeric, rowprod, local);
    }
    __syncthreads();
    const u32 deferred = long_count < ROWPROD_LONG_SLOTS ? long_count : ROWPROD_LONG_SLOTS;
    for (u32 j = 0; j < deferred; ++j) {
        const i64 i = long_rows[j];
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        u64 P = 0;
        for (i64 p = s + threadIdx.x; p < e; p += blockDim.x) {
            const i64 k = (i64)a_col[p] - a_base;
            P += (u64)((i64)b_ptr[k + 1] - (i64)b_ptr[k]);
        }
        P = block_sum(P);
        if (threadIdx.x == 0) spgemm_count_row(i, P, n, cap_words, global_numeric, rowprod, local);
    }
    count_b_descents(b_rows, b_ptr, b_col, b_base, local);
    __syncthreads();
    if (threadIdx.x < SPGEMM_STATS && local[threadIdx.x] != 0) {
        unsigned long long* to = (unsigned long long*)&stats[threadIdx.x];
        if (threadIdx.x == SPGEMM_STAT_POOL_MAX || threadIdx.x == SPGEMM_STAT_GLOBAL_MAX_ENTRIES)
            atomicMax(to, (unsigned long long)local[threadIdx.x]);
        else
            atomicAdd(to, (unsigned long long)local[threadIdx.x]);
    }
}

// Lists the rows of each bin (bin b starts after the rows of bins 1..b-1, from stats) and gives each big row that needs a
// global symbolic table its place in the pool. Rows with no products get row_nnz = 0 here.
// The order within a bin varies between runs; every row is computed independently, so
// results do not.
__device__ void spgemm_bin_rows(i64 m, i64 n, const u64* rowprod, const u64* stats, u64 cap_words, u32* cursor,
                                u32* bin_rows, u64* sym_off, u64* pool_cursor, u64* row_nnz) {
    __shared__ u32 count[SPGEMM_BINS];
    __shared__ u32 start[SPGEMM_BINS];
    __shared__ u32 off[SPGEMM_BINS];
    if (threadIdx.x == 0) {
        u32 o = 0;
        for (int b = 0; b < SPGEMM_BINS; ++b) {
            off[b] = o;
            if (b > 0) o += (u32)stats[b];
        }
    }
    for (i64 t0 = (i64)blockIdx.x * blockDim.x; t0 < m; t0 += (i64)gridDim.x * blockDim.x) {
        if (threadIdx.x < SPGEMM_BINS) count[threadIdx.x] = 0;
        __syncthreads();
        const i64 i = t0 + threadIdx.x;
        int b = 0;
        u32 pos = 0;
        u64 P = 0;
        if (i < m) {
            P = rowprod[i];
            b = spgemm_bin(P);
            if (b == 0)
                row_nnz[i] = 0;
            else
                pos = atomicAdd(&count[b], 1u);
        }
        __syncthreads();
        if (threadIdx.x < SPGEMM_BINS && count[threadIdx.x] != 0)
            start[threadIdx.x] = atomicAdd(&cursor[threadIdx.x], count[threadIdx.x]);
        __syncthreads();
        if (i < m && b != 0) {
            const u32 at = start[b] + pos;
            bin_rows[off[b] + at] = (u32)i;
            if (b == SPGEMM_BIG_BIN) {
                const u64 d = P < (u64)n ? P : (u64)n;
                sym_off[at] = big_symbolic_method(P, (u64)n, cap_words) == 2
                                  ? atomicAdd((unsigned long long*)pool_cursor, global_table_size(d))
                                  : 0;
            }
        }
        __syncthreads();
    }
}

// After the symbolic phase and the scan into C's offsets, each big row's numeric method:
// * ESC's long-row path (big_numeric_esc, from its products rowprod[i]; esc_x4 = 0 never):
//   seg_info[r] = SPGEMM_ESC_ROW, and a place L in the ESC list with its products' offset in
//   the list's order (one atomic hands out both, so the offsets ascend with L): esc_rows[L] =
//   the row, esc_off[L] = the offset (`copy` groups the list into passes by it);
// * a global table (big_numeric_kind 2): a rank k and a segment of the scratch its unsorted
//   entries go to (seg_info[r] = k << SPGEMM_SEG_BITS | segment start; k2_row[k] = the row;
//   k2_seg[k] = its segment start), and a place in the global table pool: packed tight
//   (num_off from totals[1]), or, with `tables_by_segment` (ALG3's passes), 4 slots per entry
//   from its segment's start (a table of more than 8192 entries has at most 4 slots per
//   entry), so the tables of the rows in a range of the scratch lie in a range of the pool;
// * else a shared table or dense windows (seg_info[r] = 0); a row of several dense windows and
//   at least split_work products x windows is listed in multi_rows (its position r in
//   `rows`; seg_info[r] = SPGEMM_SPLIT_ROW), whose windows the numeric phase takes in blocks of
//   their own.
// totals (zeroed): [0] global rows << SPGEMM_SEG_BITS | scratch entries, [1] pool slots
// (tight), [2] ESC rows << SPGEMM_SEG_BITS | their products, [3] the most products of an ESC
// row, [4] the rows of several windows.
__device__ void spgemm_big_numeric_pool(const u32* rows, u32 count, const u64* c_ptr, const u64* span,
                                        const u64* rowprod, u64 dense_max, u32 tables_by_segment, u32 esc_x4,
                                        u64 split_work, u32* multi_rows, u64* num_off, u64* seg_info, u32* k2_row,
                                        u64* k2_seg, u32* esc_rows, u64* esc_off, u64* totals) {
    unsigned long long* sums = (unsigned long long*)totals;
    GRID_STRIDE(r, count) {
        const u32 i = rows[r];
        const u64 nnz = c_ptr[i + 1] - c_ptr[i];
        const u64 size = global_table_size(nnz);
        const u64 spanp = span_pow2(span[r]);
        const bool cheap = span_cheap_walk(span[r]);
        const u64 P = rowprod[i];
        u64 info = 0;
        if (big_numeric_esc(P, nnz, spanp, dense_max, esc_x4, cheap)) {
            const u64 at = atomicAdd(&sums[2], (1ull << SPGEMM_SEG_BITS) | P);
            atomicMax(&sums[3], (unsigned long long)P);
            esc_rows[at >> SPGEMM_SEG_BITS] = i;
            esc_off[at >> SPGEMM_SEG_BITS] = at & SPGEMM_SEG_MASK;
            info = SPGEMM_ESC_ROW;
        } else if (big_numeric_kind(spanp, size, dense_max, cheap) == 2) {
            info = atomicAdd(&sums[0], (1ull << SPGEMM_SEG_BITS) | nnz);
            num_off[r] = tables_by_segment ? 4 * (info & SPGEMM_SEG_MASK) : atomicAdd(&sums[1], (unsigned long long)size);
            k2_row[info >> SPGEMM_SEG_BITS] = i;
            k2_seg[info >> SPGEMM_SEG_BITS] = info & SPGEMM_SEG_MASK;
        } else if (spanp > dense_max && big_numeric_kind(spanp, size, dense_max, cheap) == 0 &&
                   P * (spanp / dense_max) >= split_work) {
            multi_rows[atomicAdd(&sums[4], 1ull)] = (u32)r;
            info = SPGEMM_SPLIT_ROW;
        }
        seg_info[r] = info;
    }
}

#define SPGEMM_ANALYSIS_ENTRY(I, tidx)                                                                   \
    extern "C" __global__ void spblk_spgemm_rowprod_##tidx(                                              \
        i64 m, i64 n, const I* a_ptr, const I* a_col, i64 a_base, i64 b_rows, const I* b_ptr,               \
        const I* b_col, i64 b_base, u64 cap_words, u64 dense_max, u64* rowprod, u64* stats) {               \
        spgemm_rowprod<I>(m, n, a_ptr, a_col, a_base, b_rows, b_ptr, b_col, b_base, cap_words, dense_max,   \
                          rowprod, stats);                                                                  \
    }
SPGEMM_ANALYSIS_ENTRY(int, i32)
SPGEMM_ANALYSIS_ENTRY(long long, i64)

extern "C" __global__ void spblk_spgemm_bin_rows(i64 m, i64 n, const u64* rowprod, const u64* stats,
                                                 u64 cap_words, u32* cursor, u32* bin_rows, u64* sym_off,
                                                 u64* pool_cursor, u64* row_nnz) {
    spgemm_bin_rows(m, n, rowprod, stats, cap_words, cursor, bin_rows, sym_off, pool_cursor, row_nnz);
}

extern "C" __global__ void spblk_spgemm_big_numeric_pool(const u32* rows, u32 count, const u64* c_ptr,
                                                         const u64* span, const u64* rowprod, u64 dense_max,
                                                         u32 tables_by_segment, u32 esc_x4, u64 split_work,
                                                         u32* multi_rows, u64* num_off, u64* seg_info,
                                                         u32* k2_row, u64* k2_seg, u32* esc_rows, u64* esc_off,
                                                         u64* totals) {
    spgemm_big_numeric_pool(rows, count, c_ptr, span, rowprod, dense_max, tables_by_segment, esc_x4, split_work,
                            multi_rows, num_off, seg_info, k2_row, k2_seg, esc_rows, esc_off, totals);
}
