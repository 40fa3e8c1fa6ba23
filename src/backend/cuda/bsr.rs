//! Products with a BSR matrix (kernels/spmm/bsr.cu): one thread per element of C.

use super::kernels::{index_tag, precision_tag};
use super::launch::{Args, Launcher, Scalar, BLOCK};
use crate::backend::BsrProductArgs;
use crate::error::Result;

pub fn product(l: &Launcher, args: &BsrProductArgs) -> Result<()> {
    let a = &args.a;
    let compute = args.precision.compute;
    let (alpha, beta) = (Scalar::new(&args.alpha, compute, "alpha")?, Scalar::new(&args.beta, compute, "beta")?);
    let elements = (a.mb * a.block) as u64 * args.n as u64;
    if elements == 0 {
        return Ok(());
    }
    let name = format!("spblk_bsrmm_rows_{}_{}", precision_tag(&args.precision), index_tag(a.index_type));
    l.launch(
        &name,
        l.grid(elements, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .i64(a.mb)
            .i64(a.kb)
            .i64(a.nnzb)
            .i64(a.block)
            .ptr(a.offsets as u64)
            .ptr(a.columns as u64)
            .ptr(a.values as u64)
            .i64(a.base)
            .i32(a.column_major_blocks as i32)
            .i64(args.n)
            .ptr(args.b.ptr as u64)
            .i64(args.b.rs)
            .i64(args.b.cs)
            .ptr(args.c.ptr as u64)
            .i64(args.c.rs)
            .i64(args.c.cs)
            .scalar(alpha)
            .scalar(beta),
    )
}
