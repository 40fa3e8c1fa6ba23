// VBR SpMM on Hopper's asynchronous tensor cores (sm_90a): the product of vbr.cu's f16/bf16
// kernels (C = alpha * A * op(B) + beta * C over a 1-SA plan, row tiles of 64 rows, the same
// tile table, column bands and split-tile clusters) for plans with 64-wide blocks and an op(B)
// the tensor-memory accelerator can read (16-byte aligned base and leading dimension).
//
// A pipeline step is one whole column block: its 64 x 64 values and the 64 rows of op(B) it
// multiplies, each brought in by TMA instructions that thread 0 issues into 128-byte-swizzled
// shared tiles, their completion counted on the stage's mbarrier; each warpgroup multiplies a
// stage with four wgmma m64n128k16 into a 64 x 128 tile of C held in f32 registers. Against
// the mma.sync kernel this drops every per-thread copy and fragment load (its issue slots and
// per-step latency, docs/vbr.md); the probe that chose this design
// (bench/ubench/vbr_wgmma_probe.cu) moved A and B from L2 at 6.0 TB/s against 4.4.
//
// A rows past the tile (a group shorter than 64 rows, or the last slice of a tall one) come
// from the blocks stored after it, or zeros past the values' end: they only make C rows the
// epilogue does not store. op(B) rows past K and columns past N are zero-filled by the TMA.
#include "common/hopper.cuh"
#include "spmm/vbr_tile.cuh"

namespace vbr_wg {

using namespace hopper;
using vbr::BM;
using vbr::Tile;


constexpr int A_BYTES = BM * 64 * 2;   // a block's 64 x 64 tile
constexpr int B_BYTES = 64 * 128 * 2;  // op(B)'s 64 x 128 tile of one warpgroup

// Dynamic shared memory: STAGES x (A tile, WG B tiles), then one mbarrier per stage, plus
// the slack that aligns the stages to the swizzle's period; src/backend/cuda/vbr.rs
// (`wg_smem_bytes`) computes the same, and the kernel traps when given less.
template <int WG, int STAGES> struct Layout {
    static constexpr int STAGE = A_BYTES + WG * B_BYTES;
    static constexpr int BARRIERS = STAGES * STAGE;
    static constexpr int BYTES = BARRIERS + STAGES * 8 + SWIZZLE;
};

#ifdef SPBLK_SM90A
#define VBR_WG_D                                                                      \
    "{"                                                                               \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "          \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"   \
    "}"
#define VBR_WG_ACC                                                                                      \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),     \
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]),        \
        "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]),      \
        "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]),      \
        "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),      \
        "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),      \
        "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]),      \
        "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),      \
        "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
// d += A (K-major) x B, B K-major (TB "0") or N-major (TB "1").
#define VBR_WG_MMA(KIND, TB)                                                                                 \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\nwgmma.mma_async.sync.aligned.m64n128k16.f32." KIND \
                 "." KIND " " VBR_WG_D ", %64, %65, p, 1, 1, 0, " TB ";\n}\n"                                   \
                 : VBR_WG_ACC                                                                                  \
                 : "l"(da), "l"(db), "r"(1))

template <class T, bool B_ROW> __device__ __forceinline__ void mma_k16(float (&d)[64], u64 da, u64 db);
template <> __device__ __forceinline__ void mma_k16<f16, true>(float (&d)[64], u64 da, u64 db) {
    VBR_WG_MMA("f16", "1");
}
template <> __device__ __forceinline__ void mma_k16<f16, false>(float (&d)[64], u64 da, u64 db) {
    VBR_WG_MMA("f16", "0");
}
template <> __device__ __forceinline__ void mma_k16<bf16, true>(float (&d)[64], u64 da, u64 db) {
    VBR_WG_MMA("bf16", "1");
}
template <> __device__ __forceinline__ void mma_k16<bf16, false>(float (&d)[64], u64 da, u64 db) {
    VBR_WG_MMA("bf16", "0");
}
#endif

// B_ROW: op(B) row-major (k rows of N), loaded as two 64-column boxes of 64 k rows per
// warpgroup (N-major tiles); otherwise column-major (N columns of k), one box of 128 columns
// of 64 k each (K-major). WG warpgroups, each 128 columns of C. SPLIT: clusters of `splits`
// thread blocks, each an equal share of the tile's blocks (WG = 1 only).
template <class T, class Out, bool B_ROW, int WG, int STAGES, bool SPLIT>
__device__ void spmm_vbr_wg(const TensorMap* amap, const TensorMap* bmap, const u64* __restrict__ records,
                            i64 ntiles, i64 band, int splits, const u64* __restrict__ block_col,
                            const u64* __restrict__ perm, i64 N, Out* __restrict__ C, i64 ldc, int c_row, float alpha,
                            float beta) {
#ifdef SPBLK_SM90A
    typedef Layout<WG, STAGES> L;
    static_assert(!SPLIT || (WG == 1 && L::BARRIERS >= vbr::Partial<128>::BYTES), "split: one warpgroup");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    unsigned char* sm = swizzle_aligned(smem_raw, L::BYTES);
    const unsigned base = smem_addr(sm), bars = base + L::BARRIERS;

    constexpr int BN = 128 * WG;
    const vbr::RecordPart work = vbr::record_part(records, ntiles, N, band, BN, SPLIT ? splits : 1);
    const Tile& tl = work.tl;
    const int first = work.first, steps = work.steps;
    const int tid = threadIdx.x;

    // Thread 0 loads, from A's row of the step in the values seen as [rows][64].
    i64 a_row = work.a_row;
    auto issue = [&](int s, unsigned col) {  // step s (block column col) into its stage, in step order
        const unsigned a = base + (s % STAGES) * L::STAGE, b = a + A_BYTES, bar = bars + 8 * (s % STAGES);
        const int k = (int)col * 64, n0 = (int)tl.n0;
        mbar_expect(bar, L::STAGE);
        tma_load(a, amap, 0, (int)a_row, bar);
#pragma unroll
        for (int w = 0; w < WG; ++w) {
            if (B_ROW) {
                tma_load(b + w * B_BYTES, bmap, n0 + 128 * w, k, bar);
                tma_load(b + w * B_BYTES + B_BYTES / 2, bmap, n0 + 128 * w + 64, k, bar);
            } else {
                tma_load(b + w * B_BYTES, bmap, k, n0 + 128 * w, bar);
            }
        }
        a_row += tl.height;
    };
    const u64* cols = block_col + tl.kb0 + first;
    unsigned next_col = 0;  // thread 0: the column of the next step to issue after the prologue
    if (tid == 0) next_col = vbr::start_pipeline<STAGES>(bars, cols, steps, issue);
    // Warp w of a warpgroup holds rows 16w + lane/4 (+ 8); n8 chunk j: columns 8j + 2(lane % 4)
    // (+ 1). Their C rows are loaded now, so that the epilogue does not wait for them.
    const int warp = (tid % 128) / 32, lane = tid % 32;
    const int r0 = warp * 16 + lane / 4;
    const i64 prow[2] = {!SPLIT && r0 < tl.rows ? (i64)perm[tl.row0 + r0] : 0,
                         !SPLIT && r0 + 8 < tl.rows ? (i64)perm[tl.row0 + r0 + 8] : 0};
    __syncthreads();  // the mbarriers are initialised

    float d[64];
#pragma unroll
    for (int i = 0; i < 64; ++i) d[i] = 0.0f;
    const int wg = tid / 128;
    for (int s = 0; s < steps; ++s) {
        const int st = s % STAGES;
        mbar_wait(bars + 8 * st, (s / STAGES) & 1);
        const unsigned a = base + st * L::STAGE, b = a + A_BYTES + wg * B_BYTES;
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            // A: rows of 128 bytes, 8-row swizzle atoms (1024 bytes apart); k16 = 32 bytes on.
            const u64 da = desc(a + 32 * k, 16, 1024);
            // B_ROW: k rows of 128 bytes per 64-column half (halves 8 KB apart); k16 = 16 rows
            // on. Else like A, with n for m.
            const u64 db = B_ROW ? desc(b + 2048 * k, B_BYTES / 2, 1024) : desc(b + 32 * k, 16, 1024);
            mma_k16<T, B_ROW>(d, da, db);
        }
        wgmma_commit_wait();
        __syncthreads();  // every warpgroup is done with stage st
        if (tid == 0 && s + STAGES < steps) {
            issue(s + STAGES, next_col);
            // The next one's column, read now: its latency passes behind a whole step.
            if (s + STAGES + 1 < steps) next_col = (unsigned)cols[s + STAGES + 1];
        }
    }

    const int c0 = wg * 128 + 2 * (lane % 4);
    if constexpr (SPLIT) {
        typedef vbr::Partial<BN> P;
        float* part_tile = reinterpret_cast<float*>(sm);
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int j = 0; j < 16; ++j)
                *reinterpret_cast<float2*>(part_tile + (r0 + 8 * h) * P::LD + c0 + 8 * j) =
                    make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
        vbr::reduce_tile<Out, BN, 128 * WG>(sm, tl, splits, perm + tl.row0, C, ldc, c_row, N, alpha, beta);
    } else {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            if (r0 + 8 * h >= tl.rows) continue;
            const i64 row = prow[h];
#pragma unroll
            for (int j = 0; j < 16; ++j)
#pragma unroll
                for (int q = 0; q < 2; ++q) {
                    const i64 jc = tl.n0 + c0 + 8 * j + q;
                    if (jc < N)
                        axpby_store(C + (c_row ? row * ldc + jc : row + jc * ldc), d[4 * j + 2 * h + q], alpha, beta);
                }
        }
    }
#else
    __trap();  // the backend runs these on compute capability 9.0 only
#endif
}

}  // namespace vbr_wg

// spblk_spmm_vbr_wg_<b layout>_n<BN>[_split]_<in>_<out>: 128 columns (one warpgroup; also
// split over clusters) and 256 (two warpgroups sharing the A tile, for large N).
#define VBR_WG_ENTRY(T, Out, tin, tout, layout, b_row, WG, BN, STAGES, MIN_BLOCKS, SPLIT, sfx)           \
    extern "C" __global__ void __launch_bounds__(128 * WG, MIN_BLOCKS)                                       \
        spblk_spmm_vbr_wg_##layout##_n##BN##sfx##_##tin##_##tout(                                            \
            const __grid_constant__ hopper::TensorMap amap, const __grid_constant__ hopper::TensorMap bmap,  \
            const u64* records, i64 ntiles, i64 band, int splits, const u64* block_col, const u64* perm,     \
            i64 N, Out* C, i64 ldc, int c_row, const float* alpha_dev, float alpha, const float* beta_dev,   \
            float beta) {                                                                                    \
        vbr_wg::spmm_vbr_wg<T, Out, b_row, WG, STAGES, SPLIT>(&amap, &bmap, records, ntiles, band, splits,    \
                                                             block_col, perm, N, C, ldc, c_row,             \
                                                             scalar_arg(alpha_dev, alpha),                  \
                                                             scalar_arg(beta_dev, beta));                   \
    }
// Stages x blocks per SM: whole 128-column tiles 4 x 2 (the probe: as fast as 2 x 4 on large
// matrices, 12 % faster with one tile per SM); split parts 2 x 4, so that more parts run at
// once (clusters of 3 fit one wave of 128 tiles); 256 columns 2 x 2.
#define VBR_WG_TILES(T, Out, tin, tout, layout, b_row)                          \
    VBR_WG_ENTRY(T, Out, tin, tout, layout, b_row, 1, 128, 4, 2, false, )       \
    VBR_WG_ENTRY(T, Out, tin, tout, layout, b_row, 1, 128, 2, 4, true, _split)  \
    VBR_WG_ENTRY(T, Out, tin, tout, layout, b_row, 2, 256, 2, 2, false, )
#define VBR_WG_LAYOUTS(T, Out, tin, tout)              \
    VBR_WG_TILES(T, Out, tin, tout, brow, true)        \
    VBR_WG_TILES(T, Out, tin, tout, bcol, false)

VBR_WG_LAYOUTS(f16, float, f16, f32)
VBR_WG_LAYOUTS(f16, f16, f16, f16)
VBR_WG_LAYOUTS(bf16, float, bf16, f32)
VBR_WG_LAYOUTS(bf16, bf16, bf16, bf16)
