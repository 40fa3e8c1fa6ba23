// CSR SpMV, y = alpha*A*x + beta*y, with row-length-aware work assignment:
//  * vector kernel: a group of G lanes (2..32, chosen from the average row length) per row,
//    reduced with shuffles in a fixed order;
//  * rows longer than `long_threshold` are not computed there but appended to a list, then
//    split into chunks of `chunk` entries: one block sums each chunk into the buffer
//    (partial), and a finishing pass adds each row's chunk sums in chunk order. No floating
//    point atomics anywhere, so results are deterministic (the list order may vary between
//    runs; each row's value does not).
// x and y are strided (incx/incy) so that SpMM with one column can use these kernels.
#include "common/warp.cuh"

// GF: the group width fixed at compile time (32: a warp per row, for long rows), or 0 for
// the runtime G. With G a runtime value the mask, lane and stride arithmetic cost registers
// and instructions: on a block matrix of ~1000-entry rows the kernel ran 12 % behind the same
// loop with G = 32 compiled in (bench/probes/spmv_long_rows.cu, docs/spmv.md).
template <class In, class Out, class I, int GF>
__device__ void spmv_vector(i64 m, const I* __restrict__ ptr, const I* __restrict__ col,
                            const In* __restrict__ val, i64 base, const In* __restrict__ x, i64 incx,
                            Out* __restrict__ y, i64 incy, const typename ComputeOf<In>::type* alpha_dev,
                            typename ComputeOf<In>::type alpha_h, const typename ComputeOf<In>::type* beta_dev,
                            typename ComputeOf<In>::type beta_h, int G_arg, i64 long_threshold, i64* long_list,
                            u32* long_count) {
    const int G = GF ? GF : G_arg;
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const int glane = threadIdx.x & (G - 1);
    const unsigned gmask = group_mask(G);
    const i64 groups = ((i64)gridDim.x * blockDim.x) / G;
    for (i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / G; i < m; i += groups) {
        const i64 s = (i64)ptr[i] - base, e = (i64)ptr[i + 1] - base;
        if (long_list && e - s > long_threshold) {
            if (glane == 0) long_list[atomicAdd(long_count, 1u)] = i;
            continue;
        }
        T sum = 0;
#pragma unroll 4
        for (i64 p = s + glane; p < e; p += G)
            sum += to_compute(val[p]) * to_compute(x[((i64)col[p] - base) * incx]);
        sum = group_sum(sum, G, gmask);
        if (glane == 0) axpby_store(&y[i * incy], sum, alpha, beta);
    }
}

// One block: chunk_prefix[k] = chunks before long row k; chunk_prefix[count] = all chunks.
template <class I>
__device__ void spmv_long_plan(const u32* long_count, const i64* long_list, const I* ptr, i64 base, i64 chunk,
                               u64* chunk_prefix) {
    const u32 count = *long_count;
    u64 carry = 0;
    for (u32 k0 = 0; k0 < count; k0 += blockDim.x) {
        u32 k = k0 + threadIdx.x;
        u64 v = 0;
        if (k < count) {
            i64 r = long_list[k];
            i64 len = (i64)ptr[r + 1] - (i64)ptr[r];
            v = (u64)((len + chunk - 1) / chunk);
        }
        u64 total;
        u64 ex = block_exclusive_scan(v, total);
        if (k < count) chunk_prefix[k] = carry + ex;
        carry += total;
    }
    if (threadIdx.x == 0) chunk_prefix[count] = carry;
}

template <class In, class I>
__device__ void spmv_long_partial(const u32* long_count, const i64* long_list, const u64* chunk_prefix,
                                  const I* __restrict__ ptr, const I* __restrict__ col, const In* __restrict__ val,
                                  i64 base, const In* __restrict__ x, i64 incx, i64 chunk,
                                  typename ComputeOf<In>::type* partial) {
    typedef typename ComputeOf<In>::type T;
    const u32 count = *long_count;
    const u64 total = chunk_prefix[count];
    for (u64 c = blockIdx.x; c < total; c += gridDim.x) {
        u32 lo = 0, hi = count;  // largest k with chunk_prefix[k] <= c
        while (hi - lo > 1) {
            u32 mid = (lo + hi) >> 1;
            if (chunk_prefix[mid] <= c) lo = mid; else hi = mid;
        }
        const i64 r = long_list[lo];
        const i64 row_end = (i64)ptr[r + 1] - base;
        const i64 s = (i64)ptr[r] - base + (i64)(c - chunk_prefix[lo]) * chunk;
        const i64 e = s + chunk < row_end ? s + chunk : row_end;
        T sum = 0;
        for (i64 p = s + threadIdx.x; p < e; p += blockDim.x)
            sum += to_compute(val[p]) * to_compute(x[((i64)col[p] - base) * incx]);
        sum = block_sum(sum);
        if (threadIdx.x == 0) partial[c] = sum;
    }
}

template <class In, class Out>
__device__ void spmv_long_finish(const u32* long_count, const i64* long_list, const u64* chunk_prefix,
                                 const typename ComputeOf<In>::type* partial, Out* y, i64 incy,
                                 const typename ComputeOf<In>::type* alpha_dev, typename ComputeOf<In>::type alpha_h,
                                 const typename ComputeOf<In>::type* beta_dev, typename ComputeOf<In>::type beta_h) {
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const u32 count = *long_count;
    GRID_STRIDE(k, count) {
        T sum = 0;
        for (u64 c = chunk_prefix[k]; c < chunk_prefix[k + 1]; ++c) sum += partial[c];
        axpby_store(&y[long_list[k] * incy], sum, alpha, beta);
    }
}

#define SPMV_VECTOR_ENTRY_G(In, Out, tin, tout, I, tidx, name, GF)                                      \
    extern "C" __global__ void name##_##tin##_##tout##_##tidx(                                           \
        i64 m, const I* ptr, const I* col, const In* val, i64 base, const In* x, i64 incx, Out* y,       \
        i64 incy, const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha,                       \
        const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta, int G, i64 long_threshold,        \
        i64* long_list, u32* long_count) {                                                               \
        spmv_vector<In, Out, I, GF>(m, ptr, col, val, base, x, incx, y, incy, alpha_dev, alpha, beta_dev, \
                                    beta, G, long_threshold, long_list, long_count);                     \
    }
#define SPMV_VECTOR_ENTRY(In, Out, tin, tout, I, tidx)                                                   \
    SPMV_VECTOR_ENTRY_G(In, Out, tin, tout, I, tidx, spblk_spmv_csr_vector, 0)                           \
    SPMV_VECTOR_ENTRY_G(In, Out, tin, tout, I, tidx, spblk_spmv_csr_vector32, 32)
#define SPMV_FINISH_ENTRY(In, Out, tin, tout, unused)                                                    \
    extern "C" __global__ void spblk_spmv_csr_long_finish_##tin##_##tout(                                \
        const u32* long_count, const i64* long_list, const u64* chunk_prefix,                            \
        const ComputeOf<In>::type* partial, Out* y, i64 incy, const ComputeOf<In>::type* alpha_dev,      \
        ComputeOf<In>::type alpha, const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta) {      \
        spmv_long_finish<In, Out>(long_count, long_list, chunk_prefix, partial, y, incy, alpha_dev,      \
                                  alpha, beta_dev, beta);                                                \
    }
#define SPMV_PARTIAL_ENTRY(In, tin, I, tidx)                                                             \
    extern "C" __global__ void __launch_bounds__(256) spblk_spmv_csr_long_partial_##tin##_##tidx(       \
        const u32* long_count, const i64* long_list, const u64* chunk_prefix, const I* ptr,              \
        const I* col, const In* val, i64 base, const In* x, i64 incx, i64 chunk,                         \
        ComputeOf<In>::type* partial) {                                                                  \
        spmv_long_partial<In, I>(long_count, long_list, chunk_prefix, ptr, col, val, base, x, incx,      \
                                 chunk, partial);                                                        \
    }
#define SPMV_PLAN_ENTRY(I, tidx)                                                                         \
    extern "C" __global__ void spblk_spmv_csr_long_plan_##tidx(                                          \
        const u32* long_count, const i64* long_list, const I* ptr, i64 base, i64 chunk,                  \
        u64* chunk_prefix) {                                                                             \
        spmv_long_plan<I>(long_count, long_list, ptr, base, chunk, chunk_prefix);                        \
    }

#define SPMV_BY_PREC(In, Out, tin, tout, I, tidx) SPMV_VECTOR_ENTRY(In, Out, tin, tout, I, tidx)
#define SPMV_BY_VALUE(In, tin, I, tidx) SPMV_PARTIAL_ENTRY(In, tin, I, tidx)
SPBLK_FOR_PRECISIONS(SPMV_BY_PREC, int, i32)
SPBLK_FOR_PRECISIONS(SPMV_BY_PREC, long long, i64)
SPBLK_FOR_PRECISIONS(SPMV_FINISH_ENTRY, 0)
SPBLK_FOR_VALUES(SPMV_BY_VALUE, int, i32)
SPBLK_FOR_VALUES(SPMV_BY_VALUE, long long, i64)
SPMV_PLAN_ENTRY(int, i32)
SPMV_PLAN_ENTRY(long long, i64)
