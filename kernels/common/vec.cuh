// Four consecutive elements of a dense operand in one vector load (float4, 2 x double2, or
// an 8-byte load of four halves), converted to the compute type. The caller guarantees the
// alignment (4 elements, at most 16 bytes).
#pragma once
#include "common/types.cuh"

template <class In, class T> struct Load4;
template <> struct Load4<float, float> {
    __device__ static __forceinline__ void run(const float* p, float* o) {
        float4 v = *reinterpret_cast<const float4*>(p);
        o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = v.w;
    }
};
template <> struct Load4<double, double> {
    __device__ static __forceinline__ void run(const double* p, double* o) {
        double2 a = reinterpret_cast<const double2*>(p)[0], b = reinterpret_cast<const double2*>(p)[1];
        o[0] = a.x; o[1] = a.y; o[2] = b.x; o[3] = b.y;
    }
};
template <> struct Load4<f16, float> {
    __device__ static __forceinline__ void run(const f16* p, float* o) {
        uint2 raw = *reinterpret_cast<const uint2*>(p);
        float2 a = __half22float2(*reinterpret_cast<const __half2*>(&raw.x));
        float2 b = __half22float2(*reinterpret_cast<const __half2*>(&raw.y));
        o[0] = a.x; o[1] = a.y; o[2] = b.x; o[3] = b.y;
    }
};
template <> struct Load4<bf16, float> {
    __device__ static __forceinline__ void run(const bf16* p, float* o) {
        uint2 raw = *reinterpret_cast<const uint2*>(p);
        float2 a = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.x));
        float2 b = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.y));
        o[0] = a.x; o[1] = a.y; o[2] = b.x; o[3] = b.y;
    }
};

// Four consecutive elements of the compute type stored as one vector write (float4, 2 x double2,
// or an 8-byte store of four halves rounded to nearest, as Store<Out>::from). Same alignment
// contract as Load4.
template <class Out, class T> struct Store4;
template <> struct Store4<float, float> {
    __device__ static __forceinline__ void run(float* p, const float* v) {
        *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
    }
};
template <> struct Store4<double, double> {
    __device__ static __forceinline__ void run(double* p, const double* v) {
        reinterpret_cast<double2*>(p)[0] = make_double2(v[0], v[1]);
        reinterpret_cast<double2*>(p)[1] = make_double2(v[2], v[3]);
    }
};
template <> struct Store4<f16, float> {
    __device__ static __forceinline__ void run(f16* p, const float* v) {
        __half2 a = __floats2half2_rn(v[0], v[1]), b = __floats2half2_rn(v[2], v[3]);
        *reinterpret_cast<uint2*>(p) = make_uint2(*reinterpret_cast<unsigned*>(&a), *reinterpret_cast<unsigned*>(&b));
    }
};
template <> struct Store4<bf16, float> {
    __device__ static __forceinline__ void run(bf16* p, const float* v) {
        __nv_bfloat162 a = __floats2bfloat162_rn(v[0], v[1]), b = __floats2bfloat162_rn(v[2], v[3]);
        *reinterpret_cast<uint2*>(p) = make_uint2(*reinterpret_cast<unsigned*>(&a), *reinterpret_cast<unsigned*>(&b));
    }
};

// `c_row` value of a row-major C whose rows start 4-element aligned (ldc and the pointer): its
// four-column tiles are written with Store4.
#define SPBLK_C_ROW_VEC4 2

// C(i, j0 .. j0+VEC) = alpha*acc + beta*C(i, ·) as axpby_store computes it (same expression,
// same bits; beta = 0 never reads C). With a 4-element aligned row-major C the lane's four
// elements are one vector access: a warp's scalar stores at a 16-byte stride wrote each 32-byte
// sector four times (H100, Poisson 3-D N = 128: 14.1 GB of L2 traffic where 10.6 were needed).
template <class T, class Out, int VEC>
__device__ __forceinline__ void store_tile(Out* C, i64 ldc, int c_row, i64 i, i64 j0, i64 n, const T* acc, T alpha,
                                           T beta) {
    if (VEC == 4 && c_row == SPBLK_C_ROW_VEC4 && j0 + 4 <= n) {
        Out* p = &C[i * ldc + j0];
        T old[4] = {T(0), T(0), T(0), T(0)}, r[4];
        if (beta != T(0)) Load4<Out, T>::run(p, old);
#pragma unroll
        for (int v = 0; v < 4; ++v) {
            r[v] = alpha * acc[v];
            if (beta != T(0)) r[v] += beta * old[v];
        }
        Store4<Out, T>::run(p, r);
        return;
    }
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
        const i64 j = j0 + v;
        if (j < n) axpby_store(c_row ? &C[i * ldc + j] : &C[i + j * ldc], acc[v], alpha, beta);
    }
}

// partial[row*n + j0 .. +VEC] = acc (compute type, row-major n wide): one vector store when n
// and the array allow it.
template <class T, int VEC>
__device__ __forceinline__ void store_partial(T* partial, i64 row, i64 j0, i64 n, const T* acc) {
    if (VEC == 4 && (n & 3) == 0 && ((u64)partial & 15) == 0 && j0 + 4 <= n) {
        Store4<T, T>::run(&partial[row * n + j0], acc);
        return;
    }
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
        if (j0 + v < n) partial[row * n + j0 + v] = acc[v];
    }
}
