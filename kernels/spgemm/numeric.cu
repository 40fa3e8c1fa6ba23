// SpGEMM numeric phase. Every column of C is summed in expansion order (A's row in storage
// order, each B row in storage order), exactly like the host reference: with rounded,
// uncontracted operations the results are equal bit for bit, and deterministic.
//
// Warp bins: a warp per row takes the row's products 32 at a time in expansion order
// (for_each_product_chunk); lanes holding the same column are grouped with match_any and
// their lowest lane adds the group's products in lane order. The table is then compacted in
// slot order, sorted by column (in registers when at most 32 remain) and written.
// Big rows: a block per row; warp w updates only the columns it owns (column_owner), walking
// all the row's products, so each column is still summed in expansion order by one warp.
// With the table in shared memory the row is sorted there and written sorted; rows whose
// table exceeds SPGEMM_BIG_NUMERIC_SLOTS use a table in the global pool and are written in
// slot order, and a global stable sort by (row, column) follows.
#include "spgemm/spgemm.cuh"

// Adds this chunk's products to the table: lanes with `act` and equal columns form a group
// whose lowest lane (first in expansion order) inserts the column and adds the group's
// products in lane order.
template <class T>
__device__ __forceinline__ void accumulate_chunk(bool act, u32 c, T prod, u32* keys, T* vals, u32 mask) {
    const int lane = threadIdx.x & 31;
    const unsigned amask = __ballot_sync(SPBLK_FULL_MASK, act);
    if (amask == 0) return;
    unsigned peers = 0;
    if (act) peers = __match_any_sync(amask, c);
    const bool leader = act && (__ffs(peers) - 1) == lane;
    u32 slot = 0;
    T acc = T(0);
    if (leader) {
        bool ins;
        slot = hash_insert(keys, mask, c, ins);
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

// Bitonic sort of 32 (key, value) pairs held one per lane, ascending by key.
template <class T> __device__ __forceinline__ void warp_sort32(u32& key, T& v) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int k = 2; k <= 32; k <<= 1) {
#pragma unroll
        for (int j = k >> 1; j > 0; j >>= 1) {
            const u32 ok = __shfl_xor_sync(SPBLK_FULL_MASK, key, j);
            const T ov = __shfl_xor_sync(SPBLK_FULL_MASK, v, j);
            const bool up = (lane & k) == 0, low = (lane & j) == 0;
            if (low == up ? ok < key : ok > key) {
                key = ok;
                v = ov;
            }
        }
    }
}

template <class V, class I>
__device__ void spgemm_numeric_warp(const u32* rows, u32 count, u32 table, const I* a_ptr, const I* a_col,
                                    const V* a_val, i64 a_base, const I* b_ptr, const I* b_col, const V* b_val,
                                    i64 b_base, const u64* c_ptr, u32* c_col, typename ComputeOf<V>::type* c_val,
                                    const typename ComputeOf<V>::type* alpha_dev,
                                    typename ComputeOf<V>::type alpha_h) {
    typedef typename ComputeOf<V>::type T;
    extern __shared__ __align__(16) unsigned char numeric_smem[];
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, wpb = blockDim.x >> 5;
    const unsigned lower = (1u << lane) - 1u;
    T* vals = reinterpret_cast<T*>(numeric_smem) + (u64)warp * table;
    u32* keys = reinterpret_cast<u32*>(numeric_smem + (u64)wpb * table * sizeof(T)) + (u64)warp * table;
    for (u64 r = (u64)blockIdx.x * wpb + warp; r < count; r += (u64)gridDim.x * wpb) {
        const u32 i = rows[r];
        for (u32 t = lane; t < table; t += 32) {
            keys[t] = SPGEMM_EMPTY;
            vals[t] = 0;
        }
        __syncwarp();
        for_each_product_chunk((i64)a_ptr[i] - a_base, (i64)a_ptr[i + 1] - a_base, a_col, a_base, b_ptr, b_col,
                               b_base, [&](bool valid, u32 c, i64 p, i64 q) {
                                   T prod = T(0);
                                   if (valid) prod = mul_rn(to_compute(a_val[p]), to_compute(b_val[q]));
                                   accumulate_chunk(valid, c, prod, keys, vals, table - 1);
                               });
        __syncwarp();
        // Compact the occupied slots to the front, in slot order (each chunk is read before
        // any lane writes, and writes land at or before the chunk).
        u32 cnt = 0;
        for (u32 t0 = 0; t0 < table; t0 += 32) {
            const u32 key = keys[t0 + lane];
            const T v = vals[t0 + lane];
            const bool occ = key != SPGEMM_EMPTY;
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
            if (lane < cnt) {
                c_col[base + lane] = key;
                c_val[base + lane] = mul_rn(alpha, v);
            }
            __syncwarp();
            continue;
        }
        // Bitonic sort of the first N >= cnt slots (padding keys sort last).
        u32 N = 64;
        while (N < cnt) N <<= 1;
        for (u32 t = cnt + lane; t < N; t += 32) keys[t] = SPGEMM_EMPTY;
        __syncwarp();
        for (u32 k = 2; k <= N; k <<= 1) {
            for (u32 j = k >> 1; j > 0; j >>= 1) {
                for (u32 t = lane; t < N / 2; t += 32) {
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
                __syncwarp();
            }
        }
        for (u32 t = lane; t < cnt; t += 32) {
            c_col[base + t] = keys[t];
            c_val[base + t] = mul_rn(alpha, vals[t]);
        }
        __syncwarp();
    }
}

// Big rows whose table (global_table_size(nnz) slots; nnz from C's offsets) is in (lo, hi]. SHARED: the table is
// in shared memory (hi slots of value and key), the row is sorted there and written sorted.
// Otherwise the table is the pool's at num_off[r] and the row is written in slot order.
template <class V, class I, bool SHARED>
__device__ void spgemm_numeric_big(const u32* rows, u32 count, u64 lo, u64 hi,
                                   const u64* num_off, u32* pool_keys, typename ComputeOf<V>::type* pool_vals,
                                   const I* a_ptr, const I* a_col, const V* a_val, i64 a_base, const I* b_ptr,
                                   const I* b_col, const V* b_val, i64 b_base, const u64* c_ptr, u32* c_col,
                                   typename ComputeOf<V>::type* c_val, const typename ComputeOf<V>::type* alpha_dev,
                                   typename ComputeOf<V>::type alpha_h) {
    typedef typename ComputeOf<V>::type T;
    extern __shared__ __align__(16) unsigned char numeric_smem[];
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    const int warp = threadIdx.x >> 5;
    for (u64 r = blockIdx.x; r < count; r += gridDim.x) {
        const u32 i = rows[r];
        const u64 S = global_table_size(c_ptr[i + 1] - c_ptr[i]);
        if (S <= lo || S > hi) continue;
        T* vals = SHARED ? reinterpret_cast<T*>(numeric_smem) : pool_vals + num_off[r];
        u32* keys = SHARED ? reinterpret_cast<u32*>(numeric_smem + (u64)hi * sizeof(T)) : pool_keys + num_off[r];
        for (u64 t = threadIdx.x; t < S; t += blockDim.x) {
            keys[t] = SPGEMM_EMPTY;
            vals[t] = 0;
        }
        __syncthreads();
        for_each_product_chunk((i64)a_ptr[i] - a_base, (i64)a_ptr[i + 1] - a_base, a_col, a_base, b_ptr, b_col,
                               b_base, [&](bool valid, u32 c, i64 p, i64 q) {
                                   const bool act = valid && column_owner(c) == warp;
                                   T prod = T(0);
                                   if (act) prod = mul_rn(to_compute(a_val[p]), to_compute(b_val[q]));
                                   accumulate_chunk(act, c, prod, keys, (T*)vals, (u32)(S - 1));
                               });
        __syncthreads();
        // Compact in slot order, a tile of blockDim slots at a time: every thread reads its
        // slot before the scan's barrier, and writes land at or before the tile.
        u64 cnt = 0;
        const u64 out = c_ptr[i];
        for (u64 t0 = 0; t0 < S; t0 += blockDim.x) {
            const u64 t = t0 + threadIdx.x;
            const u32 key = t < S ? keys[t] : SPGEMM_EMPTY;
            const T v = t < S ? vals[t] : T(0);
            u32 total;
            const u32 pos = block_exclusive_scan((u32)(key != SPGEMM_EMPTY), total);
            if (key != SPGEMM_EMPTY) {
                if (SHARED) {
                    keys[cnt + pos] = key;
                    vals[cnt + pos] = v;
                } else {
                    c_col[out + cnt + pos] = key;
                    c_val[out + cnt + pos] = mul_rn(alpha, v);
                }
            }
            cnt += total;
        }
        if (!SHARED) continue;
        u32 N = 64;
        while (N < cnt) N <<= 1;
        for (u32 t = (u32)cnt + threadIdx.x; t < N; t += blockDim.x) keys[t] = SPGEMM_EMPTY;
        __syncthreads();
        for (u32 k = 2; k <= N; k <<= 1) {
            for (u32 j = k >> 1; j > 0; j >>= 1) {
                for (u32 t = threadIdx.x; t < N / 2; t += blockDim.x) {
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
                __syncthreads();
            }
        }
        for (u64 t = threadIdx.x; t < cnt; t += blockDim.x) {
            c_col[out + t] = keys[t];
            c_val[out + t] = mul_rn(alpha, vals[t]);
        }
        __syncthreads();
    }
}

// After the global sort: keys[q] = row of entry perm[q].
extern "C" __global__ void spblk_spgemm_row_keys(const u64* c_ptr, i64 m, const u32* perm, u64 nnz, u32* keys) {
    GRID_STRIDE(q, nnz) keys[q] = (u32)row_of(c_ptr, m, 0, (i64)perm[q]);
}

template <class T>
__device__ void spgemm_permute(const u32* perm, u64 nnz, const u32* col_in, const T* val_in, u32* col_out,
                               T* val_out) {
    GRID_STRIDE(q, nnz) {
        col_out[q] = col_in[perm[q]];
        val_out[q] = val_in[perm[q]];
    }
}

template <class V, class I>
__device__ void spgemm_copy(i64 m, u64 nnz, const u64* c_ptr, const u32* col, const typename ComputeOf<V>::type* val,
                            i64 base, I* out_ptr, I* out_col, V* out_val,
                            const typename ComputeOf<V>::type* beta_dev, typename ComputeOf<V>::type beta_h) {
    typedef typename ComputeOf<V>::type T;
    const T beta = scalar_arg(beta_dev, beta_h);
    const u64 total = (u64)m + 1 > nnz ? (u64)m + 1 : nnz;
    GRID_STRIDE(t, total) {
        if (t <= (u64)m && out_ptr) out_ptr[t] = (I)((i64)c_ptr[t] + base);
        if (t < nnz) {
            out_col[t] = (I)((i64)col[t] + base);
            T r = val[t];
            if (beta != T(0)) r = add_rn(r, mul_rn(beta, to_compute(out_val[t])));
            out_val[t] = Store<V>::from(r);
        }
    }
}

#define SPGEMM_NUMERIC_ENTRY(V, tv, I, tidx)                                                               \
    extern "C" __global__ void spblk_spgemm_numeric_warp_##tv##_##tidx(                                    \
        const u32* rows, u32 count, u32 table, const I* a_ptr, const I* a_col, const V* a_val, i64 a_base, \
        const I* b_ptr, const I* b_col, const V* b_val, i64 b_base, const u64* c_ptr, u32* c_col,          \
        ComputeOf<V>::type* c_val, const ComputeOf<V>::type* alpha_dev, ComputeOf<V>::type alpha) {        \
        spgemm_numeric_warp<V, I>(rows, count, table, a_ptr, a_col, a_val, a_base, b_ptr, b_col, b_val,    \
                                  b_base, c_ptr, c_col, c_val, alpha_dev, alpha);                          \
    }                                                                                                      \
    extern "C" __global__ void spblk_spgemm_numeric_big_##tv##_##tidx(                                     \
        const u32* rows, u32 count, u64 lo, u64 hi, const u64* num_off, u32* pool_keys, \
        ComputeOf<V>::type* pool_vals, const I* a_ptr, const I* a_col, const V* a_val, i64 a_base,         \
        const I* b_ptr, const I* b_col, const V* b_val, i64 b_base, const u64* c_ptr, u32* c_col,          \
        ComputeOf<V>::type* c_val, const ComputeOf<V>::type* alpha_dev, ComputeOf<V>::type alpha) {        \
        if (pool_keys)                                                                                     \
            spgemm_numeric_big<V, I, false>(rows, count, lo, hi, num_off, pool_keys, pool_vals,   \
                                            a_ptr, a_col, a_val, a_base, b_ptr, b_col, b_val, b_base,      \
                                            c_ptr, c_col, c_val, alpha_dev, alpha);                        \
        else                                                                                               \
            spgemm_numeric_big<V, I, true>(rows, count, lo, hi, num_off, pool_keys, pool_vals,    \
                                           a_ptr, a_col, a_val, a_base, b_ptr, b_col, b_val, b_base,       \
                                           c_ptr, c_col, c_val, alpha_dev, alpha);                         \
    }                                                                                                      \
    extern "C" __global__ void spblk_spgemm_copy_##tv##_##tidx(                                            \
        i64 m, u64 nnz, const u64* c_ptr, const u32* col, const ComputeOf<V>::type* val, i64 base,         \
        I* out_ptr, I* out_col, V* out_val, const ComputeOf<V>::type* beta_dev,                            \
        ComputeOf<V>::type beta) {                                                                         \
        spgemm_copy<V, I>(m, nnz, c_ptr, col, val, base, out_ptr, out_col, out_val, beta_dev, beta);       \
    }

SPBLK_FOR_VALUES(SPGEMM_NUMERIC_ENTRY, int, i32)
SPBLK_FOR_VALUES(SPGEMM_NUMERIC_ENTRY, long long, i64)

#define SPGEMM_PERMUTE_ENTRY(T, tag)                                                                     \
    extern "C" __global__ void spblk_spgemm_permute_##tag(const u32* perm, u64 nnz, const u32* col_in,   \
                                                          const T* val_in, u32* col_out, T* val_out) {   \
        spgemm_permute<T>(perm, nnz, col_in, val_in, col_out, val_out);                                  \
    }
SPGEMM_PERMUTE_ENTRY(float, f32)
SPGEMM_PERMUTE_ENTRY(double, f64)
