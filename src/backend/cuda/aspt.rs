//! ASpT SDDMM (`SPBLK_SDDMM_ALG_ASPT`, kernels/sddmm/aspt.cu, docs/sddmm.md): the plan built on
//! the device (row keys → sort → ranks → entries sorted by column, then stably by panel), and
//! the product over it.

use std::sync::Arc;

use super::context::Device;
use super::kernels::{index_tag, precision_tag};
use super::launch::{pow2_clamp, Args, Carve, Launcher, Scalar, BLOCK};
use super::memory::DeviceAlloc;
use super::prims::{key_bits, radix_sort, scan, scan_tmp_bytes, SortSpace, Width};
use super::sddmm;
use crate::backend::SddmmArgs;
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::plan::{AsptArrays, AsptPlan, AsptSpmmShape};
use crate::trace;
use crate::types::DataType;

/// The build's scratch: the sort (sized for the entries; the rows' sort reuses it), each row's
/// rank, each entry's row rank, the count of runs (u64) and whether a row's columns decrease
/// (u32), and each entry's run index (nnz + 1 words: run flags, scanned in place) with the
/// scan's temporary.
struct Scratch {
    space: SortSpace,
    rank: u64,
    ent_rank: u64,
    runs_at: u64,
    run_index: u64,
    scan_tmp: u64,
}

impl Scratch {
    fn carve(c: &mut Carve, m: u64, nnz: u64) -> Scratch {
        Scratch {
            space: SortSpace::carve(c, nnz.max(m)),
            rank: c.take(m as usize * 4),
            ent_rank: c.take(nnz as usize * 4),
            runs_at: c.take(16),
            run_index: c.take((nnz as usize + 1) * 4),
            scan_tmp: c.take(scan_tmp_bytes(nnz, Width::U32)),
        }
    }
}

/// Builds the plan of CSR matrix `c` on the device; waits for its work (reads the counts).
pub fn build_plan(l: &Launcher, dev: &Arc<Device>, c: &SpMat) -> Result<AsptPlan> {
    let start = std::time::Instant::now();
    let SparsePattern::Csr { row_offsets, col_ind } = c.pattern else {
        return Err(Error::not_supported(format!("argument 'matC': an ASpT plan needs CSR, got {:?}", c.format())));
    };
    if let Some(why) = AsptPlan::unsupported(c.rows, c.cols, c.nnz) {
        return Err(Error::not_supported(why));
    }
    let (m, nnz) = (c.rows as u64, c.nnz as u64);
    let panels = m.div_ceil(AsptPlan::PANEL as u64);
    let (ptr, col, base, it) = (row_offsets as u64, col_ind as u64, c.base.offset(), index_tag(c.indices_type));
    let alloc = |bytes: u64, what: &str| DeviceAlloc::new(dev, bytes as usize, what);
    let order = alloc(m * 4, "ASpT plan")?;
    let panel_ptr = alloc((panels + 1) * 4, "ASpT plan")?;
    let ent_pos = alloc(nnz * 4, "ASpT plan")?;
    let ent_key = alloc(nnz * 4, "ASpT plan")?;
    let mut measure = Carve::measure();
    Scratch::carve(&mut measure, m, nnz);
    let scratch = alloc(measure.size() as u64, "ASpT plan build")?;
    let Scratch { space, rank, ent_rank, runs_at, run_index, scan_tmp } =
        Scratch::carve(&mut Carve::new(scratch.ptr as *mut std::ffi::c_void), m, nnz);
    let warps = |n: u64| l.grid(n * 32, BLOCK as u64);

    row_order(l, c, &space, rank, order.ptr)?;
    l.memset_u32(runs_at, 0, 4)?;
    // Entries by column, then stably by panel.
    l.launch(
        &format!("spblk_aspt_entry_keys_{it}"),
        warps(m),
        BLOCK,
        0,
        Args::new()
            .i64(m as i64)
            .ptr(ptr)
            .ptr(col)
            .i64(base)
            .ptr(rank)
            .ptr(space.keys[0])
            .ptr(space.vals[0])
            .ptr(ent_rank)
            .ptr(runs_at + 8),
    )?;
    let cur = radix_sort(l, &space, nnz, key_bits(c.cols as u64), 0)?;
    l.launch(
        "spblk_aspt_panel_keys",
        l.grid(nnz, BLOCK as u64),
        BLOCK,
        0,
        Args::new().u64(nnz).ptr(space.vals[cur]).ptr(ent_rank).ptr(space.keys[cur]),
    )?;
    let cur = radix_sort(l, &space, nnz, key_bits(panels), cur)?;
    if nnz == 0 {
        l.memset_u32(panel_ptr.ptr, 0, panels as usize + 1)?;
    }
    l.launch(
        &format!("spblk_aspt_entries_{it}"),
        l.grid(nnz, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .u64(nnz)
            .u64(panels)
            .ptr(space.keys[cur])
            .ptr(space.vals[cur])
            .ptr(col)
            .i64(base)
            .ptr(ent_rank)
            .ptr(ent_pos.ptr)
            .ptr(ent_key.ptr)
            .ptr(panel_ptr.ptr)
            .ptr(run_index)
            .ptr(runs_at),
    )?;
    let [runs, unsorted] = l.read_u64s(runs_at, 2)?[..] else {
        return Err(Error::internal("ASpT plan: short read"));
    };
    // The runs (the tensor-core product's tiles take 8 at a time): each run's column, each
    // entry's run (by position in C), each panel's first run.
    let run_col = alloc(runs.max(1) * 4, "ASpT plan")?;
    let ent_run = alloc(nnz * 4, "ASpT plan")?;
    let run_ptr = alloc((panels + 1) * 4, "ASpT plan")?;
    scan(l, run_index, nnz, Width::U32, scan_tmp, run_index + nnz * 4)?;
    l.launch(
        "spblk_aspt_runs",
        l.grid(nnz.max(panels) + 1, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .u64(nnz)
            .u64(panels)
            .ptr(run_index)
            .ptr(ent_key.ptr)
            .ptr(ent_pos.ptr)
            .ptr(panel_ptr.ptr)
            .ptr(run_col.ptr)
            .ptr(ent_run.ptr)
            .ptr(run_ptr.ptr),
    )?;
    l.sync()?;
    Ok(AsptPlan {
        rows: c.rows,
        nnz: c.nnz,
        panels,
        runs,
        sorted: unsorted == 0,
        build_seconds: start.elapsed().as_secs_f64(),
        arrays: AsptArrays {
            order: order.into_buffer(),
            panel_ptr: panel_ptr.into_buffer(),
            ent_pos: ent_pos.into_buffer(),
            ent_key: ent_key.into_buffer(),
            run_ptr: run_ptr.into_buffer(),
            run_col: run_col.into_buffer(),
            ent_run: ent_run.into_buffer(),
        },
    })
}

/// Rows by (first min-hash, hash of the others), stably (equal keys keep row order), into
/// `order` (m words), and each row's rank in `rank` (which first holds the first min-hashes).
/// `space` sorts m keys at least.
fn row_order(l: &Launcher, c: &SpMat, space: &SortSpace, rank: u64, order: u64) -> Result<()> {
    let SparsePattern::Csr { row_offsets, col_ind } = c.pattern else {
        return Err(Error::internal("ASpT row order of a matrix that is not CSR"));
    };
    let m = c.rows as u64;
    l.launch(
        &format!("spblk_aspt_row_keys_{}", index_tag(c.indices_type)),
        l.grid(m * 32, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .i64(m as i64)
            .ptr(row_offsets as u64)
            .ptr(col_ind as u64)
            .i64(c.base.offset())
            .ptr(space.keys[0])
            .ptr(rank)
            .ptr(space.vals[0]),
    )?;
    let cur = radix_sort(l, space, m, 32, 0)?;
    l.launch(
        "spblk_aspt_first_keys",
        l.grid(m, BLOCK as u64),
        BLOCK,
        0,
        Args::new().u64(m).ptr(space.vals[cur]).ptr(rank).ptr(space.keys[cur]),
    )?;
    let cur = radix_sort(l, space, m, 32, cur)?;
    l.copy(order, space.vals[cur], m as usize * 4)?;
    l.launch("spblk_aspt_ranks", l.grid(m, BLOCK as u64), BLOCK, 0, Args::new().u64(m).ptr(order).ptr(rank))
}

/// Panels the default's estimate samples (evenly spaced in the row order): enough for a mean
/// share within a few percent, two waves of blocks on an H100.
const ESTIMATE_PANELS: u64 = 256;

/// The default preprocess's estimate of CSR matrix `c`'s ASpT SpMM plan (its dense entries and
/// columns, kernels/spmm/aspt.cu's `aspt_spmm_estimate`), from the rows' panel order and a
/// sample of panels: a fraction of the plan's cost (no sort of the entries). `None` where no
/// ASpT plan can be built. Waits for its work.
pub fn estimate_spmm(l: &Launcher, dev: &Arc<Device>, c: &SpMat) -> Result<Option<AsptSpmmShape>> {
    let SparsePattern::Csr { row_offsets, col_ind } = c.pattern else { return Ok(None) };
    if AsptPlan::unsupported(c.rows, c.cols, c.nnz).is_some() || c.rows == 0 {
        return Ok(None);
    }
    let m = c.rows as u64;
    let panels = m.div_ceil(AsptPlan::PANEL as u64);
    let mut measure = Carve::measure();
    SortSpace::carve(&mut measure, m);
    measure.take(2 * m as usize * 4 + 32);
    let scratch = DeviceAlloc::new(dev, measure.size(), "ASpT SpMM estimate")?;
    let mut carve = Carve::new(scratch.ptr as *mut std::ffi::c_void);
    let space = SortSpace::carve(&mut carve, m);
    let (rank, order, out) = (carve.take(m as usize * 4), carve.take(m as usize * 4), carve.take(32));
    row_order(l, c, &space, rank, order)?;
    l.memset_u32(out, 0, 8)?;
    let sampled = panels.min(ESTIMATE_PANELS);
    l.launch(
        &format!("spblk_aspt_spmm_estimate_{}", index_tag(c.indices_type)),
        sampled as u32,
        BLOCK,
        ESTIMATE_SHARED,
        Args::new()
            .u64(m)
            .u64(panels / sampled)
            .ptr(order)
            .ptr(row_offsets as u64)
            .ptr(col_ind as u64)
            .i64(c.base.offset())
            .ptr(out),
    )?;
    let [entries, dense_entries, dense_columns, crowded] = l.read_u64s(out, 4)?[..] else {
        return Err(Error::internal("ASpT SpMM estimate: short read"));
    };
    trace::note(format_args!(
        "ASpT SpMM estimate: {sampled} of {panels} panels, {dense_entries} of {entries} entries in \
         {dense_columns} dense columns ({crowded} in panels with too many columns to count)"
    ));
    Ok(Some(AsptSpmmShape { entries, dense_entries, dense_columns }))
}
/// The estimate kernel's hash table: 8192 column keys and counts (u32).
const ESTIMATE_SHARED: u32 = 2 * 8192 * 4;

pub fn run(l: &Launcher, args: &SddmmArgs, plan: &AsptPlan, buffer: *mut std::ffi::c_void) -> Result<()> {
    let alpha = Scalar::new(&args.alpha, args.precision.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.precision.compute, "beta")?;
    let c = args.c;
    let arrays = &plan.arrays;
    if plan.rows != c.rows || plan.nnz != c.nnz {
        return Err(Error::internal(format!("the ASpT plan is of {}x? with {} entries", plan.rows, plan.nnz)));
    }
    let k = args.inner_dim();
    if k > AsptPlan::max_k(args.precision.compute) {
        return Err(Error::not_supported(format!(
            "SDDMM with SPBLK_SDDMM_ALG_ASPT takes k <= {} for {:?} on CUDA (k is {k})",
            AsptPlan::max_k(args.precision.compute),
            args.precision.compute
        )));
    }
    if c.nnz == 0 {
        return Ok(());
    }
    let (a, b) = sddmm::stage_operands(l, args, buffer)?;
    let esize = args.precision.input.size() as u64;
    let b_vec = b.ld % 4 == 0 && b.ptr % (4 * esize).min(16) == 0;
    if AsptPlan::tiles(args.precision, plan.sorted) {
        return run_tiles(l, args, plan, (&a, &b, b_vec), (alpha, beta));
    }
    let g = pow2_clamp((k as u64).div_ceil(8), 4, 32);
    let tsize: u64 = if args.precision.compute == DataType::F64 { 8 } else { 4 };
    let shared = AsptPlan::PANEL as u64 * (8 * g as u64 + 16 / tsize) * tsize;
    // Entries per block: 2048, fewer on small matrices so that every SM gets 4 blocks.
    let nnz = c.nnz as u64;
    let chunk = (nnz.div_ceil(4 * l.dev.sm_count as u64)).next_power_of_two().clamp(256, 2048);
    trace::note(format_args!(
        "ASpT: {} panels, {:.1} entries per panel column, {g} lanes per entry, {chunk} entries per block",
        plan.panels,
        plan.reuse()
    ));
    let name = format!("spblk_sddmm_aspt_{}", precision_tag(&args.precision));
    let args = with_operands(
        Args::new()
            .i64(k)
            .u64(nnz)
            .u64(plan.panels)
            .u64(chunk)
            .u64(c.rows as u64)
            .ptr(arrays.order.addr)
            .ptr(arrays.panel_ptr.addr)
            .ptr(arrays.ent_pos.addr)
            .ptr(arrays.ent_key.addr),
        (&a, &b, b_vec),
        c.values as u64,
        (alpha, beta),
    )
    .i32(g as i32);
    l.launch(&name, l.grid(nnz.div_ceil(chunk) * BLOCK as u64, BLOCK as u64), BLOCK, shared as u32, args)
}

/// f32 with sorted rows: the dense tiles on tensor cores (kernels/sddmm/aspt_tiles.cu), a block
/// per panel.
fn run_tiles(
    l: &Launcher,
    args: &SddmmArgs,
    plan: &AsptPlan,
    (a, b, b_vec): (&sddmm::Operand, &sddmm::Operand, bool),
    (alpha, beta): (Scalar, Scalar),
) -> Result<()> {
    let c = args.c;
    let SparsePattern::Csr { row_offsets, .. } = c.pattern else {
        return Err(Error::internal("ASpT tiles of a matrix that is not CSR"));
    };
    let arrays = &plan.arrays;
    let k = args.inner_dim();
    // The staged panel: high and low TF32 parts of 32 rows, k rounded up to 16; then two
    // chunks of 32 x 64 products (k <= 32; 128 above), row stride 8 more; for k <= 32, each
    // warp's two sets of B's slots (two 16-byte copies per lane).
    let kpad = (k as u64).div_ceil(16) * 16;
    let (chunk_runs, slots): (u64, u64) = if k <= 32 { (64, (BLOCK as u64 / 32) * 2 * 2 * 32 * 16) } else { (128, 0) };
    let shared = 2 * AsptPlan::PANEL as u64 * kpad * 4 + 2 * AsptPlan::PANEL as u64 * (chunk_runs + 8) * 4 + slots;
    let name = format!("spblk_sddmm_aspt_tiles_f32_k{}_{}", if k <= 32 { 32 } else { 256 }, index_tag(c.indices_type));
    trace::note(format_args!(
        "ASpT tiles on tensor cores (split TF32): {} panels, {} runs ({:.1} entries each), {name}",
        plan.panels,
        plan.runs,
        plan.reuse()
    ));
    let args = with_operands(
        Args::new()
            .i64(k)
            .u64(plan.panels)
            .u64(plan.rows as u64)
            .ptr(arrays.order.addr)
            .ptr(row_offsets as u64)
            .i64(c.base.offset())
            .ptr(arrays.run_ptr.addr)
            .ptr(arrays.run_col.addr)
            .ptr(arrays.ent_run.addr),
        (a, b, b_vec),
        c.values as u64,
        (alpha, beta),
    );
    l.launch(&name, plan.panels.min(u32::MAX as u64 / 2) as u32, BLOCK, shared as u32, args)
}

/// The products' common arguments after the plan's: op(A), op(B) (and whether its columns take
/// 16-byte loads), C's values, alpha and beta.
fn with_operands(
    args: Args,
    (a, b, b_vec): (&sddmm::Operand, &sddmm::Operand, bool),
    c_values: u64,
    (alpha, beta): (Scalar, Scalar),
) -> Args {
    args.ptr(a.ptr).i64(a.ld).ptr(b.ptr).i64(b.ld).i32(b_vec as i32).ptr(c_values).scalar(alpha).scalar(beta)
}
