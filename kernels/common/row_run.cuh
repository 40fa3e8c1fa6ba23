// A warp's walk over the stored entries of up to 32 consecutive rows of a CSR pattern, a lane's
// row each, as one run of items in storage order (row by row): 32 consecutive items per step,
// so the column loads coalesce however long or short the rows are. Each item finds the lane
// whose row holds it by a binary search over the lanes' inclusive counts (five shuffles).
// Used by SpSV's level pass and placement (spsv/order.cu, analysis.cu) and by the incomplete
// factorizations' staged rows (factor/staged.cuh), which walk their dependencies' rows this way.
#ifndef SPBLK_COMMON_ROW_RUN_CUH
#define SPBLK_COMMON_ROW_RUN_CUH

#include "common/types.cuh"

struct RowRun {
    u32 start;  // the lane's row's first stored entry (zero-based)
    u32 incl;   // items up to and including the lane's row
    u32 excl;   // items before the lane's row
    u32 total;  // items of the walk (warp-uniform)
};

// The run over the lanes' rows with `len` items each (0 for a row the walk skips).
__device__ __forceinline__ RowRun row_run(u32 start, u32 len, int lane) {
    RowRun r;
    r.start = start;
    r.incl = len;
    for (int o = 1; o < 32; o <<= 1) {
        const u32 v = __shfl_up_sync(SPBLK_FULL_MASK, r.incl, o);
        if (lane >= o) r.incl += v;
    }
    r.excl = r.incl - len;
    r.total = __shfl_sync(SPBLK_FULL_MASK, r.incl, 31);
    return r;
}

// The lane whose row holds `item` (called by every lane of the warp; meaningless past the total).
__device__ __forceinline__ int row_run_owner(const RowRun& r, u32 item) {
    int owner = 0;  // the first lane whose inclusive count exceeds item
    for (int step = 16; step > 0; step >>= 1) {
        const u32 v = __shfl_sync(SPBLK_FULL_MASK, r.incl, owner + step - 1);
        if (v <= item) owner += step;
    }
    return owner;
}

// The stored entry of `item`, which `owner`'s row holds (called by every lane of the warp).
__device__ __forceinline__ u32 row_run_entry(const RowRun& r, int owner, u32 item) {
    return __shfl_sync(SPBLK_FULL_MASK, r.start, owner) + item - __shfl_sync(SPBLK_FULL_MASK, r.excl, owner);
}

#endif
