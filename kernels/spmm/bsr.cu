// Products with a BSR matrix: C = alpha A op(B) + beta C, for the legacy spblk{S,D}bsrmm and
// bsrmv and for SpMM and SpMV (n = 1) on BSR descriptors. B and C are addressed by element
// strides (rs, cs), so either storage order and op(B) = Bᵀ are one kernel. One thread per
// element of C, consecutive threads down a column of C (threads of one block row read the same
// elements of B). Each element sums its block row's blocks in storage order and each block's
// columns in order, every product and addition rounded in the compute type (no FMA), as the
// host backend does. Offsets are clamped to nnzb and out-of-range block columns skipped: input
// the host backend would reject never reaches memory outside the arrays.
#include "common/types.cuh"

template <class In, class Out, class I>
__device__ void bsr_rows(i64 mb, i64 kb, i64 nnzb, i64 bs, const I* ptr, const I* col, const In* val, i64 base,
                         int col_major_blocks, i64 n, const In* B, i64 b_rs, i64 b_cs, Out* C, i64 c_rs, i64 c_cs,
                         const typename ComputeOf<In>::type* alpha_dev, typename ComputeOf<In>::type alpha_h,
                         const typename ComputeOf<In>::type* beta_dev, typename ComputeOf<In>::type beta_h) {
    typedef typename ComputeOf<In>::type T;
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
            const In* blk = val + k * bs * bs + ii * row_step;
            const In* x = B + bc * bs * b_rs + c * b_cs;
            for (i64 j = 0; j < bs; ++j) acc = add_rn(acc, mul_rn(to_compute(blk[j * col_step]), to_compute(x[j * b_rs])));
        }
        Out* dst = C + i * c_rs + c * c_cs;
        T out = mul_rn(alpha, acc);
        if (beta != T(0)) out = add_rn(out, mul_rn(beta, to_compute(*dst)));
        *dst = Store<Out>::from(out);
    }
}

#define BSR_ROWS(In, Out, tin, tout, I, tidx)                                                                  \
    extern "C" __global__ void __launch_bounds__(256) spblk_bsrmm_rows_##tin##_##tout##_##tidx(               \
        i64 mb, i64 kb, i64 nnzb, i64 bs, const I* ptr, const I* col, const In* val, i64 base,                  \
        int col_major_blocks, i64 n, const In* B, i64 b_rs, i64 b_cs, Out* C, i64 c_rs, i64 c_cs,               \
        const ComputeOf<In>::type* alpha_dev, ComputeOf<In>::type alpha_h, const ComputeOf<In>::type* beta_dev, \
        ComputeOf<In>::type beta_h) {                                                                        \
        bsr_rows<In, Out, I>(mb, kb, nnzb, bs, ptr, col, val, base, col_major_blocks, n, B, b_rs, b_cs, C,    \
                             c_rs, c_cs, alpha_dev, alpha_h, beta_dev, beta_h);                              \
    }

SPBLK_FOR_PRECISIONS(BSR_ROWS, int, i32)
SPBLK_FOR_PRECISIONS(BSR_ROWS, long long, i64)
