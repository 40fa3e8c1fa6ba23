// Conversions between compressed/coordinate layouts through a stable radix sort on the new
// major index (common/radix.cu):
//   keys:    key[p] = new major index of entry p, perm[p] = p
//   (radix passes sort (key, perm) stably)
//   offsets: ptr[r] = first sorted position with key >= r (plus the output base)
//   rows:    (compressed input) the old major index of every entry
//   gather:  new minor index and value of each sorted position, from perm
// Used to build CSR of op(A) for transposed/CSC/COO operands of SpMV/SpMM (csr2csc has its
// own counting method, convert/csc.cu).
#include "common/types.cuh"
#include "convert/elem.cuh"

template <class I> __device__ void convert_keys(const I* idx, u64 nnz, i64 base, u32* keys, u32* perm) {
    GRID_STRIDE(p, nnz) {
        keys[p] = (u32)((i64)idx[p] - base);
        perm[p] = (u32)p;
    }
}

// ptr[0..=rows] from sorted keys: lower bound of r, by binary search (any row pattern,
// empty rows and nnz = 0 included).
template <class I> __device__ void convert_offsets(const u32* keys, u64 nnz, u64 rows, i64 out_base, I* ptr) {
    GRID_STRIDE(r, rows + 1) {
        u64 lo = 0, hi = nnz;
        while (lo < hi) {
            u64 mid = (lo + hi) >> 1;
            if ((u64)keys[mid] < r) lo = mid + 1; else hi = mid;
        }
        ptr[r] = (I)((i64)lo + out_base);
    }
}

// The old major index of every stored entry of a compressed pattern (a warp per row): what
// becomes the new minor index. One coalesced write per entry, instead of a binary search in
// the offsets for every sorted position.
template <class I> __device__ void convert_rows(const I* ptr, i64 rows, i64 base, u32* minor_of) {
    const int lane = threadIdx.x & 31;
    const i64 warps = (i64)gridDim.x * (blockDim.x >> 5);
    for (i64 r = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < rows; r += warps) {
        const i64 p1 = (i64)ptr[r + 1] - base;
        for (i64 p = (i64)ptr[r] - base + lane; p < p1; p += 32) minor_of[p] = (u32)r;
    }
}

// The new minor index of sorted position q is the old major index of entry perm[q]: from
// `minor_of` (compressed input, see convert_rows) or the other COO index array (`src_other`).
// Values are moved as opaque elements of `elem_bytes` bytes (skipped when `val_in` is NULL:
// csr2csc SYMBOLIC).
template <class I>
__device__ void convert_gather(const u32* perm, u64 nnz, const u32* minor_of, const I* src_other, i64 in_base,
                               I* out_idx, i64 out_base, const void* val_in, void* val_out, int elem_bytes) {
    GRID_STRIDE(q, nnz) {
        u64 p = perm[q];
        i64 minor = minor_of ? (i64)minor_of[p] : (i64)src_other[p] - in_base;
        out_idx[q] = (I)(minor + out_base);
        if (val_in) copy_elem(val_in, val_out, p, q, elem_bytes);
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
    GRID_STRIDE(q, nnz) copy_elem(val_in, val_out, perm[q], q, elem_bytes);
}

#define CONVERT_ENTRY(I, tag)                                                                          \
    extern "C" __global__ void spblk_convert_keys_##tag(const I* idx, u64 nnz, i64 base, u32* keys,    \
                                                        u32* perm) {                                   \
        convert_keys<I>(idx, nnz, base, keys, perm);                                                   \
    }                                                                                                  \
    extern "C" __global__ void spblk_convert_offsets_##tag(const u32* keys, u64 nnz, u64 rows,         \
                                                           i64 out_base, I* ptr) {                     \
        convert_offsets<I>(keys, nnz, rows, out_base, ptr);                                            \
    }                                                                                                  \
    extern "C" __global__ void spblk_convert_rows_##tag(const I* ptr, i64 rows, i64 base, u32* minor_of) { \
        convert_rows<I>(ptr, rows, base, minor_of);                                                    \
    }                                                                                                  \
    extern "C" __global__ void spblk_convert_gather_##tag(                                             \
        const u32* perm, u64 nnz, const u32* minor_of, const I* src_other, i64 in_base, I* out_idx,    \
        i64 out_base, const void* val_in, void* val_out, int elem_bytes) {                             \
        convert_gather<I>(perm, nnz, minor_of, src_other, in_base, out_idx, out_base, val_in, val_out, \
                          elem_bytes);                                                                 \
    }                                                                                                  \
    extern "C" __global__ void spblk_row_max_##tag(const I* ptr, i64 rows, u64* out) {                 \
        row_max<I>(ptr, rows, out);                                                                    \
    }

CONVERT_ENTRY(int, i32)
CONVERT_ENTRY(long long, i64)
