// VBR SpMM on tensor cores: C = alpha * A * op(B) + beta * C, A given by a 1-SA plan
// (src/analysis/one_sa.rs, `Vbr`): rows permuted into groups, every nonzero (group x bw-wide
// column block) stored as a dense, zero-padded, row-major (height x bw) block.
//
// One thread block computes a row tile (at most BM rows of one group, from the tile table the
// backend builds) times a BN-wide tile of C's columns. It walks the group's nonzero column
// blocks in BK-deep steps; each step stages the A sub-block and the matching BK rows of op(B)
// in shared memory with cp.async, STAGES steps in flight, and multiplies them with mma.sync
// (4 warps, each a 32 x BN/2 tile of C in f32 registers). The result goes to C through the
// row permutation with alpha and beta (beta == 0 never reads C).
//
// Products: f16/bf16 inputs on m16n8k16 (f32 accumulation); f32 inputs on m16n8k8 TF32,
// either once (MODE_TF32, ~1e-3 relative) or split (MODE_TF32X3: x = hi + lo with hi, lo
// TF32, and hi*hi + hi*lo + lo*hi, about f32 accuracy).
//
// Effective layouts: op(B)(k, j) at B[k*ldb + j] when B_ROW, else B[k + j*ldb]; C(i, j) at
// C[i*ldc + j] when c_row, else C[i + j*ldc]. `vec`: 16-byte copies are allowed (bw, ldb and
// the base addresses aligned); otherwise every element is loaded on its own.
#include "common/types.cuh"

namespace vbr {

constexpr int BM = 64;
constexpr int BN = 128;
constexpr int THREADS = 128;
constexpr int STAGES = 3;
constexpr int WN = BN / 2;   // columns per warp (warps are 2 x 2)
constexpr int MT = 2;        // m16 tiles per warp (32 rows)
constexpr int NT = WN / 8;   // n8 tiles per warp

enum Mode { MODE_HALF = 0, MODE_TF32 = 1, MODE_TF32X3 = 2 };

// BK: K depth of one pipeline step (a multiple of the mma's k; STAGES steps fit in 48 KB).
// Row pitches are padded so that the 8 rows a fragment read touches fall in distinct banks:
// K-contiguous rows of BK + PAD_K elements (80 bytes), N-contiguous rows of BN + 8.
template <class T> struct Depth {
    static constexpr int BK = 32, PAD_K = 8;
};
template <> struct Depth<float> {
    static constexpr int BK = 16, PAD_K = 4;
};

template <class T, bool B_ROW> struct Smem {
    static constexpr int BK = Depth<T>::BK;
    static constexpr int A_LD = BK + Depth<T>::PAD_K;
    static constexpr int B_LD = B_ROW ? BN + 8 : BK + Depth<T>::PAD_K;
    static constexpr int A_SIZE = BM * A_LD;
    static constexpr int B_SIZE = B_ROW ? BK * B_LD : BN * B_LD;
};

__device__ __forceinline__ void cp_async16(void* dst, const void* src, int bytes) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void ldmatrix_x4(unsigned* r, const void* p) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned* r, const void* p) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(p);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(s));
}

template <class T> __device__ __forceinline__ void mma16(float* d, const unsigned* a, const unsigned* b);
template <> __device__ __forceinline__ void mma16<f16>(float* d, const unsigned* a, const unsigned* b) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
template <> __device__ __forceinline__ void mma16<bf16>(float* d, const unsigned* a, const unsigned* b) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ void mma_tf32(float* d, const unsigned* a, const unsigned* b) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
__device__ __forceinline__ unsigned to_tf32(float x) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

// Where one thread block works: its row tile (group rows [row0, row0 + rows)) and the
// group's block range, and its column tile [n0, n0 + BN).
struct Tile {
    i64 row0, rows, rel0, h, kb0, kb1, n0;
};

// Column tiles are grouped in bands of `band` tiles; within a band, consecutive blocks take
// the band's column tiles of one row tile. The band's slice of B (K x band*BN) stays in L2
// while all row tiles pass, and A is read once per band.
__device__ __forceinline__ Tile locate(const u64* __restrict__ tiles, i64 ntiles, i64 ntn, i64 band,
                                       const u64* __restrict__ group_ptr, const u64* __restrict__ block_ptr) {
    const i64 bid = blockIdx.x;
    const i64 b = bid / (ntiles * band);
    const i64 width = min(band, ntn - b * band);
    const i64 rem = bid - b * ntiles * band;
    const i64 t = rem / width;
    Tile r;
    r.n0 = (b * band + rem % width) * BN;
    const i64 g = (i64)tiles[2 * t];
    r.row0 = (i64)tiles[2 * t + 1];
    const i64 g0 = (i64)group_ptr[g], g1 = (i64)group_ptr[g + 1];
    r.h = g1 - g0;
    r.rel0 = r.row0 - g0;
    r.rows = min((i64)BM, g1 - r.row0);
    r.kb0 = (i64)block_ptr[g];
    r.kb1 = (i64)block_ptr[g + 1];
    return r;
}

// Stages step `s` (block kb0 + s / chunks, K chunk s % chunks) into As / Bs.
template <class T, bool B_ROW>
__device__ __forceinline__ void load_step(T* As, T* Bs, const Tile& tl, i64 s, i64 chunks, i64 bw, i64 K, i64 N,
                                          const u64* __restrict__ block_col, const u64* __restrict__ value_offset,
                                          const T* __restrict__ values, const T* __restrict__ B, i64 ldb, bool vec) {
    typedef Smem<T, B_ROW> S;
    constexpr int BK = S::BK;
    constexpr int V = 16 / sizeof(T);
    const i64 kb = tl.kb0 + s / chunks;
    const i64 kc = (s % chunks) * BK;          // first column of the step inside the block
    const i64 kcol0 = (i64)block_col[kb] * bw;  // first column of the block in A
    const T* a = values + (i64)value_offset[kb] + tl.rel0 * bw + kc;
    const int tid = threadIdx.x;
    if (vec) {
        // A: BM rows x BK columns in 16-byte pieces (bw % V == 0, so a piece is all in or out).
        for (int p = tid; p < BM * BK / V; p += THREADS) {
            const int r = p / (BK / V), c = (p % (BK / V)) * V;
            const bool ok = r < tl.rows && kc + c < bw;
            cp_async16(As + r * S::A_LD + c, ok ? (const void*)(a + r * bw + c) : (const void*)values, ok ? 16 : 0);
        }
        if (B_ROW) {
            for (int p = tid; p < BK * BN / V; p += THREADS) {
                const int r = p / (BN / V), c = (p % (BN / V)) * V;
                const i64 k = kcol0 + kc + r, j = tl.n0 + c;
                const i64 left = (kc + r < bw && k < K) ? N - j : 0;
                const int bytes = left <= 0 ? 0 : (left >= V ? 16 : (int)left * (int)sizeof(T));
                cp_async16(Bs + r * S::B_LD + c, bytes ? (const void*)(B + k * ldb + j) : (const void*)B, bytes);
            }
        } else {
            for (int p = tid; p < BN * BK / V; p += THREADS) {
                const int jn = p / (BK / V), c = (p % (BK / V)) * V;
                const i64 k = kcol0 + kc + c, j = tl.n0 + jn;
                i64 left = j < N ? min(bw - kc - c, K - k) : 0;
                const int bytes = left <= 0 ? 0 : (left >= V ? 16 : (int)left * (int)sizeof(T));
                cp_async16(Bs + jn * S::B_LD + c, bytes ? (const void*)(B + k + j * ldb) : (const void*)B, bytes);
            }
        }
    } else {
        const T zero = T(0.0f);
        for (int p = tid; p < BM * BK; p += THREADS) {
            const int r = p / BK, c = p % BK;
            As[r * S::A_LD + c] = (r < tl.rows && kc + c < bw) ? a[r * bw + c] : zero;
        }
        for (int p = tid; p < BK * BN; p += THREADS) {
            // B_ROW: consecutive threads take consecutive columns (coalesced), else rows.
            const int r = B_ROW ? p / BN : p % BK, c = B_ROW ? p % BN : p / BK;
            const i64 k = kcol0 + kc + r, j = tl.n0 + c;
            const bool ok = kc + r < bw && k < K && j < N;
            const T v = ok ? (B_ROW ? B[k * ldb + j] : B[k + j * ldb]) : zero;
            Bs[B_ROW ? r * S::B_LD + c : c * S::B_LD + r] = v;
        }
    }
}

// One step's products, f16/bf16: two k16 slices.
template <class T, bool B_ROW>
__device__ __forceinline__ void mma_step_half(const T* As, const T* Bs, int wm, int wn, int lane,
                                              float (&acc)[MT][NT][4]) {
    typedef Smem<T, B_ROW> S;
#pragma unroll
    for (int ks = 0; ks < S::BK; ks += 16) {
        unsigned a[MT][4], b[NT][2];
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)
            ldmatrix_x4(a[mi], As + (wm * 32 + mi * 16 + (lane & 15)) * S::A_LD + ks + (lane >> 4) * 8);
#pragma unroll
        for (int nj = 0; nj < NT; nj += 2) {
            unsigned r[4];
            if (B_ROW) {
                const int k = ks + (lane & 7) + ((lane >> 3) & 1) * 8;
                const int n = wn * WN + nj * 8 + (lane >> 4) * 8;
                ldmatrix_x4_trans(r, Bs + k * S::B_LD + n);
            } else {
                const int n = wn * WN + nj * 8 + (lane >> 4) * 8 + (lane & 7);
                const int k = ks + ((lane >> 3) & 1) * 8;
                ldmatrix_x4(r, Bs + n * S::B_LD + k);
            }
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

// One step's products, f32 inputs: two k8 slices, one TF32 product or three (split).
template <bool B_ROW, int MODE>
__device__ __forceinline__ void mma_step_tf32(const float* As, const float* Bs, int wm, int wn, int lane,
                                              float (&acc)[MT][NT][4]) {
    typedef Smem<float, B_ROW> S;
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int ks = 0; ks < S::BK; ks += 8) {
        unsigned ah[MT][4], al[MT][4], bh[NT][2], bl[NT][2];
#pragma unroll
        for (int mi = 0; mi < MT; ++mi) {
            const float* p = As + (wm * 32 + mi * 16 + g) * S::A_LD + ks + t;
            const float x[4] = {p[0], p[8 * S::A_LD], p[4], p[8 * S::A_LD + 4]};
#pragma unroll
            for (int q = 0; q < 4; ++q) {
                ah[mi][q] = to_tf32(x[q]);
                if (MODE == MODE_TF32X3) al[mi][q] = to_tf32(x[q] - __uint_as_float(ah[mi][q]));
            }
        }
#pragma unroll
        for (int ni = 0; ni < NT; ++ni) {
            const int n = wn * WN + ni * 8 + g;
            const float x[2] = {B_ROW ? Bs[(ks + t) * S::B_LD + n] : Bs[n * S::B_LD + ks + t],
                                B_ROW ? Bs[(ks + t + 4) * S::B_LD + n] : Bs[n * S::B_LD + ks + t + 4]};
#pragma unroll
            for (int q = 0; q < 2; ++q) {
                bh[ni][q] = to_tf32(x[q]);
                if (MODE == MODE_TF32X3) bl[ni][q] = to_tf32(x[q] - __uint_as_float(bh[ni][q]));
            }
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

template <class T, class Out, bool B_ROW, int MODE>
__device__ void spmm_vbr(const u64* __restrict__ tiles, i64 ntiles, i64 band, const u64* __restrict__ group_ptr,
                         const u64* __restrict__ block_ptr, const u64* __restrict__ block_col,
                         const u64* __restrict__ value_offset, const u64* __restrict__ perm,
                         const T* __restrict__ values, i64 bw, i64 K, i64 N, const T* __restrict__ B, i64 ldb,
                         Out* __restrict__ C, i64 ldc, int c_row, const float* alpha_dev, float alpha_host,
                         const float* beta_dev, float beta_host, int vec) {
    typedef Smem<T, B_ROW> S;
    __shared__ __align__(16) T As[STAGES][S::A_SIZE];
    __shared__ __align__(16) T Bs[STAGES][S::B_SIZE];
    const i64 ntn = (N + BN - 1) / BN;
    const Tile tl = locate(tiles, ntiles, ntn, band, group_ptr, block_ptr);
    const i64 chunks = (bw + S::BK - 1) / S::BK;
    const i64 steps = (tl.kb1 - tl.kb0) * chunks;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = warp >> 1, wn = warp & 1;

    float acc[MT][NT][4];
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < NT; ++ni)
#pragma unroll
            for (int q = 0; q < 4; ++q) acc[mi][ni][q] = 0.0f;

    // Prologue: STAGES - 1 steps in flight (a group is committed even when empty, so that
    // wait_group counts steps).
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (s < steps)
            load_step<T, B_ROW>(As[s], Bs[s], tl, s, chunks, bw, K, N, block_col, value_offset, values, B, ldb,
                                vec != 0);
        cp_async_commit();
    }
    for (i64 s = 0; s < steps; ++s) {
        cp_async_wait<STAGES - 2>();
        __syncthreads();  // step s is in smem for all; everyone is done with step s - 1's stage
        const i64 next = s + STAGES - 1;
        if (next < steps) {
            const int st = (int)(next % STAGES);
            load_step<T, B_ROW>(As[st], Bs[st], tl, next, chunks, bw, K, N, block_col, value_offset, values, B, ldb,
                                vec != 0);
        }
        cp_async_commit();
        const int st = (int)(s % STAGES);
        if constexpr (MODE == MODE_HALF)
            mma_step_half<T, B_ROW>(As[st], Bs[st], wm, wn, lane, acc);
        else
            mma_step_tf32<B_ROW, MODE>(As[st], Bs[st], wm, wn, lane, acc);
    }
    cp_async_wait<0>();

    const float alpha = scalar_arg(alpha_dev, alpha_host);
    const float beta = scalar_arg(beta_dev, beta_host);
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int r = wm * 32 + mi * 16 + half * 8 + g;
            if (r >= tl.rows) continue;
            const i64 row = (i64)perm[tl.row0 + r];
#pragma unroll
            for (int ni = 0; ni < NT; ++ni)
#pragma unroll
                for (int q = 0; q < 2; ++q) {
                    const i64 j = tl.n0 + wn * WN + ni * 8 + 2 * t + q;
                    if (j < N) axpby_store(C + (c_row ? row * ldc + j : row + j * ldc), acc[mi][ni][half * 2 + q], alpha, beta);
                }
        }
}

}  // namespace vbr

// Entry points: spblk_spmm_vbr_<mode>_<b layout>_<in>_<out>.
#define VBR_ENTRY(T, Out, mode, tin, tout, layout, b_row, MODE)                                              \
    extern "C" __global__ void __launch_bounds__(vbr::THREADS) spblk_spmm_vbr_##mode##_##layout##_##tin##_##tout( \
        const u64* tiles, i64 ntiles, i64 band, const u64* group_ptr, const u64* block_ptr, const u64* block_col, \
        const u64* value_offset, const u64* perm, const T* values, i64 bw, i64 K, i64 N, const T* B, i64 ldb,     \
        Out* C, i64 ldc, int c_row, const float* alpha_dev, float alpha, const float* beta_dev, float beta,     \
        int vec) {                                                                                              \
        vbr::spmm_vbr<T, Out, b_row, vbr::MODE>(tiles, ntiles, band, group_ptr, block_ptr, block_col,          \
                                                 value_offset, perm, values, bw, K, N, B, ldb, C, ldc, c_row,   \
                                                 alpha_dev, alpha, beta_dev, beta, vec);                        \
    }
#define VBR_LAYOUTS(T, Out, mode, tin, tout, MODE) \
    VBR_ENTRY(T, Out, mode, tin, tout, brow, true, MODE) VBR_ENTRY(T, Out, mode, tin, tout, bcol, false, MODE)

VBR_LAYOUTS(f16, float, tc, f16, f32, MODE_HALF)
VBR_LAYOUTS(f16, f16, tc, f16, f16, MODE_HALF)
VBR_LAYOUTS(bf16, float, tc, bf16, f32, MODE_HALF)
VBR_LAYOUTS(bf16, bf16, tc, bf16, bf16, MODE_HALF)
VBR_LAYOUTS(float, float, tf32, f32, f32, MODE_TF32)
VBR_LAYOUTS(float, float, tf32x3, f32, f32, MODE_TF32X3)
