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

namespace vbr {

constexpr int BM = 64;
constexpr int WM = 32, WN = 64;  // a warp's tile of C
constexpr int MT = WM / 16;      // m16 tiles per warp
constexpr int NT = WN / 8;       // n8 tiles per warp

enum Mode { MODE_HALF = 0, MODE_TF32 = 1, MODE_TF32X3 = 2 };

// BK: K depth of one pipeline step (a multiple of the mma's k). Row pitches are padded so that
// the 8 rows a fragment read touches fall in distinct banks: K-contiguous rows of BK + PAD_K
// elements (80 bytes), N-contiguous rows of BN + 8.
template <class T> struct Depth {
    static constexpr int BK = 32, PAD_K = 8;
};
template <> struct Depth<float> {
    static constexpr int BK = 16, PAD_K = 4;
};

// Shared-memory layout of one stage; the host computes the same size (src/backend/cuda/vbr.rs,
// `smem_bytes`), and the kernel traps if it was given less.
template <class T, bool B_ROW, int WARPS_N> struct Smem {
    static constexpr int BN = WN * WARPS_N;
    static constexpr int THREADS = 64 * WARPS_N;
    static constexpr int BK = Depth<T>::BK;
    static constexpr int V = 16 / sizeof(T);  // elements per 16-byte copy
    static constexpr int A_LD = BK + Depth<T>::PAD_K;
    static constexpr int B_LD = B_ROW ? BN + 8 : BK + Depth<T>::PAD_K;
    static constexpr int A_SIZE = BM * A_LD;
    static constexpr int B_SIZE = B_ROW ? BK * B_LD : BN * B_LD;
    static constexpr int STAGE = A_SIZE + B_SIZE;
    static constexpr int A_COPIES = BM * BK / V / THREADS;  // 16-byte copies per thread
    static constexpr int B_COPIES = BK * BN / V / THREADS;
    static_assert(A_COPIES * V * THREADS == BM * BK && B_COPIES * V * THREADS == BK * BN, "copies");
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

// Where one thread block works: its row tile (group rows [row0, row0 + rows), the first at
// `rel0` inside the group) and the group's block range, and its column tile from n0.
struct Tile {
    i64 row0, rel0, kb0, kb1, n0;
    int rows;
};

// Column tiles are grouped in bands of `band` tiles; within a band, consecutive blocks take
// the band's column tiles of one row tile. The band's slice of B (K x band*BN) stays in L2
// while all row tiles pass, and A is read once per band.
__device__ __forceinline__ Tile locate(const u64* __restrict__ tiles, i64 ntiles, i64 ntn, i64 band, int bn,
                                       const u64* __restrict__ group_ptr, const u64* __restrict__ block_ptr) {
    const i64 bid = blockIdx.x;
    const i64 b = bid / (ntiles * band);
    const i64 width = min(band, ntn - b * band);
    const i64 rem = bid - b * ntiles * band;
    const i64 t = rem / width;
    Tile r;
    r.n0 = (b * band + rem % width) * bn;
    const i64 g = (i64)tiles[2 * t];
    r.row0 = (i64)tiles[2 * t + 1];
    const i64 g0 = (i64)group_ptr[g], g1 = (i64)group_ptr[g + 1];
    r.rel0 = r.row0 - g0;
    r.rows = (int)min((i64)BM, g1 - r.row0);
    r.kb0 = (i64)block_ptr[g];
    r.kb1 = (i64)block_ptr[g + 1];
    return r;
}

// A thread's share of a step's copies: smem offsets and the fixed parts of the sources.
template <class T, bool B_ROW, int WARPS_N> struct Copies {
    typedef Smem<T, B_ROW, WARPS_N> S;
    int a_smem[S::A_COPIES], a_off[S::A_COPIES];  // a_off: row * bw + column in the step; -1: row out
    int a_col[S::A_COPIES];
    int b_smem[S::B_COPIES], b_k[S::B_COPIES], b_bytes[S::B_COPIES];  // b_k: k inside the step
    i64 b_off[S::B_COPIES];  // the column part of the source offset

    __device__ __forceinline__ void init(const Tile& tl, i64 bw, i64 N, i64 ldb) {
        const int tid = threadIdx.x;
#pragma unroll
        for (int i = 0; i < S::A_COPIES; ++i) {
            const int p = tid + i * S::THREADS;
            const int r = p / (S::BK / S::V), c = (p % (S::BK / S::V)) * S::V;
            a_smem[i] = r * S::A_LD + c;
            a_off[i] = r < tl.rows ? (int)(r * bw) + c : -1;
            a_col[i] = c;
        }
#pragma unroll
        for (int i = 0; i < S::B_COPIES; ++i) {
            const int p = tid + i * S::THREADS;
            if (B_ROW) {
                const int r = p / (S::BN / S::V), c = (p % (S::BN / S::V)) * S::V;
                const i64 left = N - (tl.n0 + c);
                b_smem[i] = r * S::B_LD + c;
                b_k[i] = r;
                b_bytes[i] = left <= 0 ? 0 : (left >= S::V ? 16 : (int)left * (int)sizeof(T));
                b_off[i] = tl.n0 + c;
            } else {
                const int jn = p / (S::BK / S::V), c = (p % (S::BK / S::V)) * S::V;
                b_smem[i] = jn * S::B_LD + c;
                b_k[i] = c;
                b_bytes[i] = tl.n0 + jn < N ? 16 : 0;  // narrowed per step by the K bounds
                b_off[i] = (tl.n0 + jn) * ldb;
            }
        }
    }
};

// Stages the K slice [kc, kc + BK) of block kb: 16-byte copies (zero-filled outside A's rows,
// the block's width, K, or N).
template <class T, bool B_ROW, int WARPS_N>
__device__ __forceinline__ void load_vec(T* As, T* Bs, const Copies<T, B_ROW, WARPS_N>& cp, const T* a, i64 kcol,
                                         int kc, i64 bw, i64 K, const T* __restrict__ B, i64 ldb) {
    typedef Smem<T, B_ROW, WARPS_N> S;
#pragma unroll
    for (int i = 0; i < S::A_COPIES; ++i) {
        const bool ok = cp.a_off[i] >= 0 && kc + cp.a_col[i] < bw;
        cp_async16(As + cp.a_smem[i], ok ? (const void*)(a + cp.a_off[i]) : (const void*)a, ok ? 16 : 0);
    }
#pragma unroll
    for (int i = 0; i < S::B_COPIES; ++i) {
        const i64 k = kcol + cp.b_k[i];  // kcol = first column of the step in A
        int bytes;
        const T* src;
        if (B_ROW) {
            bytes = (kc + cp.b_k[i] < bw && k < K) ? cp.b_bytes[i] : 0;
            src = B + k * ldb + cp.b_off[i];
        } else {
            const i64 left = min(bw - kc - cp.b_k[i], K - k);
            bytes = left <= 0 ? 0 : min(cp.b_bytes[i], (int)min(left, (i64)S::V) * (int)sizeof(T));
            src = B + cp.b_off[i] + k;
        }
        cp_async16(Bs + cp.b_smem[i], bytes ? (const void*)src : (const void*)B, bytes);
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
        As[r * S::A_LD + c] = (r < tl.rows && kc + c < bw) ? a[r * bw + c] : zero;
    }
    for (int p = threadIdx.x; p < S::BK * S::BN; p += S::THREADS) {
        // B_ROW: consecutive threads take consecutive columns (coalesced), else rows.
        const int r = B_ROW ? p / S::BN : p % S::BK, c = B_ROW ? p % S::BN : p / S::BK;
        const i64 k = kcol + r, j = tl.n0 + c;
        const bool ok = kc + r < bw && k < K && j < N;
        const T v = ok ? (B_ROW ? B[k * ldb + j] : B[k + j * ldb]) : zero;
        Bs[B_ROW ? r * S::B_LD + c : c * S::B_LD + r] = v;
    }
}

// One step's products, f16/bf16: BK / 16 slices of k16.
template <class T, bool B_ROW, int WARPS_N>
__device__ __forceinline__ void mma_step_half(const T* As, const T* Bs, int wm, int wn, int lane,
                                              float (&acc)[MT][NT][4]) {
    typedef Smem<T, B_ROW, WARPS_N> S;
#pragma unroll
    for (int ks = 0; ks < S::BK; ks += 16) {
        unsigned a[MT][4], b[NT][2];
#pragma unroll
        for (int mi = 0; mi < MT; ++mi)
            ldmatrix_x4(a[mi], As + (wm * WM + mi * 16 + (lane & 15)) * S::A_LD + ks + (lane >> 4) * 8);
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

template <class T, class Out, bool B_ROW, int MODE, int WARPS_N, int STAGES>
__device__ void spmm_vbr(const u64* __restrict__ tiles, i64 ntiles, i64 band, const u64* __restrict__ group_ptr,
                         const u64* __restrict__ block_ptr, const u64* __restrict__ block_col,
                         const u64* __restrict__ value_offset, const u64* __restrict__ perm,
                         const T* __restrict__ values, i64 bw, i64 K, i64 N, const T* __restrict__ B, i64 ldb,
                         Out* __restrict__ C, i64 ldc, int c_row, const float* alpha_dev, float alpha_host,
                         const float* beta_dev, float beta_host, int vec) {
    typedef Smem<T, B_ROW, WARPS_N> S;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* smem = reinterpret_cast<T*>(smem_raw);
    unsigned smem_given;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(smem_given));
    if (smem_given < STAGES * S::STAGE * sizeof(T)) __trap();  // host and kernel layouts disagree

    const i64 ntn = (N + S::BN - 1) / S::BN;
    const Tile tl = locate(tiles, ntiles, ntn, band, S::BN, group_ptr, block_ptr);
    const int chunks = (int)((bw + S::BK - 1) / S::BK);
    const i64 steps = (tl.kb1 - tl.kb0) * chunks;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    Copies<T, B_ROW, WARPS_N> cp;
    if (vec) cp.init(tl, bw, N, ldb);

    float acc[MT][NT][4];
#pragma unroll
    for (int mi = 0; mi < MT; ++mi)
#pragma unroll
        for (int ni = 0; ni < NT; ++ni)
#pragma unroll
            for (int q = 0; q < 4; ++q) acc[mi][ni][q] = 0.0f;

    // The next step to load: block kb, K slice kc.
    i64 kb = tl.kb0;
    int kc = 0;
    auto load_next = [&](int stage) {
        T* As = smem + stage * S::STAGE;
        T* Bs = As + S::A_SIZE;
        const T* a = values + (i64)value_offset[kb] + tl.rel0 * bw + kc;
        const i64 kcol = (i64)block_col[kb] * bw + kc;
        if (vec)
            load_vec<T, B_ROW, WARPS_N>(As, Bs, cp, a, kcol, kc, bw, K, B, ldb);
        else
            load_scalar<T, B_ROW, WARPS_N>(As, Bs, tl, a, kcol, kc, bw, K, N, B, ldb);
        kc += S::BK;
        if (kc >= bw) {
            kc = 0;
            ++kb;
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
    for (i64 s = 0; s < steps; ++s) {
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

    const float alpha = scalar_arg(alpha_dev, alpha_host);
    const float beta = scalar_arg(beta_dev, beta_host);
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

}  // namespace vbr

// Entry points: spblk_spmm_vbr_<mode>_<b layout>_n<BN>_<in>_<out>. f16/bf16 come in 128- and
// 256-column tiles (the wider for large N: half the A traffic per flop), f32 in 128.
#define VBR_ENTRY(T, Out, mode, tin, tout, layout, b_row, MODE, WARPS_N, BN, STAGES, MIN_BLOCKS)              \
    extern "C" __global__ void __launch_bounds__(64 * WARPS_N, MIN_BLOCKS)                                    \
        spblk_spmm_vbr_##mode##_##layout##_n##BN##_##tin##_##tout(                                           \
            const u64* tiles, i64 ntiles, i64 band, const u64* group_ptr, const u64* block_ptr,              \
            const u64* block_col, const u64* value_offset, const u64* perm, const T* values, i64 bw, i64 K,   \
            i64 N, const T* B, i64 ldb, Out* C, i64 ldc, int c_row, const float* alpha_dev, float alpha,     \
            const float* beta_dev, float beta, int vec) {                                                    \
        vbr::spmm_vbr<T, Out, b_row, vbr::MODE, WARPS_N, STAGES>(tiles, ntiles, band, group_ptr, block_ptr,  \
                                                                 block_col, value_offset, perm, values, bw,  \
                                                                 K, N, B, ldb, C, ldc, c_row, alpha_dev,     \
                                                                 alpha, beta_dev, beta, vec);                \
    }
#define VBR_LAYOUTS(T, Out, mode, tin, tout, MODE, WARPS_N, BN, STAGES, MIN_BLOCKS)                       \
    VBR_ENTRY(T, Out, mode, tin, tout, brow, true, MODE, WARPS_N, BN, STAGES, MIN_BLOCKS)                 \
    VBR_ENTRY(T, Out, mode, tin, tout, bcol, false, MODE, WARPS_N, BN, STAGES, MIN_BLOCKS)
#define VBR_HALF(T, Out, tin, tout)                                 \
    VBR_LAYOUTS(T, Out, tc, tin, tout, MODE_HALF, 2, 128, 4, 4)     \
    VBR_LAYOUTS(T, Out, tc, tin, tout, MODE_HALF, 4, 256, 3, 2)

VBR_HALF(f16, float, f16, f32)
VBR_HALF(f16, f16, f16, f16)
VBR_HALF(bf16, float, bf16, f32)
VBR_HALF(bf16, bf16, bf16, bf16)
VBR_LAYOUTS(float, float, tf32, f32, f32, MODE_TF32, 2, 128, 4, 4)
VBR_LAYOUTS(float, float, tf32x3, f32, f32, MODE_TF32X3, 2, 128, 4, 3)
