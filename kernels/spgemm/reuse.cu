// SpGEMM reuse path (spblkSpGEMMreuse_*): once C's pattern is fixed (sorted columns), every
// product has a fixed place in C. The reuse plan lists, for each entry of C, the (A entry,
// B entry) pairs of its products in expansion order (`seg` gives each entry's run of `pairs`).
// reuse_compute sums each run in that order, so its values equal the full product's and the
// host's bit for bit, with no tables, hashing or sorting: one pass over the plan.
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

// C's values from the plan: entry t sums its run in order (rounded, uncontracted, as the full
// product does), times alpha; with beta != 0 plus beta times the value already there.
template <class V>
__device__ void spgemm_reuse_values(u64 nnz, const u32* __restrict__ seg, const uint2* __restrict__ pairs,
                                    const V* __restrict__ a_val, const V* __restrict__ b_val, V* c_val,
                                    typename ComputeOf<V>::type alpha, typename ComputeOf<V>::type beta) {
    typedef typename ComputeOf<V>::type T;
    constexpr int U = 8;  // loads in flight per thread: long runs are latency-bound
    GRID_STRIDE(t, nnz) {
        T sum = T(0);
        u32 r = seg[t];
        const u32 end = seg[t + 1];
        for (; r + U <= end; r += U) {
            uint2 pq[U];
            T prod[U];
#pragma unroll
            for (int u = 0; u < U; ++u) pq[u] = pairs[r + u];
#pragma unroll
            for (int u = 0; u < U; ++u) prod[u] = mul_rn(to_compute(a_val[pq[u].x]), to_compute(b_val[pq[u].y]));
#pragma unroll
            for (int u = 0; u < U; ++u) sum = add_rn(sum, prod[u]);
        }
        for (; r < end; ++r) {
            const uint2 pq = pairs[r];
            sum = add_rn(sum, mul_rn(to_compute(a_val[pq.x]), to_compute(b_val[pq.y])));
        }
        T out = mul_rn(alpha, sum);
        if (beta != T(0)) out = add_rn(out, mul_rn(beta, to_compute(c_val[t])));
        c_val[t] = Store<V>::from(out);
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
    }
SPBLK_FOR_VALUES(SPGEMM_REUSE_VALUES_ENTRY, 0)
