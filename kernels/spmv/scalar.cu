// CSR SpMV, one thread per row (the textbook "CSR scalar" kernel; SPBLK_SPMV_ALG_CSR_SCALAR):
// a baseline. Each row is summed in storage order: deterministic.
#include "common/warp.cuh"

template <class In, class Out, class I>
__device__ void spmv_scalar(i64 m, const I* __restrict__ ptr, const I* __restrict__ col,
                            const In* __restrict__ val, i64 base, const In* __restrict__ x, i64 incx,
                            Out* __restrict__ y, i64 incy, const typename ComputeOf<In>::type* alpha_dev,
                            typename ComputeOf<In>::type alpha_h, const typename ComputeOf<In>::type* beta_dev,
                            typename ComputeOf<In>::type beta_h) {
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    GRID_STRIDE(i, m) {
        const i64 s = (i64)ptr[i] - base, e = (i64)ptr[i + 1] - base;
        T sum = 0;
        for (i64 p = s; p < e; ++p) sum += to_compute(val[p]) * to_compute(x[((i64)col[p] - base) * incx]);
        axpby_store(&y[(i64)i * incy], sum, alpha, beta);
    }
}

#define SPMV_SCALAR_ENTRY(In, Out, tin, tout, I, tidx)                                                   \
    extern "C" __global__ void spblk_spmv_csr_scalar_##tin##_##tout##_##tidx(                            \
        i64 m, const I* ptr, const I* col, const In* val, i64 base, const In* x, i64 incx, Out* y,       \
        i64 incy, const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha,                       \
        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta) {                                 \
        spmv_scalar<In, Out, I>(m, ptr, col, val, base, x, incx, y, incy, alpha_dev, alpha, beta_dev,    \
                                beta);                                                                   \
    }

SPBLK_FOR_PRECISIONS(SPMV_SCALAR_ENTRY, int, i32)
SPBLK_FOR_PRECISIONS(SPMV_SCALAR_ENTRY, long long, i64)
