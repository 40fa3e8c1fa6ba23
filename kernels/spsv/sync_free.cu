// Triangular solves (SpSV) without level synchronization (after Liu et al., "A synchronization-
// free algorithm for parallel sparse triangular solves", Euro-Par 2016; docs/spsv.md).
//
// The analysis (analysis.cu) copies op(A)'s strict triangle into the caller's buffer in solve
// order, the rows sorted by level (order.cu): position s holds the s-th row of the order, and
// its entries name the positions of the rows they wait on.
//
// The solve's warps take tickets in order (up to 32 short rows, or one long row, or one row in the
// warp kernel), so every row a row waits on belongs to a warp that is already running, or to an
// earlier lane of the same warp: no deadlock, whatever the scheduler does. A row is published by
// storing its value into `ready` (by position), whose words all hold READY_NONE (all bits set) at
// the start of a solve: the value is its own flag, so a reader needs one load and no fence (an
// aligned 4- or 8-byte store is seen whole or not at all), and a computed value with those bits is
// stored as the canonical NaN instead. Each row's sum runs in the copy's order (op(A)'s storage
// order, reversed for an upper triangle so that the nearest rows, solved last, come last:
// analysis.cu): in order for short rows in the thread kernel (bit for bit the host reference),
// lane-strided with a fixed reduction tree for long rows (warp kernel): the same bits every run.
// Several right-hand sides (SpSM) multiply the tickets: ticket k is the rows of ticket k / cols in
// column k % cols (a column's rows keep their order, so the argument above holds per column), with
// a `ready` array per column; each column gets the bits a solve of that column alone gives. The
// ticket counter and `ready` are reset on the stream (memsets) or by the solve itself for the next
// one (grid.cuh), so the whole solve can be captured into a graph.
#include "spsv/grid.cuh"

// The solve's tickets (analysis): a ticket starts at every 32nd position and at every long row
// and the position after it, so a ticket is either one long row or up to 32 short ones
// (flags[n] = 0, for the scan).
extern "C" __global__ void __launch_bounds__(256) spblk_spsv_ticket_flags(i64 n, const u32* ptr, u32* flags) {
    GRID_STRIDE(s, n) {
        flags[s] = (s % 32 == 0) || spsv_long(ptr, (u32)s) || (s > 0 && spsv_long(ptr, (u32)s - 1));
        if (s == n - 1) flags[n] = 0;
    }
}

// ticket_pos[t] = the first position of ticket t (flags scanned: each start's ticket);
// ticket_pos[T] = n; tickets[1] = T; the solve's counter (tickets[0]) and parity (tickets[4])
// zero, as SpSV's self-resetting solve expects them (grid.cuh).
extern "C" __global__ void __launch_bounds__(256)
    spblk_spsv_ticket_place(i64 n, const u32* ptr, const u32* scanned, u32* ticket_pos, u32* tickets) {
    GRID_STRIDE(s, n) {
        if ((s % 32 == 0) || spsv_long(ptr, (u32)s) || (s > 0 && spsv_long(ptr, (u32)s - 1))) ticket_pos[scanned[s]] = (u32)s;
        if (s == 0) {
            ticket_pos[scanned[n]] = (u32)n;
            tickets[0] = 0;
            tickets[1] = scanned[n];
            tickets[4] = 0;
        }
    }
}

// The kernels: `spblk_spsv_{rows,warp}_{one,many}_{f32,f64}`, `one` for a single column of
// consecutive elements (SpSV), `many` for any columns and steps (SpSM); the ticket counter and
// `ready` are reset before them by memsets. SpSV's solves of up to 1 MB of values
// are one_block.cu's single launch instead (which resets itself: grid.cuh).
#define SPSV_SOLVE_ENTRY(T, tval, MANY, kind)                                                                      \
    extern "C" __global__ void __launch_bounds__(128) spblk_spsv_rows_##kind##_##tval(                             \
        u32 n, const u32* ticket_pos, const u32* ptr, const u32* col, const T* val, const T* diag,                 \
        const u32* row_of, int unit, const T* x, i64 x_row, i64 x_col, T* y, i64 y_row, i64 y_col, u32 cols,      \
        u32* tickets, T* ready, const T* alpha_dev, T alpha) {                                                     \
        const SpsvColumns<T, MANY> xy = {x, y, x_row, x_col, y_row, y_col, cols};                                \
        spsv_rows<T, Ready<T>, MANY, false>(n, ticket_pos, ptr, col, val, diag, row_of, unit, xy, tickets,        \
                                            tickets[1], ready, alpha_dev, alpha);                                  \
    }                                                                                                              \
    extern "C" __global__ void __launch_bounds__(128) spblk_spsv_warp_##kind##_##tval(                             \
        u32 n, const u32* ticket_pos, const u32* ptr, const u32* col, const T* val, const T* diag,                 \
        const u32* row_of, int unit, const T* x, i64 x_row, i64 x_col, T* y, i64 y_row, i64 y_col, u32 cols,      \
        u32* tickets, T* ready, const T* alpha_dev, T alpha) {                                                     \
        const SpsvColumns<T, MANY> xy = {x, y, x_row, x_col, y_row, y_col, cols};                                \
        spsv_warp<T, Ready<T>, MANY, false>(n, ptr, col, val, diag, row_of, unit, xy, tickets, ready, alpha_dev,   \
                                            alpha);                                                                \
    }

SPSV_SOLVE_ENTRY(float, f32, false, one)
SPSV_SOLVE_ENTRY(double, f64, false, one)
SPSV_SOLVE_ENTRY(float, f32, true, many)
SPSV_SOLVE_ENTRY(double, f64, true, many)
