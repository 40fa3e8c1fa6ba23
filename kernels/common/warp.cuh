// Warp, sub-warp ("group") and block reductions and scans. All reductions combine values in
// a fixed order, so results do not depend on scheduling.
#pragma once
#include "common/types.cuh"

// Mask of the G-lane group (G a power of two <= 32) that the calling lane belongs to.
__device__ __forceinline__ unsigned group_mask(int G) {
    const int lane = threadIdx.x & 31;
    return G == 32 ? SPBLK_FULL_MASK : (((1u << G) - 1u) << (lane & ~(G - 1)));
}

// Sum over a G-lane group; the group's first lane gets the total.
template <class T> __device__ __forceinline__ T group_sum(T v, int G, unsigned mask) {
    for (int off = G >> 1; off > 0; off >>= 1) v += __shfl_down_sync(mask, v, off, G);
    return v;
}

template <class T> __device__ __forceinline__ T warp_sum(T v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(SPBLK_FULL_MASK, v, off);
    return v;
}

template <class T> __device__ __forceinline__ T warp_inclusive_scan(T v) {
    const int lane = threadIdx.x & 31;
    for (int off = 1; off < 32; off <<= 1) {
        T t = __shfl_up_sync(SPBLK_FULL_MASK, v, off);
        if (lane >= off) v += t;
    }
    return v;
}

// Block-wide sum; every thread gets the total. blockDim.x must be a multiple of 32.
template <class T> __device__ T block_sum(T v) {
    __shared__ T partial[32];
    __shared__ T result;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    v = warp_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        T s = partial[0];
        for (int w = 1; w < nw; ++w) s += partial[w];
        result = s;
    }
    __syncthreads();
    T r = result;
    __syncthreads();  // lets the caller reuse the shared slots in a loop
    return r;
}

// Block-wide exclusive scan; `total` receives the block's sum. blockDim.x multiple of 32.
template <class T> __device__ T block_exclusive_scan(T v, T& total) {
    __shared__ T warp_prefix[32];
    __shared__ T block_total;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
    T inc = warp_inclusive_scan(v);
    if (lane == 31) warp_prefix[warp] = inc;
    __syncthreads();
    if (warp == 0) {
        T w = lane < nw ? warp_prefix[lane] : T(0);
        T winc = warp_inclusive_scan(w);
        if (lane < nw) warp_prefix[lane] = winc - w;
        if (lane == 31) block_total = winc;
    }
    __syncthreads();
    T r = warp_prefix[warp] + inc - v;
    total = block_total;
    __syncthreads();
    return r;
}
