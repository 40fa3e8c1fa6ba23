//! SDDMM on CSR C (kernels/sddmm/csr.cu); needs no workspace.

use super::kernels::{index_tag, precision_tag};
use super::launch::{pow2_clamp, Args, Launcher, Scalar, BLOCK};
use crate::backend::SddmmArgs;
use crate::descr::SparsePattern;
use crate::error::{Error, Result};
use crate::trace;
use crate::types::{Operation, Order};

pub fn run(l: &Launcher, args: &SddmmArgs) -> Result<()> {
    let alpha = Scalar::new(&args.alpha, args.precision.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.precision.compute, "beta")?;
    let c = args.c;
    let SparsePattern::Csr { row_offsets, col_ind } = c.pattern else {
        return Err(Error::not_supported("SDDMM: matC must be in CSR format"));
    };
    if c.nnz == 0 {
        return Ok(());
    }
    let k = if args.op_a == Operation::Transpose { args.a.rows } else { args.a.cols };
    // op(M)(r, s) at M[r*ld + s] when effectively row-major, else M[r + s*ld].
    let a_row = (args.a.order == Order::Row) != (args.op_a == Operation::Transpose);
    let b_row = (args.b.order == Order::Row) != (args.op_b == Operation::Transpose);
    // Eight k elements per lane (two 4-element loads per entry): more entries in flight per
    // warp than four per lane, and fewer shuffles per dot product.
    let g = pow2_clamp((k as u64).div_ceil(8), 4, 32);
    // Vector loads of four consecutive k elements where op(A)'s rows and op(B)'s columns are
    // both contiguous with 4-element-aligned starts; otherwise element loads with strides.
    let esize = args.precision.input.size() as u64;
    let aligned = |ptr: *mut std::ffi::c_void, ld: i64| ld % 4 == 0 && (ptr as u64) % (4 * esize).min(16) == 0;
    let vec = a_row && !b_row && aligned(args.a.values, args.a.ld) && aligned(args.b.values, args.b.ld);
    // The fast path walks each group's entries row by row. With 8 groups per warp (g = 4) and
    // fewer than about four entries per group and row, the groups diverge and the general
    // path's per-entry stepping is faster; with 2 groups (g >= 16) the fast path wins even on
    // rows of 5 (measured: docs/sddmm.md).
    let rows_long = g >= 16 || c.nnz as u64 >= 4 * (32 / g as u64) * c.rows.max(1) as u64;
    let path = match (vec, vec && k as u64 <= 8 * g as u64 && rows_long) {
        (_, true) => 2,
        (true, false) => 1,
        (false, _) => 0,
    };
    trace::note(format_args!(
        "{} path, {g} lanes per entry (avg row {:.1})",
        ["strided", "vector", "fast"][path as usize],
        c.nnz as f64 / c.rows.max(1) as f64
    ));
    // Entries per warp: up to 32 per group, so one row search serves 32 dot products per group.
    // Each group's entries form a chain of dependent loads, so small matrices get shorter runs
    // (down to one entry per group) until there are 16 warps per SM: at 32 per group a
    // 4000-entry matrix ran as 16 warps and took 40 us against cuSPARSE's 6.
    let groups = 32 / g as u64;
    let warps_wanted = 16 * l.dev.sm_count as u64;
    let per_group = (c.nnz as u64).div_ceil(warps_wanted * groups).next_power_of_two().clamp(1, 32);
    let per_warp = per_group * groups;
    let name = format!("spblk_sddmm_csr_{}_{}", precision_tag(&args.precision), index_tag(c.indices_type));
    l.launch(
        &name,
        l.grid((c.nnz as u64).div_ceil(per_warp) * 32, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .i64(c.rows)
            .i64(k)
            .i64(c.nnz)
            .ptr(row_offsets as u64)
            .ptr(col_ind as u64)
            .i64(c.base.offset())
            .ptr(args.a.values as u64)
            .i64(args.a.ld)
            .i32(a_row as i32)
            .ptr(args.b.values as u64)
            .i64(args.b.ld)
            .i32(b_row as i32)
            .i32(path)
            .ptr(c.values as u64)
            .scalar(alpha)
            .scalar(beta)
            .i32(g as i32)
            .i64(per_warp as i64),
    )
}
