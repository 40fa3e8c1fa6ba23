// What the incomplete factorizations (ilu0.cu, ic0.cu) share: the analysis of A's pattern, the
// tickets, and the protocol by which a row reads the rows it needs (docs/factor.md).
//
// A row's factor needs the rows its lower entries name, so warps take tickets from a counter in
// the order of the rows' levels (the analysis sorts them, as SpSV's, src/backend/cuda/levels.rs):
// every row a row waits for was taken by a running warp or an earlier lane of the same warp,
// and the persistent grid never deadlocks. (Row order is also safe but far slower: on a 2-D
// grid only the few lines that fit in the resident warps advance at once, a row per hop.)
//
// A finished row is published value by value, each value its own flag (common/ready.cuh, as
// SpSV's solve): before the factorization A's values are copied to a work array and their
// words in A set to all ones; a row works on its own values in registers or in the work array
// and stores the results into A with relaxed stores, its key value last (the diagonal; IC0's
// row without one: its last lower entry). A reader polls a row's key, then loads the values it
// needs, each checked again: no flags, no fences (session 23: flags with an acquire fence per
// reader and a release per row cost 10 µs a level).
#pragma once
#include "common/ready.cuh"

#define FACTOR_NONE 0xffffffffu
// Warps per block of the factorization kernels (src/backend/cuda/factor.rs, FACTOR_WARPS).
#define FACTOR_WARPS 4

// diag[i] = the position of row i's diagonal entry (FACTOR_NONE: none; the factor reads it as
// one, and `structural` holds the first such row); split[i] = the first position of row i
// whose column is not below the diagonal. Columns ascend within rows (cuSPARSE's rule).
extern "C" __global__ void __launch_bounds__(256)
    spblk_factor_pattern(i64 n, const int* ptr, const int* col, int base, u32* diag, u32* split, u32* structural) {
    GRID_STRIDE(i, n) {
        const i64 s = (i64)ptr[i] - base, e = (i64)ptr[i + 1] - base;
        i64 p = s;
        while (p < e && (i64)col[p] - base < i) ++p;
        split[i] = (u32)p;
        const bool has = p < e && (i64)col[p] - base == i;
        diag[i] = has ? (u32)p : FACTOR_NONE;
        if (!has) atomicMin(structural, (u32)i);
    }
}

// Rows of at most this many entries (ILU0: the whole row; IC0: the lower part and the
// diagonal) are factored a lane each, their entries in registers; a longer row gets a ticket
// (a warp) of its own.
#define FACTOR_LANE_ROW 8
// The bound instead when the levels are narrow (spblk_factor_lane_row): rows of 4 or more
// entries a warp each, staged (staged.cuh), which waits on its dependencies' values together
// where a lane waits a round trip per further meeting with a row (session 30 run f: the 56 real
// cases 0.96x -> 1.32x NVIDIA's). On wide levels (3-D Poisson: 5.5k rows a level against 2.1k
// resident warps) a warp per row leaves rows waiting for a warp: 1.65x -> 0.56x there.
#define FACTOR_NARROW_ROW 3
// Values a lane polls every round before it polls one row first (FactorPolls::ready).
#define FACTOR_POLLS 3

__device__ __forceinline__ u32 factor_row_length(u32 i, const int* ptr, const u32* split, int base, int ic) {
    return ic ? split[i] - (u32)(ptr[i] - base) + 1 : (u32)(ptr[i + 1] - ptr[i]);
}

// count[0] += the rows of more than FACTOR_NARROW_ROW entries.
extern "C" __global__ void __launch_bounds__(256)
    spblk_factor_count_long(i64 n, const int* ptr, const u32* split, int base, int ic, u32* count) {
    GRID_STRIDE(i, n) {
        const u32 active = __activemask();
        const u32 longs = __ballot_sync(active, factor_row_length((u32)i, ptr, split, base, ic) > FACTOR_NARROW_ROW);
        if ((threadIdx.x & 31) == __ffs(active) - 1 && longs) atomicAdd(count, __popc(longs));
    }
}

// *lane_row = FACTOR_NARROW_ROW when the rows it would give a warp each, spread over the levels
// (the last row of the order holds the last level), are no more than the resident warps;
// else FACTOR_LANE_ROW. One thread.
extern "C" __global__ void spblk_factor_lane_row(i64 n, const u32* order, const u32* level, u32 resident_warps,
                                                 const u32* count, u32* lane_row) {
    const u64 levels = (u64)level[order[n - 1]] + 1;
    *lane_row = (u64)*count <= levels * resident_warps ? FACTOR_NARROW_ROW : FACTOR_LANE_ROW;
}
__device__ __forceinline__ bool factor_ticket_start(i64 s, const u32* order, const int* ptr, const u32* split, int base,
                                                    int ic, u32 lane_row) {
    const auto is_long = [&](i64 p) { return factor_row_length(order[p], ptr, split, base, ic) > lane_row; };
    return s % 32 == 0 || is_long(s) || (s > 0 && is_long(s - 1));
}

// The factorization's tickets (analysis): a ticket starts at every 32nd position of the order
// and at every long row and the position after it, so a ticket is one long row or up to 32
// short ones (as SpSV's solve, kernels/spsv/sync_free.cu).
extern "C" __global__ void __launch_bounds__(256)
    spblk_factor_ticket_flags(i64 n, const u32* order, const int* ptr, const u32* split, int base, int ic,
                              const u32* lane_row, u32* flags) {
    const u32 bound = *lane_row;
    GRID_STRIDE(s, n) flags[s] = factor_ticket_start(s, order, ptr, split, base, ic, bound);
}

// ticket_pos[t] = the first position of ticket t (the flags scanned: each start's ticket);
// ticket_pos[T] = n; *tickets = T.
extern "C" __global__ void __launch_bounds__(256)
    spblk_factor_ticket_place(i64 n, const u32* order, const int* ptr, const u32* split, int base, int ic,
                              const u32* lane_row, const u32* scanned, u32* ticket_pos, u32* tickets) {
    const u32 bound = *lane_row;
    GRID_STRIDE(s, n) {
        if (factor_ticket_start(s, order, ptr, split, base, ic, bound)) ticket_pos[scanned[s]] = (u32)s;
        if (s == 0) {
            ticket_pos[scanned[n]] = (u32)n;
            *tickets = scanned[n];
        }
    }
}

__device__ __forceinline__ u32 factor_ticket(u32* counter) {
    u32 t = 0;
    if ((threadIdx.x & 31) == 0) t = atomicAdd(counter, 1u);
    return __shfl_sync(SPBLK_FULL_MASK, t, 0);
}

// A published value: polled until it is (the row that publishes it is running).
template <class T> __device__ __forceinline__ T factor_poll(const T* p) {
    for (;;) {
        const auto b = Ready<T>::load(p);
        if (!Ready<T>::none(b)) return Ready<T>::value(b);
        __nanosleep(32);
    }
}
template <class T> __device__ __forceinline__ void factor_publish(T* p, T v) {
    Ready<T>::store(p, Ready<T>::publishable(v));
}

// The first position of [lo, hi) whose column is at least j, or hi (columns ascend).
__device__ __forceinline__ u32 factor_lower_bound(const int* col, int base, u32 lo, u32 hi, u32 j) {
    while (lo < hi) {
        const u32 mid = (lo + hi) / 2;
        if ((u32)(__ldg(col + mid) - base) < j) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// The first position of [lo, hi) whose column is at least j, or hi (columns ascend), galloping
// from lo: a long row k (a hub, or arrow's dense row of 46k entries) is crossed in a few steps.
__device__ __forceinline__ u32 factor_seek(const int* col, int base, u32 lo, u32 hi, u32 j) {
    u32 probe = lo, step = 1;
    while (probe < hi && (u32)(__ldg(col + probe) - base) < j) {
        lo = probe + 1;
        probe = lo + step;
        step <<= 1;
    }
    return factor_lower_bound(col, base, lo, min(probe, hi), j);
}

// A lane's walk of row k's entries [from, to) for the columns its short row holds: `visit(p, j)`
// at each entry it stops at (entry p, column j), until it answers true. While at most
// FACTOR_SCAN entries remain, entry by entry (sessions 23-29's loop: a stencil's parts have 3-4
// entries, and a galloping walk there made 3-D Poisson's ILU0 20 % slower, session 30 run d); a
// longer part (a hub row of 1400 entries, arrow's dense row of 46k, walked entry by entry in
// milliseconds) is crossed by galloping to `next(j)`, the lane's smallest column above j
// (FACTOR_NONE: none, the walk ends).
#define FACTOR_SCAN 16
template <class Next, class Visit>
__device__ __forceinline__ void factor_walk(u32 from, u32 to, const int* col, int base, Next next, Visit visit) {
    if (to - from <= FACTOR_SCAN) {
        for (u32 p = from; p < to; ++p) {
            if (visit(p, (u32)(col[p] - base))) return;
        }
        return;
    }
    for (u32 p = from; p < to;) {
        const u32 j = (u32)(col[p] - base);
        if (visit(p, j)) return;
        const u32 n = next(j);
        if (n == FACTOR_NONE) return;
        p = to - p > FACTOR_SCAN ? factor_seek(col, base, p + 1, to, n) : p + 1;
    }
}

// What a short row's lane keeps of the rows it needs (ilu0.cu, ic0.cu): per dependency m, the
// position of row k's key and, once published, its value; the first entry of row k that meets
// the lane's row (its hit) and its value. (On a stencil every row k meets row i at most once:
// polling the hits with the keys saves a round trip per dependency, one after another.)
template <class T> struct FactorPolls {
    u32 key[FACTOR_LANE_ROW], hit[FACTOR_LANE_ROW];
    T kv[FACTOR_LANE_ROW], hv[FACTOR_LANE_ROW];
    u32 waiting, hits_waiting, sentry_bit, sentry_at, latest;

    __device__ __forceinline__ void clear() {
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            key[m] = hit[m] = FACTOR_NONE;
            kv[m] = hv[m] = T(1);
        }
        waiting = hits_waiting = sentry_bit = sentry_at = latest = 0;
    }

    // Dependency m waits on the value at `at` of the row at `position` in the order.
    __device__ __forceinline__ void watch(u32 m, u32 at, u32 position) {
        key[m] = at;
        waiting |= 1u << m;
        if (position + 1 > latest) {
            latest = position + 1;
            sentry_bit = 1u << m;
            sentry_at = at;
        }
    }

    // Dependency m's hit: the first p of [from, to) whose column `meets` the lane's row (`next`:
    // factor_walk's).
    template <class Meets, class Next>
    __device__ __forceinline__ void find_hit(u32 m, u32 from, u32 to, const int* col, int base, Meets meets,
                                             Next next) {
        factor_walk(from, to, col, base, next, [&](u32 p, u32 j) {
            if (!meets(j)) return false;
            hit[m] = p;
            hits_waiting |= 1u << m;
            return true;
        });
    }

    // Polls every key and hit not yet seen, together; true once all are. A lane with more than
    // FACTOR_POLLS of them polls only the key of the row that comes last in the order (the
    // sentry) until it is published: polling every value every round kept L2 78 % busy (ncu,
    // session 23 run d), while the sentry costs a round trip more at the end (IC0 on Poisson,
    // 3 keys a row: 1.65 -> 1.81 ms; ILU0, 6 values: 3.23 -> 2.35 ms, run e).
    __device__ __forceinline__ bool ready(const T* out) {
        if ((waiting & sentry_bit) && __popc(waiting) + __popc(hits_waiting) > FACTOR_POLLS &&
            Ready<T>::none(Ready<T>::load(out + sentry_at))) {
            return false;
        }
        typename Ready<T>::Bits b[FACTOR_LANE_ROW], h[FACTOR_LANE_ROW];
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            b[m] = (waiting >> m & 1) ? Ready<T>::load(out + key[m]) : 0;
            h[m] = (hits_waiting >> m & 1) ? Ready<T>::load(out + hit[m]) : 0;
        }
#pragma unroll
        for (u32 m = 0; m < FACTOR_LANE_ROW; ++m) {
            if ((waiting >> m & 1) && !Ready<T>::none(b[m])) {
                kv[m] = Ready<T>::value(b[m]);
                waiting &= ~(1u << m);
            }
            if ((hits_waiting >> m & 1) && !Ready<T>::none(h[m])) {
                hv[m] = Ready<T>::value(h[m]);
                hits_waiting &= ~(1u << m);
            }
        }
        return (waiting | hits_waiting) == 0;
    }

    // Row k's value at p: the hit's, or polled.
    __device__ __forceinline__ T value(u32 m, u32 p, const T* out) const {
        return p == hit[m] ? hv[m] : factor_poll(out + p);
    }
};

// A ticket of short rows, a lane each: the warp goes round until every lane's row is done; a
// lane whose rows are all published factors its row in that round (no warp-wide step inside:
// a lane may need an earlier lane's row). A round in which no lane moves sleeps briefly (a
// backoff doubling to 256 ns made 2-D ILU0 5 % slower, session 23 runs f and g).
template <class IsReady, class Factor>
__device__ __forceinline__ void factor_lanes(bool pending, IsReady ready, Factor factor) {
    while (__any_sync(SPBLK_FULL_MASK, pending)) {
        bool moved = false;
        if (pending && ready()) {
            factor();
            pending = false;
            moved = true;
        }
        if (!__any_sync(SPBLK_FULL_MASK, moved)) __nanosleep(32);
    }
}

// Before a factorization: work[p] = A's value, A's word all ones, for every entry the
// factorization writes (IC0: the lower triangle and the diagonal; ILU0: all). A warp per row.
template <class T>
__device__ void factor_init(i64 n, const int* ptr, const int* col, int base, int ic, T* val, T* work) {
    const i64 warps = (i64)gridDim.x * (blockDim.x / 32);
    for (i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) / 32; i < n; i += warps) {
        const u32 s = (u32)(ptr[i] - base), e = (u32)(ptr[i + 1] - base);
        for (u32 p = s + (threadIdx.x & 31); p < e; p += 32) {
            if (ic && (i64)(col[p] - base) > i) continue;
            work[p] = val[p];
            Ready<T>::store(val + p, Ready<T>::value(~typename Ready<T>::Bits(0)));
        }
    }
}
extern "C" __global__ void __launch_bounds__(256)
    spblk_factor_init_f32(i64 n, const int* ptr, const int* col, int base, int ic, float* val, float* work) {
    factor_init(n, ptr, col, base, ic, val, work);
}
extern "C" __global__ void __launch_bounds__(256)
    spblk_factor_init_f64(i64 n, const int* ptr, const int* col, int base, int ic, double* val, double* work) {
    factor_init(n, ptr, col, base, ic, val, work);
}

// The position of column j in [lo, hi) of a row (ascending columns), or FACTOR_NONE.
__device__ __forceinline__ u32 factor_find(const int* col, int base, u32 lo, u32 hi, u32 j) {
    const u32 p = factor_lower_bound(col, base, lo, hi, j);
    return p < hi && (u32)(__ldg(col + p) - base) == j ? p : FACTOR_NONE;
}

// A lane's entry m of a row segment [from, to): its column (past `to`: FACTOR_NONE) and, once
// published, its value. The columns do not change, so a warp loads them before it waits.
__device__ __forceinline__ u32 factor_column(u32 m, u32 to, const int* col, int base) {
    return m < to ? (u32)(col[m] - base) : FACTOR_NONE;
}
template <class T> __device__ __forceinline__ T factor_value(u32 m, u32 to, const T* out) {
    return m < to ? factor_poll(out + m) : T(0);
}

// What a row needs of row k, loaded before waiting for it: its diagonal entry, the segment
// [from, to) of its entries that the row reads, and the lane's column of the segment's first
// 32 entries. After the wait only values remain to load, all at once.
struct FactorDep {
    u32 k, dk, from, to, first_col;
};
