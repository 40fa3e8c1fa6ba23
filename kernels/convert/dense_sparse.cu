// Dense <-> sparse conversions (spblkSparseToDense, spblkDenseToSparse_*). Elements move as
// raw words of their size (b8 ... b128), so every value type converts. An element is zero
// when its bits under `mask` are: the mask clears the sign bit of each floating-point
// component (-0 is zero, NaN is not) and is all ones for integers.
#include "common/warp.cuh"

__device__ __forceinline__ bool word_zero(unsigned char v, u64 m) { return (v & m) == 0; }
__device__ __forceinline__ bool word_zero(unsigned short v, u64 m) { return (v & m) == 0; }
__device__ __forceinline__ bool word_zero(unsigned v, u64 m) { return (v & m) == 0; }
__device__ __forceinline__ bool word_zero(u64 v, u64 m) { return (v & m) == 0; }
__device__ __forceinline__ bool word_zero(ulonglong2 v, u64 m) { return (v.x & m) == 0 && (v.y & m) == 0; }

// A is read in B's order: `lines` lines (B's rows for CSR and COO, its columns for CSC) of
// `len` elements, element (line, k) at a[line * line_stride + k * k_stride]. One warp per
// line; lanes take 32 consecutive k at a time.
#define FOR_LINES(line, lines)                                                                             \
    for (i64 line = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; line < (lines);                     \
         line += (i64)gridDim.x * (blockDim.x >> 5))

// counts[line] = the line's nonzero elements.
template <class W>
__device__ void dense_to_sparse_count(i64 lines, i64 len, const W* a, i64 line_stride, i64 k_stride, u64 mask,
                                      u64* counts) {
    const int lane = threadIdx.x & 31;
    FOR_LINES(line, lines) {
        u64 n = 0;
        for (i64 k0 = 0; k0 < len; k0 += 32) {
            const i64 k = k0 + lane;
            const bool nz = k < len && !word_zero(a[line * line_stride + k * k_stride], mask);
            n += __popc(__ballot_sync(SPBLK_FULL_MASK, nz));
        }
        if (lane == 0) counts[line] = n;
    }
}

// B's offsets (lines + 1 of them) from the scanned counts.
template <class I> __device__ void dense_to_sparse_offsets(i64 n, const u64* offsets, i64 base, I* out) {
    GRID_STRIDE(i, n) out[i] = (I)((i64)offsets[i] + base);
}

// Each line's nonzeros in k order from offsets[line] on: minor index k, for COO also the
// line (major != NULL), and the element. Positions at or past nnz (A changed since the
// analysis) are not written.
template <class W, class I>
__device__ void dense_to_sparse_fill(i64 lines, i64 len, const W* a, i64 line_stride, i64 k_stride, u64 mask,
                                     const u64* offsets, i64 nnz, i64 base, I* major, I* minor, W* values) {
    const int lane = threadIdx.x & 31;
    FOR_LINES(line, lines) {
        u64 pos = offsets[line];
        for (i64 k0 = 0; k0 < len; k0 += 32) {
            const i64 k = k0 + lane;
            const W v = k < len ? a[line * line_stride + k * k_stride] : W();
            const bool nz = k < len && !word_zero(v, mask);
            const unsigned found = __ballot_sync(SPBLK_FULL_MASK, nz);
            const u64 p = pos + __popc(found & ((1u << lane) - 1u));
            if (nz && p < (u64)nnz) {
                minor[p] = (I)(k + base);
                if (major) major[p] = (I)(line + base);
                values[p] = v;
            }
            pos += __popc(found);
        }
    }
}

// CSR or CSC A into B (zeroed before): one warp per stored line, each entry to
// b[line * major_stride + index * minor_stride]. Indices outside [0, minor_n) are skipped.
template <class W, class I>
__device__ void sparse_to_dense_compressed(i64 lines, i64 minor_n, const I* ptr, const I* idx, const W* vals,
                                           i64 base, W* b, i64 major_stride, i64 minor_stride) {
    const int lane = threadIdx.x & 31;
    FOR_LINES(line, lines) {
        const i64 end = (i64)ptr[line + 1] - base;
        for (i64 p = (i64)ptr[line] - base + lane; p < end; p += 32) {
            const i64 j = (i64)idx[p] - base;
            if (j >= 0 && j < minor_n) b[line * major_stride + j * minor_stride] = vals[p];
        }
    }
}

// COO A into B (zeroed before): one thread per entry.
template <class W, class I>
__device__ void sparse_to_dense_coo(i64 nnz, i64 rows, i64 cols, const I* ri, const I* ci, const W* vals, i64 base,
                                    W* b, i64 row_stride, i64 col_stride) {
    GRID_STRIDE(p, nnz) {
        const i64 i = (i64)ri[p] - base, j = (i64)ci[p] - base;
        if (i >= 0 && i < rows && j >= 0 && j < cols) b[i * row_stride + j * col_stride] = vals[p];
    }
}

// A into Blocked-ELL B, whose block columns the caller set: one thread per stored value,
// value (i, k) of B is A(i, col[i / bs][k / bs] * bs + k % bs), zero in padding slots (block
// column -1 or outside the matrix).
template <class W, class I>
__device__ void dense_to_blocked_ell(i64 rows, i64 kb, i64 bs, i64 ell_cols, const W* a, i64 row_stride,
                                     i64 col_stride, const I* col, i64 base, W* values) {
    GRID_STRIDE(t, (u64)(rows * ell_cols)) {
        const i64 i = (i64)t / ell_cols, k = (i64)t % ell_cols;
        const i64 bc = (i64)col[i / bs * (ell_cols / bs) + k / bs] - base;
        values[t] = bc >= 0 && bc < kb ? a[i * row_stride + (bc * bs + k % bs) * col_stride] : W();
    }
}

#define DENSE_SPARSE_WORD_ENTRIES(W, wtag, I, itag)                                                        \
    extern "C" __global__ void __launch_bounds__(256) spblk_dense_to_sparse_fill_##wtag##_##itag(          \
        i64 lines, i64 len, const W* a, i64 line_stride, i64 k_stride, u64 mask, const u64* offsets,      \
        i64 nnz, i64 base, I* major, I* minor, W* values) {                                                \
        dense_to_sparse_fill<W, I>(lines, len, a, line_stride, k_stride, mask, offsets, nnz, base, major,  \
                                   minor, values);                                                         \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(256) spblk_sparse_to_dense_compressed_##wtag##_##itag(    \
        i64 lines, i64 minor_n, const I* ptr, const I* idx, const W* vals, i64 base, W* b,                 \
        i64 major_stride, i64 minor_stride) {                                                              \
        sparse_to_dense_compressed<W, I>(lines, minor_n, ptr, idx, vals, base, b, major_stride,            \
                                         minor_stride);                                                    \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(256) spblk_sparse_to_dense_coo_##wtag##_##itag(           \
        i64 nnz, i64 rows, i64 cols, const I* ri, const I* ci, const W* vals, i64 base, W* b,              \
        i64 row_stride, i64 col_stride) {                                                                  \
        sparse_to_dense_coo<W, I>(nnz, rows, cols, ri, ci, vals, base, b, row_stride, col_stride);         \
    }                                                                                                      \
    extern "C" __global__ void __launch_bounds__(256) spblk_dense_to_blocked_ell_##wtag##_##itag(          \
        i64 rows, i64 kb, i64 bs, i64 ell_cols, const W* a, i64 row_stride, i64 col_stride, const I* col,  \
        i64 base, W* values) {                                                                             \
        dense_to_blocked_ell<W, I>(rows, kb, bs, ell_cols, a, row_stride, col_stride, col, base, values);  \
    }
#define DENSE_SPARSE_WORD(W, wtag)                                                                         \
    extern "C" __global__ void __launch_bounds__(256) spblk_dense_to_sparse_count_##wtag(                  \
        i64 lines, i64 len, const W* a, i64 line_stride, i64 k_stride, u64 mask, u64* counts) {            \
        dense_to_sparse_count<W>(lines, len, a, line_stride, k_stride, mask, counts);                      \
    }                                                                                                      \
    DENSE_SPARSE_WORD_ENTRIES(W, wtag, int, i32) DENSE_SPARSE_WORD_ENTRIES(W, wtag, i64, i64)
DENSE_SPARSE_WORD(unsigned char, b8)
DENSE_SPARSE_WORD(unsigned short, b16)
DENSE_SPARSE_WORD(unsigned, b32)
DENSE_SPARSE_WORD(unsigned long long, b64)
DENSE_SPARSE_WORD(ulonglong2, b128)

#define DENSE_TO_SPARSE_OFFSETS_ENTRY(I, itag)                                                              \
    extern "C" __global__ void __launch_bounds__(256) spblk_dense_to_sparse_offsets_##itag(                \
        i64 n, const u64* offsets, i64 base, I* out) {                                                     \
        dense_to_sparse_offsets<I>(n, offsets, base, out);                                                 \
    }
DENSE_TO_SPARSE_OFFSETS_ENTRY(int, i32)
DENSE_TO_SPARSE_OFFSETS_ENTRY(i64, i64)
