// Incomplete Cholesky without fill (csric02; docs/factor.md), in place on the lower triangle of
// A's values (entries above the diagonal are neither read nor written): for each entry (i, k)
// below the diagonal, in column order, once row k is published:
//   l(i, k) = (a(i, k) - sum over j < k held by both rows of l(i, j) l(k, j)) / l(k, k),
// then l(i, i) = sqrt(|a(i, i) - sum over j < i of l(i, j)^2|). The sums are added one term at
// a time in column order, rounded as the host reference rounds: the same bits as the host,
// every run. A missing l(k, k) reads as one; a pivot a(i, i) - sum <= 0 is recorded (the first
// row). Rows read their own values from `work` and publish into A (rows.cuh); a row's key is
// its diagonal, or without one its last lower entry.
#include "factor/staged.cuh"

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

// A short row, in a lane's registers (as ILU0's, ilu0.cu; rows.cuh, FactorPolls): the keys of
// its rows k and their hits polled together; for each entry in column order, row k's lower part
// is walked in column order, so the products are added in the order the warp adds them.
template <class T> struct Ic0Lane {
    u32 i, s, lower, di, diag_keys;
    u32 c[FACTOR_LANE_ROW], from[FACTOR_LANE_ROW], to[FACTOR_LANE_ROW];
    T v[FACTOR_LANE_ROW], aii;
    FactorPolls<T> polls;

    __device__ __forceinline__ void load(u32 row, const int* ptr, const int* col, int base, const T* work,
                                         const u32* diag, const u32* split, const u32* position) {
        i = row;
        s = (u32)(ptr[i] - base);
        lower = split[i] - s;
        di = diag[i];
        aii = di != FACTOR_NONE ? work[di] : T(0);
        diag_keys = 0;
        polls.clear();
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            from[m] = to[m] = 0;
            c[m] = m < lower ? (u32)(col[s + m] - base) : FACTOR_NONE;
            v[m] = m < lower ? work[s + m] : T(0);
        }
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < lower) {
                const u32 dk = diag[c[m]];
                from[m] = (u32)(ptr[c[m]] - base);
                to[m] = split[c[m]];
                const u32 key = ic0_key(dk, from[m], to[m]);
                if (key != FACTOR_NONE) polls.watch(m, key, position[c[m]]);
                if (dk != FACTOR_NONE) diag_keys |= 1u << m;
                polls.find_hit(m, from[m], to[m], col, base, [&](u32 j) { return meets(m, j); },
                               [&](u32 j) { return next(m, j); });
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

    // The row's smallest column above j among those `meets` tests (FACTOR_NONE: none).
    __device__ __forceinline__ u32 next(u32 m, u32 j) const {
        u32 n = FACTOR_NONE;
#pragma unroll
        for (u32 r = 0; r < FACTOR_LANE_ROW; ++r) n = n == FACTOR_NONE && r < m && c[r] > j ? c[r] : n;
        return n;
    }

    __device__ __forceinline__ void factor(const int* col, int base, T* out, u32* counters) {
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < lower) {
                // A missing l(k, k) reads as one (the key is then a lower entry, or none).
                const T lkk = (diag_keys >> m & 1) ? polls.kv[m] : T(1);
                T sum = T(0);
                factor_walk(polls.hit[m], to[m], col, base, [&](u32 j) { return next(m, j); }, [&](u32 p, u32 j) {
                    if (meets(m, j)) {
                        const T lk = polls.value(m, p, out);
#pragma unroll
                        for (u32 r = 0; r < m; ++r) {
                            if (c[r] == j) sum = add_rn(sum, mul_rn(v[r], lk));
                        }
                    }
                    return false;
                });
                v[m] = add_rn(v[m], -sum) / lkk;
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

template <class T>
__device__ void ic0_lanes(u32 first, u32 count, const int* ptr, const int* col, int base, T* out, const T* work,
                          const u32* diag, const u32* split, const u32* order, const u32* position, u32* counters) {
    Ic0Lane<T> row;
    const bool mine = (threadIdx.x & 31) < count;
    if (mine) row.load(order[first + (threadIdx.x & 31)], ptr, col, base, work, diag, split, position);
    factor_lanes(mine, [&] { return row.polls.ready(out); }, [&] { row.factor(col, base, out, counters); });
}

// A long row whose lower part is staged in shared memory (staged.cuh): for each entry (i, k) in
// column order, the products of the entries where row k's lower part meets row i before k,
// added in column order, then l(i, k) by the lane of the entry. Not inlined, as ILU0's.
template <class T>
__noinline__ __device__ void ic0_staged(u32 i, u32 s, u32 lower_end, FactorStage<T>& st, const int* ptr,
                                        const int* col, int base, T* out, const T* work, const u32* diag,
                                        const u32* split, u32* counters) {
    const u32 lane = threadIdx.x & 31, lower = lower_end - s;
    st.load(s, lower, col, base, work);
    T squares = T(0);
    for (u32 q0 = 0; q0 < lower; q0 += 32) {
        const u32 count = min(32u, lower - q0);
        const StagedDep<T> d(st, q0, count, diag, out, [&](u32 k, u32, u32& from, u32& items) {
            from = (u32)(ptr[k] - base);
            items = split[k] - from;
        });
        T sum = T(0);
        factor_staged_batch(
            st, q0, count, d.from, d.items, col, base, out, [&](u32 q, u32 j) { return st.find(0, q, j); },
            [&](u32 t, u32 x0, u32 x1, bool first, bool last) {
                if (first) sum = T(0);
                // The products where row k meets row i, compacted in column order, then added
                // by the dependency's lane alone: a chain of adds, not of shuffles.
                u32 n = 0;
                for (u32 xb = x0; xb < x1; xb += 32) {
                    const u32 x = xb + lane;
                    const u32 at = x < x1 ? st.pos[x] : FACTOR_NONE;
                    const u32 hits = __ballot_sync(SPBLK_FULL_MASK, at != FACTOR_NONE);
                    if (at != FACTOR_NONE) {
                        st.prod[n + __popc(hits & ((1u << lane) - 1))] = mul_rn(st.val[at], st.value(x, out));
                    }
                    n += __popc(hits);
                }
                __syncwarp();
                if (lane == t) {
                    for (u32 y = 0; y < n; ++y) sum = add_rn(sum, st.prod[y]);
                }
                if (last) {
                    T lt = T(0);
                    if (lane == t) {
                        lt = add_rn(st.val[q0 + t], -sum) / d.pivot(out);
                        st.val[q0 + t] = lt;
                    }
                    // The diagonal's sum of squares, in column order as the entries finish.
                    lt = __shfl_sync(SPBLK_FULL_MASK, lt, (int)t);
                    squares = add_rn(squares, mul_rn(lt, lt));
                }
                __syncwarp();
            });
    }
    const u32 di = diag[i];
    T dii = T(0);
    if (di != FACTOR_NONE && lane == 0) dii = ic0_diagonal(i, work[di], squares, counters);
    // The lower entries, then the key (the diagonal, or the last lower entry).
    const u32 key = ic0_key(di, s, lower_end);
    for (u32 x = lane; x < lower; x += 32) {
        if (s + x != key) factor_publish(out + s + x, st.val[x]);
    }
    __syncwarp();
    if (key != FACTOR_NONE && lane == 0) factor_publish(out + key, key == di ? dii : st.val[key - s]);
    __syncwarp();
}

// A long row (a ticket of its own), a warp: staged when its lower part fits. Else, in the work
// copy, the lanes take 32 entries (i, k) at a time: each finds where row k's first IC0_AHEAD
// lower entries sit in row i before (i, k) (binary searches: both rows' columns ascend) and
// polls row k's values, all at once; the warp then takes the entries in order: the sum of
// products in column order (the lane's own first, the rest of a long row k found by the whole
// warp), l(i, k) by the entry's lane. (Scanning row i for every entry made a power-law hub row
// quadratic: 0.9 s, session 23.)
#define IC0_AHEAD 4

template <class T>
__device__ void ic0_warp(u32 i, FactorStage<T>& st, const int* ptr, const int* col, int base, T* out, T* work,
                         const u32* diag, const u32* split, u32* counters) {
    const u32 lane = threadIdx.x & 31;
    const u32 s = (u32)(ptr[i] - base), lower_end = split[i];
    if (lower_end - s <= FACTOR_STAGE_ROW) {
        ic0_staged(i, s, lower_end, st, ptr, col, base, out, work, diag, split, counters);
        return;
    }
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
                sum = factor_ordered_sum(sum, prod, pos != FACTOR_NONE);
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
            squares = factor_ordered_sum(squares, mul_rn(lij, lij), p < lower_end);
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
                         const u32* order, const u32* position, const u32* ticket_pos, const u32* lane_row,
                         u32* counters) {
    __shared__ FactorStage<T> stage[FACTOR_WARPS];
    FactorStage<T>& st = stage[threadIdx.x / 32];
    const u32 tickets = counters[2], bound = *lane_row;
    for (u32 t = factor_ticket(counters); t < tickets; t = factor_ticket(counters)) {
        const u32 first = ticket_pos[t], count = ticket_pos[t + 1] - first, i = order[first];
        if (factor_row_length(i, ptr, split, base, 1) > bound) {
            ic0_warp(i, st, ptr, col, base, out, work, diag, split, counters);
        } else {
            ic0_lanes(first, count, ptr, col, base, out, work, diag, split, order, position, counters);
        }
    }
}

#define IC0_ENTRY(T, tval)                                                                                 \
    extern "C" __global__ void __launch_bounds__(FACTOR_WARPS * 32)                                         \
        spblk_ic0_##tval(const int* ptr, const int* col, int base, T* val, T* work, const u32* diag,       \
                         const u32* split, const u32* order, const u32* position, const u32* ticket_pos,  \
                         const u32* lane_row, u32* counters) {                                                    \
        ic0_rows<T>(ptr, col, base, val, work, diag, split, order, position, ticket_pos, lane_row, counters); \
    }

IC0_ENTRY(float, f32)
IC0_ENTRY(double, f64)
