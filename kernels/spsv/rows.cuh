// What SpSV's level pass (order.cu) and its placement in solve order (analysis.cu) share.
#ifndef SPBLK_SPSV_ROWS_CUH
#define SPBLK_SPSV_ROWS_CUH

#include "common/row_run.cuh"

#define SPSV_NONE 0xffffffffu  // no diagonal entry

#endif
