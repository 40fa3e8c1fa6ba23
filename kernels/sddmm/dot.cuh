// The per-lane dot-product pieces shared by the SDDMM kernels (csr.cu, aspt.cu): a lane owns
// eight consecutive k elements of each dot product, summed in a fixed order.
#pragma once
#include "common/vec.cuh"
#include "common/warp.cuh"

#define SDDMM_E 8  // k elements per lane and slice

// Elements l0 .. l0+7 (zero past k) of the vector at M with stride `inc`; VEC: stride 1 and
// M 4-element aligned, so full slices are two vector loads.
template <bool VEC, class In, class T>
__device__ __forceinline__ void sddmm_load8(const In* __restrict__ M, i64 inc, i64 l0, i64 k, T* o) {
    if (VEC && l0 + SDDMM_E <= k) {
        Load4<In, T>::run(M + l0, o);
        Load4<In, T>::run(M + l0 + 4, o + 4);
    } else {
#pragma unroll
        for (int v = 0; v < SDDMM_E; ++v) o[v] = l0 + v < k ? to_compute(M[(VEC ? l0 + v : (l0 + v) * inc)]) : T(0);
    }
}

// Explicit fused multiply-adds, so that every kernel computes the same bits for an entry
// (left to contraction, the compiler may fuse a*b + c differently from kernel to kernel).
template <class T> __device__ __forceinline__ T dot8(const T* a, const T* b, T acc) {
#pragma unroll
    for (int v = 0; v < SDDMM_E; ++v) acc = fma(a[v], b[v], acc);
    return acc;
}

// `out = alpha*dot (+ beta*old)`, rounded the same way in every SDDMM kernel; with beta == 0
// the old value is never read (it may be NaN).
template <class T, class Out>
__device__ __forceinline__ void sddmm_store(Out* dst, T dot, T alpha, T beta) {
    T r = mul_rn(alpha, dot);
    if (beta != T(0)) r = fma(beta, to_compute(*dst), r);
    *dst = Store<Out>::from(r);
}

// 256 threads; f32: at most 64 registers each, so 32 warps per SM keep 256 dot products in
// flight (f16/bf16 need 80 and f64 128 without spilling).
#define SDDMM_MIN_BLOCKS(In) (sizeof(In) == 4 ? 4 : sizeof(In) == 8 ? 2 : 3)
