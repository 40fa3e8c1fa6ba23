// Values moved as opaque elements of 1, 2, 4, 8 or 16 bytes (conversions do not look at them).
#pragma once
#include "common/types.cuh"

__device__ __forceinline__ void copy_elem(const void* src, void* dst, u64 from, u64 to, int bytes) {
    switch (bytes) {
        case 1: ((uint8_t*)dst)[to] = ((const uint8_t*)src)[from]; break;
        case 2: ((uint16_t*)dst)[to] = ((const uint16_t*)src)[from]; break;
        case 4: ((uint32_t*)dst)[to] = ((const uint32_t*)src)[from]; break;
        case 8: ((u64*)dst)[to] = ((const u64*)src)[from]; break;
        case 16: ((uint4*)dst)[to] = ((const uint4*)src)[from]; break;
        default: break;
    }
}
