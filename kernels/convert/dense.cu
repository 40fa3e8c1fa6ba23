// Dense transpose of a column-major operand into a row-major copy in the workspace, so that
// the product kernels read it with unit stride. SpMM reads op(B) row by row; with B
// effectively column-major every lane read it with stride ldb, 10-30x slower than the
// row-major call (docs/spmm.md, layouts).
#include "common/types.cuh"

// Moves an (a x b) matrix through 32 x 32 shared-memory tiles, one tile per step of a block
// of 256 threads (8 rows of 32 lanes): load(a, b) is read with lanes on consecutive a (the
// source's contiguous index), store(a, b, value) is called with lanes on consecutive b (the
// destination's), so both sides coalesce. The tile is padded by one column (no bank conflicts
// for 4-byte words).
template <class T, class Load, class Store>
__device__ __forceinline__ void through_tiles(i64 a_len, i64 b_len, Load load, Store store) {
    __shared__ T tile[32][33];
    const int lane = threadIdx.x & 31, row = threadIdx.x >> 5;
    const i64 tiles_a = (a_len + 31) / 32, tiles = tiles_a * ((b_len + 31) / 32);
    for (i64 t = blockIdx.x; t < tiles; t += gridDim.x) {  // uniform over the block
        const i64 a0 = (t % tiles_a) * 32, b0 = (t / tiles_a) * 32;
        for (int y = row; y < 32; y += 8) {
            if (a0 + lane < a_len && b0 + y < b_len) tile[y][lane] = load(a0 + lane, b0 + y);
        }
        __syncthreads();
        for (int y = row; y < 32; y += 8) {
            if (a0 + y < a_len && b0 + lane < b_len) store(a0 + y, b0 + lane, tile[lane][y]);
        }
        __syncthreads();  // the tile is reused by the next step
    }
}

// dst[k * ldd + j] = src[k + j * lds] for k < rows, j < cols. Raw words: the values are
// copied, not converted.
template <class W>
__device__ void dense_transpose(i64 rows, i64 cols, const W* __restrict__ src, i64 lds, W* __restrict__ dst,
                                i64 ldd) {
    through_tiles<W>(
        rows, cols, [&](i64 k, i64 j) { return src[k + j * lds]; },
        [&](i64 k, i64 j, W v) { dst[k * ldd + j] = v; });
}

#define DENSE_TRANSPOSE_ENTRY(W, tag)                                                                        \
    extern "C" __global__ void __launch_bounds__(256)                                                      \
        spblk_dense_transpose_##tag(i64 rows, i64 cols, const W* src, i64 lds, W* dst, i64 ldd) {          \
        dense_transpose<W>(rows, cols, src, lds, dst, ldd);                                                \
    }
DENSE_TRANSPOSE_ENTRY(unsigned short, b16)
DENSE_TRANSPOSE_ENTRY(unsigned, b32)
DENSE_TRANSPOSE_ENTRY(unsigned long long, b64)

// C(i, j) at C[i + j*ldc] = alpha * W[i*ldw + j] + beta * C(i, j) (beta == 0: C is not read):
// a product computed row-major into the workspace W, in its compute type, written to a
// column-major C. The same arithmetic as the product kernels' own store (axpby_store of the
// same sum), so the result is bitwise the one a direct store would give.
template <class T, class Out>
__device__ void dense_axpby_transpose(i64 rows, i64 cols, const T* __restrict__ W, i64 ldw, Out* __restrict__ C,
                                      i64 ldc, const T* alpha_dev, T alpha_h, const T* beta_dev, T beta_h) {
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    through_tiles<T>(
        cols, rows, [&](i64 j, i64 i) { return W[i * ldw + j]; },
        [&](i64 j, i64 i, T v) { axpby_store(&C[i + j * ldc], v, alpha, beta); });
}

#define DENSE_AXPBY_T_ENTRY(T, Out, tag)                                                                     \
    extern "C" __global__ void __launch_bounds__(256) spblk_dense_axpby_transpose_##tag(                   \
        i64 rows, i64 cols, const T* W, i64 ldw, Out* C, i64 ldc, const T* alpha_dev, T alpha,            \
        const T* beta_dev, T beta) {                                                                       \
        dense_axpby_transpose<T, Out>(rows, cols, W, ldw, C, ldc, alpha_dev, alpha, beta_dev, beta);        \
    }
DENSE_AXPBY_T_ENTRY(float, float, f32)
DENSE_AXPBY_T_ENTRY(double, double, f64)
DENSE_AXPBY_T_ENTRY(float, f16, f16)
DENSE_AXPBY_T_ENTRY(float, bf16, bf16)
