// Conversions between compressed/coordinate layouts through a stable radix sort on the new
// major index (common/radix.cu):
//   keys:    key[p] = new major index of entry p, perm[p] = p
//   (radix passes sort (key, perm) stably)
//   offsets: ptr[r] = first sorted position with key >= r (plus the output base)
//   gather:  new minor index and value of each sorted position, from perm
// Used by csr2csc and to build CSR of op(A) for transposed/CSC/COO operands of SpMV/SpMM.
#include "common/types.cuh"

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

__device__ __forceinline__ void copy_elem(const void* src, void* dst, u64 from, u64 to, int bytes) {
    switch (bytes) {
        case 1: ((uint8_t*)dst)[to] = ((const uint8_t*)src)[from]; break;
        case 2: ((uint16_t*)dst)[to] = ((const uint16_t*)src)[from]; break;
        case 4: ((uint32_t*)dst)[to] = ((const uint32_t*)src)[from]; break;
        case 8: ((u64*)dst)[to] = ((const u64*)src)[from]; break;
        case 16: ((uint4*)dst)[to] = ((const uint4*)src)[from]; break;
        default: break;
    }
}

// The new minor index of sorted position q is the old major index of entry perm[q]: found
// by binary search in the stored offsets (`src_ptr`, `src_major` rows) or read from the
// other COO index array (`src_other`). Values are moved as opaque elements of `elem_bytes`
// bytes (skipped when `val_in` is NULL: csr2csc SYMBOLIC).
template <class I>
__device__ void convert_gather(const u32* perm, u64 nnz, const I* src_ptr, i64 src_major, const I* src_other,
                               i64 in_base, I* out_idx, i64 out_base, const void* val_in, void* val_out,
                               int elem_bytes) {
    GRID_STRIDE(q, nnz) {
        u64 p = perm[q];
        i64 minor = src_ptr ? row_of(src_ptr, src_major, in_base, (i64)p) : (i64)src_other[p] - in_base;
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
    extern "C" __global__ void spblk_convert_gather_##tag(                                             \
        const u32* perm, u64 nnz, const I* src_ptr, i64 src_major, const I* src_other, i64 in_base,    \
        I* out_idx, i64 out_base, const void* val_in, void* val_out, int elem_bytes) {                 \
        convert_gather<I>(perm, nnz, src_ptr, src_major, src_other, in_base, out_idx, out_base,        \
                          val_in, val_out, elem_bytes);                                                \
    }                                                                                                  \
    extern "C" __global__ void spblk_row_max_##tag(const I* ptr, i64 rows, u64* out) {                 \
        row_max<I>(ptr, rows, out);                                                                    \
    }

CONVERT_ENTRY(int, i32)
CONVERT_ENTRY(long long, i64)
