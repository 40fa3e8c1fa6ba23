// Row tiles of a VBR product and the cluster reduction of split tiles: shared by the
// mma.sync kernels (vbr.cu) and the wgmma ones (vbr_wgmma.cu, vbr_wgmma_f32.cu), which also
// share the decoding of a tile record and the start of their TMA pipeline.
#pragma once
#include "common/hopper.cuh"
#include "common/types.cuh"

namespace vbr {

constexpr int BM = 64;  // rows of a row tile

// Where one thread block works: its row tile (group rows [row0, row0 + rows), the first at
// `rel0` inside the group) and the group's block range, and its column tile from n0.
struct Tile {
    i64 row0, rel0, kb0, kb1, n0, height;  // height: the group's
    int rows;
};

// Column tiles are grouped in bands of `band` tiles; within a band, consecutive blocks take
// the band's column tiles of one row tile. The band's slice of B (K x band*BN) stays in L2
// while all row tiles pass, and A is read once per band. Returns this thread block's row tile
// (an index into the tile table) and sets n0, its first column.
__device__ __forceinline__ i64 tile_of_block(i64 ntiles, i64 ntn, i64 band, int bn, int splits, i64& n0) {
    const i64 bid = blockIdx.x / splits;  // the parts of one tile are consecutive (a cluster)
    const i64 b = bid / (ntiles * band);
    const i64 width = min(band, ntn - b * band);
    const i64 rem = bid - b * ntiles * band;
    n0 = (b * band + rem % width) * bn;
    return rem / width;
}

// u64 per tile record (the backend's TILE_RECORD).
constexpr int RECORD = 8;

// A wgmma thread block's work, from its tile's record (one round of independent loads: first
// row, A's first values row, first block, blocks, group height, rows; src/backend/cuda/vbr.rs,
// `tile_records`): the tile, and the block's part of the tile's blocks when the tile is split
// over `splits` thread blocks (1: not split), steps [first, first + steps) whose values start
// at row `a_row` of the values seen as [rows][block width] (a group's blocks lie one after
// another, `height` rows each; the backend checks it at upload, and that the rows fit 30 bits).
struct RecordPart {
    Tile tl;
    i64 a_row;
    int first, steps;
};
__device__ __forceinline__ RecordPart record_part(const u64* __restrict__ records, i64 ntiles, i64 N, i64 band,
                                                  int bn, int splits) {
    RecordPart p;
    const u64* rec = records + RECORD * tile_of_block(ntiles, (N + bn - 1) / bn, band, bn, splits, p.tl.n0);
    p.tl.row0 = (i64)rec[0];
    p.tl.kb0 = (i64)rec[2];
    const int nblocks = (int)rec[3];  // the backend checks the counts fit
    p.tl.height = (i64)rec[4];
    p.tl.rows = (int)rec[5];
    const int part = (int)(blockIdx.x % splits);
    const int per = nblocks / splits, extra = nblocks % splits;
    p.first = part * per + min(part, extra);
    p.steps = per + (part < extra ? 1 : 0);
    p.a_row = (i64)rec[1] + p.first * p.tl.height;
    return p;
}

#ifdef SPBLK_SM90A
// Thread 0's start of a wgmma kernel's TMA pipeline over `steps` blocks whose columns are
// `cols`: initialises the STAGES mbarriers at `bars` (8 bytes apart), reads the first STAGES + 1
// columns in one round of loads (issuing each as the previous arrived put STAGES DRAM round
// trips before the pipeline was full), and issues the first STAGES steps through
// `issue(step, column)`. Returns the column of step STAGES (0 without one).
template <int STAGES, class Issue>
__device__ __forceinline__ unsigned start_pipeline(unsigned bars, const u64* __restrict__ cols, int steps,
                                                   Issue&& issue) {
    for (int s = 0; s < STAGES; ++s) hopper::mbar_init(bars + 8 * s);
    hopper::mbar_init_fence();
    unsigned c[STAGES];
#pragma unroll
    for (int s = 0; s < STAGES; ++s) c[s] = s < steps ? (unsigned)cols[s] : 0u;
    const unsigned next = STAGES < steps ? (unsigned)cols[STAGES] : 0u;
#pragma unroll
    for (int s = 0; s < STAGES; ++s)
        if (s < steps) issue(s, c[s]);
    return next;
}
#endif

__device__ __forceinline__ Tile locate(const u64* __restrict__ tiles, i64 ntiles, i64 ntn, i64 band, int bn,
                                       int splits, const u64* __restrict__ group_ptr,
                                       const u64* __restrict__ block_ptr) {
    Tile r;
    const i64 t = tile_of_block(ntiles, ntn, band, bn, splits, r.n0);
    const i64 g = (i64)tiles[2 * t];
    r.row0 = (i64)tiles[2 * t + 1];
    const i64 g0 = (i64)group_ptr[g], g1 = (i64)group_ptr[g + 1];
    r.rel0 = r.row0 - g0;
    r.height = g1 - g0;
    r.rows = (int)min((i64)BM, g1 - r.row0);
    r.kb0 = (i64)block_ptr[g];
    r.kb1 = (i64)block_ptr[g + 1];
    return r;
}

// Thread-block clusters (sm_90): the parts of a split tile sum their partial tiles through
// distributed shared memory, in rank order, so the result does not depend on timing.
#if __CUDA_ARCH__ >= 900
#define VBR_CLUSTERS 1
#endif

// Most parts of a split tile (the portable cluster size; the backend's MAX_SPLITS).
constexpr int MAX_SPLITS = 8;

// C's tile as f32 partial sums in shared memory (after the main loop; it reuses the stages):
// [BM][BN + 4], the padding spreads a warp's 8 rows over the banks.
template <int BN> struct Partial {
    static constexpr int LD = BN + 4;  // a multiple of 4: rows stay 16-byte aligned
    static constexpr int BYTES = BM * LD * 4;
};

// The ending of a split tile, once every part has written its partial tile (`Partial`) to
// its shared memory: part p sums its share of the rows of all parts' tiles, in part order
// (distributed shared memory), and stores them. `tile_perm`: the permutation from the tile's
// first row (global memory, or a copy in shared memory). Not inlined: inlined, it made the
// f16 mma.sync loop spill (28-152 bytes at the 128-register cap).
template <class Out, int BN, int THREADS>
__device__ __noinline__ void reduce_tile(unsigned char* smem_raw, const Tile& tl, int splits,
                                         const u64* tile_perm, Out* __restrict__ C, i64 ldc, int c_row,
                                         i64 N, float alpha, float beta) {
#ifdef VBR_CLUSTERS
    typedef Partial<BN> P;
    const float* part = reinterpret_cast<const float*>(smem_raw);
    // Cluster-wide barrier with release/acquire: the partial tiles are visible to every part.
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
    unsigned rank;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    // Rows [r0, r1): BM split as evenly as it goes. A thread takes 4 columns at a time and
    // issues the loads of all parts before adding (the remote loads' latency, ~200 cycles,
    // once per element group rather than once per part).
    const int r0 = (int)rank * BM / splits, r1 = ((int)rank + 1) * BM / splits;
    const unsigned local = (unsigned)__cvta_generic_to_shared(part);
    constexpr int Q = BN / 4;  // 4-column groups per row
#pragma unroll 2
    for (int e = threadIdx.x; e < (r1 - r0) * Q; e += THREADS) {
        const int r = r0 + e / Q, c = (e % Q) * 4;
        const unsigned off = local + (unsigned)(r * P::LD + c) * 4u;
        float4 v[MAX_SPLITS];
#pragma unroll
        for (int q = 0; q < MAX_SPLITS; ++q) {
            if (q < splits) {
                unsigned remote;
                asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(off), "r"(q));
                asm volatile("ld.shared::cluster.v4.f32 {%0,%1,%2,%3}, [%4];"
                             : "=f"(v[q].x), "=f"(v[q].y), "=f"(v[q].z), "=f"(v[q].w)
                             : "r"(remote));
            }
        }
        float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
        for (int q = 0; q < MAX_SPLITS; ++q) {
            if (q < splits) {
                sum[0] += v[q].x;
                sum[1] += v[q].y;
                sum[2] += v[q].z;
                sum[3] += v[q].w;
            }
        }
        if (r < tl.rows) {
            const i64 row = (i64)tile_perm[r];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const i64 j = tl.n0 + c + i;
                if (j < N) axpby_store(C + (c_row ? row * ldc + j : row + j * ldc), sum[i], alpha, beta);
            }
        }
    }
    // No part leaves (freeing its shared memory) while another still reads it.
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    __trap();  // the backend splits tiles on sm_90 and newer only
#endif
}


}  // namespace vbr
