// Triangular solves (SpSV) without level synchronization (after Liu et al., "A synchronization-
// free algorithm for parallel sparse triangular solves", Euro-Par 2016; docs/spsv.md).
//
// The analysis (analysis.cu) copies op(A)'s strict triangle into the caller's buffer in solve
// order, the rows sorted by level (order.cu): position s holds the s-th row of the order, and
// its entries name the positions of the rows they wait on.
//
// The solve's warps take tickets in order (up to 32 short rows, or one long row, or one row in
// the warp kernel), so every row a row waits on belongs to a warp that is already running, or
// to an earlier lane of the same warp: no deadlock, whatever the scheduler does. A row is published by storing its value into
// `ready` (by position), whose words all hold READY_NONE (all bits set) at the start of a solve:
// the value is its own flag, so a reader needs one load and no fence (an aligned 4- or 8-byte
// store is seen whole or not at all), and a computed value with those bits is stored as the
// canonical NaN instead. Each row's sum runs in storage order (short rows in the thread kernel:
// bit for bit the host reference) or lane-strided with a fixed reduction tree (long rows, warp
// kernel): the same bits every run. Several right-hand sides (SpSM) multiply the tickets:
// ticket k is the rows of ticket k / cols in column k % cols (a column's rows keep their order,
// so the argument above holds per column), with a `ready` array per column; each column gets
// the bits a solve of that column alone gives. The ticket and `ready` are reset on the stream
// (memsets, or the block kernel of one_block.cu where it runs first), so the whole solve can be
// captured into a graph.
#include "spsv/solve.cuh"

// The next ticket of a warp (the same in every lane).
__device__ __forceinline__ u32 spsv_ticket(u32* ticket) {
    u32 t = 0;
    if ((threadIdx.x & 31) == 0) t = atomicAdd(ticket, 1u);
    return __shfl_sync(SPBLK_FULL_MASK, t, 0);
}


// The solve's tickets (analysis): a ticket starts at every 32nd position and at every long row
// and the position after it, so a ticket is either one long row or up to 32 short ones.
extern "C" __global__ void __launch_bounds__(256) spblk_spsv_ticket_flags(i64 n, const u32* ptr, u32* flags) {
    GRID_STRIDE(s, n) flags[s] = (s % 32 == 0) || spsv_long(ptr, (u32)s) || (s > 0 && spsv_long(ptr, (u32)s - 1));
}

// ticket_pos[t] = the first position of ticket t (flags scanned: each start's ticket);
// ticket_pos[T] = n; tickets[1] = T (tickets[0] is the solve's counter).
extern "C" __global__ void __launch_bounds__(256)
    spblk_spsv_ticket_place(i64 n, const u32* ptr, const u32* scanned, u32* ticket_pos, u32* tickets) {
    GRID_STRIDE(s, n) {
        if ((s % 32 == 0) || spsv_long(ptr, (u32)s) || (s > 0 && spsv_long(ptr, (u32)s - 1))) ticket_pos[scanned[s]] = (u32)s;
        if (s == 0) {
            ticket_pos[scanned[n]] = (u32)n;
            tickets[1] = scanned[n];
        }
    }
}

// A thread per row for tickets of short rows, a warp for a long row's ticket. A thread never
// blocks: it holds up to SPSV_BATCH of its row's entries in registers, polls the rows they wait
// on together, adds the published ones in storage order, and the warp goes round until all its
// rows are done. A row of the same ticket (always an earlier lane) is read from that lane's
// register once the warp's ballot shows it done: a chain of neighbouring rows costs a round of
// the loop per row, not a trip through L2. A round in which no lane moves sleeps briefly, so
// that waiting warps leave L2 to the rows being published. A long row's entries all wait on
// earlier tickets: the warp sums them lane-strided (a fixed tree), waiting for each.
template <class T, class R, bool MANY>
__device__ void spsv_rows(u32 n, const u32* __restrict__ ticket_pos, const u32* __restrict__ ptr,
                          const u32* __restrict__ col, const T* __restrict__ val, const T* __restrict__ diag,
                          const u32* __restrict__ row_of, int unit, const SpsvColumns<T, MANY> all,
                          u32* counter, u32 tickets, T* ready_all, const T* alpha_dev, T alpha_h) {
    const int lane = threadIdx.x & 31;
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    const u32 count = tickets * all.count();
    for (u32 k = spsv_ticket(counter); k < count; k = spsv_ticket(counter)) {
        const u32 t = MANY ? k / all.cols : k, j = MANY ? k % all.cols : 0;
        const SpsvColumns<T, MANY> xy = all.at(j);
        T* ready = MANY ? ready_all + (u64)j * n : ready_all;
        const u32 first = ticket_pos[t], last = ticket_pos[t + 1];
        if (last - first == 1 && spsv_long(ptr, first)) {
            spsv_warp_row<T, R>(first, ptr, col, val, diag, row_of, unit, xy, ready, alpha);
            continue;
        }
        const u32 s = first + lane;
        const bool valid = s < last;
        u32 p = 0, e = 0, row = 0;
        T xr = T(0), d = T(1);
        if (valid) {
            p = ptr[s];
            e = ptr[s + 1];
            row = row_of[s];
            xr = xy.x_of(row);
            d = diag[s];
        }
        T sum = T(0), mine = T(0);
        // The batch: entries bp .. bp + SPSV_BATCH (those at or past p are still to add).
        u32 bp = p, c[SPSV_BATCH];
        T v[SPSV_BATCH];
#pragma unroll
        for (int k = 0; k < SPSV_BATCH; ++k) {
            c[k] = bp + k < e ? col[bp + k] : 0;
            v[k] = bp + k < e ? val[bp + k] : T(0);
        }
        u32 done = __ballot_sync(SPBLK_FULL_MASK, !valid);
        while (done != SPBLK_FULL_MASK) {
            const bool active = !((done >> lane) & 1u);
            const u32 before = p;
            int src = lane;
            if (active && p < e) {
                typename R::Bits b[SPSV_BATCH];
#pragma unroll
                for (int k = 0; k < SPSV_BATCH; ++k)
                    if (bp + k >= p && bp + k < e && c[k] < first) b[k] = R::load(&ready[c[k]]);
                bool go = true;
#pragma unroll
                for (int k = 0; k < SPSV_BATCH; ++k) {
                    if (!go || bp + k < p || bp + k >= e) continue;
                    if (c[k] >= first) {
                        src = (int)(c[k] - first);
                        go = false;
                    } else if (R::none(b[k])) {
                        go = false;
                    } else {
                        sum = add_rn(sum, mul_rn(v[k], R::value(b[k])));
                        ++p;
                    }
                }
            }
            const T theirs = __shfl_sync(SPBLK_FULL_MASK, mine, src);
            if (src != lane && ((done >> src) & 1u)) {
                T vp = T(0);
#pragma unroll
                for (int k = 0; k < SPSV_BATCH; ++k)
                    if (bp + k == p) vp = v[k];
                sum = add_rn(sum, mul_rn(vp, theirs));
                ++p;
            }
            if (active && p < e && p == bp + SPSV_BATCH) {
                bp = p;
#pragma unroll
                for (int k = 0; k < SPSV_BATCH; ++k) {
                    c[k] = bp + k < e ? col[bp + k] : 0;
                    v[k] = bp + k < e ? val[bp + k] : T(0);
                }
            }
            if (active && p == e) mine = spsv_publish<T, R>(s, row, sum, alpha, xr, d, unit, xy, ready);
            const u32 now = __ballot_sync(SPBLK_FULL_MASK, !active || p == e);
            if (now == done && !__any_sync(SPBLK_FULL_MASK, p != before)) __nanosleep(32);
            done = now;
        }
    }
}

// A warp per position (and column), for matrices whose rows are long on average.
template <class T, class R, bool MANY>
__device__ void spsv_warp(u32 n, const u32* __restrict__ ptr, const u32* __restrict__ col, const T* __restrict__ val,
                          const T* __restrict__ diag, const u32* __restrict__ row_of, int unit,
                          const SpsvColumns<T, MANY> all, u32* counter, T* ready, const T* alpha_dev,
                          T alpha_h) {
    const T alpha = scalar_arg(alpha_dev, alpha_h);
    const u32 count = n * all.count();
    for (u32 k = spsv_ticket(counter); k < count; k = spsv_ticket(counter)) {
        const u32 s = MANY ? k / all.cols : k, j = MANY ? k % all.cols : 0;
        spsv_warp_row<T, R>(s, ptr, col, val, diag, row_of, unit, all.at(j), MANY ? ready + (u64)j * n : ready, alpha);
    }
}

// The kernels: `spblk_spsv_{rows,warp}_{many,one}_{f32,f64}`, `one` for a single column of
// consecutive elements (SpSV), `many` for any columns and steps (SpSM); `after_block`: the block
// kernel (one_block.cu) ran first, and either solved (then nothing is left to do) or reset the
// ticket counter and `ready` in place of the memsets.
#define SPSV_SOLVE_ENTRY(T, tval, MANY, kind)                                                                      \
    extern "C" __global__ void __launch_bounds__(128) spblk_spsv_rows_##kind##_##tval(                             \
        u32 n, const u32* ticket_pos, const u32* ptr, const u32* col, const T* val, const T* diag,                 \
        const u32* row_of, int unit, const T* x, i64 x_row, i64 x_col, T* y, i64 y_row, i64 y_col, u32 cols,      \
        u32* tickets, int after_block, T* ready, const T* alpha_dev, T alpha) {                                    \
        if (after_block && tickets[2] == SPSV_SOLVE_BLOCK) return;                                                 \
        const SpsvColumns<T, MANY> xy = {x, y, x_row, x_col, y_row, y_col, cols};                                \
        spsv_rows<T, Ready<T>, MANY>(n, ticket_pos, ptr, col, val, diag, row_of, unit, xy, tickets, tickets[1],   \
                                     ready, alpha_dev, alpha);                                                     \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(128) spblk_spsv_warp_##kind##_##tval(                             \
        u32 n, const u32* ticket_pos, const u32* ptr, const u32* col, const T* val, const T* diag,                 \
        const u32* row_of, int unit, const T* x, i64 x_row, i64 x_col, T* y, i64 y_row, i64 y_col, u32 cols,      \
        u32* tickets, int after_block, T* ready, const T* alpha_dev, T alpha) {                                    \
        if (after_block && tickets[2] == SPSV_SOLVE_BLOCK) return;                                                 \
        const SpsvColumns<T, MANY> xy = {x, y, x_row, x_col, y_row, y_col, cols};                                \
        spsv_warp<T, Ready<T>, MANY>(n, ptr, col, val, diag, row_of, unit, xy, tickets, ready, alpha_dev, alpha);  \
    }

SPSV_SOLVE_ENTRY(float, f32, false, one)
SPSV_SOLVE_ENTRY(double, f64, false, one)
SPSV_SOLVE_ENTRY(float, f32, true, many)
SPSV_SOLVE_ENTRY(double, f64, true, many)
