// What SpSV's two solves share (sync_free.cu on the whole GPU, one_block.cu in one thread block):
// the right-hand sides, the publication of a row, a row summed by a whole warp.
#ifndef SPBLK_SPSV_SOLVE_CUH
#define SPBLK_SPSV_SOLVE_CUH

#include "common/ready.cuh"

// Where a solve runs (tickets[2], set by the analysis: one_block.cu).
#define SPSV_SOLVE_GRID 0u
#define SPSV_SOLVE_BLOCK 1u

// The right-hand sides X and the solutions Y, n x cols each: element (i, j) at i * row + j * col.
// A ticket of the solve is (ticket of the rows, column): `at` picks a column. MANY = false is
// SpSV's case (one column, consecutive elements), compiled without the steps: they cost the
// f32 row kernel a fifth of its speed on Poisson 3-D (session 22, run b).
template <class T, bool MANY> struct SpsvColumns {
    const T* x;
    T* y;
    i64 x_row, x_col, y_row, y_col;
    u32 cols;
    __device__ __forceinline__ u32 count() const { return MANY ? cols : 1u; }
    __device__ __forceinline__ SpsvColumns at(u32 j) const {
        SpsvColumns c = *this;
        if (MANY) {
            c.x += (i64)j * x_col;
            c.y += (i64)j * y_col;
        }
        return c;
    }
    __device__ __forceinline__ T x_of(u32 row) const { return MANY ? x[(i64)row * x_row] : x[row]; }
    __device__ __forceinline__ T* y_at(u32 row) const { return MANY ? y + (i64)row * y_row : y + row; }
};

// y[row] = (alpha x[row] - sum) / diag, published (at position s) to the rows that wait on it.
template <class T, class R, bool MANY>
__device__ __forceinline__ T spsv_publish(u32 s, u32 row, T sum, T alpha, T xr, T d, int unit,
                                          const SpsvColumns<T, MANY>& xy, T* ready) {
    T r = add_rn(mul_rn(alpha, xr), -sum);
    if (!unit) r = r / d;
    r = R::publishable(r);
    *xy.y_at(row) = r;
    R::store(&ready[s], r);
    return r;
}


// Entries a lane holds in registers at a time: their `ready` words are polled together, so a
// row of up to this many entries waits one trip through L2 per poll, not one per entry.
#define SPSV_BATCH 8

// Loads the lane's entries q0, q0 + 32, ... (SPSV_BATCH of them; past `end` they read as
// waiting on nothing: column warp_first).
template <class T>
__device__ __forceinline__ void spsv_strided_batch(u32 q0, u32 end, u32 warp_first, const u32* __restrict__ col,
                                                   const T* __restrict__ val, u32* c, T* v) {
#pragma unroll
    for (int k = 0; k < SPSV_BATCH; ++k) {
        const u32 q = q0 + 32 * k;
        c[k] = q < end ? col[q] : warp_first;
        v[k] = q < end ? val[q] : T(0);
    }
}

// Adds val[q] * ready[col[q]] for the lane's entries q = first, first + 32, ... below end that
// wait on rows outside the warp (position < warp_first), in order, waiting for each. The next
// batch's entries load while this batch's rows are polled.
template <class T, class R>
__device__ __forceinline__ T spsv_strided_sum(u32 first, u32 end, u32 warp_first, const u32* __restrict__ col,
                                              const T* __restrict__ val, const T* ready) {
    T part = T(0);
    u32 c[SPSV_BATCH];
    T v[SPSV_BATCH];
    spsv_strided_batch(first, end, warp_first, col, val, c, v);
    for (u32 q0 = first; q0 < end; q0 += 32 * SPSV_BATCH) {
        typename R::Bits b[SPSV_BATCH];
#pragma unroll
        for (int k = 0; k < SPSV_BATCH; ++k)
            if (c[k] < warp_first) b[k] = R::load(&ready[c[k]]);
        u32 cn[SPSV_BATCH];
        T vn[SPSV_BATCH];
        spsv_strided_batch(q0 + 32 * SPSV_BATCH, end, warp_first, col, val, cn, vn);
#pragma unroll
        for (int k = 0; k < SPSV_BATCH; ++k) {
            if (c[k] >= warp_first) continue;
            while (R::none(b[k])) {
                __nanosleep(32);
                b[k] = R::load(&ready[c[k]]);
            }
            part = add_rn(part, mul_rn(v[k], R::value(b[k])));
        }
#pragma unroll
        for (int k = 0; k < SPSV_BATCH; ++k) {
            c[k] = cn[k];
            v[k] = vn[k];
        }
    }
    return part;
}

// The row at position s by the whole warp: lane t takes entries t, t + 32, ... in order, waiting
// for each one's row (all at earlier positions); the lanes' sums are added in a fixed tree.
template <class T, class R, bool MANY>
__device__ __forceinline__ void spsv_warp_row(u32 s, const u32* __restrict__ ptr, const u32* __restrict__ col,
                                              const T* __restrict__ val, const T* __restrict__ diag,
                                              const u32* __restrict__ row_of, int unit,
                                              const SpsvColumns<T, MANY>& xy, T* ready, T alpha) {
    const u32 row = row_of[s];
    const T xr = xy.x_of(row), d = diag[s];
    T sum = spsv_strided_sum<T, R>(ptr[s] + (threadIdx.x & 31), ptr[s + 1], s, col, val, ready);
    for (int o = 16; o > 0; o >>= 1) sum = add_rn(sum, __shfl_down_sync(SPBLK_FULL_MASK, sum, o));
    if ((threadIdx.x & 31) == 0) spsv_publish<T, R>(s, row, sum, alpha, xr, d, unit, xy, ready);
    __syncwarp();
}

// Rows with more entries than this get a ticket of their own, summed by the whole warp.
#define SPSV_LONG_ROW 32

__device__ __forceinline__ bool spsv_long(const u32* ptr, u32 s) { return ptr[s + 1] - ptr[s] > SPSV_LONG_ROW; }


#endif
