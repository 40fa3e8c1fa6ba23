// CSR SpMM, C = alpha*A*op(B) + beta*C, A given as CSR of op(A).
//
// A group of G lanes (4..32) owns one row of A and a tile of G*VEC columns of C. The group
// loads the row's (column, value) pairs G at a time, coalesced, once per column tile, and
// broadcasts them with shuffles; each lane multiplies with its VEC consecutive elements of
// the B row. VEC = 4 is used when op(B) is effectively row-major and 4 consecutive elements are
// aligned (a float4 / 2 x double2 / 8-byte half4 load).
//
// Long rows (more than `long_threshold` entries) are not computed by the row kernel but
// appended to a list; the list is cut into chunks of `chunk` entries (spmv's plan kernel),
// one group sums each (chunk, column tile) into the caller's buffer (partial), and a
// finishing pass adds each row's chunk sums in chunk order. No floating-point atomics, so
// every C element is summed in a fixed order: deterministic (the list order may vary
// between runs, the sums do not).
//
// Effective layouts: op(B)(k, j) is at B[k*ldb + j] when `b_row` is set, else B[k + j*ldb];
// C(i, j) is at C[i*ldc + j] when `c_row` is set, else C[i + j*ldc]; c_row ==
// SPBLK_C_ROW_VEC4 also allows four-element vector stores (common/vec.cuh).
#include "common/vec.cuh"
#include "common/warp.cuh"
#include "spmm/segment.cuh"

// B rows in flight per lane in the row kernel (spmm_segment), and the blocks (of 256 threads)
// per SM that the register budget of the row and chunk kernels must allow: 4 = 32 warps, 64
// registers (no spill with U = 4; the chunk kernel took 90 and ran 23 % of its warps); f64
// needs more (2 blocks: at 64 it spills 172 bytes).
#define SPMM_ROW_U 4
#define SPMM_MIN_BLOCKS(In) (sizeof(In) == 8 ? 2 : 4)

template <class In, class Out, class I, int VEC>
__device__ void spmm_csr(i64 m, i64 n, const I* __restrict__ ptr, const I* __restrict__ col,
                         const In* __restrict__ val, i64 base, const In* __restrict__ B, i64 ldb, int b_row,
                         Out* __restrict__ C, i64 ldc, int c_row, const typename ComputeOf<In>::type* alpha_dev,
                         typename ComputeOf<In>::type alpha_h, const typename ComputeOf<In>::type* beta_dev,
                         typename ComputeOf<In>::type beta_h, int G, i64 long_threshold, i64* long_list,
                         u32* long_count, unsigned wave_blocks) {
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const GroupTiles w(G, VEC, n);
    const WaveWalk walk(m * w.tiles, G, wave_blocks);
    for (i64 g = walk.begin; g < walk.end; g += walk.step) {
        const i64 i = w.item(g);
        const i64 j0 = w.col0(g, i, VEC);
        const i64 s = (i64)ptr[i] - base, e = (i64)ptr[i + 1] - base;
        if (long_list && e - s > long_threshold) {
            if (g == i * w.tiles && w.glane == 0) long_list[atomicAdd(long_count, 1u)] = i;
            continue;
        }
        const bool vec = VEC == 4 && b_row && j0 + VEC <= n;
        T acc[VEC];
#pragma unroll
        for (int v = 0; v < VEC; ++v) acc[v] = 0;
        spmm_segment_any<In, T, I, VEC, SPMM_ROW_U>(s, e, n, col, val, base, B, ldb, b_row, j0, vec, w.glane, G,
                                                    w.gmask, acc);
        store_tile<T, Out, VEC>(C, ldc, c_row, i, j0, n, acc, alpha, beta);
    }
}

// One group per (chunk, column tile) of the long rows: partial[c*n + j] = chunk c's sum for
// column j. chunk_prefix comes from spblk_spmv_csr_long_plan.
template <class In, class I, int VEC>
__device__ void spmm_long_partial(i64 n, const u32* long_count, const i64* long_list, const u64* chunk_prefix,
                                  const I* __restrict__ ptr, const I* __restrict__ col, const In* __restrict__ val,
                                  i64 base, const In* __restrict__ B, i64 ldb, int b_row, i64 chunk,
                                  typename ComputeOf<In>::type* __restrict__ partial, int G) {
    typedef typename ComputeOf<In>::type T;
    const GroupTiles w(G, VEC, n);
    const u32 count = *long_count;
    const i64 total = (i64)chunk_prefix[count];
    for (i64 g = w.first; g < total * w.tiles; g += w.groups) {
        const i64 c = w.item(g);
        u32 lo = 0, hi = count;  // largest k with chunk_prefix[k] <= c
        while (hi - lo > 1) {
            const u32 mid = (lo + hi) >> 1;
            if ((i64)chunk_prefix[mid] <= c) lo = mid; else hi = mid;
        }
        const i64 r = long_list[lo];
        const i64 row_end = (i64)ptr[r + 1] - base;
        const i64 s = (i64)ptr[r] - base + (c - (i64)chunk_prefix[lo]) * chunk;
        const i64 e = s + chunk < row_end ? s + chunk : row_end;
        const i64 j0 = w.col0(g, c, VEC);
        const bool vec = VEC == 4 && b_row && j0 + VEC <= n;
        T acc[VEC];
#pragma unroll
        for (int v = 0; v < VEC; ++v) acc[v] = 0;
        spmm_segment_any<In, T, I, VEC, 4>(s, e, n, col, val, base, B, ldb, b_row, j0, vec, w.glane, G, w.gmask, acc);
        store_partial<T, VEC>(partial, c, j0, n, acc);
    }
}

// C(row, j) = alpha * (sum of the row's chunk partials for column j) + beta * C. One block of
// FINISH_WARPS warps per (long row, tile of 32 columns): lane = column (coalesced reads of a
// partial row), warp w adds the partials c = first + w, first + w + FINISH_WARPS, ... in
// order, and warp 0 adds the warps' sums in warp order: a fixed order, so deterministic, and
// a row cut into many chunks (one of 46 500 entries: 1453 chunks of 32) is summed
// FINISH_WARPS-wide instead of one partial after another.
#define FINISH_WARPS 8
template <class In, class Out>
__device__ void spmm_long_finish(i64 n, const u32* long_count, const i64* long_list, const u64* chunk_prefix,
                                 const typename ComputeOf<In>::type* __restrict__ partial, Out* C, i64 ldc,
                                 int c_row, const typename ComputeOf<In>::type* alpha_dev,
                                 typename ComputeOf<In>::type alpha_h, const typename ComputeOf<In>::type* beta_dev,
                                 typename ComputeOf<In>::type beta_h) {
    typedef typename ComputeOf<In>::type T;
    __shared__ T sums[FINISH_WARPS][32];
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const u32 count = *long_count;
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    const u64 tiles = (u64)(n + 31) / 32;
    for (u64 t = blockIdx.x; t < (u64)count * tiles; t += gridDim.x) {  // uniform over the block
        const u64 k = t / tiles;
        const i64 j = (i64)(t - k * tiles) * 32 + lane;
        T sum = 0;
        if (j < n) {
            for (u64 c = chunk_prefix[k] + w; c < chunk_prefix[k + 1]; c += FINISH_WARPS) sum += partial[(i64)c * n + j];
        }
        sums[w][lane] = sum;
        __syncthreads();
        if (w == 0 && j < n) {
            T total = sums[0][lane];
#pragma unroll
            for (int q = 1; q < FINISH_WARPS; ++q) total += sums[q][lane];
            const i64 i = long_list[k];
            axpby_store(c_row ? &C[i * ldc + j] : &C[i + j * ldc], total, alpha, beta);
        }
        __syncthreads();  // sums is reused by the next tile
    }
}

#define SPMM_ENTRY_V(In, Out, tin, tout, I, tidx, VEC)                                                   \
    extern "C" __global__ void __launch_bounds__(256, SPMM_MIN_BLOCKS(In))                               \
        spblk_spmm_csr_v##VEC##_##tin##_##tout##_##tidx(                                                 \
        i64 m, i64 n, const I* ptr, const I* col, const In* val, i64 base, const In* B, i64 ldb,         \
        int b_row, Out* C, i64 ldc, int c_row, const ComputeOf<In>::type* alpha_dev,                     \
        ComputeOf<In>::type alpha, const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta,        \
        int G, i64 long_threshold, i64* long_list, u32* long_count, unsigned wave_blocks) {              \
        spmm_csr<In, Out, I, VEC>(m, n, ptr, col, val, base, B, ldb, b_row, C, ldc, c_row, alpha_dev,    \
                                  alpha, beta_dev, beta, G, long_threshold, long_list, long_count,       \
                                  wave_blocks);                                                          \
    }
#define SPMM_ENTRY(In, Out, tin, tout, I, tidx) \
    SPMM_ENTRY_V(In, Out, tin, tout, I, tidx, 1) SPMM_ENTRY_V(In, Out, tin, tout, I, tidx, 4)

#define SPMM_PARTIAL_ENTRY_V(In, tin, I, tidx, VEC)                                                      \
    extern "C" __global__ void __launch_bounds__(256, SPMM_MIN_BLOCKS(In))                               \
        spblk_spmm_csr_long_partial_v##VEC##_##tin##_##tidx(                                             \
        i64 n, const u32* long_count, const i64* long_list, const u64* chunk_prefix, const I* ptr,       \
        const I* col, const In* val, i64 base, const In* B, i64 ldb, int b_row, i64 chunk,               \
        ComputeOf<In>::type* partial, int G) {                                                           \
        spmm_long_partial<In, I, VEC>(n, long_count, long_list, chunk_prefix, ptr, col, val, base, B,    \
                                      ldb, b_row, chunk, partial, G);                                    \
    }
#define SPMM_PARTIAL_ENTRY(In, tin, I, tidx) \
    SPMM_PARTIAL_ENTRY_V(In, tin, I, tidx, 1) SPMM_PARTIAL_ENTRY_V(In, tin, I, tidx, 4)

#define SPMM_FINISH_ENTRY(In, Out, tin, tout, unused)                                                    \
    extern "C" __global__ void __launch_bounds__(32 * FINISH_WARPS)                                      \
        spblk_spmm_csr_long_finish_##tin##_##tout(                                                       \
        i64 n, const u32* long_count, const i64* long_list, const u64* chunk_prefix,                     \
        const ComputeOf<In>::type* partial, Out* C, i64 ldc, int c_row,                                  \
        const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha,                                 \
        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta) {                                 \
        spmm_long_finish<In, Out>(n, long_count, long_list, chunk_prefix, partial, C, ldc, c_row,        \
                                  alpha_dev, alpha, beta_dev, beta);                                     \
    }

SPBLK_FOR_PRECISIONS(SPMM_ENTRY, int, i32)
SPBLK_FOR_PRECISIONS(SPMM_ENTRY, long long, i64)
SPBLK_FOR_VALUES(SPMM_PARTIAL_ENTRY, int, i32)
SPBLK_FOR_VALUES(SPMM_PARTIAL_ENTRY, long long, i64)
SPBLK_FOR_PRECISIONS(SPMM_FINISH_ENTRY, 0)
