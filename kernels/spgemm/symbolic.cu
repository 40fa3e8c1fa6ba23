// SpGEMM symbolic phase: nnz of each row of C, by inserting its products' columns into a
// table. Warp bins: one table per warp in shared memory, products taken 32 at a time in
// expansion order. Big rows: a thread block per row with a shared hash table of keys or a
// bitmap of all columns (big_symbolic_method), or a global hash table from the pool; they
// also record each big row's smallest and largest column (span) for the numeric phase.
#include "spgemm/spgemm.cuh"

// span (may be NULL): each row's smallest and largest column, for rows whose numeric phase
// runs in the big rows' kernel (kernels/spgemm/numeric.cu).
template <class I>
__device__ void spgemm_symbolic_warp(const u32* rows, u32 count, u32 table, const I* a_ptr, const I* a_col, i64 a_base,
                                     const I* b_ptr, const I* b_col, i64 b_base, u64* span, u64* row_nnz) {
    extern __shared__ u32 shared_keys[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wpb = blockDim.x >> 5;
    u32* keys = shared_keys + (u64)warp * table;
    for (u64 r = (u64)blockIdx.x * wpb + warp; r < count; r += (u64)gridDim.x * wpb) {
        const u32 i = rows[r];
        for (u32 t = lane; t < table; t += 32) keys[t] = SPGEMM_EMPTY;
        __syncwarp();
        u32 added = 0, lo = SPGEMM_EMPTY, hi = 0;
        for_each_product_chunk((i64)a_ptr[i] - a_base, (i64)a_ptr[i + 1] - a_base, a_col, a_base, b_ptr, b_col,
                               b_base, [&](bool valid, u32 c, i64, i64) {
                                   if (valid) {
                                       bool ins;
                                       hash_insert(keys, table - 1, c, ins);
                                       added += ins;
                                       lo = c < lo ? c : lo;
                                       hi = c > hi ? c : hi;
                                   }
                               });
        added = warp_sum(added);
        if (span) {
            lo = __reduce_min_sync(SPBLK_FULL_MASK, lo);
            hi = __reduce_max_sync(SPBLK_FULL_MASK, hi);
            if (lane == 0) span[r] = (u64)hi << 32 | lo;
        }
        if (lane == 0) row_nnz[i] = added;
        __syncwarp();
    }
}

// Rows of at most 32 products (warp bins 1 and 2), without a table: the warp gathers the
// row's columns one per lane and counts the distinct ones with one match.
template <class I>
__device__ void spgemm_symbolic_short(const u32* rows, u32 count, const I* a_ptr, const I* a_col, i64 a_base,
                                      const I* b_ptr, const I* b_col, i64 b_base, u64* row_nnz) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wpb = blockDim.x >> 5;
    for (u64 r = (u64)blockIdx.x * wpb + warp; r < count; r += (u64)gridDim.x * wpb) {
        const u32 i = rows[r];
        u32 col[1];
        float unused[1];
        const u32 have = gather_short_row<1, false, float>((i64)a_ptr[i] - a_base, (i64)a_ptr[i + 1] - a_base,
                                                           a_col, (const float*)nullptr, a_base, b_ptr, b_col,
                                                           (const float*)nullptr, b_base, col, unused);
        const u32 c = col[0];
        const bool valid = (u32)lane < have;
        const unsigned vmask = __ballot_sync(SPBLK_FULL_MASK, valid);
        unsigned peers = 0;
        if (valid) peers = __match_any_sync(vmask, c);
        const unsigned firsts = __ballot_sync(SPBLK_FULL_MASK, valid && (__ffs(peers) - 1) == lane);
        if (lane == 0) row_nnz[i] = __popc(firsts);
    }
}

// Inserts the columns of row [s, e) of A times B into `keys` (hash, method 0) or `bits`
// (bitmap, method 1); warp w of nw takes the windows of 32 A entries w, w + nw, ...;
// returns how many this thread added.
// Also widens [lo, hi] to the columns seen.
template <class I>
__device__ u32 big_row_insert(i64 s, i64 e, int method, u32* table, u32 mask, const I* a_col, i64 a_base,
                              const I* b_ptr, const I* b_col, i64 b_base, u32& lo, u32& hi) {
    const int warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    u32 added = 0;
    for (i64 w0 = s + 32 * (i64)warp; w0 < e; w0 += 32 * (i64)nw) {
        const i64 we = w0 + 32 < e ? w0 + 32 : e;
        for_each_product_chunk(w0, we, a_col, a_base, b_ptr, b_col, b_base, [&](bool valid, u32 c, i64, i64) {
            if (!valid) return;
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
            if (method == 1) {
                const u32 bit = 1u << (c & 31);
                added += (atomicOr(&table[c >> 5], bit) & bit) == 0;
            } else {
                bool ins;
                hash_insert(table, mask, c, ins);
                added += ins;
            }
        });
    }
    return added;
}

// The block's smallest and largest column, as span[r] = hi << 32 | lo (thread 0 writes).
__device__ __forceinline__ void store_span(u32 lo, u32 hi, u64* span_out) {
    __shared__ u32 block_lo, block_hi;
    if (threadIdx.x == 0) {
        block_lo = SPGEMM_EMPTY;
        block_hi = 0;
    }
    __syncthreads();
    atomicMin(&block_lo, lo);
    atomicMax(&block_hi, hi);
    __syncthreads();
    if (threadIdx.x == 0) *span_out = (u64)block_hi << 32 | block_lo;
    __syncthreads();
}

// A big row whose numeric phase walks several dense windows (big_numeric_kind 0 over a span
// of more than dense_max columns; its nnz and span[r] known) gets, per window, the count of
// its entries before that window (starts[0, SPGEMM_WINDOWS)): the numeric phase then takes
// its windows in separate blocks, each writing at its own offset. From the row's table
// (`items` words): a bitmap of all columns (method 1) or hash keys. Block-wide; every thread
// calls it after span[r] is stored.
__device__ void store_window_starts(int method, const u32* table, u64 items, u64 nnz, u64 dense_max,
                                    const u64* span_r, u32* starts) {
    __shared__ u32 win[SPGEMM_WINDOWS];
    const u64 sp = *span_r;
    const u32 lo = span_lo(sp), hi = span_hi(sp);
    const u64 spanp = span_pow2(sp);
    if (spanp <= dense_max || big_numeric_kind(spanp, global_table_size(nnz), dense_max, span_cheap_walk(sp)) != 0)
        return;
    if (threadIdx.x < SPGEMM_WINDOWS) win[threadIdx.x] = 0;
    __syncthreads();
    if (method == 1) {
        for (u64 t = lo / 32 + threadIdx.x; t <= hi / 32; t += blockDim.x) {
            const u32 word = table[t], c0 = (u32)t * 32;
            if (word == 0) continue;
            const u32 k = ((c0 > lo ? c0 : lo) - lo) / (u32)dense_max;
            // The next window's first column; a window (>= 8192 columns) holds whole words but
            // the first and the last.
            const u64 next = (u64)lo + (u64)(k + 1) * dense_max;
            const u32 below = next < (u64)c0 + 32 ? (1u << (u32)(next - c0)) - 1u : 0xffffffffu;
            atomicAdd(&win[k], (u32)__popc(word & below));
            if ((word & ~below) != 0) atomicAdd(&win[k + 1], (u32)__popc(word & ~below));
        }
    } else {
        for (u64 t = threadIdx.x; t < items; t += blockDim.x) {
            const u32 c = table[t];
            if (c != SPGEMM_EMPTY) atomicAdd(&win[(c - lo) / (u32)dense_max], 1u);
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 before = 0;
        for (int k = 0; k < SPGEMM_WINDOWS; ++k) {
            starts[k] = before;
            before += win[k];
        }
    }
    __syncthreads();
}

// Sets SPAN_CHEAP_WALK in *span_r for row [s, e) of A (P products) when B's rows are sorted
// and the products of B's rows too short to search (under SPGEMM_SEARCH_MIN entries) are at
// most P / max(W - 1, 4) of W dense windows: loaded once per window they add at most P to the
// walk, and loaded by each warp of walk_window_part about twice P. Block-wide; after store_span.
template <class I>
__device__ void mark_cheap_walk(i64 s, i64 e, u64 P, u32 b_sorted, const I* a_col, i64 a_base, const I* b_ptr,
                                u64 dense_max, u64* span_r) {
    if (!b_sorted) return;
    const u64 sp = *span_r;
    const u64 windows = (span_pow2(sp) + dense_max - 1) / dense_max;
    u64 short_products = 0;
    for (i64 p = s + threadIdx.x; p < e; p += blockDim.x) {
        const i64 k = (i64)a_col[p] - a_base;
        const u64 len = (u64)((i64)b_ptr[k + 1] - (i64)b_ptr[k]);
        if (len < SPGEMM_SEARCH_MIN) short_products += len;
    }
    short_products = block_sum(short_products);
    if (threadIdx.x == 0 && short_products * (windows > 5 ? windows - 1 : 4) <= P) *span_r = sp | SPAN_CHEAP_WALK;
    __syncthreads();
}

// Rows whose table (u32 words) is in (lo_words, hi_words]: launched per size class, so that
// small tables do not hold the largest class's shared memory. Window starts as above.
template <class I>
__device__ void spgemm_symbolic_big(const u32* rows, u32 count, const u64* rowprod, i64 n, u64 cap_words,
                                    u64 lo_words, u64 hi_words, const I* a_ptr, const I* a_col, i64 a_base,
                                    const I* b_ptr, const I* b_col, i64 b_base, u64 dense_max, u32 b_sorted,
                                    u64* span, u32* win_start, u64* row_nnz) {
    extern __shared__ u32 shared_table[];
    for (u64 r = blockIdx.x; r < count; r += gridDim.x) {
        const u32 i = rows[r];
        const u64 P = rowprod[i];
        const int method = big_symbolic_method(P, (u64)n, cap_words);
        if (method == 2) continue;
        const u64 d = P < (u64)n ? P : (u64)n;
        const u32 words = method == 1 ? (u32)(((u64)n + 31) / 32) : (u32)global_table_size(d);
        if (words <= lo_words || words > hi_words) continue;
        const u32 fill = method == 1 ? 0u : SPGEMM_EMPTY;
        for (u32 t = threadIdx.x; t < words; t += blockDim.x) shared_table[t] = fill;
        __syncthreads();
        u32 lo = SPGEMM_EMPTY, hi = 0;
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        u32 added = big_row_insert(s, e, method, shared_table, words - 1, a_col, a_base, b_ptr, b_col, b_base, lo, hi);
        added = block_sum(added);
        store_span(lo, hi, &span[r]);
        mark_cheap_walk(s, e, P, b_sorted, a_col, a_base, b_ptr, dense_max, &span[r]);
        if (threadIdx.x == 0) row_nnz[i] = added;
        store_window_starts(method, shared_table, words, added, dense_max, &span[r],
                            &win_start[r * SPGEMM_WINDOWS]);
    }
}

// Big rows with method 2 whose table starts in [off_lo, off_hi) of the pool (all of it, or
// one of ALG3's windows): a block per row, the table at pool + sym_off[r] - off_lo.
template <class I>
__device__ void spgemm_symbolic_global(const u32* rows, u32 count, const u64* sym_off, const u64* rowprod, i64 n,
                                       u64 cap_words, u64 off_lo, u64 off_hi, const I* a_ptr, const I* a_col,
                                       i64 a_base, const I* b_ptr, const I* b_col, i64 b_base, u64 dense_max,
                                       u32 b_sorted, u32* pool, u64* span, u32* win_start, u64* row_nnz) {
    for (u64 r = blockIdx.x; r < count; r += gridDim.x) {
        const u32 i = rows[r];
        const u64 P = rowprod[i];
        if (big_symbolic_method(P, (u64)n, cap_words) != 2 || sym_off[r] < off_lo || sym_off[r] >= off_hi) continue;
        const u64 size = global_table_size(P < (u64)n ? P : (u64)n);
        u32* keys = pool + (sym_off[r] - off_lo);
        for (u64 t = threadIdx.x; t < size; t += blockDim.x) keys[t] = SPGEMM_EMPTY;
        __syncthreads();
        u32 lo = SPGEMM_EMPTY, hi = 0;
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        u32 added = big_row_insert(s, e, 0, keys, (u32)(size - 1), a_col, a_base, b_ptr, b_col, b_base, lo, hi);
        added = block_sum(added);
        store_span(lo, hi, &span[r]);
        mark_cheap_walk(s, e, P, b_sorted, a_col, a_base, b_ptr, dense_max, &span[r]);
        if (threadIdx.x == 0) row_nnz[i] = added;
        store_window_starts(0, keys, size, added, dense_max, &span[r], &win_start[r * SPGEMM_WINDOWS]);
    }
}

// The big rows' symbolic kernel held to 32 registers (eight blocks of 256 an SM on the small
// tables), as before the window starts (36 without the bound; the i64 one spills 4 bytes).
#define SPGEMM_SYMBOLIC_ENTRY(I, tidx)                                                                      \
    extern "C" __global__ void spblk_spgemm_symbolic_warp_##tidx(                                           \
        const u32* rows, u32 count, u32 table, const I* a_ptr, const I* a_col, i64 a_base, const I* b_ptr,  \
        const I* b_col, i64 b_base, u64* span, u64* row_nnz) {                                              \
        spgemm_symbolic_warp<I>(rows, count, table, a_ptr, a_col, a_base, b_ptr, b_col, b_base, span,       \
                                row_nnz);                                                                   \
    }                                                                                                       \
    extern "C" __global__ void spblk_spgemm_symbolic_short_##tidx(                                          \
        const u32* rows, u32 count, const I* a_ptr, const I* a_col, i64 a_base, const I* b_ptr,             \
        const I* b_col, i64 b_base, u64* row_nnz) {                                                         \
        spgemm_symbolic_short<I>(rows, count, a_ptr, a_col, a_base, b_ptr, b_col, b_base, row_nnz);        \
    }                                                                                                       \
    extern "C" __global__ void __launch_bounds__(256, 8) spblk_spgemm_symbolic_big_##tidx(                  \
        const u32* rows, u32 count, const u64* rowprod, i64 n, u64 cap_words, u64 lo_words, u64 hi_words,   \
        const I* a_ptr, const I* a_col, i64 a_base, const I* b_ptr, const I* b_col, i64 b_base,             \
        u64 dense_max, u32 b_sorted, u64* span, u32* win_start, u64* row_nnz) {                             \
        spgemm_symbolic_big<I>(rows, count, rowprod, n, cap_words, lo_words, hi_words, a_ptr, a_col, a_base, \
                               b_ptr, b_col, b_base, dense_max, b_sorted, span, win_start, row_nnz);        \
    }                                                                                                       \
    extern "C" __global__ void spblk_spgemm_symbolic_global_##tidx(                                         \
        const u32* rows, u32 count, const u64* sym_off, const u64* rowprod, i64 n, u64 cap_words,           \
        u64 off_lo, u64 off_hi, const I* a_ptr, const I* a_col, i64 a_base, const I* b_ptr, const I* b_col, \
        i64 b_base, u64 dense_max, u32 b_sorted, u32* pool, u64* span, u32* win_start, u64* row_nnz) {      \
        spgemm_symbolic_global<I>(rows, count, sym_off, rowprod, n, cap_words, off_lo, off_hi, a_ptr, a_col, \
                                  a_base, b_ptr, b_col, b_base, dense_max, b_sorted, pool, span, win_start, \
                                  row_nnz);                                                                 \
    }
SPGEMM_SYMBOLIC_ENTRY(int, i32)
SPGEMM_SYMBOLIC_ENTRY(long long, i64)
