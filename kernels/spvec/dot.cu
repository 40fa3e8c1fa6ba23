// SpVV: result = X · Y in two launches with a fixed summation order, so the same inputs give
// the same bits run after run. The entries are cut into `blocks` chunks of `chunk` (both chosen
// from nnz alone, src/backend/cuda/spvec.rs); thread t of a block adds its chunk's entries
// t, t + 256, ... in order, the block sums its threads with a fixed tree (block_sum) into
// partials[b]; then one block adds the partials the same way into *out.
#include "common/warp.cuh"

template <class V, class I>
__device__ void spvv_partial(i64 nnz, i64 chunk, const I* idx, i64 base, i64 size, const V* x, const V* y,
                             typename ComputeOf<V>::type* partials) {
    typedef typename ComputeOf<V>::type T;
    const i64 start = (i64)blockIdx.x * chunk, end = min(start + chunk, nnz);
    T sum = T(0);
    for (i64 k = start + threadIdx.x; k < end; k += blockDim.x) {
        const i64 p = (i64)idx[k] - base;
        if (p >= 0 && p < size) sum += to_compute(x[k]) * to_compute(y[p]);  // bad index: skipped
    }
    sum = block_sum(sum);
    if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

template <class T> __device__ void spvv_finish(i64 blocks, const T* partials, T* out) {
    T sum = T(0);
    for (i64 b = threadIdx.x; b < blocks; b += blockDim.x) sum += partials[b];
    sum = block_sum(sum);
    if (threadIdx.x == 0) *out = sum;
}

#define SPVV_PARTIAL_ENTRIES(V, vtag, I, itag)                                                          \
    extern "C" __global__ void __launch_bounds__(256) spblk_spvv_partial_##vtag##_##itag(              \
        i64 nnz, i64 chunk, const I* idx, i64 base, i64 size, const V* x, const V* y,                  \
        ComputeOf<V>::type* partials) {                                                                \
        spvv_partial<V, I>(nnz, chunk, idx, base, size, x, y, partials);                               \
    }
#define SPVV_PARTIAL_INDEX(V, vtag, _) SPVV_PARTIAL_ENTRIES(V, vtag, int, i32) SPVV_PARTIAL_ENTRIES(V, vtag, i64, i64)
SPBLK_FOR_VALUES(SPVV_PARTIAL_INDEX, 0)

#define SPVV_FINISH_ENTRY(T, tag)                                                                      \
    extern "C" __global__ void __launch_bounds__(256) spblk_spvv_finish_##tag(i64 blocks, const T* partials, \
                                                                               T* out) {              \
        spvv_finish<T>(blocks, partials, out);                                                         \
    }
SPVV_FINISH_ENTRY(float, f32)
SPVV_FINISH_ENTRY(double, f64)
