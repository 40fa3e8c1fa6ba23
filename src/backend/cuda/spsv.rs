//! Triangular solves on the GPU (kernels/spsv/sync_free.cu, order.cu). The analysis lives in
//! the caller's buffer, as cuSPARSE's does: op(A)'s strict triangle with a copy of its values,
//! the diagonal, the order in which the solve takes rows (a topological order with the level
//! sets' parallelism), and the solve's ticket counter and published values. Nothing is
//! allocated and nothing waits for the GPU, so the analysis, the updates and the solves all
//! capture into graphs.

use std::ffi::c_void;

use super::convert::{pattern_with_perm, OpPattern};
use super::kernels::{index_tag, value_tag};
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::prims::{scan, scan_tmp_bytes, Width};
use crate::backend::SpsvArgs;
use crate::error::{Error, Result};
use crate::trace;
use crate::types::{DataType, IndexType, SpsvUpdate};

/// Warps per block of the solve kernels (`__launch_bounds__(128)`).
const SOLVE_WARPS: u32 = 4;
/// Solve blocks per SM (and of the ordering pass): tickets follow the analysis' topological
/// order, so a wavefront's rows are in flight together; more warps would only poll L2.
const SOLVE_BLOCKS_PER_SM: u32 = 8;
/// From this many stored entries per row on, a warp takes each row.
const WARP_ROWS_FROM: i64 = 16;

/// Where an analysis keeps each array in the buffer.
#[derive(Debug, Clone, Copy)]
struct Layout {
    /// The solve's ticket counter (a u32 word).
    ticket: u64,
    /// The values the solve has published, all bits set while a row is not done.
    ready: u64,
    ptr: u64,
    col: u64,
    src: u64,
    val: u64,
    diag_src: u64,
    diag: u64,
    /// The solve order (rows, u32) and each row's position in it (kernels/spsv/order.cu).
    order: u64,
    position: u64,
    /// Analysis scratch: the scan's partial sums; the ordering pass's dependent lists (offsets,
    /// fill cursors, rows), wait counts and queue counters; CSR of op(A) if A must be converted.
    scan_tmp: u64,
    dependent_ptr: u64,
    cursor: u64,
    dependent_rows: u64,
    waiting: u64,
    counters: u64,
    pattern: OpPattern,
}

fn layout(l: Option<&Launcher>, c: &mut Carve, args: &SpsvArgs) -> Result<Layout> {
    let (n, nnz) = (args.a.rows as usize, args.a.nnz as usize);
    let (isz, vsz) = (args.a.indices_type.size(), args.value_type.size());
    let mut at = Layout {
        ticket: c.take(4),
        ready: c.take(n * vsz),
        ptr: c.take((n + 1) * isz),
        col: c.take(nnz * isz),
        src: c.take(nnz * 4),
        val: c.take(nnz * vsz),
        diag_src: c.take(n * 4),
        diag: c.take(n * vsz),
        order: c.take(n * 4),
        position: c.take(n * 4),
        scan_tmp: c.take(scan_tmp_bytes(n as u64 + 1, width(args.a.indices_type))),
        dependent_ptr: c.take((n + 1) * 4),
        cursor: c.take(n * 4),
        dependent_rows: c.take(nnz * 4),
        waiting: c.take(n * 4),
        counters: c.take(8),
        pattern: OpPattern { ptr: 0, col: 0, base: 0, perm: 0 },
    };
    at.pattern = pattern_with_perm(l, c, args.a, args.op_a)?;
    Ok(at)
}

fn width(ity: IndexType) -> Width {
    if ity == IndexType::I64 {
        Width::U64
    } else {
        Width::U32
    }
}

pub fn buffer_size(args: &SpsvArgs) -> Result<usize> {
    let mut c = Carve::measure();
    layout(None, &mut c, args)?;
    Ok(c.size())
}

/// An analysis in the caller's buffer.
pub struct DeviceTriangle {
    n: i64,
    nnz: i64,
    ity: IndexType,
    vty: DataType,
    unit: bool,
    at: Layout,
}

pub fn analysis(l: &Launcher, args: &SpsvArgs, buffer: *mut c_void) -> Result<DeviceTriangle> {
    let (n, ity) = (args.a.rows, args.a.indices_type);
    // Positions are u32 words (u32::MAX: no diagonal entry), tickets u32 counters.
    if args.a.nnz >= u32::MAX as i64 || n > i32::MAX as i64 {
        return Err(Error::not_supported(format!(
            "SpSV on the GPU takes fewer than 2^32-1 stored entries and 2^31 rows (matA: {n} rows, {} entries)",
            args.a.nnz
        )));
    }
    let at = layout(Some(l), &mut Carve::new(buffer), args)?;
    let t = DeviceTriangle { n, nnz: args.a.nnz, ity, vty: args.value_type, unit: args.unit, at };
    if n == 0 {
        return Ok(t);
    }
    let p = at.pattern;
    let i = index_tag(ity);
    let rows = || Args::new().i64(n).ptr(p.ptr).ptr(p.col).i64(p.base).i32(args.lower as i32).ptr(p.perm);
    let grid = l.grid(n as u64, BLOCK as u64);
    l.launch(&format!("spblk_spsv_count_{i}"), grid, BLOCK, 0, rows().ptr(at.ptr).ptr(at.diag_src))?;
    // The counts (n of them, then a zero) become offsets, the last one the kept total.
    l.memset_u32(at.ptr + n as u64 * ity.size() as u64, 0, ity.size() / 4)?;
    scan(l, at.ptr, n as u64 + 1, width(ity), at.scan_tmp, 0)?;
    l.launch(&format!("spblk_spsv_fill_{i}"), grid, BLOCK, 0, rows().ptr(at.ptr).ptr(at.col).ptr(at.src))?;
    copy_values(l, &t, args.a.values as u64)?;
    solve_order(l, &t)?;
    trace::note(format_args!(
        "SpSV analysis: n={n} nnz={} {} kernel",
        args.a.nnz,
        if warp_rows(&t) { "warp-per-row" } else { "thread-per-row" }
    ));
    Ok(t)
}

/// The order of the solve's tickets (kernels/spsv/order.cu): each row's dependents listed, the
/// rows that wait on nothing queued, then the queue drained by warps that queue each row whose
/// last dependency they took.
fn solve_order(l: &Launcher, t: &DeviceTriangle) -> Result<()> {
    let (at, n, i) = (&t.at, t.n as u64, index_tag(t.ity));
    let rows = l.grid(n, BLOCK as u64);
    l.memset_u32(at.dependent_ptr, 0, n as usize + 1)?;
    let entries = l.grid(t.nnz.max(1) as u64, BLOCK as u64);
    l.launch(
        &format!("spblk_spsv_order_count_{i}"),
        entries,
        BLOCK,
        0,
        Args::new().i64(t.n).ptr(at.ptr).ptr(at.col).ptr(at.dependent_ptr),
    )?;
    scan(l, at.dependent_ptr, n + 1, Width::U32, at.scan_tmp, 0)?;
    l.copy(at.cursor, at.dependent_ptr, n as usize * 4)?;
    l.launch(
        &format!("spblk_spsv_order_fill_{i}"),
        rows,
        BLOCK,
        0,
        Args::new().i64(t.n).ptr(at.ptr).ptr(at.col).ptr(at.cursor).ptr(at.dependent_rows).ptr(at.waiting),
    )?;
    l.memset_u32(at.order, u32::MAX, n as usize)?;
    l.memset_u32(at.counters, 0, 2)?;
    let queue = || Args::new().i64(t.n);
    l.launch("spblk_spsv_order_sources", rows, BLOCK, 0, queue().ptr(at.waiting).ptr(at.order).ptr(at.counters))?;
    l.launch(
        "spblk_spsv_order_queue",
        l.resident_grid(n.div_ceil(32), SOLVE_WARPS as u64, SOLVE_BLOCKS_PER_SM),
        SOLVE_WARPS * 32,
        0,
        queue().ptr(at.dependent_ptr).ptr(at.dependent_rows).ptr(at.waiting).ptr(at.order).ptr(at.counters),
    )?;
    l.launch("spblk_spsv_order_positions", rows, BLOCK, 0, queue().ptr(at.order).ptr(at.position))
}

/// The analysis' copy of the kept entries' values and of the diagonal, from `values` (nnz of
/// them, in A's storage order).
fn copy_values(l: &Launcher, t: &DeviceTriangle, values: u64) -> Result<()> {
    if t.n == 0 {
        return Ok(());
    }
    let at = &t.at;
    l.launch(
        &format!("spblk_spsv_values_{}_{}", value_tag(t.vty), index_tag(t.ity)),
        l.grid(t.nnz.max(t.n) as u64, BLOCK as u64),
        BLOCK,
        0,
        Args::new().i64(t.n).ptr(at.ptr).ptr(at.src).ptr(at.diag_src).ptr(values).ptr(at.val).ptr(at.diag),
    )
}

pub fn update(l: &Launcher, t: &DeviceTriangle, values: *const c_void, part: SpsvUpdate) -> Result<()> {
    match part {
        SpsvUpdate::General => copy_values(l, t, values as u64),
        SpsvUpdate::Diagonal if t.n > 0 => l.copy(t.at.diag, values as u64, t.n as usize * t.vty.size()),
        SpsvUpdate::Diagonal => Ok(()),
    }
}

fn warp_rows(t: &DeviceTriangle) -> bool {
    t.n > 0 && t.nnz / t.n >= WARP_ROWS_FROM
}

pub fn solve(l: &Launcher, args: &SpsvArgs, t: &DeviceTriangle) -> Result<()> {
    if t.n == 0 {
        return Ok(());
    }
    let alpha = Scalar::new(&args.alpha, t.vty, "alpha")?;
    let at = &t.at;
    l.memset_u32(at.ticket, 0, 1)?;
    l.memset_u32(at.ready, u32::MAX, t.n as usize * t.vty.size() / 4)?;
    let (kernel, rows_per_warp) = if warp_rows(t) { ("warp", 1) } else { ("rows", 32) };
    let warps = (t.n as u64).div_ceil(rows_per_warp);
    l.launch(
        &format!("spblk_spsv_{kernel}_{}_{}", value_tag(t.vty), index_tag(t.ity)),
        l.resident_grid(warps, SOLVE_WARPS as u64, SOLVE_BLOCKS_PER_SM),
        SOLVE_WARPS * 32,
        0,
        Args::new()
            .i64(t.n)
            .ptr(at.ptr)
            .ptr(at.col)
            .ptr(at.val)
            .ptr(at.diag)
            .ptr(at.order)
            .ptr(at.position)
            .i32(t.unit as i32)
            .ptr(args.x.values as u64)
            .ptr(args.y.values as u64)
            .ptr(at.ticket)
            .ptr(at.ready)
            .scalar(alpha),
    )
}
