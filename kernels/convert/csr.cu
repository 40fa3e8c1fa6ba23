// Conversions between compressed/coordinate layouts through a stable radix sort on the new
// major index (common/radix.cu, whose first pass reads the index array itself: key = new
// major index of entry p, value p):
//   offsets: ptr[r] = first sorted position with key >= r (plus the output base)
//   rows:    (compressed input) the old major index of every entry
//   gather:  new minor index of each sorted position, from perm (values: spblk_convert_values,
//            a launch of their own so that each gather's source stays in L2 longer)
// Used by csr2csc and to build CSR of op(A) for transposed/CSC/COO operands of SpMV/SpMM.
#include "common/types.cuh"
#include "convert/elem.cuh"
#include "convert/rows.cuh"

// ptr[0..=rows] from sorted keys: ptr[r] = first sorted position q with key >= r (plus the
// output base). Position q writes the rows in (key[q-1], key[q]] (key[-1] = -1, key[nnz] =
// rows), so every row is written once, empty rows and nnz = 0 included: one read of the keys
// in order (a lane's 4 positions in one 16-byte load, the key before them from the lane to its
// left) instead of a binary search per row (117 µs for 4.2 M rows over 21 M keys). Gaps over
// 32 rows are filled by the whole warp.
template <class I>
__device__ void convert_offsets(const u32* keys, u64 nnz, u64 rows, i64 out_base, I* ptr, const u32* needed) {
    if (skipped(needed)) return;
    const int lane = threadIdx.x & 31;
    const u64 warps = ((u64)gridDim.x * blockDim.x) >> 5;
    for (u64 w = ((u64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w * 128 <= nnz; w += warps) {
        const u64 q0 = w * 128 + 4 * lane;
        u32 k[4];
        if (q0 + 4 <= nnz) {
            const uint4 v = *(const uint4*)(keys + q0);
            k[0] = v.x, k[1] = v.y, k[2] = v.z, k[3] = v.w;
        } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) k[j] = q0 + j < nnz ? keys[q0 + j] : 0u;
        }
        const u32 left = __shfl_up_sync(SPBLK_FULL_MASK, k[3], 1);
        u64 prev_end = q0 == 0 ? 0 : (u64)(lane == 0 ? keys[q0 - 1] : left) + 1;  // first row not yet written
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const u64 q = q0 + j;
            u64 lo = 0, hi = 0;  // rows [lo, hi) start at q
            if (q <= nnz) {
                lo = prev_end;
                hi = q == nnz ? rows + 1 : (u64)k[j] + 1;
                prev_end = hi;
            }
            const bool wide = hi - lo > 32;
            if (!wide)
                for (u64 r = lo; r < hi; ++r) ptr[r] = (I)((i64)q + out_base);
            for (unsigned todo = __ballot_sync(SPBLK_FULL_MASK, wide); todo; todo &= todo - 1) {
                const int src = __ffs(todo) - 1;
                const u64 l = __shfl_sync(SPBLK_FULL_MASK, lo, src), h = __shfl_sync(SPBLK_FULL_MASK, hi, src);
                const I v = (I)((i64)__shfl_sync(SPBLK_FULL_MASK, q, src) + out_base);
                for (u64 r = l + lane; r < h; r += 32) ptr[r] = v;
            }
        }
    }
}

// The old major index of every stored entry of a compressed pattern (rows.cuh): what becomes
// the new minor index; two 16-byte stores per thread.
template <class I>
__device__ void convert_rows(const I* ptr, i64 rows, i64 base, u64 nnz, u32* minor_of, const u32* needed) {
    __shared__ TileRowsShared sh;
    if (skipped(needed)) return;
    const u64 tiles = (nnz + ROWS_TILE - 1) / ROWS_TILE;
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const u64 first = t * ROWS_TILE, end = min(nnz, first + ROWS_TILE);
        u32 v[ROWS_ITEMS];
        tile_rows(ptr, rows, base, first, end, sh, v);
        const u64 e = first + threadIdx.x * ROWS_ITEMS;
        if (e + ROWS_ITEMS <= end) {
            uint4* dst = (uint4*)(minor_of + e);
            dst[0] = make_uint4(v[0], v[1], v[2], v[3]);
            dst[1] = make_uint4(v[4], v[5], v[6], v[7]);
        } else {
            for (int k = 0; e + k < end; ++k) minor_of[e + k] = v[k];
        }
        __syncthreads();  // the shared rows are rewritten for the next tile
    }
}

// The new minor index of sorted position q is the old major index of entry perm[q]: from
// `minor_of` (compressed input, see convert_rows) or the other COO index array (`src_other`).
template <class I>
__device__ void convert_gather(const u32* perm, u64 nnz, const u32* minor_of, const I* src_other, i64 in_base,
                               I* out_idx, i64 out_base, const u32* needed) {
    if (skipped(needed)) return;
    // The permutation and the output stream (evict first); the gathered source stays in L2.
    GRID_STRIDE(q, nnz) {
        u64 p = __ldcs(perm + q);
        i64 minor = minor_of ? (i64)__ldg(minor_of + p) : (i64)__ldg(src_other + p) - in_base;
        __stcs(out_idx + q, (I)(minor + out_base));
    }
}

// The longest row of a compressed pattern: a per-thread maximum, then one atomicMax per
// warp into *out (zeroed by the caller). The maximum is order-independent: deterministic.
template <class I> __device__ void row_max(const I* ptr, i64 rows, u64* out) {
    u64 best = 0;
    GRID_STRIDE(r, (u64)rows) {
        i64 len = (i64)ptr[r + 1] - (i64)ptr[r];
        if (len > 0 && (u64)len > best) best = (u64)len;
    }
    for (int d = 16; d > 0; d >>= 1) {
        u64 other = __shfl_down_sync(SPBLK_FULL_MASK, best, d);
        best = other > best ? other : best;
    }
    if ((threadIdx.x & 31) == 0 && best > 0) atomicMax(out, best);
}

// Values of CSR of op(A) in the order of a plan's permutation: out[q] = in[perm[q]]. What each
// SpMV/SpMM call does once a preprocess has kept the converted pattern.
extern "C" __global__ void spblk_convert_values(const u32* perm, u64 nnz, const void* val_in, void* val_out,
                                                int elem_bytes, const u32* needed) {
    if (skipped(needed)) return;
    GRID_STRIDE(q, nnz) copy_elem(val_in, val_out, __ldcs(perm + q), q, elem_bytes);
}

#define CONVERT_ENTRY(I, tag)                                                                          \
    extern "C" __global__ void spblk_convert_offsets_##tag(const u32* keys, u64 nnz, u64 rows,         \
                                                           i64 out_base, I* ptr, const u32* needed) {  \
        convert_offsets<I>(keys, nnz, rows, out_base, ptr, needed);                                    \
    }                                                                                                  \
    extern "C" __global__ void spblk_convert_rows_##tag(const I* ptr, i64 rows, i64 base, u64 nnz,      \
                                                        u32* minor_of, const u32* needed) {            \
        convert_rows<I>(ptr, rows, base, nnz, minor_of, needed);                                       \
    }                                                                                                  \
    extern "C" __global__ void spblk_convert_gather_##tag(const u32* perm, u64 nnz, const u32* minor_of, \
                                                          const I* src_other, i64 in_base, I* out_idx,   \
                                                          i64 out_base, const u32* needed) {             \
        convert_gather<I>(perm, nnz, minor_of, src_other, in_base, out_idx, out_base, needed);           \
    }                                                                                                  \
    extern "C" __global__ void spblk_row_max_##tag(const I* ptr, i64 rows, u64* out) {                 \
        row_max<I>(ptr, rows, out);                                                                    \
    }

CONVERT_ENTRY(int, i32)
CONVERT_ENTRY(long long, i64)
