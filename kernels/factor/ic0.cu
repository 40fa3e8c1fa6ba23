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

// Row i's diagonal: l(i, i) = sqrt(|a(i, i) - sum of squares|), recorded if not positive.
template <class T> __device__ __forceinline__ void ic0_diagonal(u32 i, u32 di, T squares, T* val, u32* counters) {
    const T d = add_rn(val[di], -squares);
    val[di] = sqrt(fabs(d));
    if (d <= T(0)) atomicMin(&counters[1], i);
}

// A short row, in a lane's registers (as ILU0's, ilu0.cu): the lower entries' rows k are
// waited for together; for each entry in column order, row k's lower part is walked in column
// order, so the products are added in the order the warp adds them.
template <class T> struct Ic0Lane {
    u32 i, s, lower;
    u32 c[FACTOR_LANE_ROW], dk[FACTOR_LANE_ROW], from[FACTOR_LANE_ROW], to[FACTOR_LANE_ROW];
    T v[FACTOR_LANE_ROW];

    __device__ __forceinline__ void load(u32 row, const int* ptr, const int* col, int base, const T* val,
                                         const u32* diag, const u32* split) {
        i = row;
        s = (u32)(ptr[i] - base);
        lower = split[i] - s;
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            dk[m] = from[m] = to[m] = 0;
            c[m] = m < lower ? (u32)(col[s + m] - base) : FACTOR_NONE;
            v[m] = m < lower ? val[s + m] : T(0);
        }
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < lower) {
                dk[m] = diag[c[m]];
                from[m] = (u32)(ptr[c[m]] - base);
                to[m] = split[c[m]];
                factor_prefetch(col + from[m]);
            }
        }
    }

    __device__ __forceinline__ void factor(const int* col, int base, T* val, const u32* diag, u32* done,
                                           u32* counters) {
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < lower) {
                factor_prefetch(val + from[m]);
                if (dk[m] != FACTOR_NONE) factor_prefetch(val + dk[m]);
            }
        }
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < lower) {
                const T lkk = dk[m] == FACTOR_NONE ? T(1) : val[dk[m]];
                T sum = T(0);
                for (u32 p = from[m]; p < to[m]; ++p) {
                    const u32 j = (u32)(col[p] - base);
                    const T lk = val[p];
#pragma unroll
                    for (u32 r = 0; r < m; ++r) {
                        if (c[r] == j) sum = add_rn(sum, mul_rn(v[r], lk));
                    }
                }
                v[m] = add_rn(v[m], -sum) / lkk;
            }
        }
        T squares = T(0);
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < lower) {
                val[s + m] = v[m];
                squares = add_rn(squares, mul_rn(v[m], v[m]));
            }
        }
        const u32 di = diag[i];
        if (di != FACTOR_NONE) ic0_diagonal(i, di, squares, val, counters);
        factor_publish_lane(done, i);
    }
};

// A ticket of short rows (as ilu0_lanes).
template <class T>
__device__ void ic0_lanes(u32 first, u32 count, const int* ptr, const int* col, int base, T* val, const u32* diag,
                          const u32* split, const u32* order, u32* done, u32* counters) {
    const u32 lane = threadIdx.x & 31;
    Ic0Lane<T> row;
    bool pending = lane < count;
    if (pending) row.load(order[first + lane], ptr, col, base, val, diag, split);
    while (__any_sync(SPBLK_FULL_MASK, pending)) {
        bool moved = false;
        if (pending && factor_all_done(done, row.c, row.lower)) {
            row.factor(col, base, val, diag, done, counters);
            pending = false;
            moved = true;
        }
        if (!__any_sync(SPBLK_FULL_MASK, moved)) __nanosleep(64);
    }
}

// A long row (a ticket of its own), a warp.
template <class T>
__device__ void ic0_warp(u32 i, const int* ptr, const int* col, int base, T* val, const u32* diag, const u32* split,
                         u32* done, u32* counters) {
    const int lane = threadIdx.x & 31;
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
        if (lane == (int)((di - s) % 32)) ic0_diagonal(i, di, squares, val, counters);
    }
    factor_publish(done, i);
}

template <class T>
__device__ void ic0_rows(const int* ptr, const int* col, int base, T* val, const u32* diag, const u32* split,
                         const u32* order, const u32* ticket_pos, u32* done, u32* counters) {
    const u32 tickets = counters[2];
    for (u32 t = factor_ticket(counters); t < tickets; t = factor_ticket(counters)) {
        const u32 first = ticket_pos[t], count = ticket_pos[t + 1] - first, i = order[first];
        if (factor_row_length(i, ptr, split, base, 1) > FACTOR_LANE_ROW) {
            ic0_warp(i, ptr, col, base, val, diag, split, done, counters);
        } else {
            ic0_lanes(first, count, ptr, col, base, val, diag, split, order, done, counters);
        }
    }
}

#define IC0_ENTRY(T, tval)                                                                                       \
    extern "C" __global__ void __launch_bounds__(128)                                                            \
        spblk_ic0_##tval(const int* ptr, const int* col, int base, T* val, const u32* diag, const u32* split,    \
                         const u32* order, const u32* ticket_pos, u32* done, u32* counters) {                    \
        ic0_rows<T>(ptr, col, base, val, diag, split, order, ticket_pos, done, counters);                        \
    }

IC0_ENTRY(float, f32)
IC0_ENTRY(double, f64)
