// CSR SDDMM, C = alpha*(op(A)*op(B)) o spy(C) + beta*C.
//
// Work is split into runs of `per_warp` consecutive stored entries, one warp per run; the
// row of the run's first entry is found once by binary search and later rows by stepping
// along the offsets. A warp holds S = 32/G groups of G lanes (G = k/8 rounded up to a
// power of two, 4..32); group s takes entries s, s+S, ... of the run. Each group keeps the
// part of op(A)'s current row that its lanes need for the first 16*G elements of k in
// registers, loaded once per row (the rest of a longer k is read from memory), so A's row
// is read once per row and run rather than once per entry. Lane l of a group owns elements
// 4*l .. 4*l+3 of each 4*G-wide slice of k, loaded four at a time (one vector load) when
// that layout allows.
// Each dot product is reduced with shuffles in a fixed order: deterministic.
//
// op(A)(i, l) is at A[i*lda + l] when `a_row` is set, else A[i + l*lda]; op(B)(l, j) is at
// B[l*ldb + j] when `b_row` is set, else B[l + j*ldb]. `a_vec` / `b_vec`: op(A)'s rows /
// op(B)'s columns are contiguous with 4-element-aligned starts (ld % 4 == 0, aligned base).
#include "common/vec.cuh"
#include "common/warp.cuh"

#define SDDMM_Q 4  // 4*G-wide slices of k kept in registers

// Four elements l0 .. l0+3 (zero past k) of the vector at M + off with stride `inc`.
template <class In, class T>
__device__ __forceinline__ void sddmm_load4(const In* __restrict__ M, i64 off, i64 inc, bool vec, i64 l0, i64 k,
                                            T* o) {
    if (vec && l0 + 4 <= k) {
        Load4<In, T>::run(M + off + l0, o);
    } else {
#pragma unroll
        for (int v = 0; v < 4; ++v) o[v] = l0 + v < k ? to_compute(M[off + (l0 + v) * inc]) : T(0);
    }
}

template <class In, class Out, class I>
__device__ void sddmm_csr(i64 m, i64 k, i64 nnz, const I* __restrict__ ptr, const I* __restrict__ col, i64 base,
                          const In* __restrict__ A, i64 lda, int a_row, int a_vec, const In* __restrict__ B,
                          i64 ldb, int b_row, int b_vec, Out* __restrict__ C,
                          const typename ComputeOf<In>::type* alpha_dev, typename ComputeOf<In>::type alpha_h,
                          const typename ComputeOf<In>::type* beta_dev, typename ComputeOf<In>::type beta_h, int G,
                          i64 per_warp) {
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const int lane = threadIdx.x & 31;
    const int glane = lane & (G - 1);
    const int S = 32 / G, sub = lane / G;
    const unsigned gmask = group_mask(G);
    const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
    // Element (r, l) of op(A) at A[r*a_r + l*a_l]; of op(B) at (l, j): B[j*b_j + l*b_l].
    const i64 a_r = a_row ? lda : 1, a_l = a_row ? 1 : lda;
    const i64 b_j = b_row ? 1 : ldb, b_l = b_row ? ldb : 1;
    for (i64 w = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w * per_warp < nnz; w += warps) {
        const i64 p0 = w * per_warp;
        const i64 p1 = p0 + per_warp < nnz ? p0 + per_warp : nnz;
        i64 row = -1, row_end = 0;
        T areg[SDDMM_Q][4];
        for (i64 p = p0 + sub; p < p1; p += S) {
            if (p >= row_end) {
                row = (row >= 0 && (i64)ptr[row + 2] - base > p) ? row + 1 : row_of(ptr, m, base, p);
                row_end = (i64)ptr[row + 1] - base;
#pragma unroll
                for (int q = 0; q < SDDMM_Q; ++q)
                    sddmm_load4<In, T>(A, row * a_r, a_l, a_vec, ((i64)q * G + glane) * 4, k, areg[q]);
            }
            const i64 j = (i64)col[p] - base;
            T dot = 0;
#pragma unroll
            for (int q = 0; q < SDDMM_Q; ++q) {
                const i64 l0 = ((i64)q * G + glane) * 4;
                if (l0 < k) {
                    T b[4];
                    sddmm_load4<In, T>(B, j * b_j, b_l, b_vec, l0, k, b);
#pragma unroll
                    for (int v = 0; v < 4; ++v) dot += areg[q][v] * b[v];
                }
            }
            for (i64 l0 = ((i64)SDDMM_Q * G + glane) * 4; l0 < k; l0 += (i64)G * 4) {
                T a[4], b[4];
                sddmm_load4<In, T>(A, row * a_r, a_l, a_vec, l0, k, a);
                sddmm_load4<In, T>(B, j * b_j, b_l, b_vec, l0, k, b);
#pragma unroll
                for (int v = 0; v < 4; ++v) dot += a[v] * b[v];
            }
            dot = group_sum(dot, G, gmask);
            if (glane == 0) axpby_store(&C[p], dot, alpha, beta);
        }
    }
}

#define SDDMM_ENTRY(In, Out, tin, tout, I, tidx)                                                         \
    extern "C" __global__ void spblk_sddmm_csr_##tin##_##tout##_##tidx(                                  \
        i64 m, i64 k, i64 nnz, const I* ptr, const I* col, i64 base, const In* A, i64 lda, int a_row,    \
        int a_vec, const In* B, i64 ldb, int b_row, int b_vec, Out* C,                                   \
        const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha,                                 \
        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta, int G, i64 per_warp) {            \
        sddmm_csr<In, Out, I>(m, k, nnz, ptr, col, base, A, lda, a_row, a_vec, B, ldb, b_row, b_vec, C,  \
                              alpha_dev, alpha, beta_dev, beta, G, per_warp);                            \
    }

SPBLK_FOR_PRECISIONS(SDDMM_ENTRY, int, i32)
SPBLK_FOR_PRECISIONS(SDDMM_ENTRY, long long, i64)
