// CSR SDDMM, C = alpha*(op(A)*op(B)) o spy(C) + beta*C.
//
// A group of G lanes (4..32, from k) computes one stored entry's dot product over k, lanes
// striding over k and reducing with shuffles in a fixed order (deterministic). Groups take
// consecutive entries, so the entries of one row reuse op(A)'s row through L1; the row of an
// entry is found by binary search in the offsets, which keeps power-law rows balanced.
//
// op(A)(i, l) is at A[i*lda + l] when `a_row` is set, else A[i + l*lda]; op(B)(l, j) is at
// B[l*ldb + j] when `b_row` is set, else B[l + j*ldb].
#include "common/warp.cuh"

template <class In, class Out, class I>
__device__ void sddmm_csr(i64 m, i64 k, i64 nnz, const I* __restrict__ ptr, const I* __restrict__ col, i64 base,
                          const In* __restrict__ A, i64 lda, int a_row, const In* __restrict__ B, i64 ldb,
                          int b_row, Out* __restrict__ C, const typename ComputeOf<In>::type* alpha_dev,
                          typename ComputeOf<In>::type alpha_h, const typename ComputeOf<In>::type* beta_dev,
                          typename ComputeOf<In>::type beta_h, int G) {
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const int glane = threadIdx.x & (G - 1);
    const unsigned gmask = group_mask(G);
    const i64 groups = ((i64)gridDim.x * blockDim.x) / G;
    for (i64 p = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / G; p < nnz; p += groups) {
        const i64 i = row_of(ptr, m, base, p);
        const i64 j = (i64)col[p] - base;
        T dot = 0;
        for (i64 l = glane; l < k; l += G) {
            const T a = to_compute(a_row ? A[i * lda + l] : A[i + l * lda]);
            const T b = to_compute(b_row ? B[l * ldb + j] : B[l + j * ldb]);
            dot += a * b;
        }
        dot = group_sum(dot, G, gmask);
        if (glane == 0) axpby_store(&C[p], dot, alpha, beta);
    }
}

#define SDDMM_ENTRY(In, Out, tin, tout, I, tidx)                                                         \
    extern "C" __global__ void spblk_sddmm_csr_##tin##_##tout##_##tidx(                                  \
        i64 m, i64 k, i64 nnz, const I* ptr, const I* col, i64 base, const In* A, i64 lda, int a_row,    \
        const In* B, i64 ldb, int b_row, Out* C, const ComputeOf<In>::type* alpha_dev,                   \
        ComputeOf<In>::type alpha, const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta,        \
        int G) {                                                                                         \
        sddmm_csr<In, Out, I>(m, k, nnz, ptr, col, base, A, lda, a_row, B, ldb, b_row, C, alpha_dev,     \
                              alpha, beta_dev, beta, G);                                                 \
    }

SPBLK_FOR_PRECISIONS(SDDMM_ENTRY, int, i32)
SPBLK_FOR_PRECISIONS(SDDMM_ENTRY, long long, i64)
