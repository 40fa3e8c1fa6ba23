// The analysis steps between the level pass and the placement (order.cu, analysis.cu) for
// triangles of up to SMALL_ROWS rows, each in one block: on such a triangle the device-wide sort
// by level and scans cost a launch or three each for little work (nnc1374, 1374 rows: ten
// launches of ~3 us of GPU each), so the sort, the offsets and the tickets are one launch apiece
// (docs/spsv.md, session 34). The results are those of the device-wide steps, bit for bit.
#include "common/warp.cuh"
#include "spsv/rows.cuh"
#include "spsv/solve.cuh"

#define SMALL_THREADS 1024
#define SMALL_ROWS 8192  // SMALL_ROWS + 1 words of shared memory: 32 KB

// order[s] = the s-th row of the rows sorted stably by level (1-based, from the level pass),
// position[r] = its position. A counting sort: the levels' counts scanned into their first
// positions, then one warp places 32 rows at a time in row order (a row's rank among the rows
// of its level is the rank among equal levels of its warp step plus those placed before).
extern "C" __global__ void __launch_bounds__(SMALL_THREADS)
    spblk_spsv_order_small(i64 n, const u32* level, u32* order, u32* position) {
    __shared__ u32 next[SMALL_ROWS + 1];  // per level: its count, then where its next row goes
    const int lane = threadIdx.x & 31;
    for (i64 i = threadIdx.x; i < n; i += blockDim.x) next[i] = 0;
    __syncthreads();
    for (i64 r = threadIdx.x; r < n; r += blockDim.x) atomicAdd(&next[level[r] - 1], 1u);
    __syncthreads();
    u32 carry = 0;
    for (i64 at = 0; at < n; at += blockDim.x) {
        const i64 i = at + threadIdx.x;
        const u32 v = i < n ? next[i] : 0u;
        u32 chunk;
        const u32 ex = block_exclusive_scan(v, chunk);
        if (i < n) next[i] = carry + ex;
        carry += chunk;
    }
    __syncthreads();
    if (threadIdx.x >= 32) return;
    const u32 below = (1u << lane) - 1;
    for (i64 first = 0; first < n; first += 32) {
        const i64 r = first + lane;
        const u32 key = r < n ? level[r] - 1 : SPSV_NONE;
        const u32 same = __match_any_sync(SPBLK_FULL_MASK, key);
        const u32 s = r < n ? next[key] + __popc(same & below) : 0u;
        __syncwarp();
        if (r < n && (same >> lane) == 1u) next[key] += __popc(same);  // the level's last lane
        __syncwarp();
        if (r < n) {
            order[s] = (u32)r;
            position[r] = s;
        }
    }
}

// spblk_spsv_arrange, the scan of its counts into the solve copy's offsets `ptr` (n + 1), and
// the solve's tickets (spblk_spsv_ticket_flags, the scan of the flags, spblk_spsv_ticket_place)
// in one block: ptr and ticket_pos are read back only by this block, after barriers.
extern "C" __global__ void __launch_bounds__(SMALL_THREADS)
    spblk_spsv_arrange_small(i64 n, const u32* order, const u32* kept, const u32* diag_src, u32* ptr,
                             u32* solve_diag_src, const u32* level, u32* level_start, u32* tickets, u32* ticket_pos) {
    u32 carry = 0;
    for (i64 at = 0; at <= n; at += blockDim.x) {
        const i64 s = at + threadIdx.x;
        u32 count = 0;
        if (s < n) count = spsv_arrange_row(n, s, order, kept, diag_src, solve_diag_src, level, level_start, tickets);
        u32 chunk;
        const u32 ex = block_exclusive_scan(count, chunk);
        if (s <= n) ptr[s] = carry + ex;
        carry += chunk;
    }
    __syncthreads();  // the offsets, for spsv_long
    carry = 0;
    for (i64 at = 0; at < n; at += blockDim.x) {
        const i64 s = at + threadIdx.x;
        const bool start = s < n && ((s % 32 == 0) || spsv_long(ptr, (u32)s) || (s > 0 && spsv_long(ptr, (u32)s - 1)));
        u32 chunk;
        const u32 ex = block_exclusive_scan((u32)start, chunk);
        if (start) ticket_pos[carry + ex] = (u32)s;
        carry += chunk;
    }
    if (threadIdx.x == 0) {
        ticket_pos[carry] = (u32)n;
        tickets[0] = 0;
        tickets[1] = carry;
        tickets[4] = 0;
    }
}
