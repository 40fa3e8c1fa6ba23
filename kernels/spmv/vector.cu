// CSR SpMV, one warp per row (the textbook "CSR vector" kernel; SPBLK_SPMV_ALG_CSR_VECTOR): a
// baseline. Lane l sums entries l, l+32, ... of the row, then a fixed shuffle tree adds the
// lanes: deterministic.
#include "common/warp.cuh"

template <class In, class Out, class I>
__device__ void spmv_warp_row(i64 m, const I* __restrict__ ptr, const I* __restrict__ col,
                              const In* __restrict__ val, i64 base, const In* __restrict__ x, i64 incx,
                              Out* __restrict__ y, i64 incy, const typename ComputeOf<In>::type* alpha_dev,
                              typename ComputeOf<In>::type alpha_h, const typename ComputeOf<In>::type* beta_dev,
                              typename ComputeOf<In>::type beta_h) {
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const int lane = threadIdx.x & 31;
    const i64 warps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; i < m; i += warps) {
        const i64 s = (i64)ptr[i] - base, e = (i64)ptr[i + 1] - base;
        T sum = 0;
        for (i64 p = s + lane; p < e; p += 32) sum += to_compute(val[p]) * to_compute(x[((i64)col[p] - base) * incx]);
        sum = warp_sum(sum);
        if (lane == 0) axpby_store(&y[i * incy], sum, alpha, beta);
    }
}

#define SPMV_WARP_ENTRY(In, Out, tin, tout, I, tidx)                                                     \
    extern "C" __global__ void spblk_spmv_csr_warp_##tin##_##tout##_##tidx(                              \
        i64 m, const I* ptr, const I* col, const In* val, i64 base, const In* x, i64 incx, Out* y,       \
        i64 incy, const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha,                       \
        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta) {                                 \
        spmv_warp_row<In, Out, I>(m, ptr, col, val, base, x, incx, y, incy, alpha_dev, alpha, beta_dev,  \
                                  beta);                                                                 \
    }

SPBLK_FOR_PRECISIONS(SPMV_WARP_ENTRY, int, i32)
SPBLK_FOR_PRECISIONS(SPMV_WARP_ENTRY, long long, i64)
