//! SpMV on CSR of op(A) (kernels/spmv/csr.cu), also used by SpMM with one column.
//!
//! Workspace: CSR of op(A) when A must be converted, plus the long-row bookkeeping (a
//! counter, the list of rows longer than the threshold, their chunk offsets and one partial
//! sum per chunk), all bounded by nnz / threshold. Nothing is allocated, synchronized or
//! copied to the host, so a call can be captured in a CUDA graph.

use super::convert::{csr_of_op, Csr};
use super::kernels::{index_tag, value_tag};
use super::launch::{pow2_clamp, Args, Carve, Launcher, Scalar, BLOCK};
use crate::backend::SpmvArgs;
use crate::error::Result;
use crate::plan::OperandPlan;
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

/// Workspace layout of one SpMV call; measuring when `l` is None.
pub fn layout(
    l: Option<&Launcher>,
    c: &mut Carve,
    args: &SpmvArgs,
    plan: Option<&OperandPlan>,
) -> Result<(Csr, Option<LongRows>)> {
    let csr = csr_of_op(l, c, args.a, args.op_a, in_bytes(&args.precision), plan)?;
    let long = long_rows(c, &csr, args.precision.compute, plan);
    Ok((csr, long))
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
        &format!("spblk_spmv_csr_vector_{prec}_{it}"),
        l.grid(csr.rows as u64 * g as u64, BLOCK as u64),
        BLOCK,
        0,
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
            .i32(g as i32)
            .i64(threshold)
            .ptr(list)
            .ptr(count),
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
