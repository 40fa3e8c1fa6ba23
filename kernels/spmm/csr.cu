// CSR SpMM, C = alpha*A*op(B) + beta*C, A given as CSR of op(A).
//
// A group of G lanes (4..32) owns one row of A and a tile of G*VEC columns of C. The group
// loads the row's (column, value) pairs G at a time, coalesced, once per column tile, and
// broadcasts them with shuffles; each lane multiplies with its VEC consecutive elements of
// the B row. VEC = 4 is used when op(B) is effectively row-major and 4 consecutive elements
// are aligned (a float4 / 2 x double2 / 8-byte half4 load). Each C element is summed by
// one lane in the row's storage order: deterministic.
//
// Effective layouts: op(B)(k, j) is at B[k*ldb + j] when `b_row` is set, else B[k + j*ldb];
// C(i, j) is at C[i*ldc + j] when `c_row` is set, else C[i + j*ldc].
#include "common/warp.cuh"

template <class In, class T> struct Load4;
template <> struct Load4<float, float> {
    __device__ static __forceinline__ void run(const float* p, float* o) {
        float4 v = *reinterpret_cast<const float4*>(p);
        o[0] = v.x; o[1] = v.y; o[2] = v.z; o[3] = v.w;
    }
};
template <> struct Load4<double, double> {
    __device__ static __forceinline__ void run(const double* p, double* o) {
        double2 a = reinterpret_cast<const double2*>(p)[0], b = reinterpret_cast<const double2*>(p)[1];
        o[0] = a.x; o[1] = a.y; o[2] = b.x; o[3] = b.y;
    }
};
template <> struct Load4<f16, float> {
    __device__ static __forceinline__ void run(const f16* p, float* o) {
        uint2 raw = *reinterpret_cast<const uint2*>(p);
        float2 a = __half22float2(*reinterpret_cast<const __half2*>(&raw.x));
        float2 b = __half22float2(*reinterpret_cast<const __half2*>(&raw.y));
        o[0] = a.x; o[1] = a.y; o[2] = b.x; o[3] = b.y;
    }
};
template <> struct Load4<bf16, float> {
    __device__ static __forceinline__ void run(const bf16* p, float* o) {
        uint2 raw = *reinterpret_cast<const uint2*>(p);
        float2 a = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.x));
        float2 b = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&raw.y));
        o[0] = a.x; o[1] = a.y; o[2] = b.x; o[3] = b.y;
    }
};

template <class In, class Out, class I, int VEC>
__device__ void spmm_csr(i64 m, i64 n, const I* __restrict__ ptr, const I* __restrict__ col,
                         const In* __restrict__ val, i64 base, const In* __restrict__ B, i64 ldb, int b_row,
                         Out* __restrict__ C, i64 ldc, int c_row, const typename ComputeOf<In>::type* alpha_dev,
                         typename ComputeOf<In>::type alpha_h, const typename ComputeOf<In>::type* beta_dev,
                         typename ComputeOf<In>::type beta_h, int G) {
    typedef typename ComputeOf<In>::type T;
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const int glane = threadIdx.x & (G - 1);
    const unsigned gmask = group_mask(G);
    const i64 tile_w = (i64)G * VEC;
    const i64 tiles = (n + tile_w - 1) / tile_w;
    const i64 groups = ((i64)gridDim.x * blockDim.x) / G;
    // Consecutive groups take consecutive column tiles of one row, so they share its entries
    // through L1.
    for (i64 g = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / G; g < m * tiles; g += groups) {
        const i64 i = g / tiles;
        const i64 j0 = (g - i * tiles) * tile_w + (i64)glane * VEC;
        const i64 s = (i64)ptr[i] - base, e = (i64)ptr[i + 1] - base;
        const bool vec = VEC == 4 && b_row && j0 + VEC <= n;
        T acc[VEC];
#pragma unroll
        for (int v = 0; v < VEC; ++v) acc[v] = 0;
        for (i64 p0 = s; p0 < e; p0 += G) {
            i64 kc = 0;
            T a = 0;
            if (p0 + glane < e) {
                kc = (i64)col[p0 + glane] - base;
                a = to_compute(val[p0 + glane]);
            }
            const int cnt = e - p0 < G ? (int)(e - p0) : G;
            for (int u = 0; u < cnt; ++u) {
                const i64 k = __shfl_sync(gmask, kc, u, G);
                const T av = __shfl_sync(gmask, a, u, G);
                T b[VEC];
                if (vec) {
                    Load4<In, T>::run(B + k * ldb + j0, b);
                } else {
#pragma unroll
                    for (int v = 0; v < VEC; ++v) {
                        const i64 j = j0 + v;
                        b[v] = j < n ? to_compute(b_row ? B[k * ldb + j] : B[k + j * ldb]) : T(0);
                    }
                }
#pragma unroll
                for (int v = 0; v < VEC; ++v) acc[v] += av * b[v];
            }
        }
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
            const i64 j = j0 + v;
            if (j < n) axpby_store(c_row ? &C[i * ldc + j] : &C[i + j * ldc], acc[v], alpha, beta);
        }
    }
}

#define SPMM_ENTRY_V(In, Out, tin, tout, I, tidx, VEC)                                                   \
    extern "C" __global__ void spblk_spmm_csr_v##VEC##_##tin##_##tout##_##tidx(                          \
        i64 m, i64 n, const I* ptr, const I* col, const In* val, i64 base, const In* B, i64 ldb,         \
        int b_row, Out* C, i64 ldc, int c_row, const ComputeOf<In>::type* alpha_dev,                     \
        ComputeOf<In>::type alpha, const ComputeOf<In>::type* beta_dev, ComputeOf<In>::type beta,        \
        int G) {                                                                                         \
        spmm_csr<In, Out, I, VEC>(m, n, ptr, col, val, base, B, ldb, b_row, C, ldc, c_row, alpha_dev,    \
                                  alpha, beta_dev, beta, G);                                             \
    }
#define SPMM_ENTRY(In, Out, tin, tout, I, tidx) \
    SPMM_ENTRY_V(In, Out, tin, tout, I, tidx, 1) SPMM_ENTRY_V(In, Out, tin, tout, I, tidx, 4)

SPBLK_FOR_PRECISIONS(SPMM_ENTRY, int, i32)
SPBLK_FOR_PRECISIONS(SPMM_ENTRY, long long, i64)
