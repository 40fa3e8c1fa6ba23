// One pass of a stable LSD radix sort of (u32 key, u32 value) pairs on an 8-bit digit.
// hist: per-tile digit counts laid out digit-major (hist[d * tiles + t]), so that its
// exclusive scan gives each (digit, tile) its first output slot. Within a tile, items keep
// their input order (warp match + per-warp counts), so the sort is stable and deterministic.
#include "common/warp.cuh"

#define RADIX_THREADS 256
#define RADIX_ROUNDS 16
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

// The tile is first sorted by digit in shared memory, then written out in that order:
// consecutive threads write consecutive slots of one digit's run, so the stores coalesce.
// Ranking is per warp, without block barriers between rounds: warp w owns the tile's items
// [256 w, 256 w + 256) (input order), counts its digits in its own row of `warp_hist` (match
// + the leader's update), and one scan over warps per digit orders the warps. Stable.
extern "C" __global__ void __launch_bounds__(RADIX_THREADS)
spblk_radix_scatter(const u32* keys_in, const u32* vals_in, u64 n, u32 shift, const u32* hist,
                    u64 tiles, u32* keys_out, u32* vals_out) {
    constexpr int PER_WARP = RADIX_TILE / RADIX_WARPS;
    __shared__ u32 global_base[256];  // first output slot of each digit for this tile
    __shared__ u32 local_base[256];   // first slot of each digit in the sorted tile
    __shared__ u32 warp_hist[RADIX_WARPS][256];
    __shared__ u32 sorted_keys[RADIX_TILE];
    __shared__ u32 sorted_vals[RADIX_TILE];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned lower = (1u << lane) - 1u;
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const u64 first = t * RADIX_TILE;
        const u32 count = (u32)min((u64)RADIX_TILE, n - first);
        for (int w = 0; w < RADIX_WARPS; ++w) warp_hist[w][threadIdx.x] = 0;
        __syncthreads();
        u32 key[RADIX_ROUNDS], val[RADIX_ROUNDS], rank[RADIX_ROUNDS];
#pragma unroll
        for (int r = 0; r < RADIX_ROUNDS; ++r) {
            const u32 i = warp * PER_WARP + r * 32 + lane;
            const bool valid = i < count;
            key[r] = valid ? keys_in[first + i] : 0u;
            val[r] = valid ? vals_in[first + i] : 0u;
            const u32 d = (key[r] >> shift) & 255u;
            const unsigned active = __ballot_sync(SPBLK_FULL_MASK, valid);
            const unsigned peers = valid ? __match_any_sync(active, d) : 0u;
            const u32 before = valid ? warp_hist[warp][d] : 0u;
            rank[r] = before + __popc(peers & lower);
            __syncwarp();
            if (valid && (peers & lower) == 0) warp_hist[warp][d] = before + __popc(peers);
            __syncwarp();
        }
        __syncthreads();
        {
            // Thread d: the warps' counts of digit d become exclusive prefixes over warps.
            const int d = threadIdx.x;
            u32 run = 0;
            for (int w = 0; w < RADIX_WARPS; ++w) {
                const u32 c = warp_hist[w][d];
                warp_hist[w][d] = run;
                run += c;
            }
            u32 total;
            local_base[d] = block_exclusive_scan(run, total);
            global_base[d] = hist[(u64)d * tiles + t];
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < RADIX_ROUNDS; ++r) {
            if (warp * PER_WARP + r * 32 + lane < count) {
                const u32 d = (key[r] >> shift) & 255u;
                const u32 pos = local_base[d] + warp_hist[warp][d] + rank[r];
                sorted_keys[pos] = key[r];
                sorted_vals[pos] = val[r];
            }
        }
        __syncthreads();
        for (u32 i = threadIdx.x; i < count; i += RADIX_THREADS) {
            const u32 k = sorted_keys[i];
            const u32 d = (k >> shift) & 255u;
            const u32 pos = global_base[d] + (i - local_base[d]);
            keys_out[pos] = k;
            vals_out[pos] = sorted_vals[i];
        }
        __syncthreads();  // the shared arrays are refilled for the next tile
    }
}

// keys[p] = p for the first pass's values (the permutation being sorted).
extern "C" __global__ void spblk_iota_u32(u32* out, u64 n) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = (u32)i;
}
