//! SpMM on CSR of op(A) (kernels/spmm/csr.cu); one column goes through SpMV's kernels.

use super::convert::csr_of_op;
use super::kernels::{index_tag, precision_tag};
use super::launch::{pow2_clamp, Args, Carve, Launcher, Scalar, BLOCK};
use super::spmv::{self, Strided};
use crate::backend::SpmmArgs;
use crate::error::Result;
use crate::types::{Operation, Order};

/// Workspace: CSR of op(A) if converted, and SpMV's long-row space for one column.
pub fn layout(
    l: Option<&Launcher>,
    c: &mut Carve,
    args: &SpmmArgs,
) -> Result<(super::convert::Csr, Option<spmv::LongRows>)> {
    let csr = csr_of_op(l, c, args.a, args.op_a, spmv::in_bytes(&args.precision))?;
    let long = if args.c.cols == 1 { spmv::long_rows(c, &csr, args.precision.compute) } else { None };
    Ok((csr, long))
}

pub fn run(l: &Launcher, args: &SpmmArgs, buffer: *mut std::ffi::c_void) -> Result<()> {
    let (m, n) = (args.c.rows, args.c.cols);
    let alpha = Scalar::new(&args.alpha, args.precision.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.precision.compute, "beta")?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    let mut carve = Carve::new(buffer);
    let (csr, long) = layout(Some(l), &mut carve, args)?;
    // op(B)(k, j) at B[k*ldb + j] when effectively row-major, else B[k + j*ldb].
    let b_row = (args.b.order == Order::Row) != (args.op_b == Operation::Transpose);
    let c_row = args.c.order == Order::Row;
    if n == 1 {
        let x = Strided { ptr: args.b.values as u64, inc: if b_row { args.b.ld } else { 1 } };
        let y = Strided { ptr: args.c.values as u64, inc: if c_row { args.c.ld } else { 1 } };
        return spmv::run(l, &csr, long.as_ref(), x, y, &args.precision, alpha, beta);
    }
    // Four consecutive B elements per lane when they are aligned for one vector load.
    let esize = args.precision.input.size() as u64;
    let vec_align = (4 * esize).min(16);
    let vec4 = b_row && n >= 4 && args.b.ld % 4 == 0 && (args.b.values as u64) % vec_align == 0;
    let v = if vec4 { 4 } else { 1 };
    let g = pow2_clamp((n as u64).div_ceil(v), 4, 32);
    let tiles = (n as u64).div_ceil(g as u64 * v);
    let name = format!("spblk_spmm_csr_v{v}_{}_{}", precision_tag(&args.precision), index_tag(csr.ity));
    l.launch(
        &name,
        l.grid(m as u64 * tiles * g as u64, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .i64(m)
            .i64(n)
            .ptr(csr.ptr)
            .ptr(csr.col)
            .ptr(csr.val)
            .i64(csr.base)
            .ptr(args.b.values as u64)
            .i64(args.b.ld)
            .i32(b_row as i32)
            .ptr(args.c.values as u64)
            .i64(args.c.ld)
            .i32(c_row as i32)
            .scalar(alpha)
            .scalar(beta)
            .i32(g as i32),
    )
}
