// SpGEMM shared definitions: row bins by intermediate-product count, hash tables, and the
// warp's walk over a row's products in expansion order.
//
// Bins (products P of a row): 0: P = 0; 1..8: one warp per row with a shared-memory table of
// 32 << (b-1) slots (bin b holds P <= 16 << (b-1), so a table always has >= 2P slots);
// 9 ("big"): a thread block per row. src/backend/cuda/spgemm.rs mirrors these.
#pragma once
#include "common/warp.cuh"

#define SPGEMM_WARP_BINS 8
#define SPGEMM_BIG_BIN 9
#define SPGEMM_BINS 10
#define SPGEMM_EMPTY 0xffffffffu
// stats[] written by the work estimation: rows per bin, then the summed global symbolic
// tables of big rows that fit no shared-memory method.
#define SPGEMM_STAT_POOL 10
// ... and the products of all rows.
#define SPGEMM_STAT_PRODUCTS 11
// Bounds on the big rows' global numeric tables: slots, entries (rows that may have more
// entries than a shared table holds; ALG2 plans buffer 2 with them).
#define SPGEMM_STAT_GLOBAL_SLOTS 12
#define SPGEMM_STAT_GLOBAL_ENTRIES 13
// Maxima (the rest are sums): the largest global symbolic table, and the most entries of a
// row counted in SPGEMM_STAT_GLOBAL_ENTRIES (ALG3 sizes its passes' windows with them).
#define SPGEMM_STAT_POOL_MAX 14
#define SPGEMM_STAT_GLOBAL_MAX_ENTRIES 15
// Descents (a column above the next) inside B's rows, modulo 2^64: zero when they are sorted,
// so that the numeric phase may search them (lower_bound_col).
#define SPGEMM_STAT_B_DESCENTS 16
#define SPGEMM_STATS 17
// The rank and scratch start of a row with a global numeric table, in one word (rank << 40 |
// start): one atomic hands out both, so ranks follow the rows' order in the scratch.
#define SPGEMM_SEG_BITS 40
#define SPGEMM_SEG_MASK ((1ull << SPGEMM_SEG_BITS) - 1)
// Big rows: warps per block, and the largest numeric table in shared memory (slots).
#define SPGEMM_BIG_WARPS 8
#define SPGEMM_BIG_NUMERIC_SLOTS 16384u

__device__ __forceinline__ int spgemm_bin(u64 P) {
    if (P == 0) return 0;
    if (P > 2048) return SPGEMM_BIG_BIN;
    int b = 1;
    while ((16ull << (b - 1)) < P) ++b;
    return b;
}

// The first position of cols[0, len) (sorted) whose column is at least `key`.
template <class I> __device__ __forceinline__ u32 lower_bound_col(const I* cols, u32 len, i64 key) {
    u32 lo = 0;
    while (len > 0) {
        const u32 half = len >> 1;
        if ((i64)cols[lo + half] < key) {
            lo += half + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    return lo;
}

__device__ __forceinline__ u64 pow2_at_least(u64 x, u64 lo) {
    u64 s = lo;
    while (s < x) s <<= 1;
    return s;
}

// A big row's symbolic method, from the shared memory it may use (`cap_words` u32 words):
// 0 hash table of keys (2·min(P, n) slots), 1 bitmap of all n columns, 2 global hash table.
__device__ __forceinline__ int big_symbolic_method(u64 P, u64 n, u64 cap_words) {
    const u64 d = P < n ? P : n;
    const u64 hash_words = pow2_at_least(2 * d, 64);
    const u64 bitmap_words = (n + 31) / 32;
    if (hash_words <= cap_words && hash_words <= bitmap_words) return 0;
    if (bitmap_words <= cap_words) return 1;
    if (hash_words <= cap_words) return 0;
    return 2;
}

// Global table of a big row (symbolic method 2; numeric rows over the shared limit).
__device__ __forceinline__ u64 global_table_size(u64 distinct) { return pow2_at_least(2 * distinct, 64); }

// B's rows from this many entries are searched for a dense window's columns rather than
// loaded whole (walk_routed in numeric.cu), when B's rows are sorted.
#define SPGEMM_SEARCH_MIN 32u

// span[r] of a big row: its smallest column (bits 0-31), its largest (bits 32-62: columns are
// below 2^31), and SPAN_CHEAP_WALK (bit 63, set by the symbolic phase's mark_cheap_walk): B's
// rows are sorted and walking the row's dense windows loads at most about twice its products
// (numeric.cu's walk_window_part).
#define SPAN_CHEAP_WALK (1ull << 63)
__device__ __forceinline__ u32 span_lo(u64 s) { return (u32)s; }
__device__ __forceinline__ u32 span_hi(u64 s) { return (u32)(s >> 32) & 0x7fffffffu; }
__device__ __forceinline__ bool span_cheap_walk(u64 s) { return (s & SPAN_CHEAP_WALK) != 0; }
// The row's span rounded up to a power of two (at least 256 columns).
__device__ __forceinline__ u64 span_pow2(u64 s) { return pow2_at_least((u64)span_hi(s) - span_lo(s) + 1, 256); }

// Which table a big row's numeric phase uses: 0 dense (values by column and a bitmap, over
// windows of at most `dense_max` columns of the row's span), 1 shared hash, 2 global hash.
// A hash table is compacted and sorted by column in shared memory; past 4096 slots that sort
// costs more than dense windows whose walk is cheap (span_cheap_walk): such rows take up to 16
// windows instead. The largest shared tables (over half of SPGEMM_BIG_NUMERIC_SLOTS: 128 KB
// for f32) leave one block per SM, so other rows take up to 4 dense windows of 64 KB instead
// (three blocks per SM; R-MAT 16.8 -> 12.7 ms). Rows whose hash table would not fit shared
// memory take dense windows when they need at most 16, so that only rare rows need the global
// sort.
// The most dense windows a row's numeric phase walks (big_numeric_kind 0).
#define SPGEMM_WINDOWS 16

__device__ __forceinline__ int big_numeric_kind(u64 spanp, u64 S, u64 dense_max, bool cheap_walk) {
    if (spanp <= dense_max) return 0;
    if (S <= SPGEMM_BIG_NUMERIC_SLOTS / 4) return 1;
    if (cheap_walk && spanp / dense_max <= SPGEMM_WINDOWS) return 0;
    if (S <= SPGEMM_BIG_NUMERIC_SLOTS / 2) return 1;
    if (spanp / dense_max <= 4) return 0;
    if (S <= SPGEMM_BIG_NUMERIC_SLOTS) return 1;
    return spanp / dense_max <= SPGEMM_WINDOWS ? 0 : 2;
}

// Products per chunk of a row sorted by ESC's long-row path (kernels/spgemm/esc.cu).
#define ESC_CHUNK 4096u
// seg_info's mark of a big row whose numeric phase is ESC's long-row path.
#define SPGEMM_ESC_ROW 0xffffffffffffffffull
// seg_info's mark of a row of several dense windows taken in blocks of their own: rows whose
// walks (products x windows) are at least `split_work` (spgemm.rs: a quarter of an even share
// of all products among the blocks the GPU holds at once). Rows below it walk their windows in
// one block, with B's rows still in its L1: block-65536's rows of ~12 000 products lost 7 %
// split, while R-MAT's hub rows are the tail of the launch unless split.
#define SPGEMM_SPLIT_ROW 0xfffffffffffffffeull

// Whether a big row's numeric phase sorts its P products (ESC's long-row path: chunks of
// ESC_CHUNK sorted in shared memory, merged in global memory, then summed) rather than
// filling a table: rows of more than 4096 entries over a span of more than 4 dense windows
// (so the 128 KB shared table, 5 to 16 walks over the products, or a global table), when at
// most `esc_x4`/4 products fall on each entry. There the table path takes one block per row
// however long the row (the global tables also a sort), while ESC splits the row across
// blocks and moves each product a few times. Up to 4 dense windows stay faster (session 39:
// R-MAT s16 12.9 -> 17.0 ms and block-65536 55 -> 145 ms when they took ESC), and so do up
// to 16 when their walk is cheap (cheap_walk). esc_x4 = 0: never.
__device__ __forceinline__ bool big_numeric_esc(u64 P, u64 nnz, u64 spanp, u64 dense_max, u32 esc_x4, bool cheap_walk) {
    if (cheap_walk && spanp / dense_max <= SPGEMM_WINDOWS) return false;
    return nnz > SPGEMM_BIG_NUMERIC_SLOTS / 4 && spanp / dense_max > 4 && P < (1ull << 32) && 4 * P <= esc_x4 * nnz;
}


// Fibonacci hashing: the product's top bits. (Its low bits depend only on c's low bits, so
// columns a multiple of the table size apart, as in stencils, would share a slot.)
__device__ __forceinline__ u32 hash_slot(u32 c, u32 mask) { return (c * 2654435761u) >> (32 - __popc(mask)); }

// The warp of a big row's block that owns column c in the numeric phase: the top 3 bits of a
// hash, so SPGEMM_BIG_WARPS must stay 8 (and BIG_THREADS in spgemm.rs 256).
__device__ __forceinline__ int column_owner(u32 c) { return (int)((c * 0x9E3779B1u) >> 29) & (SPGEMM_BIG_WARPS - 1); }

// Inserts c (atomically: lanes insert concurrently) into a table of mask + 1 (a power of two,
// at least 2) slots; returns its slot and sets `inserted`
// when this call added it.
__device__ __forceinline__ u32 hash_insert(u32* keys, u32 mask, u32 c, bool& inserted) {
    u32 h = hash_slot(c, mask);
    while (true) {
        const u32 old = atomicCAS(&keys[h], SPGEMM_EMPTY, c);
        if (old == SPGEMM_EMPTY || old == c) {
            inserted = old == SPGEMM_EMPTY;
            return h;
        }
        h = (h + 1) & mask;
    }
}

// Walks the products of A's row [s, e) times B in expansion order, 32 at a time: a window of
// up to 32 A entries is loaded (one per lane), their B-row lengths are scanned, and lane l of
// a chunk takes product j0 + l, finding its A entry by a 5-step search over the window.
// When the window's B rows average 32 entries or more, chunks follow one B row at a time
// instead. Calls f(valid, col, a_entry, q) once per chunk on every lane (valid: the lane has
// a product; a_entry: A's position p; q: B's position). The chunk order and lane order are
// the expansion order, which the numeric phase relies on.
template <class I, class F>
__device__ __forceinline__ void for_each_product_chunk(i64 s, i64 e, const I* __restrict__ a_col, i64 a_base,
                                                       const I* __restrict__ b_ptr, const I* __restrict__ b_col,
                                                       i64 b_base, F&& f) {
    const int lane = threadIdx.x & 31;
    for (i64 w0 = s; w0 < e; w0 += 32) {
        const i64 p = w0 + lane;
        i64 bs = 0;
        u32 len = 0;
        if (p < e) {
            const i64 k = (i64)a_col[p] - a_base;
            bs = (i64)b_ptr[k] - b_base;
            len = (u32)((i64)b_ptr[k + 1] - b_base - bs);
        }
        const u32 incl = warp_inclusive_scan(len);
        const u32 excl = incl - len;
        const u32 total = __shfl_sync(SPBLK_FULL_MASK, incl, 31);
        unsigned rows = __ballot_sync(SPBLK_FULL_MASK, len > 0);
        if (total >= 32u * (u32)__popc(rows)) {
            // B rows of 32 entries or more on average: a B row at a time, no search.
            while (rows) {
                const int o = __ffs(rows) - 1;
                rows &= rows - 1u;
                const i64 b0 = __shfl_sync(SPBLK_FULL_MASK, bs, o);
                const u32 blen = __shfl_sync(SPBLK_FULL_MASK, len, o);
                for (u32 t0 = 0; t0 < blen; t0 += 32) {
                    const bool valid = t0 + lane < blen;
                    const i64 q = b0 + t0 + lane;
                    const u32 c = valid ? (u32)((i64)b_col[q] - b_base) : SPGEMM_EMPTY;
                    f(valid, c, w0 + o, q);
                }
            }
            continue;
        }
        for (u32 j0 = 0; j0 < total; j0 += 32) {
            const u32 j = j0 + lane;
            int o = 0;
#pragma unroll
            for (int step = 16; step > 0; step >>= 1) {
                const u32 ex = __shfl_sync(SPBLK_FULL_MASK, excl, o + step);
                if (ex <= j) o += step;
            }
            const bool valid = j < total;
            const i64 q = __shfl_sync(SPBLK_FULL_MASK, bs, o) + (i64)(j - __shfl_sync(SPBLK_FULL_MASK, excl, o));
            const u32 c = valid ? (u32)((i64)b_col[q] - b_base) : SPGEMM_EMPTY;
            f(valid, c, w0 + o, q);
        }
    }
}

// The products of a row of at most 32 K, K per lane in expansion order: product e goes to
// lane e % 32, register e / 32, its column into col[e / 32] and, when wanted (VALUES), its value.
// Returns the row's product count; places past it keep col = SPGEMM_EMPTY.
template <int K, bool VALUES, class V, class I, class T>
__device__ __forceinline__ u32 gather_short_row(i64 s, i64 e, const I* a_col, const V* a_val, i64 a_base,
                                                const I* b_ptr, const I* b_col, const V* b_val, i64 b_base,
                                                u32 (&col)[K], T (&val)[K]) {
    const int lane = threadIdx.x & 31;
    u32 have = 0;
#pragma unroll
    for (int k = 0; k < K; ++k) {
        col[k] = SPGEMM_EMPTY;
        val[k] = T(0);
    }
    // Lane L takes the chunk's lane (L - have) mod 32, product have + that (a chunk's valid
    // lanes are its first).
    for_each_product_chunk(s, e, a_col, a_base, b_ptr, b_col, b_base, [&](bool valid, u32 c, i64 p, i64 q) {
        T prod = T(0);
        if (VALUES && valid) prod = mul_rn(to_compute(a_val[p]), to_compute(b_val[q]));
        const u32 n = __popc(__ballot_sync(SPBLK_FULL_MASK, valid));
        const u32 src = (u32)(lane - (int)have) & 31u;
        const u32 cc = __shfl_sync(SPBLK_FULL_MASK, c, src);
        if (VALUES) prod = __shfl_sync(SPBLK_FULL_MASK, prod, src);
        if (src < n) {
            const u32 at = (have + src) >> 5;
#pragma unroll
            for (int k = 0; k < K; ++k)
                if (at == (u32)k) {
                    col[k] = cc;
                    val[k] = prod;
                }
        }
        have += n;
    });
    return have;
}

// Bitonic sort of 32 K (key, value) pairs, K per lane (element e at lane e % 32, register
// e / 32), ascending by key.
template <int K, class Key, class T> __device__ __forceinline__ void warp_sort_regs(Key (&key)[K], T (&v)[K]) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int size = 2; size <= 32 * K; size <<= 1) {
#pragma unroll
        for (int j = size >> 1; j > 0; j >>= 1) {
            if (j >= 32) {
#pragma unroll
                for (int k = 0; k < K; ++k) {
                    const int kk = k ^ (j >> 5);
                    if (kk <= k) continue;
                    const bool up = ((k * 32 + lane) & size) == 0;
                    if ((key[k] > key[kk]) == up) {
                        const Key tk = key[k];
                        key[k] = key[kk];
                        key[kk] = tk;
                        const T tv = v[k];
                        v[k] = v[kk];
                        v[kk] = tv;
                    }
                }
            } else {
#pragma unroll
                for (int k = 0; k < K; ++k) {
                    const Key ok = __shfl_xor_sync(SPBLK_FULL_MASK, key[k], j);
                    const T ov = __shfl_xor_sync(SPBLK_FULL_MASK, v[k], j);
                    const bool up = ((k * 32 + lane) & size) == 0, low = (lane & j) == 0;
                    if (low == up ? ok < key[k] : ok > key[k]) {
                        key[k] = ok;
                        v[k] = ov;
                    }
                }
            }
        }
    }
}

// Writes C's entry at `pos` in C's index type, base and value type: `r` is alpha times the
// sum; with beta != 0, beta times the value already there is added (as on the host). With
// `val` NULL only the column is written.
template <class V, class I> struct CWriter {
    typedef typename ComputeOf<V>::type T;
    I* col;
    V* val;
    i64 base;
    T beta;
    __device__ __forceinline__ void operator()(u64 pos, u32 c, T r) const {
        col[pos] = (I)((i64)c + base);
        if (val == nullptr) return;  // C's pattern only (the reuse path's copy)
        if (beta != T(0)) r = add_rn(r, mul_rn(beta, to_compute(val[pos])));
        val[pos] = Store<V>::from(r);
    }
};

// The arguments every numeric kernel takes to build its CWriter.
#define SPGEMM_OUT_PARAMS(V, I) \
    I *out_col, V *out_val, i64 out_base, const typename ComputeOf<V>::type *beta_dev, typename ComputeOf<V>::type beta_h
#define SPGEMM_OUT_ARGS out_col, out_val, out_base, beta_dev, beta_h
#define SPGEMM_WRITER(V, I) const CWriter<V, I> w{out_col, out_val, out_base, scalar_arg(beta_dev, beta_h)}

// Bitonic sort of 32 (key, value) pairs held one per lane, ascending by key.
template <class K, class T> __device__ __forceinline__ void warp_sort32(K& key, T& v) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int k = 2; k <= 32; k <<= 1) {
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
            const K ok = __shfl_xor_sync(SPBLK_FULL_MASK, key, j);
            const T ov = __shfl_xor_sync(SPBLK_FULL_MASK, v, j);
            const bool up = (lane & k) == 0, low = (lane & j) == 0;
            if (low == up ? ok < key : ok > key) {
                key = ok;
                v = ov;
            }
        }
    }
}
