//! SpGEMM (kernels/spgemm/*.cu) with cuSPARSE's protocol.
//!
//! * `workEstimation` (buffer 1, asynchronous): products per row of C and per-bin counts.
//! * `compute` (buffer 2): reads the bin counts back (first sync), bins the rows, counts each
//!   row's nnz with hash tables (symbolic), scans the counts into C's offsets and reads
//!   nnz(C) back (second sync), allocates C's columns and values exactly, then queues the
//!   numeric phase (asynchronous) and returns nnz(C).
//! * `copy` (asynchronous): writes C's offsets, columns and values in C's index type, base
//!   and value type, adding beta*C when beta != 0.
//!
//! Memory: buffer 1 holds 8(m+1) bytes of per-row product counts and 64 bytes of counts;
//! buffer 2 holds C's offsets (8(m+1) bytes), the row bins (4m), huge-row table offsets (8m)
//! and scan space. Both must stay alive until `copy` has run (as with cuSPARSE). The SpGEMM
//! descriptor owns device allocations made in `compute`: C's columns (4 nnz(C) bytes) and
//! values (4 or 8 nnz(C)), the global hash tables of rows with more than 2048 products
//! (about 2..4x their products, times 8 or 12 bytes), and, only when such rows exist, a sort
//! workspace of about 24 nnz(C) bytes. They are freed when the descriptor is destroyed.

use std::sync::Arc;

use cudarc::driver::sys;

use super::context::{check, Device};
use super::kernels::{index_tag, value_tag};
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::memory::DeviceAlloc as DevMem;
use super::prims::{key_bits, radix_sort, scan, scan_tmp_bytes, SortSpace, Width};
use crate::backend::{SpgemmArgs, SpgemmState};
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::types::{DataType, IndexType};

/// Shared-memory bins 1..4: (hash slots per warp, warps per block). Mirrors
/// kernels/spgemm/spgemm.cuh (bin b holds rows with at most BIN_TABLE/2 products).
const BINS: [(u32, u32); 4] = [(64, 8), (512, 4), (2048, 2), (4096, 1)];
const HUGE: usize = 5;
const STAT_POOL: usize = 6;
const STATS: usize = 8;

/// What the descriptor keeps between the protocol's calls.
struct GpuProduct {
    buffer1: u64,
    /// C's zero-based offsets (u64, in buffer 2), columns (u32) and values (compute type).
    c_ptr: u64,
    nnz: u64,
    col: u64,
    val: u64,
    /// The allocations `col`/`val` point into, and scratch kept until the descriptor dies.
    owned: Vec<DevMem>,
}

struct Layout1 {
    rowprod: u64,
    stats: u64,
}

fn layout1(c: &mut Carve, m: usize) -> Layout1 {
    Layout1 { rowprod: c.take(8 * (m + 1)), stats: c.take(8 * STATS) }
}

struct Layout2 {
    c_ptr: u64,
    scan_tmp: u64,
    bin_rows: u64,
    huge_off: u64,
    cursors: u64,
}

fn layout2(c: &mut Carve, m: usize) -> Layout2 {
    Layout2 {
        c_ptr: c.take(8 * (m + 1)),
        scan_tmp: c.take(scan_tmp_bytes(m as u64, Width::U64)),
        bin_rows: c.take(4 * m.max(1)),
        huge_off: c.take(8 * m.max(1)),
        // 8 u32 bin cursors, then the u64 pool cursor.
        cursors: c.take(48),
    }
}

fn csr_arrays(a: &SpMat) -> (u64, u64) {
    match a.pattern {
        SparsePattern::Csr { row_offsets, col_ind } => (row_offsets as u64, col_ind as u64),
        _ => (0, 0),
    }
}

fn check_limits(args: &SpgemmArgs) -> Result<()> {
    if args.a.rows > u32::MAX as i64 - 1 || args.b.cols >= i32::MAX as i64 {
        return Err(Error::not_supported(format!(
            "SpGEMM on the GPU handles up to 2^32-2 rows and 2^31-2 columns (got {}x{})",
            args.a.rows, args.b.cols
        )));
    }
    Ok(())
}

pub fn work_estimation_size(args: &SpgemmArgs) -> usize {
    let mut c = Carve::measure();
    layout1(&mut c, args.a.rows as usize);
    c.size().max(1)
}

pub fn compute_size(args: &SpgemmArgs) -> usize {
    let mut c = Carve::measure();
    layout2(&mut c, args.a.rows as usize);
    c.size().max(1)
}

pub fn work_estimation(
    l: &Launcher,
    args: &SpgemmArgs,
    state: &mut SpgemmState,
    buffer: *mut std::ffi::c_void,
) -> Result<()> {
    check_limits(args)?;
    let m = args.a.rows;
    let lay = layout1(&mut Carve::new(buffer), m as usize);
    l.memset_u32(lay.stats, 0, 2 * STATS)?;
    if m > 0 {
        let (a_ptr, a_col) = csr_arrays(args.a);
        let (b_ptr, _) = csr_arrays(args.b);
        l.launch(
            &format!("spblk_spgemm_rowprod_{}", index_tag(args.a.indices_type)),
            l.grid(m as u64 * 32, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .i64(m)
                .i64(args.b.cols)
                .ptr(a_ptr)
                .ptr(a_col)
                .i64(args.a.base.offset())
                .ptr(b_ptr)
                .i64(args.b.base.offset())
                .ptr(lay.rowprod)
                .ptr(lay.stats),
        )?;
    }
    state.data =
        Some(Box::new(GpuProduct { buffer1: buffer as u64, c_ptr: 0, nnz: 0, col: 0, val: 0, owned: Vec::new() }));
    Ok(())
}

fn product(state: &mut SpgemmState) -> Result<&mut GpuProduct> {
    state.data.as_mut().and_then(|d| d.downcast_mut::<GpuProduct>()).ok_or_else(|| {
        Error::invalid(
            "spgemmDescr",
            "holds no CUDA work estimation (call spblkSpGEMM_workEstimation on this handle first)",
        )
    })
}

/// Common arguments of the symbolic/numeric kernels: A's and B's arrays.
fn ab_args(mut a: Args, args: &SpgemmArgs, with_values: bool) -> Args {
    let (a_ptr, a_col) = csr_arrays(args.a);
    let (b_ptr, b_col) = csr_arrays(args.b);
    a = a.ptr(a_ptr).ptr(a_col);
    if with_values {
        a = a.ptr(args.a.values as u64);
    }
    a = a.i64(args.a.base.offset()).ptr(b_ptr).ptr(b_col);
    if with_values {
        a = a.ptr(args.b.values as u64);
    }
    a.i64(args.b.base.offset())
}

pub fn compute(
    l: &Launcher,
    dev: &Arc<Device>,
    args: &SpgemmArgs,
    state: &mut SpgemmState,
    buffer: *mut std::ffi::c_void,
) -> Result<i64> {
    check_limits(args)?;
    let m = args.a.rows;
    let n = args.b.cols;
    let ity = args.a.indices_type;
    let it = index_tag(ity);
    let vt = value_tag(args.a.value_type);
    let tsize = args.compute.size();
    let alpha = Scalar::new(&args.alpha, args.compute, "alpha")?;
    let prod = product(state)?;
    let l1 = layout1(&mut Carve::new(prod.buffer1 as *mut _), m as usize);
    let l2 = layout2(&mut Carve::new(buffer), m as usize);
    prod.owned.clear();

    // First sync: how many rows fall in each bin, and the size of the huge rows' tables.
    let stats = l.read_u64s(l1.stats, STATS)?;
    let mut offsets = [0u32; 6];
    for b in 2..=HUGE {
        offsets[b] = offsets[b - 1] + stats[b - 1] as u32;
    }
    let pool = stats[STAT_POOL] as usize;
    let pool_keys = DevMem::new(dev, pool * 4, "SpGEMM")?;
    let pool_vals = DevMem::new(dev, pool * tsize, "SpGEMM")?;
    l.memset_u32(l2.cursors, 0, 12)?;
    if m > 0 {
        l.launch(
            "spblk_spgemm_bin_rows",
            l.grid(m as u64, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .i64(m)
                .i64(n)
                .ptr(l1.rowprod)
                .u32(offsets[1])
                .u32(offsets[2])
                .u32(offsets[3])
                .u32(offsets[4])
                .u32(offsets[5])
                .ptr(l2.cursors)
                .ptr(l2.bin_rows)
                .ptr(l2.huge_off)
                .ptr(l2.cursors + 32)
                .ptr(l2.c_ptr),
        )?;
    }
    let rows_of = |b: usize| l2.bin_rows + 4 * offsets[b] as u64;
    for (k, &(table, wpb)) in BINS.iter().enumerate() {
        let count = stats[k + 1];
        if count == 0 {
            continue;
        }
        l.launch(
            &format!("spblk_spgemm_symbolic_shared_{it}"),
            l.grid(count, wpb as u64),
            32 * wpb,
            wpb * table * 4,
            ab_args(Args::new().ptr(rows_of(k + 1)).u32(count as u32).u32(table), args, false).ptr(l2.c_ptr),
        )?;
    }
    let huge = stats[HUGE];
    if huge > 0 {
        l.launch(
            &format!("spblk_spgemm_symbolic_global_{it}"),
            l.grid(huge, 1),
            BLOCK,
            0,
            ab_args(
                Args::new().ptr(rows_of(HUGE)).u32(huge as u32).ptr(l2.huge_off).ptr(l1.rowprod).i64(n),
                args,
                false,
            )
            .ptr(pool_keys.ptr)
            .ptr(l2.c_ptr),
        )?;
    }
    // Row counts -> offsets; the total lands in c_ptr[m]. Second sync: nnz(C).
    scan(l, l2.c_ptr, m as u64, Width::U64, l2.scan_tmp, l2.c_ptr + 8 * m as u64)?;
    let nnz = l.read_u64s(l2.c_ptr + 8 * m as u64, 1)?[0];
    if ity == IndexType::I32 && nnz as i64 + args.c.base.offset() > i32::MAX as i64 {
        return Err(Error::not_supported(format!("SpGEMM: nnz(C) = {nnz} does not fit 32-bit indices")));
    }
    let cols = DevMem::new(dev, nnz as usize * 4, "SpGEMM")?;
    let vals = DevMem::new(dev, nnz as usize * tsize, "SpGEMM")?;
    let (mut col, mut val) = (cols.ptr, vals.ptr);
    for (k, &(table, wpb)) in BINS.iter().enumerate() {
        let count = stats[k + 1];
        if count == 0 {
            continue;
        }
        l.launch(
            &format!("spblk_spgemm_numeric_shared_{vt}_{it}"),
            l.grid(count, wpb as u64),
            32 * wpb,
            wpb * table * (4 + tsize as u32),
            ab_args(Args::new().ptr(rows_of(k + 1)).u32(count as u32).u32(table), args, true)
                .ptr(l2.c_ptr)
                .ptr(cols.ptr)
                .ptr(vals.ptr)
                .scalar(alpha),
        )?;
    }
    if huge > 0 {
        l.launch(
            &format!("spblk_spgemm_numeric_global_{vt}_{it}"),
            l.grid(huge * 32, BLOCK as u64),
            BLOCK,
            0,
            ab_args(
                Args::new().ptr(rows_of(HUGE)).u32(huge as u32).ptr(l2.huge_off).ptr(l1.rowprod).i64(n),
                args,
                true,
            )
            .ptr(pool_keys.ptr)
            .ptr(pool_vals.ptr)
            .ptr(l2.c_ptr)
            .ptr(cols.ptr)
            .ptr(vals.ptr)
            .scalar(alpha),
        )?;
        // Huge rows were written in hash order: stable sort all entries by column, then by
        // row, which leaves the already sorted rows as they are.
        let mut c = Carve::measure();
        SortSpace::carve(&mut c, nnz);
        c.take(nnz as usize * 4);
        c.take(nnz as usize * tsize);
        let scratch = DevMem::new(dev, c.size(), "SpGEMM")?;
        let mut c = Carve::new(scratch.ptr as *mut _);
        let space = SortSpace::carve(&mut c, nnz);
        let cols2 = c.take(nnz as usize * 4);
        let vals2 = c.take(nnz as usize * tsize);
        // SAFETY: both ranges are nnz u32 words of device memory owned here.
        check(
            unsafe { sys::cuMemcpyDtoDAsync_v2(space.keys[0], cols.ptr, nnz as usize * 4, l.stream) },
            "cuMemcpyDtoDAsync",
        )?;
        l.launch("spblk_iota_u32", l.grid(nnz, BLOCK as u64), BLOCK, 0, Args::new().ptr(space.vals[0]).u64(nnz))?;
        let cur = radix_sort(l, &space, nnz, key_bits(n as u64), 0)?;
        l.launch(
            "spblk_spgemm_row_keys",
            l.grid(nnz, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(l2.c_ptr).i64(m).ptr(space.vals[cur]).u64(nnz).ptr(space.keys[cur]),
        )?;
        let cur = radix_sort(l, &space, nnz, key_bits(m as u64), cur)?;
        l.launch(
            &format!("spblk_spgemm_permute_{}", value_tag(args.compute)),
            l.grid(nnz, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(space.vals[cur]).u64(nnz).ptr(cols.ptr).ptr(vals.ptr).ptr(cols2).ptr(vals2),
        )?;
        (col, val) = (cols2, vals2);
        prod.owned.push(scratch);
    }
    prod.c_ptr = l2.c_ptr;
    prod.nnz = nnz;
    prod.col = col;
    prod.val = val;
    prod.owned.extend([cols, vals, pool_keys, pool_vals]);
    Ok(nnz as i64)
}

pub fn copy(l: &Launcher, args: &SpgemmArgs, state: &mut SpgemmState) -> Result<()> {
    let prod = product(state)?;
    if prod.c_ptr == 0 {
        return Err(Error::invalid("spgemmDescr", "holds no computed product (call spblkSpGEMM_compute first)"));
    }
    let beta = Scalar::new(&args.beta, args.compute, "beta")?;
    let c = args.c;
    let (c_ptr, c_col) = csr_arrays(c);
    let m = c.rows;
    let vt = value_tag(c.value_type);
    if !matches!(c.value_type, DataType::F32 | DataType::F64 | DataType::F16 | DataType::BF16) {
        return Err(Error::not_supported(format!("SpGEMM output type {:?}", c.value_type)));
    }
    let total = (m as u64 + 1).max(prod.nnz);
    l.launch(
        &format!("spblk_spgemm_copy_{vt}_{}", index_tag(c.indices_type)),
        l.grid(total, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .i64(m)
            .u64(prod.nnz)
            .ptr(prod.c_ptr)
            .ptr(prod.col)
            .ptr(prod.val)
            .i64(c.base.offset())
            .ptr(c_ptr)
            .ptr(c_col)
            .ptr(c.values as u64)
            .scalar(beta),
    )
}
