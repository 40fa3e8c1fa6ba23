//! SpGEMM's reuse path (`spblkSpGEMMreuse_*`, kernels/spgemm/reuse.cu): the structure of C
//! is computed once, and `reuse_compute` recomputes only its values, as often as the caller
//! changes A's and B's values.
//!
//! * `reuse_nnz`: the binned symbolic phase of `compute` (spgemm.rs), with its state in
//!   buffer 3 (buffer 2 is not needed: 1 byte).
//! * `reuse_copy`: the numeric kernels write C's offsets and sorted columns (no values); then
//!   the plan: for each entry of C, the (A entry, B entry) pairs of its products in expansion
//!   order, in buffer 4 (8 bytes per product, sized from the work estimation's count), and
//!   each entry's run of pairs in buffer 5 (4(nnz(C) + 1) bytes).
//! * `reuse_compute`: one thread per entry of C sums its run in order (the full product's
//!   order, so the values are the same bit for bit), one pass, no tables and no sort; runs
//!   over 64 products (listed by `reuse_copy` in buffer 5) take a warp each, which multiplies
//!   32 products at a time and adds them in order.

use std::sync::Arc;

use super::context::Device;
use super::kernels::{index_tag, value_tag};
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::prims::{scan, scan_tmp_bytes, Width};
use super::spgemm::{self, csr_arrays, product};
use crate::backend::{SpgemmArgs, SpgemmState};
use crate::error::{Error, Result};

/// Runs longer than this are summed by a warp (SPGEMM_REUSE_LONG in kernels/spgemm/reuse.cu).
const LONG_RUN: u64 = 64;

/// Where `reuse_copy` put the plan `reuse_compute` follows.
pub(super) struct ReusePlan {
    /// nnz(C) + 1 u32 offsets into `pairs`.
    seg: u64,
    /// (A entry, B entry) u32 pairs, in C's order, each entry's in expansion order.
    pairs: u64,
    /// The count of entries with long runs, then those entries (u32).
    long_list: u64,
    /// Room in `long_list` (entries).
    long_cap: u64,
}

/// The plan indexes products, A's and B's entries with 32 bits.
fn check_plan_limits(args: &SpgemmArgs, products: i64) -> Result<()> {
    let most = products.max(args.a.nnz).max(args.b.nnz);
    if most >= u32::MAX as i64 {
        return Err(Error::not_supported(format!(
            "the SpGEMM reuse path on the GPU indexes products and entries with 32 bits \
             ({products} products, nnz(A) = {}, nnz(B) = {})",
            args.a.nnz, args.b.nnz
        )));
    }
    Ok(())
}

pub fn nnz_sizes(args: &SpgemmArgs, state: &SpgemmState) -> Result<[usize; 3]> {
    let products = state.num_products.unwrap_or(0);
    check_plan_limits(args, products)?;
    Ok([1, spgemm::compute_size(args, state)?, (8 * products as usize).max(1)])
}

pub fn nnz(
    l: &Launcher,
    dev: &Arc<Device>,
    args: &SpgemmArgs,
    state: &mut SpgemmState,
    buffers: [*mut std::ffi::c_void; 3],
) -> Result<i64> {
    check_plan_limits(args, state.num_products.unwrap_or(0))?;
    let nnz = spgemm::compute(l, dev, args, state, buffers[1])?;
    // Buffer 4 is only kept: `reuse_copy` fills it.
    product(state)?.reuse = Some(ReusePlan { seg: 0, pairs: buffers[2] as u64, long_list: 0, long_cap: 0 });
    Ok(nnz)
}

/// Buffer 5: the run offsets, the scan's space, the long runs' list (at most one entry per
/// LONG_RUN products).
struct Layout5 {
    seg: u64,
    scan_tmp: u64,
    long_list: u64,
    long_cap: u64,
}

fn layout5(c: &mut Carve, nnz: u64, products: u64) -> Layout5 {
    let long_cap = nnz.min(products / LONG_RUN);
    Layout5 {
        seg: c.take(4 * (nnz as usize + 1)),
        scan_tmp: c.take(scan_tmp_bytes(nnz, Width::U32)),
        long_list: c.take(4 * (long_cap as usize + 1)),
        long_cap,
    }
}

pub fn copy_size(state: &SpgemmState) -> Result<usize> {
    let nnz = spgemm::product_ref(state)?.nnz;
    let mut c = Carve::measure();
    layout5(&mut c, nnz, state.num_products.unwrap_or(0) as u64);
    Ok(c.size().max(1))
}

pub fn copy(
    l: &Launcher,
    dev: &Arc<Device>,
    args: &SpgemmArgs,
    state: &mut SpgemmState,
    buffer: *mut std::ffi::c_void,
) -> Result<()> {
    spgemm::copy(l, dev, args, state, false)?;
    let products = state.num_products.unwrap_or(0) as u64;
    let prod = product(state)?;
    let nnz = prod.nnz;
    let pairs = prod.reuse.as_ref().map(|p| p.pairs).ok_or_else(|| {
        Error::invalid("spgemmDescr", "has no reuse set-up (call spblkSpGEMMreuse_nnz with buffers first)")
    })?;
    let Layout5 { seg, scan_tmp, long_list, long_cap } = layout5(&mut Carve::new(buffer), nnz, products);
    let m = args.a.rows;
    let it = index_tag(args.a.indices_type);
    let walk = || {
        let (a_ptr, a_col) = csr_arrays(args.a);
        let (b_ptr, b_col) = csr_arrays(args.b);
        let (c_ptr, c_col) = csr_arrays(args.c);
        Args::new()
            .i64(m)
            .ptr(a_ptr)
            .ptr(a_col)
            .i64(args.a.base.offset())
            .ptr(b_ptr)
            .ptr(b_col)
            .i64(args.b.base.offset())
            .ptr(c_ptr)
            .ptr(c_col)
            .i64(args.c.base.offset())
            .ptr(seg)
    };
    // Each entry's product count at seg[e + 1], scanned into its start; placing the pairs
    // advances seg[e + 1] to the entry's end, which is the next entry's start.
    l.memset_u32(seg, 0, nnz as usize + 1)?;
    l.memset_u32(long_list, 0, 1)?;
    if m > 0 && nnz > 0 {
        let grid = l.grid(m as u64 * 32, BLOCK as u64);
        l.launch(&format!("spblk_spgemm_reuse_count_{it}"), grid, BLOCK, 0, walk())?;
        scan(l, seg + 4, nnz, Width::U32, scan_tmp, 0)?;
        l.launch(&format!("spblk_spgemm_reuse_place_{it}"), grid, BLOCK, 0, walk().ptr(pairs))?;
        if long_cap > 0 {
            let args = Args::new().u64(nnz).ptr(seg).ptr(long_list);
            l.launch("spblk_spgemm_reuse_long_list", l.grid(nnz, BLOCK as u64), BLOCK, 0, args)?;
        }
    }
    prod.reuse = Some(ReusePlan { seg, pairs, long_list, long_cap });
    Ok(())
}

pub fn compute(l: &Launcher, args: &SpgemmArgs, state: &mut SpgemmState) -> Result<()> {
    let prod = product(state)?;
    let plan = prod.reuse.as_ref().filter(|p| p.seg != 0).ok_or_else(|| {
        Error::invalid("spgemmDescr", "has no reuse plan (call spblkSpGEMMreuse_copy with a buffer first)")
    })?;
    if prod.nnz == 0 {
        return Ok(());
    }
    let alpha = Scalar::new(&args.alpha, args.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.compute, "beta")?;
    let vt = value_tag(args.a.value_type);
    let values = |a: Args| {
        a.ptr(plan.seg)
            .ptr(plan.pairs)
            .ptr(args.a.values as u64)
            .ptr(args.b.values as u64)
            .ptr(args.c.values as u64)
            .scalar(alpha)
            .scalar(beta)
    };
    let grid = l.grid(prod.nnz, BLOCK as u64);
    l.launch(&format!("spblk_spgemm_reuse_values_{vt}"), grid, BLOCK, 0, values(Args::new().u64(prod.nnz)))?;
    if plan.long_cap > 0 {
        let grid = l.grid(plan.long_cap * 32, BLOCK as u64);
        l.launch(&format!("spblk_spgemm_reuse_long_{vt}"), grid, BLOCK, 0, values(Args::new().ptr(plan.long_list)))?;
    }
    Ok(())
}
