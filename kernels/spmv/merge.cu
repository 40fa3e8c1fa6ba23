// CSR SpMV with merge-path tiles (`SPBLK_SPMV_ALG_CSR_MERGE`; docs/spmv.md).
//
// Work coordinates: row r's marker at key(r) = r + ptr[r] - base, its entry p at r + 1 + p
// (zero-based p); key(m) = m + nnz. Tile b covers the window [b*W, (b+1)*W) of coordinates.
//  * A short row (<= MERGE_L entries) is owned by the tile whose window holds its marker and
//    computed whole there (the tile may read up to MERGE_L entries past its window): at most
//    W rows and W + MERGE_L items per tile.
//  * A long row (> MERGE_L entries) is cut by the windows: each tile sums the entries whose
//    coordinates fall in its window into part[2*b + slot] (slot 1: the row's first entries
//    are in this window; slot 0: they are in an earlier one; at most one row of each kind per
//    window), and records in fin_row[b] the long row whose last entry is in its window. The
//    finishing kernel adds a row's partials in tile order. Only when part != NULL (the host
//    passes NULL only when no row can be long).
// Inside a tile (one warp; MERGE_WARPS independent tiles per block, no block barrier): the
// owned rows' entries are streamed once (16-byte loads when aligned, two per array and lane
// before the x gathers, evict-first hint) and their products a*x stored in the warp's shared
// slice; each lane then walks 1/32 of the tile's rows + entries (merge path), a 5-step shuffle
// scan adds the sums of rows that cross lanes, and y is written coalesced. Every sum has a
// fixed order: bitwise deterministic, no atomics.
#include "common/warp.cuh"

#define MERGE_WARPS 2
#define MERGE_THREADS (32 * MERGE_WARPS)
#define MERGE_W 512
#define MERGE_L 512

// ---- loads ------------------------------------------------------------------------------

// Streaming (read-once) loads of the matrix, and read-only-path loads of x.
__device__ __forceinline__ float mg_stream(const float* p) { return __ldcs(p); }
__device__ __forceinline__ double mg_stream(const double* p) { return __ldcs(p); }
__device__ __forceinline__ int mg_stream(const int* p) { return __ldcs(p); }
__device__ __forceinline__ long long mg_stream(const long long* p) { return __ldcs(p); }
__device__ __forceinline__ f16 mg_stream(const f16* p) {
    return __ushort_as_half(__ldcs(reinterpret_cast<const unsigned short*>(p)));
}
__device__ __forceinline__ bf16 mg_stream(const bf16* p) {
    return __ushort_as_bfloat16(__ldcs(reinterpret_cast<const unsigned short*>(p)));
}
__device__ __forceinline__ float mg_ro(const float* p) { return __ldg(p); }
__device__ __forceinline__ double mg_ro(const double* p) { return __ldg(p); }
__device__ __forceinline__ f16 mg_ro(const f16* p) {
    return __ushort_as_half(__ldg(reinterpret_cast<const unsigned short*>(p)));
}
__device__ __forceinline__ bf16 mg_ro(const bf16* p) {
    return __ushort_as_bfloat16(__ldg(reinterpret_cast<const unsigned short*>(p)));
}

// Four consecutive elements at a 4-element-aligned position of a 16-byte-aligned array
// (8-byte-aligned for 2-byte types), streamed.
template <class E> struct MgLoad4;
template <> struct MgLoad4<float> {
    __device__ static __forceinline__ void run(const float* p, float* o) {
        float4 v = __ldcs(reinterpret_cast<const float4*>(p));
        o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = v.w;
    }
};
template <> struct MgLoad4<double> {
    __device__ static __forceinline__ void run(const double* p, double* o) {
        double2 a = __ldcs(reinterpret_cast<const double2*>(p)), b = __ldcs(reinterpret_cast<const double2*>(p) + 1);
        o[0] = a.x; o[1] = a.y; o[2] = b.x; o[3] = b.y;
    }
};
template <> struct MgLoad4<int> {
    __device__ static __forceinline__ void run(const int* p, int* o) {
        int4 v = __ldcs(reinterpret_cast<const int4*>(p));
        o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = v.w;
    }
};
template <> struct MgLoad4<long long> {
    __device__ static __forceinline__ void run(const long long* p, long long* o) {
        longlong2 a = __ldcs(reinterpret_cast<const longlong2*>(p)), b = __ldcs(reinterpret_cast<const longlong2*>(p) + 1);
        o[0] = a.x; o[1] = a.y; o[2] = b.x; o[3] = b.y;
    }
};
template <> struct MgLoad4<f16> {
    __device__ static __forceinline__ void run(const f16* p, f16* o) {
        uint2 raw = __ldcs(reinterpret_cast<const uint2*>(p));
        o[0] = __ushort_as_half((unsigned short)(raw.x & 0xffffu));
        o[1] = __ushort_as_half((unsigned short)(raw.x >> 16));
        o[2] = __ushort_as_half((unsigned short)(raw.y & 0xffffu));
        o[3] = __ushort_as_half((unsigned short)(raw.y >> 16));
    }
};
template <> struct MgLoad4<bf16> {
    __device__ static __forceinline__ void run(const bf16* p, bf16* o) {
        uint2 raw = __ldcs(reinterpret_cast<const uint2*>(p));
        o[0] = __ushort_as_bfloat16((unsigned short)(raw.x & 0xffffu));
        o[1] = __ushort_as_bfloat16((unsigned short)(raw.x >> 16));
        o[2] = __ushort_as_bfloat16((unsigned short)(raw.y & 0xffffu));
        o[3] = __ushort_as_bfloat16((unsigned short)(raw.y >> 16));
    }
};

// ---- partition ---------------------------------------------------------------------------

template <class I> __device__ __forceinline__ i64 mg_key(const I* ptr, i64 base, i64 r) {
    return r + (i64)ptr[r] - base;
}

// The first row r in [0, m] with key(r) >= target (m when none), by the calling warp (all 32
// lanes must call; all get the answer): each step probes 31 points of the range and ballots.
template <class I> __device__ i64 mg_first_row(const I* ptr, i64 m, i64 base, i64 target) {
    const int lane = threadIdx.x & 31;
    i64 lo = 0, hi = m;  // the answer is in [lo, hi]; key(m) = m + nnz bounds every target used
    while (hi - lo > 32) {
        const i64 span = hi - lo;
        const i64 probe = lo + span * (lane + 1) / 32;  // lane 31 probes hi (not needed)
        const bool ge = lane < 31 && mg_key(ptr, base, probe) >= target;
        const unsigned below = __ballot_sync(SPBLK_FULL_MASK, lane < 31 && !ge);
        const int c = __popc(below);  // probes below the target: lanes 0..c-1
        const i64 new_lo = c == 0 ? lo : lo + span * c / 32 + 1;
        const i64 new_hi = c == 31 ? hi : lo + span * (c + 1) / 32;
        lo = new_lo;
        hi = new_hi;
    }
    const i64 q = lo + lane;
    const bool ge = q < hi && mg_key(ptr, base, q) >= target;
    const unsigned hit = __ballot_sync(SPBLK_FULL_MASK, ge);
    return hit ? lo + (__ffs(hit) - 1) : hi;
}

// starts[b] = first row of tile b for b in [0, tiles]; one warp per entry.
template <class I> __device__ void mg_starts(const I* ptr, i64 m, i64 base, u64 tiles, I* starts) {
    const u64 warps = ((u64)gridDim.x * blockDim.x) >> 5;
    for (u64 b = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; b <= tiles; b += warps) {
        const i64 r = mg_first_row(ptr, m, base, (i64)b * MERGE_W);
        if ((threadIdx.x & 31) == 0) starts[b] = (I)r;
    }
}

// ---- the tile kernel ---------------------------------------------------------------------

// Calls f(p - s, val[p] * x[col[p]]) for every zero-based p in [s, e), spread over the
// calling warp's lanes (all 32 must call). With `vec`, the 4-aligned body is read with
// 16-byte loads, two per array and lane before the x gathers (8 products in flight per lane);
// the head and tail (fewer than 4 entries each) with scalar loads. A lane's sequence of p is
// fixed by (s, e, vec), so a sum accumulated in f has a fixed order.
template <class In, class I, class T, class F>
__device__ __forceinline__ void mg_products(const I* __restrict__ col, const In* __restrict__ val, i64 base,
                                            const In* __restrict__ x, i64 incx, i64 s, i64 e, int vec, F&& f) {
    const int lane = threadIdx.x & 31;
    i64 a = s, z = s;  // the vector body [a, z); without vec, all of [s, e) is the "tail"
    if (vec) {
        a = (s + 3) & ~(i64)3;
        z = e & ~(i64)3;
        if (a > e) a = e;
        if (z < a) z = a;
        const i64 p = s + lane;
        if (p < a) f((int)(p - s), to_compute(mg_stream(val + p)) * to_compute(mg_ro(x + ((i64)mg_stream(col + p) - base) * incx)));
    }
    const i64 qa = a >> 2, qz = z >> 2;
    for (i64 q = qa + lane; q < qz; q += 64) {
        const bool two = q + 32 < qz;
        I c[8];
        In v[8];
        MgLoad4<I>::run(col + (q << 2), c);
        MgLoad4<In>::run(val + (q << 2), v);
        if (two) {
            MgLoad4<I>::run(col + ((q + 32) << 2), c + 4);
            MgLoad4<In>::run(val + ((q + 32) << 2), v + 4);
        }
        In xv[8];
#pragma unroll
        for (int u = 0; u < 4; ++u) xv[u] = mg_ro(x + ((i64)c[u] - base) * incx);
        if (two) {
#pragma unroll
            for (int u = 4; u < 8; ++u) xv[u] = mg_ro(x + ((i64)c[u] - base) * incx);
        }
        const int k = (int)((q << 2) - s);
#pragma unroll
        for (int u = 0; u < 4; ++u) f(k + u, to_compute(v[u]) * to_compute(xv[u]));
        if (two) {
#pragma unroll
            for (int u = 4; u < 8; ++u) f(k + 124 + u, to_compute(v[u]) * to_compute(xv[u]));
        }
    }
    for (i64 p = z + lane; p < e; p += 32)
        f((int)(p - s), to_compute(mg_stream(val + p)) * to_compute(mg_ro(x + ((i64)mg_stream(col + p) - base) * incx)));
}

// One warp per tile (MERGE_WARPS tiles per block, no block barrier): the warp streams the
// owned rows' products into its shared slice, each lane walks 1/32 of the tile's merge path
// (row ends vs entries), a 5-step shuffle scan adds the sums of rows that cross lanes, and y
// is written coalesced from the row sums.
template <class In, class Out, class I>
__device__ void spmv_merge_tile(i64 m, i64 nnz, const I* __restrict__ ptr, const I* __restrict__ col,
                                const In* __restrict__ val, i64 base, const In* __restrict__ x, i64 incx,
                                Out* __restrict__ y, i64 incy, const typename ComputeOf<In>::type* alpha_dev,
                                typename ComputeOf<In>::type alpha_h,
                                const typename ComputeOf<In>::type* beta_dev, typename ComputeOf<In>::type beta_h,
                                const I* __restrict__ starts, int vec, typename ComputeOf<In>::type* part,
                                i64* fin_row) {
    typedef typename ComputeOf<In>::type T;
    __shared__ T s_prod[MERGE_WARPS][MERGE_W + MERGE_L];
    __shared__ T s_sum[MERGE_WARPS][MERGE_W];
    __shared__ int s_end[MERGE_WARPS][MERGE_W];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const i64 tiles = (m + nnz + MERGE_W - 1) / MERGE_W;
    const i64 b = (i64)blockIdx.x * MERGE_WARPS + w;
    if (b >= tiles) return;  // the whole warp; nothing below synchronizes more than a warp
    T* prod = s_prod[w];
    T* rsum = s_sum[w];
    int* end = s_end[w];
    const i64 win0 = b * MERGE_W, win1 = win0 + MERGE_W;

    // Rows whose markers lie in the window: [r0, r1).
    i64 r0, r1;
    if (starts) {
        const i64 v = lane < 2 ? (i64)starts[b + lane] : 0;
        r0 = __shfl_sync(SPBLK_FULL_MASK, v, 0);
        r1 = __shfl_sync(SPBLK_FULL_MASK, v, 1);
    } else {
        r0 = mg_first_row(ptr, m, base, win0);
        r1 = mg_first_row(ptr, m, base, win1);
    }
    // ptr[r0-1], ptr[r0], ptr[r1-1], ptr[r1] (zero-based) in one round by lanes 0..3.
    i64 pv = 0;
    {
        const i64 idx = lane == 0 ? r0 - 1 : lane == 1 ? r0 : lane == 2 ? r1 - 1 : r1;
        if (lane < 4 && idx >= 0) pv = (i64)ptr[idx] - base;
    }
    const i64 pa = __shfl_sync(SPBLK_FULL_MASK, pv, 0), p0 = __shfl_sync(SPBLK_FULL_MASK, pv, 1);
    const i64 pb = __shfl_sync(SPBLK_FULL_MASK, pv, 2), p1 = __shfl_sync(SPBLK_FULL_MASK, pv, 3);
    const bool split = part != nullptr;  // long rows possible
    // A long row can only be the window's last (it is longer than a window).
    const bool last_long = split && r1 > r0 && p1 - pb > MERGE_L;
    const i64 r1s = last_long ? r1 - 1 : r1;  // owned short rows [r0, r1s), entries [n0, n1)
    const i64 n0 = p0, n1 = last_long ? pb : p1;
    const int R = (int)(r1s - r0), N = (int)(n1 - n0), items = R + N;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);

    // 1. Row ends and products into the warp's shared slice.
#pragma unroll 4
    for (int k = lane; k < R; k += 32) end[k] = (int)((i64)ptr[r0 + k + 1] - base - n0);
    mg_products<In, I, T>(col, val, base, x, incx, n0, n1, vec, [&](int k, T v) { prod[k] = v; });
    __syncwarp();

    // 2. Lane walks items [d0, d1) of the tile's merge path (row ends vs entries): row end k
    // comes after end[k] entries and k row ends.
    const int d0 = (lane * items) >> 5, d1 = ((lane + 1) * items) >> 5;
    int lo = d0 - N > 0 ? d0 - N : 0, hi = d0 < R ? d0 : R;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (end[mid] <= d0 - mid - 1) lo = mid + 1; else hi = mid;
    }
    int i = lo, j = d0 - lo;
    const int first_row = i;
    bool has_first = false;
    T first_val = 0, sum = 0;
    int cur = i < R ? end[i] : 0x7fffffff;
    for (int d = d0; d < d1; ++d) {
        if (j < cur) {
            sum += prod[j];
            ++j;
        } else {
            if (has_first) rsum[i] = sum; else first_val = sum;
            has_first = true;
            sum = 0;
            ++i;
            cur = i < R ? end[i] : 0x7fffffff;
        }
    }
    // Segmented inclusive scan of the carries (row i, sum) over the lanes; rows are
    // non-decreasing in the lane, so equal rows are contiguous.
#pragma unroll
    for (int off = 1; off < 32; off <<= 1) {
        const T tv = __shfl_up_sync(SPBLK_FULL_MASK, sum, off);
        const int tr = __shfl_up_sync(SPBLK_FULL_MASK, i, off);
        if (lane >= off && tr == i) sum += tv;
    }
    {
        const T pvs = __shfl_up_sync(SPBLK_FULL_MASK, sum, 1);
        const int prs = __shfl_up_sync(SPBLK_FULL_MASK, i, 1);
        if (has_first) rsum[first_row] = (lane > 0 && prs == first_row ? pvs : T(0)) + first_val;
    }
    __syncwarp();

    // 3. y of the owned rows, coalesced.
    for (int k = lane; k < R; k += 32) axpby_store(&y[(r0 + k) * incy], rsum[k], alpha, beta);

    if (!split) return;
    // 4. Long rows: the two candidates are r0 - 1 (marker before the window: ptr pa..p0) and
    // r1 - 1 (ptr pb..p1). Slot 1: the row's first entries are in this window; slot 0: in an
    // earlier one.
    i64 fin = -1;
#pragma unroll
    for (int c = 0; c < 2; ++c) {
        const i64 zr = c == 0 ? r0 - 1 : (r1 > r0 ? r1 - 1 : -1);
        if (zr < 0) continue;  // uniform across the warp
        const i64 ps = c == 0 ? pa : pb, pe = c == 0 ? p0 : p1;
        if (pe - ps <= MERGE_L) continue;
        const i64 first = zr + 1 + ps, last = zr + pe;  // coordinates of its first and last entries
        if (last < win0 || first >= win1) continue;
        const int slot = first >= win0 ? 1 : 0;
        const i64 s = (first > win0 ? first : win0) - zr - 1, e = (last + 1 < win1 ? last + 1 : win1) - zr - 1;
        T acc = 0;
        mg_products<In, I, T>(col, val, base, x, incx, s, e, vec, [&](int, T v) { acc += v; });
        acc = warp_sum(acc);
        if (lane == 0) part[2 * b + slot] = acc;
        if (last < win1) fin = zr;
    }
    if (lane == 0) fin_row[b] = fin;
}

// One warp per tile: the long row whose last entry is in tile b's window gets the sum of its
// partials in tile order.
template <class In, class Out, class I>
__device__ void spmv_merge_finish(u64 tiles, const I* ptr, i64 base, const i64* fin_row,
                                  const typename ComputeOf<In>::type* part, Out* y, i64 incy,
                                  const typename ComputeOf<In>::type* alpha_dev, typename ComputeOf<In>::type alpha_h,
                                  const typename ComputeOf<In>::type* beta_dev, typename ComputeOf<In>::type beta_h) {
    typedef typename ComputeOf<In>::type T;
    const int lane = threadIdx.x & 31;
    const u64 warps = ((u64)gridDim.x * blockDim.x) >> 5;
    for (u64 b = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; b < tiles; b += warps) {
        const i64 z = fin_row[b];
        if (z < 0) continue;
        const i64 bf = (z + 1 + (i64)ptr[z] - base) / MERGE_W;  // the window of its first entry
        const i64 count = (i64)b - bf + 1;
        T sum = 0;
        for (i64 k = lane; k < count; k += 32) sum += k == 0 ? part[2 * bf + 1] : part[2 * (bf + k)];
        sum = warp_sum(sum);
        if (lane == 0) {
            const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
            axpby_store(&y[z * incy], sum, alpha, beta);
        }
    }
}

#define SPMV_MERGE_ENTRY(In, Out, tin, tout, I, tidx)                                                    \
    extern "C" __global__ void __launch_bounds__(MERGE_THREADS) spblk_spmv_merge_tiles_##tin##_##tout##_##tidx( \
        i64 m, i64 nnz, const I* ptr, const I* col, const In* val, i64 base, const In* x, i64 incx, Out* y, \
        i64 incy, const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha,                       \
        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta, const I* starts, int vec,         \
        ComputeOf<In>::type* part, i64* fin_row) {                                                       \
        spmv_merge_tile<In, Out, I>(m, nnz, ptr, col, val, base, x, incx, y, incy, alpha_dev, alpha,     \
                                    beta_dev, beta, starts, vec, part, fin_row);                         \
    }                                                                                                    \
    extern "C" __global__ void spblk_spmv_merge_finish_##tin##_##tout##_##tidx(                          \
        u64 tiles, const I* ptr, i64 base, const i64* fin_row, const ComputeOf<In>::type* part, Out* y,   \
        i64 incy, const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha,                       \
        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta) {                                 \
        spmv_merge_finish<In, Out, I>(tiles, ptr, base, fin_row, part, y, incy, alpha_dev, alpha,        \
                                      beta_dev, beta);                                                   \
    }
#define SPMV_MERGE_STARTS_ENTRY(I, tidx)                                                                 \
    extern "C" __global__ void spblk_spmv_merge_starts_##tidx(const I* ptr, i64 m, i64 base, u64 tiles,  \
                                                              I* starts) {                               \
        mg_starts<I>(ptr, m, base, tiles, starts);                                                       \
    }

SPBLK_FOR_PRECISIONS(SPMV_MERGE_ENTRY, int, i32)
SPBLK_FOR_PRECISIONS(SPMV_MERGE_ENTRY, long long, i64)
SPMV_MERGE_STARTS_ENTRY(int, i32)
SPMV_MERGE_STARTS_ENTRY(long long, i64)
