//! `C = alpha A + beta B` (kernels/geam/merge.cu): the count writes each row's entries into the
//! workspace, scans them and writes C's offsets from them; the fill merges each row into the
//! room C's offsets give it. The count blocks only to hand nnz(C) to host memory, or when
//! nnz(C) might not fit an `int` (nnzA + nnzB plus the base above 2^31 - 1).

use std::ffi::c_void;

use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::prims::{scan, scan_tmp_bytes, Width};
use crate::backend::{GeamArgs, GeamOperand, GeamValues};
use crate::error::{Error, Result};
use crate::types::{DataType, PointerMode};

/// The workspace: each row's count (m + 1 u32, the last 0 so the scan ends in the total) and
/// the scan's scratch.
fn layout(c: &mut Carve, m: i64) -> (u64, u64) {
    let n = m as u64 + 1;
    (c.take(n as usize * 4), c.take(scan_tmp_bytes(n, Width::U32)))
}

pub fn buffer_size(args: &GeamArgs) -> usize {
    let mut c = Carve::measure();
    layout(&mut c, args.m);
    c.size()
}

/// An operand's offsets, columns, base and nnz as the kernels take them.
fn structure(args: Args, op: &GeamOperand) -> Args {
    args.ptr(op.offsets as u64).ptr(op.columns as u64).i64(op.base).i64(op.nnz)
}

pub fn nnz(l: &Launcher, args: &GeamArgs, mode: PointerMode, buffer: *mut c_void) -> Result<()> {
    let (m, total) = (args.m, args.c_total);
    let (counts, tmp) = layout(&mut Carve::new(buffer), m);
    let last = counts + m as u64 * 4;
    l.memset_u32(last, 0, 1)?;
    if m > 0 {
        let a = structure(Args::new().i64(m), &args.a);
        l.launch("spblk_geam_count", l.grid(m as u64, BLOCK as u64), BLOCK, 0, structure(a, &args.b).ptr(counts))?;
    }
    scan(l, counts, m as u64 + 1, Width::U32, tmp, 0)?;
    let host_total = !total.is_null() && mode == PointerMode::Host;
    let mut nnz = None;
    if host_total || args.a.nnz + args.b.nnz + args.c_base > i32::MAX as i64 {
        let mut bytes = [0u8; 4];
        l.read(last, &mut bytes)?;
        let n = u32::from_le_bytes(bytes) as i64;
        if n + args.c_base > i32::MAX as i64 {
            return Err(Error::invalid(
                "csrSortedRowPtrC",
                format!("cannot hold nnz(C) = {n} plus the base in an int"),
            ));
        }
        nnz = Some(n);
    }
    let device_total = if mode == PointerMode::Device { total as u64 } else { 0 };
    l.launch(
        "spblk_geam_offsets",
        l.grid(m as u64 + 1, BLOCK as u64),
        BLOCK,
        0,
        Args::new().i64(m).ptr(counts).i64(args.c_base).ptr(args.c_offsets as u64).ptr(device_total),
    )?;
    if let (true, Some(n)) = (host_total, nnz) {
        // SAFETY: pointer mode host: `total` is the caller's host `int` (checked non-NULL).
        unsafe { *total = n as i32 };
    }
    Ok(())
}

pub fn fill(l: &Launcher, args: &GeamArgs, values: &GeamValues) -> Result<()> {
    let t = values.value_type;
    let (alpha, beta) = (Scalar::new(&values.alpha, t, "alpha")?, Scalar::new(&values.beta, t, "beta")?);
    if args.m == 0 || args.a.nnz + args.b.nnz == 0 {
        return Ok(());
    }
    let operand = |a: Args, op: &GeamOperand| {
        a.ptr(op.offsets as u64).ptr(op.columns as u64).ptr(op.values as u64).i64(op.base).i64(op.nnz)
    };
    let a = operand(Args::new().i64(args.m), &args.a);
    let c = operand(a, &args.b)
        .ptr(args.c_offsets as u64)
        .i64(args.c_base)
        .ptr(args.c_columns as u64)
        .ptr(args.c_values as u64)
        .scalar(alpha)
        .scalar(beta);
    let tag = if t == DataType::F64 { "f64" } else { "f32" };
    l.launch(&format!("spblk_geam_fill_{tag}"), l.grid(args.m as u64, BLOCK as u64), BLOCK, 0, c)
}
