// SpGEMM numeric phase. One warp per row of C walks A's row in storage order and, for each
// entry, B's row in chunks of 32 (one product per lane): every column of C is then summed
// in expansion order, exactly like the host reference (and with rounded, uncontracted
// operations, bit for bit). Lanes of one chunk touch distinct slots; repeated columns
// within a chunk (duplicates in B's row) are folded by their lowest lane in lane order.
//
// Shared bins: the table is rebuilt here, compacted in slot order, bitonic-sorted by column
// and written to C's row. Huge rows: the symbolic pass's global table is reused (keys
// present), and the row is written unsorted; a global stable sort by (row, column) follows.
#include "spgemm/spgemm.cuh"

template <class V, class I, bool GLOBAL>
__device__ void accumulate_row(i64 s, i64 e, const I* __restrict__ a_col, const V* __restrict__ a_val, i64 a_base,
                               const I* __restrict__ b_ptr, const I* __restrict__ b_col,
                               const V* __restrict__ b_val, i64 b_base, u32* keys,
                               typename ComputeOf<V>::type* vals, u64 mask) {
    typedef typename ComputeOf<V>::type T;
    const int lane = threadIdx.x & 31;
    for (i64 p = s; p < e; ++p) {
        const i64 k = (i64)a_col[p] - a_base;
        const T av = to_compute(a_val[p]);
        const i64 bs = (i64)b_ptr[k] - b_base, be = (i64)b_ptr[k + 1] - b_base;
        for (i64 q0 = bs; q0 < be; q0 += 32) {
            const i64 q = q0 + lane;
            const bool valid = q < be;
            u32 c = 0;
            T prod = 0;
            if (valid) {
                c = (u32)((i64)b_col[q] - b_base);
                prod = mul_rn(av, to_compute(b_val[q]));
            }
            const unsigned vmask = __ballot_sync(SPBLK_FULL_MASK, valid);
            unsigned peers = 0;
            if (valid) peers = __match_any_sync(vmask, c);
            const bool leader = valid && (__ffs(peers) - 1) == lane;
            u64 slot = 0;
            if (leader) {
                bool ins;
                slot = GLOBAL ? hash_find(keys, mask, c) : (u64)hash_insert(keys, (u32)mask, c, ins);
            }
            if (__any_sync(SPBLK_FULL_MASK, valid && peers != (1u << lane))) {
                T acc = leader ? vals[slot] : T(0);
                for (int src = 0; src < 32; ++src) {
                    const T o = __shfl_sync(SPBLK_FULL_MASK, prod, src);
                    if (leader && ((peers >> src) & 1u)) acc = add_rn(acc, o);
                }
                if (leader) vals[slot] = acc;
            } else if (valid) {
                vals[slot] = add_rn(vals[slot], prod);
            }
            __syncwarp();
        }
    }
}

template <class V, class I>
__device__ void spgemm_numeric_shared(const u32* rows, u32 count, u32 table, const I* a_ptr, const I* a_col,
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
        accumulate_row<V, I, false>((i64)a_ptr[i] - a_base, (i64)a_ptr[i + 1] - a_base, a_col, a_val, a_base,
                                    b_ptr, b_col, b_val, b_base, keys, vals, table - 1);
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
        // Bitonic sort of the first N >= cnt slots (padding keys sort last).
        u32 N = 32;
        while (N < cnt) N <<= 1;
        for (u32 t = cnt + lane; t < N; t += 32) keys[t] = SPGEMM_EMPTY;
        __syncwarp();
        for (u32 k = 2; k <= N; k <<= 1) {
            for (u32 j = k >> 1; j > 0; j >>= 1) {
                for (u32 t = lane; t < N; t += 32) {
                    const u32 x = t ^ j;
                    if (x > t) {
                        const u32 ka = keys[t], kb = keys[x];
                        if ((ka > kb) == ((t & k) == 0)) {
                            keys[t] = kb;
                            keys[x] = ka;
                            const T va = vals[t];
                            vals[t] = vals[x];
                            vals[x] = va;
                        }
                    }
                }
                __syncwarp();
            }
        }
        const u64 base = c_ptr[i];
        for (u32 t = lane; t < cnt; t += 32) {
            c_col[base + t] = keys[t];
            c_val[base + t] = mul_rn(alpha, vals[t]);
        }
        __syncwarp();
    }
}

template <class V, class I>
__device__ void spgemm_numeric_global(const u32* rows, u32 count, const u64* huge_off, const u64* rowprod, i64 n,
                                      const I* a_ptr, const I* a_col, const V* a_val, i64 a_base, const I* b_ptr,
                                      const I* b_col, const V* b_val, i64 b_base, const u32* pool_keys,
                                      typename ComputeOf<V>::type* pool_vals, const u64* c_ptr, u32* c_col,
                                      typename ComputeOf<V>::type* c_val,
                                      const typename ComputeOf<V>::type* alpha_dev,
                                      typename ComputeOf<V>::type alpha_h) {
    typedef typename ComputeOf<V>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    const int lane = threadIdx.x & 31;
    const unsigned lower = (1u << lane) - 1u;
    const u64 warps = ((u64)gridDim.x * blockDim.x) >> 5;
    for (u64 r = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < count; r += warps) {
        const u32 i = rows[r];
        const u64 size = huge_table_size(rowprod[i], (u64)n);
        const u32* keys = pool_keys + huge_off[r];
        T* vals = pool_vals + huge_off[r];
        for (u64 t = lane; t < size; t += 32) vals[t] = 0;
        __syncwarp();
        accumulate_row<V, I, true>((i64)a_ptr[i] - a_base, (i64)a_ptr[i + 1] - a_base, a_col, a_val, a_base,
                                   b_ptr, b_col, b_val, b_base, const_cast<u32*>(keys), vals, size - 1);
        u64 out = c_ptr[i];
        for (u64 t0 = 0; t0 < size; t0 += 32) {
            const u32 key = keys[t0 + lane];
            const bool occ = key != SPGEMM_EMPTY;
            const unsigned bal = __ballot_sync(SPBLK_FULL_MASK, occ);
            if (occ) {
                c_col[out + __popc(bal & lower)] = key;
                c_val[out + __popc(bal & lower)] = mul_rn(alpha, vals[t0 + lane]);
            }
            out += __popc(bal);
        }
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

#define SPGEMM_NUMERIC_ENTRY(V, tv, I, tidx)                                                             \
    extern "C" __global__ void spblk_spgemm_numeric_shared_##tv##_##tidx(                                \
        const u32* rows, u32 count, u32 table, const I* a_ptr, const I* a_col, const V* a_val,           \
        i64 a_base, const I* b_ptr, const I* b_col, const V* b_val, i64 b_base, const u64* c_ptr,        \
        u32* c_col, ComputeOf<V>::type* c_val, const ComputeOf<V>::type* alpha_dev,                      \
        ComputeOf<V>::type alpha) {                                                                      \
        spgemm_numeric_shared<V, I>(rows, count, table, a_ptr, a_col, a_val, a_base, b_ptr, b_col,       \
                                    b_val, b_base, c_ptr, c_col, c_val, alpha_dev, alpha);               \
    }                                                                                                    \
    extern "C" __global__ void spblk_spgemm_numeric_global_##tv##_##tidx(                                \
        const u32* rows, u32 count, const u64* huge_off, const u64* rowprod, i64 n, const I* a_ptr,      \
        const I* a_col, const V* a_val, i64 a_base, const I* b_ptr, const I* b_col, const V* b_val,      \
        i64 b_base, const u32* pool_keys, ComputeOf<V>::type* pool_vals, const u64* c_ptr, u32* c_col,   \
        ComputeOf<V>::type* c_val, const ComputeOf<V>::type* alpha_dev, ComputeOf<V>::type alpha) {      \
        spgemm_numeric_global<V, I>(rows, count, huge_off, rowprod, n, a_ptr, a_col, a_val, a_base,      \
                                    b_ptr, b_col, b_val, b_base, pool_keys, pool_vals, c_ptr, c_col,     \
                                    c_val, alpha_dev, alpha);                                            \
    }                                                                                                    \
    extern "C" __global__ void spblk_spgemm_copy_##tv##_##tidx(                                          \
        i64 m, u64 nnz, const u64* c_ptr, const u32* col, const ComputeOf<V>::type* val, i64 base,       \
        I* out_ptr, I* out_col, V* out_val, const ComputeOf<V>::type* beta_dev,                          \
        ComputeOf<V>::type beta) {                                                                       \
        spgemm_copy<V, I>(m, nnz, c_ptr, col, val, base, out_ptr, out_col, out_val, beta_dev, beta);     \
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
