// ASpT SDDMM's dense tiles on tensor cores (SPBLK_SDDMM_ALG_ASPT in f32; docs/sddmm.md).
//
// Over the ASpT plan (aspt.cu): a panel's distinct columns are its runs, numbered in column
// order. A block takes a panel and stages its 32 rows of op(A) once, split into TF32 high and
// low parts laid out as mma fragments. Then chunk by chunk of 64 or 128 runs: each warp computes
// the dot products of the rows and 8 or 16 of the runs' columns by mma.sync m16n8k8 (three
// products per step, lo*hi + hi*lo + hi*hi: about f32 accuracy, tc::split_tf32x3) into the
// block's shared chunk; then each warp walks 4 of the rows in C's order (rows sorted by
// column meet the runs in order: the plan says whether they are), reading each entry's run
// (ent_run) and writing the chunk's products of the next entries, coalesced. On
// block-structured matrices a tile's 256 products serve tens of entries, and an entry costs
// a 4-byte load, a shared read and a coalesced store (the streaming kernel was bound by its
// dot products' loads: docs/sddmm.md).
#include "common/mma.cuh"
#include "sddmm/dot.cuh"

#define ASPT_TILE_RUNS 8  // runs (columns) per tile: mma's n
#define ASPT_TILE_THREADS 256
#define ASPT_TILE_WARPS (ASPT_TILE_THREADS / 32)
#define ASPT_TILE_ROWS 32  // the panel (aspt.cu's ASPT_PANEL)

// The k order inside a pair of mma steps: lane t of a quad owns k = 16*s2 + 4t + {0,1,2,3};
// step 2*s2 takes +0 and +1 as its fragment slots t and t+4, step 2*s2+1 takes +2 and +3.
// A and B use the same order, so every k is summed once, and a lane's B elements for two
// steps are one 16-byte load.
//
// The staged panel: per step s and m-tile mt (rows 16mt .. 16mt+15), the high parts of the 32
// lanes' a0..a3 (4 words each), then the low parts: two conflict-free 16-byte loads per lane.
// The word of row r, element kk (high part; the low part is 128 words on).
__device__ __forceinline__ u32 aspt_tile_slot(int r, int kk) {
    const int mt = r >> 4, g = r & 7, below = (r >> 3) & 1;  // below: a1/a3 (row g + 8)
    const int s = 2 * (kk >> 4) + ((kk >> 1) & 1), t = (kk >> 2) & 3, upper = kk & 1;
    return (u32)(((s * 2 + mt) * 2) * 128 + (g * 4 + t) * 4 + below + 2 * upper);
}

// Four consecutive elements of op(B)'s column `col` from k element l (zero past k).
template <bool BVEC>
__device__ __forceinline__ float4 aspt_tile_b4(const float* __restrict__ col, i64 l, i64 k) {
    if (BVEC && l + 4 <= k) return *reinterpret_cast<const float4*>(col + l);
    float4 v;
    v.x = l < k ? col[l] : 0.f;
    v.y = l + 1 < k ? col[l + 1] : 0.f;
    v.z = l + 2 < k ? col[l + 2] : 0.f;
    v.w = l + 3 < k ? col[l + 3] : 0.f;
    return v;
}

// Tile nt's B elements for step pairs c0 .. c0+CH-1 of lane 4g+t (column bcol[nt]; zero past k,
// or for a tile column past the panel's runs).
template <int CH, int NT, bool BVEC>
__device__ __forceinline__ void aspt_tile_loads(float4 (&bv)[NT][CH], const float* const (&bcol)[NT],
                                                const bool (&has_col)[NT], i64 k, int lane, int c0, int s2n) {
#pragma unroll
    for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int i = 0; i < CH; ++i)
            bv[nt][i] = has_col[nt] && c0 + i < s2n ? aspt_tile_b4<BVEC>(bcol[nt], 16 * (i64)(c0 + i) + 4 * (lane & 3), k)
                                                    : make_float4(0.f, 0.f, 0.f, 0.f);
}

// acc[mt][nt] += rows 16mt .. 16mt+15 times the columns of tile nt (8 runs each) over step pairs
// c0 .. c0+CH-1 (B's elements in bv). Each A fragment serves the NT tiles.
template <int CH, int NT>
__device__ __forceinline__ void aspt_tile_products(float (&acc)[2][NT][4], const u32* __restrict__ panel,
                                                   const float4 (&bv)[NT][CH], int c0, int s2n, int lane) {
#pragma unroll
    for (int i = 0; i < CH; ++i) {
        if (c0 + i >= s2n) break;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            unsigned bh[NT][2], bl[NT][2];
#pragma unroll
            for (int nt = 0; nt < NT; ++nt) {
                tc::split_tf32x3(half ? bv[nt][i].z : bv[nt][i].x, bh[nt][0], bl[nt][0]);
                tc::split_tf32x3(half ? bv[nt][i].w : bv[nt][i].y, bh[nt][1], bl[nt][1]);
            }
            const int s = 2 * (c0 + i) + half;
#pragma unroll
            for (int mt = 0; mt < 2; ++mt) {
                const u32* f = panel + ((s * 2 + mt) * 2) * 128 + lane * 4;
                const uint4 h = *reinterpret_cast<const uint4*>(f);
                const uint4 o = *reinterpret_cast<const uint4*>(f + 128);
                const unsigned ah[4] = {h.x, h.y, h.z, h.w}, al[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
                for (int nt = 0; nt < NT; ++nt) {
                    tc::mma_tf32(acc[mt][nt], al, bh[nt]);
                    tc::mma_tf32(acc[mt][nt], ah, bl[nt]);
                    tc::mma_tf32(acc[mt][nt], ah, bh[nt]);
                }
            }
        }
    }
}

// B staged a chunk ahead (the k <= 32 kernel with 16-byte aligned columns: all of k is one set
// of CH loads): lane 4g+t's elements 16i + 4t .. +3 of its column, copied asynchronously into
// the warp's slot (buffer b, i, lane), 16 bytes each, zero-filled past k. A lane reads back only
// its own slots, so waiting for its own copies suffices.
template <int CH>
__device__ __forceinline__ void aspt_tile_stage(float4* slots, const float* __restrict__ bcol, bool has_col, i64 k,
                                                int lane) {
    if (has_col) {
#pragma unroll
        for (int i = 0; i < CH; ++i) {
            const i64 l = 16 * i + 4 * (lane & 3);
            const int bytes = (int)max((i64)0, min((i64)4, k - l)) * 4;
            tc::cp_async16(slots + i * 32 + lane, bytes > 0 ? bcol + l : bcol, bytes);
        }
    }
    tc::cp_async_commit();
}

#define ASPT_ROWS_PER_WARP (ASPT_TILE_ROWS / ASPT_TILE_WARPS)

// The runs of the rows' next entries (lane i: entry cur + i; ~0 past the row's end).
__device__ __forceinline__ void aspt_next_runs(const u32* __restrict__ ent_run, const u32 (&cur)[ASPT_ROWS_PER_WARP],
                                               const u32 (&end)[ASPT_ROWS_PER_WARP], int lane,
                                               u32 (&run)[ASPT_ROWS_PER_WARP]) {
#pragma unroll
    for (int i = 0; i < ASPT_ROWS_PER_WARP; ++i) run[i] = cur[i] + lane < end[i] ? ent_run[cur[i] + lane] : 0xffffffffu;
}

// Panels q = blockIdx.x, += gridDim.x; WT tiles of 8 runs per warp and chunk (a chunk: 64 WT
// runs). Shared: the staged panel (2 * 32 * 16*s2n words), then two chunks of 32 x 64 WT
// products (row stride 64 WT + 8: conflict-free fragment stores): a warp computes chunk c + 1
// while others still write chunk c, one barrier per chunk; then, k <= 32 (WT = 1), each warp's
// two sets of B slots (2 * CH * 32 float4).
template <int CH, int WT, bool BVEC, class I>
__device__ void sddmm_aspt_tiles(i64 k, u64 panels, u64 m, const u32* __restrict__ order, const I* __restrict__ ptr,
                                 i64 base, const u32* __restrict__ run_ptr, const u32* __restrict__ run_col,
                                 const u32* __restrict__ ent_run, const float* __restrict__ A, i64 lda,
                                 const float* __restrict__ B, i64 ldb, float* __restrict__ C,
                                 const float* alpha_dev, float alpha_h, const float* beta_dev, float beta_h) {
    constexpr int WARP_RUNS = WT * ASPT_TILE_RUNS, CHUNK_RUNS = ASPT_TILE_WARPS * WARP_RUNS;
    constexpr int STRIDE = CHUNK_RUNS + 8, CHUNK_WORDS = ASPT_TILE_ROWS * STRIDE;
    extern __shared__ __align__(16) unsigned char aspt_tile_shared[];
    const int s2n = (int)((k + 15) >> 4), kpad = 16 * s2n;
    u32* panel = reinterpret_cast<u32*>(aspt_tile_shared);
    float* chunks = reinterpret_cast<float*>(panel + 2 * ASPT_TILE_ROWS * kpad);
    // k <= 32 with aligned columns: B staged a chunk ahead, the warps' slots after the chunks.
    constexpr bool STAGED = WT == 1 && BVEC;
    float4* slots = reinterpret_cast<float4*>(chunks + 2 * CHUNK_WORDS) + (threadIdx.x >> 5) * 2 * CH * 32;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2;
    const float alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    for (u64 q = blockIdx.x; q < panels; q += gridDim.x) {
        __syncthreads();  // the previous panel and chunks are no longer read
        for (int i = threadIdx.x; i < ASPT_TILE_ROWS * kpad; i += blockDim.x) {
            const int r = i / kpad, kk = i % kpad;
            const u64 rank = q * ASPT_TILE_ROWS + r;
            const float x = rank < m && kk < k ? A[(i64)order[rank] * lda + kk] : 0.f;
            unsigned hi, lo;
            tc::split_tf32x3(x, hi, lo);
            const u32 at = aspt_tile_slot(r, kk);
            panel[at] = hi;
            panel[at + 128] = lo;
        }
        // Warp w writes rows (slots) 4w .. 4w+3: each one's next entry in C and its end.
        u32 cur[ASPT_ROWS_PER_WARP], end[ASPT_ROWS_PER_WARP], run[ASPT_ROWS_PER_WARP];
#pragma unroll
        for (int i = 0; i < ASPT_ROWS_PER_WARP; ++i) {
            const u64 rank = q * ASPT_TILE_ROWS + warp * ASPT_ROWS_PER_WARP + i;
            const u32 r = rank < m ? order[rank] : 0u;
            cur[i] = rank < m ? (u32)((i64)ptr[r] - base) : 0u;
            end[i] = rank < m ? (u32)((i64)ptr[r + 1] - base) : 0u;
        }
        aspt_next_runs(ent_run, cur, end, lane, run);
        const u32 r0 = run_ptr[q], r1 = run_ptr[q + 1];
        // The columns of this warp's tiles' runs g (lane 4g .. 4g+3) for this chunk and the next
        // (and, staging B, the one after: its copy is issued a chunk ahead).
        u32 j[WT], col[WT], col_next[WT];
#pragma unroll
        for (int nt = 0; nt < WT; ++nt) {
            j[nt] = r0 + (u32)(warp * WARP_RUNS + nt * ASPT_TILE_RUNS + g);
            col[nt] = j[nt] < r1 ? run_col[j[nt]] : 0u;
            col_next[nt] = j[nt] + CHUNK_RUNS < r1 ? run_col[j[nt] + CHUNK_RUNS] : 0u;
        }
        if (STAGED) aspt_tile_stage<CH>(slots, B + (i64)col[0] * ldb, j[0] < r1, k, lane);
        __syncthreads();  // the panel is staged
        int buf = 0;
        for (u32 cb = r0; cb < r1; cb += CHUNK_RUNS, buf ^= 1) {
            float* chunk = chunks + buf * CHUNK_WORDS;
            u32 col_after[WT];
#pragma unroll
            for (int nt = 0; nt < WT; ++nt)
                col_after[nt] = j[nt] + 2 * CHUNK_RUNS < r1 ? run_col[j[nt] + 2 * CHUNK_RUNS] : 0u;
            if (STAGED) {
                aspt_tile_stage<CH>(slots + (buf ^ 1) * CH * 32, B + (i64)col_next[0] * ldb, j[0] + CHUNK_RUNS < r1,
                                    k, lane);
                tc::cp_async_wait<1>();  // this chunk's copies (all but the newest group)
            }
            if (cb + (u32)warp * WARP_RUNS < r1) {
                float acc[2][WT][4] = {};
                bool has[WT];
#pragma unroll
                for (int nt = 0; nt < WT; ++nt) has[nt] = j[nt] < r1;
                if (STAGED) {
                    float4 bv[WT][CH];
#pragma unroll
                    for (int i = 0; i < CH; ++i)
                        bv[0][i] = has[0] ? slots[(buf * CH + i) * 32 + lane] : make_float4(0.f, 0.f, 0.f, 0.f);
                    aspt_tile_products<CH, WT>(acc, panel, bv, 0, s2n, lane);
                } else {
                    const float* bcol[WT];
#pragma unroll
                    for (int nt = 0; nt < WT; ++nt) bcol[nt] = B + (i64)col[nt] * ldb;
                    for (int c0 = 0; c0 < s2n; c0 += CH) {
                        float4 bv[WT][CH];
                        aspt_tile_loads<CH, WT, BVEC>(bv, bcol, has, k, lane, c0, s2n);
                        aspt_tile_products<CH, WT>(acc, panel, bv, c0, s2n, lane);
                    }
                }
#pragma unroll
                for (int mt = 0; mt < 2; ++mt)
#pragma unroll
                    for (int nt = 0; nt < WT; ++nt) {
                        const int row = 16 * mt + g, c2 = warp * WARP_RUNS + nt * ASPT_TILE_RUNS + 2 * (lane & 3);
                        *reinterpret_cast<float2*>(chunk + row * STRIDE + c2) =
                            make_float2(acc[mt][nt][0], acc[mt][nt][1]);
                        *reinterpret_cast<float2*>(chunk + (row + 8) * STRIDE + c2) =
                            make_float2(acc[mt][nt][2], acc[mt][nt][3]);
                    }
            }
            // The chunk is complete, and every warp is done writing the chunk before it (which
            // the next one overwrites).
            __syncthreads();
            // A row's entries in this chunk come next in C: those whose run is below the chunk's
            // end, a prefix of the lanes (runs grow along a sorted row).
            const u32 ce = cb + CHUNK_RUNS;
#pragma unroll
            for (int i = 0; i < ASPT_ROWS_PER_WARP; ++i) {
                const float* prod = chunk + (warp * ASPT_ROWS_PER_WARP + i) * STRIDE;
                for (;;) {
                    const bool in = run[i] < ce;
                    if (in) sddmm_store(&C[cur[i] + lane], prod[run[i] - cb], alpha, beta);
                    const int n = __popc(__ballot_sync(SPBLK_FULL_MASK, in));
                    cur[i] += n;
                    if (n < 32) break;
                    run[i] = cur[i] + lane < end[i] ? ent_run[cur[i] + lane] : 0xffffffffu;
                }
            }
            aspt_next_runs(ent_run, cur, end, lane, run);
#pragma unroll
            for (int nt = 0; nt < WT; ++nt) j[nt] += CHUNK_RUNS, col[nt] = col_next[nt], col_next[nt] = col_after[nt];
        }
        if (STAGED) tc::cp_async_wait<0>();  // no copy into the slots outlives the panel
    }
}

#define ASPT_TILES_CASE(CH, WT, I)                                                                                \
    if (b_vec)                                                                                                    \
        sddmm_aspt_tiles<CH, WT, true, I>(k, panels, m, order, ptr, base, run_ptr, run_col, ent_run, A, lda, B,    \
                                          ldb, C, alpha_dev, alpha, beta_dev, beta);                              \
    else                                                                                                          \
        sddmm_aspt_tiles<CH, WT, false, I>(k, panels, m, order, ptr, base, run_ptr, run_col, ent_run, A, lda, B,   \
                                           ldb, C, alpha_dev, alpha, beta_dev, beta);
// k <= 32: a tile per warp and chunk, two 16-byte loads of B per lane and tile, 4 blocks per SM
// (measured faster than two tiles at 3 blocks: docs/sddmm.md); k <= 256: two tiles per warp
// (each A fragment loaded from shared memory serves both), four loads at a time, 2 blocks.
#define ASPT_TILES_ENTRY(name, CH, WT, MIN_BLOCKS, I)                                                              \
    extern "C" __global__ void __launch_bounds__(ASPT_TILE_THREADS, MIN_BLOCKS)                                    \
        name(i64 k, u64 panels, u64 m, const u32* order, const I* ptr, i64 base, const u32* run_ptr,              \
             const u32* run_col, const u32* ent_run, const float* A, i64 lda, const float* B, i64 ldb, int b_vec,  \
             float* C, const float* alpha_dev, float alpha, const float* beta_dev, float beta) {                   \
        ASPT_TILES_CASE(CH, WT, I)                                                                                 \
    }
ASPT_TILES_ENTRY(spblk_sddmm_aspt_tiles_f32_k32_i32, 2, 1, 4, int)
ASPT_TILES_ENTRY(spblk_sddmm_aspt_tiles_f32_k256_i32, 4, 2, 2, int)
ASPT_TILES_ENTRY(spblk_sddmm_aspt_tiles_f32_k32_i64, 2, 1, 4, long long)
ASPT_TILES_ENTRY(spblk_sddmm_aspt_tiles_f32_k256_i64, 4, 2, 2, long long)
