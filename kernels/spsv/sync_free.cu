// Triangular solves (SpSV) without level synchronization (after Liu et al., "A synchronization-
// free algorithm for parallel sparse triangular solves", Euro-Par 2016; docs/spsv.md).
//
// The analysis copies op(A)'s strict triangle into the caller's buffer in solve order: each
// row's kept entries (zero-based columns, values, and each entry's position in A's values for
// updates) and the diagonal apart (a missing entry reads as one, as cuSPARSE's does).
//
// The solve's warps take rows by a ticket counter in the analysis' topological order (order.cu),
// so every row a row waits on belongs to a warp that is already running, or to an earlier lane
// of the same warp: no deadlock, whatever the scheduler does. A row is published by storing its value into
// `ready`, a copy of y whose words all hold READY_NONE (all bits set) at the start of a solve:
// the value is its own flag, so a reader needs one load and no fence (an aligned 4- or 8-byte
// store is seen whole or not at all), and a computed value with those bits is stored as the
// canonical NaN instead. Each row's sum runs in storage order (thread kernel, rows of at most
// SPSV_LONG_ROW entries: bit for bit the host reference) or partly lane-strided with a fixed
// reduction tree (longer rows, warp kernel): the same bits every run. The ticket and `ready` are
// reset by memsets on the stream, so the whole solve can be captured into a graph.
#include "common/types.cuh"

#define SPSV_NONE 0xffffffffu

// The published value of a row as raw bits (u32 for float, u64 for double), READY_NONE while
// the row is not done. Loads and stores are relaxed at GPU scope: they go to L2, never L1.
template <class T> struct Ready;
template <> struct Ready<float> {
    typedef u32 Bits;
    __device__ static __forceinline__ u32 load(const float* p) {
        u32 v;
        asm volatile("ld.relaxed.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
        return v;
    }
    __device__ static __forceinline__ void store(float* p, float v) {
        asm volatile("st.relaxed.gpu.global.b32 [%0], %1;" ::"l"(p), "r"(__float_as_uint(v)) : "memory");
    }
    __device__ static __forceinline__ float value(u32 b) { return __uint_as_float(b); }
    __device__ static __forceinline__ bool none(u32 b) { return b == 0xffffffffu; }
    __device__ static __forceinline__ float publishable(float v) {
        return __float_as_uint(v) == 0xffffffffu ? __uint_as_float(0x7fc00000u) : v;
    }
};
template <> struct Ready<double> {
    typedef u64 Bits;
    __device__ static __forceinline__ u64 load(const double* p) {
        u64 v;
        asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
        return v;
    }
    __device__ static __forceinline__ void store(double* p, double v) {
        asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(p), "l"(__double_as_longlong(v)) : "memory");
    }
    __device__ static __forceinline__ double value(u64 b) { return __longlong_as_double((long long)b); }
    __device__ static __forceinline__ bool none(u64 b) { return b == ~0ull; }
    __device__ static __forceinline__ double publishable(double v) {
        return (u64)__double_as_longlong(v) == ~0ull ? __longlong_as_double(0x7ff8000000000000ll) : v;
    }
};

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

// y[row] = (alpha x[row] - sum) / diag[row], published to the rows that wait on it.
template <class T>
__device__ __forceinline__ T spsv_publish(i64 row, T sum, T alpha, const T* x, T* y, const T* diag, int unit,
                                          T* ready) {
    T r = add_rn(mul_rn(alpha, x[row]), -sum);
    if (!unit) r = r / diag[row];
    r = Ready<T>::publishable(r);
    y[row] = r;
    Ready<T>::store(&ready[row], r);
    return r;
}

// The next ticket of a warp (the same in every lane).
__device__ __forceinline__ u32 spsv_ticket(u32* ticket) {
    u32 t = 0;
    if ((threadIdx.x & 31) == 0) t = atomicAdd(ticket, 1u);
    return __shfl_sync(SPBLK_FULL_MASK, t, 0);
}

// Row c's value, waiting for it (its row belongs to an earlier ticket).
template <class T> __device__ __forceinline__ T spsv_wait(const T* ready, i64 c) {
    typename Ready<T>::Bits b;
    while (Ready<T>::none(b = Ready<T>::load(&ready[c]))) __nanosleep(32);
    return Ready<T>::value(b);
}

// The lane of row c in the warp whose ticket starts at position `first`, or -1.
__device__ __forceinline__ int lane_of(const u32* position, i64 first, i64 c) {
    const i64 off = (i64)position[c] - first;
    return off >= 0 && off < 32 ? (int)off : -1;
}

// Rows with more entries than this have their entries outside the warp summed by the whole warp.
#define SPSV_LONG_ROW 32

// A thread per row, 32 rows (consecutive in the solve order) per ticket. A thread never blocks: it
// takes its row's entries in order while their rows are published, and the warp goes round
// until all its rows are done. A row of the same warp (always an earlier lane) is read from
// that lane's register once the warp's ballot shows it done: a chain of neighbouring rows
// costs a round of the loop per row, not a trip through L2 per row. A round in which no lane
// moves sleeps briefly, so that waiting warps leave L2 to the rows being published. Long rows
// first have their entries outside the warp summed by all 32 lanes (lane-strided, a fixed
// tree), then their in-warp entries in order.
template <class T, class I>
__device__ void spsv_rows(i64 n, const I* __restrict__ ptr, const I* __restrict__ col, const T* __restrict__ val,
                          const T* __restrict__ diag, const u32* __restrict__ order, const u32* __restrict__ position,
                          int unit, const T* x, T* y, u32* ticket, T* ready, const T* alpha_dev, T alpha_h) {
    const int lane = threadIdx.x & 31;
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    for (u32 t = spsv_ticket(ticket); (i64)t * 32 < n; t = spsv_ticket(ticket)) {
        const i64 first = (i64)t * 32, k = first + lane;
        const i64 row = k < n ? (i64)order[k] : 0;
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
                if (lane_of(position, first, c) < 0) part = add_rn(part, mul_rn(val[q], spsv_wait(ready, c)));
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
                    const int at = lane_of(position, first, c);
                    if (at >= 0) {
                        src = at;
                        break;
                    }
                    if (!outside_summed) {
                        const typename Ready<T>::Bits b = Ready<T>::load(&ready[c]);
                        if (Ready<T>::none(b)) break;
                        sum = add_rn(sum, mul_rn(val[p], Ready<T>::value(b)));
                    }
                    ++p;
                }
            }
            const T theirs = __shfl_sync(SPBLK_FULL_MASK, mine, src);
            if (src != lane && ((done >> src) & 1u)) {
                sum = add_rn(sum, mul_rn(val[p], theirs));
                ++p;
            }
            if (active && p == e) mine = spsv_publish(row, sum, alpha, x, y, diag, unit, ready);
            const u32 now = __ballot_sync(SPBLK_FULL_MASK, !active || p == e);
            if (now == done && !__any_sync(SPBLK_FULL_MASK, p != before)) __nanosleep(64);
            done = now;
        }
    }
}

// A warp per row, for long rows: lane t takes entries t, t + 32, ... in order, waiting for
// each one's row; the lanes' sums are added in a fixed tree.
template <class T, class I>
__device__ void spsv_warp(i64 n, const I* __restrict__ ptr, const I* __restrict__ col, const T* __restrict__ val,
                          const T* __restrict__ diag, const u32* __restrict__ order, int unit, const T* x, T* y,
                          u32* ticket, T* ready, const T* alpha_dev, T alpha_h) {
    const int lane = threadIdx.x & 31;
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    for (u32 t = spsv_ticket(ticket); (i64)t < n; t = spsv_ticket(ticket)) {
        const i64 row = (i64)order[t];
        T sum = T(0);
        for (i64 p = (i64)ptr[row] + lane, e = (i64)ptr[row + 1]; p < e; p += 32)
            sum = add_rn(sum, mul_rn(val[p], spsv_wait(ready, (i64)col[p])));
        for (int o = 16; o > 0; o >>= 1) sum = add_rn(sum, __shfl_down_sync(SPBLK_FULL_MASK, sum, o));
        if (lane == 0) spsv_publish(row, sum, alpha, x, y, diag, unit, ready);
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
        i64 n, const I* ptr, const I* col, const T* val, const T* diag, const u32* order, const u32* position,  \
        int unit, const T* x, T* y, u32* ticket, T* ready, const T* alpha_dev, T alpha) {                        \
        spsv_rows<T, I>(n, ptr, col, val, diag, order, position, unit, x, y, ticket, ready, alpha_dev, alpha);    \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(128) spblk_spsv_warp_##tval##_##tidx(                           \
        i64 n, const I* ptr, const I* col, const T* val, const T* diag, const u32* order, const u32* position,  \
        int unit, const T* x, T* y, u32* ticket, T* ready, const T* alpha_dev, T alpha) {                        \
        (void)position;                                                                                          \
        spsv_warp<T, I>(n, ptr, col, val, diag, order, unit, x, y, ticket, ready, alpha_dev, alpha);              \
    }

SPSV_PATTERN_ENTRY(int, i32)
SPSV_PATTERN_ENTRY(long long, i64)
SPSV_ENTRY(float, f32, int, i32)
SPSV_ENTRY(float, f32, long long, i64)
SPSV_ENTRY(double, f64, int, i32)
SPSV_ENTRY(double, f64, long long, i64)
