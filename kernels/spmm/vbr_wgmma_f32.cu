// VBR SpMM with f32 inputs on Hopper's asynchronous tensor cores (sm_90a), f32-accurate by
// split TF32 (SPBLK_SPMM_ALG_VBR): x = hi + lo, and hi*hi + hi*lo + lo*hi. The row tiles,
// tile records, column bands, split-tile clusters and TMA pipeline are vbr_wgmma.cu's; what
// differs is how the TF32 operands reach the tensor cores.
//
// wgmma reads TF32 operands K-major only, from shared memory (B, or A) or registers (A).
// op(B) may be row-major (N-major), so the product is computed transposed: the C^T tile
// (128 columns of C x the tile's 64 rows) = op(B)^T x A_block^T. op(B)^T is wgmma's A
// operand, loaded by each thread from shared memory into registers and split there; the
// block of A, stored row-major (K-major for this role), is wgmma's B operand straight from
// its TMA tile, and its lo part is written beside it once per step. The tensor core reads a
// TF32 operand's top 19 bits, so the raw f32 tile serves as hi (tc::split_tf32x3).
//
// A step is one 64-wide column block: A's 64 x 64 values (two boxes of 32 columns) and op(B)'s
// 64 x 128 tile (four boxes), 48 KB, by TMA into 128-byte-swizzled tiles. Two warpgroups, each
// 64 columns of C: per k8 slice three wgmma m64n64k8 (small terms first).
#include "common/hopper.cuh"
#include "common/mma.cuh"
#include "spmm/vbr_tile.cuh"

namespace vbr_x3 {

using namespace hopper;
using vbr::BM;
using vbr::Tile;

constexpr int THREADS = 256;         // two warpgroups
constexpr int BN = 128;              // columns of C per thread block
constexpr int BOX = 64 * 32 * 4;     // a TMA box: 64 rows of 32 f32 (one swizzle row each)
constexpr int A_BYTES = 2 * BOX;     // a block's 64 x 64 values
constexpr int STAGE = A_BYTES + 4 * BOX;

// Dynamic shared memory: STAGES x (A tile, op(B) tile), two blocks' lo parts, one mbarrier
// per stage, the permutation of the tile's rows (for the epilogue, loaded at the start), and
// the slack that aligns the tiles to the swizzle's period;
// src/backend/cuda/vbr.rs (`X3_SMEM_BYTES`) computes the same, and the kernel traps when given
// less.
template <int STAGES> struct Layout {
    static constexpr int LO = STAGES * STAGE;  // two lo tiles: this step's and the next's
    static constexpr int BARRIERS = LO + 2 * A_BYTES;
    static constexpr int PERM = BARRIERS + STAGES * 8;
    static constexpr int BYTES = PERM + BM * 8 + SWIZZLE;
};

#ifdef SPBLK_SM90A
// d (64 x 64, f32) += a (64 x 8 TF32 in registers) x the K-major 8 x 64 tile at `db`.
__device__ __forceinline__ void mma_k8(float (&d)[32], const unsigned (&a)[4], u64 db) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
        "{%32, %33, %34, %35}, %36, p, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1));
}
#endif

// Where a thread's op(B)^T fragments lie in a stage's op(B) tile, and which column of C each
// of its accumulator rows is. Fragment register i of k8 slice kk holds op(B)^T at wgmma row
// m = 16 w + g + 8 (i & 1), k = 8 kk + t + 4 (i >> 1) (w: warp in the warpgroup, g = lane / 4,
// t = lane % 4); row m stands for C column `column(i & 1)`.
//
// B_ROW (op(B) tile as four boxes of 64 k x 32 columns): element (k, n) of box n / 32 at
// k * 128 + ((n % 32 / 4) ^ (k % 8)) * 16 + (n % 4) * 4 bytes. With columns in order, the four
// k of one load (t) would fall in one bank; so row m takes column 32 (w / 2) + 16 (g / 4) +
// 4 (2 (w % 2) + j) + g % 4 (j = the row's i & 1), whose 16-byte chunk differs with t and g / 4:
// the 32 lanes read 32 banks. Otherwise (four boxes of 64 columns x 32 k, box 2 wg + k / 32):
// element (k, n) at n * 128 + ((k % 32 / 4) ^ (n % 8)) * 16 + (k % 4) * 4, columns in order.
template <bool B_ROW> struct Fragments {
    unsigned base[4];  // byte offset in the op(B) tile of register i of slice kk = 0
    int col[2];        // C column (in the 128-column tile) of accumulator rows g and g + 8
    int g;

    __device__ __forceinline__ Fragments(int wg, int w, int lane) : g(lane >> 2) {
        const int t = lane & 3;
#pragma unroll
        for (int j = 0; j < 2; ++j) {
            if (B_ROW) {
                const int chunk = 4 * (g >> 2) + 2 * (w & 1) + j;
                col[j] = 64 * wg + 32 * (w >> 1) + 4 * chunk + (g & 3);
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int k = t + 4 * e;  // k % 8 of every slice; slice kk is 8 kk rows on
                    base[j + 2 * e] = (2 * wg + (w >> 1)) * BOX + k * 128 + ((chunk ^ k) << 4) + 4 * (g & 3);
                }
            } else {
                const int n = 16 * w + 8 * j + g;  // in the warpgroup's 64 columns
                col[j] = 64 * wg + n;
                base[j] = base[j + 2] = 2 * wg * BOX + n * 128 + 4 * t;
            }
        }
    }
    // Byte offset of register i of slice kk (both compile-time after unrolling). Otherwise
    // than B_ROW the slice's 16-byte chunk, 2 (kk % 4) + i / 2, is swizzled by the row's g.
    __device__ __forceinline__ unsigned at(int kk, int i) const {
        if (B_ROW) return base[i] + 1024 * kk;
        return base[i] + (kk >> 2) * BOX + ((((2 * kk + (i >> 1)) & 7) ^ g) << 4);
    }
};

// B_ROW: op(B) row-major (k rows of N). SPLIT: clusters of `splits` thread blocks, each an
// equal share of the tile's blocks.
template <class Out, bool B_ROW, int STAGES, bool SPLIT>
__device__ void spmm_vbr_x3(const TensorMap* amap, const TensorMap* bmap, const u64* __restrict__ records,
                            i64 ntiles, i64 band, int splits, const u64* __restrict__ block_col,
                            const u64* __restrict__ perm, i64 N, Out* __restrict__ C, i64 ldc, int c_row, float alpha,
                            float beta) {
#ifdef SPBLK_SM90A
    typedef Layout<STAGES> L;
    static_assert(L::BARRIERS >= vbr::Partial<BN>::BYTES, "the partial tile fits the stages");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    unsigned char* sm = swizzle_aligned(smem_raw, L::BYTES);
    const unsigned base = smem_addr(sm), bars = base + L::BARRIERS, lo = base + L::LO;

    const vbr::RecordPart work = vbr::record_part(records, ntiles, N, band, BN, SPLIT ? splits : 1);
    const Tile& tl = work.tl;
    const int first = work.first, steps = work.steps;
    const int tid = threadIdx.x;

    // Thread 0 loads: A's two 32-column boxes at its row in the values seen as [rows][64],
    // op(B)'s four boxes (row-major: 32 columns x 64 k each; else 64 columns x 32 k).
    i64 a_row = work.a_row;
    auto issue = [&](int s, unsigned col) {
        const unsigned a = base + (s % STAGES) * STAGE, b = a + A_BYTES, bar = bars + 8 * (s % STAGES);
        const int k = (int)col * 64, n0 = (int)tl.n0;
        mbar_expect(bar, STAGE);
        tma_load(a, amap, 0, (int)a_row, bar);
        tma_load(a + BOX, amap, 32, (int)a_row, bar);
#pragma unroll
        for (int x = 0; x < 4; ++x) {
            if (B_ROW)
                tma_load(b + x * BOX, bmap, n0 + 32 * x, k, bar);
            else
                tma_load(b + x * BOX, bmap, k + 32 * (x & 1), n0 + 64 * (x >> 1), bar);
        }
        a_row += tl.height;
    };
    const u64* cols = block_col + tl.kb0 + first;
    unsigned next_col = 0;
    if (tid == 0) next_col = vbr::start_pipeline<STAGES>(bars, cols, steps, issue);
    u64* tile_perm = reinterpret_cast<u64*>(sm + L::PERM);
    if (tid < tl.rows) tile_perm[tid] = perm[tl.row0 + tid];
    __syncthreads();  // the mbarriers are initialised, the permutation loaded

    const int wg = tid / 128, w = (tid % 128) / 32, lane = tid % 32;
    const Fragments<B_ROW> fr(wg, w, lane);
    float d[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) d[i] = 0.0f;
    // Step s in two phases, so that the tensor cores multiply one step while the threads
    // prepare the next: `prepare` waits for the step's loads, writes its block's lo part
    // (element for element, in the same swizzled layout) into lo tile `which`, and loads and
    // splits its op(B)^T fragments; `multiply` issues the step's wgmma, prepares step s + 1
    // into the other lo tile and fragments while they run, then waits for them and hands the
    // stage back to the loads.
    typedef unsigned Frag[8][4];
    auto prepare = [&](int s, int which, Frag& fh, Frag& fl) {
        const int st = s % STAGES;
        mbar_wait(bars + 8 * st, (s / STAGES) & 1);
        const float4* src = reinterpret_cast<const float4*>(sm + st * STAGE);
        float4* dst = reinterpret_cast<float4*>(sm + L::LO + which * A_BYTES);
#pragma unroll
        for (int i = tid; i < A_BYTES / 16; i += THREADS) {
            const float4 x = src[i];
            unsigned h, l[4];
            tc::split_tf32x3(x.x, h, l[0]);
            tc::split_tf32x3(x.y, h, l[1]);
            tc::split_tf32x3(x.z, h, l[2]);
            tc::split_tf32x3(x.w, h, l[3]);
            dst[i] = make_float4(__uint_as_float(l[0]), __uint_as_float(l[1]), __uint_as_float(l[2]),
                                 __uint_as_float(l[3]));
        }
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // for wgmma's reads
        const unsigned char* btile = sm + st * STAGE + A_BYTES;
#pragma unroll
        for (int kk = 0; kk < 8; ++kk)
#pragma unroll
            for (int i = 0; i < 4; ++i)
                tc::split_tf32x3(*reinterpret_cast<const float*>(btile + fr.at(kk, i)), fh[kk][i], fl[kk][i]);
    };
    auto multiply = [&](int s, int which, const Frag& fh, const Frag& fl, Frag& nh, Frag& nl) {
        // Descriptors of the block and its lo part (8-row swizzle atoms 1024 bytes apart). A
        // slice's is the tile's plus its offset in 16-byte units: the address field (bits
        // 0-13) holds a shared address / 16 below 2^14, which the offset cannot carry out of.
        const u64 da = desc(base + (s % STAGES) * STAGE, 16, 1024), dl = desc(lo + which * A_BYTES, 16, 1024);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < 8; ++kk) {
            // A's k8 slice kk: box kk / 4, 32 bytes per slice inside the box's 128-byte rows.
            const unsigned off = ((kk >> 2) * BOX + 32 * (kk & 3)) >> 4;
            mma_k8(d, fl[kk], da + off);
            mma_k8(d, fh[kk], dl + off);
            mma_k8(d, fh[kk], da + off);
        }
        wgmma_commit();
        if (s + 1 < steps) prepare(s + 1, which ^ 1, nh, nl);
        wgmma_wait();
        __syncthreads();  // both warpgroups are done with stage s and its lo tile, and the next
                          // lo tile is written
        if (tid == 0 && s + STAGES < steps) {
            issue(s + STAGES, next_col);
            if (s + STAGES + 1 < steps) next_col = (unsigned)cols[s + STAGES + 1];
        }
    };
    Frag h0, l0, h1, l1;
    if (steps > 0) prepare(0, 0, h0, l0);
    __syncthreads();  // lo tile 0 is written
    for (int s = 0; s < steps; s += 2) {
        multiply(s, 0, h0, l0, h1, l1);
        if (s + 1 < steps) multiply(s + 1, 1, h1, l1, h0, l0);
    }

    // d[4 j + 2 h + q]: wgmma row g + 8 h (C column fr.col[h]), column 8 j + 2 t + q (the
    // tile's row). Through the partial tile in shared memory, stored (or summed over the
    // cluster's parts) by rows.
    typedef vbr::Partial<BN> P;
    float* part_tile = reinterpret_cast<float*>(sm);
    const int t = lane & 3;
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
            for (int q = 0; q < 2; ++q) part_tile[(8 * j + 2 * t + q) * P::LD + fr.col[h]] = d[4 * j + 2 * h + q];
    vbr::reduce_tile<Out, BN, THREADS>(sm, tl, SPLIT ? splits : 1, tile_perm, C, ldc, c_row, N, alpha, beta);
#else
    __trap();  // the backend runs these on compute capability 9.0 only
#endif
}

}  // namespace vbr_x3

// spblk_spmm_vbr_wgx3_<b layout>_n128[_split]_f32_f32: whole tiles, and tiles split over
// clusters; four stages (225 KB of shared memory, one thread block per SM).
#define VBR_X3_ENTRY(layout, b_row, SPLIT, sfx)                                                                  \
    extern "C" __global__ void __launch_bounds__(vbr_x3::THREADS, 1)                                             \
        spblk_spmm_vbr_wgx3_##layout##_n128##sfx##_f32_f32(                                                       \
            const __grid_constant__ hopper::TensorMap amap, const __grid_constant__ hopper::TensorMap bmap,      \
            const u64* records, i64 ntiles, i64 band, int splits, const u64* block_col, const u64* perm, i64 N,   \
            float* C, i64 ldc, int c_row, const float* alpha_dev, float alpha, const float* beta_dev, float beta) { \
        vbr_x3::spmm_vbr_x3<float, b_row, 4, SPLIT>(&amap, &bmap, records, ntiles, band, splits, block_col, perm, \
                                                    N, C, ldc, c_row, scalar_arg(alpha_dev, alpha),               \
                                                    scalar_arg(beta_dev, beta));                                  \
    }
VBR_X3_ENTRY(brow, true, false, )
VBR_X3_ENTRY(brow, true, true, _split)
VBR_X3_ENTRY(bcol, false, false, )
VBR_X3_ENTRY(bcol, false, true, _split)
