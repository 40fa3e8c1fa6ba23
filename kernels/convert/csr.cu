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

// ptr[0..=rows] from sorted keys: ptr[r] = first sorted position q with key >= r (plus the
// output base). Position q writes the rows in (key[q-1], key[q]] (key[-1] = -1, key[nnz] =
// rows), so every row is written once, empty rows and nnz = 0 included: one read of the keys
// in order (a lane's 4 positions in one 16-byte load, the key before them from the lane to its
// left) instead of a binary search per row (117 µs for 4.2 M rows over 21 M keys). Gaps over
// 32 rows are filled by the whole warp.
template <class I> __device__ void convert_offsets(const u32* keys, u64 nnz, u64 rows, i64 out_base, I* ptr) {
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

// The old major index of every stored entry of a compressed pattern: what becomes the new
// minor index. A block takes ROWS_TILE consecutive entries: the row holding the first one (a
// 32-way search by one warp), then each row that starts inside the tile marks its first entry
// in shared memory (the largest row wins where empty rows start at the same entry), and a
// running maximum over the tile gives every entry its row. Every entry costs the same whatever
// the row lengths (a warp per row left 3 of 4 lanes idle on stencils), and the writes are two
// 16-byte stores per thread.
#define ROWS_ITEMS 8
#define ROWS_TILE (256 * ROWS_ITEMS)

// Last row r in [0, rows) with ptr[r] - base <= e, by the whole warp: each round the 32 lanes
// probe evenly spaced rows and the range shrinks to the gap after the last probe at or before e.
template <class I> __device__ i64 warp_row_of(const I* ptr, i64 base, u64 e, i64 rows) {
    const int lane = threadIdx.x & 31;
    i64 lo = 0, hi = rows - 1;
    while (lo < hi) {
        const i64 len = hi - lo + 1;
        const i64 probe = lo + (i64)(((u64)len * lane) >> 5);
        const unsigned ok = __ballot_sync(SPBLK_FULL_MASK, (u64)((i64)ptr[probe] - base) <= e);
        const int j = 31 - __clz(ok);  // lane 0 probes lo, which always qualifies
        const i64 next = __shfl_sync(SPBLK_FULL_MASK, probe, j + 1 < 32 ? j + 1 : 31);
        lo = __shfl_sync(SPBLK_FULL_MASK, probe, j);
        if (j < 31) hi = next - 1;
    }
    return lo;
}

template <class I> __device__ void convert_rows(const I* ptr, i64 rows, i64 base, u64 nnz, u32* minor_of) {
    __shared__ u32 row_at[ROWS_TILE];
    __shared__ u32 warp_max[8];
    __shared__ i64 first_row;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const u64 tiles = (nnz + ROWS_TILE - 1) / ROWS_TILE;
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const u64 first = t * ROWS_TILE, end = min(nnz, first + ROWS_TILE);
        if (warp == 0) {
            const i64 r0 = warp_row_of(ptr, base, first, rows);
            if (lane == 0) first_row = r0;
        }
        for (u32 i = threadIdx.x; i < ROWS_TILE; i += 256) row_at[i] = 0;
        __syncthreads();
        const i64 r0 = first_row;
        if (threadIdx.x == 0) row_at[0] = (u32)r0;
        // Rows after r0 start at or after `first` (r0 holds it); stop at the first beyond the tile.
        for (i64 r = r0 + 1 + threadIdx.x; r < rows; r += 256) {
            const u64 s = (u64)((i64)ptr[r] - base);
            if (s >= end) break;
            atomicMax(&row_at[s - first], (u32)r);
        }
        __syncthreads();
        // Running maximum: each thread over its 8 entries, then across threads.
        u32 v[ROWS_ITEMS], m = 0;
#pragma unroll
        for (int k = 0; k < ROWS_ITEMS; ++k) {
            m = max(m, row_at[threadIdx.x * ROWS_ITEMS + k]);
            v[k] = m;
        }
        u32 inc = m;
        for (int off = 1; off < 32; off <<= 1) {
            const u32 o = __shfl_up_sync(SPBLK_FULL_MASK, inc, off);
            if (lane >= off) inc = max(inc, o);
        }
        if (lane == 31) warp_max[warp] = inc;
        __syncthreads();
        u32 carry = __shfl_up_sync(SPBLK_FULL_MASK, inc, 1);
        if (lane == 0) carry = 0;
        for (int w = 0; w < warp; ++w) carry = max(carry, warp_max[w]);
        const u64 e = first + threadIdx.x * ROWS_ITEMS;
        if (e + ROWS_ITEMS <= end) {
            uint4* dst = (uint4*)(minor_of + e);
            dst[0] = make_uint4(max(v[0], carry), max(v[1], carry), max(v[2], carry), max(v[3], carry));
            dst[1] = make_uint4(max(v[4], carry), max(v[5], carry), max(v[6], carry), max(v[7], carry));
        } else {
            for (int k = 0; e + k < end; ++k) minor_of[e + k] = max(v[k], carry);
        }
        __syncthreads();  // row_at, warp_max and first_row are rewritten for the next tile
    }
}

// The new minor index of sorted position q is the old major index of entry perm[q]: from
// `minor_of` (compressed input, see convert_rows) or the other COO index array (`src_other`).
template <class I>
__device__ void convert_gather(const u32* perm, u64 nnz, const u32* minor_of, const I* src_other, i64 in_base,
                               I* out_idx, i64 out_base) {
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
                                                int elem_bytes) {
    GRID_STRIDE(q, nnz) copy_elem(val_in, val_out, __ldcs(perm + q), q, elem_bytes);
}

#define CONVERT_ENTRY(I, tag)                                                                          \
    extern "C" __global__ void spblk_convert_offsets_##tag(const u32* keys, u64 nnz, u64 rows,         \
                                                           i64 out_base, I* ptr) {                     \
        convert_offsets<I>(keys, nnz, rows, out_base, ptr);                                            \
    }                                                                                                  \
    extern "C" __global__ void spblk_convert_rows_##tag(const I* ptr, i64 rows, i64 base, u64 nnz,      \
                                                        u32* minor_of) {                               \
        convert_rows<I>(ptr, rows, base, nnz, minor_of);                                               \
    }                                                                                                  \
    extern "C" __global__ void spblk_convert_gather_##tag(const u32* perm, u64 nnz, const u32* minor_of, \
                                                          const I* src_other, i64 in_base, I* out_idx,   \
                                                          i64 out_base) {                                \
        convert_gather<I>(perm, nnz, minor_of, src_other, in_base, out_idx, out_base);                   \
    }                                                                                                  \
    extern "C" __global__ void spblk_row_max_##tag(const I* ptr, i64 rows, u64* out) {                 \
        row_max<I>(ptr, rows, out);                                                                    \
    }

CONVERT_ENTRY(int, i32)
CONVERT_ENTRY(long long, i64)
