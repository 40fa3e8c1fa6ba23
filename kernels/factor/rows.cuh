// What the incomplete factorizations (ilu0.cu, ic0.cu) share: the analysis of A's pattern and
// the protocol by which a warp waits for the rows its row needs (docs/factor.md).
//
// A row's factor needs the rows its lower entries name, so warps take rows from a counter in
// the order of their levels (the analysis sorts them, as SpSV's, src/backend/cuda/levels.rs):
// every row a warp waits for was taken by a warp that is already running, and the persistent
// grid never deadlocks. (Row order is also safe but far slower: on a 2-D grid only the few
// lines that fit in the resident warps advance at once, a row per hop.) A finished row is published by a flag
// (`done`, reset by a memset per factorization): after a warp barrier lane 0 releases the
// flag; a reader acquires it in every lane and reads the row through L2.
#pragma once
#include "common/types.cuh"

#define FACTOR_NONE 0xffffffffu

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

__device__ __forceinline__ u32 factor_row_length(u32 i, const int* ptr, const u32* split, int base, int ic) {
    return ic ? split[i] - (u32)(ptr[i] - base) + 1 : (u32)(ptr[i + 1] - ptr[i]);
}
__device__ __forceinline__ bool factor_ticket_start(i64 s, const u32* order, const int* ptr, const u32* split, int base,
                                                    int ic) {
    const auto is_long = [&](i64 p) { return factor_row_length(order[p], ptr, split, base, ic) > FACTOR_LANE_ROW; };
    return s % 32 == 0 || is_long(s) || (s > 0 && is_long(s - 1));
}

// The factorization's tickets (analysis): a ticket starts at every 32nd position of the order
// and at every long row and the position after it, so a ticket is one long row or up to 32
// short ones (as SpSV's solve, kernels/spsv/sync_free.cu).
extern "C" __global__ void __launch_bounds__(256)
    spblk_factor_ticket_flags(i64 n, const u32* order, const int* ptr, const u32* split, int base, int ic, u32* flags) {
    GRID_STRIDE(s, n) flags[s] = factor_ticket_start(s, order, ptr, split, base, ic);
}

// ticket_pos[t] = the first position of ticket t (the flags scanned: each start's ticket);
// ticket_pos[T] = n; *tickets = T.
extern "C" __global__ void __launch_bounds__(256)
    spblk_factor_ticket_place(i64 n, const u32* order, const int* ptr, const u32* split, int base, int ic,
                              const u32* scanned, u32* ticket_pos, u32* tickets) {
    GRID_STRIDE(s, n) {
        if (factor_ticket_start(s, order, ptr, split, base, ic)) ticket_pos[scanned[s]] = (u32)s;
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

// Waits (every lane) until row k is published.
__device__ __forceinline__ void factor_wait(const u32* done, u32 k) {
    for (;;) {
        u32 v;
        asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(done + k) : "memory");
        if (v) return;
        __nanosleep(32);
    }
}

// Publishes row i: the warp barrier orders every lane's stores before lane 0's release store,
// which is cumulative (the idiom of CUTLASS's semaphore, with a block barrier there).
__device__ __forceinline__ void factor_publish(u32* done, u32 i) {
    __syncwarp();
    if ((threadIdx.x & 31) == 0) asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(done + i), "r"(1u) : "memory");
}

// A lane's rows: its short row waits on the rows its lower entries name without blocking the
// warp (a row of the same ticket belongs to an earlier lane, which must get to run): polls
// issued together, true once every row is done, then one acquire fence for them all.
__device__ __forceinline__ bool factor_all_done(const u32* done, const u32 (&k)[FACTOR_LANE_ROW], u32 count) {
    u32 seen[FACTOR_LANE_ROW];
#pragma unroll
    for (int m = 0; m < FACTOR_LANE_ROW; ++m) {
        seen[m] = 1;
        if ((u32)m < count) asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(seen[m]) : "l"(done + k[m]) : "memory");
    }
    bool all = true;
#pragma unroll
    for (int m = 0; m < FACTOR_LANE_ROW; ++m) all = all && seen[m] != 0;
    if (all) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    return all;
}

// Publishes a lane's row: the release store orders the lane's own stores before it.
__device__ __forceinline__ void factor_publish_lane(u32* done, u32 i) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(done + i), "r"(1u) : "memory");
}

// Brings the line holding p into L1: after the acquire, the rows a lane reads arrive together.
__device__ __forceinline__ void factor_prefetch(const void* p) { asm volatile("prefetch.global.L1 [%0];" ::"l"(p)); }

// The position of column j in [lo, hi) of a row (ascending columns), or FACTOR_NONE.
__device__ __forceinline__ u32 factor_find(const int* col, int base, u32 lo, u32 hi, u32 j) {
    const u32 end = hi;
    while (lo < hi) {
        const u32 mid = (lo + hi) / 2;
        if ((u32)(__ldg(col + mid) - base) < j) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < end && (u32)(__ldg(col + lo) - base) == j ? lo : FACTOR_NONE;
}

// A finished row's value, read through L2 (L1 may hold a line read before the row was done).
template <class T> __device__ __forceinline__ T factor_read(const T* p) { return __ldcg(p); }

// A lane's entry m of a row segment [from, to): its column (past `to`: FACTOR_NONE) and, once
// the row is done, its value. The columns do not change, so a warp loads them before it waits.
__device__ __forceinline__ u32 factor_column(u32 m, u32 to, const int* col, int base) {
    return m < to ? (u32)(col[m] - base) : FACTOR_NONE;
}
template <class T> __device__ __forceinline__ T factor_value(u32 m, u32 to, const T* val) {
    return m < to ? factor_read(val + m) : T(0);
}

// What a row needs of row k, loaded before waiting for it: its diagonal entry, the segment
// [from, to) of its entries that the row reads, and the lane's column of the segment's first
// 32 entries. After the wait only values remain to load, all at once.
struct FactorDep {
    u32 k, dk, from, to, first_col;
};
