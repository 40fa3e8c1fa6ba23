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
