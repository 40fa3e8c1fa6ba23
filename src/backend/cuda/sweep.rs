//! Column-sweep SpMM (`SPBLK_SPMM_ALG_CSR_SWEEP`, kernels/spmm/sweep.cu, docs/spmm.md): the
//! plan's slab starts of every row, then one launch per band of rows (the warps that fit at
//! once) and tile of 128 columns, so that every warp of a band walks the same slab of op(B)
//! at about the same time.

use std::sync::Arc;

use super::context::Device;
use super::convert::{csr_of_op, Csr};
use super::kernels::index_tag;
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::memory::DeviceAlloc;
use super::spmm::{
    c_args, c_copy, finish_c, long_rows, op_b, run_long_rows, shape, stage_b, staging, target, LongRows, OpB,
};
use super::spmv;
use crate::backend::SpmmArgs;
use crate::error::{Error, Result};
use crate::plan::{OperandPlan, SweepPlan};
use crate::trace;

/// Rows per warp (kernels/spmm/sweep.cu's SWEEP_ROWS) and columns per launch (32 lanes x 4).
const ROWS_PER_WARP: u64 = 4;
const TILE_COLS: i64 = 128;

/// Builds the slab starts of the CSR pattern of op(A) (`csr`, its values unused) for an op(B)
/// of `k` rows of `row_bytes` each. Waits for its work, as the other plans do.
pub fn build_plan(l: &Launcher, dev: &Arc<Device>, csr: &Csr, k: i64, row_bytes: u64) -> Result<SweepPlan> {
    let start = std::time::Instant::now();
    let rows = csr.rows;
    if csr.nnz >= u32::MAX as i64 {
        return Err(Error::not_supported(format!(
            "column-sweep plans count a row's entries with 32 bits ({} entries)",
            csr.nnz
        )));
    }
    let (slabs, slab_cols) = SweepPlan::slabs_for(k, row_bytes);
    let words = (slabs as u64 - 1) * rows.max(0) as u64;
    let offsets = if words > 0 {
        let off = DeviceAlloc::new(dev, words as usize * 4, "column-sweep plan")?;
        l.launch(
            &format!("spblk_spmm_sweep_slabs_{}", index_tag(csr.ity)),
            l.grid(rows as u64, BLOCK as u64),
            BLOCK,
            0,
            Args::new().i64(rows).ptr(csr.ptr).ptr(csr.col).i64(csr.base).i32(slabs as i32).i64(slab_cols).ptr(off.ptr),
        )?;
        l.sync()?;
        Some(off.into_buffer())
    } else {
        None
    };
    Ok(SweepPlan { rows, slabs, slab_cols, build_seconds: start.elapsed().as_secs_f64(), offsets })
}

/// The workspace's parts, in order: CSR of op(A) when converted, the row method's long-row
/// space (`None` when no row can be long, or the operand plan's longest row is short), the
/// copies of a column-major op(B) and of a wide column-major C.
fn carve_all(
    l: Option<&Launcher>,
    c: &mut Carve,
    args: &SpmmArgs,
    operand: Option<&OperandPlan>,
) -> Result<(Csr, Option<LongRows>, OpB, Option<u64>)> {
    let csr = csr_of_op(l, c, args.a, args.op_a, spmv::in_bytes(&args.precision), operand)?;
    let long = long_rows(c, &csr, args.c.cols, args.precision.compute, operand);
    let b = op_b(c, args);
    let w = c_copy(c, args);
    Ok((csr, long, b, w))
}

/// Workspace: as the row method's (bufferSize cannot see the plan: the long-row space for the
/// worst case).
pub fn workspace(args: &SpmmArgs) -> Result<usize> {
    let mut c = Carve::measure();
    carve_all(None, &mut c, args, None)?;
    Ok(c.size())
}

pub fn run(
    l: &Launcher,
    args: &SpmmArgs,
    operand: Option<&OperandPlan>,
    plan: &SweepPlan,
    buffer: *mut std::ffi::c_void,
) -> Result<()> {
    let (m, n) = (args.c.rows, args.c.cols);
    let alpha = Scalar::new(&args.alpha, args.precision.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.precision.compute, "beta")?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    if plan.rows != m {
        return Err(Error::internal(format!("the column-sweep plan has {} rows, op(A) {m}", plan.rows)));
    }
    let (csr, long, b, w) = carve_all(Some(l), &mut Carve::new(buffer), args, operand)?;
    let out = target(args, w, alpha, beta);
    stage_b(l, args, &b)?;
    // The kernel reads op(B) row-major: a single column-major column is one with ld 1.
    let ldb = if b.row { b.ld } else { 1 };
    let vec_align = (4 * args.precision.input.size() as u64).min(16);
    let b_vec = ldb % 4 == 0 && b.ptr % vec_align == 0;
    let name = format!("spblk_spmm_sweep_{}_{}", out.tag, index_tag(csr.ity));
    let band = l.wave_blocks(&name)? as u64 * (BLOCK as u64 / 32) * ROWS_PER_WARP;
    let tiles = (n + TILE_COLS - 1) / TILE_COLS;
    if trace::on() {
        trace::note(format_args!(
            "{} slabs of {} columns of op(B), bands of {band} rows, {tiles} tiles of {TILE_COLS} columns; {}{}",
            plan.slabs,
            plan.slab_cols,
            if long.is_some() { "long rows chunked" } else { "no long rows" },
            staging(&b, w)
        ));
    }
    let off = plan.offsets.as_ref().map_or(0, |o| o.addr);
    if let Some(lr) = &long {
        l.memset_u32(lr.count, 0, 1)?;
    }
    let (list, count, threshold) = long.as_ref().map_or((0, 0, i64::MAX), |lr| (lr.list, lr.count, lr.threshold));
    for tile in 0..tiles {
        for row0 in (0..m as u64).step_by(band as usize) {
            let rows = band.min(m as u64 - row0);
            // One warp per ROWS_PER_WARP rows, no grid-stride loop: a band is one wave.
            let blocks = rows.div_ceil(ROWS_PER_WARP).div_ceil(BLOCK as u64 / 32) as u32;
            l.launch(
                &name,
                blocks,
                BLOCK,
                0,
                c_args(
                    Args::new()
                        .i64(m)
                        .i64(row0 as i64)
                        .i64(rows as i64)
                        .i64(n)
                        .i64(tile)
                        .i32(plan.slabs as i32)
                        .ptr(csr.ptr)
                        .ptr(off)
                        .ptr(csr.col)
                        .ptr(csr.val)
                        .i64(csr.base)
                        .ptr(b.ptr)
                        .i64(ldb)
                        .i32(b_vec as i32),
                    &out,
                    4,
                )
                .i64(threshold)
                .ptr(list)
                .ptr(count),
            )?;
        }
    }
    if let Some(lr) = long {
        run_long_rows(l, args, &csr, &lr, &b, &out, shape(args, &b))?;
    }
    finish_c(l, args, w, alpha, beta)
}
