// The order in which the synchronization-free solve (sync_free.cu) hands out rows: a topological
// order of the triangle's dependencies with the parallelism of its level sets, so that a whole
// wavefront of independent rows is in flight at once (docs/spsv.md).
//
// The analysis lists each row's dependents (the transpose of the strict triangle, counted and
// filled with atomics: the order within a list does not matter), each listed dependent with
// the range of its own list, so that one load tells a warp both which row it made ready and
// where that row's dependents are. Kahn's algorithm then runs in one kernel: a warp holds up to
// 32 rows (a lane each) and decrements their dependents' counters, up to 128 at a time spread
// over the lanes; a row whose counter reaches zero is appended to the order, and the warp keeps
// it on a lane that fell free (one trip through L2 per level for a chain) or, when none has,
// pushes it to a shared queue that idle lanes poll. A row enters the order only after every row
// it waits on did, so the order is topological. It varies from run to run; the solve's results
// do not (each row still sums its entries in storage order).
#include "common/types.cuh"

#define ORDER_EMPTY 0xffffffffffffffffull

__device__ __forceinline__ u32 order_load(const u32* p) {
    u32 v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ u64 order_load64(const u64* p) {
    u64 v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void order_store64(u64* p, u64 v) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// A row's dependents as [start, end) in the lists, packed (never ORDER_EMPTY: end < 2^32 - 1).
__device__ __forceinline__ u64 order_range(const u32* dep_ptr, u32 r) {
    return (u64)dep_ptr[r] | ((u64)dep_ptr[r + 1] << 32);
}

// dep_ptr[c] += 1 for every kept entry (r, c).
template <class I> __device__ void order_count(i64 n, const I* tri_ptr, const u32* tri_col, u32* dep_ptr) {
    GRID_STRIDE(j, (i64)tri_ptr[n]) atomicAdd(&dep_ptr[tri_col[j]], 1u);
}

// Lists each entry's row among the dependents of its column (cursor: the lists' offsets,
// advanced as they fill).
template <class I>
__device__ void order_fill(i64 n, const I* tri_ptr, const u32* tri_col, const u32* tri_row, u32* cursor,
                           u32* dep_rows) {
    GRID_STRIDE(j, (i64)tri_ptr[n]) dep_rows[atomicAdd(&cursor[tri_col[j]], 1u)] = tri_row[j];
}

// dep_range[j] = the list range of the j-th listed dependent.
extern "C" __global__ void __launch_bounds__(256)
    spblk_spsv_order_ranges(i64 n, const u32* dep_rows, const u32* dep_ptr, u64* dep_range) {
    GRID_STRIDE(j, (i64)dep_ptr[n]) dep_range[j] = order_range(dep_ptr, dep_rows[j]);
}

// waiting[r] = the number of rows r waits on; the rows that wait on none start the order and the
// queue (queue_ends: head and tail, packed; see order_queue).
template <class I>
__device__ void order_sources(i64 n, const I* tri_ptr, const u32* dep_ptr, u32* waiting, u64* queue, u32* order,
                              u64* queue_ends, u32* order_length) {
    const int lane = threadIdx.x & 31;
    const u32 below = (1u << lane) - 1;
    for (i64 base = ((i64)blockIdx.x * blockDim.x + threadIdx.x) & ~31ll; base < n;
         base += (i64)gridDim.x * blockDim.x) {
        const i64 r = base + lane;
        u32 w = 1;
        u64 range = 0;
        if (r < n) {
            w = (u32)(tri_ptr[r + 1] - tri_ptr[r]);
            waiting[r] = w;
            range = order_range(dep_ptr, (u32)r);
        }
        // Sources join the order; those with dependents the queue too.
        const u32 source = __ballot_sync(SPBLK_FULL_MASK, w == 0);
        const u32 queued = __ballot_sync(SPBLK_FULL_MASK, w == 0 && (u32)range != (u32)(range >> 32));
        u32 at = 0, qat = 0;
        if (lane == 0 && source) at = atomicAdd(order_length, (u32)__popc(source));
        if (lane == 0 && queued) qat = (u32)(atomicAdd(queue_ends, (u64)__popc(queued) << 32) >> 32);
        at = __shfl_sync(SPBLK_FULL_MASK, at, 0);
        qat = __shfl_sync(SPBLK_FULL_MASK, qat, 0);
        if ((source >> lane) & 1u) order[at + __popc(source & below)] = (u32)r;
        if ((queued >> lane) & 1u) queue[qat + __popc(queued & below)] = range;
    }
}

// The r-th set bit of m (r < popc(m)).
__device__ __forceinline__ int nth_bit(u32 m, int r) {
    for (int i = 0; i < r; ++i) m &= m - 1;
    return __ffs(m) - 1;
}

#define ORDER_BATCH 4

// Kahn's algorithm by persistent warps (see the top of the file). The sources are in the order and
// those with dependents in the queue before the launch; the queue slots past its tail read
// ORDER_EMPTY. `queue_ends` packs the queue's head (low word: slots handed out) and tail (high
// word: slots filled), so one load tells an idle warp whether there is work. The warps return
// once every row is in the order.
//
// A round is laid out so that its trips through L2 overlap: the polls of the queue slots and
// the order slots of the previous round's rows are used only after the round's own loads and
// decrements are issued, so a chain of rows on one warp costs two trips per level (its dependent
// lists, their counters).
extern "C" __global__ void __launch_bounds__(128)
    spblk_spsv_order_queue(u32 n, const u32* dep_rows, const u64* dep_range, u32* waiting, u64* queue, u32* order,
                           u64* queue_ends, u32* order_length) {
    const int lane = threadIdx.x & 31;
    const u32 below = (1u << lane) - 1;
    bool have = false, polling = false;
    u32 j = 0, e = 0, slot = 0;
    // The previous round's rows made ready, waiting for their order slots.
    u32 prev_child[ORDER_BATCH], prev_mask[ORDER_BATCH], prev_at = 0, prev_total = 0;
#pragma unroll
    for (int k = 0; k < ORDER_BATCH; ++k) prev_child[k] = prev_mask[k] = 0;
    u32 backoff = 32;
    if (order_load(order_length) >= n) return;  // every row waits on none
    for (;;) {
        // A warp that holds no row takes as many filled queue slots as it has idle lanes.
        if (!__any_sync(SPBLK_FULL_MASK, have)) {
            const u32 idle = __ballot_sync(SPBLK_FULL_MASK, !polling);
            u32 at = 0, got = 0;
            if (lane == 0 && idle) {
                const u64 ends = order_load64(queue_ends);
                const u32 head = (u32)ends, tail = (u32)(ends >> 32);
                if (tail > head) {
                    got = min((u32)__popc(idle), tail - head);
                    at = (u32)atomicAdd(queue_ends, (u64)got);
                }
            }
            at = __shfl_sync(SPBLK_FULL_MASK, at, 0);
            got = __shfl_sync(SPBLK_FULL_MASK, got, 0);
            const u32 rank = __popc(idle & below);
            if (!polling && rank < got) {
                slot = at + rank;
                polling = true;
            }
        }
        u64 polled = ORDER_EMPTY;
        if (polling && slot < n) polled = order_load64(&queue[slot]);
        // Up to 32 * ORDER_BATCH of the warp's pending dependents, in lane order.
        const u32 pending = have ? e - j : 0;
        u32 incl = pending;
        for (int o = 1; o < 32; o <<= 1) {
            const u32 t = __shfl_up_sync(SPBLK_FULL_MASK, incl, o);
            if (lane >= o) incl += t;
        }
        const u32 total = __shfl_sync(SPBLK_FULL_MASK, incl, 31);
        const u32 take = min(total, 32u * ORDER_BATCH);
        u32 child[ORDER_BATCH];
        u64 range[ORDER_BATCH];
        bool ready[ORDER_BATCH];
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k) {
            const u32 item = (u32)lane + 32u * k;
            child[k] = 0;
            range[k] = 0;
            ready[k] = false;
            if (32u * k >= take) continue;  // uniform across the warp
            int owner = 0;                  // the first lane whose inclusive count exceeds item
            for (int step = 16; step > 0; step >>= 1) {
                const u32 v = __shfl_sync(SPBLK_FULL_MASK, incl, owner + step - 1);
                if (v <= item) owner += step;
            }
            const u32 oj = __shfl_sync(SPBLK_FULL_MASK, j, owner);
            const u32 oexcl = __shfl_sync(SPBLK_FULL_MASK, incl - pending, owner);
            if (item < take) {
                const u32 at = oj + (item - oexcl);
                child[k] = dep_rows[at];
                range[k] = dep_range[at];
            }
        }
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k)
            if ((u32)lane + 32u * k < take) ready[k] = atomicSub(&waiting[child[k]], 1u) == 1u;
        // The previous round's rows take their order slots.
        if (prev_total) {
            const u32 prev_at_all = __shfl_sync(SPBLK_FULL_MASK, prev_at, 0);
            u32 before_k = 0;
#pragma unroll
            for (int k = 0; k < ORDER_BATCH; ++k) {
                if ((prev_mask[k] >> lane) & 1u) order[prev_at_all + before_k + __popc(prev_mask[k] & below)] = prev_child[k];
                before_k += __popc(prev_mask[k]);
            }
            if (prev_at_all + prev_total >= n) return;  // every row is in the order
        }
        bool moved = polled != ORDER_EMPTY;
        if (have) {
            const u32 excl = incl - pending;
            const u32 used = take > excl ? min(take - excl, pending) : 0;
            j += used;
            moved |= used > 0;
            if (j == e) have = false;
        }
        // The rows made ready join the order; those with dependents go to free lanes first.
        u32 busy_mask[ORDER_BATCH];
        u32 ready_total = 0, busy_total = 0;
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k) {
            prev_mask[k] = __ballot_sync(SPBLK_FULL_MASK, ready[k]);
            prev_child[k] = child[k];
            busy_mask[k] = __ballot_sync(SPBLK_FULL_MASK, ready[k] && (u32)range[k] != (u32)(range[k] >> 32));
            ready_total += __popc(prev_mask[k]);
            busy_total += __popc(busy_mask[k]);
        }
        prev_total = ready_total;
        // Lane 0 holds the slots' start; the warp reads it next round, so the atomic's trip
        // overlaps that round's loads.
        if (ready_total && lane == 0) prev_at = atomicAdd(order_length, ready_total);
        if (busy_total) {
            const u32 free_mask = __ballot_sync(SPBLK_FULL_MASK, !have && !polling);
            const u32 kept = min((u32)__popc(free_mask), busy_total);
            // The r-th busy row (in batch, then lane order) goes to the r-th free lane.
            const bool taker = !have && !polling && (u32)__popc(free_mask & below) < kept;
            int r = taker ? (int)__popc(free_mask & below) : -1;
#pragma unroll
            for (int k = 0; k < ORDER_BATCH; ++k) {
                const int here = __popc(busy_mask[k]);
                const bool mine = r >= 0 && r < here;
                const u64 v = __shfl_sync(SPBLK_FULL_MASK, range[k], mine ? nth_bit(busy_mask[k], r) : 0);
                if (mine) {
                    j = (u32)v;
                    e = (u32)(v >> 32);
                    have = true;
                    r = -1;
                } else if (r >= 0) {
                    r -= here;
                }
            }
            if (busy_total > kept) {
                u32 at = 0;
                if (lane == 0) at = (u32)(atomicAdd(queue_ends, (u64)(busy_total - kept) << 32) >> 32);
                at = __shfl_sync(SPBLK_FULL_MASK, at, 0);
                u32 before_k = 0;
#pragma unroll
                for (int k = 0; k < ORDER_BATCH; ++k) {
                    const bool busy = (busy_mask[k] >> lane) & 1u;
                    const u32 rank = before_k + __popc(busy_mask[k] & below);
                    if (busy && rank >= kept) order_store64(&queue[at + rank - kept], range[k]);
                    before_k += __popc(busy_mask[k]);
                }
            }
            moved = true;
        }
        // A polled slot that was filled gives its lane a row for the next round.
        if (polled != ORDER_EMPTY) {
            j = (u32)polled;
            e = (u32)(polled >> 32);
            have = true;
            polling = false;
        }
        if (__any_sync(SPBLK_FULL_MASK, moved || ready_total)) {
            backoff = 32;
        } else {
            u32 length = 0;
            if (lane == 0) length = order_load(order_length);
            if (__shfl_sync(SPBLK_FULL_MASK, length, 0) >= n) return;
            __nanosleep(backoff);
            backoff = min(backoff * 2, 1024u);
        }
    }
}

// position[order[s]] = s.
extern "C" __global__ void __launch_bounds__(256) spblk_spsv_order_positions(i64 n, const u32* order, u32* position) {
    GRID_STRIDE(s, n) position[order[s]] = (u32)s;
}

#define ORDER_ENTRY(I, tidx)                                                                                  \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_order_count_##tidx(                          \
        i64 n, const I* tri_ptr, const u32* tri_col, u32* dep_ptr) {                                          \
        order_count<I>(n, tri_ptr, tri_col, dep_ptr);                                                         \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_order_fill_##tidx(                           \
        i64 n, const I* tri_ptr, const u32* tri_col, const u32* tri_row, u32* cursor, u32* dep_rows) {        \
        order_fill<I>(n, tri_ptr, tri_col, tri_row, cursor, dep_rows);                                        \
    }                                                                                                         \
    extern "C" __global__ void __launch_bounds__(256) spblk_spsv_order_sources_##tidx(                        \
        i64 n, const I* tri_ptr, const u32* dep_ptr, u32* waiting, u64* queue, u32* order, u64* queue_ends,   \
        u32* order_length) {                                                                                  \
        order_sources<I>(n, tri_ptr, dep_ptr, waiting, queue, order, queue_ends, order_length);               \
    }

ORDER_ENTRY(int, i32)
ORDER_ENTRY(long long, i64)
