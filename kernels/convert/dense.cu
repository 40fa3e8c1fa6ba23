// Dense transpose of a column-major operand into a row-major copy in the workspace, so that
// the product kernels read it with unit stride. SpMM reads op(B) row by row; with B
// effectively column-major every lane read it with stride ldb, 10-30x slower than the
// row-major call (docs/spmm.md, layouts).
#include "common/types.cuh"

// dst[k * ldd + j] = src[k + j * lds] for k < rows, j < cols. One 32 x 32 tile per step of a
// block of 256 threads (8 rows of 32 lanes): lanes read 32 consecutive k of a column and
// write 32 consecutive j of a row, through a shared tile padded by one column (no bank
// conflicts for 4-byte words). Raw words: the values are copied, not converted.
template <class W>
__device__ void dense_transpose(i64 rows, i64 cols, const W* __restrict__ src, i64 lds, W* __restrict__ dst,
                                i64 ldd) {
    __shared__ W tile[32][33];
    const int lane = threadIdx.x & 31, row = threadIdx.x >> 5;
    const i64 tiles_k = (rows + 31) / 32, tiles = tiles_k * ((cols + 31) / 32);
    for (i64 t = blockIdx.x; t < tiles; t += gridDim.x) {  // uniform over the block
        const i64 k0 = (t % tiles_k) * 32, j0 = (t / tiles_k) * 32;
        for (int y = row; y < 32; y += 8) {
            const i64 k = k0 + lane, j = j0 + y;
            if (k < rows && j < cols) tile[y][lane] = src[k + j * lds];
        }
        __syncthreads();
        for (int y = row; y < 32; y += 8) {
            const i64 k = k0 + y, j = j0 + lane;
            if (k < rows && j < cols) dst[k * ldd + j] = tile[lane][y];
        }
        __syncthreads();  // the tile is reused by the next step
    }
}

// C(i, j) at C[i + j*ldc] = alpha * W[i*ldw + j] + beta * C(i, j) (beta == 0: C is not read):
// a product computed row-major into the workspace W, in its compute type, written to a
// column-major C. The same arithmetic as the product kernels' own store (axpby_store of the
// same sum), so the result is bitwise the one a direct store would give. Lanes read 32
// consecutive j of a row of W and write 32 consecutive i of a column of C.
template <class T, class Out>
__device__ void dense_axpby_transpose(i64 rows, i64 cols, const T* __restrict__ W, i64 ldw, Out* __restrict__ C,
                                      i64 ldc, const T* alpha_dev, T alpha_h, const T* beta_dev, T beta_h) {
    __shared__ T tile[32][33];
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const int lane = threadIdx.x & 31, row = threadIdx.x >> 5;
    const i64 tiles_i = (rows + 31) / 32, tiles = tiles_i * ((cols + 31) / 32);
    for (i64 t = blockIdx.x; t < tiles; t += gridDim.x) {  // uniform over the block
        const i64 i0 = (t % tiles_i) * 32, j0 = (t / tiles_i) * 32;
        for (int y = row; y < 32; y += 8) {
            const i64 i = i0 + y, j = j0 + lane;
            if (i < rows && j < cols) tile[y][lane] = W[i * ldw + j];
        }
        __syncthreads();
        for (int y = row; y < 32; y += 8) {
            const i64 i = i0 + lane, j = j0 + y;
            if (i < rows && j < cols) axpby_store(&C[i + j * ldc], tile[lane][y], alpha, beta);
        }
        __syncthreads();  // the tile is reused by the next step
    }
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

#define DENSE_TRANSPOSE_ENTRY(W, tag)                                                                        \
    extern "C" __global__ void __launch_bounds__(256)                                                      \
        spblk_dense_transpose_##tag(i64 rows, i64 cols, const W* src, i64 lds, W* dst, i64 ldd) {          \
        dense_transpose<W>(rows, cols, src, lds, dst, ldd);                                                \
    }
DENSE_TRANSPOSE_ENTRY(unsigned short, b16)
DENSE_TRANSPOSE_ENTRY(unsigned, b32)
DENSE_TRANSPOSE_ENTRY(unsigned long long, b64)
