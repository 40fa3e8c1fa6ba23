// Element types, conversions and the instantiation lists shared by all kernels.
//
// Entry points are `extern "C"` wrappers around templates so that the Rust side can load
// them by plain name; the names follow `spblk_<op>_<variant>_<in>_<out>_<idx>` and must
// match the registry in src/backend/cuda/kernels.rs.
#pragma once
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

typedef __half f16;
typedef __nv_bfloat16 bf16;
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned int u32;

#define SPBLK_FULL_MASK 0xffffffffu

// A kernel of a fallback chain does nothing when `needed` is set and holds 0: an earlier kernel
// on the stream did the work (convert/mirror.cu). The word is written before the kernel starts,
// so every thread reads the same value.
__device__ __forceinline__ bool skipped(const u32* needed) { return needed && *needed == 0; }

// Conversions between stored elements and the compute type (float or double). Loads from
// f16/bf16/f32 into float are exact; stores round to nearest, like the host reference.
__device__ __forceinline__ float to_compute(float x) { return x; }
__device__ __forceinline__ double to_compute(double x) { return x; }
__device__ __forceinline__ float to_compute(f16 x) { return __half2float(x); }
__device__ __forceinline__ float to_compute(bf16 x) { return __bfloat162float(x); }

template <class E> struct Store;
template <> struct Store<float> {
    __device__ static __forceinline__ float from(float v) { return v; }
};
template <> struct Store<double> {
    __device__ static __forceinline__ double from(double v) { return v; }
};
template <> struct Store<f16> {
    __device__ static __forceinline__ f16 from(float v) { return __float2half_rn(v); }
};
template <> struct Store<bf16> {
    __device__ static __forceinline__ bf16 from(float v) { return __float2bfloat16_rn(v); }
};

// The compute type of an input element type: double for double, float otherwise.
template <class E> struct ComputeOf { typedef float type; };
template <> struct ComputeOf<double> { typedef double type; };

// Rounded multiply/add that the compiler may not contract into an FMA, so that SpGEMM's
// sums match the host reference bit for bit.
__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }

// alpha/beta: pointer mode device passes a device pointer, host mode passes the value.
template <class T> __device__ __forceinline__ T scalar_arg(const T* dev, T host) {
    return dev ? *dev : host;
}

// `out = alpha*acc (+ beta*old)`; with beta == 0 the old value is never read (it may be NaN).
template <class T, class Out>
__device__ __forceinline__ void axpby_store(Out* dst, T acc, T alpha, T beta) {
    T r = alpha * acc;
    if (beta != T(0)) r += beta * to_compute(*dst);
    *dst = Store<Out>::from(r);
}

// Largest r in [0, n) with (ptr[r] - base) <= p, for offsets ptr[0..n]: the row of entry p.
template <class I> __device__ __forceinline__ i64 row_of(const I* ptr, i64 n, i64 base, i64 p) {
    i64 lo = 0, hi = n;  // invariant: ptr[lo]-base <= p < ptr[hi]-base
    while (hi - lo > 1) {
        i64 mid = (lo + hi) >> 1;
        if ((i64)ptr[mid] - base <= p) lo = mid; else hi = mid;
    }
    return lo;
}

// row_of for a whole warp (all 32 lanes, the same p): a 32-way search, ceil(log32 n) rounds of
// dependent loads instead of log2 n. Lane t tests offset lo + t*step; the last lane whose
// offset is <= p gives the next range (offsets ascend, so the tests are true then false).
template <class I> __device__ __forceinline__ i64 warp_row_of(const I* ptr, i64 n, i64 base, i64 p) {
    const int lane = threadIdx.x & 31;
    i64 lo = 0, hi = n;  // invariant: ptr[lo]-base <= p < ptr[hi]-base
    while (hi - lo > 1) {
        const i64 step = (hi - lo + 31) >> 5;
        const i64 i = lo + lane * step;
        const unsigned le = __ballot_sync(0xffffffffu, i < hi && (i64)ptr[i] - base <= p);
        lo += (i64)(31 - __clz(le)) * step;  // lane 0 tests lo itself: le != 0
        hi = lo + step < hi ? lo + step : hi;
    }
    return lo;
}

// Instantiation lists. X(In, Out, tag_in, tag_out) for each supported precision combination
// (src/types.rs Precision::check), and Y(I, tag) for each index type.
#define SPBLK_FOR_PRECISIONS(X, ...)            \
    X(float, float, f32, f32, __VA_ARGS__)      \
    X(double, double, f64, f64, __VA_ARGS__)    \
    X(f16, float, f16, f32, __VA_ARGS__)        \
    X(bf16, float, bf16, f32, __VA_ARGS__)      \
    X(f16, f16, f16, f16, __VA_ARGS__)          \
    X(bf16, bf16, bf16, bf16, __VA_ARGS__)

// X(V, tag) for each stored value type (the compute type follows from it).
#define SPBLK_FOR_VALUES(X, ...) \
    X(float, f32, __VA_ARGS__)   \
    X(double, f64, __VA_ARGS__)  \
    X(f16, f16, __VA_ARGS__)     \
    X(bf16, bf16, __VA_ARGS__)

// for (u64 i = global thread; i < n; i += all threads)
#define GRID_STRIDE(i, n) \
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < (u64)(n); i += (u64)gridDim.x * blockDim.x)

#define SPBLK_CAT_(a, b) a##b
#define SPBLK_CAT(a, b) SPBLK_CAT_(a, b)
