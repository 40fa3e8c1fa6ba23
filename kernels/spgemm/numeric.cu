// SpGEMM numeric phase. Every column of C is summed in expansion order (A's row in storage
// order, each B row in storage order), exactly like the host reference: with rounded,
// uncontracted operations the results are equal bit for bit, and deterministic.
//
// Rows of at most 32 products, and of at most 64 with over 32 entries: a warp per row sorts
// them in registers (numeric_short_row).
// Other warp bins: a warp per row takes the row's products 32 at a time in expansion order
// (for_each_product_chunk); lanes holding the same column are grouped with match_any and
// their lowest lane adds the group's products in lane order. The table is then compacted in
// slot order, sorted by column (in registers when at most 32 remain) and written.
// Big rows: a block per row; the block routes each round of products to the warp that owns
// their columns (below), so each column is still summed in expansion order by one warp.
#include "spgemm/spgemm.cuh"

// Adds this chunk's products to the table: lanes with `act` and equal columns form a group
// whose lowest lane (first in expansion order) finds the column's slot (slot_of: insert or
// index) and adds the group's products in lane order.
template <class T, class SlotOf>
__device__ __forceinline__ void accumulate_chunk(bool act, u32 c, T prod, T* vals, SlotOf slot_of) {
    const int lane = threadIdx.x & 31;
    const unsigned amask = __ballot_sync(SPBLK_FULL_MASK, act);
    if (amask == 0) return;
    unsigned peers = 0;
    if (act) peers = __match_any_sync(amask, c);
    const bool leader = act && (__ffs(peers) - 1) == lane;
    u32 slot = 0;
    T acc = T(0);
    if (leader) {
        slot = slot_of(c);
        acc = add_rn(vals[slot], prod);
    }
    unsigned rest = leader ? peers & (peers - 1u) : 0u;
    const unsigned most = __reduce_max_sync(SPBLK_FULL_MASK, leader ? (unsigned)__popc(peers) : 0u);
    for (unsigned t = 1; t < most; ++t) {
        const int src = rest ? __ffs(rest) - 1 : lane;
        const T o = __shfl_sync(SPBLK_FULL_MASK, prod, src);
        if (rest) {
            acc = add_rn(acc, o);
            rest &= rest - 1u;
        }
    }
    if (leader) vals[slot] = acc;
    // The next chunk's leader of a column may be another lane.
    __syncwarp();
}

// slot_of for hash tables.
struct HashSlot {
    u32* keys;
    u32 mask;
    __device__ __forceinline__ u32 operator()(u32 c) const {
        bool ins;
        return hash_insert(keys, mask, c, ins);
    }
};

// Sorts the first `cnt` (key, value) pairs by key: a bitonic sort of the first N >= cnt
// slots (a power of two, at least 64; the padding keys sort last), by `workers` threads of
// which the caller is `me`; `sync` is their barrier. The slots up to N must exist.
template <class T, class Sync>
__device__ __forceinline__ void sort_pairs(u32* keys, T* vals, u32 cnt, u32 me, u32 workers, Sync sync) {
    u32 N = 64;
    while (N < cnt) N <<= 1;
    for (u32 t = cnt + me; t < N; t += workers) keys[t] = SPGEMM_EMPTY;
    sync();
    for (u32 k = 2; k <= N; k <<= 1) {
        for (u32 j = k >> 1; j > 0; j >>= 1) {
            for (u32 t = me; t < N / 2; t += workers) {
                const u32 x = 2 * t - (t & (j - 1)), y = x + j;
                const u32 ka = keys[x], kb = keys[y];
                if ((ka > kb) == ((x & k) == 0)) {
                    keys[x] = kb;
                    keys[y] = ka;
                    const T va = vals[x];
                    vals[x] = vals[y];
                    vals[y] = va;
                }
            }
            sync();
        }
    }
}

// A radix pass's item t of the pairs [0, cnt): its key, value and digit at `shift` above lo,
// and the lanes of its warp holding the same digit (none when t >= cnt).
template <class T> struct RadixItem {
    bool valid;
    u32 key, digit;
    T val;
    unsigned peers;
    __device__ __forceinline__ RadixItem(const u32* keys, const T* vals, u32 t, u32 cnt, u32 lo, u32 shift) {
        valid = t < cnt;
        key = valid ? keys[t] : 0u;
        val = valid ? vals[t] : T(0);
        digit = ((key - lo) >> shift) & 31u;
        const unsigned vmask = __ballot_sync(SPBLK_FULL_MASK, valid);
        peers = valid ? __match_any_sync(vmask, digit) : 0u;
    }
    // Whether this lane is the first of its digit's lanes (`lower`: the lanes below it).
    __device__ __forceinline__ bool first(unsigned lower) const { return valid && (peers & lower) == 0; }
};

// The two halves a radix sort moves its pairs between: [0, cnt) and [cnt, 2 cnt).
template <class T> struct RadixHalves {
    u32 *src_k, *dst_k;
    T *src_v, *dst_v;
    __device__ __forceinline__ RadixHalves(u32* keys, T* vals, u32 cnt)
        : src_k(keys), dst_k(keys + cnt), src_v(vals), dst_v(vals + cnt) {}
    __device__ __forceinline__ void put(u32 at, u32 key, T val) {
        dst_k[at] = key;
        dst_v[at] = val;
    }
    __device__ __forceinline__ void swap() {
        u32* tk = src_k;
        src_k = dst_k;
        dst_k = tk;
        T* tv = src_v;
        src_v = dst_v;
        dst_v = tv;
    }
};

// Words of `scratch` that radix_sort_pairs needs: the digit counts of every pass, and a tile's
// per-warp counts.
#define RADIX_SCRATCH_WORDS ((7 + SPGEMM_BIG_WARPS) * 32)

// Sorts the first `cnt` (key, value) pairs by key -- distinct keys in [lo, lo + 2^bits) --
// block-wide, by least-significant-digit radix passes of 5 bits, each a stable scatter between
// [0, cnt) and the spare slots [cnt, 2 cnt) (which must exist). Returns whether the result
// ended in the spare slots. A bitonic sort of a big row's 4096-slot table cost ~125 000 warp
// instructions (R-MAT s18); these passes cost ~9 000 each, and a span of 2^18 takes four.
// `scratch`: RADIX_SCRATCH_WORDS words of shared memory.
template <class T>
__device__ bool radix_sort_pairs(u32* keys, T* vals, u32 cnt, u32 lo, u32 bits, u32* scratch) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned lower = (1u << lane) - 1u;
    const u32 passes = (bits + 4) / 5;
    u32* hist = scratch;               // [pass][digit]: then where the digit starts
    u32* tile = scratch + 7 * 32;      // [warp][digit]: then where the warp's digit starts
    for (u32 t = threadIdx.x; t < 7 * 32; t += blockDim.x) hist[t] = 0;
    __syncthreads();
    // Every pass's digit counts in one read.
    for (u32 t0 = 0; t0 < cnt; t0 += blockDim.x) {
        const bool valid = t0 + threadIdx.x < cnt;
        const u32 x = valid ? keys[t0 + threadIdx.x] - lo : 0u;
        const unsigned vmask = __ballot_sync(SPBLK_FULL_MASK, valid);
        for (u32 p = 0; p < passes; ++p) {
            const u32 d = (x >> (5 * p)) & 31u;
            const unsigned peers = valid ? __match_any_sync(vmask, d) : 0u;
            if (valid && (peers & lower) == 0) atomicAdd(&hist[p * 32 + d], (u32)__popc(peers));
        }
    }
    __syncthreads();
    if ((u32)warp < passes) {
        const u32 v = hist[warp * 32 + lane];
        hist[warp * 32 + lane] = warp_inclusive_scan(v) - v;
    }
    __syncthreads();
    RadixHalves<T> h(keys, vals, cnt);
    for (u32 p = 0; p < passes; ++p) {
        for (u32 t0 = 0; t0 < cnt; t0 += blockDim.x) {
            const RadixItem<T> it(h.src_k, h.src_v, t0 + threadIdx.x, cnt, lo, 5 * p);
            tile[warp * 32 + lane] = 0;
            __syncwarp();
            if (it.first(lower)) tile[warp * 32 + it.digit] = (u32)__popc(it.peers);
            __syncthreads();
            // Lane d of warp 0: digit d's place for each warp's items of this tile, in order.
            if (warp == 0) {
                u32 at = hist[p * 32 + lane];
                for (int w = 0; w < SPGEMM_BIG_WARPS; ++w) {
                    const u32 c = tile[w * 32 + lane];
                    tile[w * 32 + lane] = at;
                    at += c;
                }
                hist[p * 32 + lane] = at;
            }
            __syncthreads();
            if (it.valid) h.put(tile[warp * 32 + it.digit] + (u32)__popc(it.peers & lower), it.key, it.val);
            __syncthreads();
        }
        h.swap();
    }
    return (passes & 1u) != 0;
}

// radix_sort_pairs for one warp: `counts` is 32 words of shared memory.
template <class T>
__device__ bool warp_radix_sort_pairs(u32* keys, T* vals, u32 cnt, u32 lo, u32 bits, u32* counts) {
    const int lane = threadIdx.x & 31;
    const unsigned lower = (1u << lane) - 1u;
    const u32 passes = (bits + 4) / 5;
    RadixHalves<T> h(keys, vals, cnt);
    for (u32 p = 0; p < passes; ++p) {
        // The first lane of each digit's lanes adds their count (counts[d]); `at`: lane d's place.
        counts[lane] = 0;
        __syncwarp();
        for (u32 t0 = 0; t0 < cnt; t0 += 32) {
            const bool valid = t0 + lane < cnt;
            const u32 d = valid ? ((h.src_k[t0 + lane] - lo) >> (5 * p)) & 31u : 0u;
            const unsigned vmask = __ballot_sync(SPBLK_FULL_MASK, valid);
            const unsigned peers = valid ? __match_any_sync(vmask, d) : 0u;
            if (valid && (peers & lower) == 0) counts[d] += (u32)__popc(peers);
            __syncwarp();
        }
        const u32 c = counts[lane];
        u32 at = warp_inclusive_scan(c) - c;
        __syncwarp();
        counts[lane] = 0;
        __syncwarp();
        for (u32 t0 = 0; t0 < cnt; t0 += 32) {
            const RadixItem<T> it(h.src_k, h.src_v, t0 + lane, cnt, lo, 5 * p);
            const u32 place = __shfl_sync(SPBLK_FULL_MASK, at, it.digit) + (u32)__popc(it.peers & lower);
            if (it.valid) h.put(place, it.key, it.val);
            if (it.first(lower)) counts[it.digit] = (u32)__popc(it.peers);
            __syncwarp();
            at += counts[lane];
            counts[lane] = 0;
            __syncwarp();
        }
        h.swap();
    }
    return (passes & 1u) != 0;
}

template <int K, class V, class I, class W, class T>
__device__ __forceinline__ void numeric_short_row(u32 i, u64 base, const I* a_ptr, const I* a_col, const V* a_val,
                                                  i64 a_base, const I* b_ptr, const I* b_col, const V* b_val,
                                                  i64 b_base, const W& w, T alpha);

template <bool SHORT2, class V, class I>
__device__ void spgemm_numeric_warp(const u32* rows, u32 count, u32 table, const I* a_ptr, const I* a_col,
                                    const V* a_val, i64 a_base, const I* b_ptr, const I* b_col, const V* b_val,
                                    i64 b_base, const u64* c_ptr, SPGEMM_OUT_PARAMS(V, I),
                                    const typename ComputeOf<V>::type* alpha_dev,
                                    typename ComputeOf<V>::type alpha_h) {
    typedef typename ComputeOf<V>::type T;
    extern __shared__ __align__(16) unsigned char numeric_smem[];
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    SPGEMM_WRITER(V, I);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wpb = blockDim.x >> 5;
    const unsigned lower = (1u << lane) - 1u;
    T* vals = reinterpret_cast<T*>(numeric_smem) + (u64)warp * table;
    u32* keys = reinterpret_cast<u32*>(numeric_smem + (u64)wpb * table * sizeof(T)) + (u64)warp * table;
    for (u64 r = (u64)blockIdx.x * wpb + warp; r < count; r += (u64)gridDim.x * wpb) {
        const u32 i = rows[r];
        // SHORT2 (bin 3, rows of at most 64 products): those of over 32 entries sort two products a
        // lane in registers: their table would be sorted in shared memory (uniform deg 8: 3.19 ->
        // 2.22 ms); with fewer entries the table's own register sort of 32 is cheaper (Poisson 3-D,
        // 25 entries of 49 products: 3.51 -> 4.05 ms had they all taken it).
        if (SHORT2 && c_ptr[i + 1] - c_ptr[i] > 32) {
            numeric_short_row<2>(i, c_ptr[i], a_ptr, a_col, a_val, a_base, b_ptr, b_col, b_val, b_base, w, alpha);
            continue;
        }
        for (u32 t = lane; t < table; t += 32) {
            keys[t] = SPGEMM_EMPTY;
            vals[t] = 0;
        }
        __syncwarp();
        for_each_product_chunk((i64)a_ptr[i] - a_base, (i64)a_ptr[i + 1] - a_base, a_col, a_base, b_ptr, b_col,
                               b_base, [&](bool valid, u32 c, i64 p, i64 q) {
                                   T prod = T(0);
                                   if (valid) prod = mul_rn(to_compute(a_val[p]), to_compute(b_val[q]));
                                   accumulate_chunk(valid, c, prod, vals, HashSlot{keys, table - 1});
                               });
        __syncwarp();
        // Compact the occupied slots to the front, in slot order (each chunk is read before
        // any lane writes, and writes land at or before the chunk).
        u32 cnt = 0, cmin = SPGEMM_EMPTY, cmax = 0;
        for (u32 t0 = 0; t0 < table; t0 += 32) {
            const u32 key = keys[t0 + lane];
            const T v = vals[t0 + lane];
            const bool occ = key != SPGEMM_EMPTY;
            if (occ) {
                cmin = key < cmin ? key : cmin;
                cmax = key > cmax ? key : cmax;
            }
            const unsigned bal = __ballot_sync(SPBLK_FULL_MASK, occ);
            __syncwarp();
            if (occ) {
                keys[cnt + __popc(bal & lower)] = key;
                vals[cnt + __popc(bal & lower)] = v;
            }
            cnt += __popc(bal);
            __syncwarp();
        }
        const u64 base = c_ptr[i];
        if (cnt <= 32) {
            u32 key = lane < cnt ? keys[lane] : SPGEMM_EMPTY;
            T v = lane < cnt ? vals[lane] : T(0);
            warp_sort32(key, v);
            if (lane < cnt) w(base + lane, key, mul_rn(alpha, v));
            __syncwarp();
            continue;
        }
        // By radix passes over the row's columns when 32 words are spare past twice the entries
        // (a ninth of the cost of the bitonic sort for 512 entries), else bitonic.
        u32 moved = 0;
        if (2 * cnt + 32 <= table) {
            cmin = __reduce_min_sync(SPBLK_FULL_MASK, cmin);
            cmax = __reduce_max_sync(SPBLK_FULL_MASK, cmax);
            const u32 bits = 32 - __clz(cmax - cmin);
            moved = warp_radix_sort_pairs(keys, vals, cnt, cmin, bits > 0 ? bits : 1, keys + 2 * cnt) ? cnt : 0;
        } else {
            sort_pairs(keys, vals, cnt, lane, 32, [] { __syncwarp(); });
        }
        for (u32 t = lane; t < cnt; t += 32) w(base + t, keys[moved + t], mul_rn(alpha, vals[moved + t]));
        __syncwarp();
    }
}

// Rows of at most 32 K products (K = 1: warp bins 1 and 2; K = 2: bin 3), without a table: the
// warp gathers the row's products in expansion order, K a lane (gather_short_row), sorts them
// in registers by (column, position), and each column's first place sums its run in order and
// writes the entry at its rank among the runs. The sums and their order are the tables' (Poisson
// 2-D, 25 products a row: no table to clear, fill and compact). The keys are 32-bit when the
// row's columns span under 2^27 / K (half the shuffles), else 64-bit.
template <int K, class Key, class T>
__device__ __forceinline__ void short_row_heads(const u32 (&col)[K], T (&v)[K], u32 have, u32 lo, u32 (&c)[K],
                                                bool (&head)[K]) {
    const int lane = threadIdx.x & 31;
    constexpr int SHIFT = K == 1 ? 5 : 6;
    const Key none = ~Key(0);
    Key key[K];
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const u32 e = (u32)(k * 32 + lane);
        key[k] = e < have ? (Key)(col[k] - lo) << SHIFT | e : none;
    }
    warp_sort_regs<K>(key, v);
#pragma unroll
    for (int k = 0; k < K; ++k) {
        const u32 e = (u32)(k * 32 + lane);
        c[k] = (u32)(key[k] >> SHIFT) + lo;
        // The element before e: lane - 1 of this register, or lane 31 of the one before.
        Key prev = __shfl_up_sync(SPBLK_FULL_MASK, key[k], 1);
        if (k > 0) {
            const Key last = __shfl_sync(SPBLK_FULL_MASK, key[k > 0 ? k - 1 : 0], 31);
            if (lane == 0) prev = last;
        }
        head[k] = e < have && (e == 0 || (prev >> SHIFT) != (key[k] >> SHIFT));
    }
}

// Row i of at most 32 K products, its entries written from C's offset `base` (one warp).
template <int K, class V, class I, class W, class T>
__device__ __forceinline__ void numeric_short_row(u32 i, u64 base, const I* a_ptr, const I* a_col, const V* a_val,
                                                  i64 a_base, const I* b_ptr, const I* b_col, const V* b_val,
                                                  i64 b_base, const W& w, T alpha) {
    const int lane = threadIdx.x & 31;
    const unsigned lower = (1u << lane) - 1u;
    {
        u32 col[K];
        T v[K];
        const u32 have = gather_short_row<K, true>((i64)a_ptr[i] - a_base, (i64)a_ptr[i + 1] - a_base, a_col,
                                                   a_val, a_base, b_ptr, b_col, b_val, b_base, col, v);
        u32 lo = SPGEMM_EMPTY, hi = 0;
#pragma unroll
        for (int k = 0; k < K; ++k)
            if ((u32)(k * 32 + lane) < have) {
                lo = min(lo, col[k]);
                hi = max(hi, col[k]);
            }
        lo = __reduce_min_sync(SPBLK_FULL_MASK, lo);
        hi = __reduce_max_sync(SPBLK_FULL_MASK, hi);
        u32 c[K];
        bool head[K];
        if (hi - lo < (1u << 27) / K)
            short_row_heads<K, u32>(col, v, have, lo, c, head);
        else
            short_row_heads<K, u64>(col, v, have, lo, c, head);
        unsigned heads[K];
#pragma unroll
        for (int k = 0; k < K; ++k) heads[k] = __ballot_sync(SPBLK_FULL_MASK, head[k]);
        // Each head's run ends at the next head, or after the last product.
        u32 len[K], rank[K], most = 0, before = 0;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            u32 end = have;
#pragma unroll
            for (int kk = K - 1; kk >= k; --kk) {
                const unsigned later = kk == k ? heads[kk] & ~((2u << lane) - 1u) : heads[kk];
                if (later) end = (u32)(kk * 32 + __ffs(later) - 1);
            }
            len[k] = head[k] ? end - (u32)(k * 32 + lane) : 0u;
            most = max(most, len[k]);
            rank[k] = before + __popc(heads[k] & lower);
            before += __popc(heads[k]);
        }
        most = __reduce_max_sync(SPBLK_FULL_MASK, most);
        T acc[K];
#pragma unroll
        for (int k = 0; k < K; ++k) acc[k] = T(0);
        for (u32 t = 0; t < most; ++t) {
            const u32 src = ((u32)lane + t) & 31u;
            T w_[K];
#pragma unroll
            for (int k = 0; k < K; ++k) w_[k] = __shfl_sync(SPBLK_FULL_MASK, v[k], src);
#pragma unroll
            for (int k = 0; k < K; ++k) {
                const u32 at = (u32)(k * 32 + lane) + t;  // the place added, register at / 32
                T o = w_[0];
#pragma unroll
                for (int kk = 1; kk < K; ++kk)
                    if ((at >> 5) == (u32)kk) o = w_[kk];
                if (t < len[k]) acc[k] = add_rn(acc[k], o);
            }
        }
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (head[k]) w(base + rank[k], c[k], mul_rn(alpha, acc[k]));
    }
}

// Rows of at most 32 products (warp bins 1 and 2).
template <class V, class I>
__device__ void spgemm_numeric_short(const u32* rows, u32 count, const I* a_ptr, const I* a_col, const V* a_val,
                                     i64 a_base, const I* b_ptr, const I* b_col, const V* b_val, i64 b_base,
                                     const u64* c_ptr, SPGEMM_OUT_PARAMS(V, I),
                                     const typename ComputeOf<V>::type* alpha_dev,
                                     typename ComputeOf<V>::type alpha_h) {
    typedef typename ComputeOf<V>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    SPGEMM_WRITER(V, I);
    const int warp = threadIdx.x >> 5, wpb = blockDim.x >> 5;
    for (u64 r = (u64)blockIdx.x * wpb + warp; r < count; r += (u64)gridDim.x * wpb) {
        const u32 i = rows[r];
        numeric_short_row<1>(i, c_ptr[i], a_ptr, a_col, a_val, a_base, b_ptr, b_col, b_val, b_base, w, alpha);
    }
}

// Big rows: a block per row. Each round, the block's warps take 256 consecutive products in
// expansion order (warp w the w-th 32) and route them through shared memory to the warp that
// owns their column (column_owner), keeping their order; each warp then adds its products,
// in order, to the row's table. So every column is summed in expansion order by one warp,
// and every product is loaded once. Tables (big_numeric_kind):
//   dense: values by column and a bitmap over windows of the row's column span, each
//          written in column order;
//   hash (shared or global): S = global_table_size(nnz) slots, compacted in slot order; in
//          shared memory it is sorted there (radix_sort_pairs); from the global pool (rows too big for both) it
//          goes unsorted to a scratch, which one global sort of those rows' entries (by
//          column, then by the row's rank) puts in order before placing them in C.
// Rows marked SPGEMM_ESC_ROW (big_numeric_esc) take ESC's long-row path instead (esc.cu).
#define BIG_ROUND (32 * SPGEMM_BIG_WARPS)

template <class T> struct BigRoute {
    u32 col[BIG_ROUND];
    T val[BIG_ROUND];
    u32 count[SPGEMM_BIG_WARPS][SPGEMM_BIG_WARPS];  // [chunk (warp)][owner]
};
static_assert(sizeof(BigRoute<float>) >= RADIX_SCRATCH_WORDS * 4, "radix_sort_pairs' scratch in BigRoute");

// Routes this lane's product (owner `ow`, or none when !valid) to its owner's segment of
// `rt`; after the barrier inside, [seg_lo, seg_hi) is the calling warp's segment.
template <class T>
__device__ __forceinline__ void route_products(BigRoute<T>& rt, bool valid, u32 c, T prod, u32& seg_lo, u32& seg_hi) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int ow = valid ? column_owner(c) : -1;
    u32 rank = 0;
#pragma unroll
    for (int o = 0; o < SPGEMM_BIG_WARPS; ++o) {
        const unsigned bal = __ballot_sync(SPBLK_FULL_MASK, ow == o);
        if (ow == o) rank = __popc(bal & ((1u << lane) - 1u));
        if (lane == o) rt.count[warp][o] = __popc(bal);
    }
    __syncthreads();
    // Lane o (< 8): o's total over all chunks and over the chunks before this warp's.
    u32 total = 0, before = 0;
    if (lane < SPGEMM_BIG_WARPS)
        for (int w = 0; w < SPGEMM_BIG_WARPS; ++w) {
            const u32 k = rt.count[w][lane];
            total += k;
            if (w < warp) before += k;
        }
    const u32 incl = warp_inclusive_scan(total);  // lanes >= 8 add 0
    const u32 start = incl - total;
    const u32 off = __shfl_sync(SPBLK_FULL_MASK, start + before, ow < 0 ? 0 : ow);
    seg_lo = __shfl_sync(SPBLK_FULL_MASK, start, warp);
    seg_hi = __shfl_sync(SPBLK_FULL_MASK, incl, warp);
    if (valid) {
        rt.col[off + rank] = c;
        rt.val[off + rank] = prod;
    }
    __syncthreads();
}

// A warp's 32 entries of A's row from w0 (the row ends at e): lane l holds entry w0 + l's
// value and B row [bs, bs + len) -- narrowed to the columns in [first, past) when first < past
// and the row has at least SPGEMM_SEARCH_MIN entries (B's rows sorted) -- and the scan of the
// lengths; product j of the chunk's `total` is found by locate(j).
template <class T> struct EntryChunk {
    i64 bs = 0;
    u32 excl, total;
    T av = T(0);
    template <class V, class I>
    __device__ __forceinline__ EntryChunk(i64 w0, i64 e, const I* a_col, const V* a_val, i64 a_base,
                                          const I* b_ptr, const I* b_col, i64 b_base, u64 first, u64 past) {
        const i64 p = w0 + (threadIdx.x & 31);
        u32 len = 0;
        if (p < e) {
            const i64 k = (i64)a_col[p] - a_base;
            bs = (i64)b_ptr[k] - b_base;
            len = (u32)((i64)b_ptr[k + 1] - b_base - bs);
            av = to_compute(a_val[p]);
            if (first < past && len >= SPGEMM_SEARCH_MIN) {
                const u32 lo = lower_bound_col(b_col + bs, len, (i64)first + b_base);
                len = lower_bound_col(b_col + bs + lo, len - lo, (i64)past + b_base);
                bs += lo;
            }
        }
        const u32 incl = warp_inclusive_scan(len);
        excl = incl - len;
        total = __shfl_sync(SPBLK_FULL_MASK, incl, 31);
    }
    // Product j of the chunk: its place q in B's arrays and A's value a.
    __device__ __forceinline__ void locate(u32 j, i64& q, T& a) const {
        int o = 0;
#pragma unroll
        for (int step = 16; step > 0; step >>= 1) {
            const u32 ex = __shfl_sync(SPBLK_FULL_MASK, excl, o + step);
            if (ex <= j) o += step;
        }
        q = __shfl_sync(SPBLK_FULL_MASK, bs, o) + (i64)(j - __shfl_sync(SPBLK_FULL_MASK, excl, o));
        a = __shfl_sync(SPBLK_FULL_MASK, av, o);
    }
};

// One walk over the products of A's row [s, e) by the whole block, BIG_ROUND at a time:
// products with keep(col) are routed to their owner warp, which passes each 32 of them, in
// expansion order, to consume(act, col, product). Every warp must call it.
// With first < past (B's rows sorted; keep() then holds only for columns in [first, past)),
// B's rows of at least SPGEMM_SEARCH_MIN entries are searched for that range and only it is
// loaded: a row of 16 dense windows no longer loads each such product 16 times.
template <class V, class I, class T, class Keep, class Consume>
__device__ __forceinline__ void walk_routed(BigRoute<T>& rt, i64 s, i64 e, const I* a_col, const V* a_val, i64 a_base,
                                            const I* b_ptr, const I* b_col, const V* b_val, i64 b_base, u64 first,
                                            u64 past, Keep keep, Consume consume) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (i64 w0 = s; w0 < e; w0 += 32) {
        // Every warp loads the same window of A entries and scans its B-row lengths.
        const EntryChunk<T> chunk(w0, e, a_col, a_val, a_base, b_ptr, b_col, b_base, first, past);
        const u32 total = chunk.total;
        // The next round's loads are issued before this round is routed and added, so that
        // their latency overlaps that work.
        bool next_valid = false;
        I next_col = 0;
        V next_val{};
        T next_a = T(0);
        auto fetch = [&](u32 r0) {
            const u32 j = r0 + 32 * warp + lane;
            i64 q;
            chunk.locate(j, q, next_a);
            next_valid = j < total;
            if (next_valid) {
                next_col = b_col[q];
                next_val = b_val[q];
            }
        };
        if (total > 0) fetch(0);
        for (u32 r0 = 0; r0 < total; r0 += BIG_ROUND) {
            bool valid = next_valid;
            const u32 c = valid ? (u32)((i64)next_col - b_base) : SPGEMM_EMPTY;
            if (valid) valid = keep(c);
            const T prod = valid ? mul_rn(next_a, to_compute(next_val)) : T(0);
            if (r0 + BIG_ROUND < total) fetch(r0 + BIG_ROUND);
            u32 seg_lo, seg_hi;
            route_products(rt, valid, c, prod, seg_lo, seg_hi);
            for (u32 t0 = seg_lo; t0 < seg_hi; t0 += 32) {
                const bool act = t0 + lane < seg_hi;
                consume(act, act ? rt.col[t0 + lane] : 0u, act ? rt.val[t0 + lane] : T(0));
            }
            __syncthreads();
        }
    }
}

// A dense window's walk by column parts, for rows with span_cheap_walk (B's rows sorted, few
// products in rows too short to search): the calling warp owns the window's columns [lo, past)
// (its eighth: whole bitmap words), walks every product of A's row [s, e) itself in expansion
// order, 32 at a time -- B's rows of at least SPGEMM_SEARCH_MIN entries searched for its
// columns, shorter ones loaded whole and filtered -- and adds its own to the window (column c
// at c - wlo of vals and bits). No routing and no barrier; each column is still summed in
// expansion order by one warp, as walk_routed does, so the bits are the same.
template <class V, class I, class T>
__device__ __forceinline__ void walk_window_part(i64 s, i64 e, const I* a_col, const V* a_val, i64 a_base,
                                                 const I* b_ptr, const I* b_col, const V* b_val, i64 b_base,
                                                 u64 wlo, u64 lo, u64 past, T* vals, u32* bits) {
    const int lane = threadIdx.x & 31;
    for (i64 w0 = s; w0 < e; w0 += 32) {
        const EntryChunk<T> chunk(w0, e, a_col, a_val, a_base, b_ptr, b_col, b_base, lo, past);
        const u32 total = chunk.total;
        // The next 32 products are loaded before this 32 are added, so that their latency
        // overlaps that work.
        i64 q = 0;
        T a = T(0);
        I col = 0;
        V val{};
        if (total > 0) {
            chunk.locate(lane, q, a);
            if ((u32)lane < total) {
                col = b_col[q];
                val = b_val[q];
            }
        }
        for (u32 r0 = 0; r0 < total; r0 += 32) {
            const bool valid = r0 + lane < total;
            const u32 c = (u32)((i64)col - b_base);
            const bool act = valid && c >= lo && c < past;
            const T prod = act ? mul_rn(a, to_compute(val)) : T(0);
            if (r0 + 32 < total) {
                chunk.locate(r0 + 32 + lane, q, a);
                if (r0 + 32 + lane < total) {
                    col = b_col[q];
                    val = b_val[q];
                }
            }
            const u32 x = c - (u32)wlo;
            if (act) atomicOr(&bits[x >> 5], 1u << (x & 31));
            accumulate_chunk(act, c, prod, vals, [&](u32 cc) { return cc - (u32)wlo; });
        }
    }
}

// The big rows of kind `kind` whose table size (dense: the window, min(spanp, dense_max);
// hash: S) is in (lo, hi]. span[r]: the row's smallest and largest column (symbolic phase).
// Kinds 0 and 1 write C (out_*). Kind 2 takes the rows whose segment starts in [seg_lo,
// seg_hi) (all, or one of ALG3's passes) and writes into the scratch, shifted by seg_lo: at
// the row's segment, columns to c_col, alpha times the sums to c_val and the row's rank k to
// entry_k (the global sort's keys); its table is at num_off[r] - 4 seg_lo in the pool.
// With win_start (kind 0, the class of dense_max-wide windows), a block takes one window of
// a row: items first every row's first window, then windows 1.. of the `multi` rows of
// several windows (multi_rows: their positions r) -- and writes it after the row's entries
// before it, which the symbolic phase counted (win_start[(r - win_first) * SPGEMM_WINDOWS +
// w]: such rows are bin-9 rows, listed from win_first on): a row's windows run in parallel.
template <class V, class I>
__device__ void spgemm_numeric_big(const u32* rows, u32 count, int kind, u64 lo, u64 hi, u64 dense_max,
                                   u32 b_sorted, const u32* win_start, u32 win_first, const u32* multi_rows,
                                   u32 multi, u64 seg_lo, u64 seg_hi, const u64* span, const u64* seg_info,
                                   u32* entry_k, const u64* num_off, u32* pool_keys,
                                   typename ComputeOf<V>::type* pool_vals, const I* a_ptr, const I* a_col,
                                   const V* a_val, i64 a_base, const I* b_ptr, const I* b_col, const V* b_val,
                                   i64 b_base, const u64* c_ptr, u32* c_col, typename ComputeOf<V>::type* c_val,
                                   SPGEMM_OUT_PARAMS(V, I), const typename ComputeOf<V>::type* alpha_dev,
                                   typename ComputeOf<V>::type alpha_h) {
    typedef typename ComputeOf<V>::type T;
    extern __shared__ __align__(16) unsigned char numeric_smem[];
    BigRoute<T>& rt = *reinterpret_cast<BigRoute<T>*>(numeric_smem);
    unsigned char* table = numeric_smem + ((sizeof(BigRoute<T>) + 15) & ~(size_t)15);
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    SPGEMM_WRITER(V, I);
    const u64 items = count + (win_start != nullptr ? (u64)multi * (SPGEMM_WINDOWS - 1) : 0);
    for (u64 item = blockIdx.x; item < items; item += gridDim.x) {
        u64 r = item;
        u32 window = 0;
        if (item >= count) {
            const u64 j = item - count;
            r = multi_rows[j % multi];
            window = 1 + (u32)(j / multi);
        }
        const u32 cmin = span_lo(span[r]), cmax = span_hi(span[r]);
        // No such window (the row has fewer).
        if (window > 0 && (u64)cmin + (u64)window * dense_max > cmax) continue;
        if (seg_info[r] == SPGEMM_ESC_ROW) continue;  // ESC's long-row path (`copy`)
        const u32 i = rows[r];
        const u64 nnz = c_ptr[i + 1] - c_ptr[i];
        const u64 spanp = span_pow2(span[r]);
        const u64 S = global_table_size(nnz);
        if (big_numeric_kind(spanp, S, dense_max, span_cheap_walk(span[r])) != kind) continue;
        const u64 size = kind == 0 ? (spanp < dense_max ? spanp : dense_max) : S;
        if (size <= lo || size > hi) continue;
        const u64 seg = kind == 2 ? seg_info[r] & SPGEMM_SEG_MASK : 0;
        if (kind == 2 && (seg < seg_lo || seg >= seg_hi)) continue;
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        const u64 out = kind == 2 ? seg - seg_lo : c_ptr[i];
        const u64 toff = kind == 2 ? num_off[r] - 4 * seg_lo : 0;
        T* vals = kind == 2 ? pool_vals + toff : reinterpret_cast<T*>(table);
        u32* keys = kind == 2 ? pool_keys + toff : reinterpret_cast<u32*>(table + size * sizeof(T));
        if (kind == 0) {
            // Dense windows of `size` columns from cmin; each written in column order. Split:
            // this item's window only.
            u64 written = 0, first = cmin, last = cmax;
            if (win_start != nullptr && seg_info[r] == SPGEMM_SPLIT_ROW) {
                first += (u64)window * size;
                if (first > cmax) continue;
                last = first;
                if (window > 0) written = win_start[(r - win_first) * SPGEMM_WINDOWS + window];
            }
            for (u64 wlo = first; wlo <= last; wlo += size) {
                for (u64 t = threadIdx.x; t < size; t += blockDim.x) vals[t] = T(0);
                for (u64 t = threadIdx.x; t < size / 32; t += blockDim.x) keys[t] = 0u;
                __syncthreads();
                if (span_cheap_walk(span[r])) {
                    const u64 part = size / SPGEMM_BIG_WARPS, lo = wlo + (threadIdx.x >> 5) * part;
                    walk_window_part(s, e, a_col, a_val, a_base, b_ptr, b_col, b_val, b_base, wlo, lo, lo + part,
                                     vals, keys);
                    __syncthreads();
                } else {
                    // Several windows: B's long rows searched for this one's columns.
                    const u64 past = b_sorted && spanp > size ? wlo + size : 0;
                    walk_routed(rt, s, e, a_col, a_val, a_base, b_ptr, b_col, b_val, b_base, wlo, past,
                                [&](u32 c) { return c >= wlo && c - wlo < size; },
                                [&](bool act, u32 c, T prod) {
                                    const u32 x = (u32)(c - wlo);
                                    if (act) atomicOr(&keys[x >> 5], 1u << (x & 31));
                                    accumulate_chunk(act, c, prod, vals,
                                                     [&](u32 cc) { return (u32)(cc - wlo); });
                                });
                }
                for (u64 t0 = 0; t0 < size / 32; t0 += blockDim.x) {
                    const u64 t = t0 + threadIdx.x;
                    u32 word = t < size / 32 ? keys[t] : 0u;
                    u32 tot;
                    u32 pos = block_exclusive_scan((u32)__popc(word), tot);
                    while (word) {
                        const u32 x = (u32)t * 32 + (__ffs(word) - 1);
                        word &= word - 1u;
                        w(out + written + pos, (u32)(wlo + x), mul_rn(alpha, vals[x]));
                        ++pos;
                    }
                    written += tot;
                }
                __syncthreads();
            }
            continue;
        }
        for (u64 t = threadIdx.x; t < S; t += blockDim.x) {
            vals[t] = T(0);
            keys[t] = SPGEMM_EMPTY;
        }
        __syncthreads();
        walk_routed(rt, s, e, a_col, a_val, a_base, b_ptr, b_col, b_val, b_base, 0, 0, [](u32) { return true; },
                    [&](bool act, u32 c, T prod) { accumulate_chunk(act, c, prod, vals, HashSlot{keys, (u32)(S - 1)}); });
        // Compact in slot order, a tile of blockDim slots at a time (every thread reads its
        // slot before the scan's barrier; writes land at or before the tile).
        u64 cnt = 0;
        for (u64 t0 = 0; t0 < S; t0 += blockDim.x) {
            const u64 t = t0 + threadIdx.x;
            const u32 key = t < S ? keys[t] : SPGEMM_EMPTY;
            const T v = t < S ? vals[t] : T(0);
            u32 tot;
            const u32 pos = block_exclusive_scan((u32)(key != SPGEMM_EMPTY), tot);
            if (key != SPGEMM_EMPTY) {
                if (kind == 1) {
                    keys[cnt + pos] = key;
                    vals[cnt + pos] = v;
                } else {
                    c_col[out + cnt + pos] = key;
                    c_val[out + cnt + pos] = mul_rn(alpha, v);
                    entry_k[out + cnt + pos] = (u32)(seg_info[r] >> SPGEMM_SEG_BITS);
                }
            }
            cnt += tot;
        }
        if (kind == 2) continue;
        // By column: the routing buffers are free by now.
        const u32 bits = 32 - __clz(cmax - cmin);
        const u32 moved = radix_sort_pairs(keys, vals, (u32)cnt, cmin, bits > 0 ? bits : 1,
                                           reinterpret_cast<u32*>(&rt)) ? (u32)cnt : 0u;
        for (u64 t = threadIdx.x; t < cnt; t += blockDim.x)
            w(out + t, keys[moved + t], mul_rn(alpha, vals[moved + t]));
        __syncthreads();
    }
}

// The global sort of kind-2 rows (entries in the scratch, in segments): after a stable sort
// by column, keys[q] = the rank k of entry perm[q]'s row, for a stable sort by k.
extern "C" __global__ void spblk_spgemm_gather_keys(const u32* perm, u64 n, const u32* entry_k, u32* keys) {
    GRID_STRIDE(q, n) keys[q] = entry_k[perm[q]];
}

// After the sort by rank: where each rank's run starts.
extern "C" __global__ void spblk_spgemm_k2_starts(const u32* sorted_k, u64 n, u64* start) {
    GRID_STRIDE(q, n) {
        const u32 k = sorted_k[q];
        if (q == 0 || sorted_k[q - 1] != k) start[k] = q;
    }
}

// Moves sorted entry q (scratch entry perm[q], of row rank sorted_k[q]) to its place in C.
template <class V, class I>
__device__ void spgemm_place(const u32* perm, u64 n, const u32* sorted_k, const u32* col_in,
                             const typename ComputeOf<V>::type* val_in, const u32* k2_row, const u64* k2_start,
                             const u64* c_ptr, SPGEMM_OUT_PARAMS(V, I)) {
    SPGEMM_WRITER(V, I);
    GRID_STRIDE(q, n) {
        const u32 k = sorted_k[q];
        const u32 src = perm[q];
        w(c_ptr[k2_row[k]] + (q - k2_start[k]), col_in[src], val_in[src]);
    }
}

// C's row offsets in its index type and base.
template <class I> __device__ void spgemm_offsets(i64 m, const u64* c_ptr, i64 base, I* out_ptr) {
    GRID_STRIDE(t, (u64)m + 1) out_ptr[t] = (I)((i64)c_ptr[t] + base);
}

// The warp bins' table kernels: `name` spgemm_numeric_warp<SHORT2>.
#define SPGEMM_NUMERIC_WARP_ENTRY(name, SHORT2, V, tv, I, tidx)                                            \
    extern "C" __global__ void spblk_spgemm_##name##_##tv##_##tidx(                                        \
        const u32* rows, u32 count, u32 table, const I* a_ptr, const I* a_col, const V* a_val, i64 a_base, \
        const I* b_ptr, const I* b_col, const V* b_val, i64 b_base, const u64* c_ptr,                      \
        SPGEMM_OUT_PARAMS(V, I), const ComputeOf<V>::type* alpha_dev, ComputeOf<V>::type alpha) {          \
        spgemm_numeric_warp<SHORT2, V, I>(rows, count, table, a_ptr, a_col, a_val, a_base, b_ptr, b_col,   \
                                          b_val, b_base, c_ptr, SPGEMM_OUT_ARGS, alpha_dev, alpha);        \
    }

// The big rows' kernel is held to 40 registers, as before the windows' items (48 without the
// bound): six blocks of 256 threads an SM where shared memory allows. Measured on the H200, the
// bound changed no case's time (session 39).
#define SPGEMM_NUMERIC_ENTRY(V, tv, I, tidx)                                                               \
    SPGEMM_NUMERIC_WARP_ENTRY(numeric_warp, false, V, tv, I, tidx)                                         \
    SPGEMM_NUMERIC_WARP_ENTRY(numeric_warp2, true, V, tv, I, tidx)                                         \
    extern "C" __global__ void spblk_spgemm_numeric_short_##tv##_##tidx(                                   \
        const u32* rows, u32 count, const I* a_ptr, const I* a_col, const V* a_val, i64 a_base,            \
        const I* b_ptr, const I* b_col, const V* b_val, i64 b_base, const u64* c_ptr,                      \
        SPGEMM_OUT_PARAMS(V, I), const ComputeOf<V>::type* alpha_dev, ComputeOf<V>::type alpha) {          \
        spgemm_numeric_short<V, I>(rows, count, a_ptr, a_col, a_val, a_base, b_ptr, b_col, b_val, b_base,  \
                                   c_ptr, SPGEMM_OUT_ARGS, alpha_dev, alpha);                              \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(256, 6) spblk_spgemm_numeric_big_##tv##_##tidx(          \
        const u32* rows, u32 count, int kind, u64 lo, u64 hi, u64 dense_max, u32 b_sorted,                 \
        const u32* win_start, u32 win_first, const u32* multi_rows, u32 multi, u64 seg_lo, u64 seg_hi,     \
        const u64* span, const u64* seg_info, u32* entry_k, const u64* num_off, u32* pool_keys,            \
        ComputeOf<V>::type* pool_vals, const I* a_ptr, const I* a_col, const V* a_val, i64 a_base,         \
        const I* b_ptr, const I* b_col, const V* b_val, i64 b_base, const u64* c_ptr, u32* c_col,          \
        ComputeOf<V>::type* c_val, SPGEMM_OUT_PARAMS(V, I), const ComputeOf<V>::type* alpha_dev,           \
        ComputeOf<V>::type alpha) {                                                                        \
        spgemm_numeric_big<V, I>(rows, count, kind, lo, hi, dense_max, b_sorted, win_start, win_first,     \
                                 multi_rows, multi, seg_lo, seg_hi, span, seg_info, entry_k, num_off,      \
                                 pool_keys, pool_vals, a_ptr, a_col, a_val, a_base, b_ptr, b_col, b_val,   \
                                 b_base, c_ptr, c_col, c_val, SPGEMM_OUT_ARGS, alpha_dev, alpha);          \
    }                                                                                                      \
    extern "C" __global__ void spblk_spgemm_place_##tv##_##tidx(                                           \
        const u32* perm, u64 n, const u32* sorted_k, const u32* col_in,                                    \
        const ComputeOf<V>::type* val_in, const u32* k2_row, const u64* k2_start, const u64* c_ptr,        \
        SPGEMM_OUT_PARAMS(V, I)) {                                                                         \
        spgemm_place<V, I>(perm, n, sorted_k, col_in, val_in, k2_row, k2_start, c_ptr, SPGEMM_OUT_ARGS);   \
    }

SPBLK_FOR_VALUES(SPGEMM_NUMERIC_ENTRY, int, i32)
SPBLK_FOR_VALUES(SPGEMM_NUMERIC_ENTRY, long long, i64)

extern "C" __global__ void spblk_spgemm_offsets_i32(i64 m, const u64* c_ptr, i64 base, int* out_ptr) {
    spgemm_offsets<int>(m, c_ptr, base, out_ptr);
}
extern "C" __global__ void spblk_spgemm_offsets_i64(i64 m, const u64* c_ptr, i64 base, long long* out_ptr) {
    spgemm_offsets<long long>(m, c_ptr, base, out_ptr);
}
