// A value that is its own flag (SpSV's solve, the incomplete factorizations): its word holds
// all bits set until the value is published, and an aligned 4- or 8-byte store is seen whole
// or not at all, so a reader needs one load and no fence. A computed value with those bits is
// published as the canonical NaN instead.
#pragma once
#include "common/types.cuh"

// A published value as raw bits (u32 for float, u64 for double), all bits set while not yet
// published. Loads and stores are relaxed at GPU scope: they go to L2, never L1.
template <class T> struct Ready;
template <> struct Ready<float> {
    typedef u32 Bits;
    __device__ static __forceinline__ u32 load(const float* p) {
        u32 v;
        asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        return v;
    }
    __device__ static __forceinline__ void store(float* p, float v) {
        asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(__float_as_uint(v)) : "memory");
    }
    __device__ static __forceinline__ float value(u32 b) { return __uint_as_float(b); }
    __device__ static __forceinline__ bool none(u32 b) { return b == 0xffffffffu; }
    __device__ static __forceinline__ float publishable(float v) {
        return __float_as_uint(v) == 0xffffffffu ? __uint_as_float(0x7fc00000u) : v;
    }
};
template <> struct Ready<double> {
    typedef u64 Bits;
    __device__ static __forceinline__ u64 load(const double* p) {
        u64 v;
        asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
        return v;
    }
    __device__ static __forceinline__ void store(double* p, double v) {
        asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(__double_as_longlong(v)) : "memory");
    }
    __device__ static __forceinline__ double value(u64 b) { return __longlong_as_double((long long)b); }
    __device__ static __forceinline__ bool none(u64 b) { return b == ~0ull; }
    __device__ static __forceinline__ double publishable(double v) {
        return (u64)__double_as_longlong(v) == ~0ull ? __longlong_as_double(0x7ff8000000000000ll) : v;
    }
};


// The same published values in shared memory, for a solve held by one thread block (SpSV's
// block mode, kernels/spsv/one_block.cu): relaxed at block scope, through the shared window.
template <class T> struct ReadyShared;
template <> struct ReadyShared<float> : Ready<float> {
    __device__ static __forceinline__ u32 load(const float* p) {
        u32 v;
        asm volatile("ld.relaxed.cta.shared.b32 %0, [%1];" : "=r"(v) : "r"((u32)__cvta_generic_to_shared(p)) : "memory");
        return v;
    }
    __device__ static __forceinline__ void store(float* p, float v) {
        asm volatile("st.relaxed.cta.shared.b32 [%0], %1;" ::"r"((u32)__cvta_generic_to_shared(p)),
                     "r"(__float_as_uint(v))
                     : "memory");
    }
};
template <> struct ReadyShared<double> : Ready<double> {
    __device__ static __forceinline__ u64 load(const double* p) {
        u64 v;
        asm volatile("ld.relaxed.cta.shared.b64 %0, [%1];" : "=l"(v) : "r"((u32)__cvta_generic_to_shared(p)) : "memory");
        return v;
    }
    __device__ static __forceinline__ void store(double* p, double v) {
        asm volatile("st.relaxed.cta.shared.b64 [%0], %1;" ::"r"((u32)__cvta_generic_to_shared(p)),
                     "l"(__double_as_longlong(v))
                     : "memory");
    }
};
