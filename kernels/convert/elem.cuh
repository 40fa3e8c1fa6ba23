// Values moved as opaque elements of 1, 2, 4, 8 or 16 bytes (conversions do not look at them).
#pragma once
#include "common/types.cuh"

// dst[to] = src[from]. The gathered source goes through the read-only path; the store is
// marked streaming (evict first), so that the output does not push the source out of L2.
template <class T> __device__ __forceinline__ void copy_as(const void* src, void* dst, u64 from, u64 to) {
    __stcs((T*)dst + to, __ldg((const T*)src + from));
}

__device__ __forceinline__ void copy_elem(const void* src, void* dst, u64 from, u64 to, int bytes) {
    switch (bytes) {
        case 1: copy_as<unsigned char>(src, dst, from, to); break;
        case 2: copy_as<unsigned short>(src, dst, from, to); break;
        case 4: copy_as<unsigned int>(src, dst, from, to); break;
        case 8: copy_as<unsigned long long>(src, dst, from, to); break;
        case 16: copy_as<uint4>(src, dst, from, to); break;
        default: break;
    }
}
