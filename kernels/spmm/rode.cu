// RoDe SpMM (SPBLK_SPMM_ALG_RODE), after Pang et al., PPoPP'24: each row of A is decomposed
// into a *block part*, its first floor(len / RODE_BLOCK) * RODE_BLOCK entries, cut into
// segments, and a *residual part*, the fewer than RODE_BLOCK entries left at its end.
// Segments are nearly equal work whatever the row lengths, so the block kernel is balanced;
// every residual part is short, so the row kernel is too.
//
// Segment length: `seg` (the plan's, a multiple of RODE_BLOCK from 32 to 512, smaller for
// small matrices: one group sums a segment in seg / 4 dependent rounds of loads, which a
// matrix of 10^4 entries cannot hide), raised for a row whose block part would otherwise make
// more than RODE_MAX_SEGS segments, so that adding its partials stays short too.
//
// Unlike the paper's kernels (atomic adds into C), the block kernel writes one partial row of
// C per segment (partial[k*n + j], compute type) and the row kernel adds a row's partials in
// segment order, then its residual entries one by one, then writes C with alpha and beta:
// every element of C is summed in a fixed order, so results are bitwise reproducible, C is
// written once, and beta = 0 never reads it.
//
// The plan (spblkAnalyze(SPBLK_ANALYSIS_RODE) or spblkSpMM_preprocess) holds seg_ptr[m + 1]
// (a row's first segment; built by rode_count and an exclusive scan) and seg_row[segments]
// (each segment's row; rode_fill).
//
// Layouts as in spmm/csr.cu: op(B)(k, j) at B[k*ldb + j] when b_row, else B[k + j*ldb];
// C(i, j) at C[i*ldc + j] when c_row, else C[i + j*ldc] (c_row == SPBLK_C_ROW_VEC4: four-
// element vector stores allowed, common/vec.cuh).
#include "common/vec.cuh"
#include "common/warp.cuh"
#include "spmm/segment.cuh"

#define RODE_BLOCK 32
#define RODE_MAX_SEGS 256
// B rows in flight per lane, and blocks of 256 threads per SM the registers must allow (as
// the CSR row kernel: 64 registers for 4- and 2-byte values, 128 for f64).
#define RODE_U 4
// Partials of a row loaded at once by the rows' kernel.
#define RODE_COMBINE 8
#define RODE_MIN_BLOCKS(In) (sizeof(In) == 8 ? 2 : 4)

// Entries of a row's block part (a multiple of RODE_BLOCK).
__device__ __forceinline__ i64 rode_block_part(i64 len) { return len / RODE_BLOCK * RODE_BLOCK; }

// The segment length of a block part of `blocked` entries (RodePlan::seg_len on the host).
__device__ __forceinline__ i64 rode_seg_len(i64 blocked, i64 seg) {
    const i64 per = (blocked + RODE_MAX_SEGS - 1) / RODE_MAX_SEGS;
    const i64 capped = (per + RODE_BLOCK - 1) / RODE_BLOCK * RODE_BLOCK;
    return capped > seg ? capped : seg;
}

// seg_ptr[i] = row i's segment count for i < m, seg_ptr[m] = 0 (scanned next).
template <class I>
__device__ void rode_count(i64 m, const I* __restrict__ ptr, i64 seg, u32* __restrict__ seg_ptr) {
    GRID_STRIDE(i, m + 1) {
        if ((i64)i == m) {
            seg_ptr[i] = 0;
        } else {
            const i64 blocked = rode_block_part((i64)ptr[i + 1] - (i64)ptr[i]);
            const i64 len = rode_seg_len(blocked, seg);
            seg_ptr[i] = (u32)((blocked + len - 1) / len);
        }
    }
}

__device__ void rode_fill(i64 m, const u32* __restrict__ seg_ptr, u32* __restrict__ seg_row) {
    GRID_STRIDE(i, m) {
        for (u32 k = seg_ptr[i]; k < seg_ptr[i + 1]; ++k) seg_row[k] = (u32)i;
    }
}

// One group per (segment, column tile): partial[k*n + j] = segment k's sum for column j.
template <class In, class I, int VEC>
__device__ void rode_blocks(i64 n, u64 segments, i64 seg, const u32* __restrict__ seg_ptr,
                            const u32* __restrict__ seg_row,
                            const I* __restrict__ ptr, const I* __restrict__ col, const In* __restrict__ val,
                            i64 base, const In* __restrict__ B, i64 ldb, int b_row,
                            typename ComputeOf<In>::type* __restrict__ partial, int G) {
    typedef typename ComputeOf<In>::type T;
    const GroupTiles w(G, VEC, n);
    for (i64 g = w.first; g < (i64)segments * w.tiles; g += w.groups) {
        const i64 k = w.item(g);
        const u32 r = seg_row[k];
        const i64 rs = (i64)ptr[r] - base;
        const i64 blocked = rode_block_part((i64)ptr[r + 1] - (i64)ptr[r]);
        const i64 len = rode_seg_len(blocked, seg);
        const i64 s = rs + (k - (i64)seg_ptr[r]) * len;
        const i64 e = s + len < rs + blocked ? s + len : rs + blocked;
        const i64 j0 = w.col0(g, k, VEC);
        const bool vec = VEC == 4 && b_row && j0 + VEC <= n;
        T acc[VEC];
#pragma unroll
        for (int v = 0; v < VEC; ++v) acc[v] = 0;
        spmm_segment_any<In, T, I, VEC, RODE_U, true>(s, e, n, col, val, base, B, ldb, b_row, j0, vec, w.glane, G,
                                                      w.gmask, acc);
        store_partial<T, VEC>(partial, k, j0, n, acc);
    }
}

// One group per (row, column tile): the row's segment partials in order, then its residual
// entries, then C = alpha * sum + beta * C.
template <class In, class Out, class I, int VEC>
__device__ void rode_rows(i64 m, i64 n, const u32* __restrict__ seg_ptr,
                          const typename ComputeOf<In>::type* __restrict__ partial, const I* __restrict__ ptr,
                          const I* __restrict__ col, const In* __restrict__ val, i64 base,
                          const In* __restrict__ B, i64 ldb, int b_row, Out* __restrict__ C, i64 ldc, int c_row,
                          const typename ComputeOf<In>::type* alpha_dev, typename ComputeOf<In>::type alpha_h,
                          const typename ComputeOf<In>::type* beta_dev, typename ComputeOf<In>::type beta_h, int G) {
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const GroupTiles w(G, VEC, n);
    for (i64 g = w.first; g < m * w.tiles; g += w.groups) {
        const i64 i = w.item(g);
        const i64 j0 = w.col0(g, i, VEC);
        const i64 rs = (i64)ptr[i] - base, re = (i64)ptr[i + 1] - base;
        T acc[VEC];
#pragma unroll
        for (int v = 0; v < VEC; ++v) acc[v] = 0;
        // RODE_COMBINE partials loaded before any is added (in order): that many loads in flight.
        const u32 k_end = seg_ptr[i + 1];
        u32 k = seg_ptr[i];
        for (; k + RODE_COMBINE <= k_end; k += RODE_COMBINE) {
            T p[RODE_COMBINE][VEC];
#pragma unroll
            for (int q = 0; q < RODE_COMBINE; ++q) {
#pragma unroll
                for (int v = 0; v < VEC; ++v) p[q][v] = j0 + v < n ? partial[(i64)(k + q) * n + j0 + v] : T(0);
            }
#pragma unroll
            for (int q = 0; q < RODE_COMBINE; ++q) {
#pragma unroll
                for (int v = 0; v < VEC; ++v) acc[v] += p[q][v];
            }
        }
        for (; k < k_end; ++k) {
#pragma unroll
            for (int v = 0; v < VEC; ++v) {
                if (j0 + v < n) acc[v] += partial[(i64)k * n + j0 + v];
            }
        }
        const bool vec = VEC == 4 && b_row && j0 + VEC <= n;
        spmm_segment_any<In, T, I, VEC, RODE_U>(rs + rode_block_part(re - rs), re, n, col, val, base, B, ldb, b_row,
                                                j0, vec, w.glane, G, w.gmask, acc);
        store_tile<T, Out, VEC>(C, ldc, c_row, i, j0, n, acc, alpha, beta);
    }
}

#define RODE_PLAN_ENTRY(I, tidx)                                                                           \
    extern "C" __global__ void spblk_rode_count_##tidx(i64 m, const I* ptr, i64 seg, u32* seg_ptr) {     \
        rode_count<I>(m, ptr, seg, seg_ptr);                                                            \
    }
extern "C" __global__ void spblk_rode_fill(i64 m, const u32* seg_ptr, u32* seg_row) {
    rode_fill(m, seg_ptr, seg_row);
}

#define RODE_BLOCKS_ENTRY_V(In, tin, I, tidx, VEC)                                                       \
    extern "C" __global__ void __launch_bounds__(256, RODE_MIN_BLOCKS(In))                               \
        spblk_spmm_rode_blocks_v##VEC##_##tin##_##tidx(                                                  \
        i64 n, u64 segments, i64 seg, const u32* seg_ptr, const u32* seg_row, const I* ptr,             \
        const I* col, const In* val, i64 base, const In* B, i64 ldb, int b_row,                          \
        ComputeOf<In>::type* partial, int G) {                                                           \
        rode_blocks<In, I, VEC>(n, segments, seg, seg_ptr, seg_row, ptr, col, val, base, B, ldb, b_row,  \
                                partial, G);                                                             \
    }
#define RODE_BLOCKS_ENTRY(In, tin, I, tidx) \
    RODE_BLOCKS_ENTRY_V(In, tin, I, tidx, 1) RODE_BLOCKS_ENTRY_V(In, tin, I, tidx, 4)

#define RODE_ROWS_ENTRY_V(In, Out, tin, tout, I, tidx, VEC)                                              \
    extern "C" __global__ void __launch_bounds__(256, RODE_MIN_BLOCKS(In))                               \
        spblk_spmm_rode_rows_v##VEC##_##tin##_##tout##_##tidx(                                           \
        i64 m, i64 n, const u32* seg_ptr, const ComputeOf<In>::type* partial, const I* ptr,              \
        const I* col, const In* val, i64 base, const In* B, i64 ldb, int b_row, Out* C, i64 ldc,         \
        int c_row, const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha,                      \
        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta, int G) {                          \
        rode_rows<In, Out, I, VEC>(m, n, seg_ptr, partial, ptr, col, val, base, B, ldb, b_row, C, ldc,   \
                                   c_row, alpha_dev, alpha, beta_dev, beta, G);                          \
    }
#define RODE_ROWS_ENTRY(In, Out, tin, tout, I, tidx) \
    RODE_ROWS_ENTRY_V(In, Out, tin, tout, I, tidx, 1) RODE_ROWS_ENTRY_V(In, Out, tin, tout, I, tidx, 4)

RODE_PLAN_ENTRY(int, i32)
RODE_PLAN_ENTRY(long long, i64)
SPBLK_FOR_VALUES(RODE_BLOCKS_ENTRY, int, i32)
SPBLK_FOR_VALUES(RODE_BLOCKS_ENTRY, long long, i64)
SPBLK_FOR_PRECISIONS(RODE_ROWS_ENTRY, int, i32)
SPBLK_FOR_PRECISIONS(RODE_ROWS_ENTRY, long long, i64)
