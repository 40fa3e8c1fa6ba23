// Incomplete Cholesky without fill (csric02; docs/factor.md), in place on the lower triangle of
// A's values (entries above the diagonal are neither read nor written), a warp per row: for
// each entry (i, k) below the diagonal, in column order, once row k is done:
//   l(i, k) = (a(i, k) - sum over j < k held by both rows of l(i, j) l(k, j)) / l(k, k),
// then l(i, i) = sqrt(|a(i, i) - sum over j < i of l(i, j)^2|). The lanes find the matching
// entries and multiply; the sums are added one term at a time in column order, rounded as the
// host reference rounds: the same bits as the host, every run. A missing l(k, k) reads as one;
// a pivot a(i, i) - sum <= 0 is recorded (the first row).
#include "factor/rows.cuh"

// Adds, in column order, the products l(i, p) * w(p) of row i's entries p in [s, q) for which
// the lane found a partner (`hit`): the same sum in every lane.
template <class T> __device__ __forceinline__ T ic0_ordered_sum(u32 count, T prod, bool hit, T sum) {
    for (u32 t = 0; t < count; ++t) {
        const T pt = __shfl_sync(SPBLK_FULL_MASK, prod, t);
        if (__shfl_sync(SPBLK_FULL_MASK, (int)hit, t)) sum = add_rn(sum, pt);
    }
    return sum;
}

// The sum over j < k of l(i, j) l(k, j): row i's entries [s, q) against row k's lower part
// (the segment of `d`), both with ascending columns. Its first chunk comes loaded.
template <class T>
__device__ __forceinline__ T ic0_dot(u32 s, u32 q, const FactorDep& d, T first_value, const int* col, int base,
                                     const T* val) {
    const int lane = threadIdx.x & 31;
    T sum = T(0);
    for (u32 p0 = s; p0 < q; p0 += 32) {
        const u32 p = p0 + lane;
        const bool mine = p < q;
        const u32 j = mine ? (u32)(col[p] - base) : FACTOR_NONE - 1;
        const T lij = mine ? val[p] : T(0);
        T prod = T(0);
        bool hit = false;
        for (u32 c0 = d.from; c0 < d.to; c0 += 32) {
            const bool first = c0 == d.from;
            const u32 cj = first ? d.first_col : factor_column(c0 + lane, d.to, col, base);
            const T lk = first ? first_value : factor_value(c0 + lane, d.to, val);
            const u32 count = min(32u, d.to - c0);
            for (u32 t = 0; t < count; ++t) {
                const u32 ct = __shfl_sync(SPBLK_FULL_MASK, cj, t);
                const T vt = __shfl_sync(SPBLK_FULL_MASK, lk, t);
                if (j == ct) {
                    prod = mul_rn(lij, vt);
                    hit = true;
                }
            }
        }
        sum = ic0_ordered_sum(min(32u, q - p0), prod, hit, sum);
    }
    return sum;
}

template <class T>
__device__ void ic0_rows(u32 n, const int* ptr, const int* col, int base, T* val, const u32* diag, const u32* split,
                         const u32* order, u32* done, u32* counters) {
    const int lane = threadIdx.x & 31;
    for (u32 t = factor_ticket(counters); t < n; t = factor_ticket(counters)) {
        const u32 i = order[t];
        const u32 s = (u32)(ptr[i] - base), lower_end = split[i];
        for (u32 q = s; q < lower_end; ++q) {
            FactorDep d;
            d.k = (u32)(col[q] - base);
            d.dk = diag[d.k];
            d.from = (u32)(ptr[d.k] - base);
            d.to = split[d.k];
            d.first_col = factor_column(d.from + lane, d.to, col, base);
            factor_wait(done, d.k);
            const T lkk = d.dk == FACTOR_NONE ? T(1) : factor_read(val + d.dk);
            const T dot = ic0_dot(s, q, d, factor_value(d.from + lane, d.to, val), col, base, val);
            if (lane == (int)((q - s) % 32)) val[q] = add_rn(val[q], -dot) / lkk;
            __syncwarp();
        }
        const u32 di = diag[i];
        if (di != FACTOR_NONE) {
            T squares = T(0);
            for (u32 p0 = s; p0 < lower_end; p0 += 32) {
                const u32 p = p0 + lane;
                const T lij = p < lower_end ? val[p] : T(0);
                squares = ic0_ordered_sum(min(32u, lower_end - p0), mul_rn(lij, lij), true, squares);
            }
            if (lane == (int)((di - s) % 32)) {
                const T d = add_rn(val[di], -squares);
                val[di] = sqrt(fabs(d));
                if (d <= T(0)) atomicMin(&counters[1], i);
            }
        }
        factor_publish(done, i);
    }
}

#define IC0_ENTRY(T, tval)                                                                                       \
    extern "C" __global__ void __launch_bounds__(128)                                                            \
        spblk_ic0_##tval(u32 n, const int* ptr, const int* col, int base, T* val, const u32* diag, const u32* split, \
                         const u32* order, u32* done, u32* counters) {                                           \
        ic0_rows<T>(n, ptr, col, base, val, diag, split, order, done, counters);                                 \
    }

IC0_ENTRY(float, f32)
IC0_ENTRY(double, f64)
