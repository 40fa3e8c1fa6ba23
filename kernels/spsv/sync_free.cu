// Triangular solves (SpSV) without level synchronization (after Liu et al., "A synchronization-
// free algorithm for parallel sparse triangular solves", Euro-Par 2016; docs/spsv.md).
//
// The analysis copies op(A)'s strict triangle into the caller's buffer in solve order: each
// row's kept entries (zero-based columns, values, and each entry's position in A's values for
// updates) and the diagonal apart (a missing entry reads as one, as cuSPARSE's does).
//
// The solve's warps take rows by a ticket counter in dependency order (lower: first to last;
// upper: last to first), so every row a row waits on belongs to a warp that is already running:
// no deadlock, whatever the scheduler does. A row is published by writing y[row] and then, with
// release order, its flag = this solve's epoch; a reader acquires the flag before loading y.
// Each row's sum runs in storage order (thread kernel, rows of at most SPSV_LONG_ROW entries:
// bit for bit the host reference) or partly lane-strided with a fixed reduction tree (longer
// rows, warp kernel): the same bits every run. The start
// kernel resets the ticket and moves to a new epoch, so nothing needs clearing between solves
// and the whole solve can be captured into a graph.
#include "common/types.cuh"

#define SPSV_NONE 0xffffffffu

__device__ __forceinline__ u32 load_acquire(const u32* p) {
    u32 v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void store_release(u32* p, u32 v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ bool kept(i64 c, i64 row, int lower) { return c != row && ((c < row) == (lower != 0)); }

// counts[i] = row i's kept entries (to be scanned into offsets); diag_src[i] = the position in
// A's values of row i's first diagonal entry, or SPSV_NONE. `perm` (NULL: identity) maps an
// entry of the given CSR of op(A) to A's stored entry.
template <class I>
__device__ void spsv_count(i64 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, I* counts,
                           u32* diag_src) {
    GRID_STRIDE(i, n) {
        const i64 s = (i64)ptr[i] - base, e = (i64)ptr[i + 1] - base;
        i64 count = 0;
        u32 d = SPSV_NONE;
        for (i64 p = s; p < e; ++p) {
            const i64 c = (i64)col[p] - base;
            if (c == (i64)i) {
                if (d == SPSV_NONE) d = perm ? perm[p] : (u32)p;
            } else if (kept(c, (i64)i, lower)) {
                ++count;
            }
        }
        counts[i] = (I)count;
        diag_src[i] = d;
    }
}

// Writes row i's kept entries at tri_ptr[i]..: columns (zero-based) and source positions.
template <class I>
__device__ void spsv_fill(i64 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm,
                          const I* tri_ptr, I* tri_col, u32* tri_src) {
    GRID_STRIDE(i, n) {
        const i64 s = (i64)ptr[i] - base, e = (i64)ptr[i + 1] - base;
        i64 q = (i64)tri_ptr[i];
        for (i64 p = s; p < e; ++p) {
            const i64 c = (i64)col[p] - base;
            if (kept(c, (i64)i, lower)) {
                tri_col[q] = (I)c;
                tri_src[q] = perm ? perm[p] : (u32)p;
                ++q;
            }
        }
    }
}

// The analysis' copy of the values, from A's (or an update's) nnz values.
template <class T, class I>
__device__ void spsv_values(i64 n, const I* tri_ptr, const u32* tri_src, const u32* diag_src, const T* a_val,
                            T* tri_val, T* diag) {
    const i64 count = (i64)tri_ptr[n];
    GRID_STRIDE(j, count) tri_val[j] = a_val[tri_src[j]];
    GRID_STRIDE(i, n) {
        const u32 d = diag_src[i];
        diag[i] = d == SPSV_NONE ? T(1) : a_val[d];
    }
}

// state[0]: the ticket counter; state[1]: the epoch of the solve about to run.
extern "C" __global__ void spblk_spsv_start(u32* state) {
    state[0] = 0;
    state[1] += 1;
}

// y[row] = (alpha x[row] - sum) / diag[row], published to the rows that wait on it.
template <class T>
__device__ __forceinline__ T spsv_publish(i64 row, T sum, T alpha, const T* x, T* y, const T* diag, int unit,
                                             u32* flags, u32 epoch) {
    T r = add_rn(mul_rn(alpha, x[row]), -sum);
    if (!unit) r = r / diag[row];
    __stcg(&y[row], r);
    store_release(&flags[row], epoch);
    return r;
}

// The next ticket of a warp (the same in every lane).
__device__ __forceinline__ u32 spsv_ticket(u32* state) {
    u32 ticket = 0;
    if ((threadIdx.x & 31) == 0) ticket = atomicAdd(&state[0], 1u);
    return __shfl_sync(SPBLK_FULL_MASK, ticket, 0);
}

// Rows with more entries than this have their entries outside the warp summed by the whole warp.
#define SPSV_LONG_ROW 32

// A thread per row, 32 consecutive rows (in solve order) per ticket. A thread never blocks: it
// takes its row's entries in order while their rows are published, and the warp goes round
// until all its rows are done. A row of the same warp (always an earlier lane) is read from
// that lane's register once the warp's ballot shows it done: a chain of neighbouring rows
// costs a round of the loop per row, not a trip through L2 per row. A round in which no lane
// moves sleeps briefly, so that waiting warps leave L2 to the rows being published. Long rows
// first have their entries outside the warp summed by all 32 lanes (lane-strided, a fixed
// tree), then their in-warp entries in order.
template <class T, class I>
__device__ void spsv_rows(i64 n, const I* __restrict__ ptr, const I* __restrict__ col, const T* __restrict__ val,
                          const T* __restrict__ diag, int lower, int unit, const T* x, T* y, u32* state, u32* flags,
                          const T* alpha_dev, T alpha_h) {
    const int lane = threadIdx.x & 31;
    const u32 epoch = state[1];
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    for (u32 ticket = spsv_ticket(state); (i64)ticket * 32 < n; ticket = spsv_ticket(state)) {
        const i64 k = (i64)ticket * 32 + lane;
        // Lane 0's row; lane l has row0 + l (lower) or row0 - l (upper).
        const i64 row0 = lower ? (i64)ticket * 32 : n - 1 - (i64)ticket * 32;
        const i64 row = lower ? row0 + lane : row0 - lane;
        // The lane of a column in this warp's rows, or -1.
        auto lane_of = [&](i64 c) -> int {
            const i64 off = lower ? c - row0 : row0 - c;
            return off >= 0 && off < 32 ? (int)off : -1;
        };
        i64 p = 0, e = 0;
        if (k < n) {
            p = (i64)ptr[row];
            e = (i64)ptr[row + 1];
        }
        T sum = T(0), mine = T(0);
        bool outside_summed = false;
        for (u32 longs = __ballot_sync(SPBLK_FULL_MASK, e - p > SPSV_LONG_ROW); longs; longs &= longs - 1) {
            const int j = __ffs(longs) - 1;
            const i64 pj = __shfl_sync(SPBLK_FULL_MASK, p, j), ej = __shfl_sync(SPBLK_FULL_MASK, e, j);
            T part = T(0);
            for (i64 q = pj + lane; q < ej; q += 32) {
                const i64 c = (i64)col[q];
                if (lane_of(c) >= 0) continue;
                while (load_acquire(&flags[c]) != epoch) __nanosleep(64);
                part = add_rn(part, mul_rn(val[q], __ldcg(&y[c])));
            }
            for (int o = 16; o > 0; o >>= 1) part = add_rn(part, __shfl_down_sync(SPBLK_FULL_MASK, part, o));
            part = __shfl_sync(SPBLK_FULL_MASK, part, 0);
            if (lane == j) {
                sum = part;
                outside_summed = true;
            }
        }
        u32 done = __ballot_sync(SPBLK_FULL_MASK, k >= n);
        while (done != SPBLK_FULL_MASK) {
            const bool active = !((done >> lane) & 1u);
            const i64 before = p;
            int src = lane;
            if (active) {
                while (p < e) {
                    const i64 c = (i64)col[p];
                    const int at = lane_of(c);
                    if (at >= 0) {
                        src = at;
                        break;
                    }
                    if (!outside_summed) {
                        if (load_acquire(&flags[c]) != epoch) break;
                        sum = add_rn(sum, mul_rn(val[p], __ldcg(&y[c])));
                    }
                    ++p;
                }
            }
            const T theirs = __shfl_sync(SPBLK_FULL_MASK, mine, src);
            if (src != lane && ((done >> src) & 1u)) {
                sum = add_rn(sum, mul_rn(val[p], theirs));
                ++p;
            }
            if (active && p == e) {
                mine = spsv_publish(row, sum, alpha, x, y, diag, unit, flags, epoch);
            }
            const u32 now = __ballot_sync(SPBLK_FULL_MASK, !active || p == e);
            if (now == done && !__any_sync(SPBLK_FULL_MASK, p != before)) __nanosleep(100);
            done = now;
        }
    }
}

// A warp per row, for long rows: lane t takes entries t, t + 32, ... in order, waiting for
// each one's row; the lanes' sums are added in a fixed tree.
template <class T, class I>
__device__ void spsv_warp(i64 n, const I* __restrict__ ptr, const I* __restrict__ col, const T* __restrict__ val,
                          const T* __restrict__ diag, int lower, int unit, const T* x, T* y, u32* state, u32* flags,
                          const T* alpha_dev, T alpha_h) {
    const int lane = threadIdx.x & 31;
    const u32 epoch = state[1];
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    for (u32 ticket = spsv_ticket(state); (i64)ticket < n; ticket = spsv_ticket(state)) {
        const i64 row = lower ? (i64)ticket : n - 1 - (i64)ticket;
        T sum = T(0);
        for (i64 p = (i64)ptr[row] + lane, e = (i64)ptr[row + 1]; p < e; p += 32) {
            const i64 c = (i64)col[p];
            while (load_acquire(&flags[c]) != epoch) {
            }
            sum = add_rn(sum, mul_rn(val[p], __ldcg(&y[c])));
        }
        for (int o = 16; o > 0; o >>= 1) sum = add_rn(sum, __shfl_down_sync(SPBLK_FULL_MASK, sum, o));
        if (lane == 0) spsv_publish(row, sum, alpha, x, y, diag, unit, flags, epoch);
        __syncwarp();
    }
}

#define SPSV_PATTERN_ENTRY(I, tidx)                                                                              \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_count_##tidx(                                   \
        i64 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, I* counts, u32* diag_src) {    \
        spsv_count<I>(n, ptr, col, base, lower, perm, counts, diag_src);                                          \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_fill_##tidx(                                    \
        i64 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, const I* tri_ptr, I* tri_col,  \
        u32* tri_src) {                                                                                          \
        spsv_fill<I>(n, ptr, col, base, lower, perm, tri_ptr, tri_col, tri_src);                                  \
    }

#define SPSV_ENTRY(T, tval, I, tidx)                                                                             \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_values_##tval##_##tidx(                         \
        i64 n, const I* tri_ptr, const u32* tri_src, const u32* diag_src, const T* a_val, T* tri_val, T* diag) { \
        spsv_values<T, I>(n, tri_ptr, tri_src, diag_src, a_val, tri_val, diag);                                   \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(128) spblk_spsv_rows_##tval##_##tidx(                           \
        i64 n, const I* ptr, const I* col, const T* val, const T* diag, int lower, int unit, const T* x, T* y,  \
        u32* state, u32* flags, const T* alpha_dev, T alpha) {                                                   \
        spsv_rows<T, I>(n, ptr, col, val, diag, lower, unit, x, y, state, flags, alpha_dev, alpha);               \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(128) spblk_spsv_warp_##tval##_##tidx(                           \
        i64 n, const I* ptr, const I* col, const T* val, const T* diag, int lower, int unit, const T* x, T* y,  \
        u32* state, u32* flags, const T* alpha_dev, T alpha) {                                                   \
        spsv_warp<T, I>(n, ptr, col, val, diag, lower, unit, x, y, state, flags, alpha_dev, alpha);               \
    }

SPSV_PATTERN_ENTRY(int, i32)
SPSV_PATTERN_ENTRY(long long, i64)
SPSV_ENTRY(float, f32, int, i32)
SPSV_ENTRY(float, f32, long long, i64)
SPSV_ENTRY(double, f64, int, i32)
SPSV_ENTRY(double, f64, long long, i64)
