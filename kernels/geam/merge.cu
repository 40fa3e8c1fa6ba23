// spblkXcsrgeam2Nnz and spblk{S,D}csrgeam2, C = alpha A + beta B on CSR with 32-bit indices:
// one thread per row merges A's and B's ascending rows. The count and the fill walk the same
// merge, so a row's count is what the fill writes; the fill never writes past a row's room in
// C. A column repeated within a row is one entry of C, its terms summed in order (A's, then
// B's), each product rounded and added as the host backend does. Offsets are clamped to the
// arrays: input the host backend would reject never reaches memory outside them.
#include "common/types.cuh"

// Entries [k, end) of row i of one operand.
struct GeamRow {
    const int* col;
    i64 base, k, end;
};

__device__ __forceinline__ GeamRow geam_row(const int* ptr, const int* col, i64 base, i64 nnz, i64 i) {
    GeamRow r;
    r.col = col;
    r.base = base;
    r.k = min(max((i64)ptr[i] - base, (i64)0), nnz);
    r.end = min(max((i64)ptr[i + 1] - base, r.k), nnz);
    return r;
}

__device__ __forceinline__ i64 geam_head(const GeamRow& r) { return (i64)r.col[r.k] - r.base; }

// The smallest column (from 0) at the heads of a and b; at least one is not exhausted.
__device__ __forceinline__ i64 geam_next(const GeamRow& a, const GeamRow& b) {
    if (a.k < a.end && b.k < b.end) return min(geam_head(a), geam_head(b));
    return a.k < a.end ? geam_head(a) : geam_head(b);
}

// counts[i] = the distinct columns of row i of A and B together.
extern "C" __global__ void __launch_bounds__(256)
    spblk_geam_count(i64 m, const int* a_ptr, const int* a_col, i64 a_base, i64 a_nnz, const int* b_ptr,
                     const int* b_col, i64 b_base, i64 b_nnz, u32* counts) {
    GRID_STRIDE(i, m) {
        GeamRow a = geam_row(a_ptr, a_col, a_base, a_nnz, i), b = geam_row(b_ptr, b_col, b_base, b_nnz, i);
        u32 n = 0;
        while (a.k < a.end || b.k < b.end) {
            const i64 c = geam_next(a, b);
            while (a.k < a.end && geam_head(a) == c) ++a.k;
            while (b.k < b.end && geam_head(b) == c) ++b.k;
            ++n;
        }
        counts[i] = n;
    }
}

// C's offsets from the scanned counts (m + 1 of them), and nnz(C) into *total unless NULL.
extern "C" __global__ void __launch_bounds__(256)
    spblk_geam_offsets(i64 m, const u32* scanned, i64 base, int* c_ptr, int* total) {
    GRID_STRIDE(i, (u64)m + 1) {
        c_ptr[i] = (int)((i64)scanned[i] + base);
        if (i == (u64)m && total) *total = (int)scanned[m];
    }
}

template <class T>
__device__ void geam_fill(i64 m, const int* a_ptr, const int* a_col, const T* a_val, i64 a_base, i64 a_nnz,
                          const int* b_ptr, const int* b_col, const T* b_val, i64 b_base, i64 b_nnz,
                          const int* c_ptr, i64 c_base, int* c_col, T* c_val, const T* alpha_dev, T alpha_h,
                          const T* beta_dev, T beta_h) {
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    GRID_STRIDE(i, m) {
        GeamRow a = geam_row(a_ptr, a_col, a_base, a_nnz, i), b = geam_row(b_ptr, b_col, b_base, b_nnz, i);
        i64 p = max((i64)c_ptr[i] - c_base, (i64)0);
        const i64 end = (i64)c_ptr[i + 1] - c_base;
        for (; p < end && (a.k < a.end || b.k < b.end); ++p) {
            const i64 c = geam_next(a, b);
            T s = T(0);
            for (; a.k < a.end && geam_head(a) == c; ++a.k) s = add_rn(s, mul_rn(alpha, a_val[a.k]));
            for (; b.k < b.end && geam_head(b) == c; ++b.k) s = add_rn(s, mul_rn(beta, b_val[b.k]));
            c_col[p] = (int)(c + c_base);
            c_val[p] = s;
        }
    }
}

#define GEAM_FILL(T, tag)                                                                                 \
    extern "C" __global__ void __launch_bounds__(256) spblk_geam_fill_##tag(                            \
        i64 m, const int* a_ptr, const int* a_col, const T* a_val, i64 a_base, i64 a_nnz, const int* b_ptr, \
        const int* b_col, const T* b_val, i64 b_base, i64 b_nnz, const int* c_ptr, i64 c_base, int* c_col,  \
        T* c_val, const T* alpha_dev, T alpha_h, const T* beta_dev, T beta_h) {                          \
        geam_fill<T>(m, a_ptr, a_col, a_val, a_base, a_nnz, b_ptr, b_col, b_val, b_base, b_nnz, c_ptr,      \
                     c_base, c_col, c_val, alpha_dev, alpha_h, beta_dev, beta_h);                          \
    }

GEAM_FILL(float, f32)
GEAM_FILL(double, f64)
