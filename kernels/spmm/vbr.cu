// VBR SpMM on tensor cores: C = alpha * A * op(B) + beta * C, A given by a 1-SA plan
// (src/analysis/one_sa.rs, `Vbr`): rows permuted into groups, every nonzero (group x bw-wide
// column block) stored as a dense, zero-padded, row-major (height x bw) block.
//
// One thread block computes a row tile (at most BM = 64 rows of one group, from the tile
// table the backend builds) times a BN-wide tile of C's columns (BN = 64 x WARPS_N). It walks
// the group's nonzero column blocks in BK-deep steps; each step stages the A sub-block and the
// matching BK rows of op(B) in shared memory (dynamic, STAGES deep) with cp.async, and
// multiplies them with mma.sync (2 x WARPS_N warps, each a 32 x 64 tile of C in f32
// registers). The result goes to C through the row permutation with alpha and beta (beta == 0
// never reads C). Every thread's copy assignments are fixed for the tile and computed once, so
// a step costs a few integer operations per 16-byte copy.
//
// Products: f16/bf16 inputs on m16n8k16 (f32 accumulation); f32 inputs on m16n8k8 TF32,
// either once (MODE_TF32, ~1e-3 relative) or split (MODE_TF32X3: x = hi + lo with hi, lo
// TF32, and hi*hi + hi*lo + lo*hi, about f32 accuracy).
//
// Effective layouts: op(B)(k, j) at B[k*ldb + j] when B_ROW, else B[k + j*ldb]; C(i, j) at
// C[i*ldc + j] when c_row, else C[i + j*ldc]. `vec`: 16-byte copies are allowed (bw, ldb and
// the base addresses aligned); otherwise every element is loaded on its own.
#include "common/types.cuh"
#include "spmm/vbr_tile.cuh"
#include "common/mma.cuh"

namespace vbr {

using namespace tc;

constexpr int WM = 32, WN = 64;  // a warp's tile of C
constexpr int MT = WM / 16;      // m16 tiles per warp
constexpr int NT = WN / 8;       // n8 tiles per warp

enum Mode { MODE_HALF = 0, MODE_TF32 = 1, MODE_TF32X3 = 2 };

// Block columns staged in shared memory at a time, after the pipeline's stages (the host's
// `smem_bytes` adds them).
constexpr int BC_TABLE = 256;

// BK: K depth of one pipeline step (a multiple of the mma's k). f16/bf16 tiles are unpadded
// and XOR-swizzled in 16-byte chunks (`Smem::k_idx`, `Smem::n_idx`): the 8 rows an ldmatrix
// phase reads and the rows a warp's cp.async batch writes fall in distinct banks (ncu of the
// padded layout: 32 % excess shared-memory wavefronts). f32 tiles keep padded rows (BK + PAD_K
// elements; scalar fragment reads).
template <class T> struct Depth {
    static constexpr int BK = 32, PAD_K = 0;
    static constexpr bool SWIZZLE = true;
};
template <> struct Depth<float> {
    static constexpr int BK = 16, PAD_K = 4;
    static constexpr bool SWIZZLE = false;
};

// Shared-memory layout of one stage; the host computes the same size (src/backend/cuda/vbr.rs,
// `smem_bytes`), and the kernel traps if it was given less.
template <class T, bool B_ROW, int WARPS_N> struct Smem {
    static constexpr int BN = WN * WARPS_N;
    static constexpr int THREADS = 64 * WARPS_N;
    static constexpr int BK = Depth<T>::BK;
    static constexpr bool SWZ = Depth<T>::SWIZZLE;
    static constexpr int V = 16 / sizeof(T);  // elements per 16-byte copy
    static constexpr int A_LD = BK + Depth<T>::PAD_K;
    static constexpr int B_LD = B_ROW ? BN + (SWZ ? 0 : 8) : BK + Depth<T>::PAD_K;
    static constexpr int A_SIZE = BM * A_LD;
    static constexpr int B_SIZE = B_ROW ? BK * B_LD : BN * B_LD;
    static constexpr int STAGE = A_SIZE + B_SIZE;
    static constexpr int A_COPIES = BM * BK / V / THREADS;  // 16-byte copies per thread
    static constexpr int B_COPIES = BK * BN / V / THREADS;
    static_assert(A_COPIES * V * THREADS == BM * BK && B_COPIES * V * THREADS == BK * BN, "copies");
    // Element (row, k) of a K-contiguous tile (A; op(B) stored [n][k]): rows of BK = 4 chunks
    // (64 bytes), chunk ^= (row / 2) % 4, so 8 consecutive rows cover all 8 bank groups.
    __device__ static __forceinline__ int k_idx(int row, int k) {
        return SWZ ? row * A_LD + ((((k / V) ^ (row >> 1)) & 3) * V) + (k % V) : row * A_LD + k;
    }
    // Element (k, n) of the N-contiguous op(B) tile: chunk ^= k % 8 (flips the chunk's low
    // bits, so it stays inside its 128-byte group).
    __device__ static __forceinline__ int n_idx(int k, int n) {
        return SWZ ? k * B_LD + (((n / V) ^ (k & 7)) * V) + (n % V) : k * B_LD + n;
    }
};

// A thread's share of a step's 16-byte copies, fixed for the tile. Copy i of a thread covers
// the same column (A, row-major B) or the same k chunk (B as [n][k]) as its copy 0,
// THREADS / (chunks per row) rows further, and the swizzle depends only on row bits the step
// does not change; so a step's copies cost one compare and one address add each (ncu of the
// version that recomputed 64-bit products and bounds per copy: 60 % of the kernel's
// instructions were integer work, HMMA 10 %).
template <class T, bool B_ROW, int WARPS_N> struct Copies {
    typedef Smem<T, B_ROW, WARPS_N> S;
    static constexpr int A_PER_ROW = S::BK / S::V, A_STEP = S::THREADS / A_PER_ROW;
    static constexpr int B_PER_ROW = B_ROW ? S::BN / S::V : S::BK / S::V, B_STEP = S::THREADS / B_PER_ROW;
    static_assert(!S::SWZ || (A_STEP % 8 == 0 && B_STEP % 8 == 0), "row steps keep the swizzle");
    static_assert(S::A_COPIES <= 32 && S::B_COPIES <= 32, "copy masks are 32 bits");
    // Thread-derived positions, recomputed where used (a few shifts from threadIdx) rather
    // than held in registers across the main loop (holding them spilled the f16 kernel).
    // Copy i: A row a_row() + i*A_STEP, column a_col(), smem a_smem() + i*A_STEP*A_LD; B row
    // (k, or n for [n][k]) b_row() + i*B_STEP.
    __device__ static __forceinline__ int a_row() { return threadIdx.x / A_PER_ROW; }
    __device__ static __forceinline__ int a_col() { return (threadIdx.x % A_PER_ROW) * S::V; }
    __device__ static __forceinline__ int a_smem() { return S::k_idx(a_row(), a_col()); }
    __device__ static __forceinline__ int b_row() { return threadIdx.x / B_PER_ROW; }
    __device__ static __forceinline__ int b_col() { return (threadIdx.x % B_PER_ROW) * S::V; }
    __device__ static __forceinline__ int b_smem() {
        return B_ROW ? S::n_idx(b_row(), b_col()) : S::k_idx(b_row(), b_col());
    }
    unsigned a_rows;  // bit i: copy i's row is inside the tile
    i64 b_src;        // copy i reads B at (step base) + b_src + i * B_STEP * ldb
    unsigned b_ns;    // [n][k]: bit i: copy i's column n is inside N
    int b_bytes;      // B_ROW: bytes of the thread's column chunk inside N

    __device__ __forceinline__ void init(const Tile& tl, i64 N, i64 ldb) {
        a_rows = 0;
#pragma unroll
        for (int i = 0; i < S::A_COPIES; ++i) a_rows |= (a_row() + i * A_STEP < tl.rows ? 1u : 0u) << i;
        b_ns = 0;
        if (B_ROW) {
            b_src = (i64)b_row() * ldb + tl.n0 + b_col();
            const i64 left = N - (tl.n0 + b_col());
            b_bytes = left <= 0 ? 0 : (left >= S::V ? 16 : (int)left * (int)sizeof(T));
        } else {
            b_src = (tl.n0 + b_row()) * ldb + b_col();
            b_bytes = 16;
#pragma unroll
            for (int i = 0; i < S::B_COPIES; ++i) b_ns |= (tl.n0 + b_row() + i * B_STEP < N ? 1u : 0u) << i;
        }
    }
};

// Stages the K slice [kc, kc + BK) of a block whose values start at `a` (row rel0, column kc)
// and whose first column of the slice is kcol: 16-byte copies (zero-filled outside A's rows,
// the block's width, K, or N).
template <class T, bool B_ROW, int WARPS_N>
__device__ __forceinline__ void load_vec(T* As, T* Bs, const Copies<T, B_ROW, WARPS_N>& cp, const T* a, i64 kcol,
                                         int kc, i64 bw, i64 K, const T* __restrict__ B, i64 ldb) {
    typedef Smem<T, B_ROW, WARPS_N> S;
    typedef Copies<T, B_ROW, WARPS_N> C;
    // Thread-invariant strides (uniform registers, not per-thread state).
    const int a_step = C::A_STEP * (int)bw;
    const i64 b_step = C::B_STEP * ldb;
    const bool a_in = kc + C::a_col() < bw;
    const T* a0 = a + (C::a_row() * (int)bw + C::a_col());
    const int a_smem = C::a_smem(), b_smem = C::b_smem(), b_row = C::b_row();
#pragma unroll
    for (int i = 0; i < S::A_COPIES; ++i) {
        const bool ok = a_in && (cp.a_rows >> i & 1u);
        cp_async16(As + a_smem + i * C::A_STEP * S::A_LD, ok ? (const void*)(a0 + i * a_step) : (const void*)a,
                   ok ? 16 : 0);
    }
    // Rows (B_ROW: k) of this slice that exist: inside the block and inside K.
    const i64 klim = min(bw - kc, K - kcol);
    if (B_ROW) {
        const T* b0 = B + kcol * ldb + cp.b_src;
#pragma unroll
        for (int i = 0; i < S::B_COPIES; ++i) {
            const int bytes = b_row + i * C::B_STEP < klim ? cp.b_bytes : 0;
            cp_async16(Bs + b_smem + i * C::B_STEP * S::B_LD, bytes ? (const void*)(b0 + i * b_step) : (const void*)B,
                       bytes);
        }
    } else {
        const i64 left = klim - C::b_col();
        const int kbytes = left <= 0 ? 0 : (int)min(left, (i64)S::V) * (int)sizeof(T);
        const T* b0 = B + kcol + cp.b_src;
#pragma unroll
        for (int i = 0; i < S::B_COPIES; ++i) {
            const int bytes = (cp.b_ns >> i & 1u) ? kbytes : 0;
            cp_async16(Bs + b_smem + i * C::B_STEP * S::A_LD, bytes ? (const void*)(b0 + i * b_step) : (const void*)B,
                       bytes);
        }
    }
}

// The same with one element per load (unaligned B, leading dimension or block width).
template <class T, bool B_ROW, int WARPS_N>
__device__ __forceinline__ void load_scalar(T* As, T* Bs, const Tile& tl, const T* a, i64 kcol, int kc, i64 bw, i64 K,
                                            i64 N, const T* __restrict__ B, i64 ldb) {
    typedef Smem<T, B_ROW, WARPS_N> S;
    const T zero = T(0.0f);
    for (int p = threadIdx.x; p < BM * S::BK; p += S::THREADS) {
        const int r = p / S::BK, c = p % S::BK;
        As[S::k_idx(r, c)] = (r < tl.rows && kc + c < bw) ? a[r * bw + c] : zero;
    }
    for (int p = threadIdx.x; p < S::BK * S::BN; p += S::THREADS) {
        // B_ROW: consecutive threads take consecutive columns (coalesced), else rows.
        const int r = B_ROW ? p / S::BN : p % S::BK, c = B_ROW ? p % S::BN : p / S::BK;
        const i64 k = kcol + r, j = tl.n0 + c;
        const bool ok = kc + r < bw && k < K && j < N;
        const T v = ok ? (B_ROW ? B[k * ldb + j] : B[k + j * ldb]) : zero;
        Bs[B_ROW ? S::n_idx(r, c) : S::k_idx(c, r)] = v;
    }
}

// One step's products, f16/bf16: BK / 16 slices of k16. Fragment addresses in the swizzled
// tiles (Smem::k_idx / n_idx) reduce to a per-lane chunk XOR that does not depend on the
// fragment, computed here from the lane so that the loop keeps few live registers.
template <class T, bool B_ROW, int WARPS_N>
__device__ __forceinline__ void mma_step_half(const T* As, const T* Bs, int wm, int wn, int lane,
                                              float (&acc)[MT][NT][4]) {
    typedef Smem<T, B_ROW, WARPS_N> S;
    static_assert(S::SWZ && S::V == 8, "half-precision tiles are swizzled in 8-element chunks");
    // Byte addresses in shared memory; E = element size.
    constexpr int E = sizeof(T);
    // A rows wm*WM + mi*16 + (lane & 15): (row / 2) % 4 is the lane's bits 1..2.
    const int a_x = (lane >> 1) & 3, a_h = lane >> 4;
    const unsigned a_row = (unsigned)__cvta_generic_to_shared(As) + (wm * WM + (lane & 15)) * S::A_LD * E;
    // B row-major: k rows ks + (lane & 7) + 8*((lane >> 3) & 1), so k % 8 = lane & 7; chunks
    // wn*WN/8 + nj + (lane >> 4), nj even: chunk ^ (k % 8) = wn*WN/8 + (nj ^ b_x).
    const int b_x = (lane >> 4) ^ (lane & 7);
    const unsigned b_row = (unsigned)__cvta_generic_to_shared(Bs) +
                           (((lane & 7) + ((lane >> 3) & 1) * 8) * S::B_LD + wn * WN) * E;
    // B as [n][k]: rows wn*WN + nj*8 + (lane >> 4)*8 + (lane & 7), (row / 2) % 4 = (lane >> 1) & 3.
    const int c_h = (lane >> 3) & 1;
    const unsigned c_row = (unsigned)__cvta_generic_to_shared(Bs) + (wn * WN + (lane >> 4) * 8 + (lane & 7)) * S::A_LD * E;
#pragma unroll
    for (int ks = 0; ks < S::BK; ks += 16) {
        unsigned a[MT][4], b[NT][2];
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)
            ldmatrix_x4_at(a[mi], a_row + (mi * 16 * S::A_LD + ((((ks >> 3) + a_h) ^ a_x) << 3)) * E);
#pragma unroll
        for (int nj = 0; nj < NT; nj += 2) {
            unsigned r[4];
            if (B_ROW)
                ldmatrix_x4_trans_at(r, b_row + (ks * S::B_LD + ((nj ^ b_x) << 3)) * E);
            else
                ldmatrix_x4_at(r, c_row + (nj * 8 * S::A_LD + ((((ks >> 3) + c_h) ^ a_x) << 3)) * E);
            b[nj][0] = r[0];
            b[nj][1] = r[1];
            b[nj + 1][0] = r[2];
            b[nj + 1][1] = r[3];
        }
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)
#pragma unroll
            for (int ni = 0; ni < NT; ++ni) mma16<T>(acc[mi][ni], a[mi], b[ni]);
    }
}

// An f32 operand for the TF32 products. MODE_TF32: rounded to nearest (cvt.rna, which sm_90
// runs as four integer and compare instructions). MODE_TF32X3: `tc::split_tf32x3` (one
// instruction for hi; ncu of a cvt.rna split: conversions were 40 % of the kernel's
// instructions).
template <int MODE> __device__ __forceinline__ void split(float x, unsigned& hi, unsigned& lo) {
    if (MODE == MODE_TF32X3) {
        split_tf32x3(x, hi, lo);
    } else {
        hi = to_tf32(x);
    }
}

// One step's products, f32 inputs: BK / 8 slices of k8, one TF32 product or three (split).
template <bool B_ROW, int WARPS_N, int MODE>
__device__ __forceinline__ void mma_step_tf32(const float* As, const float* Bs, int wm, int wn, int lane,
                                              float (&acc)[MT][NT][4]) {
    typedef Smem<float, B_ROW, WARPS_N> S;
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int ks = 0; ks < S::BK; ks += 8) {
        unsigned ah[MT][4], al[MT][4], bh[NT][2], bl[NT][2];
#pragma unroll
        for (int mi = 0; mi < MT; ++mi) {
            const float* p = As + (wm * WM + mi * 16 + g) * S::A_LD + ks + t;
            const float x[4] = {p[0], p[8 * S::A_LD], p[4], p[8 * S::A_LD + 4]};
#pragma unroll
            for (int q = 0; q < 4; ++q) split<MODE>(x[q], ah[mi][q], al[mi][q]);
        }
#pragma unroll
        for (int ni = 0; ni < NT; ++ni) {
            const int n = wn * WN + ni * 8 + g;
            const float x[2] = {B_ROW ? Bs[(ks + t) * S::B_LD + n] : Bs[n * S::B_LD + ks + t],
                                B_ROW ? Bs[(ks + t + 4) * S::B_LD + n] : Bs[n * S::B_LD + ks + t + 4]};
#pragma unroll
            for (int q = 0; q < 2; ++q) split<MODE>(x[q], bh[ni][q], bl[ni][q]);
        }
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)
#pragma unroll
            for (int ni = 0; ni < NT; ++ni) {
                if (MODE == MODE_TF32X3) {
                    // Small terms first: they would be lost after the large one.
                    mma_tf32(acc[mi][ni], al[mi], bh[ni]);
                    mma_tf32(acc[mi][ni], ah[mi], bl[ni]);
                }
                mma_tf32(acc[mi][ni], ah[mi], bh[ni]);
            }
    }
}

// Writes the thread's accumulators to C (through the permutation) with alpha and beta.
template <class Out, int WARPS_N>
__device__ __forceinline__ void store_tile(const Tile& tl, const u64* __restrict__ perm, Out* __restrict__ C, i64 ldc,
                                           int c_row, i64 N, float alpha, float beta, int wm, int wn, int lane,
                                           const float (&acc)[MT][NT][4]) {
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int r = wm * WM + mi * 16 + half * 8 + g;
            if (r >= tl.rows) continue;
            const i64 row = (i64)perm[tl.row0 + r];
#pragma unroll
            for (int ni = 0; ni < NT; ++ni)
#pragma unroll
                for (int q = 0; q < 2; ++q) {
                    const i64 j = tl.n0 + wn * WN + ni * 8 + 2 * t + q;
                    if (j < N)
                        axpby_store(C + (c_row ? row * ldc + j : row + j * ldc), acc[mi][ni][half * 2 + q], alpha,
                                    beta);
                }
        }
}

// A split tile's ending, first half: the part's partial tile into its shared memory
// (`reduce_tile` in vbr_tile.cuh is the second).
template <int WARPS_N>
__device__ __forceinline__ void write_partial(unsigned char* smem_raw, int wm, int wn, int lane,
                                              const float (&acc)[MT][NT][4]) {
    typedef Partial<WN * WARPS_N> P;
    float* part = reinterpret_cast<float*>(smem_raw);
    __syncthreads();  // every warp is done with the stages
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int half = 0; half < 2; ++half)
#pragma unroll
            for (int ni = 0; ni < NT; ++ni) {
                const int r = wm * WM + mi * 16 + half * 8 + g, c = wn * WN + ni * 8 + 2 * t;
                *reinterpret_cast<float2*>(part + r * P::LD + c) =
                    make_float2(acc[mi][ni][half * 2], acc[mi][ni][half * 2 + 1]);
            }
}

// SPLIT: the launch is in clusters of `splits` thread blocks, each taking an equal share of
// the tile's steps (splits <= BM); otherwise `splits` is 1.
template <class T, class Out, bool B_ROW, int MODE, int WARPS_N, int STAGES, bool SPLIT>
__device__ void spmm_vbr(const u64* __restrict__ tiles, i64 ntiles, i64 band, int splits,
                         const u64* __restrict__ group_ptr, const u64* __restrict__ block_ptr,
                         const u64* __restrict__ block_col, const u64* __restrict__ value_offset,
                         const u64* __restrict__ perm, const T* __restrict__ values, i64 bw, i64 K, i64 N,
                         const T* __restrict__ B, i64 ldb, Out* __restrict__ C, i64 ldc, int c_row,
                         const float* alpha_dev, float alpha_host, const float* beta_dev, float beta_host, int vec) {
    typedef Smem<T, B_ROW, WARPS_N> S;
    static_assert(!SPLIT || STAGES * S::STAGE * sizeof(T) >= Partial<S::BN>::BYTES, "the partial tile fits the stages");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* smem = reinterpret_cast<T*>(smem_raw);
    unsigned smem_given;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(smem_given));
    if (smem_given < STAGES * S::STAGE * sizeof(T) + BC_TABLE * sizeof(u64)) __trap();  // layouts disagree

    const i64 ntn = (N + S::BN - 1) / S::BN;
    const Tile tl = locate(tiles, ntiles, ntn, band, S::BN, SPLIT ? splits : 1, group_ptr, block_ptr);
    const int chunks = (int)((bw + S::BK - 1) / S::BK);
    // 32-bit counts: the backend launches only plans whose column blocks fit (< 2^31 / chunks).
    const int nblocks = (int)(tl.kb1 - tl.kb0);
    const int all_steps = nblocks * chunks;
    // This part's steps [first, first + steps) of the tile's (32-bit arithmetic: a 64-bit
    // division here made the f16 kernels spill).
    const int part = SPLIT ? (int)(blockIdx.x % splits) : 0;
    const int per = SPLIT ? all_steps / splits : all_steps, extra = SPLIT ? all_steps % splits : 0;
    const int first = part * per + min(part, extra);
    const int steps = per + (part < extra ? 1 : 0);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    Copies<T, B_ROW, WARPS_N> cp;
    if (vec) cp.init(tl, N, ldb);

    float acc[MT][NT][4];
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < NT; ++ni)
#pragma unroll
            for (int q = 0; q < 4; ++q) acc[mi][ni][q] = 0.0f;

    // The next step to load: block kb, K slice kc, its values at `ab` (the tile's first row,
    // column kc). A group's blocks are stored one after another (value_offset[kb] =
    // value_offset[kb0] + (kb - kb0) * height * bw; the backend checks this at upload), and
    // their columns are staged in shared memory, BC_TABLE at a time, so no step waits on a
    // global load to address its copies (a per-step load did; holding the next column in
    // registers instead spilled the f16 kernel).
    u64* bc_table = reinterpret_cast<u64*>(smem_raw + STAGES * S::STAGE * sizeof(T));
    const u64* bcols = block_col + tl.kb0;
    auto fill_table = [&](int from) {  // by all threads, where all threads call it
        __syncthreads();  // nobody still reads the previous columns
        for (int i = threadIdx.x; i < BC_TABLE && from + i < nblocks; i += S::THREADS) bc_table[i] = bcols[from + i];
        __syncthreads();
    };
    int kb = first / chunks;  // relative to the tile's first block
    int kc = (first % chunks) * S::BK;
    fill_table(kb - kb % BC_TABLE);
    const i64 ab_step = tl.height * bw;
    const T* ab = nblocks > 0 ? values + (i64)value_offset[tl.kb0] + tl.rel0 * bw + kb * ab_step : values;
    // The current block's column, read from the table when the block starts, after the
    // copies of the step that ends the previous block (a read on every step put its latency
    // on the copies' path: +7 % with one tile per SM). 32 bits: the backend checks the count.
    unsigned bcur = kb < nblocks ? (unsigned)bc_table[kb % BC_TABLE] : 0u;
    auto load_next = [&](int stage) {
        T* As = smem + stage * S::STAGE;
        T* Bs = As + S::A_SIZE;
        const i64 kcol = (i64)bcur * bw + kc;
        if (vec)
            load_vec<T, B_ROW, WARPS_N>(As, Bs, cp, ab + kc, kcol, kc, bw, K, B, ldb);
        else
            load_scalar<T, B_ROW, WARPS_N>(As, Bs, tl, ab + kc, kcol, kc, bw, K, N, B, ldb);
        kc += S::BK;
        if (kc >= bw) {
            kc = 0;
            ++kb;
            ab += ab_step;
            if (kb % BC_TABLE == 0 && kb < nblocks) fill_table(kb);
            if (kb < nblocks) bcur = (unsigned)bc_table[kb % BC_TABLE];
        }
    };

    // Prologue: STAGES - 1 steps in flight (a group is committed even when empty, so that
    // wait_group counts steps).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < steps) load_next(s);
        cp_async_commit();
    }
    int st = 0, ld = STAGES - 1;  // stage computed now, stage loaded next
    for (int s = 0; s < steps; ++s) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();  // step s is in smem for all; everyone is done with the stage it replaces
        if (s + STAGES - 1 < steps) load_next(ld);
        cp_async_commit();
        const T* As = smem + st * S::STAGE;
        if constexpr (MODE == MODE_HALF)
            mma_step_half<T, B_ROW, WARPS_N>(As, As + S::A_SIZE, wm, wn, lane, acc);
        else
            mma_step_tf32<B_ROW, WARPS_N, MODE>(As, As + S::A_SIZE, wm, wn, lane, acc);
        st = st + 1 == STAGES ? 0 : st + 1;
        ld = ld + 1 == STAGES ? 0 : ld + 1;
    }
    cp_async_wait<0>();

    if (SPLIT) {
        write_partial<WARPS_N>(smem_raw, wm, wn, lane, acc);
        reduce_tile<Out, WN * WARPS_N, 64 * WARPS_N>(smem_raw, tl, splits, perm + tl.row0, C, ldc, c_row, N,
                                                     scalar_arg(alpha_dev, alpha_host), scalar_arg(beta_dev, beta_host));
    } else {
        store_tile<Out, WARPS_N>(tl, perm, C, ldc, c_row, N, scalar_arg(alpha_dev, alpha_host),
                                 scalar_arg(beta_dev, beta_host), wm, wn, lane, acc);
    }
}

}  // namespace vbr

// Entry points: spblk_spmm_vbr_<mode>_<b layout>_n<BN>[_split]_<in>_<out>. f16/bf16 come in
// 128- and 256-column tiles (the wider for large N: half the A traffic per flop), f32 in 128;
// `_split` (128 columns; launched in clusters of `splits`) for matrices with too few tiles
// to fill the GPU.
#define VBR_ENTRY(T, Out, mode, tin, tout, layout, b_row, MODE, WARPS_N, BN, STAGES, MIN_BLOCKS, SPLIT, sfx)  \
    extern "C" __global__ void __launch_bounds__(64 * WARPS_N, MIN_BLOCKS)                                    \
        spblk_spmm_vbr_##mode##_##layout##_n##BN##sfx##_##tin##_##tout(                                      \
            const u64* tiles, i64 ntiles, i64 band, int splits, const u64* group_ptr, const u64* block_ptr,  \
            const u64* block_col, const u64* value_offset, const u64* perm, const T* values, i64 bw, i64 K,   \
            i64 N, const T* B, i64 ldb, Out* C, i64 ldc, int c_row, const float* alpha_dev, float alpha,     \
            const float* beta_dev, float beta, int vec) {                                                    \
        vbr::spmm_vbr<T, Out, b_row, vbr::MODE, WARPS_N, STAGES, SPLIT>(                                     \
            tiles, ntiles, band, splits, group_ptr, block_ptr, block_col, value_offset, perm, values, bw, K, \
            N, B, ldb, C, ldc, c_row, alpha_dev, alpha, beta_dev, beta, vec);                                \
    }
#define VBR_LAYOUTS(T, Out, mode, tin, tout, MODE, WARPS_N, BN, STAGES, MIN_BLOCKS, SPLIT, sfx)                 \
    VBR_ENTRY(T, Out, mode, tin, tout, brow, true, MODE, WARPS_N, BN, STAGES, MIN_BLOCKS, SPLIT, sfx)           \
    VBR_ENTRY(T, Out, mode, tin, tout, bcol, false, MODE, WARPS_N, BN, STAGES, MIN_BLOCKS, SPLIT, sfx)
#define VBR_HALF(T, Out, tin, tout)                                             \
    VBR_LAYOUTS(T, Out, tc, tin, tout, MODE_HALF, 2, 128, 4, 4, false, )        \
    VBR_LAYOUTS(T, Out, tc, tin, tout, MODE_HALF, 2, 128, 4, 4, true, _split)   \
    VBR_LAYOUTS(T, Out, tc, tin, tout, MODE_HALF, 4, 256, 3, 2, false, )

VBR_HALF(f16, float, f16, f32)
VBR_HALF(f16, f16, f16, f16)
VBR_HALF(bf16, float, bf16, f32)
VBR_HALF(bf16, bf16, bf16, bf16)
VBR_LAYOUTS(float, float, tf32, f32, f32, MODE_TF32, 2, 128, 4, 4, false, )
VBR_LAYOUTS(float, float, tf32, f32, f32, MODE_TF32, 2, 128, 4, 4, true, _split)
VBR_LAYOUTS(float, float, tf32x3, f32, f32, MODE_TF32X3, 2, 128, 4, 3, false, )
VBR_LAYOUTS(float, float, tf32x3, f32, f32, MODE_TF32X3, 2, 128, 4, 3, true, _split)
