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
// the wait ends), and rows in the same ticket are resolved in registers, in dependency order.
// A level costs one trip through L2 between tickets, against about ten for the earlier
// push-based pass (dependent lists, a count per row lowered by compare-and-swap, a queue).
// Then a stable radix sort by level gives the order: within a level the rows keep their index
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

#define ORDER_PENDING 128  // polls a warp may leave outstanding while it walks on (4 per lane)
#define ORDER_LONG 64       // rows with more stored entries are walked after the others' levels are out

// One ticket's rows: the lane's row, its first stored entry (zero-based) and entry count.
struct OrderRows {
    u32 lo, hi;  // the ticket's rows [lo, hi)
    u32 start, len;
};

// Polls for levels not yet stored: each lane keeps up to four (column, row in the ticket), in
// shared memory while the walk goes on.
struct OrderPending {
    u32 col[ORDER_PENDING];
    unsigned char row[ORDER_PENDING];
};

// Waits until every outstanding poll is answered and folds the levels into `outer`.
__device__ __forceinline__ void order_drain(const u32* level, OrderPending& p, u32& count, u32* outer, int lane) {
    __syncwarp();  // the list as the walk left it
    u32 col[ORDER_PENDING / 32], row[ORDER_PENDING / 32];
    bool wait[ORDER_PENDING / 32];
#pragma unroll
    for (int m = 0; m < ORDER_PENDING / 32; ++m) {
        const u32 i = lane + 32u * m;
        wait[m] = i < count;
        col[m] = wait[m] ? p.col[i] : 0;
        row[m] = wait[m] ? p.row[i] : 0;
    }
    for (;;) {
        bool waiting = false;
#pragma unroll
        for (int m = 0; m < ORDER_PENDING / 32; ++m)
            if (wait[m]) {
                const u32 v = order_load(&level[col[m]]);
                if (v) {
                    atomicMax(&outer[row[m]], v);
                    wait[m] = false;
                } else {
                    waiting = true;
                }
            }
        if (!__any_sync(SPBLK_FULL_MASK, waiting)) break;
        __nanosleep(32);
    }
    count = 0;
    __syncwarp();  // the list is free again
}

// What a ticket's walk tallies per row of the ticket, in shared memory.
struct OrderTally {
    u32 inner[32];  // the ticket's rows it waits on, a bit each
    u32 outer[32];  // the highest level among earlier tickets' rows it waits on
    u32 kept[32];   // its kept entries
    u32 diag[32];   // its first diagonal entry (SPSV_NONE: none)
};

// Walks the stored entries of the lanes' rows with `take` set (warp-uniform call): kept entries
// (column below the row when `lower`, above otherwise) in the ticket set a bit of their row's
// `inner` word, the others fold their row's level into `outer` or, not stored yet, are left
// pending (waited for in place when the list is full); kept entries and the first diagonal
// entry are tallied.
template <class I>
__device__ void order_walk(const OrderRows& t, bool take, const I* col, i64 base, int lower, const u32* level,
                           OrderTally& y, OrderPending& p, u32& pending, int lane) {
    const RowRun run = row_run(t.start, take ? t.len : 0, lane);
    const u32 below = (1u << lane) - 1;
    for (u32 batch = 0; batch < run.total; batch += 32 * ORDER_BATCH) {
        u32 c[ORDER_BATCH], r[ORDER_BATCH], got[ORDER_BATCH];
        bool outside[ORDER_BATCH];
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k) {
            const u32 item = batch + lane + 32u * k;
            const int owner = row_run_owner(run, item);
            const u32 at = row_run_entry(run, owner, item);
            outside[k] = false;
            got[k] = 0;
            r[k] = (u32)owner;
            c[k] = 0;
            if (item < run.total) {
                const i64 cc = (i64)col[at] - base, row = (i64)(t.lo + owner);
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
        if (pending + left > ORDER_PENDING) {  // no room: wait here
            for (;;) {
                bool waiting = false;
#pragma unroll
                for (int k = 0; k < ORDER_BATCH; ++k)
                    if (outside[k] && !got[k]) {
                        got[k] = order_load(&level[c[k]]);
                        waiting |= !got[k];
                    }
                if (!__any_sync(SPBLK_FULL_MASK, waiting)) break;
                __nanosleep(32);
            }
        } else {
#pragma unroll
            for (int k = 0; k < ORDER_BATCH; ++k) {
                const bool late = outside[k] && !got[k];
                const u32 m = __ballot_sync(SPBLK_FULL_MASK, late);
                if (late) {
                    const u32 i = pending + __popc(m & below);
                    p.col[i] = c[k];
                    p.row[i] = (unsigned char)r[k];
                }
                pending += __popc(m);
            }
        }
#pragma unroll
        for (int k = 0; k < ORDER_BATCH; ++k)
            if (outside[k] && got[k]) atomicMax(&y.outer[r[k]], got[k]);
    }
}

// The level of the lane's row from the tally (final for the rows it is asked for and for every
// row of the ticket they wait on): the ticket's rows in dependency order, so that when lane k's
// turn comes every row it waits on has had its turn.
__device__ __forceinline__ u32 order_resolve(const OrderTally& y, int lower, int lane) {
    const u32 need = y.inner[lane];
    u32 highest = y.outer[lane];
    if (__any_sync(SPBLK_FULL_MASK, need != 0)) {
        for (int i = 0; i < 32; ++i) {
            const int k = lower ? i : 31 - i;
            const u32 at_k = __shfl_sync(SPBLK_FULL_MASK, highest, k) + 1;
            if ((need >> k) & 1u) highest = max(highest, at_k);
        }
    }
    return highest + 1;
}

// level[r] = 1 + the highest level among the rows r waits on (1: it waits on none), from the
// stored pattern of op(A) (ptr, col, base: rows of op(A); its strict `lower` or upper triangle
// is kept); zero before the launch. `tickets` (zero before the launch) hands out runs of 32
// rows: from row 0 up when `lower`, from row n - 1 down otherwise. A ticket's rows of more than
// ORDER_LONG entries are walked last, after the levels of the rows that do not wait on them are
// stored. The level is the value itself, so relaxed loads and stores suffice: nothing else is
// published with it. Unless NULL: kept[r] = row r's kept entries, diag_src[r] = the position in
// A's values (through `perm`, NULL: identity) of its first diagonal entry, or SPSV_NONE.
template <class I>
__device__ void order_levels(u32 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, u32* level,
                             u32* tickets, u32* kept, u32* diag_src) {
    __shared__ OrderTally tally[ORDER_WARPS];
    __shared__ OrderPending pend[ORDER_WARPS];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    OrderTally& y = tally[w];
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
        y.inner[lane] = y.outer[lane] = y.kept[lane] = 0;
        y.diag[lane] = SPSV_NONE;
        __syncwarp();
        u32 pending = 0;
        const bool long_row = rows.len > ORDER_LONG;
        const u32 long_rows = __ballot_sync(SPBLK_FULL_MASK, long_row);
        order_walk<I>(rows, !long_row, col, base, lower, level, y, pend[w], pending, lane);
        order_drain(level, pend[w], pending, y.outer, lane);
        bool stored = false;
        if (long_rows) {
            // The short rows that wait on no long row (through the ticket) are done.
            u32 late = long_rows, before = 0;
            const u32 need = y.inner[lane];
            while (late != before) {
                before = late;
                late = __ballot_sync(SPBLK_FULL_MASK, long_row || (need & late) != 0);
            }
            const u32 v = order_resolve(y, lower, lane);
            stored = row < rows.hi && !((late >> lane) & 1u);
            if (stored) order_store(&level[row], v);
            order_walk<I>(rows, long_row, col, base, lower, level, y, pend[w], pending, lane);
            order_drain(level, pend[w], pending, y.outer, lane);
        }
        const u32 v = order_resolve(y, lower, lane);
        if (row < rows.hi) {
            if (!stored) order_store(&level[row], v);
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
    extern "C" __global__ void __launch_bounds__(ORDER_WARPS * 32) spblk_spsv_order_levels_##tidx(            \
        u32 n, const I* ptr, const I* col, i64 base, int lower, const u32* perm, u32* level, u32* tickets,   \
        u32* kept, u32* diag_src) {                                                                           \
        order_levels<I>(n, ptr, col, base, lower, perm, level, tickets, kept, diag_src);                      \
    }

ORDER_ENTRY(int, i32)
ORDER_ENTRY(long long, i64)
