// The order in which the synchronization-free solve (sync_free.cu) hands out rows: a topological
// order of the triangle's dependencies with the parallelism of its level sets, so that a whole
// wavefront of independent rows is in flight at once (docs/spsv.md, session 20).
//
// The analysis lists each row's dependents (the transpose of the strict triangle, counted and
// filled with atomics: the order within a list does not matter), queues the rows that wait on
// nothing, and then warps take queued rows and decrement their dependents' counters, queueing
// each that reaches zero. A row is queued only after every row it waits on was taken, so the
// queue is a topological order. The queue's order varies from run to run; the solve's results
// do not (each row still sums its entries in storage order).
#include "common/types.cuh"

#define ORDER_NONE 0xffffffffu

__device__ __forceinline__ u32 load_relaxed(const u32* p) {
    u32 v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void store_relaxed(u32* p, u32 v) {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// dependents[c] += 1 for every kept entry (r, c) (the row's entries are tri_ptr[r]..).
template <class I>
__device__ void order_count(i64 n, const I* tri_ptr, const I* tri_col, u32* dependents) {
    const i64 count = (i64)tri_ptr[n];
    GRID_STRIDE(j, count) atomicAdd(&dependents[(i64)tri_col[j]], 1u);
}

// Lists each row among the dependents of its entries' columns (cursor: the lists' offsets,
// advanced as they fill); waiting[r] = the number of rows r waits on.
template <class I>
__device__ void order_fill(i64 n, const I* tri_ptr, const I* tri_col, u32* cursor, u32* dependent_rows,
                           u32* waiting) {
    GRID_STRIDE(r, n) {
        const i64 s = (i64)tri_ptr[r], e = (i64)tri_ptr[r + 1];
        for (i64 j = s; j < e; ++j) dependent_rows[atomicAdd(&cursor[(i64)tri_col[j]], 1u)] = (u32)r;
        waiting[r] = (u32)(e - s);
    }
}

// Queues the rows that wait on nothing (queue: order, with its tail at counters[1]).
extern "C" __global__ void __launch_bounds__(256)
    spblk_spsv_order_sources(i64 n, const u32* waiting, u32* order, u32* counters) {
    const int lane = threadIdx.x & 31;
    for (i64 base = ((i64)blockIdx.x * blockDim.x + threadIdx.x) & ~31ll; base < n;
         base += (i64)gridDim.x * blockDim.x) {
        const i64 r = base + lane;
        const bool source = r < n && waiting[r] == 0;
        const u32 mask = __ballot_sync(SPBLK_FULL_MASK, source);
        u32 slot = 0;
        if (lane == 0 && mask) slot = atomicAdd(&counters[1], (u32)__popc(mask));
        slot = __shfl_sync(SPBLK_FULL_MASK, slot, 0);
        if (source) order[slot + __popc(mask & ((1u << lane) - 1))] = (u32)r;
    }
}

// Warps take 32 queue slots at a time (head: counters[0]). A lane whose slot is filled takes
// that row and, one dependent per round, decrements the dependents' counts; the warp queues the
// dependents that reached zero in the round together (one atomic on the tail per round). Lanes
// never block: a warp goes round until all its slots are taken and their dependents counted.
extern "C" __global__ void __launch_bounds__(128)
    spblk_spsv_order_queue(i64 n, const u32* dependent_ptr, const u32* dependent_rows, u32* waiting, u32* order,
                           u32* counters) {
    const int lane = threadIdx.x & 31;
    for (;;) {
        u32 base = 0;
        if (lane == 0) base = atomicAdd(&counters[0], 32u);
        base = __shfl_sync(SPBLK_FULL_MASK, base, 0);
        if ((i64)base >= n) return;
        const i64 slot = (i64)base + lane;
        bool have = false, finished = slot >= n;
        u32 j = 0, e = 0;
        while (!__all_sync(SPBLK_FULL_MASK, finished)) {
            bool moved = false;
            if (!finished && !have) {
                const u32 r = load_relaxed(&order[slot]);
                if (r != ORDER_NONE) {
                    have = moved = true;
                    j = dependent_ptr[r];
                    e = dependent_ptr[r + 1];
                }
            }
            bool ready = false;
            u32 d = 0;
            if (have && j < e) {
                d = dependent_rows[j++];
                ready = atomicSub(&waiting[d], 1u) == 1u;
                moved = true;
            }
            if (have && j >= e) finished = true;
            const u32 mask = __ballot_sync(SPBLK_FULL_MASK, ready);
            if (mask) {
                u32 at = 0;
                if (lane == 0) at = atomicAdd(&counters[1], (u32)__popc(mask));
                at = __shfl_sync(SPBLK_FULL_MASK, at, 0);
                if (ready) store_relaxed(&order[at + __popc(mask & ((1u << lane) - 1))], d);
            }
            if (!__any_sync(SPBLK_FULL_MASK, moved)) __nanosleep(64);
        }
    }
}

// position[order[s]] = s.
extern "C" __global__ void __launch_bounds__(256) spblk_spsv_order_positions(i64 n, const u32* order, u32* position) {
    GRID_STRIDE(s, n) position[order[s]] = (u32)s;
}

#define ORDER_ENTRY(I, tidx)                                                                                  \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_order_count_##tidx(                          \
        i64 n, const I* tri_ptr, const I* tri_col, u32* dependents) {                                         \
        order_count<I>(n, tri_ptr, tri_col, dependents);                                                      \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_order_fill_##tidx(                           \
        i64 n, const I* tri_ptr, const I* tri_col, u32* cursor, u32* dependent_rows, u32* waiting) {          \
        order_fill<I>(n, tri_ptr, tri_col, cursor, dependent_rows, waiting);                                  \
    }

ORDER_ENTRY(int, i32)
ORDER_ENTRY(long long, i64)
