// Stable LSD radix sort of (u32 key, u32 value) pairs on 8-bit digits, one kernel per pass.
//
// `spblk_radix_counts_*` reads the keys once and counts the digits of every pass; each pass
// (`spblk_radix_pass_*`) then ranks a tile in shared memory, learns where its digits start
// from the tiles before it (decoupled look-back over per-tile status words) and writes the
// tile out. Two launches fewer per pass and one read of the keys fewer than a histogram + scan
// + scatter pass. Within a tile items keep their input order (warp match + per-warp counts),
// so the sort is stable and deterministic: every count it adds is fixed by the keys.
//
// Items carry one or two u32 payload words. The first pass reads either (key, payload) arrays
// or straight from a matrix's index array (key = index - base; payload the position, or the
// entry's old row and its value), and the last pass of a conversion may write the new index
// and value arrays themselves: csr2csc then needs no gather through a permutation.
//
// Sort state (u32 words, zeroed before each sort): digit counts [4][256], the pass's tile
// counters [4], padding to RADIX_STATE_HEAD, then one u64 status word per (tile, digit): high
// half 2 * epoch + 1 for "inclusive prefix" or + 0 for "this tile's count", low half the count.
// The epoch (pass + 1) tells a word of this pass from one left by the previous pass.
#include "common/warp.cuh"

#define RADIX_THREADS 256
#define RADIX_WARPS (RADIX_THREADS / 32)
#define RADIX_MAX_PASSES 4
#define RADIX_STATE_HEAD 1056
// Two tiles in flight per SM, each 24 items per thread with one payload word, 16 with two (a
// thread's keys, payloads and ranks in 64-72 of its 128 registers; 59 KB of shared memory).
// Measured against three tiles of 16 or 12 items (bench/probes/radix_pass.cu): fewer, larger
// tiles spend less on each tile's scans, barriers and look-back.
#ifndef RADIX_BLOCKS_PER_SM
#define RADIX_BLOCKS_PER_SM 2
#endif
#ifndef RADIX_ROUNDS_W1
#define RADIX_ROUNDS_W1 24
#define RADIX_ROUNDS_W2 16
#endif

// Items per thread with W payload words.
template <int W> struct Tile {
    static constexpr int ROUNDS = W == 1 ? RADIX_ROUNDS_W1 : RADIX_ROUNDS_W2;
    static constexpr int SIZE = RADIX_THREADS * ROUNDS;
};

template <int W> struct PairSource {
    const u32* keys;
    const u32* pay0;
    const u32* pay1;
    __device__ __forceinline__ u32 key(u64 i) const { return keys[i]; }
    __device__ __forceinline__ void load(u64 i, u32 (&p)[W]) const {
        p[0] = pay0[i];
        if (W == 2) p[W - 1] = pay1[i];
    }
};

// Stored elements of 1, 2 or 4 bytes as payload bits.
__device__ __forceinline__ u32 load_bits(const void* v, u64 i, int bytes) {
    switch (bytes) {
        case 1: return ((const unsigned char*)v)[i];
        case 2: return ((const unsigned short*)v)[i];
        default: return ((const u32*)v)[i];
    }
}
__device__ __forceinline__ void store_bits(void* v, u64 i, u32 bits, int bytes) {
    switch (bytes) {
        case 1: ((unsigned char*)v)[i] = (unsigned char)bits; break;
        case 2: ((unsigned short*)v)[i] = (unsigned short)bits; break;
        default: ((u32*)v)[i] = bits; break;
    }
}

// A conversion's first pass: key = index - base. Payload: the position (no `minor_of` and no
// `other`), or the entry's old major index (`minor_of[i]`, or `other[i] - base` for COO) and,
// with two words, its value's bits.
template <class I, int W> struct IndexSource {
    const I* idx;
    i64 base;
    const u32* minor_of;
    const I* other;
    const void* val;
    int elem_bytes;
    __device__ __forceinline__ u32 key(u64 i) const { return (u32)((i64)idx[i] - base); }
    __device__ __forceinline__ void load(u64 i, u32 (&p)[W]) const {
        p[0] = minor_of ? minor_of[i] : other ? (u32)((i64)other[i] - base) : (u32)i;
        if (W == 2) p[W - 1] = load_bits(val, i, elem_bytes);
    }
};

// Where a pass writes: the workspace arrays, or (the last pass of a conversion, `idx` set) the
// destination: new minor index = payload word 0 + base, as `idx_bytes`-byte integers, and the
// value bits of word 1. The keys are written either way (the offsets are found in them).
struct PassOut {
    u32* keys;
    u32* pay0;
    u32* pay1;
    void* idx;
    i64 idx_base;
    int idx_bytes;
    void* val;
    int elem_bytes;
};

__device__ __forceinline__ void status_store(u64* p, u64 v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ u64 status_load(const u64* p) {
    u64 v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

// Digit counts of every pass, from one read of the keys (block counts, then one global add
// per digit and block). Counting runs of 16 consecutive keys per thread, to spare stencils'
// high digits a warp's atomics on one word, measured slower (53 → 78 µs on Poisson 3-D).
template <class Src> __device__ void radix_counts(Src src, u64 n, u32 passes, u32* state, const u32* needed) {
    __shared__ u32 local[RADIX_MAX_PASSES][256];
    if (skipped(needed)) return;
    for (int p = 0; p < RADIX_MAX_PASSES; ++p) local[p][threadIdx.x] = 0;
    __syncthreads();
    GRID_STRIDE(i, n) {
        const u32 k = src.key(i);
        for (u32 p = 0; p < passes; ++p) atomicAdd(&local[p][(k >> (8 * p)) & 255u], 1u);
    }
    __syncthreads();
    for (u32 p = 0; p < passes; ++p) {
        const u32 c = local[p][threadIdx.x];
        if (c) atomicAdd(&state[p * 256 + threadIdx.x], c);
    }
}

// One pass on the digit at `shift`. Tiles are taken in order from the pass's counter, so the
// tiles a block waits for belong to blocks already running. The tile is sorted by digit in
// shared memory and written out in that order: consecutive threads write consecutive slots of
// one digit's run, so the stores coalesce.
template <int W, class Src>
__device__ void radix_pass(Src src, u64 n, u32 shift, u32 epoch, u32* state, u64 tiles, PassOut out,
                           const u32* needed) {
    constexpr int ROUNDS = Tile<W>::ROUNDS, SIZE = Tile<W>::SIZE, PER_WARP = SIZE / RADIX_WARPS;
    __shared__ u32 tile_at;
    __shared__ u32 digit_start[256];  // first slot of each digit in the whole output
    __shared__ u32 global_base[256];  // output slot of a digit's items minus their slot in the tile
    __shared__ u32 local_base[256];   // first slot of each digit in the sorted tile
    __shared__ u32 warp_hist[RADIX_WARPS][257];
    // The sorted tile (keys, then each payload word): SIZE * (1 + W) words of dynamic shared
    // memory, 48 KB (more than a static array may take on sm_80).
    extern __shared__ u32 radix_tile[];
    u32* sorted_keys = radix_tile;
    u32(*sorted_pay)[SIZE] = (u32(*)[SIZE])(radix_tile + SIZE);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, d = threadIdx.x;
    const unsigned lower = (1u << lane) - 1u;
    u32* counter = state + RADIX_MAX_PASSES * 256 + (epoch - 1);
    u64* status = (u64*)(state + RADIX_STATE_HEAD);
    if (skipped(needed)) return;
    {
        u32 total;
        digit_start[d] = block_exclusive_scan(state[(epoch - 1) * 256 + d], total);
    }
    for (;;) {
        if (threadIdx.x == 0) tile_at = atomicAdd(counter, 1u);
        for (int w = 0; w < RADIX_WARPS; ++w) warp_hist[w][threadIdx.x] = 0;
        if (threadIdx.x < RADIX_WARPS) warp_hist[threadIdx.x][256] = 0;
        __syncthreads();
        const u64 t = tile_at;
        if (t >= tiles) break;
        const u64 first = t * SIZE;
        const u32 count = (u32)min((u64)SIZE, n - first);
        u32 key[ROUNDS], pay[ROUNDS][W], rank[ROUNDS];
        // All loads first, so that they are in flight together: unconditional (positions past
        // the end read the tile's last item), which lets the compiler issue every one before
        // the first use; predicated loads were interleaved with the ranking.
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            const u64 i = first + min((u32)(warp * PER_WARP + r * 32 + lane), count - 1);
            key[r] = src.key(i);
            src.load(i, pay[r]);
        }
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            // Lanes past the end rank under digit 256, a slot no key uses: every lane takes
            // part, so the match needs no divergence handling.
            const bool valid = warp * PER_WARP + r * 32 + lane < count;
            const u32 dig = valid ? (key[r] >> shift) & 255u : 256u;
            const unsigned peers = __match_any_sync(SPBLK_FULL_MASK, dig);
            const u32 before = warp_hist[warp][dig];
            rank[r] = before + __popc(peers & lower);
            __syncwarp();
            if ((peers & lower) == 0) warp_hist[warp][dig] = before + __popc(peers);
            __syncwarp();
        }
        __syncthreads();
        // Thread d: the warps' counts of digit d become exclusive prefixes over warps; the
        // tile's count of d is published at once, for the tiles after this one.
        u32 run = 0;
        for (int w = 0; w < RADIX_WARPS; ++w) {
            const u32 c = warp_hist[w][d];
            warp_hist[w][d] = run;
            run += c;
        }
        u64* mine = status + t * 256 + d;
        status_store(mine, ((u64)(2 * epoch + (t == 0)) << 32) | run);
        u32 total;
        local_base[d] = block_exclusive_scan(run, total);
        __syncthreads();
#pragma unroll
        for (int r = 0; r < ROUNDS; ++r) {
            if (warp * PER_WARP + r * 32 + lane < count) {
                const u32 dig = (key[r] >> shift) & 255u;
                const u32 pos = local_base[dig] + warp_hist[warp][dig] + rank[r];
                sorted_keys[pos] = key[r];
                for (int w = 0; w < W; ++w) sorted_pay[w][pos] = pay[r][w];
            }
        }
        // Look back: add the counts of the tiles before until one carries its inclusive prefix.
        // Look back: add the counts of the tiles before until one carries its inclusive prefix.
        // (Loading several tiles' words per round trip measured no faster: the walks are short.)
        u32 before = 0;
        if (t > 0) {
            for (u64 j = t - 1;; --j) {
                u64 s;
                do {
                    s = status_load(status + j * 256 + d);
                } while ((u32)(s >> 33) != epoch);
                before += (u32)s;
                if ((s >> 32) & 1u) break;
            }
            status_store(mine, ((u64)(2 * epoch + 1) << 32) | (before + run));
        }
        global_base[d] = digit_start[d] + before - local_base[d];  // (mod 2^32)
        __syncthreads();
        for (u32 i = threadIdx.x; i < count; i += RADIX_THREADS) {
            const u32 k = sorted_keys[i];
            const u32 pos = global_base[(k >> shift) & 255u] + i;
            out.keys[pos] = k;
            if (out.idx) {
                const i64 minor = (i64)sorted_pay[0][i] + out.idx_base;
                if (out.idx_bytes == 8) ((i64*)out.idx)[pos] = minor;
                else ((int*)out.idx)[pos] = (int)minor;
                if (W == 2 && out.val) store_bits(out.val, pos, sorted_pay[W - 1][i], out.elem_bytes);
            } else {
                out.pay0[pos] = sorted_pay[0][i];
                if (W == 2) out.pay1[pos] = sorted_pay[W - 1][i];
            }
        }
        __syncthreads();  // the shared arrays are refilled for the next tile
    }
}

#define RADIX_OUT_PARAMS                                                                                   \
    u32 *keys_out, u32 *pay0_out, u32 *pay1_out, void *idx_out, i64 idx_base, int idx_bytes, void *val_out, \
        int elem_bytes, const u32 *needed
#define RADIX_OUT PassOut{keys_out, pay0_out, pay1_out, idx_out, idx_base, idx_bytes, val_out, elem_bytes}

extern "C" __global__ void __launch_bounds__(RADIX_THREADS)
spblk_radix_counts_pairs(const u32* keys, u64 n, u32 passes, u32* state, const u32* needed) {
    radix_counts(PairSource<1>{keys, nullptr, nullptr}, n, passes, state, needed);
}

#define RADIX_PAIRS_ENTRY(W)                                                                               \
    extern "C" __global__ void __launch_bounds__(RADIX_THREADS, RADIX_BLOCKS_PER_SM)                       \
        spblk_radix_pass_pairs_w##W(const u32* keys, const u32* pay0, const u32* pay1, u64 n, u32 shift,   \
                                    u32 epoch, u32* state, u64 tiles, RADIX_OUT_PARAMS) {                  \
        radix_pass<W>(PairSource<W>{keys, pay0, pay1}, n, shift, epoch, state, tiles, RADIX_OUT, needed);  \
    }
RADIX_PAIRS_ENTRY(1)
RADIX_PAIRS_ENTRY(2)

#define RADIX_INDEX_ENTRY(I, tag, W)                                                                       \
    extern "C" __global__ void __launch_bounds__(RADIX_THREADS, RADIX_BLOCKS_PER_SM)                       \
        spblk_radix_pass_##tag##_w##W(const I* idx, i64 base, const u32* minor_of, const I* other,         \
                                      const void* val, u64 n, u32 shift, u32 epoch, u32* state, u64 tiles, \
                                      RADIX_OUT_PARAMS) {                                                  \
        radix_pass<W>(IndexSource<I, W>{idx, base, minor_of, other, val, elem_bytes}, n, shift, epoch,     \
                      state, tiles, RADIX_OUT, needed);                                                    \
    }
#define RADIX_INDEX_ENTRIES(I, tag)                                                                        \
    extern "C" __global__ void __launch_bounds__(RADIX_THREADS)                                            \
        spblk_radix_counts_##tag(const I* idx, i64 base, u64 n, u32 passes, u32* state, const u32* needed) { \
        radix_counts(IndexSource<I, 1>{idx, base, nullptr, nullptr, nullptr, 0}, n, passes, state, needed);  \
    }                                                                                                      \
    RADIX_INDEX_ENTRY(I, tag, 1)                                                                           \
    RADIX_INDEX_ENTRY(I, tag, 2)

RADIX_INDEX_ENTRIES(int, i32)
RADIX_INDEX_ENTRIES(long long, i64)

// keys[p] = p for the first pass's values (the permutation being sorted).
extern "C" __global__ void spblk_iota_u32(u32* out, u64 n) {
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
        out[i] = (u32)i;
}
