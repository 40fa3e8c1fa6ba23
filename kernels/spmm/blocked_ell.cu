// SpMM with a Blocked-ELL matrix: C = alpha A op(B) + beta C, op(A) = A. A has rows / bs block
// rows of ell_cols / bs slots; col[] gives each slot's block column (padding: -1, or anything
// outside the matrix, is skipped), val[] the rows x ell_cols values row-major. B and C are
// addressed by element strides (rs, cs), so either storage order and op(B) = Bᵀ are one kernel.
//
// Two kernels:
// - rows: one thread per element of C (consecutive threads down a column of C), slots in
//   order and each block's columns in order, every product and addition rounded in the compute
//   type (no FMA): bit for bit the host reference. Any precision and block size.
// - mma: f16/bf16 inputs, bs a multiple of 16 (16-row tiles never straddle block rows), val
//   4-byte aligned. A block of 4 warps computes a 16 x 128 tile of C with mma.sync m16n8k16 in
//   f32 registers, each warp 32 of its columns: per slot it walks the block's columns 16 at a
//   time, stages op(B)'s 16 x 128 rows in shared memory (16-byte copies when k is contiguous
//   and aligned, else coalesced element copies through the strides) and A's 16 x 16 values
//   (32-bit pairs, 32 contiguous bytes per row), and skips padding slots whole (a tile's 16
//   rows share one block row). ncu of the version that loaded A's fragments per warp from
//   global memory: L1 92 % busy, 14 of 21 cycles per instruction waiting on L1.
// - mma_tf32x3: f32 inputs, bs a multiple of 16: a warp per 16 x 32 tile on m16n8k8 TF32,
//   operands loaded directly, every one split into hi + lo and multiplied as hi*hi + hi*lo +
//   lo*hi (about f32 accuracy, as the VBR kernel's default; tc::split_tf32x3).
#include "common/types.cuh"
#include "common/mma.cuh"

template <class In, class Out, class I>
__device__ void blocked_ell_rows(i64 rows, i64 kb, i64 bs, i64 ell_cols, const I* col, const In* val, i64 base,
                                 i64 n, const In* B, i64 b_rs, i64 b_cs, Out* C, i64 c_rs, i64 c_cs,
                                 const typename ComputeOf<In>::type* alpha_dev, typename ComputeOf<In>::type alpha_h,
                                 const typename ComputeOf<In>::type* beta_dev, typename ComputeOf<In>::type beta_h) {
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const i64 slots = ell_cols / bs;
    GRID_STRIDE(t, (u64)(rows * n)) {
        const i64 c = (i64)t / rows, i = (i64)t % rows;
        const I* slot_col = col + i / bs * slots;
        const In* a = val + i * ell_cols;
        T acc = T(0);
        for (i64 s = 0; s < slots; ++s) {
            const i64 bc = (i64)slot_col[s] - base;
            if (bc < 0 || bc >= kb) continue;
            const In* x = B + bc * bs * b_rs + c * b_cs;
            for (i64 j = 0; j < bs; ++j) acc = add_rn(acc, mul_rn(to_compute(a[s * bs + j]), to_compute(x[j * b_rs])));
        }
        Out* dst = C + i * c_rs + c * c_cs;
        T out = mul_rn(alpha, acc);
        if (beta != T(0)) out = add_rn(out, mul_rn(beta, to_compute(*dst)));
        *dst = Store<Out>::from(out);
    }
}

// Columns of C per warp tile (four n8 fragments).
#define BELL_TILE_N 32

// The half kernel's thread block: 4 warps on one 16-row tile, each 32 of its 128 columns.
#define BELL_WARPS 4
#define BELL_BLOCK_N (BELL_TILE_N * BELL_WARPS)
// op(B)'s 16 x 128 step tile in shared memory as [column][k], rows padded to 24 elements: the
// fragment reads (column g, k pair q) of a warp fall in 32 distinct banks.
#define BELL_LD_K 24

template <class In, class Out, class I>
__device__ void blocked_ell_mma(i64 rows, i64 kb, i64 bs, i64 ell_cols, const I* col, const In* val, i64 base, i64 n,
                                const In* B, i64 b_rs, i64 b_cs, int b_vec, Out* C, i64 c_rs, i64 c_cs,
                                const float* alpha_dev, float alpha_h, const float* beta_dev, float beta_h) {
    __shared__ __align__(16) In tile[BELL_BLOCK_N * BELL_LD_K];
    __shared__ __align__(16) In a_tile[16 * BELL_LD_K];  // A's 16 x 16 step tile, [row][k]
    const float alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, q = lane & 3;
    const i64 row_tiles = rows / 16, col_tiles = (n + BELL_BLOCK_N - 1) / BELL_BLOCK_N;
    const i64 slots = ell_cols / bs;
    // Consecutive blocks take consecutive row tiles of one column tile: where a block row spans
    // several tiles, they read the same slots and rows of B.
    for (i64 task = blockIdx.x; task < row_tiles * col_tiles; task += gridDim.x) {
        const i64 r0 = task % row_tiles * 16, n0 = task / row_tiles * BELL_BLOCK_N;
        const I* slot_col = col + r0 / bs * slots;
        float acc[4][4] = {};
        for (i64 s = 0; s < slots; ++s) {
            const i64 bc = (i64)slot_col[s] - base;  // the same for the whole block
            if (bc < 0 || bc >= kb) continue;
            for (i64 k0 = 0; k0 < bs; k0 += 16) {
                const i64 kr = bc * bs + k0;  // op(B)'s first row of the step
                __syncthreads();              // the previous step's reads of the tile are done
                if (b_vec) {                  // k contiguous, 16-byte aligned: 8 k per copy
                    for (int v = tid; v < BELL_BLOCK_N * 2; v += blockDim.x) {
                        const int j = v >> 1, kh = (v & 1) * 8;
                        uint4 x = make_uint4(0, 0, 0, 0);
                        if (n0 + j < n) x = *reinterpret_cast<const uint4*>(B + kr + kh + (n0 + j) * b_cs);
                        *reinterpret_cast<uint4*>(&tile[j * BELL_LD_K + kh]) = x;
                    }
                } else {  // element by element, consecutive threads along B's contiguous side
                    for (int e = tid; e < BELL_BLOCK_N * 16; e += blockDim.x) {
                        const int j = b_rs == 1 ? e >> 4 : e % BELL_BLOCK_N, k = b_rs == 1 ? e & 15 : e / BELL_BLOCK_N;
                        tile[j * BELL_LD_K + k] = n0 + j < n ? B[(kr + k) * b_rs + (n0 + j) * b_cs] : In();
                    }
                }
                // A's step tile: 16 rows of 8 value pairs, a pair per thread (8 threads per row,
                // 32 contiguous bytes): read once per block, not once per warp.
                for (int e = tid; e < 16 * 8; e += blockDim.x) {
                    const int row = e >> 3, pair = e & 7;
                    *reinterpret_cast<unsigned*>(&a_tile[row * BELL_LD_K + 2 * pair]) =
                        *reinterpret_cast<const unsigned*>(val + (r0 + row) * ell_cols + s * bs + k0 + 2 * pair);
                }
                __syncthreads();
                const In* a = a_tile + g * BELL_LD_K + 2 * q;  // rows g and g + 8 of the tile
                unsigned af[4];
                af[0] = *reinterpret_cast<const unsigned*>(a);
                af[1] = *reinterpret_cast<const unsigned*>(a + 8 * BELL_LD_K);
                af[2] = *reinterpret_cast<const unsigned*>(a + 8);
                af[3] = *reinterpret_cast<const unsigned*>(a + 8 * BELL_LD_K + 8);
#pragma unroll
                for (int f = 0; f < 4; ++f) {
                    const In* t = tile + (warp * BELL_TILE_N + f * 8 + g) * BELL_LD_K + 2 * q;
                    const unsigned bf[2] = {*reinterpret_cast<const unsigned*>(t),
                                            *reinterpret_cast<const unsigned*>(t + 8)};
                    tc::mma16<In>(acc[f], af, bf);
                }
            }
        }
#pragma unroll
        for (int f = 0; f < 4; ++f) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const i64 i = r0 + g + (e >> 1) * 8, j = n0 + warp * BELL_TILE_N + f * 8 + 2 * q + (e & 1);
                if (j < n) axpby_store(C + i * c_rs + j * c_cs, acc[f][e], alpha, beta);
            }
        }
    }
}

template <class Out, class I>
__device__ void blocked_ell_mma_tf32x3(i64 rows, i64 kb, i64 bs, i64 ell_cols, const I* col, const float* val, i64 base,
                                       i64 n, const float* B, i64 b_rs, i64 b_cs, Out* C, i64 c_rs, i64 c_cs,
                                       const float* alpha_dev, float alpha_h, const float* beta_dev, float beta_h) {
    const float alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
    const i64 row_tiles = rows / 16, col_tiles = (n + BELL_TILE_N - 1) / BELL_TILE_N;
    const i64 slots = ell_cols / bs;
    const i64 warps = (i64)gridDim.x * (blockDim.x >> 5);
    for (i64 task = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; task < row_tiles * col_tiles; task += warps) {
        const i64 r0 = task % row_tiles * 16, n0 = task / row_tiles * BELL_TILE_N;
        const I* slot_col = col + r0 / bs * slots;
        const float* a_lo = val + (r0 + g) * ell_cols + q;  // rows g and g + 8 of the tile
        const float* a_hi = a_lo + 8 * ell_cols;
        float acc[4][4] = {};
        for (i64 s = 0; s < slots; ++s) {
            const i64 bc = (i64)slot_col[s] - base;
            if (bc < 0 || bc >= kb) continue;
            for (i64 k0 = 0; k0 < bs; k0 += 8) {
                const i64 ka = s * bs + k0;
                const float ax[4] = {a_lo[ka], a_hi[ka], a_lo[ka + 4], a_hi[ka + 4]};
                unsigned ah[4], al[4];
#pragma unroll
                for (int e = 0; e < 4; ++e) tc::split_tf32x3(ax[e], ah[e], al[e]);
                const float* b_rows = B + (bc * bs + k0 + q) * b_rs;  // op(B) rows k0 + q and + 4
#pragma unroll
                for (int f = 0; f < 4; ++f) {
                    const i64 j = n0 + f * 8 + g;
                    unsigned bh[2] = {0u, 0u}, bl[2] = {0u, 0u};
                    if (j < n) {
                        const float* x = b_rows + j * b_cs;
                        tc::split_tf32x3(x[0], bh[0], bl[0]);
                        tc::split_tf32x3(x[4 * b_rs], bh[1], bl[1]);
                    }
                    tc::mma_tf32(acc[f], al, bh);
                    tc::mma_tf32(acc[f], ah, bl);
                    tc::mma_tf32(acc[f], ah, bh);
                }
            }
        }
#pragma unroll
        for (int f = 0; f < 4; ++f) {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const i64 i = r0 + g + (e >> 1) * 8, j = n0 + f * 8 + 2 * q + (e & 1);
                if (j < n) axpby_store(C + i * c_rs + j * c_cs, acc[f][e], alpha, beta);
            }
        }
    }
}

#define BELL_ROWS(In, Out, tin, tout, I, tidx)                                                                  \
    extern "C" __global__ void __launch_bounds__(256) spblk_blocked_ell_rows_##tin##_##tout##_##tidx(          \
        i64 rows, i64 kb, i64 bs, i64 ell_cols, const I* col, const In* val, i64 base, i64 n, const In* B,     \
        i64 b_rs, i64 b_cs, Out* C, i64 c_rs, i64 c_cs, const ComputeOf<In>::type* alpha_dev,                  \
        ComputeOf<In>::type alpha_h, const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta_h) {        \
        blocked_ell_rows<In, Out, I>(rows, kb, bs, ell_cols, col, val, base, n, B, b_rs, b_cs, C, c_rs, c_cs,  \
                                     alpha_dev, alpha_h, beta_dev, beta_h);                                    \
    }

SPBLK_FOR_PRECISIONS(BELL_ROWS, int, i32)
SPBLK_FOR_PRECISIONS(BELL_ROWS, long long, i64)

#define BELL_MMA(In, Out, tin, tout, I, tidx)                                                                      \
    extern "C" __global__ void __launch_bounds__(128) spblk_blocked_ell_mma_##tin##_##tout##_##tidx(              \
        i64 rows, i64 kb, i64 bs, i64 ell_cols, const I* col, const In* val, i64 base, i64 n, const In* B,        \
        i64 b_rs, i64 b_cs, int b_vec, Out* C, i64 c_rs, i64 c_cs, const float* alpha_dev, float alpha_h,        \
        const float* beta_dev, float beta_h) {                                                                    \
        blocked_ell_mma<In, Out, I>(rows, kb, bs, ell_cols, col, val, base, n, B, b_rs, b_cs, b_vec, C, c_rs,     \
                                    c_cs, alpha_dev, alpha_h, beta_dev, beta_h);                                  \
    }

#define BELL_MMA_TF32X3(I, tidx)                                                                                   \
    extern "C" __global__ void __launch_bounds__(256) spblk_blocked_ell_mma_f32_f32_##tidx(                          \
        i64 rows, i64 kb, i64 bs, i64 ell_cols, const I* col, const float* val, i64 base, i64 n, const float* B,    \
        i64 b_rs, i64 b_cs, float* C, i64 c_rs, i64 c_cs, const float* alpha_dev, float alpha_h,                   \
        const float* beta_dev, float beta_h) {                                                                      \
        blocked_ell_mma_tf32x3<float, I>(rows, kb, bs, ell_cols, col, val, base, n, B, b_rs, b_cs, C, c_rs, c_cs,   \
                                         alpha_dev, alpha_h, beta_dev, beta_h);                                     \
    }

#define BELL_MMA_INDEX(I, tidx)                \
    BELL_MMA(f16, float, f16, f32, I, tidx)    \
    BELL_MMA(f16, f16, f16, f16, I, tidx)      \
    BELL_MMA(bf16, float, bf16, f32, I, tidx)  \
    BELL_MMA(bf16, bf16, bf16, bf16, I, tidx)  \
    BELL_MMA_TF32X3(I, tidx)

BELL_MMA_INDEX(int, i32)
BELL_MMA_INDEX(long long, i64)
