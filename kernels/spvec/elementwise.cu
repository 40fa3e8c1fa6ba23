// Sparse-vector updates (spblkAxpby, spblkGather, spblkScatter, spblkRot): one thread per
// stored entry of X. X's indices are distinct (cuSPARSE's contract), so no two threads touch
// the same element of Y and no atomics are needed. An index outside [base, size + base) is
// skipped: the host backend reports it; here it must not reach memory outside Y.
#include "common/types.cuh"

// Position of entry k in Y, or -1 when its index is out of range.
template <class I> __device__ __forceinline__ i64 spvec_pos(const I* idx, i64 base, i64 size, u64 k) {
    const i64 p = (i64)idx[k] - base;
    return p >= 0 && p < size ? p : -1;
}

// Axpby, pass 1: Y = beta Y over all of Y (beta == 0: Y is not read, it may hold NaN).
template <class V>
__device__ void spvec_scale(i64 size, V* y, const typename ComputeOf<V>::type* beta_dev,
                            typename ComputeOf<V>::type beta_h) {
    typedef typename ComputeOf<V>::type T;
    const T beta = scalar_arg(beta_dev, beta_h);
    GRID_STRIDE(i, size) { y[i] = Store<V>::from(beta == T(0) ? T(0) : beta * to_compute(y[i])); }
}

// Axpby, pass 2: Y[pos k] = alpha X[k] + Y[pos k] (Y as pass 1 stored it).
template <class V, class I>
__device__ void spvec_axpy(i64 nnz, const I* idx, i64 base, i64 size, const V* x, V* y,
                           const typename ComputeOf<V>::type* alpha_dev, typename ComputeOf<V>::type alpha_h) {
    typedef typename ComputeOf<V>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    GRID_STRIDE(k, nnz) {
        const i64 p = spvec_pos(idx, base, size, k);
        if (p >= 0) y[p] = Store<V>::from(alpha * to_compute(x[k]) + to_compute(y[p]));
    }
}

// The Givens rotation at X's positions, from the old values of both.
template <class V, class I>
__device__ void spvec_rot(i64 nnz, const I* idx, i64 base, i64 size, V* x, V* y,
                          const typename ComputeOf<V>::type* c_dev, typename ComputeOf<V>::type c_h,
                          const typename ComputeOf<V>::type* s_dev, typename ComputeOf<V>::type s_h) {
    typedef typename ComputeOf<V>::type T;
    const T c = scalar_arg(c_dev, c_h), s = scalar_arg(s_dev, s_h);
    GRID_STRIDE(k, nnz) {
        const i64 p = spvec_pos(idx, base, size, k);
        if (p < 0) continue;
        const T xo = to_compute(x[k]), yo = to_compute(y[p]);
        x[k] = Store<V>::from(c * xo + s * yo);
        y[p] = Store<V>::from(c * yo - s * xo);
    }
}

// Gather (to_x) or Scatter: elements copied as raw words of their size, so every value
// type works, complex ones included.
template <class W, class I>
__device__ void spvec_copy(i64 nnz, const I* idx, i64 base, i64 size, W* x, W* y, bool to_x) {
    GRID_STRIDE(k, nnz) {
        const i64 p = spvec_pos(idx, base, size, k);
        if (p < 0) continue;
        if (to_x) x[k] = y[p]; else y[p] = x[k];
    }
}

#define SPVEC_SCALE_ENTRY(V, tag, ...)                                                                   \
    extern "C" __global__ void __launch_bounds__(256) spblk_spvec_scale_##tag(                          \
        i64 size, V* y, const ComputeOf<V>::type* beta_dev, ComputeOf<V>::type beta) {                  \
        spvec_scale<V>(size, y, beta_dev, beta);                                                        \
    }
SPBLK_FOR_VALUES(SPVEC_SCALE_ENTRY, 0)

#define SPVEC_VALUE_ENTRIES(V, vtag, I, itag)                                                            \
    extern "C" __global__ void __launch_bounds__(256) spblk_spvec_axpy_##vtag##_##itag(                 \
        i64 nnz, const I* idx, i64 base, i64 size, const V* x, V* y, const ComputeOf<V>::type* alpha_dev, \
        ComputeOf<V>::type alpha) {                                                                     \
        spvec_axpy<V, I>(nnz, idx, base, size, x, y, alpha_dev, alpha);                                 \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(256) spblk_spvec_rot_##vtag##_##itag(                  \
        i64 nnz, const I* idx, i64 base, i64 size, V* x, V* y, const ComputeOf<V>::type* c_dev,         \
        ComputeOf<V>::type c, const ComputeOf<V>::type* s_dev, ComputeOf<V>::type s) {                  \
        spvec_rot<V, I>(nnz, idx, base, size, x, y, c_dev, c, s_dev, s);                                \
    }
#define SPVEC_VALUE_INDEX(V, vtag, _) SPVEC_VALUE_ENTRIES(V, vtag, int, i32) SPVEC_VALUE_ENTRIES(V, vtag, i64, i64)
SPBLK_FOR_VALUES(SPVEC_VALUE_INDEX, 0)

#define SPVEC_COPY_ENTRIES(W, wtag, I, itag)                                                             \
    extern "C" __global__ void __launch_bounds__(256) spblk_spvec_gather_##wtag##_##itag(               \
        i64 nnz, const I* idx, i64 base, i64 size, W* x, const W* y) {                                  \
        spvec_copy<W, I>(nnz, idx, base, size, x, const_cast<W*>(y), true);                             \
    }                                                                                                   \
    extern "C" __global__ void __launch_bounds__(256) spblk_spvec_scatter_##wtag##_##itag(              \
        i64 nnz, const I* idx, i64 base, i64 size, const W* x, W* y) {                                  \
        spvec_copy<W, I>(nnz, idx, base, size, const_cast<W*>(x), y, false);                            \
    }
#define SPVEC_COPY_INDEX(W, wtag) SPVEC_COPY_ENTRIES(W, wtag, int, i32) SPVEC_COPY_ENTRIES(W, wtag, i64, i64)
SPVEC_COPY_INDEX(unsigned char, b8)
SPVEC_COPY_INDEX(unsigned short, b16)
SPVEC_COPY_INDEX(unsigned, b32)
SPVEC_COPY_INDEX(unsigned long long, b64)
SPVEC_COPY_INDEX(ulonglong2, b128)
