// Incomplete Cholesky without fill (csric02; docs/factor.md), in place on the lower triangle of
// A's values (entries above the diagonal are neither read nor written): for each entry (i, k)
// below the diagonal, in column order, once row k is published:
//   l(i, k) = (a(i, k) - sum over j < k held by both rows of l(i, j) l(k, j)) / l(k, k),
// then l(i, i) = sqrt(|a(i, i) - sum over j < i of l(i, j)^2|). The sums are added one term at
// a time in column order, rounded as the host reference rounds: the same bits as the host,
// every run. A missing l(k, k) reads as one; a pivot a(i, i) - sum <= 0 is recorded (the first
// row). Rows read their own values from `work` and publish into A (rows.cuh); a row's key is
// its diagonal, or without one its last lower entry.
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

// Row i's diagonal l(i, i) = sqrt(|a(i, i) - sum of squares|); recorded if not positive.
template <class T> __device__ __forceinline__ T ic0_diagonal(u32 i, T a, T squares, u32* counters) {
    const T d = add_rn(a, -squares);
    if (d <= T(0)) atomicMin(&counters[1], i);
    return sqrt(fabs(d));
}

// Where a reader of row k polls: its diagonal, else its last lower entry, else nothing
// (FACTOR_NONE: row k has nothing the reader needs).
__device__ __forceinline__ u32 ic0_key(u32 dk, u32 from, u32 to) {
    return dk != FACTOR_NONE ? dk : (from < to ? to - 1 : FACTOR_NONE);
}

// A short row, in a lane's registers (as ILU0's, ilu0.cu): the keys of its rows k and each
// row k's first lower entry that meets an earlier entry of row i (its `hit`) polled together;
// for each entry in column order, row k's lower part is walked in column order, so the
// products are added in the order the warp adds them.
template <class T> struct Ic0Lane {
    u32 i, s, lower, di, waiting, hits_waiting, sentry_bit, sentry_at;
    u32 c[FACTOR_LANE_ROW], key[FACTOR_LANE_ROW], from[FACTOR_LANE_ROW], to[FACTOR_LANE_ROW], hit[FACTOR_LANE_ROW];
    T v[FACTOR_LANE_ROW], lkk[FACTOR_LANE_ROW], hv[FACTOR_LANE_ROW], aii;

    __device__ __forceinline__ void load(u32 row, const int* ptr, const int* col, int base, const T* work,
                                         const u32* diag, const u32* split, const u32* position) {
        i = row;
        s = (u32)(ptr[i] - base);
        lower = split[i] - s;
        di = diag[i];
        aii = di != FACTOR_NONE ? work[di] : T(0);
        waiting = hits_waiting = sentry_bit = sentry_at = 0;
        u32 latest = 0;
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            key[m] = from[m] = to[m] = 0;
            hit[m] = FACTOR_NONE;
            lkk[m] = hv[m] = T(1);
            c[m] = m < lower ? (u32)(col[s + m] - base) : FACTOR_NONE;
            v[m] = m < lower ? work[s + m] : T(0);
        }
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < lower) {
                const u32 dk = diag[c[m]];
                from[m] = (u32)(ptr[c[m]] - base);
                to[m] = split[c[m]];
                key[m] = ic0_key(dk, from[m], to[m]);
                if (key[m] != FACTOR_NONE) {
                    waiting |= 1u << m;
                    // The row that comes last in the order is the one to poll first.
                    const u32 at = position[c[m]] + 1;
                    if (at > latest) {
                        latest = at;
                        sentry_bit = 1u << m;
                        sentry_at = key[m];
                    }
                }
                for (u32 p = from[m]; p < to[m]; ++p) {
                    if (meets(m, (u32)(col[p] - base))) {
                        hit[m] = p;
                        hits_waiting |= 1u << m;
                        break;
                    }
                }
            }
        }
    }

    // Whether column j is an entry of row i before its m-th.
    __device__ __forceinline__ bool meets(u32 m, u32 j) const {
        bool h = false;
#pragma unroll
        for (u32 r = 0; r < FACTOR_LANE_ROW; ++r) h = h || (r < m && c[r] == j);
        return h;
    }

    // Polls the key of the row that comes last in the order until it is published, then the keys
    // and hits not yet seen, together; true once every one is published.
    __device__ __forceinline__ bool ready(const T* out) {
        // One load a round while the wavefront is far: polling every dependency every round
        // kept L2 78 % busy with polls (ncu, session 23 run d).
        if ((waiting & sentry_bit) && Ready<T>::none(Ready<T>::load(out + sentry_at))) return false;
        typename Ready<T>::Bits b[FACTOR_LANE_ROW], h[FACTOR_LANE_ROW];
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            b[m] = (waiting >> m & 1) ? Ready<T>::load(out + key[m]) : 0;
            h[m] = (hits_waiting >> m & 1) ? Ready<T>::load(out + hit[m]) : 0;
        }
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if ((waiting >> m & 1) && !Ready<T>::none(b[m])) {
                // The key is the diagonal unless it lies in the lower part.
                if (key[m] >= to[m]) lkk[m] = Ready<T>::value(b[m]);
                waiting &= ~(1u << m);
            }
            if ((hits_waiting >> m & 1) && !Ready<T>::none(h[m])) {
                hv[m] = Ready<T>::value(h[m]);
                hits_waiting &= ~(1u << m);
            }
        }
        return (waiting | hits_waiting) == 0;
    }

    __device__ __forceinline__ void factor(const int* col, int base, T* out, u32* counters) {
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < lower) {
                T sum = T(0);
                for (u32 p = hit[m]; p < to[m]; ++p) {
                    const u32 j = (u32)(col[p] - base);
                    if (!meets(m, j)) continue;
                    const T lk = p == hit[m] ? hv[m] : factor_poll(out + p);
#pragma unroll
                    for (u32 r = 0; r < m; ++r) {
                        if (c[r] == j) sum = add_rn(sum, mul_rn(v[r], lk));
                    }
                }
                v[m] = add_rn(v[m], -sum) / lkk[m];
            }
        }
        // The lower entries in column order, then the diagonal: the key is stored last.
        T squares = T(0);
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < lower) {
                factor_publish(out + s + m, v[m]);
                squares = add_rn(squares, mul_rn(v[m], v[m]));
            }
        }
        if (di != FACTOR_NONE) factor_publish(out + di, ic0_diagonal(i, aii, squares, counters));
    }
};

// A ticket of short rows (as ilu0_lanes).
template <class T>
__device__ void ic0_lanes(u32 first, u32 count, const int* ptr, const int* col, int base, T* out, const T* work,
                          const u32* diag, const u32* split, const u32* order, const u32* position, u32* counters) {
    const u32 lane = threadIdx.x & 31;
    Ic0Lane<T> row;
    bool pending = lane < count;
    if (pending) row.load(order[first + lane], ptr, col, base, work, diag, split, position);
    u32 nap = 32;
    while (__any_sync(SPBLK_FULL_MASK, pending)) {
        bool moved = false;
        if (pending && row.ready(out)) {
            row.factor(col, base, out, counters);
            pending = false;
            moved = true;
        }
        if (__any_sync(SPBLK_FULL_MASK, moved)) {
            nap = 32;
        } else {
            __nanosleep(nap);
            nap = min(nap * 2, 256u);
        }
    }
}

// A long row (a ticket of its own), a warp. The lanes take 32 entries (i, k) at a time: each
// finds where row k's first IC0_AHEAD lower entries sit in row i before (i, k) (binary
// searches: both rows' columns ascend) and polls row k's values, all at once; the warp then
// takes the entries in order: the sum of products in column order (the lane's own first, the
// rest of a long row k found by the whole warp), l(i, k) by the entry's lane. (Scanning row i
// for every entry made a power-law hub row quadratic: 0.9 s, session 23.)
#define IC0_AHEAD 4

template <class T>
__device__ void ic0_warp(u32 i, const int* ptr, const int* col, int base, T* out, T* work, const u32* diag,
                         const u32* split, u32* counters) {
    const u32 lane = threadIdx.x & 31;
    const u32 s = (u32)(ptr[i] - base), lower_end = split[i];
    for (u32 q0 = s; q0 < lower_end; q0 += 32) {
        const u32 q = q0 + lane;
        u32 dk = FACTOR_NONE, from = 0, to = 0, at[IC0_AHEAD];
        if (q < lower_end) {
            const u32 k = (u32)(col[q] - base);
            dk = diag[k];
            from = (u32)(ptr[k] - base);
            to = split[k];
        }
#pragma unroll
        for (u32 a = 0; a < IC0_AHEAD; ++a) {
            at[a] = from + a < to ? factor_find(col, base, s, q, (u32)(col[from + a] - base)) : FACTOR_NONE;
        }
        const T lkk = dk == FACTOR_NONE ? T(1) : factor_poll(out + dk);
        T u[IC0_AHEAD];
#pragma unroll
        for (u32 a = 0; a < IC0_AHEAD; ++a) u[a] = at[a] == FACTOR_NONE ? T(0) : factor_poll(out + from + a);
        __syncwarp();
        const u32 count = min(32u, lower_end - q0);
        for (u32 t = 0; t < count; ++t) {
            T sum = T(0);
            if (lane == t) {
#pragma unroll
                for (u32 a = 0; a < IC0_AHEAD; ++a) {
                    if (at[a] != FACTOR_NONE) sum = add_rn(sum, mul_rn(work[at[a]], u[a]));
                }
            }
            sum = __shfl_sync(SPBLK_FULL_MASK, sum, t);
            const u32 rest = __shfl_sync(SPBLK_FULL_MASK, from + IC0_AHEAD, t);
            const u32 end = __shfl_sync(SPBLK_FULL_MASK, to, t);
            for (u32 c0 = rest; c0 < end; c0 += 32) {
                const u32 p = c0 + lane;
                const u32 pos = p < end ? factor_find(col, base, s, q0 + t, (u32)(col[p] - base)) : FACTOR_NONE;
                const T prod = pos != FACTOR_NONE ? mul_rn(work[pos], factor_poll(out + p)) : T(0);
                sum = ic0_ordered_sum(min(32u, end - c0), prod, pos != FACTOR_NONE, sum);
            }
            if (lane == t) work[q] = add_rn(work[q], -sum) / lkk;
            __syncwarp();
        }
    }
    const u32 di = diag[i];
    if (di != FACTOR_NONE) {
        T squares = T(0);
        for (u32 p0 = s; p0 < lower_end; p0 += 32) {
            const u32 p = p0 + lane;
            const T lij = p < lower_end ? work[p] : T(0);
            squares = ic0_ordered_sum(min(32u, lower_end - p0), mul_rn(lij, lij), true, squares);
        }
        if (lane == (di - s) % 32) work[di] = ic0_diagonal(i, work[di], squares, counters);
    }
    // The lower entries, then the key (the diagonal, or the last lower entry).
    const u32 key = ic0_key(di, s, lower_end);
    for (u32 p = s + lane; p < lower_end; p += 32) {
        if (p != key) factor_publish(out + p, work[p]);
    }
    __syncwarp();
    if (key != FACTOR_NONE && lane == 0) factor_publish(out + key, work[key]);
}

template <class T>
__device__ void ic0_rows(const int* ptr, const int* col, int base, T* out, T* work, const u32* diag, const u32* split,
                         const u32* order, const u32* position, const u32* ticket_pos, u32* counters) {
    const u32 tickets = counters[2];
    for (u32 t = factor_ticket(counters); t < tickets; t = factor_ticket(counters)) {
        const u32 first = ticket_pos[t], count = ticket_pos[t + 1] - first, i = order[first];
        if (factor_row_length(i, ptr, split, base, 1) > FACTOR_LANE_ROW) {
            ic0_warp(i, ptr, col, base, out, work, diag, split, counters);
        } else {
            ic0_lanes(first, count, ptr, col, base, out, work, diag, split, order, position, counters);
        }
    }
}

#define IC0_ENTRY(T, tval)                                                                                       \
    extern "C" __global__ void __launch_bounds__(128)                                                            \
        spblk_ic0_##tval(const int* ptr, const int* col, int base, T* val, T* work, const u32* diag,             \
                         const u32* split, const u32* order, const u32* position, const u32* ticket_pos,        \
                         u32* counters) {                                                                        \
        ic0_rows<T>(ptr, col, base, val, work, diag, split, order, position, ticket_pos, counters);              \
    }

IC0_ENTRY(float, f32)
IC0_ENTRY(double, f64)
