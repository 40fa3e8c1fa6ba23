// Incomplete LU without fill (csrilu02; docs/factor.md), in place on A's values: for each entry
// (i, k) below the diagonal, in column order, once row k is published: l = a(i, k) / u(k, k),
// then a(i, j) -= l * u(k, j) for every j > k that both rows hold. Each a(i, j) is updated by
// one thread, k ascending, rounded as the host reference rounds: the same bits as the host,
// every run. A missing u(k, k) reads as one (and row k subtracts nothing, as NVIDIA's library
// does); a zero pivot u(i, i) is recorded (the first row), unless the numeric boost replaces it.
// Rows read their own values from `work` and publish into A (rows.cuh); a row k is needed only
// through u(k, k) (its key) and its entries right of the diagonal.
#include "factor/staged.cuh"

// Row i's pivot u(i, i): the boost value when small (numericBoost), else recorded if zero.
template <class T>
__device__ __forceinline__ T ilu0_pivot(u32 i, T u, u32* counters, int boost, double tol, T boost_value) {
    if (boost && fabs((double)u) <= tol) return boost_value;
    if (u == T(0)) atomicMin(&counters[1], i);
    return u;
}

// A short row, in a lane's registers (up to 32 of them per ticket, a lane each): its
// dependencies' static parts and hits load first (rows.cuh, FactorPolls); once their diagonals
// and hits are published, the lane reads any further entries of row k that meet its own and
// updates in registers, k ascending.
template <class T> struct Ilu0Lane {
    u32 i, s, len, lower, di;
    u32 c[FACTOR_LANE_ROW], from[FACTOR_LANE_ROW], to[FACTOR_LANE_ROW];
    T v[FACTOR_LANE_ROW];
    FactorPolls<T> polls;

    __device__ __forceinline__ void load(u32 row, const int* ptr, const int* col, int base, const T* work,
                                         const u32* diag, const u32* split, const u32* position) {
        i = row;
        s = (u32)(ptr[i] - base);
        len = (u32)(ptr[i + 1] - base) - s;
        lower = split[i] - s;
        di = diag[i];
        polls.clear();
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            from[m] = to[m] = 0;
            c[m] = m < len ? (u32)(col[s + m] - base) : FACTOR_NONE;
            v[m] = m < len ? work[s + m] : T(0);
        }
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < lower) {
                const u32 dk = diag[c[m]];
                to[m] = (u32)(ptr[c[m] + 1] - base);
                from[m] = dk == FACTOR_NONE ? to[m] : dk + 1;
                if (dk != FACTOR_NONE) polls.watch(m, dk, position[c[m]]);
                polls.find_hit(m, from[m], to[m], col, base, [&](u32 j) { return meets(m, j); },
                               [&](u32 j) { return next(m, j); });
            }
        }
    }

    // Whether column j is an entry of row i after its m-th.
    __device__ __forceinline__ bool meets(u32 m, u32 j) const {
        bool h = false;
#pragma unroll
        for (u32 r = 0; r < FACTOR_LANE_ROW; ++r) h = h || (r > m && c[r] == j);
        return h;
    }

    // The row's smallest column above j among those `meets` tests (FACTOR_NONE: none).
    __device__ __forceinline__ u32 next(u32 m, u32 j) const {
        u32 n = FACTOR_NONE;
#pragma unroll
        for (u32 r = 0; r < FACTOR_LANE_ROW; ++r) n = n == FACTOR_NONE && r > m && c[r] > j ? c[r] : n;
        return n;
    }

    __device__ __forceinline__ void factor(const int* col, int base, T* out, u32* counters, int boost, double tol,
                                           T boost_value) {
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < lower) {
                // A missing u(k, k) reads as one (its key is never watched).
                const T l = v[m] / polls.kv[m];
                v[m] = l;
                factor_walk(polls.hit[m], to[m], col, base, [&](u32 j) { return next(m, j); }, [&](u32 p, u32 j) {
                    if (meets(m, j)) {
                        const T u = polls.value(m, p, out);
#pragma unroll
                        for (u32 r = m + 1; r < FACTOR_LANE_ROW; ++r) {
                            if (c[r] == j) v[r] = add_rn(v[r], -mul_rn(l, u));
                        }
                    }
                    return false;
                });
            }
        }
        // Every entry, the diagonal (the key) last.
        T u = T(0);
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if (m < len && s + m != di) factor_publish(out + s + m, v[m]);
            if (s + m == di) u = v[m];
        }
        if (di != FACTOR_NONE) factor_publish(out + di, ilu0_pivot(i, u, counters, boost, tol, boost_value));
    }
};

template <class T>
__device__ void ilu0_lanes(u32 first, u32 count, const int* ptr, const int* col, int base, T* out, const T* work,
                           const u32* diag, const u32* split, const u32* order, const u32* position, u32* counters,
                           int boost, double tol, T boost_value) {
    Ilu0Lane<T> row;
    const bool mine = (threadIdx.x & 31) < count;
    if (mine) row.load(order[first + (threadIdx.x & 31)], ptr, col, base, work, diag, split, position);
    factor_lanes(mine, [&] { return row.polls.ready(out); },
                 [&] { row.factor(col, base, out, counters, boost, tol, boost_value); });
}

// Row k's entries (k, j), j > k (the segment of `d`), scanned by the warp 32 at a time; the
// lane owning a(i, j) subtracts l * u(k, j) where the columns match. The first chunk's column
// and value come loaded.
template <class T>
__device__ __forceinline__ void ilu0_update(u32 q, u32 s, u32 e, const FactorDep& d, T first_value, T l,
                                            const int* col, int base, const T* out, T* work) {
    const int lane = threadIdx.x & 31;
    for (u32 c0 = d.from; c0 < d.to; c0 += 32) {
        const bool first = c0 == d.from;
        const u32 cj = first ? d.first_col : factor_column(c0 + lane, d.to, col, base);
        const T uv = first ? first_value : factor_value(c0 + lane, d.to, out);
        const u32 count = min(32u, d.to - c0);
        // The lane's own entries of row i after q (lane t owns s + t, s + t + 32, ...).
        for (u32 p0 = s; p0 < e; p0 += 32) {
            const u32 p = p0 + lane;
            const bool mine = p > q && p < e;
            const u32 j = mine ? (u32)(col[p] - base) : FACTOR_NONE - 1;
            for (u32 t = 0; t < count; ++t) {
                const u32 ct = __shfl_sync(SPBLK_FULL_MASK, cj, t);
                const T vt = __shfl_sync(SPBLK_FULL_MASK, uv, t);
                if (j == ct) work[p] = add_rn(work[p], -mul_rn(l, vt));
            }
        }
    }
}

// Rows of many dependencies (power-law rows of hundreds of entries): scanning all of row i per
// dependency cost a hub row seconds (session 22). The lanes take 32 dependencies at a time:
// each loads row k's static part, finds where row k's first ILU0_AHEAD entries right of the
// diagonal sit in row i (binary searches: both rows' columns ascend) and polls row k's values,
// all at once; the warp then takes them in order, the lane of each doing its updates; the rest
// of a long row k is updated by the whole warp. Every a(i, j) still changes k ascending.
#define ILU0_AHEAD 4
#define ILU0_MANY_DEPS 8

template <class T>
__device__ void ilu0_many(u32 s, u32 lower_end, u32 e, const int* ptr, const int* col, int base, const T* out,
                          T* work, const u32* diag) {
    const u32 lane = threadIdx.x & 31;
    for (u32 q0 = s; q0 < lower_end; q0 += 32) {
        const u32 q = q0 + lane;
        const bool has = q < lower_end;
        u32 dk = FACTOR_NONE, from = 0, to = 0, at[ILU0_AHEAD];
        if (has) {
            const u32 k = (u32)(col[q] - base);
            dk = diag[k];
            to = (u32)(ptr[k + 1] - base);
            from = dk == FACTOR_NONE ? to : dk + 1;
        }
#pragma unroll
        for (u32 a = 0; a < ILU0_AHEAD; ++a) {
            at[a] = from + a < to ? factor_find(col, base, q + 1, e, (u32)(col[from + a] - base)) : FACTOR_NONE;
        }
        const T ukk = dk == FACTOR_NONE ? T(1) : factor_poll(out + dk);
        T u[ILU0_AHEAD];
#pragma unroll
        for (u32 a = 0; a < ILU0_AHEAD; ++a) u[a] = at[a] == FACTOR_NONE ? T(0) : factor_poll(out + from + a);
        __syncwarp();
        const u32 count = min(32u, lower_end - q0);
        for (u32 t = 0; t < count; ++t) {
            T l = T(0);
            if (lane == t) {
                l = work[q] / ukk;
                work[q] = l;
#pragma unroll
                for (u32 a = 0; a < ILU0_AHEAD; ++a) {
                    if (at[a] != FACTOR_NONE) work[at[a]] = add_rn(work[at[a]], -mul_rn(l, u[a]));
                }
            }
            const u32 rest = __shfl_sync(SPBLK_FULL_MASK, from + ILU0_AHEAD, t);
            const u32 end = __shfl_sync(SPBLK_FULL_MASK, to, t);
            l = __shfl_sync(SPBLK_FULL_MASK, l, t);
            for (u32 p = rest + lane; p < end; p += 32) {
                const u32 pos = factor_find(col, base, q0 + t + 1, e, (u32)(col[p] - base));
                if (pos != FACTOR_NONE) work[pos] = add_rn(work[pos], -mul_rn(l, factor_poll(out + p)));
            }
            __syncwarp();
        }
    }
}

// A long row staged in shared memory (staged.cuh): for each dependency k in column order, l =
// a(i, k) / u(k, k) by the lane of the dependency, then the lanes update the entries where row
// k's U part meets row i (distinct entries: in parallel, each once per k, k ascending).
// Not inlined: its own register allocation, so neither path's spills land in the other's loops
// (inlined, the staged rows ran 5-15 % slower, session 30 run d).
template <class T>
__noinline__ __device__ void ilu0_staged(u32 i, u32 s, u32 e, u32 lower_end, FactorStage<T>& st, const int* ptr,
                                         const int* col, int base, T* out, const T* work, const u32* diag,
                                         u32* counters, int boost, double tol, T boost_value) {
    const u32 lane = threadIdx.x & 31, len = e - s, lower = lower_end - s;
    st.load(s, len, col, base, work);
    for (u32 q0 = 0; q0 < lower; q0 += 32) {
        const u32 count = min(32u, lower - q0);
        const StagedDep<T> d(st, q0, count, diag, out, [&](u32 k, u32 dk, u32& from, u32& items) {
            // A row without a diagonal entry has no U part to subtract (as NVIDIA's).
            const u32 to = (u32)(ptr[k + 1] - base);
            from = dk == FACTOR_NONE ? to : dk + 1;
            items = to - from;
        });
        T l = T(0);
        factor_staged_batch(
            st, q0, count, d.from, d.items, col, base, out, [&](u32 q, u32 j) { return st.find(q + 1, len, j); },
            [&](u32 t, u32 x0, u32 x1, bool first, bool) {
                if (first) {
                    T lt = T(0);
                    if (lane == t) {
                        lt = st.val[q0 + t] / d.pivot(out);
                        st.val[q0 + t] = lt;
                    }
                    l = __shfl_sync(SPBLK_FULL_MASK, lt, (int)t);
                }
                for (u32 x = x0 + lane; x < x1; x += 32) {
                    const u32 at = st.pos[x];
                    if (at != FACTOR_NONE) st.val[at] = add_rn(st.val[at], -mul_rn(l, st.value(x, out)));
                }
                __syncwarp();
            });
    }
    // Every entry, the diagonal (the key) last.
    const u32 di = diag[i];
    if (di != FACTOR_NONE && lane == 0) {
        st.val[di - s] = ilu0_pivot(i, st.val[di - s], counters, boost, tol, boost_value);
    }
    __syncwarp();
    for (u32 x = lane; x < len; x += 32) {
        if (s + x != di) factor_publish(out + s + x, st.val[x]);
    }
    __syncwarp();
    if (di != FACTOR_NONE && lane == 0) factor_publish(out + di, st.val[di - s]);
    __syncwarp();
}

// A long row (a ticket of its own), a warp: staged when it fits, else in the work copy, lane t
// owning entries t, t + 32, ...
template <class T>
__device__ void ilu0_warp(u32 i, FactorStage<T>& st, const int* ptr, const int* col, int base, T* out, T* work,
                          const u32* diag, const u32* split, u32* counters, int boost, double tol, T boost_value) {
    const int lane = threadIdx.x & 31;
    const u32 s = (u32)(ptr[i] - base), e = (u32)(ptr[i + 1] - base);
    const u32 lower_end = split[i];
    if (e - s <= FACTOR_STAGE_ROW) {
        ilu0_staged(i, s, e, lower_end, st, ptr, col, base, out, work, diag, counters, boost, tol, boost_value);
        return;
    }
    if (lower_end - s >= ILU0_MANY_DEPS) {
        ilu0_many(s, lower_end, e, ptr, col, base, out, work, diag);
    } else {
        for (u32 q = s; q < lower_end; ++q) {
            FactorDep d;
            d.k = (u32)(col[q] - base);
            d.dk = diag[d.k];
            // A row without a diagonal entry has no U part to subtract (as NVIDIA's).
            d.to = (u32)(ptr[d.k + 1] - base);
            d.from = d.dk == FACTOR_NONE ? d.to : d.dk + 1;
            d.first_col = factor_column(d.from + lane, d.to, col, base);
            const T ukk = d.dk == FACTOR_NONE ? T(1) : factor_poll(out + d.dk);
            const T first_value = factor_value(d.from + lane, d.to, out);
            const int owner = (int)((q - s) % 32);
            T l = T(0);
            if (lane == owner) {
                l = work[q] / ukk;
                work[q] = l;
            }
            l = __shfl_sync(SPBLK_FULL_MASK, l, owner);
            ilu0_update(q, s, e, d, first_value, l, col, base, out, work);
        }
    }
    __syncwarp();
    // Every entry, the diagonal (the key) last.
    const u32 di = diag[i];
    if (di != FACTOR_NONE && lane == (int)((di - s) % 32)) {
        work[di] = ilu0_pivot(i, work[di], counters, boost, tol, boost_value);
    }
    for (u32 p = s + lane; p < e; p += 32) {
        if (p != di) factor_publish(out + p, work[p]);
    }
    __syncwarp();
    if (di != FACTOR_NONE && lane == 0) factor_publish(out + di, work[di]);
}

template <class T>
__device__ void ilu0_rows(const int* ptr, const int* col, int base, T* out, T* work, const u32* diag, const u32* split,
                          const u32* order, const u32* position, const u32* ticket_pos, const u32* lane_row,
                          u32* counters, int boost, double tol, T boost_value) {
    __shared__ FactorStage<T> stage[FACTOR_WARPS];
    FactorStage<T>& st = stage[threadIdx.x / 32];
    const u32 tickets = counters[2], bound = *lane_row;
    for (u32 t = factor_ticket(counters); t < tickets; t = factor_ticket(counters)) {
        const u32 first = ticket_pos[t], count = ticket_pos[t + 1] - first, i = order[first];
        if (factor_row_length(i, ptr, split, base, 0) > bound) {
            ilu0_warp(i, st, ptr, col, base, out, work, diag, split, counters, boost, tol, boost_value);
        } else {
            ilu0_lanes(first, count, ptr, col, base, out, work, diag, split, order, position, counters, boost, tol,
                       boost_value);
        }
    }
}

#define ILU0_ENTRY(T, tval)                                                                                \
    extern "C" __global__ void __launch_bounds__(FACTOR_WARPS * 32)                                         \
        spblk_ilu0_##tval(const int* ptr, const int* col, int base, T* val, T* work, const u32* diag,      \
                          const u32* split, const u32* order, const u32* position, const u32* ticket_pos, \
                          const u32* lane_row, u32* counters, int boost, double tol, T boost_value) {             \
        ilu0_rows<T>(ptr, col, base, val, work, diag, split, order, position, ticket_pos, lane_row,       \
                     counters, boost, tol, boost_value);                                                   \
    }

ILU0_ENTRY(float, f32)
ILU0_ENTRY(double, f64)
