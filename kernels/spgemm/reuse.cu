// SpGEMM reuse path (spblkSpGEMMreuse_*): once C's pattern is fixed (sorted columns), every
// product has a fixed place in C. The reuse plan lists, for each entry of C, the (A entry,
// B entry) pairs of its products in expansion order (`seg` gives each entry's run of `pairs`).
// reuse_compute sums each run in that order, so its values equal the full product's and the
// host's bit for bit, with no tables, hashing or sorting: one pass over the plan (a thread per
// entry; a warp per entry for the few long runs, such as a dense row times a dense column).
#include "spgemm/spgemm.cuh"

// Position of column c among the sorted columns c_col[s, e) (C's row, which holds it).
template <class I>
__device__ __forceinline__ u64 position_in_row(const I* __restrict__ c_col, i64 c_base, u64 s, u64 e, u32 c) {
    while (s < e) {
        const u64 mid = (s + e) / 2;
        if ((u64)((i64)c_col[mid] - c_base) < c)
            s = mid + 1;
        else
            e = mid;
    }
    return s;
}

// A warp per row of A walks the row's products in expansion order (A's entries in turn, each
// B row 32 entries at a time) and finds each product's entry of C. Counting (PLACE false):
// cursor[pos + 1] += 1. Placing: cursor[pos + 1] holds the entry's next free slot of `pairs`
// (its start after the scan); lanes of one step with equal positions (B rows with repeated
// columns) take slots in lane order, and steps run in order, so each run keeps expansion order.
template <class I, bool PLACE>
__device__ void spgemm_reuse_walk(i64 m, const I* __restrict__ a_ptr, const I* __restrict__ a_col, i64 a_base,
                                  const I* __restrict__ b_ptr, const I* __restrict__ b_col, i64 b_base,
                                  const I* __restrict__ c_ptr, const I* __restrict__ c_col, i64 c_base, u32* cursor,
                                  uint2* pairs) {
    const int lane = threadIdx.x & 31;
    const unsigned lower = (1u << lane) - 1u;
    const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < m; i += warps) {
        const i64 s = (i64)a_ptr[i] - a_base, e = (i64)a_ptr[i + 1] - a_base;
        const u64 cs = (u64)((i64)c_ptr[i] - c_base), ce = (u64)((i64)c_ptr[i + 1] - c_base);
        for (i64 p = s; p < e; ++p) {
            const i64 k = (i64)a_col[p] - a_base;
            const i64 bs = (i64)b_ptr[k] - b_base, be = (i64)b_ptr[k + 1] - b_base;
            for (i64 q0 = bs; q0 < be; q0 += 32) {
                const i64 q = q0 + lane;
                const bool act = q < be;
                u64 pos = 0;
                if (act) pos = position_in_row(c_col, c_base, cs, ce, (u32)((i64)b_col[q] - b_base));
                if (!PLACE) {
                    if (act) atomicAdd(&cursor[pos + 1], 1u);
                    continue;
                }
                const unsigned amask = __ballot_sync(SPBLK_FULL_MASK, act);
                const unsigned peers = act ? __match_any_sync(amask, pos) : 0u;
                const u32 slot = act ? cursor[pos + 1] + __popc(peers & lower) : 0u;
                __syncwarp();
                if (act && (peers & lower) == 0) cursor[pos + 1] = slot + __popc(peers);
                if (act) pairs[slot] = make_uint2((u32)p, (u32)q);
                __syncwarp();
            }
        }
    }
}

// Entries whose runs are longer than this are summed by a warp each (spgemm_reuse_long).
#define SPGEMM_REUSE_LONG 64u

// alpha * sum (+ beta * old) into C's entry t.
template <class V, class T> __device__ __forceinline__ void reuse_store(V* c_val, u64 t, T sum, T alpha, T beta) {
    T out = mul_rn(alpha, sum);
    if (beta != T(0)) out = add_rn(out, mul_rn(beta, to_compute(c_val[t])));
    c_val[t] = Store<V>::from(out);
}

template <class V>
__device__ __forceinline__ typename ComputeOf<V>::type reuse_product(const V* a_val, const V* b_val, uint2 pq) {
    return mul_rn(to_compute(a_val[pq.x]), to_compute(b_val[pq.y]));
}

// C's values from the plan: entry t sums its run in order (rounded, uncontracted, as the full
// product does), times alpha; with beta != 0 plus beta times the value already there. Runs
// longer than SPGEMM_REUSE_LONG are left to spgemm_reuse_long (listed by reuse_copy).
template <class V>
__device__ void spgemm_reuse_values(u64 nnz, const u32* __restrict__ seg, const uint2* __restrict__ pairs,
                                    const V* __restrict__ a_val, const V* __restrict__ b_val, V* c_val,
                                    typename ComputeOf<V>::type alpha, typename ComputeOf<V>::type beta) {
    typedef typename ComputeOf<V>::type T;
    GRID_STRIDE(t, nnz) {
        const u32 start = seg[t], end = seg[t + 1];
        if (end - start > SPGEMM_REUSE_LONG) continue;
        T sum = T(0);
        for (u32 r = start; r < end; ++r) sum = add_rn(sum, reuse_product(a_val, b_val, pairs[r]));
        reuse_store(c_val, t, sum, alpha, beta);
    }
}

// The long runs: a warp per entry loads and multiplies 32 products at once, then every lane
// adds them in run order (shuffles), so the sum is the same as one thread's.
template <class V>
__device__ void spgemm_reuse_long(const u32* __restrict__ long_list, const u32* __restrict__ seg,
                                  const uint2* __restrict__ pairs, const V* __restrict__ a_val,
                                  const V* __restrict__ b_val, V* c_val, typename ComputeOf<V>::type alpha,
                                  typename ComputeOf<V>::type beta) {
    typedef typename ComputeOf<V>::type T;
    const int lane = threadIdx.x & 31;
    const u32 count = long_list[0];
    const u32 warps = (gridDim.x * blockDim.x) >> 5;
    for (u32 w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < count; w += warps) {
        const u32 t = long_list[1 + w];
        const u32 start = seg[t], end = seg[t + 1];
        T sum = T(0);
        for (u32 r0 = start; r0 < end; r0 += 32) {
            const u32 r = r0 + lane;
            const T p = r < end ? reuse_product(a_val, b_val, pairs[r]) : T(0);
            const u32 n = min(32u, end - r0);
            for (u32 k = 0; k < n; ++k) sum = add_rn(sum, __shfl_sync(SPBLK_FULL_MASK, p, k));
        }
        if (lane == 0) reuse_store(c_val, t, sum, alpha, beta);
    }
}

// long_list[0] = how many entries have runs over SPGEMM_REUSE_LONG, then those entries (in
// any order: each is summed on its own). long_list[0] must be zeroed.
extern "C" __global__ void spblk_spgemm_reuse_long_list(u64 nnz, const u32* seg, u32* long_list) {
    GRID_STRIDE(t, nnz) {
        if (seg[t + 1] - seg[t] > SPGEMM_REUSE_LONG) long_list[1 + atomicAdd(&long_list[0], 1u)] = (u32)t;
    }
}

#define SPGEMM_REUSE_WALK_ENTRY(I, tidx)                                                                       \
    extern "C" __global__ void spblk_spgemm_reuse_count_##tidx(                                                \
        i64 m, const I* a_ptr, const I* a_col, i64 a_base, const I* b_ptr, const I* b_col, i64 b_base,         \
        const I* c_ptr, const I* c_col, i64 c_base, u32* cursor) {                                             \
        spgemm_reuse_walk<I, false>(m, a_ptr, a_col, a_base, b_ptr, b_col, b_base, c_ptr, c_col, c_base,       \
                                    cursor, nullptr);                                                          \
    }                                                                                                          \
    extern "C" __global__ void spblk_spgemm_reuse_place_##tidx(                                                \
        i64 m, const I* a_ptr, const I* a_col, i64 a_base, const I* b_ptr, const I* b_col, i64 b_base,         \
        const I* c_ptr, const I* c_col, i64 c_base, u32* cursor, uint2* pairs) {                               \
        spgemm_reuse_walk<I, true>(m, a_ptr, a_col, a_base, b_ptr, b_col, b_base, c_ptr, c_col, c_base,       \
                                   cursor, pairs);                                                             \
    }
SPGEMM_REUSE_WALK_ENTRY(int, i32)
SPGEMM_REUSE_WALK_ENTRY(long long, i64)

#define SPGEMM_REUSE_VALUES_ENTRY(V, tv, ...)                                                                       \
    extern "C" __global__ void spblk_spgemm_reuse_values_##tv(                                                 \
        u64 nnz, const u32* seg, const uint2* pairs, const V* a_val, const V* b_val, V* c_val,                 \
        const ComputeOf<V>::type* alpha_dev, ComputeOf<V>::type alpha_h, const ComputeOf<V>::type* beta_dev,   \
        ComputeOf<V>::type beta_h) {                                                                           \
        spgemm_reuse_values<V>(nnz, seg, pairs, a_val, b_val, c_val, scalar_arg(alpha_dev, alpha_h),           \
                               scalar_arg(beta_dev, beta_h));                                                  \
    }                                                                                                          \
    extern "C" __global__ void spblk_spgemm_reuse_long_##tv(                                                   \
        const u32* long_list, const u32* seg, const uint2* pairs, const V* a_val, const V* b_val, V* c_val,    \
        const ComputeOf<V>::type* alpha_dev, ComputeOf<V>::type alpha_h, const ComputeOf<V>::type* beta_dev,   \
        ComputeOf<V>::type beta_h) {                                                                           \
        spgemm_reuse_long<V>(long_list, seg, pairs, a_val, b_val, c_val, scalar_arg(alpha_dev, alpha_h),       \
                             scalar_arg(beta_dev, beta_h));                                                    \
    }
SPBLK_FOR_VALUES(SPGEMM_REUSE_VALUES_ENTRY, 0)
