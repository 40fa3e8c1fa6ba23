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
// Inside a tile (one warp; MERGE_WARPS independent tiles per block, no block barrier, no
// shared memory): the owned rows go in batches of 32, one row per lane; the batch's entries
// stream through the warp 32 consecutive entries at a time (evict-first hint for the matrix,
// x through the read-only path) and a segmented shuffle scan adds each round into the rows'
// sums; y is written coalesced. Every sum has a fixed order: bitwise deterministic, no atomics.
#include "common/warp.cuh"

#define MERGE_WARPS 2
#define MERGE_THREADS (32 * MERGE_WARPS)
// Blocks per SM the register budget must allow: 48 warps (40 registers) for 4-byte and
// 2-byte values, where occupancy is what hides the gathers' latency; 32 warps for f64, whose
// four rounds of loads in flight need more registers (at 40 the compiler serializes them:
// Poisson 3-D f64 9 % slower on the H100).
#define MERGE_MIN_BLOCKS(In) (sizeof(In) == 8 ? 16 : 24)
#define MERGE_W 512
#define MERGE_L 512
// Rounds of 32 entries whose loads are in flight together (per lane: MG_ROUNDS gathers).
#define MG_ROUNDS 4

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

// Low 32 bits of a matrix value, for mg_after.
__device__ __forceinline__ unsigned mg_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned mg_bits(double v) { return (unsigned)__double2loint(v); }
__device__ __forceinline__ unsigned mg_bits(f16 v) { return __half_as_ushort(v); }
__device__ __forceinline__ unsigned mg_bits(bf16 v) { return __bfloat16_as_ushort(v); }

// c, made to depend on a by one LOP3 that passes c through: a scheduling constraint for ptxas,
// which otherwise orders a batch's loads badly once the batch's bounds are known early. Used
// so that a gather also waits for its value load (every index and value load of the rounds
// then goes out before the first gather, not the value loads a round trip after the gathers),
// and so that the rows' bounds are used only after the round's products (not waited for ahead
// of the entry loads).
template <class I, class In> __device__ __forceinline__ I mg_after(I c, In a) {
    unsigned lo = (unsigned)c;
    asm("lop3.b32 %0, %1, %2, 0, 0xF0;" : "=r"(lo) : "r"(lo), "r"(mg_bits(a)));
    return sizeof(I) == 8 ? (I)(((unsigned long long)c & 0xffffffff00000000ull) | lo) : (I)lo;
}

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

// v[u] = val[p] * x[col[p]] for p = rb + 32u + lane, 0 where p >= e (e > rb). Every load is
// unconditional (positions past e read entry e - 1), so all MG_ROUNDS index and value loads
// issue before the first x gather, and all gathers before the first product: one round trip
// each instead of one per round.
template <class In, class I, class T, class P>
__device__ __forceinline__ void mg_products(const I* __restrict__ col, const In* __restrict__ val, i64 base,
                                            const In* __restrict__ x, i64 incx, P rb, P e, T* v) {
    const int lane = threadIdx.x & 31;
    I c[MG_ROUNDS];
    In a[MG_ROUNDS];
#pragma unroll
    for (int u = 0; u < MG_ROUNDS; ++u) {
        const P p = min(rb + 32 * u + lane, e - 1);
        c[u] = mg_stream(col + p);
        a[u] = mg_stream(val + p);
    }
    In xv[MG_ROUNDS];
#pragma unroll
    for (int u = 0; u < MG_ROUNDS; ++u) xv[u] = mg_ro(x + ((i64)mg_after(c[u], a[u]) - base) * incx);
#pragma unroll
    for (int u = 0; u < MG_ROUNDS; ++u) v[u] = rb + 32 * u + lane < e ? to_compute(a[u]) * to_compute(xv[u]) : T(0);
}

// The products a*x of entries [s, e) summed over the calling warp (all 32 lanes must call;
// every lane gets the total): lane j adds entries s + j, s + j + 32, ... in order, MG_ROUNDS
// rounds of loads in flight, then a fixed-order shuffle sum. Deterministic.
template <class In, class I, class T>
__device__ __forceinline__ T mg_window_sum(const I* __restrict__ col, const In* __restrict__ val, i64 base,
                                           const In* __restrict__ x, i64 incx, i64 s, i64 e) {
    const int lane = threadIdx.x & 31;
    T acc = 0;
    for (i64 rb = s; rb < e; rb += 32 * MG_ROUNDS) {
        T v[MG_ROUNDS];
        mg_products<In, I, T>(col, val, base, x, incx, rb, e, v);
#pragma unroll
        for (int u = 0; u < MG_ROUNDS; ++u) acc += v[u];
    }
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(SPBLK_FULL_MASK, acc, off);
    return acc;
}

// Adds the products of one round of 32 consecutive entries [rb, rb + 32) (lane j holds
// v = a*x of entry rb + j, 0 past the batch) into the sums of the batch's rows: a segmented
// inclusive scan over the lanes (segments start where a row starts, and at lane 0), then lane
// k (row k of the batch, entries [s, e)) adds the scan value at its row's last entry in the
// round. Fixed order: deterministic.
template <class T>
__device__ __forceinline__ void mg_round(T v, int rb, bool nonempty, int s, int e, T& acc) {
    const int lane = threadIdx.x & 31;
    const bool starts_here = nonempty && s >= rb && s < rb + 32;
    const unsigned heads = __reduce_or_sync(SPBLK_FULL_MASK, starts_here ? 1u << (s - rb) : 0u) | 1u;
    const int seg = 31 - __clz(heads & ((2u << lane) - 1u));  // 2u << 31 wraps to 0: all bits
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const T t = __shfl_up_sync(SPBLK_FULL_MASK, v, d);
        if (lane - d >= seg) v += t;
    }
    const bool in_round = nonempty && s < rb + 32 && e > rb;
    const int src = in_round ? min(e, rb + 32) - rb - 1 : lane;
    const T t = __shfl_sync(SPBLK_FULL_MASK, v, src);
    if (in_round) acc += t;
}

// One warp per tile (MERGE_WARPS tiles per block, no block barrier, no shared memory). The
// tile's owned short rows go in batches of 32 (lane k holds row k's bounds and sum); the
// batch's entries stream through the warp in rounds of 32 consecutive entries, MG_ROUNDS
// rounds loaded before their products are added (coalesced loads, evict-first hint for the
// matrix, x through the read-only path), and each round is added into the rows by a
// segmented shuffle scan (mg_round). y is written coalesced, one row per lane.
template <class In, class Out, class I>
__device__ void spmv_merge_tile(i64 m, i64 nnz, const I* __restrict__ ptr, const I* __restrict__ col,
                                const In* __restrict__ val, i64 base, const In* __restrict__ x, i64 incx,
                                Out* __restrict__ y, i64 incy, const typename ComputeOf<In>::type* alpha_dev,
                                typename ComputeOf<In>::type alpha_h,
                                const typename ComputeOf<In>::type* beta_dev, typename ComputeOf<In>::type beta_h,
                                const I* __restrict__ starts, typename ComputeOf<In>::type* part,
                                i64* fin_row) {
    typedef typename ComputeOf<In>::type T;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const i64 tiles = (m + nnz + MERGE_W - 1) / MERGE_W;
    const i64 b = (i64)blockIdx.x * MERGE_WARPS + w;
    if (b >= tiles) return;  // the whole warp; nothing below synchronizes more than a warp
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
    // ptr[r0-1], ptr[r0], ptr[r1-1], ptr[r1] (zero-based) by lanes 0..3, and in the same round
    // by lanes 4..19 the end of each batch of 32 rows, ptr[min(r0 + 32k, r1)] for k = 1..16 (a
    // window holds at most MERGE_W = 512 markers, so 16 batches): a batch's bounds are then
    // known before its rows' own bounds arrive, and its first loads go out with them.
    i64 pv = 0;
    {
        const i64 idx = lane == 0 ? r0 - 1 : lane == 1 ? r0 : lane == 2 ? r1 - 1 : lane == 3 ? r1
                                                                          : min(r0 + 32 * (i64)(lane - 3), r1);
        if (lane < 20 && idx >= 0) pv = (i64)ptr[idx] - base;
    }
    const i64 pa = __shfl_sync(SPBLK_FULL_MASK, pv, 0), p0 = __shfl_sync(SPBLK_FULL_MASK, pv, 1);
    const i64 pb = __shfl_sync(SPBLK_FULL_MASK, pv, 2), p1 = __shfl_sync(SPBLK_FULL_MASK, pv, 3);
    // Lanes 4..19: batch ends relative to p0 (they fit an int where used: inside the owned
    // short rows' entries).
    const int batch_end = (int)(pv - p0);
    const bool split = part != nullptr;  // long rows possible
    // A long row can only be the window's last (it is longer than a window).
    const bool last_long = split && r1 > r0 && p1 - pb > MERGE_L;
    const int R = (int)((last_long ? r1 - 1 : r1) - r0);  // owned short rows [r0, r0 + R)
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);

    // Offsets below are relative to p0, the first owned entry: the owned short rows' entries
    // span at most MERGE_W + MERGE_L, so they fit an int.
    const I* tcol = col + p0;
    const In* tval = val + p0;
    for (int kb = 0; kb < R; kb += 32) {
        const bool has = kb + lane < R;
        const i64 row = r0 + kb + lane;
        // Unconditional loads (lanes past the tile's rows read the batch's first row): loads
        // under a branch make the warp wait for them before it reconverges, ahead of the
        // batch's entry loads.
        const i64 at = has ? row : r0 + kb;
        const unsigned s_at = (unsigned)ptr[at], e_at = (unsigned)ptr[at + 1], origin = (unsigned)(base + p0);
        // The batch's end: ptr[r0 + kb + 32] from the first round, or for the tile's last
        // batch ptr[r0 + R] (p1; pb when the window's last row is long and not owned).
        // Its first entry: the previous batch's end (shuffled unconditionally: a branch here
        // would again make the warp wait for the bounds' loads).
        const int prev_end = __shfl_sync(SPBLK_FULL_MASK, batch_end, 3 + kb / 32);
        const int S = kb ? prev_end : 0;
        const int bend = __shfl_sync(SPBLK_FULL_MASK, batch_end, 4 + kb / 32);
        const int E = kb + 32 < R ? bend : (int)((last_long ? pb : p1) - p0);
        T acc = 0;
        for (int rb = S; rb < E; rb += 32 * MG_ROUNDS) {
            T v[MG_ROUNDS];
            mg_products<In, I, T>(tcol, tval, base, x, incx, rb, E, v);
            // The row's bounds relative to p0 (wrap-around 32-bit arithmetic; the result fits
            // an int), used only after the round's products.
            const int s = (int)(mg_after(s_at, v[0]) - origin), e = (int)(mg_after(e_at, v[0]) - origin);
            const bool nonempty = has && e > s;
#pragma unroll
            for (int u = 0; u < MG_ROUNDS; ++u)
                if (rb + 32 * u < E) mg_round(v[u], rb + 32 * u, nonempty, s, e, acc);
        }
        if (has) axpby_store(&y[row * incy], acc, alpha, beta);
    }

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
        const T acc = mg_window_sum<In, I, T>(col, val, base, x, incx, s, e);
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
    extern "C" __global__ void __launch_bounds__(MERGE_THREADS, MERGE_MIN_BLOCKS(In)) spblk_spmv_merge_tiles_##tin##_##tout##_##tidx( \
        i64 m, i64 nnz, const I* ptr, const I* col, const In* val, i64 base, const In* x, i64 incx, Out* y, \
        i64 incy, const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha,                       \
        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta, const I* starts,                  \
        ComputeOf<In>::type* part, i64* fin_row) {                                                       \
        spmv_merge_tile<In, Out, I>(m, nnz, ptr, col, val, base, x, incx, y, incy, alpha_dev, alpha,     \
                                    beta_dev, beta, starts, part, fin_row);                              \
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
