// The SpSV analysis' copies of op(A)'s strict triangle (docs/spsv.md).
//
// First in A's row order (the ordering pass, order.cu, works on it): each row's kept entries
// (zero-based columns, their rows, and each entry's position in A's values for updates) and the
// diagonal apart (a missing entry reads as one, as cuSPARSE's does). Then, once the order is
// known, again in solve order, which is what the solve (sync_free.cu) reads: position s holds
// the s-th row of the order, its entries name the positions of the rows they wait on, so that
// the solve's loads are one array each, coalesced within a wavefront, and a dependency in the
// same warp is a subtraction away.
#include "common/types.cuh"

#define SPSV_NONE 0xffffffffu

__device__ __forceinline__ bool kept(i64 c, i64 row, int lower) { return c != row && ((c < row) == (lower != 0)); }

// counts[i] = row i's kept entries (to be scanned into offsets); diag_src[i] = the position in
// A's values of row i's first diagonal entry, or SPSV_NONE. `perm` (NULL: identity) maps an
// entry of the given CSR of op(A) to A's stored entry.
template <class I>
__device__ void spsv_count(i64 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, I* counts,
                           u32* diag_src) {
    GRID_STRIDE(i, n) {
        const i64 s = (i64)ptr[i] - base, e = (i64)ptr[i + 1] - base;
        i64 count = 0;
        u32 d = SPSV_NONE;
        for (i64 p = s; p < e; ++p) {
            const i64 c = (i64)col[p] - base;
            if (c == (i64)i) {
                if (d == SPSV_NONE) d = perm ? perm[p] : (u32)p;
            } else if (kept(c, (i64)i, lower)) {
                ++count;
            }
        }
        counts[i] = (I)count;
        diag_src[i] = d;
    }
}

// Writes row i's kept entries at tri_ptr[i]..: columns (zero-based), rows, source positions.
template <class I>
__device__ void spsv_fill(i64 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm,
                          const I* tri_ptr, u32* tri_col, u32* tri_row, u32* tri_src) {
    GRID_STRIDE(i, n) {
        const i64 s = (i64)ptr[i] - base, e = (i64)ptr[i + 1] - base;
        i64 q = (i64)tri_ptr[i];
        for (i64 p = s; p < e; ++p) {
            const i64 c = (i64)col[p] - base;
            if (kept(c, (i64)i, lower)) {
                tri_col[q] = (u32)c;
                tri_row[q] = (u32)i;
                tri_src[q] = perm ? perm[p] : (u32)p;
                ++q;
            }
        }
    }
}

// For each position s of the solve order: its row's entry count (to be scanned into the solve
// copy's offsets) and its diagonal's source.
template <class I>
__device__ void spsv_arrange(i64 n, const u32* order, const I* tri_ptr, const u32* diag_src, u32* counts,
                             u32* solve_diag_src) {
    GRID_STRIDE(s, n) {
        const u32 r = order[s];
        counts[s] = (u32)(tri_ptr[r + 1] - tri_ptr[r]);
        solve_diag_src[s] = diag_src[r];
    }
}

// Moves each kept entry to its row's place in solve order (keeping the row's storage order), its
// column translated to the position of that row.
template <class I>
__device__ void spsv_place(i64 n, const I* tri_ptr, const u32* tri_col, const u32* tri_row, const u32* tri_src,
                           const u32* position, const u32* solve_ptr, u32* solve_col, u32* solve_src) {
    const i64 count = (i64)tri_ptr[n];
    GRID_STRIDE(j, count) {
        const u32 r = tri_row[j];
        const i64 q = (i64)solve_ptr[position[r]] + (j - (i64)tri_ptr[r]);
        solve_col[q] = position[tri_col[j]];
        solve_src[q] = tri_src[j];
    }
}

// The analysis' copy of the values, from A's (or an update's) nnz values.
template <class T>
__device__ void spsv_values(i64 n, const u32* solve_ptr, const u32* src, const u32* diag_src, const T* a_val, T* val,
                            T* diag) {
    const i64 count = (i64)solve_ptr[n];
    GRID_STRIDE(j, count) val[j] = a_val[src[j]];
    GRID_STRIDE(s, n) {
        const u32 d = diag_src[s];
        diag[s] = d == SPSV_NONE ? T(1) : a_val[d];
    }
}

// updateMatrix(DIAGONAL): the n new diagonal values come in row order.
template <class T> __device__ void spsv_diagonal(i64 n, const u32* order, const T* values, T* diag) {
    GRID_STRIDE(s, n) diag[s] = values[order[s]];
}

#define SPSV_PATTERN_ENTRY(I, tidx)                                                                              \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_count_##tidx(                                   \
        i64 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, I* counts, u32* diag_src) {    \
        spsv_count<I>(n, ptr, col, base, lower, perm, counts, diag_src);                                          \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_fill_##tidx(                                    \
        i64 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, const I* tri_ptr,              \
        u32* tri_col, u32* tri_row, u32* tri_src) {                                                              \
        spsv_fill<I>(n, ptr, col, base, lower, perm, tri_ptr, tri_col, tri_row, tri_src);                         \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_arrange_##tidx(                                 \
        i64 n, const u32* order, const I* tri_ptr, const u32* diag_src, u32* counts, u32* solve_diag_src) {     \
        spsv_arrange<I>(n, order, tri_ptr, diag_src, counts, solve_diag_src);                                     \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_place_##tidx(                                   \
        i64 n, const I* tri_ptr, const u32* tri_col, const u32* tri_row, const u32* tri_src,                     \
        const u32* position, const u32* solve_ptr, u32* solve_col, u32* solve_src) {                              \
        spsv_place<I>(n, tri_ptr, tri_col, tri_row, tri_src, position, solve_ptr, solve_col, solve_src);         \
    }

#define SPSV_VALUES_ENTRY(T, tval)                                                                               \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_values_##tval(                                  \
        i64 n, const u32* solve_ptr, const u32* src, const u32* diag_src, const T* a_val, T* val, T* diag) {     \
        spsv_values<T>(n, solve_ptr, src, diag_src, a_val, val, diag);                                            \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_diagonal_##tval(i64 n, const u32* order,        \
                                                                                const T* values, T* diag) {    \
        spsv_diagonal<T>(n, order, values, diag);                                                                 \
    }

SPSV_PATTERN_ENTRY(int, i32)
SPSV_PATTERN_ENTRY(long long, i64)
SPSV_VALUES_ENTRY(float, f32)
SPSV_VALUES_ENTRY(double, f64)
