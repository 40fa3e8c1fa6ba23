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
