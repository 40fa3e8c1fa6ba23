//! RoDe SpMM (`SPBLK_SPMM_ALG_RODE`, kernels/spmm/rode.cu, docs/rode.md): the plan's
//! segments of the rows' block parts summed into partial rows of C by one kernel, then each
//! row's partials and residual entries added in a fixed order by another.

use std::sync::Arc;

use super::context::Device;
use super::convert::csr_of_op;
use super::kernels::{index_tag, value_tag};
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::memory::DeviceAlloc;
use super::prims::{self, Width};
use super::spmm::{a_b_args, c_args, c_copy, compute_of, finish_c, op_b, shape, stage_b, staging, target};
use super::spmv;
use crate::backend::SpmmArgs;
use crate::error::{Error, Result};
use crate::plan::{OperandPlan, RodePlan};
use crate::trace;
use crate::types::IndexType;

/// Builds the decomposition of the CSR pattern `(rows, row offsets, base)` on the device:
/// each row's segment count, an exclusive scan of the counts (`seg_ptr`), and each segment's
/// row (`seg_row`). Waits for its work (reads the total), as the other plans do.
pub fn build_plan(
    l: &Launcher,
    dev: &Arc<Device>,
    pattern: (i64, u64, i64),
    nnz: i64,
    ity: IndexType,
) -> Result<RodePlan> {
    let start = std::time::Instant::now();
    let (rows, ptr, _base) = pattern;
    if rows >= u32::MAX as i64 || nnz / RodePlan::BLOCK >= u32::MAX as i64 {
        return Err(Error::not_supported(format!(
            "RoDe plans index rows and segments with 32 bits ({rows} rows, {nnz} entries)"
        )));
    }
    let n = rows as u64 + 1;
    let seg = RodePlan::seg_for(nnz);
    let seg_ptr = DeviceAlloc::new(dev, n as usize * 4, "RoDe plan")?;
    let tmp = DeviceAlloc::new(dev, prims::scan_tmp_bytes(n, Width::U32) + 4, "RoDe plan scan")?;
    let total_at = tmp.ptr + prims::scan_tmp_bytes(n, Width::U32) as u64;
    l.launch(
        &format!("spblk_rode_count_{}", index_tag(ity)),
        l.grid(n, BLOCK as u64),
        BLOCK,
        0,
        Args::new().i64(rows).ptr(ptr).i64(seg).ptr(seg_ptr.ptr),
    )?;
    prims::scan(l, seg_ptr.ptr, n, Width::U32, tmp.ptr, total_at)?;
    let mut total = [0u8; 4];
    l.read(total_at, &mut total)?;
    let segments = u32::from_ne_bytes(total) as u64;
    let seg_row = if segments > 0 {
        let seg_row = DeviceAlloc::new(dev, segments as usize * 4, "RoDe plan")?;
        l.launch(
            "spblk_rode_fill",
            l.grid(rows as u64, BLOCK as u64),
            BLOCK,
            0,
            Args::new().i64(rows).ptr(seg_ptr.ptr).ptr(seg_row.ptr),
        )?;
        Some(seg_row.into_buffer())
    } else {
        None
    };
    l.sync()?;
    Ok(RodePlan {
        rows,
        segments,
        seg,
        build_seconds: start.elapsed().as_secs_f64(),
        arrays: Some((seg_ptr.into_buffer(), seg_row)),
    })
}

/// Bytes of one partial row of C (n compute-type elements) per segment, for `segments`
/// segments; without a plan, the most segments `nnz` entries can make (every row a single
/// block of `BLOCK` entries).
fn partial_bytes(args: &SpmmArgs, segments: Option<u64>) -> usize {
    let most = args.a.nnz.max(0) as u64 / RodePlan::BLOCK as u64;
    (segments.unwrap_or(most).min(most) * args.c.cols.max(0) as u64 * compute_of(args).size() as u64) as usize
}

/// Workspace: as the row method's (CSR of op(A) when converted, the copies of a column-major
/// op(B) and of a wide column-major C), plus the segments' partial rows: for `segments`, or
/// (bufferSize, which cannot see the plan) the most segments possible, so that a later plan
/// never needs more.
pub fn workspace(args: &SpmmArgs, segments: Option<u64>) -> Result<usize> {
    let mut c = Carve::measure();
    csr_of_op(None, &mut c, args.a, args.op_a, spmv::in_bytes(&args.precision), None)?;
    op_b(&mut c, args);
    c_copy(&mut c, args);
    c.take(partial_bytes(args, segments));
    Ok(c.size())
}

pub fn run(
    l: &Launcher,
    args: &SpmmArgs,
    operand: Option<&OperandPlan>,
    plan: &RodePlan,
    buffer: *mut std::ffi::c_void,
) -> Result<()> {
    let (m, n) = (args.c.rows, args.c.cols);
    let alpha = Scalar::new(&args.alpha, args.precision.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.precision.compute, "beta")?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    let Some((seg_ptr, seg_row)) = &plan.arrays else {
        return Err(Error::internal("the RoDe plan of a CUDA descriptor has no device arrays"));
    };
    if plan.rows != m {
        return Err(Error::internal(format!("the RoDe plan has {} rows, op(A) {m}", plan.rows)));
    }
    let mut c = Carve::new(buffer);
    let csr = csr_of_op(Some(l), &mut c, args.a, args.op_a, spmv::in_bytes(&args.precision), operand)?;
    let b = op_b(&mut c, args);
    let w = c_copy(&mut c, args);
    let partial = c.take(partial_bytes(args, Some(plan.segments)));
    let out = target(args, w, alpha, beta);
    stage_b(l, args, &b)?;
    let (v, g, tiles) = shape(args, &b);
    let it = index_tag(csr.ity);
    if trace::on() {
        trace::note(format_args!(
            "{} segments of {} entries (more in rows of over {} segments); {g} lanes x {v} columns per tile \
             ({tiles} tiles){}",
            plan.segments,
            plan.seg,
            RodePlan::MAX_SEGS,
            staging(&b, w)
        ));
    }
    if let Some(seg_row) = seg_row {
        l.launch(
            &format!("spblk_spmm_rode_blocks_v{v}_{}_{it}", value_tag(args.precision.input)),
            l.grid(plan.segments * tiles * g as u64, BLOCK as u64),
            BLOCK,
            0,
            a_b_args(Args::new().i64(n).u64(plan.segments).i64(plan.seg).ptr(seg_ptr.addr).ptr(seg_row.addr), &csr, &b)
                .ptr(partial)
                .i32(g as i32),
        )?;
    }
    l.launch(
        &format!("spblk_spmm_rode_rows_v{v}_{}_{it}", out.tag),
        l.grid(m as u64 * tiles * g as u64, BLOCK as u64),
        BLOCK,
        0,
        c_args(a_b_args(Args::new().i64(m).i64(n).ptr(seg_ptr.addr).ptr(partial), &csr, &b), &out, v).i32(g as i32),
    )?;
    finish_c(l, args, w, alpha, beta)
}
