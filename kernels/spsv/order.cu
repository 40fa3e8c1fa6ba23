// The order in which the synchronization-free solve (sync_free.cu) hands out rows: the rows
// sorted by level (the length of the longest chain of rows each waits on), so that a whole
// wavefront of independent rows is in flight at once and a window of positions spans few
// levels (docs/spsv.md, session 21).
//
// The levels are pulled, in the triangle's own row order (docs/spsv.md, session 29): every row
// a row waits on comes before it (after it, for an upper triangle), so persistent warps take
// tickets of 32 consecutive rows in that direction and each row's level is 1 + the highest
// level among the rows it waits on. A ticket's entries are read once, coalesced; rows in
// earlier tickets are polled until their level is stored (they are held by running warps, so
// the wait ends), rows in the same ticket are taken in dependency order, and each row's level
// is stored as soon as it is known (a row waits on its own rows, not on its ticket's). A level
// costs a trip through L2 between rows, against about ten for the push-based pass of sessions
// 21-28 (dependent lists, a count per row lowered by compare-and-swap, a queue). Then a stable radix sort by level gives the order: within a level the rows keep their index
// order, so a warp's rows wait on neighbouring positions (its polls coalesce) and the order is
// the same every time.
#include "spsv/rows.cuh"

#define ORDER_WARPS 4
#define ORDER_BATCH 4

__device__ __forceinline__ u32 order_load(const u32* p) {
    u32 v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void order_store(u32* p, u32 v) {
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

#define ORDER_LONG 64           // rows with more stored entries are walked after the others
#define ORDER_PAUSE_MIN 32      // ns between polls of a waiting warp, doubling up to
#define ORDER_PAUSE_MAX 1024    // (session 34: 256 and 2048 were slower on Poisson 3-D and power-law)

// One ticket's rows: the lane's row, its first stored entry (zero-based) and entry count.
struct OrderRows {
    u32 lo, hi;  // the ticket's rows [lo, hi)
    u32 start, len;
};

// What a ticket's walk tallies per row of the ticket, in shared memory.
struct OrderTally {
    u32 inner[32];  // the ticket's rows it waits on, a bit each
    u32 outer[32];  // the highest level among earlier tickets' rows it waits on
    u32 waits[32];  // its outstanding polls
    u32 level[32];  // its level once stored
    u32 kept[32];   // its kept entries
    u32 diag[32];   // its first diagonal entry (SPSV_NONE: none)
    u32 target[32]; // its latest outstanding poll (order_target_key; 0: none)
};

// The polls a warp may leave outstanding while it walks on (the rows they wait on, the ticket's
// rows waiting), `cap` of them, in dynamic shared memory. The launch sizes the list by the
// entries per row: a full list makes the walk wait in place, holding its ticket (power-law
// matrix: 13 ms with 128 polls, 1.05 ms with 1024; Poisson 3-D, whose tickets need fewer than
// 128, lost 1.45 -> 2.03 ms to the blocks per SM that 1024 cost: session 34).
struct OrderPolls {
    u32* col;
    unsigned char* row;
    u32 cap;
};

// A poll's key for `target`: the row stored last in the pass' direction has the highest key.
__device__ __forceinline__ u32 order_target_key(u32 c, int lower) { return lower ? c + 1 : ~c; }
__device__ __forceinline__ u32 order_target_row(u32 key, int lower) { return lower ? key - 1 : ~key; }

// Walks the stored entries of the lanes' rows with `take` set as one run: kept entries (column
// below the row when `lower`, above otherwise) in the ticket set a bit of their row's `inner`
// word, the others fold their row's level into `outer` or, not stored yet, are left as polls
// (`polls` of them, warp-uniform; waited for in place when the list is full); kept entries and
// the first diagonal entry are tallied.
template <class I>
__device__ void order_walk(const OrderRows& t, bool take, const I* col, i64 base, int lower, const u32* level,
                           OrderTally& y, const OrderPolls& list, u32& polls, int lane) {
    const RowRun run = row_run(t.start, take ? t.len : 0, lane);
    const u32 below = (1u << lane) - 1;
    for (u32 batch = 0; batch < run.total; batch += 32 * ORDER_BATCH) {
        u32 c[ORDER_BATCH], r[ORDER_BATCH], got[ORDER_BATCH];
        bool outside[ORDER_BATCH];
        // The batch's column loads first, all in flight at once (the tallies' atomics between
        // them kept the compiler from it: a long row took a load latency per step).
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k) {
            const u32 item = batch + lane + 32u * k;
            r[k] = (u32)row_run_owner(run, item);
            got[k] = row_run_entry(run, (int)r[k], item);  // the entry, until the level is loaded
            c[k] = item < run.total ? (u32)((i64)col[got[k]] - base) : 0;
        }
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k) {
            const u32 item = batch + lane + 32u * k;
            const int owner = (int)r[k];
            const u32 at = got[k];
            outside[k] = false;
            got[k] = 0;
            if (item < run.total) {
                const i64 cc = (i64)c[k], row = (i64)(t.lo + owner);
                c[k] = 0;
                if (cc == row) {
                    atomicMin(&y.diag[owner], at);
                } else if ((cc < row) == (lower != 0)) {
                    atomicAdd(&y.kept[owner], 1u);
                    c[k] = (u32)cc;
                    if (c[k] >= t.lo && c[k] < t.hi)
                        atomicOr(&y.inner[owner], 1u << (c[k] - t.lo));
                    else
                        outside[k] = true;
                }
            }
        }
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k)
            if (outside[k]) got[k] = order_load(&level[c[k]]);
        u32 left = 0;
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k) left += __popc(__ballot_sync(SPBLK_FULL_MASK, outside[k] && !got[k]));
        if (polls + left > list.cap) {  // no room: wait here
            for (u32 pause = ORDER_PAUSE_MIN;; pause = min(2 * pause, ORDER_PAUSE_MAX)) {
                bool waiting = false;
#pragma unroll
                for (int k = 0; k < ORDER_BATCH; ++k)
                    if (outside[k] && !got[k]) {
                        got[k] = order_load(&level[c[k]]);
                        waiting |= !got[k];
                    }
                if (!__any_sync(SPBLK_FULL_MASK, waiting)) break;
                __nanosleep(pause);
            }
        } else {
#pragma unroll
            for (int k = 0; k < ORDER_BATCH; ++k) {
                const bool late = outside[k] && !got[k];
                const u32 m = __ballot_sync(SPBLK_FULL_MASK, late);
                if (late) {
                    const u32 i = polls + __popc(m & below);
                    list.col[i] = c[k];
                    list.row[i] = (unsigned char)r[k];
                    atomicAdd(&y.waits[r[k]], 1u);
                    atomicMax(&y.target[r[k]], order_target_key(c[k], lower));
                }
                polls += __popc(m);
            }
        }
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k)
            if (outside[k] && got[k]) atomicMax(&y.outer[r[k]], got[k]);
    }
}

// One pass over the outstanding polls (answered ones are marked SPSV_NONE): each answer folds
// into its row's `outer` and lowers its `waits`; each row's `target` becomes its latest poll
// still outstanding. True if any was answered (warp-uniform).
__device__ __forceinline__ bool order_poll(const u32* level, OrderTally& y, const OrderPolls& list, u32 polls,
                                          int lower, int lane) {
    bool moved = false;
    y.target[lane] = 0;
    __syncwarp();
    for (u32 m = 0; m < (polls + 31) / 32; ++m) {
        const u32 i = lane + 32u * m;
        const u32 c = i < polls ? list.col[i] : SPSV_NONE;
        if (c != SPSV_NONE) {
            const u32 v = order_load(&level[c]);
            if (v) {
                const u32 r = list.row[i];
                atomicMax(&y.outer[r], v);
                atomicSub(&y.waits[r], 1u);
                list.col[i] = SPSV_NONE;
                moved = true;
            } else {
                atomicMax(&y.target[list.row[i]], order_target_key(c, lower));
            }
        }
    }
    __syncwarp();
    return __any_sync(SPBLK_FULL_MASK, moved);
}

// Whether any row's latest outstanding poll (its `target`) is answered (warp-uniform). Rows are
// stored roughly in the pass' order, so a row's other polls are mostly answered by then: a
// waiting warp loads one word per row instead of its whole list (power-law matrix, 128 polls a
// warp: 13.0 -> 10.4 ms; the poll list's size was the larger cause: session 34's probe).
__device__ __forceinline__ bool order_target_answered(const u32* level, const OrderTally& y, int lower, int lane) {
    const u32 key = y.target[lane];
    return __any_sync(SPBLK_FULL_MASK, key != 0 && order_load(&level[order_target_row(key, lower)]) != 0);
}

// Stores the levels of the rows that are ready: walked, polls answered, and every row of the
// ticket they wait on stored or ready too. `done` (warp-uniform) has a bit for each row stored
// or outside the ticket. The ready rows go at once: the ticket's rows in dependency order
// through registers, so that when lane k's turn comes every row it waits on has had its turn.
__device__ __forceinline__ void order_store_ready(const OrderRows& t, u32 walked, int lower, u32* level,
                                                  OrderTally& y, u32& done, int lane) {
    const u32 need = y.inner[lane];
    const bool known = ((walked & ~done) >> lane) & 1u && y.waits[lane] == 0;
    u32 ready = __ballot_sync(SPBLK_FULL_MASK, known);
    for (;;) {  // drop rows that wait on a row of the ticket that is neither stored nor ready
        const u32 next = __ballot_sync(SPBLK_FULL_MASK, known && (need & ~(done | ready)) == 0);
        if (next == ready) break;
        ready = next;
    }
    if (!ready) return;
    const bool mine = (ready >> lane) & 1u;
    // Rows neither stored nor ready hold garbage here, but no ready row waits on them.
    u32 highest = mine ? y.outer[lane] : y.level[lane] - 1;
    if (__any_sync(SPBLK_FULL_MASK, mine && need != 0)) {
        for (int i = 0; i < 32; ++i) {
            const int k = lower ? i : 31 - i;
            const u32 at_k = __shfl_sync(SPBLK_FULL_MASK, highest, k) + 1;
            if (mine && ((need >> k) & 1u)) highest = max(highest, at_k);
        }
    }
    if (mine) {
        y.level[lane] = highest + 1;
        order_store(&level[t.lo + lane], highest + 1);
    }
    done |= ready;
    __syncwarp();
}

// level[r] = 1 + the highest level among the rows r waits on (1: it waits on none), from the
// stored pattern of op(A) (ptr, col, base: rows of op(A); its strict `lower` or upper triangle
// is kept); zero before the launch. `tickets` (zero before the launch) hands out runs of 32
// rows: from row 0 up when `lower`, from row n - 1 down otherwise. A warp walks its ticket's
// entries once (rows of more than ORDER_LONG entries last), leaving the polls of rows not yet
// stored outstanding, then stores each row's level as soon as that row's polls are answered, so
// a row waits only on its own rows, not on the rest of its ticket's. The level is the value
// itself, so relaxed loads and stores suffice: nothing else is published with it. Unless NULL:
// kept[r] = row r's kept entries, diag_src[r] = the position in A's values (through `perm`,
// NULL: identity) of its first diagonal entry, or SPSV_NONE.
template <class I>
__device__ void order_levels(u32 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, u32* level,
                             u32* tickets, u32* kept, u32* diag_src, u32 poll_cap) {
    __shared__ OrderTally tally[ORDER_WARPS];
    extern __shared__ u32 order_poll_space[];  // ORDER_WARPS * poll_cap columns, then as many rows
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    OrderTally& y = tally[w];
    const OrderPolls list = {order_poll_space + w * poll_cap,
                             (unsigned char*)(order_poll_space + ORDER_WARPS * poll_cap) + w * poll_cap, poll_cap};
    for (;;) {
        u32 t = 0;
        if (lane == 0) t = atomicAdd(tickets, 1u);
        t = __shfl_sync(SPBLK_FULL_MASK, t, 0);
        if ((u64)t * 32 >= n) return;
        const u32 past = t * 32;  // rows already handed out
        OrderRows rows;
        rows.lo = lower ? past : (n - past > 32 ? n - past - 32 : 0);
        rows.hi = lower ? min(n, past + 32) : n - past;
        const u32 row = rows.lo + lane;
        rows.start = rows.len = 0;
        if (row < rows.hi) {
            rows.start = (u32)((i64)ptr[row] - base);
            rows.len = (u32)((i64)ptr[row + 1] - base - rows.start);
        }
        y.inner[lane] = y.outer[lane] = y.waits[lane] = y.level[lane] = y.kept[lane] = 0;
        y.diag[lane] = SPSV_NONE;
        y.target[lane] = 0;
        __syncwarp();
        u32 polls = 0;
        const bool long_row = rows.len > ORDER_LONG;
        const u32 long_rows = __ballot_sync(SPBLK_FULL_MASK, long_row);
        u32 done = __ballot_sync(SPBLK_FULL_MASK, row >= rows.hi);  // rows stored or outside the ticket
        order_walk<I>(rows, !long_row, col, base, lower, level, y, list, polls, lane);
        if (long_rows) {
            // The short rows whose polls are answered go out before the long rows are walked.
            __syncwarp();
            order_poll(level, y, list, polls, lower, lane);
            order_store_ready(rows, ~long_rows, lower, level, y, done, lane);
            order_walk<I>(rows, long_row, col, base, lower, level, y, list, polls, lane);
        }
        __syncwarp();
        // Waiting, the pause between polls doubles: the fewer loads of waiting warps leave L2
        // to those that make progress.
        u32 pause = ORDER_PAUSE_MIN;
        for (;;) {
            order_store_ready(rows, SPBLK_FULL_MASK, lower, level, y, done, lane);
            if (done == SPBLK_FULL_MASK) break;
            if (order_target_answered(level, y, lower, lane) && order_poll(level, y, list, polls, lower, lane)) {
                pause = ORDER_PAUSE_MIN;
            } else {
                __nanosleep(pause);
                pause = min(2 * pause, ORDER_PAUSE_MAX);
            }
        }
        if (row < rows.hi) {
            if (kept) kept[row] = y.kept[lane];
            if (diag_src) {
                const u32 d = y.diag[lane];
                diag_src[row] = d == SPSV_NONE || !perm ? d : perm[d];
            }
        }
        __syncwarp();  // the next ticket clears the tally
    }
}

// The sort's input: each row's level less one as its key (below n), the row as its value.
extern "C" __global__ void __launch_bounds__(256) spblk_spsv_order_keys(i64 n, const u32* level, u32* keys, u32* rows) {
    GRID_STRIDE(r, n) {
        keys[r] = level[r] - 1;
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
    extern "C" __global__ void __launch_bounds__(ORDER_WARPS * 32, 16) spblk_spsv_order_levels_##tidx(         \
        u32 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, u32* level, u32* tickets,   \
        u32* kept, u32* diag_src, u32 poll_cap) {                                                             \
        order_levels<I>(n, ptr, col, base, lower, perm, level, tickets, kept, diag_src, poll_cap);            \
    }

ORDER_ENTRY(int, i32)
ORDER_ENTRY(long long, i64)
