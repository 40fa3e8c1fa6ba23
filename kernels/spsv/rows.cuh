// What SpSV's level pass (order.cu) and its placement in solve order (analysis.cu) share.
#ifndef SPBLK_SPSV_ROWS_CUH
#define SPBLK_SPSV_ROWS_CUH

#include "common/row_run.cuh"

#define SPSV_NONE 0xffffffffu  // no diagonal entry

// Row r = order[s], at position s of the solve order (rows by level): its diagonal's source
// moves to s, the level bounds are recorded (level_start[l - 1] = s at a level's first row;
// level_start[levels] = n and tickets[3] = levels at the last row); returns its kept entries.
// The arrange kernels (analysis.cu, small.cu) share it.
__device__ __forceinline__ u32 spsv_arrange_row(i64 n, i64 s, const u32* order, const u32* kept, const u32* diag_src,
                                                u32* solve_diag_src, const u32* level, u32* level_start,
                                                u32* tickets) {
    const u32 r = order[s];
    solve_diag_src[s] = diag_src[r];
    const u32 l = level[r];
    if (s == 0 || level[order[s - 1]] != l) level_start[l - 1] = (u32)s;
    if (s == n - 1) {
        level_start[l] = (u32)n;
        tickets[3] = l;
    }
    return kept[r];
}

#endif
