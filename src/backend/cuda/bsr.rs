//! The legacy BSR products (kernels/spmm/bsr.cu): one thread per element of C.

use super::launch::{Args, Launcher, Scalar, BLOCK};
use crate::backend::BsrProductArgs;
use crate::error::Result;
use crate::types::DataType;

pub fn product(l: &Launcher, args: &BsrProductArgs) -> Result<()> {
    let (a, t) = (&args.a, args.value_type);
    let (alpha, beta) = (Scalar::new(&args.alpha, t, "alpha")?, Scalar::new(&args.beta, t, "beta")?);
    let elements = (a.mb * a.block) as u64 * args.n as u64;
    if elements == 0 {
        return Ok(());
    }
    let tag = if t == DataType::F64 { "f64" } else { "f32" };
    l.launch(
        &format!("spblk_bsrmm_rows_{tag}"),
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
            .ptr(args.b as u64)
            .i64(args.ldb)
            .i32(args.b_transposed as i32)
            .ptr(args.c as u64)
            .i64(args.ldc)
            .scalar(alpha)
            .scalar(beta),
    )
}
