// The order in which the synchronization-free solve (sync_free.cu) hands out rows: the rows
// sorted by level (the length of the longest chain of rows each waits on), so that a whole
// wavefront of independent rows is in flight at once and a window of positions spans few
// levels (docs/spsv.md, session 21).
//
// The analysis lists each row's dependents (the transpose of the strict triangle, counted and
// filled with atomics: the order within a list does not matter), each listed dependent with
// the range of its own list, so that one load tells a warp both which row it made ready and
// where that row's dependents are. Kahn's algorithm then runs in one kernel and computes the
// levels: each row has a word holding its level so far (high half) and the number of rows it
// still waits on (low half), which every row it waits on updates by compare-and-swap (level
// raised to its own plus one, count lowered by one), so the row that brings the count to zero
// knows the final level without another trip. A warp holds up to 32 rows (a lane each) and
// updates their dependents' words, up to 128 at a time spread over the lanes; a row made ready
// goes to a lane of the same warp that fell free (a chain costs three trips through L2 per
// level: its list, its dependents' words, the swap) or, when none has, to a shared queue that
// idle warps take from. Then a stable radix sort by level gives the order: within a level the
// rows keep their index order, so a warp's rows wait on neighbouring positions (its polls
// coalesce) and the order is the same every time.
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

// state[r] = (level 0, the number of rows r waits on); the rows that wait on none are found, and
// those with dependents queued as (row, level 0) (queue_ends: head and tail, packed; see
// order_levels).
template <class I>
__device__ void order_sources(i64 n, const I* tri_ptr, const u32* dep_ptr, u64* state, u64* queue, u64* queue_ends,
                              u32* found) {
    const int lane = threadIdx.x & 31;
    const u32 below = (1u << lane) - 1;
    for (i64 base = ((i64)blockIdx.x * blockDim.x + threadIdx.x) & ~31ll; base < n;
         base += (i64)gridDim.x * blockDim.x) {
        const i64 r = base + lane;
        u32 w = 1;
        bool lists = false;
        if (r < n) {
            w = (u32)(tri_ptr[r + 1] - tri_ptr[r]);
            state[r] = w;
            lists = dep_ptr[r + 1] != dep_ptr[r];
        }
        const u32 source = __ballot_sync(SPBLK_FULL_MASK, w == 0);
        const u32 queued = __ballot_sync(SPBLK_FULL_MASK, w == 0 && lists);
        u32 qat = 0;
        if (lane == 0 && source) atomicAdd(found, (u32)__popc(source));
        if (lane == 0 && queued) qat = (u32)(atomicAdd(queue_ends, (u64)__popc(queued) << 32) >> 32);
        qat = __shfl_sync(SPBLK_FULL_MASK, qat, 0);
        if ((queued >> lane) & 1u) queue[qat + __popc(queued & below)] = (u64)r;
    }
}

// The r-th set bit of m (r < popc(m)).
__device__ __forceinline__ int nth_bit(u32 m, int r) {
    for (int i = 0; i < r; ++i) m &= m - 1;
    return __ffs(m) - 1;
}

#define ORDER_BATCH 4

// Kahn's algorithm by persistent warps (see the top of the file). Before the launch the sources
// are counted in `found` and those with dependents queued; queue slots past the tail read
// ORDER_EMPTY; a queued row is its index (low half) and level (high half). `queue_ends` packs the
// queue's head (low word: slots handed out) and tail (high word: slots filled), so one load
// tells an idle warp whether there is work. The warps return once every row is found.
extern "C" __global__ void __launch_bounds__(128)
    spblk_spsv_order_levels(u32 n, const u32* dep_ptr, const u32* dep_rows, const u64* dep_range, u64* state,
                            u64* queue, u64* queue_ends, u32* found) {
    const int lane = threadIdx.x & 31;
    const u32 below = (1u << lane) - 1;
    bool have = false, polling = false;
    u32 j = 0, e = 0, level = 0, slot = 0;
    u32 backoff = 32;
    if (order_load(found) >= n) return;  // every row waits on none
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
        bool moved = false;
        if (polling && slot < n) {
            const u64 v = order_load64(&queue[slot]);
            if (v != ORDER_EMPTY) {
                const u32 r = (u32)v;
                j = dep_ptr[r];
                e = dep_ptr[r + 1];
                level = (u32)(v >> 32);
                have = true;
                polling = false;
                moved = true;
            }
        }
        // Up to 32 * ORDER_BATCH of the warp's pending dependents, in lane order.
        const u32 pending = have ? e - j : 0;
        u32 incl = pending;
        for (int o = 1; o < 32; o <<= 1) {
            const u32 t = __shfl_up_sync(SPBLK_FULL_MASK, incl, o);
            if (lane >= o) incl += t;
        }
        const u32 total = __shfl_sync(SPBLK_FULL_MASK, incl, 31);
        const u32 take = min(total, 32u * ORDER_BATCH);
        u32 child[ORDER_BATCH], child_level[ORDER_BATCH];
        u64 range[ORDER_BATCH], word[ORDER_BATCH];
        bool ready[ORDER_BATCH], swapping[ORDER_BATCH];
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k) {
            const u32 item = (u32)lane + 32u * k;
            child[k] = child_level[k] = 0;
            range[k] = word[k] = 0;
            ready[k] = swapping[k] = false;
            if (32u * k >= take) continue;  // uniform across the warp
            int owner = 0;                  // the first lane whose inclusive count exceeds item
            for (int step = 16; step > 0; step >>= 1) {
                const u32 v = __shfl_sync(SPBLK_FULL_MASK, incl, owner + step - 1);
                if (v <= item) owner += step;
            }
            const u32 oj = __shfl_sync(SPBLK_FULL_MASK, j, owner);
            const u32 oexcl = __shfl_sync(SPBLK_FULL_MASK, incl - pending, owner);
            const u32 olevel = __shfl_sync(SPBLK_FULL_MASK, level, owner);
            if (item < take) {
                const u32 at = oj + (item - oexcl);
                child[k] = dep_rows[at];
                range[k] = dep_range[at];
                child_level[k] = olevel + 1;  // the level the owner asks for
                swapping[k] = true;
            }
        }
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k)
            if (swapping[k]) word[k] = order_load64(&state[child[k]]);
        // Level raised, count lowered, by compare-and-swap until it takes.
        while (swapping[0] || swapping[1] || swapping[2] || swapping[3]) {
#pragma unroll
            for (int k = 0; k < ORDER_BATCH; ++k) {
                if (!swapping[k]) continue;
                const u32 lv = max((u32)(word[k] >> 32), child_level[k]);
                const u64 next = ((u64)lv << 32) | (u32)((u32)word[k] - 1u);
                const u64 seen = atomicCAS(&state[child[k]], word[k], next);
                if (seen == word[k]) {
                    swapping[k] = false;
                    ready[k] = (u32)next == 0;
                    child_level[k] = lv;
                } else {
                    word[k] = seen;
                }
            }
        }
        if (have) {
            const u32 excl = incl - pending;
            const u32 used = take > excl ? min(take - excl, pending) : 0;
            j += used;
            moved |= used > 0;
            if (j == e) have = false;
        }
        // The rows made ready are found; those with dependents go to free lanes first.
        u32 busy_mask[ORDER_BATCH];
        u32 ready_total = 0, busy_total = 0;
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k) {
            ready_total += __popc(__ballot_sync(SPBLK_FULL_MASK, ready[k]));
            busy_mask[k] = __ballot_sync(SPBLK_FULL_MASK, ready[k] && (u32)range[k] != (u32)(range[k] >> 32));
            busy_total += __popc(busy_mask[k]);
        }
        if (ready_total) {
            u32 before = 0;
            if (lane == 0) before = atomicAdd(found, ready_total);
            if (__shfl_sync(SPBLK_FULL_MASK, before, 0) + ready_total >= n) return;  // every row is found
        }
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
                const int src = mine ? nth_bit(busy_mask[k], r) : 0;
                const u64 v = __shfl_sync(SPBLK_FULL_MASK, range[k], src);
                const u32 lv = __shfl_sync(SPBLK_FULL_MASK, child_level[k], src);
                if (mine) {
                    j = (u32)v;
                    e = (u32)(v >> 32);
                    level = lv;
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
                    if (busy && rank >= kept)
                        order_store64(&queue[at + rank - kept], ((u64)child_level[k] << 32) | child[k]);
                    before_k += __popc(busy_mask[k]);
                }
            }
            moved = true;
        }
        if (__any_sync(SPBLK_FULL_MASK, moved || ready_total)) {
            backoff = 32;
        } else {
            u32 count = 0;
            if (lane == 0) count = order_load(found);
            if (__shfl_sync(SPBLK_FULL_MASK, count, 0) >= n) return;
            __nanosleep(backoff);
            backoff = min(backoff * 2, 128u);
        }
    }
}

// The sort's input: each row's level as its key, the row as its value.
extern "C" __global__ void __launch_bounds__(256) spblk_spsv_order_keys(i64 n, const u64* state, u32* keys, u32* rows) {
    GRID_STRIDE(r, n) {
        keys[r] = (u32)(state[r] >> 32);
        rows[r] = (u32)r;
    }
}

// order[s] = the s-th row of the rows sorted (stably) by level; position[r] = its position.
extern "C" __global__ void __launch_bounds__(256) spblk_spsv_order_place(i64 n, const u32* sorted, u32* order, u32* position) {
    GRID_STRIDE(s, n) {
        const u32 r = sorted[s];
        order[s] = r;
        position[r] = (u32)s;
    }
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
        i64 n, const I* tri_ptr, const u32* dep_ptr, u64* state, u64* queue, u64* queue_ends, u32* found) {  \
        order_sources<I>(n, tri_ptr, dep_ptr, state, queue, queue_ends, found);                               \
    }

ORDER_ENTRY(int, i32)
ORDER_ENTRY(long long, i64)
