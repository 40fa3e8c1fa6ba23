//! SpMV on CSR of op(A): the merge tiles (kernels/spmv/merge.cu, `ALG_CSR_MERGE`; the default
//! for large matrices of short rows), the row groups (kernels/spmv/csr.cu, `ALG_CSR_ROWS`; the
//! default for small matrices and long rows, also used by SpMM with one column), and the
//! textbook scalar and vector kernels (kernels/spmv/scalar.cu, vector.cu). docs/spmv.md has
//! the designs and the measurements behind the default's choice (src/ops/dispatch.rs).
//!
//! Workspace: CSR of op(A) when A must be converted, plus, for the row groups, the long-row
//! bookkeeping (a counter, the list of rows longer than the threshold, their chunk offsets and
//! one partial sum per chunk, bounded by nnz / threshold), and for the merge tiles two partial
//! sums and a row index per tile when a row may be long. Nothing is allocated, synchronized or
//! copied to the host, so a call can be captured in a CUDA graph.

use super::convert::{csr_of_op, Csr};
use super::kernels::{index_tag, value_tag};
use super::launch::{pow2_clamp, Args, Carve, Launcher, Scalar, BLOCK};
use crate::backend::{SpmvArgs, SpmvMethod};
use crate::error::{Error, Result};
use crate::plan::{OperandPlan, SpmvTiles};
use crate::trace;
use crate::types::{DataType, Precision};

/// Entries per chunk of a long row (one block sums a chunk).
const CHUNK: i64 = 2048;

/// Strided dense vector: element i at `ptr + i*inc` (elements).
#[derive(Clone, Copy)]
pub struct Strided {
    pub ptr: u64,
    pub inc: i64,
}

/// Lanes per row and the long-row threshold, from the average row length: about four
/// entries per lane, so that a warp works on several rows at once and each lane has several
/// independent loads in flight (the kernel is latency-bound per row, not lane-bound).
fn shape(csr: &Csr) -> (u32, i64) {
    let avg = if csr.rows > 0 { (csr.nnz as u64).div_ceil(csr.rows as u64) } else { 0 };
    let g = pow2_clamp(avg / 4, 2, 32);
    (g, (64 * g as i64).max(1024))
}

pub struct LongRows {
    count: u64,
    list: u64,
    prefix: u64,
    partial: u64,
    max_rows: u64,
    max_chunks: u64,
    threshold: i64,
}

/// Reserves the long-row bookkeeping; `None` when no row can be long (from the sizes, or from
/// the longest row that a plan measured: then the row kernel runs alone, with no memset).
pub fn long_rows(c: &mut Carve, csr: &Csr, compute: DataType, plan: Option<&OperandPlan>) -> Option<LongRows> {
    let (_, threshold) = shape(csr);
    let max_rows = (csr.rows as u64).min(csr.nnz as u64 / (threshold as u64 + 1));
    if max_rows == 0 || plan.is_some_and(|p| p.max_row_len <= threshold) {
        return None;
    }
    let max_chunks = csr.nnz as u64 / CHUNK as u64 + max_rows;
    Some(LongRows {
        count: c.take(4),
        list: c.take(max_rows as usize * 8),
        prefix: c.take((max_rows as usize + 1) * 8),
        partial: c.take(max_chunks as usize * compute.size()),
        max_rows,
        max_chunks,
        threshold,
    })
}

pub fn in_bytes(p: &Precision) -> i32 {
    p.input.size() as i32
}

/// Merge-path items (rows + entries) per tile, the longest row a tile computes whole, and
/// tiles (one warp each) per block (`MERGE_W`, `MERGE_L`, `MERGE_WARPS` in
/// kernels/spmv/merge.cu).
const MERGE_W: i64 = 512;
const MERGE_L: i64 = 512;
const MERGE_WARPS: u64 = 2;

/// The merge tiles' long-row space: two partial sums (compute type) and one row index (i64)
/// per tile.
pub struct MergeSpace {
    part: u64,
    fin_row: u64,
}

/// Tiles of `MERGE_W` items covering the rows and entries of `rows` x `nnz`.
pub fn merge_tiles(rows: i64, nnz: i64) -> u64 {
    (rows.max(0) as u64 + nnz.max(0) as u64).div_ceil(MERGE_W as u64)
}

/// Reserves the long-row space of the merge tiles; `None` when no row can be longer than
/// `MERGE_L` (known from the plan's longest row, or from the sizes): then one kernel runs.
fn merge_space(c: &mut Carve, csr: &Csr, compute: DataType, plan: Option<&OperandPlan>) -> Option<MergeSpace> {
    let possible = match plan {
        Some(p) => p.max_row_len > MERGE_L,
        None => csr.nnz > MERGE_L,
    };
    if !possible || csr.rows == 0 {
        return None;
    }
    let tiles = merge_tiles(csr.rows, csr.nnz) as usize;
    Some(MergeSpace { part: c.take(2 * tiles * compute.size()), fin_row: c.take(8 * tiles) })
}

/// What a method needs besides CSR of op(A).
pub enum Space {
    Rows(Option<LongRows>),
    Merge(Option<MergeSpace>),
    Plain,
}

/// Workspace layout of one SpMV call; measuring when `l` is None.
pub fn layout(
    l: Option<&Launcher>,
    c: &mut Carve,
    args: &SpmvArgs,
    plan: Option<&OperandPlan>,
) -> Result<(Csr, Space)> {
    let csr = csr_of_op(l, c, args.a, args.op_a, in_bytes(&args.precision), plan)?;
    let compute = args.precision.compute;
    let space = match args.method {
        SpmvMethod::CsrRows => Space::Rows(long_rows(c, &csr, compute, plan)),
        SpmvMethod::CsrMerge => Space::Merge(merge_space(c, &csr, compute, plan)),
        SpmvMethod::CsrScalar | SpmvMethod::CsrVector => Space::Plain,
        SpmvMethod::Bsr | SpmvMethod::Sell => {
            return Err(Error::internal("BSR and Sliced-ELL SpMV read A as stored (no CSR layout)"))
        }
    };
    Ok((csr, space))
}

/// Runs the call's method on CSR of op(A).
#[allow(clippy::too_many_arguments)]
pub fn run_method(
    l: &Launcher,
    method: SpmvMethod,
    csr: &Csr,
    space: &Space,
    tiles: Option<&SpmvTiles>,
    x: Strided,
    y: Strided,
    p: &Precision,
    alpha: Scalar,
    beta: Scalar,
) -> Result<()> {
    match (method, space) {
        (SpmvMethod::CsrMerge, Space::Merge(m)) => run_merge(l, csr, m.as_ref(), tiles, x, y, p, alpha, beta),
        (SpmvMethod::CsrRows, Space::Rows(long)) => run(l, csr, long.as_ref(), x, y, p, alpha, beta),
        (SpmvMethod::CsrScalar, _) => run_plain(l, "scalar", 1, csr, x, y, p, alpha, beta),
        (SpmvMethod::CsrVector, _) => run_plain(l, "warp", 32, csr, x, y, p, alpha, beta),
        _ => Err(Error::internal("SpMV workspace laid out for another method")),
    }
}

/// The arguments every row kernel (scalar, warp, row groups) starts with.
fn row_args(csr: &Csr, x: Strided, y: Strided, alpha: Scalar, beta: Scalar) -> Args {
    Args::new()
        .i64(csr.rows)
        .ptr(csr.ptr)
        .ptr(csr.col)
        .ptr(csr.val)
        .i64(csr.base)
        .ptr(x.ptr)
        .i64(x.inc)
        .ptr(y.ptr)
        .i64(y.inc)
        .scalar(alpha)
        .scalar(beta)
}

/// The textbook kernels: `lanes` threads per row (1: scalar, 32: vector), nothing else.
#[allow(clippy::too_many_arguments)]
fn run_plain(
    l: &Launcher,
    kind: &str,
    lanes: u64,
    csr: &Csr,
    x: Strided,
    y: Strided,
    p: &Precision,
    alpha: Scalar,
    beta: Scalar,
) -> Result<()> {
    if csr.rows == 0 {
        return Ok(());
    }
    if trace::on() {
        trace::note(format_args!("{lanes} lane(s) per row (avg row {:.1})", csr.nnz as f64 / csr.rows as f64));
    }
    let name = format!("spblk_spmv_csr_{kind}_{}_{}", super::kernels::precision_tag(p), index_tag(csr.ity));
    l.launch(&name, l.grid(csr.rows as u64 * lanes, BLOCK as u64), BLOCK, 0, row_args(csr, x, y, alpha, beta))
}

/// The merge tiles: one warp per tile, `MERGE_WARPS` tiles per block, then (only when a row
/// may be long) the finishing kernel. `tiles`: the first row of every tile from a preprocess
/// (else each block searches).
#[allow(clippy::too_many_arguments)]
fn run_merge(
    l: &Launcher,
    csr: &Csr,
    space: Option<&MergeSpace>,
    tiles: Option<&SpmvTiles>,
    x: Strided,
    y: Strided,
    p: &Precision,
    alpha: Scalar,
    beta: Scalar,
) -> Result<()> {
    if csr.rows == 0 {
        return Ok(());
    }
    let count = merge_tiles(csr.rows, csr.nnz);
    if count > i32::MAX as u64 {
        return Err(Error::not_supported(format!(
            "SpMV of {} rows and {} entries needs {count} tiles (at most 2^31-1)",
            csr.rows, csr.nnz
        )));
    }
    let starts = tiles.filter(|t| t.width == MERGE_W && t.count == count).map_or(0, |t| t.starts.addr);
    if trace::on() {
        trace::note(format_args!(
            "{count} merge tiles of {MERGE_W} rows+entries (avg row {:.1}); tile rows {}; {}",
            csr.nnz as f64 / csr.rows as f64,
            if starts != 0 { "from the plan" } else { "searched" },
            if space.is_some() {
                format!("rows over {MERGE_L} entries summed across tiles")
            } else {
                "no long rows".into()
            }
        ));
    }
    let prec = super::kernels::precision_tag(p);
    let it = index_tag(csr.ity);
    let (part, fin_row) = space.map_or((0, 0), |s| (s.part, s.fin_row));
    l.launch(
        &format!("spblk_spmv_merge_tiles_{prec}_{it}"),
        count.div_ceil(MERGE_WARPS) as u32,
        32 * MERGE_WARPS as u32,
        0,
        Args::new()
            .i64(csr.rows)
            .i64(csr.nnz)
            .ptr(csr.ptr)
            .ptr(csr.col)
            .ptr(csr.val)
            .i64(csr.base)
            .ptr(x.ptr)
            .i64(x.inc)
            .ptr(y.ptr)
            .i64(y.inc)
            .scalar(alpha)
            .scalar(beta)
            .ptr(starts)
            .ptr(part)
            .ptr(fin_row),
    )?;
    if space.is_none() {
        return Ok(());
    }
    l.launch(
        &format!("spblk_spmv_merge_finish_{prec}_{it}"),
        l.grid(count * 32, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .u64(count)
            .ptr(csr.ptr)
            .i64(csr.base)
            .ptr(fin_row)
            .ptr(part)
            .ptr(y.ptr)
            .i64(y.inc)
            .scalar(alpha)
            .scalar(beta),
    )
}

/// The first row of every merge tile of the pattern `(rows, ptr, base)` with `nnz` entries,
/// into plan memory (waits for it).
pub fn build_tiles(
    l: &Launcher,
    dev: &std::sync::Arc<super::context::Device>,
    pattern: (i64, u64, i64),
    nnz: i64,
    ity: crate::types::IndexType,
) -> Result<SpmvTiles> {
    let (rows, ptr, base) = pattern;
    let count = merge_tiles(rows, nnz);
    let starts = super::memory::DeviceAlloc::new(dev, (count as usize + 1) * ity.size(), "SpMV tile plan")?;
    l.launch(
        &format!("spblk_spmv_merge_starts_{}", index_tag(ity)),
        l.grid((count + 1) * 32, BLOCK as u64),
        BLOCK,
        0,
        Args::new().ptr(ptr).i64(rows).i64(base).u64(count).ptr(starts.ptr),
    )?;
    l.sync()?;
    Ok(SpmvTiles { width: MERGE_W, count, starts: starts.into_buffer() })
}

/// y = alpha*A*x + beta*y for CSR A.
#[allow(clippy::too_many_arguments)]
pub fn run(
    l: &Launcher,
    csr: &Csr,
    long: Option<&LongRows>,
    x: Strided,
    y: Strided,
    p: &Precision,
    alpha: Scalar,
    beta: Scalar,
) -> Result<()> {
    if csr.rows == 0 {
        return Ok(());
    }
    let prec = super::kernels::precision_tag(p);
    let it = index_tag(csr.ity);
    let (g, threshold) = shape(csr);
    if trace::on() {
        let split = if long.is_some() { format!("rows over {threshold} entries split") } else { "no long rows".into() };
        trace::note(format_args!("{g} lanes per row (avg row {:.1}); {split}", csr.nnz as f64 / csr.rows as f64));
    }
    if let Some(lr) = long {
        l.memset_u32(lr.count, 0, 1)?;
    }
    let (list, count, threshold) = match long {
        Some(lr) => (lr.list, lr.count, lr.threshold),
        None => (0, 0, i64::MAX),
    };
    l.launch(
        // A warp per row gets the instantiation with G compiled in.
        &format!("spblk_spmv_csr_vector{}_{prec}_{it}", if g == 32 { "32" } else { "" }),
        l.grid(csr.rows as u64 * g as u64, BLOCK as u64),
        BLOCK,
        0,
        row_args(csr, x, y, alpha, beta).i32(g as i32).i64(threshold).ptr(list).ptr(count),
    )?;
    let Some(lr) = long else { return Ok(()) };
    l.launch(
        &format!("spblk_spmv_csr_long_plan_{it}"),
        1,
        BLOCK,
        0,
        Args::new().ptr(lr.count).ptr(lr.list).ptr(csr.ptr).i64(csr.base).i64(CHUNK).ptr(lr.prefix),
    )?;
    l.launch(
        &format!("spblk_spmv_csr_long_partial_{}_{it}", value_tag(p.input)),
        l.grid(lr.max_chunks, 1),
        BLOCK,
        0,
        Args::new()
            .ptr(lr.count)
            .ptr(lr.list)
            .ptr(lr.prefix)
            .ptr(csr.ptr)
            .ptr(csr.col)
            .ptr(csr.val)
            .i64(csr.base)
            .ptr(x.ptr)
            .i64(x.inc)
            .i64(CHUNK)
            .ptr(lr.partial),
    )?;
    l.launch(
        &format!("spblk_spmv_csr_long_finish_{prec}"),
        l.grid(lr.max_rows, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .ptr(lr.count)
            .ptr(lr.list)
            .ptr(lr.prefix)
            .ptr(lr.partial)
            .ptr(y.ptr)
            .i64(y.inc)
            .scalar(alpha)
            .scalar(beta),
    )
}
