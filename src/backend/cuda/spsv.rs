//! Triangular solves on the GPU (kernels/spsv/analysis.cu, order.cu, sync_free.cu). The analysis
//! lives in the caller's buffer, as cuSPARSE's does: op(A)'s strict triangle with a copy of its
//! values and the diagonal, both in the order in which the solve takes rows (rows sorted by
//! level), the solve's tickets, and its ticket counter and published values. Nothing is
//! allocated and nothing waits for the GPU, so the analysis, the updates and the solves all
//! capture into graphs.

use std::ffi::c_void;

use super::convert::{pattern_with_perm, OpPattern};
use super::kernels::{index_tag, value_tag};
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::levels::{LevelOrder, Pattern, RowTally, SMALL_ROWS, SMALL_THREADS};
use super::prims::{scan, scan_tmp_bytes, Width};
use crate::backend::SpsvArgs;
use crate::error::{Error, Result};
use crate::trace;
use crate::types::{DataType, IndexType, SpsvUpdate};

/// Warps per block of the solve kernels (`__launch_bounds__(128)`).
const SOLVE_WARPS: u32 = 4;
/// Solve blocks per SM in the grid. Tickets follow the level order, so whichever blocks run take
/// the next rows; the f64 row kernel (122 registers) fits 4 blocks per SM at once, the others
/// start as those finish and find few or no tickets left.
const SOLVE_BLOCKS_PER_SM: u32 = 8;
/// From this many stored entries per row on, a warp takes each row.
const WARP_ROWS_FROM: i64 = 16;
/// Threads of the block kernel (`SPSV_BLOCK_THREADS` in one_block.cu), and the most shared
/// memory it takes for the published values: a solve held by one block needs all n of them.
const BLOCK_THREADS: u32 = 512;
const BLOCK_BYTES: usize = 200 << 10;
/// SpSV's solves of up to this many bytes of values are one launch that resets what it uses
/// for the next solve (kernels/spsv/one_block.cu, `spsv_once`); larger ones are memsets and the
/// grid kernel.
const ONCE_BYTES: usize = 1 << 20;

/// Where an analysis keeps each array in the buffer.
struct Layout {
    /// The solve's ticket counter, the number of tickets, where the solve runs (the grid or one
    /// block, chosen by the analysis), the levels' count and the parity of SpSV's next solve
    /// (u32 words 0-4), and where each ticket starts (kernels/spsv/sync_free.cu: one long row
    /// or up to 32 short ones).
    tickets: u64,
    ticket_pos: u64,
    /// Where each level starts in the solve order (kernels/spsv/one_block.cu).
    level_start: u64,
    /// The values the solve has published (by position, a run of n per right-hand side), all
    /// bits set while a row is not done. SpSV's single column has two runs: a solve publishes
    /// into one and resets the other for the next solve (kernels/spsv/grid.cuh).
    ready: u64,
    /// The triangle in solve order (kernels/spsv/analysis.cu): u32 offsets, entries naming the
    /// positions they wait on, each entry's source in A's values, the values; the diagonal's
    /// sources and values; the row at each position.
    ptr: u64,
    col: u64,
    src: u64,
    val: u64,
    diag_src: u64,
    diag: u64,
    order: u64,
    /// Analysis scratch: each row's kept entries and diagonal source (by row), each row's
    /// position in the order, the scans' partial sums, the level pass' space; CSR of op(A) if A
    /// must be converted.
    tally: RowTally,
    position: u64,
    ticket_flags: u64,
    scan_tmp: u64,
    levels: LevelOrder,
    pattern: OpPattern,
}

fn layout(l: Option<&Launcher>, c: &mut Carve, args: &SpsvArgs) -> Result<Layout> {
    let (n, nnz) = (args.a.rows as usize, args.a.nnz as usize);
    let vsz = args.value_type.size();
    let (tickets, ticket_pos, level_start) = (c.take(32), c.take((n + 1) * 4), c.take((n + 1) * 4));
    let (ptr, col, src) = (c.take((n + 1) * 4), c.take(nnz * 4), c.take(nnz * 4));
    let (diag_src, order) = (c.take(n * 4), c.take(n * 4));
    // The ordering pass' arrays are dead once the order is placed; the values, the diagonal and
    // the solve's published values are written only after that, so they share its space.
    let shared = c.offset();
    let levels = LevelOrder::carve(c, n);
    let ordering_end = c.offset();
    c.rewind(shared);
    let ready_len = ready_runs(args.cols, n * vsz) * n * vsz;
    let (val, diag, ready) = (c.take(nnz * vsz), c.take(n * vsz), c.take(ready_len));
    c.rewind(ordering_end.max(c.offset()));
    let mut at = Layout {
        tickets,
        ticket_pos,
        level_start,
        ready,
        ptr,
        col,
        src,
        val,
        diag_src,
        diag,
        order,
        tally: RowTally { kept: c.take(n * 4), diag_src: c.take(n * 4) },
        position: c.take(n * 4),
        ticket_flags: c.take((n + 1) * 4),
        scan_tmp: c.take(scan_tmp_bytes(n as u64 + 1, Width::U32)),
        levels,
        pattern: OpPattern { ptr: 0, col: 0, base: 0, perm: 0 },
    };
    at.pattern = pattern_with_perm(l, c, args.a, args.op_a)?;
    Ok(at)
}

pub fn buffer_size(args: &SpsvArgs) -> Result<usize> {
    let mut c = Carve::measure();
    layout(None, &mut c, args)?;
    Ok(c.size())
}

/// An analysis in the caller's buffer.
pub struct DeviceTriangle {
    n: i64,
    /// The right-hand sides the solve takes.
    cols: i64,
    nnz: i64,
    ity: IndexType,
    vty: DataType,
    unit: bool,
    /// The kept entries' columns are below their rows (else above).
    lower: bool,
    /// One block's shared memory holds the published values of a single right-hand side: the
    /// analysis may put the solve there (block 0 of SpSV's single launch).
    block_fits: bool,
    at: Layout,
}

pub fn analysis(l: &Launcher, args: &SpsvArgs, buffer: *mut c_void) -> Result<DeviceTriangle> {
    let (n, ity) = (args.a.rows, args.a.indices_type);
    // Positions are u32 words (u32::MAX: no diagonal entry), tickets (a row or 32, per
    // right-hand side) u32 counters.
    if args.a.nnz >= u32::MAX as i64 || n > i32::MAX as i64 || n * args.cols >= u32::MAX as i64 {
        return Err(Error::not_supported(format!(
            "a triangular solve on the GPU takes fewer than 2^32-1 stored entries, 2^31 rows and 2^32-1 rows \
             times right-hand sides (matA: {n} rows, {} entries; {} right-hand sides)",
            args.a.nnz, args.cols
        )));
    }
    let at = layout(Some(l), &mut Carve::new(buffer), args)?;
    let bytes = n as usize * args.value_type.size();
    let block_fits = args.cols == 1
        && n > 0
        && bytes <= BLOCK_BYTES
        && l.occupancy(&block_kernel(args.value_type, warp_rows(n, args.a.nnz)), BLOCK_THREADS, bytes as u32, 1)? > 0;
    let t = DeviceTriangle {
        n,
        cols: args.cols,
        nnz: args.a.nnz,
        ity,
        vty: args.value_type,
        unit: args.unit,
        lower: args.lower,
        block_fits,
        at,
    };
    if n == 0 {
        return Ok(t);
    }
    solve_order(l, &t)?;
    offsets_and_tickets(l, &t)?;
    place(l, &t, args.a.values as u64)?;
    solve_mode(l, &t)?;
    // The entries' values are placed with them; the diagonal's. A single launch's solves
    // reset what they use for the next one; the first finds it set here (the published values;
    // the ticket counter and parity: spblk_spsv_ticket_place).
    copy_values(l, &t, 0, args.a.values as u64, true)?;
    trace::note(format_args!(
        "SpSV analysis: n={n} nnz={} {} kernel, {}",
        args.a.nnz,
        if warp_rows(n, t.nnz) { "warp-per-row" } else { "thread-per-row" },
        if block_fits { "in one block or on the grid (by the levels, on the device)" } else { "on the grid" }
    ));
    Ok(t)
}

/// The order of the solve's positions: the rows sorted by level (`LevelOrder`), and each row's
/// position; each row's kept entries and diagonal source on the way.
fn solve_order(l: &Launcher, t: &DeviceTriangle) -> Result<()> {
    let (at, p) = (&t.at, t.at.pattern);
    let a = Pattern { ptr: p.ptr, col: p.col, nnz: t.nnz, base: p.base, perm: p.perm, ity: t.ity, lower: t.lower };
    at.levels.run(l, a, t.n, at.order, at.position, Some(at.tally))
}

/// Where the solve runs (kernels/spsv/one_block.cu): in one block when the values fit it and
/// its estimate (levels, their widths, what it can stage) beats the grid's, else on the whole
/// GPU.
fn solve_mode(l: &Launcher, t: &DeviceTriangle) -> Result<()> {
    let at = &t.at;
    let warp = warp_rows(t.n, t.nnz);
    let per_round = if warp { BLOCK_THREADS / 32 } else { BLOCK_THREADS };
    let shared = if t.block_fits { block_shared(l, t) } else { 0 };
    let args = Args::new()
        .u32(t.n as u32)
        .ptr(at.level_start)
        .ptr(at.ptr)
        .u32(shared as u32)
        .u32(t.vty.size() as u32)
        .i32(warp as i32)
        .u32(per_round)
        .ptr(at.tickets);
    l.launch("spblk_spsv_solve_mode", 1, BLOCK, 0, args)
}

/// The solve copy's offsets by position (kernels/spsv/analysis.cu), each position's diagonal
/// source, where each level starts (kernels/spsv/one_block.cu; read from the levels before the
/// values take their space), and the solve's tickets over the positions (sync_free.cu): a start
/// at every 32nd position and around every long row. Up to SMALL_ROWS rows, one launch
/// (kernels/spsv/small.cu).
fn offsets_and_tickets(l: &Launcher, t: &DeviceTriangle) -> Result<()> {
    let (at, n) = (&t.at, t.n as u64);
    let counts = Args::new().i64(t.n).ptr(at.order).ptr(at.tally.kept).ptr(at.tally.diag_src).ptr(at.ptr);
    let starts = counts.ptr(at.diag_src).ptr(at.levels.level()).ptr(at.level_start).ptr(at.tickets);
    if t.n <= SMALL_ROWS {
        return l.launch("spblk_spsv_arrange_small", 1, SMALL_THREADS, 0, starts.ptr(at.ticket_pos));
    }
    let rows = l.grid(n, BLOCK as u64);
    l.launch("spblk_spsv_arrange", rows, BLOCK, 0, starts)?;
    scan(l, at.ptr, n + 1, Width::U32, at.scan_tmp, 0)?;
    l.launch("spblk_spsv_ticket_flags", rows, BLOCK, 0, Args::new().i64(t.n).ptr(at.ptr).ptr(at.ticket_flags))?;
    scan(l, at.ticket_flags, n + 1, Width::U32, at.scan_tmp, 0)?;
    let place = Args::new().i64(t.n).ptr(at.ptr).ptr(at.ticket_flags).ptr(at.ticket_pos).ptr(at.tickets);
    l.launch("spblk_spsv_ticket_place", rows, BLOCK, 0, place)
}

/// The triangle in solve order (kernels/spsv/analysis.cu): each kept entry of op(A) moved to
/// its row's place with its column as a position, its source in A's values and its value (from
/// `values`).
fn place(l: &Launcher, t: &DeviceTriangle, values: u64) -> Result<()> {
    let (at, n, p) = (&t.at, t.n as u64, t.at.pattern);
    let place = Args::new()
        .u32(t.n as u32)
        .ptr(p.ptr)
        .ptr(p.col)
        .i64(p.base)
        .i32(t.lower as i32)
        .ptr(p.perm)
        .ptr(values)
        .ptr(at.position)
        .ptr(at.ptr)
        .ptr(at.col)
        .ptr(at.src)
        .ptr(at.val);
    let kernel = format!("spblk_spsv_place_{}_{}", index_tag(t.ity), value_tag(t.vty));
    l.launch(&kernel, l.grid(n.div_ceil(32), (BLOCK / 32) as u64), BLOCK, 0, place)
}

/// The analysis' copy of the kept entries' values (from their sources `src`; 0: the diagonal
/// only) and of the diagonal, from `values` (nnz of them, in A's storage order).
/// At the analysis (`unset_ready`), also the two runs of published values of a solve that resets
/// them itself, set to "not published" for its first solve.
fn copy_values(l: &Launcher, t: &DeviceTriangle, src: u64, values: u64, unset_ready: bool) -> Result<()> {
    if t.n == 0 {
        return Ok(());
    }
    let at = &t.at;
    let threads = if src == 0 { t.n } else { t.nnz.max(t.n) };
    let run = t.n as usize * t.vty.size();
    let unset = if unset_ready && once(t.cols, run) { 2 * run / 4 } else { 0 };
    l.launch(
        &format!("spblk_spsv_values_{}", value_tag(t.vty)),
        l.grid(threads.max(unset as i64) as u64, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .i64(t.n)
            .ptr(at.ptr)
            .ptr(src)
            .ptr(at.diag_src)
            .ptr(values)
            .ptr(at.val)
            .ptr(at.diag)
            .ptr(at.ready)
            .i64(unset as i64),
    )
}

pub fn update(l: &Launcher, t: &DeviceTriangle, values: *const c_void, part: SpsvUpdate) -> Result<()> {
    match part {
        SpsvUpdate::General => copy_values(l, t, t.at.src, values as u64, false),
        // The new diagonal comes in row order; the analysis keeps it in solve order.
        SpsvUpdate::Diagonal if t.n > 0 => l.launch(
            &format!("spblk_spsv_diagonal_{}", value_tag(t.vty)),
            l.grid(t.n as u64, BLOCK as u64),
            BLOCK,
            0,
            Args::new().i64(t.n).ptr(t.at.order).ptr(values as u64).ptr(t.at.diag),
        ),
        SpsvUpdate::Diagonal => Ok(()),
    }
}

/// Runs of n published values (`bytes` each): a single column's solve in one launch keeps two
/// (it resets one for the next solve while it uses the other), otherwise one per column (reset
/// before every solve).
fn ready_runs(cols: i64, bytes: usize) -> usize {
    if once(cols, bytes) {
        2
    } else {
        cols as usize
    }
}

/// A single column's solve is one launch (kernels/spsv/one_block.cu) for up to ONCE_BYTES of
/// values.
fn once(cols: i64, bytes: usize) -> bool {
    cols == 1 && bytes <= ONCE_BYTES
}

fn warp_rows(n: i64, nnz: i64) -> bool {
    n > 0 && nnz / n >= WARP_ROWS_FROM
}

/// Shared memory of the block kernel: the published values, and room to stage what it reads by
/// row (diagonal, rows, x by position, offsets, levels' starts) and the triangle's entries
/// (kernels/spsv/one_block.cu), as much of that as A's sizes bound within the device's limit
/// (the kernel stages by the exact sizes).
fn block_shared(l: &Launcher, t: &DeviceTriangle) -> usize {
    let (n, nnz, vsz) = (t.n as usize, t.nnz as usize, t.vty.size());
    let round = |b: usize| b.next_multiple_of(16);
    let rows = 3 * round(n * vsz) + 3 * round((n + 1) * 4);
    let staged = rows + round(nnz * vsz) + round(nnz * 4);
    // The kernel's own shared variables stay below this.
    let limit = (l.dev.shared_optin as usize).saturating_sub(1024);
    [staged, rows, round(n * vsz)].into_iter().find(|&b| b <= limit).unwrap_or(0)
}

fn block_kernel(vty: DataType, warp: bool) -> String {
    format!("spblk_spsv_once_{}_{}", if warp { "warp" } else { "rows" }, value_tag(vty))
}

/// The solve kernels' triangle arguments: offsets, entries, values, diagonal, rows, unit.
fn triangle(args: Args, t: &DeviceTriangle) -> Args {
    let at = &t.at;
    args.ptr(at.ptr).ptr(at.col).ptr(at.val).ptr(at.diag).ptr(at.order).i32(t.unit as i32)
}

pub fn solve(l: &Launcher, args: &SpsvArgs, t: &DeviceTriangle) -> Result<()> {
    if t.n == 0 || t.cols == 0 {
        return Ok(());
    }
    let alpha = Scalar::new(&args.alpha, t.vty, "alpha")?;
    let at = &t.at;
    let (x, y) = (args.x, args.y);
    // SpSV's single column of consecutive values has kernels of its own (no steps); up to
    // ONCE_BYTES of values, one launch that resets what it uses for the next solve.
    let one = t.cols == 1 && x.row_step == 1 && y.row_step == 1;
    let warp = warp_rows(t.n, t.nnz);
    if one && once(t.cols, t.n as usize * t.vty.size()) {
        // One launch that solves in one block or on the grid, as the analysis chose.
        let bytes = if t.block_fits { block_shared(l, t) } else { 0 };
        let kernel_args = triangle(Args::new().u32(t.n as u32).ptr(at.ticket_pos).ptr(at.level_start), t)
            .ptr(x.values as u64)
            .ptr(y.values as u64)
            .ptr(at.tickets)
            .ptr(at.ready)
            .u32(bytes as u32)
            .scalar(alpha);
        return l.launch(&block_kernel(t.vty, warp), l.dev.sm_count, BLOCK_THREADS, bytes as u32, kernel_args);
    }
    // The grid kernels start from a zero ticket counter and nothing published. Both runs of a
    // single column: a later solve of the same analysis may be a contiguous one in one launch
    // (SpSM with a column-major C of one column), which expects them reset.
    l.memset_u32(at.tickets, 0, 1)?;
    let run = t.n as usize * t.vty.size();
    l.memset_u32(at.ready, u32::MAX, ready_runs(t.cols, run) * run / 4)?;
    // The warp kernel takes one position per ticket; the row kernel the analysis' tickets.
    let (kernel, warps) = if warp { ("warp", t.n as u64) } else { ("rows", (t.n as u64).div_ceil(32)) };
    let columns = if one { "one" } else { "many" };
    l.launch(
        &format!("spblk_spsv_{kernel}_{columns}_{}", value_tag(t.vty)),
        l.resident_grid(warps * t.cols as u64, SOLVE_WARPS as u64, SOLVE_BLOCKS_PER_SM),
        SOLVE_WARPS * 32,
        0,
        triangle(Args::new().u32(t.n as u32).ptr(at.ticket_pos), t)
            .ptr(x.values as u64)
            .i64(x.row_step)
            .i64(x.col_step)
            .ptr(y.values as u64)
            .i64(y.row_step)
            .i64(y.col_step)
            .u32(t.cols as u32)
            .ptr(at.tickets)
            .ptr(at.ready)
            .scalar(alpha),
    )
}
