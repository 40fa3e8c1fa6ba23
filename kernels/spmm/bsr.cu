// The legacy BSR products spblk{S,D}bsrmm and spblk{S,D}bsrmv (n = 1): C = alpha A op(B) +
// beta C, A in BSR with 32-bit indices, B and C column-major. One thread per element of C,
// consecutive threads down a column of C (coalesced writes; threads of one block row read the
// same elements of B). Each element sums its block row's blocks in storage order and each
// block's columns in order, every product and addition rounded (no FMA), as the host backend
// does. Offsets are clamped to nnzb and out-of-range block columns skipped: input the host
// backend would reject never reaches memory outside the arrays.
#include "common/types.cuh"

template <class T>
__device__ void bsrmm_rows(i64 mb, i64 kb, i64 nnzb, i64 bs, const int* ptr, const int* col, const T* val, i64 base,
                           int col_major_blocks, i64 n, const T* B, i64 ldb, int b_trans, T* C, i64 ldc,
                           const T* alpha_dev, T alpha_h, const T* beta_dev, T beta_h) {
    const T alpha = scalar_arg(alpha_dev, alpha_h), beta = scalar_arg(beta_dev, beta_h);
    const i64 m = mb * bs;
    GRID_STRIDE(t, (u64)(m * n)) {
        const i64 c = (i64)t / m, i = (i64)t % m, r = i / bs, ii = i % bs;
        const i64 k0 = min(max((i64)ptr[r] - base, (i64)0), nnzb);
        const i64 k1 = min(max((i64)ptr[r + 1] - base, k0), nnzb);
        // Element (ii, j) of block k is at k*bs*bs + ii*row_step + j*col_step.
        const i64 row_step = col_major_blocks ? 1 : bs, col_step = col_major_blocks ? bs : 1;
        T acc = T(0);
        for (i64 k = k0; k < k1; ++k) {
            const i64 bc = (i64)col[k] - base;
            if (bc < 0 || bc >= kb) continue;
            const T* blk = val + k * bs * bs + ii * row_step;
            for (i64 j = 0; j < bs; ++j) {
                const i64 row_b = bc * bs + j;
                const T x = b_trans ? B[c + row_b * ldb] : B[row_b + c * ldb];
                acc = add_rn(acc, mul_rn(blk[j * col_step], x));
            }
        }
        T out = mul_rn(alpha, acc);
        if (beta != T(0)) out = add_rn(out, mul_rn(beta, C[i + c * ldc]));
        C[i + c * ldc] = out;
    }
}

#define BSRMM_ROWS(T, tag)                                                                                    \
    extern "C" __global__ void __launch_bounds__(256) spblk_bsrmm_rows_##tag(                                 \
        i64 mb, i64 kb, i64 nnzb, i64 bs, const int* ptr, const int* col, const T* val, i64 base,              \
        int col_major_blocks, i64 n, const T* B, i64 ldb, int b_trans, T* C, i64 ldc, const T* alpha_dev,       \
        T alpha_h, const T* beta_dev, T beta_h) {                                                            \
        bsrmm_rows<T>(mb, kb, nnzb, bs, ptr, col, val, base, col_major_blocks, n, B, ldb, b_trans, C, ldc,     \
                      alpha_dev, alpha_h, beta_dev, beta_h);                                                 \
    }

BSRMM_ROWS(float, f32)
BSRMM_ROWS(double, f64)
