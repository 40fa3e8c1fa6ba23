//! SDDMM on CSR C (kernels/sddmm/csr.cu). The workspace holds contiguous copies of the dense
//! operands whose layout the kernel would read with a stride: op(A) effectively column-major
//! (copied row-major) and op(B) effectively row-major (copied column-major). Strided reads
//! were 3-20x slower than the default layout on the H100 (docs/sddmm.md, layouts).

use std::sync::Arc;

use super::context::Device;
use super::dense;
use super::kernels::{index_tag, precision_tag};
use super::launch::{pow2_clamp, Args, Carve, Launcher, Scalar, BLOCK};
use super::memory::DeviceAlloc;
use crate::backend::SddmmArgs;
use crate::descr::SparsePattern;
use crate::error::{Error, Result};
use crate::plan::EntryRows;
use crate::trace;
use crate::types::{Operation, Order};

/// A dense operand as the kernel reads it: op(M)(r, s) at ptr[r*ld + s] when `row`, else
/// ptr[r + s*ld]; `copy`: the transpose to run first (rows, cols of the copy, destination).
pub struct Operand {
    pub ptr: u64,
    pub ld: i64,
    row: bool,
    copy: Option<(i64, i64, u64)>,
}

/// Leading dimension of a copy: K rounded up to 4 elements (aligned vector loads).
fn copy_ld(k: i64) -> i64 {
    (k + 3) / 4 * 4
}

/// op(A) (m x k) must have contiguous rows, op(B) (k x n) contiguous columns: either as given,
/// or as a copy carved from the workspace.
fn operands(c: &mut Carve, args: &SddmmArgs) -> (Operand, Operand) {
    let (m, n) = (args.c.rows, args.c.cols);
    let k = args.inner_dim();
    let esize = args.precision.input.size() as u64;
    let a_row = (args.a.order == Order::Row) != (args.op_a == Operation::Transpose);
    let b_row = (args.b.order == Order::Row) != (args.op_b == Operation::Transpose);
    let mut take = |rows: i64| c.take((rows.max(0) as u64 * copy_ld(k) as u64 * esize) as usize);
    let a = if a_row {
        Operand { ptr: args.a.values as u64, ld: args.a.ld, row: true, copy: None }
    } else {
        // op(A)(i, s) at A[i + s*lda]: the copy's row i is that column-major matrix's row.
        let at = take(m);
        Operand { ptr: at, ld: copy_ld(k), row: true, copy: Some((m, k, at)) }
    };
    let b = if !b_row {
        Operand { ptr: args.b.values as u64, ld: args.b.ld, row: false, copy: None }
    } else {
        // op(B)(s, j) at B[s*ldb + j] = B[j + s*ldb]: column j of op(B) is row j of the copy.
        let at = take(n);
        Operand { ptr: at, ld: copy_ld(k), row: false, copy: Some((n, k, at)) }
    };
    (a, b)
}

/// Workspace bytes of `run` (the copies of strided operands).
pub fn buffer_size(args: &SddmmArgs) -> usize {
    let mut c = Carve::measure();
    operands(&mut c, args);
    c.size()
}

/// op(A) with contiguous rows and op(B) with contiguous columns: as given, or copied into
/// `buffer` first.
pub fn stage_operands(l: &Launcher, args: &SddmmArgs, buffer: *mut std::ffi::c_void) -> Result<(Operand, Operand)> {
    let esize = args.precision.input.size() as u64;
    let (a, b) = operands(&mut Carve::new(buffer), args);
    for (m, src) in [(&a, &args.a), (&b, &args.b)] {
        if let Some((rows, cols, dst)) = m.copy {
            dense::transpose(l, rows, cols, (src.values as u64, src.ld), (dst, m.ld), esize)?;
        }
    }
    Ok((a, b))
}

/// The preprocess of a small CSR C (up to `EntryRows::MAX_NNZ` entries, rows numbered in 32
/// bits): each entry's row, kept on the matrix, so that calls on the fast path's layout read
/// rows instead of searching (`run`, the entries path).
pub fn build_entry_rows(l: &Launcher, dev: &Arc<Device>, c: &crate::descr::SpMat) -> Result<()> {
    let SparsePattern::Csr { row_offsets, .. } = c.pattern else { return Ok(()) };
    let small = c.nnz > 0 && c.nnz <= EntryRows::MAX_NNZ && c.rows <= u32::MAX as i64;
    if !small || c.plans.lock().entry_rows().is_some() {
        return Ok(());
    }
    let nnz = c.nnz as u64;
    let rows = DeviceAlloc::new(dev, nnz as usize * 4, "spblkSDDMM_preprocess (entry rows)")?;
    l.launch(
        &format!("spblk_convert_rows_{}", index_tag(c.offsets_type)),
        l.grid(nnz, super::convert::ROWS_TILE),
        BLOCK,
        0,
        Args::new().ptr(row_offsets as u64).i64(c.rows).i64(c.base.offset()).u64(nnz).ptr(rows.ptr).ptr(0),
    )?;
    c.plans.lock().set_entry_rows(EntryRows { rows: rows.into_buffer() });
    Ok(())
}

pub fn run(l: &Launcher, args: &SddmmArgs, buffer: *mut std::ffi::c_void) -> Result<()> {
    let alpha = Scalar::new(&args.alpha, args.precision.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.precision.compute, "beta")?;
    let c = args.c;
    let SparsePattern::Csr { row_offsets, col_ind } = c.pattern else {
        return Err(Error::not_supported("SDDMM: matC must be in CSR format"));
    };
    if c.nnz == 0 {
        return Ok(());
    }
    let k = args.inner_dim();
    let esize = args.precision.input.size() as u64;
    let (a, b) = stage_operands(l, args, buffer)?;
    let (a_row, b_row) = (a.row, b.row);
    // Eight k elements per lane (two 4-element loads per entry): more entries in flight per
    // warp than four per lane, and fewer shuffles per dot product.
    let g = pow2_clamp((k as u64).div_ceil(8), 4, 32);
    // Vector loads of four consecutive k elements where op(A)'s rows and op(B)'s columns are
    // both contiguous with 4-element-aligned starts; otherwise element loads with strides.
    let aligned = |ptr: u64, ld: i64| ld % 4 == 0 && ptr % (4 * esize).min(16) == 0;
    let vec = a_row && !b_row && aligned(a.ptr, a.ld) && aligned(b.ptr, b.ld);
    // Entries per warp: up to 32 per group, so one row search serves 32 dot products per group.
    // Each group's entries form a chain of dependent loads, so small matrices get shorter runs
    // (down to one entry per group) until there are 32 warps per SM (the launch bounds'
    // occupancy): at 32 per group a 4000-entry matrix ran as 16 warps and took 40 us against
    // cuSPARSE's 6; 32 rather than 16 warps per SM made the real matrices' calls 1.14x shorter
    // (docs/sddmm.md).
    let groups = 32 / g as u64;
    let warps_wanted = 32 * l.dev.sm_count as u64;
    let per_group = (c.nnz as u64).div_ceil(warps_wanted * groups).next_power_of_two().clamp(1, 32);
    let per_warp = per_group * groups;
    // The fast path walks each group's entries row by row. With 8 groups per warp (g = 4) and
    // fewer than about four entries per group and row, the groups diverge and the general
    // path's per-entry stepping is faster; with 2 groups (g >= 16) the fast path wins even on
    // rows of 5 (measured: docs/sddmm.md). With one entry per group (small calls) there is
    // nothing to diverge, and the fast path's leaner code took 0.2-0.4 us off 6 us kernels
    // (docs/sddmm.md, session 36).
    let rows_long = g >= 16 || per_group == 1 || c.nnz as u64 >= 4 * (32 / g as u64) * c.rows.max(1) as u64;
    let path = match (vec, vec && k as u64 <= 8 * g as u64 && rows_long) {
        (_, true) => 2,
        (true, false) => 1,
        (false, _) => 0,
    };
    trace::note(format_args!(
        "{} path, {g} lanes per entry (avg row {:.1}){}{}",
        ["strided", "vector", "fast"][path as usize],
        c.nnz as f64 / c.rows.max(1) as f64,
        if a.copy.is_some() { "; op(A) copied row-major first" } else { "" },
        if b.copy.is_some() { "; op(B) copied column-major first" } else { "" },
    ));
    let tags = format!("{}_{}", precision_tag(&args.precision), index_tag(c.indices_type));
    // The fast path's layout with each entry's row from the preprocess (small matrices): the
    // groups read their entries' rows instead of searching and stepping along the offsets
    // (kernels/sddmm/csr.cu, entries path), as many groups as the runs above would have. Each
    // entry reads its row's slice of op(A) again, which the fast path keeps for the row's
    // entries: with several entries per group that cost 0.2x on 42-entry rows at k = 128
    // (bcsstk13), and gained at k <= 32 (docs/sddmm.md, session 36).
    let entries = path == 2 && (per_group == 1 || g == 4);
    let entry_rows = if entries { c.plans.lock().entry_rows() } else { None };
    if let Some(plan) = entry_rows {
        trace::note("entries path: each entry's row from the preprocess");
        return l.launch(
            &format!("spblk_sddmm_csr_entries_{tags}"),
            l.grid((c.nnz as u64).div_ceil(per_group) * g as u64, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .i64(k)
                .i64(c.nnz)
                .ptr(plan.rows.addr)
                .ptr(col_ind as u64)
                .i64(c.base.offset())
                .ptr(a.ptr)
                .i64(a.ld)
                .ptr(b.ptr)
                .i64(b.ld)
                .ptr(c.values as u64)
                .scalar(alpha)
                .scalar(beta)
                .i32(g as i32),
        );
    }
    let name = format!("spblk_sddmm_csr_{tags}");
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
            .ptr(a.ptr)
            .i64(a.ld)
            .i32(a_row as i32)
            .ptr(b.ptr)
            .i64(b.ld)
            .i32(b_row as i32)
            .i32(path)
            .ptr(c.values as u64)
            .scalar(alpha)
            .scalar(beta)
            .i32(g as i32)
            .i64(per_warp as i64),
    )
}
