// Device-wide exclusive scan in three launches: per-tile sums, one block scanning the tile
// sums (looping, so any length works) and writing the grand total, then each tile scanned
// with its offset. Short inputs are one launch of the middle kernel on the data itself
// (src/backend/cuda/prims.rs). Integer sums, so the result is exact and deterministic. In place allowed.
#include "common/warp.cuh"

#define SCAN_THREADS 256
#define SCAN_ROUNDS 8
#define SCAN_TILE (SCAN_THREADS * SCAN_ROUNDS)

template <class T> __device__ void scan_reduce(const T* in, u64 n, T* tile_sums) {
    const u64 tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        T s = 0;
        for (int r = 0; r < SCAN_ROUNDS; ++r) {
            u64 i = t * SCAN_TILE + r * SCAN_THREADS + threadIdx.x;
            if (i < n) s += in[i];
        }
        s = block_sum(s);
        if (threadIdx.x == 0) tile_sums[t] = s;
    }
}

// One block: exclusive scan of tile_sums[0..tiles) in place; *total = the sum of all.
template <class T> __device__ void scan_sums(T* sums, u64 tiles, T* total) {
    T carry = 0;
    for (u64 base = 0; base < tiles; base += blockDim.x) {
        u64 i = base + threadIdx.x;
        T v = i < tiles ? sums[i] : T(0);
        T chunk;
        T ex = block_exclusive_scan(v, chunk);
        if (i < tiles) sums[i] = carry + ex;
        carry += chunk;
    }
    if (threadIdx.x == 0 && total) *total = carry;
}

template <class T> __device__ void scan_down(T* data, u64 n, const T* tile_offsets) {
    const u64 tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        T carry = tile_offsets[t];
        for (int r = 0; r < SCAN_ROUNDS; ++r) {
            u64 i = t * SCAN_TILE + r * SCAN_THREADS + threadIdx.x;
            T v = i < n ? data[i] : T(0);
            T chunk;
            T ex = block_exclusive_scan(v, chunk);
            if (i < n) data[i] = carry + ex;
            carry += chunk;
        }
    }
}

#define SCAN_ENTRY(T, tag)                                                                     \
    extern "C" __global__ void __launch_bounds__(SCAN_THREADS) spblk_scan_reduce_##tag(       \
        const T* in, u64 n, T* tile_sums) { scan_reduce<T>(in, n, tile_sums); }               \
    extern "C" __global__ void spblk_scan_sums_##tag(T* sums, u64 tiles, T* total) {           \
        scan_sums<T>(sums, tiles, total);                                                      \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(SCAN_THREADS) spblk_scan_down_##tag(         \
        T* data, u64 n, const T* tile_offsets) { scan_down<T>(data, n, tile_offsets); }

SCAN_ENTRY(u32, u32)
SCAN_ENTRY(u64, u64)
