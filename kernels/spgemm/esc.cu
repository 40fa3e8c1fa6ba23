// SpGEMM by expansion, sorting and compression (ESC, `SPBLK_SPGEMM_ALG_ESC`): the seed's
// binned method (bhSPARSE, Liu & Vinter). A row's product count P bounds its entries, so each
// row owns P slots of an intermediate C-hat (upper-bound sizing). Rows are binned by P: a warp
// per row up to 32 products (sorted in registers) and up to 256 (in shared memory), a block per
// row up to 1024 and 4096 (bitonic sorts in shared memory); longer rows are cut into chunks of
// 4096 products, each sorted in shared memory, and the sorted chunks of a row are merged
// pairwise in global memory (merge levels).
// A product's sort key is (column, position in the row's expansion order), so equal columns
// stay in expansion order and are summed in it, as the host sums them: the same bits. `copy`
// compacts C-hat into C (src/backend/cuda/spgemm/esc.rs). The hash method's `copy` runs the
// long-row path too, on its long rows whose products seldom share a column (big_numeric_esc),
// writing them straight into C.
#include "spgemm/spgemm.cuh"

// The bins (esc.rs mirrors them): 0 no products, 1..2 a warp with 32 slots (sorted in registers)
// or 256, 3..4 a block of 256/512 threads with 1024/4096 slots, 5 long rows in chunks.
#define ESC_LONG_BIN 5
#define ESC_BINS 6
// Statistics after the bins' row counts: the long rows' products, their chunks, the largest P.
#define ESC_STAT_LONG_PRODUCTS 6
#define ESC_STAT_LONG_CHUNKS 7
#define ESC_STAT_LONG_MAX 8
#define ESC_STATS 9
#define ESC_NO_KEY 0xffffffffffffffffull

__device__ __forceinline__ int esc_bin(u64 P) {
    if (P == 0) return 0;
    if (P <= 32) return 1;
    if (P <= 256) return 2;
    if (P <= 1024) return 3;
    if (P <= ESC_CHUNK) return 4;
    return ESC_LONG_BIN;
}

__device__ __forceinline__ u32 key_col(u64 key) { return (u32)(key >> 32); }

// Rows per bin and the long rows' totals, from the work estimation's products per row.
extern "C" __global__ void spblk_spgemm_esc_stats(i64 m, const u64* rowprod, u64* stats) {
    __shared__ unsigned long long local[ESC_STATS];
    if (threadIdx.x < ESC_STATS) local[threadIdx.x] = 0;
    __syncthreads();
    GRID_STRIDE(i, m) {
        const u64 P = rowprod[i];
        const int b = esc_bin(P);
        atomicAdd(&local[b], 1ull);
        if (b == ESC_LONG_BIN) {
            atomicAdd(&local[ESC_STAT_LONG_PRODUCTS], (unsigned long long)P);
            atomicAdd(&local[ESC_STAT_LONG_CHUNKS], (unsigned long long)((P + ESC_CHUNK - 1) / ESC_CHUNK));
            atomicMax(&local[ESC_STAT_LONG_MAX], (unsigned long long)P);
        }
    }
    __syncthreads();
    if (threadIdx.x < ESC_STATS && local[threadIdx.x] != 0) {
        unsigned long long* to = (unsigned long long*)&stats[threadIdx.x];
        if (threadIdx.x == ESC_STAT_LONG_MAX)
            atomicMax(to, local[threadIdx.x]);
        else
            atomicAdd(to, local[threadIdx.x]);
    }
}

// Lists each row in its bin (bin b's list starts at s<b>; the order within a bin is
// whatever the atomics give: each row's result does not depend on it), copies P into
// prod_off (scanned next into C-hat's row offsets) and, for a long row at list position L,
// its P and chunk count into long_off[L] and chunk_off[L] (scanned next). cursors: ESC_BINS
// zeroed words.
extern "C" __global__ void spblk_spgemm_esc_bin_rows(i64 m, const u64* rowprod, u64 s1, u64 s2, u64 s3, u64 s4,
                                                      u64 s5, u32* cursors, u32* bin_rows, u64* prod_off,
                                                      u64* long_off, u64* chunk_off) {
    __shared__ u32 count[ESC_BINS], base[ESC_BINS];
    const u64 starts[ESC_BINS] = {0, s1, s2, s3, s4, s5};
    const u64 all = (u64)gridDim.x * blockDim.x;
    for (u64 r0 = (u64)blockIdx.x * blockDim.x; r0 < (u64)m; r0 += all) {
        if (threadIdx.x < ESC_BINS) count[threadIdx.x] = 0;
        __syncthreads();
        const u64 i = r0 + threadIdx.x;
        int b = -1;
        u32 rank = 0;
        u64 P = 0;
        if (i < (u64)m) {
            P = rowprod[i];
            prod_off[i] = P;
            b = esc_bin(P);
            if (b > 0) rank = atomicAdd(&count[b], 1u);
        }
        __syncthreads();
        if (threadIdx.x < ESC_BINS && count[threadIdx.x] != 0)
            base[threadIdx.x] = atomicAdd(&cursors[threadIdx.x], count[threadIdx.x]);
        __syncthreads();
        if (b > 0) {
            const u32 at = base[b] + rank;
            bin_rows[starts[b] + at] = (u32)i;
            if (b == ESC_LONG_BIN) {
                long_off[at] = P;
                chunk_off[at] = (P + ESC_CHUNK - 1) / ESC_CHUNK;
            }
        }
        __syncthreads();
    }
}

// ------------------------------------------------------------------------------------------
// Block rows and chunks: expansion into shared memory, bitonic sort of the keys.

// Bitonic sort of keys[0, N) (N a power of two) by `workers` threads of which the caller is
// `me`; `sync` is their barrier.
template <class Sync> __device__ __forceinline__ void esc_sort(u64* keys, u32 N, u32 me, u32 workers, Sync sync) {
    for (u32 k = 2; k <= N; k <<= 1) {
        for (u32 j = k >> 1; j > 0; j >>= 1) {
            for (u32 t = me; t < N / 2; t += workers) {
                const u32 x = 2 * t - (t & (j - 1)), y = x + j;
                const u64 ka = keys[x], kb = keys[y];
                if ((ka > kb) == ((x & k) == 0)) {
                    keys[x] = kb;
                    keys[y] = ka;
                }
            }
            sync();
        }
    }
}

// Expands `cnt` products of a row in expansion order, from A entry k0 (skipping the first q0
// entries of its B row; A's row ends at a_end): product t gets keys[t] = column << 32 | (p0 +
// t) and vals[t]. Then sorts keys[0, N) (N a power of two >= cnt; the padding sorts last).
// Block-wide; every thread calls it.
template <class V, class I>
__device__ void esc_expand_sort(i64 k0, u32 q0, i64 a_end, u32 cnt, u32 p0, u32 N, const I* a_col,
                                const V* a_val, i64 a_base, const I* b_ptr, const I* b_col, const V* b_val,
                                i64 b_base, u64* keys, typename ComputeOf<V>::type* vals) {
    typedef typename ComputeOf<V>::type T;
    // A window of blockDim A entries at a time: each one's product offset and B start.
    __shared__ u32 win_off[512];
    __shared__ i64 win_q[512];
    __shared__ i64 win_k[512];
    const u32 W = blockDim.x, me = threadIdx.x;
    u32 placed = 0;
    for (i64 kw = k0; placed < cnt && kw < a_end; kw += W) {
        const i64 k = kw + me;
        u32 len = 0;
        i64 q = 0;
        if (k < a_end) {
            const i64 col = (i64)a_col[k] - a_base;
            const u32 skip = k == k0 ? q0 : 0u;
            q = (i64)b_ptr[col] - b_base + skip;
            len = (u32)((i64)b_ptr[col + 1] - b_base - q);
        }
        u32 total;
        const u32 off = block_exclusive_scan<u32>(len, total);
        win_off[me] = off;
        win_q[me] = q;
        win_k[me] = k;
        __syncthreads();
        const u32 take = min(total, cnt - placed);
        for (u32 j = me; j < take; j += W) {
            // The window's last entry whose offset is <= j holds product j.
            u32 lo = 0, hi = W - 1;
            while (lo < hi) {
                const u32 mid = (lo + hi + 1) >> 1;
                if (win_off[mid] <= j) lo = mid; else hi = mid - 1;
            }
            const i64 qq = win_q[lo] + (j - win_off[lo]);
            const u32 c = (u32)((i64)b_col[qq] - b_base);
            keys[placed + j] = (u64)c << 32 | (p0 + placed + j);
            vals[placed + j] = mul_rn(to_compute(a_val[win_k[lo]]), to_compute(b_val[qq]));
        }
        placed += take;
        __syncthreads();
    }
    for (u32 t = cnt + me; t < N; t += W) keys[t] = ESC_NO_KEY;
    __syncthreads();
    esc_sort(keys, N, me, W, [] { __syncthreads(); });
}

// The sum of the run of equal columns that starts at sorted position t (of cnt): its products
// in expansion order. `val_of(key)` gives a key's product.
template <class T, class ValOf>
__device__ __forceinline__ T esc_run_sum(const u64* keys, u64 t, u64 cnt, ValOf val_of) {
    const u32 c = key_col(keys[t]);
    T acc = add_rn(T(0), val_of(keys[t]));
    for (u64 u = t + 1; u < cnt && key_col(keys[u]) == c; ++u) acc = add_rn(acc, val_of(keys[u]));
    return acc;
}

// Whether sorted position t (of a row's keys) starts a run of equal columns.
__device__ __forceinline__ bool esc_head(const u64* keys, u64 t) {
    return t == 0 || key_col(keys[t - 1]) != key_col(keys[t]);
}

// Block-wide: f(t, rank) for every sorted position t (of n) that starts a run, rank being the
// runs before it; returns the number of runs.
template <class F> __device__ __forceinline__ u64 esc_block_heads(const u64* keys, u64 n, F f) {
    u64 before = 0;
    for (u64 t0 = 0; t0 < n; t0 += blockDim.x) {
        const u64 t = t0 + threadIdx.x;
        const bool head = t < n && esc_head(keys, t);
        u32 total;
        const u32 rank = block_exclusive_scan<u32>(head ? 1u : 0u, total);
        if (head) f(t, before + rank);
        before += total;
    }
    return before;
}

// ------------------------------------------------------------------------------------------
// Short rows: a warp per row.

#define ESC_WARPS 8

// A warp's row products, in expansion order, into its slots: keys[t] = column << 32 | t and
// vals[t]; returns their count.
template <class V, class I>
__device__ __forceinline__ u32 esc_warp_expand(i64 s, i64 e, const I* a_col, const V* a_val, i64 a_base,
                                               const I* b_ptr, const I* b_col, const V* b_val, i64 b_base,
                                               u64* keys, typename ComputeOf<V>::type* vals) {
    const unsigned lower = (1u << (threadIdx.x & 31)) - 1u;
    u32 n = 0;
    for_each_product_chunk(s, e, a_col, a_base, b_ptr, b_col, b_base, [&](bool valid, u32 c, i64 p, i64 q) {
        const unsigned vm = __ballot_sync(SPBLK_FULL_MASK, valid);
        if (valid) {
            const u32 slot = n + __popc(vm & lower);
            keys[slot] = (u64)c << 32 | slot;
            vals[slot] = mul_rn(to_compute(a_val[p]), to_compute(b_val[q]));
        }
        n += __popc(vm);
    });
    __syncwarp();
    return n;
}

// A warp per row of at most N products (N slots of this warp's shared memory). N = 32: one
// product per lane, sorted in registers, each run's first lane adding the run's products in
// lane order (= expansion order) from its neighbours. Larger N: a bitonic sort by the warp in
// shared memory, each run's first item adding the run's products in order.
template <class V, class I>
__device__ void esc_warp_rows(const u32* rows, u32 count, u32 N, const I* a_ptr, const I* a_col, const V* a_val,
                              i64 a_base, const I* b_ptr, const I* b_col, const V* b_val, i64 b_base,
                              const u64* prod_off, u64* c_cnt, u32* chat_col, typename ComputeOf<V>::type* chat_val) {
    typedef typename ComputeOf<V>::type T;
    extern __shared__ __align__(16) unsigned char esc_smem[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned lower = (1u << lane) - 1u;
    u64* keys = reinterpret_cast<u64*>(esc_smem) + (u64)warp * N;
    T* vals = reinterpret_cast<T*>(esc_smem + (u64)ESC_WARPS * N * 8) + (u64)warp * N;
    for (u64 r = (u64)blockIdx.x * ESC_WARPS + warp; r < count; r += (u64)gridDim.x * ESC_WARPS) {
        const u32 i = rows[r];
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        const u32 n = esc_warp_expand<V, I>(s, e, a_col, a_val, a_base, b_ptr, b_col, b_val, b_base, keys, vals);
        if (N == 32) {
            u64 key = (u32)lane < n ? keys[lane] : ESC_NO_KEY;
            T v = (u32)lane < n ? vals[lane] : T(0);
            __syncwarp();
            warp_sort32(key, v);
            const u32 c = key_col(key);
            const u32 prev = __shfl_up_sync(SPBLK_FULL_MASK, c, 1);
            const bool head = (u32)lane < n && (lane == 0 || prev != c);
            T acc = add_rn(T(0), v);
            bool open = head;
            for (int t = 1; t < 32; ++t) {
                const T o = __shfl_down_sync(SPBLK_FULL_MASK, v, t);
                const u32 oc = __shfl_down_sync(SPBLK_FULL_MASK, c, t);
                open = open && (u32)(lane + t) < n && oc == c;
                if (open) acc = add_rn(acc, o);
                if (!__any_sync(SPBLK_FULL_MASK, open)) break;
            }
            const unsigned heads = __ballot_sync(SPBLK_FULL_MASK, head);
            if (head) {
                const u64 at = prod_off[i] + __popc(heads & lower);
                chat_col[at] = c;
                chat_val[at] = acc;
            }
            if (lane == 0) c_cnt[i] = __popc(heads);
            continue;
        }
        u32 sorted = 32;
        while (sorted < n) sorted <<= 1;
        for (u32 t = n + lane; t < sorted; t += 32) keys[t] = ESC_NO_KEY;
        __syncwarp();
        esc_sort(keys, sorted, lane, 32, [] { __syncwarp(); });
        u32 before = 0;
        for (u32 t0 = 0; t0 < n; t0 += 32) {
            const u32 t = t0 + lane;
            const bool head = t < n && esc_head(keys, t);
            const unsigned heads = __ballot_sync(SPBLK_FULL_MASK, head);
            if (head) {
                const u64 at = prod_off[i] + before + __popc(heads & lower);
                chat_col[at] = key_col(keys[t]);
                chat_val[at] = esc_run_sum<T>(keys, t, n, [&](u64 k) { return vals[(u32)k]; });
            }
            before += __popc(heads);
        }
        if (lane == 0) c_cnt[i] = before;
        __syncwarp();
    }
}

// A block per row of at most N products: expand, sort, sum each column's run into C-hat.
template <class V, class I>
__device__ void esc_block_rows(const u32* rows, u32 count, u32 N, const I* a_ptr, const I* a_col, const V* a_val,
                               i64 a_base, const I* b_ptr, const I* b_col, const V* b_val, i64 b_base,
                               const u64* prod_off, u64* c_cnt, u32* chat_col,
                               typename ComputeOf<V>::type* chat_val) {
    typedef typename ComputeOf<V>::type T;
    extern __shared__ __align__(16) unsigned char esc_smem[];
    u64* keys = reinterpret_cast<u64*>(esc_smem);
    T* vals = reinterpret_cast<T*>(esc_smem + (u64)N * 8);
    for (u64 r = blockIdx.x; r < count; r += gridDim.x) {
        const u32 i = rows[r];
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        const u64 P = prod_off[i + 1] - prod_off[i];
        // Sort the row's power of two, not the bin's N.
        u32 sorted = 64;
        while (sorted < P) sorted <<= 1;
        esc_expand_sort<V, I>(s, 0, e, (u32)P, 0, min(sorted, N), a_col, a_val, a_base, b_ptr, b_col, b_val, b_base,
                              keys, vals);
        const u64 runs = esc_block_heads(keys, P, [&](u64 t, u64 rank) {
            chat_col[prod_off[i] + rank] = key_col(keys[t]);
            chat_val[prod_off[i] + rank] = esc_run_sum<T>(keys, t, P, [&](u64 k) { return vals[(u32)k]; });
        });
        if (threadIdx.x == 0) c_cnt[i] = runs;
        __syncthreads();
    }
}

// ------------------------------------------------------------------------------------------
// Long rows: chunks sorted in shared memory, merged in global memory.

// The list position of the long row that holds item t of the long rows' items, from their
// offsets (rows + 1 ascending values): the last L with off[L] <= t.
__device__ __forceinline__ u32 esc_long_row(const u64* off, u32 rows, u64 t) {
    u32 lo = 0, hi = rows - 1;
    while (lo < hi) {
        const u32 mid = (lo + hi + 1) >> 1;
        if (off[mid] <= t) lo = mid; else hi = mid - 1;
    }
    return lo;
}

// Where each chunk of the long rows starts: a block per long row walks its A entries and
// records, for the chunk starting at product j * ESC_CHUNK, its A entry and the offset in
// that entry's B row.
template <class I>
__device__ void esc_chunk_starts(const u32* rows, u32 count, const I* a_ptr, const I* a_col, i64 a_base,
                                 const I* b_ptr, const u64* chunk_off, i64* chunk_k, u32* chunk_q) {
    for (u64 L = blockIdx.x; L < count; L += gridDim.x) {
        const u32 i = rows[L];
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        const u64 first = chunk_off[L];
        u64 before = 0;
        for (i64 kw = s; kw < e; kw += blockDim.x) {
            const i64 k = kw + threadIdx.x;
            u64 len = 0;
            if (k < e) {
                const i64 col = (i64)a_col[k] - a_base;
                len = (u64)((i64)b_ptr[col + 1] - (i64)b_ptr[col]);
            }
            u64 total;
            const u64 off = before + block_exclusive_scan<u64>(len, total);
            // Chunks whose first product falls in [off, off + len).
            for (u64 j = (off + ESC_CHUNK - 1) / ESC_CHUNK; j * ESC_CHUNK < off + len; ++j) {
                chunk_k[first + j] = k;
                chunk_q[first + j] = (u32)(j * ESC_CHUNK - off);
            }
            before += total;
        }
    }
}

// A block per chunk: its products in expansion order, their values into C-hat (the row's P
// slots hold the products themselves), their keys sorted into keys_out. A row's values start
// at prod_off[row] (the ESC method's C-hat), or with prod_off = null at long_off[L], beside
// its keys (the hash method's rows on this path: its own scratch).
__device__ __forceinline__ u64 esc_values_at(const u64* prod_off, u32 i, const u64* long_off, u32 L) {
    return prod_off != nullptr ? prod_off[i] : long_off[L];
}

template <class V, class I>
__device__ void esc_chunks(const u32* long_rows, u32 count, u64 chunks, const u64* chunk_off, const i64* chunk_k,
                           const u32* chunk_q, const u64* long_off, const I* a_ptr, const I* a_col, const V* a_val,
                           i64 a_base, const I* b_ptr, const I* b_col, const V* b_val, i64 b_base,
                           const u64* prod_off, typename ComputeOf<V>::type* chat_val, u64* keys_out) {
    __shared__ u64 keys[ESC_CHUNK];
    for (u64 c = blockIdx.x; c < chunks; c += gridDim.x) {
        const u32 L = esc_long_row(chunk_off, count, c);
        const u32 i = long_rows[L];
        const u64 j = c - chunk_off[L];
        const u64 P = long_off[L + 1] - long_off[L];
        const u32 p0 = (u32)(j * ESC_CHUNK);
        const u32 cnt = (u32)min((u64)ESC_CHUNK, P - p0);
        const i64 e = (i64)a_ptr[i + 1] - a_base;
        esc_expand_sort<V, I>(chunk_k[c], chunk_q[c], e, cnt, p0, ESC_CHUNK, a_col, a_val, a_base, b_ptr, b_col,
                              b_val, b_base, keys, chat_val + esc_values_at(prod_off, i, long_off, L) + p0);
        for (u32 t = threadIdx.x; t < cnt; t += blockDim.x) keys_out[long_off[L] + p0 + t] = keys[t];
        __syncthreads();
    }
}

// The first position in sorted a[0, n) whose key is not below `key`.
__device__ __forceinline__ u64 esc_lower_bound(const u64* a, u64 n, u64 key) {
    u64 lo = 0, hi = n;
    while (lo < hi) {
        const u64 mid = (lo + hi) >> 1;
        if (a[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// One merge level: within each long row, sorted runs of w keys are merged in pairs into dst.
// Keys are distinct, so an item's place is its rank in its run plus its rank in the other run.
// (A thread per item, so that neighbouring threads read neighbouring keys: eight items a
// thread, searching only the first and stepping from there, was 1.3-3x slower.)
extern "C" __global__ void spblk_spgemm_esc_merge(const u64* src, u64* dst, u64 items, const u64* long_off,
                                                   u32 count, u64 w) {
    GRID_STRIDE(t, items) {
        const u32 L = esc_long_row(long_off, count, t);
        const u64 base = long_off[L], P = long_off[L + 1] - base, j = t - base;
        const u64 ps = j - j % (2 * w);
        const u64 a1 = min(ps + w, P), b1 = min(ps + 2 * w, P);
        const u64 key = src[t];
        u64 at;
        if (a1 >= b1)
            at = j;
        else if (j < a1)
            at = j + esc_lower_bound(src + base + a1, b1 - a1, key);
        else
            at = ps + (j - a1) + esc_lower_bound(src + base + ps, a1 - ps, key);
        dst[base + at] = key;
    }
}

// One pass of the hash method's rows on this path (kernels/spgemm/analysis.cu lists them with
// their products' offsets `off`, ascending): each of its n rows' products and chunks, for
// `sort_long_rows` to scan. The pass ends at product `end`.
extern "C" __global__ void spblk_spgemm_esc_pass_counts(const u64* off, u32 n, u64 end, u64* products,
                                                         u64* chunks) {
    GRID_STRIDE(j, (u64)n) {
        const u64 P = (j + 1 < n ? off[j + 1] : end) - off[j];
        products[j] = P;
        chunks[j] = (P + ESC_CHUNK - 1) / ESC_CHUNK;
    }
}

// Each long row's entry count: the runs of equal columns in its sorted keys.
extern "C" __global__ void spblk_spgemm_esc_long_counts(const u32* long_rows, u32 count, const u64* long_off,
                                                         const u64* keys, u64* c_cnt) {
    for (u64 L = blockIdx.x; L < count; L += gridDim.x) {
        const u64 base = long_off[L], P = long_off[L + 1] - base;
        u64 heads = 0;
        for (u64 t = threadIdx.x; t < P; t += blockDim.x) heads += esc_head(keys + base, t) ? 1 : 0;
        heads = block_sum(heads);
        if (threadIdx.x == 0) c_cnt[long_rows[L]] = heads;
    }
}

// ------------------------------------------------------------------------------------------
// copy: C-hat into C.

// Rows up to ESC_CHUNK products (their entries are summed in C-hat): a warp per row copies
// them, times alpha, through the writer.
template <class V, class I>
__device__ void esc_copy_short(i64 m, const u64* prod_off, const u64* c_ptr, const u32* chat_col,
                               const typename ComputeOf<V>::type* chat_val, SPGEMM_OUT_PARAMS(V, I),
                               const typename ComputeOf<V>::type* alpha_dev, typename ComputeOf<V>::type alpha_h) {
    typedef typename ComputeOf<V>::type T;
    SPGEMM_WRITER(V, I);
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    const int lane = threadIdx.x & 31;
    const u64 warps = ((u64)gridDim.x * blockDim.x) >> 5;
    for (u64 i = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < (u64)m; i += warps) {
        const u64 from = prod_off[i];
        if (prod_off[i + 1] - from > ESC_CHUNK) continue;
        const u64 to = c_ptr[i], n = c_ptr[i + 1] - to;
        for (u64 t = lane; t < n; t += 32) w(to + t, chat_col[from + t], mul_rn(alpha, chat_val[from + t]));
    }
}

// Long rows, a block per chunk of ESC_CHUNK sorted keys (the sort's chunks), so that a row of
// millions of products is summed by many blocks (a block per row was the launch's tail: SMs
// active 6-9 % of it on power-law 2^18). First each chunk's runs: the positions in it that
// start one (a run may go on into the next chunks).
extern "C" __global__ void spblk_spgemm_esc_chunk_heads(u32 count, u64 chunks, const u64* chunk_off,
                                                        const u64* long_off, const u64* keys, u64* chunk_heads) {
    for (u64 c = blockIdx.x; c < chunks; c += gridDim.x) {
        const u32 L = esc_long_row(chunk_off, count, c);
        const u64* row = keys + long_off[L];
        const u64 P = long_off[L + 1] - long_off[L];
        const u64 lo = (c - chunk_off[L]) * ESC_CHUNK, hi = min(lo + ESC_CHUNK, P);
        u64 heads = 0;
        for (u64 t = lo + threadIdx.x; t < hi; t += blockDim.x) heads += esc_head(row, t) ? 1 : 0;
        heads = block_sum(heads);
        if (threadIdx.x == 0) chunk_heads[c] = heads;
    }
}

// Then each chunk's runs: a run's first item finds the run's end (a few steps forward, then a
// binary search: runs can be thousands long, as R-MAT's hub columns make them), adds the run's
// products in order (the loads do not wait on the sum) and writes the entry at its rank: the
// runs of the row's earlier chunks plus those before it in this one.
template <class V, class I>
__device__ void esc_copy_long(const u32* long_rows, u32 count, u64 chunks, const u64* chunk_off,
                              const u64* chunk_heads, const u64* long_off, const u64* keys, const u64* prod_off,
                              const u64* c_ptr, const typename ComputeOf<V>::type* chat_val,
                              SPGEMM_OUT_PARAMS(V, I), const typename ComputeOf<V>::type* alpha_dev,
                              typename ComputeOf<V>::type alpha_h) {
    typedef typename ComputeOf<V>::type T;
    SPGEMM_WRITER(V, I);
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    for (u64 c = blockIdx.x; c < chunks; c += gridDim.x) {
        const u32 L = esc_long_row(chunk_off, count, c);
        const u32 i = long_rows[L];
        const u64* row = keys + long_off[L];
        const u64 P = long_off[L + 1] - long_off[L];
        const u64 lo = (c - chunk_off[L]) * ESC_CHUNK, hi = min(lo + ESC_CHUNK, P);
        const T* products = chat_val + esc_values_at(prod_off, i, long_off, L);
        u64 before = 0;
        for (u64 k = chunk_off[L] + threadIdx.x; k < c; k += blockDim.x) before += chunk_heads[k];
        before = block_sum(before);
        const u64 to = c_ptr[i];
        for (u64 t0 = lo; t0 < hi; t0 += blockDim.x) {
            const u64 t = t0 + threadIdx.x;
            const bool head = t < hi && esc_head(row, t);
            u32 total;
            const u32 rank = block_exclusive_scan<u32>(head ? 1u : 0u, total);
            if (head) {
                const u32 col = key_col(row[t]);
                const u64 next = (u64)(col + 1) << 32;
                u64 end = t + 1;
                while (end < P && end < t + 8 && row[end] < next) ++end;
                if (end == t + 8) end += esc_lower_bound(row + end, P - end, next);
                T acc = T(0);
#pragma unroll 8
                for (u64 u = t; u < end; ++u) acc = add_rn(acc, products[(u32)row[u]]);
                w(to + before + rank, col, mul_rn(alpha, acc));
            }
            before += total;
        }
    }
}

// The row kernels share their parameters: the bin's rows and its slots N per row.
#define SPGEMM_ESC_ROWS_ENTRY(kind, fn, V, tv, I, tidx)                                                    \
    extern "C" __global__ void spblk_spgemm_esc_##kind##_##tv##_##tidx(                                    \
        const u32* rows, u32 count, u32 N, const I* a_ptr, const I* a_col, const V* a_val, i64 a_base,     \
        const I* b_ptr, const I* b_col, const V* b_val, i64 b_base, const u64* prod_off, u64* c_cnt,       \
        u32* chat_col, ComputeOf<V>::type* chat_val) {                                                     \
        fn<V, I>(rows, count, N, a_ptr, a_col, a_val, a_base, b_ptr, b_col, b_val, b_base, prod_off,      \
                 c_cnt, chat_col, chat_val);                                                               \
    }

#define SPGEMM_ESC_ENTRY(V, tv, I, tidx)                                                                   \
    SPGEMM_ESC_ROWS_ENTRY(warp, esc_warp_rows, V, tv, I, tidx)                                            \
    SPGEMM_ESC_ROWS_ENTRY(block, esc_block_rows, V, tv, I, tidx)                                          \
    extern "C" __global__ void spblk_spgemm_esc_chunks_##tv##_##tidx(                                      \
        const u32* long_rows, u32 count, u64 chunks, const u64* chunk_off, const i64* chunk_k,             \
        const u32* chunk_q, const u64* long_off, const I* a_ptr, const I* a_col, const V* a_val,           \
        i64 a_base, const I* b_ptr, const I* b_col, const V* b_val, i64 b_base, const u64* prod_off,       \
        ComputeOf<V>::type* chat_val, u64* keys_out) {                                                     \
        esc_chunks<V, I>(long_rows, count, chunks, chunk_off, chunk_k, chunk_q, long_off, a_ptr, a_col,    \
                         a_val, a_base, b_ptr, b_col, b_val, b_base, prod_off, chat_val, keys_out);        \
    }                                                                                                      \
    extern "C" __global__ void spblk_spgemm_esc_copy_short_##tv##_##tidx(                                  \
        i64 m, const u64* prod_off, const u64* c_ptr, const u32* chat_col,                                 \
        const ComputeOf<V>::type* chat_val, SPGEMM_OUT_PARAMS(V, I), const ComputeOf<V>::type* alpha_dev,  \
        ComputeOf<V>::type alpha) {                                                                        \
        esc_copy_short<V, I>(m, prod_off, c_ptr, chat_col, chat_val, SPGEMM_OUT_ARGS, alpha_dev, alpha);   \
    }                                                                                                      \
    extern "C" __global__ void spblk_spgemm_esc_copy_long_##tv##_##tidx(                                   \
        const u32* long_rows, u32 count, u64 chunks, const u64* chunk_off, const u64* chunk_heads,         \
        const u64* long_off, const u64* keys, const u64* prod_off, const u64* c_ptr,                       \
        const ComputeOf<V>::type* chat_val, SPGEMM_OUT_PARAMS(V, I), const ComputeOf<V>::type* alpha_dev,  \
        ComputeOf<V>::type alpha) {                                                                        \
        esc_copy_long<V, I>(long_rows, count, chunks, chunk_off, chunk_heads, long_off, keys, prod_off,    \
                            c_ptr, chat_val, SPGEMM_OUT_ARGS, alpha_dev, alpha);                           \
    }

SPBLK_FOR_VALUES(SPGEMM_ESC_ENTRY, int, i32)
SPBLK_FOR_VALUES(SPGEMM_ESC_ENTRY, long long, i64)

extern "C" __global__ void spblk_spgemm_esc_chunk_starts_i32(const u32* rows, u32 count, const int* a_ptr,
                                                              const int* a_col, i64 a_base, const int* b_ptr,
                                                              const u64* chunk_off, i64* chunk_k, u32* chunk_q) {
    esc_chunk_starts<int>(rows, count, a_ptr, a_col, a_base, b_ptr, chunk_off, chunk_k, chunk_q);
}
extern "C" __global__ void spblk_spgemm_esc_chunk_starts_i64(const u32* rows, u32 count, const long long* a_ptr,
                                                              const long long* a_col, i64 a_base,
                                                              const long long* b_ptr, const u64* chunk_off,
                                                              i64* chunk_k, u32* chunk_q) {
    esc_chunk_starts<long long>(rows, count, a_ptr, a_col, a_base, b_ptr, chunk_off, chunk_k, chunk_q);
}
