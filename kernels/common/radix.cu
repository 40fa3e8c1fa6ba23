// One pass of a stable LSD radix sort of (u32 key, u32 value) pairs on an 8-bit digit.
// hist: per-tile digit counts laid out digit-major (hist[d * tiles + t]), so that its
// exclusive scan gives each (digit, tile) its first output slot. Within a tile, items keep
// their input order (warp match + per-warp counts), so the sort is stable and deterministic.
#include "common/warp.cuh"

#define RADIX_THREADS 256
#define RADIX_ROUNDS 8
#define RADIX_TILE (RADIX_THREADS * RADIX_ROUNDS)
#define RADIX_WARPS (RADIX_THREADS / 32)

extern "C" __global__ void __launch_bounds__(RADIX_THREADS)
spblk_radix_hist(const u32* keys, u64 n, u32 shift, u32* hist, u64 tiles) {
    __shared__ u32 counts[256];
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        counts[threadIdx.x] = 0;
        __syncthreads();
        for (int r = 0; r < RADIX_ROUNDS; ++r) {
            u64 i = t * RADIX_TILE + r * RADIX_THREADS + threadIdx.x;
            if (i < n) atomicAdd(&counts[(keys[i] >> shift) & 255u], 1u);
        }
        __syncthreads();
        hist[(u64)threadIdx.x * tiles + t] = counts[threadIdx.x];
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(RADIX_THREADS)
spblk_radix_scatter(const u32* keys_in, const u32* vals_in, u64 n, u32 shift, const u32* hist,
                    u64 tiles, u32* keys_out, u32* vals_out) {
    __shared__ u32 base[256];
    __shared__ u32 warp_counts[RADIX_WARPS][256];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned lower = (1u << lane) - 1u;
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        base[threadIdx.x] = hist[(u64)threadIdx.x * tiles + t];
        for (int w = 0; w < RADIX_WARPS; ++w) warp_counts[w][threadIdx.x] = 0;
        __syncthreads();
        for (int r = 0; r < RADIX_ROUNDS; ++r) {
            u64 i = t * RADIX_TILE + r * RADIX_THREADS + threadIdx.x;
            bool valid = i < n;
            u32 key = valid ? keys_in[i] : 0u;
            u32 d = (key >> shift) & 255u;
            unsigned active = __ballot_sync(SPBLK_FULL_MASK, valid);
            unsigned peers = 0;
            if (valid) peers = __match_any_sync(active, d);
            u32 rank = __popc(peers & lower);
            if (valid && rank == 0) warp_counts[warp][d] = __popc(peers);
            __syncthreads();
            if (valid) {
                u32 pos = base[d] + rank;
                for (int w = 0; w < warp; ++w) pos += warp_counts[w][d];
                keys_out[pos] = key;
                vals_out[pos] = vals_in[i];
            }
            __syncthreads();
            u32 add = 0;
            for (int w = 0; w < RADIX_WARPS; ++w) {
                add += warp_counts[w][threadIdx.x];
                warp_counts[w][threadIdx.x] = 0;
            }
            base[threadIdx.x] += add;
            __syncthreads();
        }
    }
}

// keys[p] = p for the first pass's values (the permutation being sorted).
extern "C" __global__ void spblk_iota_u32(u32* out, u64 n) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = (u32)i;
}
