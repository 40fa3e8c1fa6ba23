//! SpGEMM (kernels/spgemm/*.cu) with cuSPARSE's protocol.
//!
//! * `workEstimation` (buffer 1): products per row of C and per-bin counts, read back (first
//!   sync; `getNumProducts` reports their total).
//! * `compute` (buffer 2): bins the rows, counts each row's nnz (symbolic), scans the counts
//!   into C's offsets and reads nnz(C) back (second sync). It computes no values and
//!   allocates nothing for C.
//! * `copy` (asynchronous): the numeric phase, written straight into the arrays the caller
//!   set with `spblkCsrSetPointers`, in C's index type, base and value type, adding beta·C
//!   when beta != 0. So the values are those of A and B when `copy` runs (cuSPARSE computes
//!   them in `compute`; the protocol's programs do not change A or B in between).
//!
//! Rows are binned by their product count (kernels/spgemm/spgemm.cuh): up to 2048 products a
//! warp per row with a shared-memory table; above, a thread block per row (docs/spgemm.md).
//! The numeric phase takes rows of more than 512 products a block per row already; those of
//! more than 4096 entries whose products seldom share a column (at most ESC_X4 / 4 products
//! an entry) and span over 4 dense windows take ESC's long-row path instead: their
//! products sorted in chunks across blocks and merged (spgemm/esc.rs), not one block's table.
//! When B's rows are sorted (the work estimation counts their descents), dense windows load
//! only their columns of B's long rows, and rows whose windows that makes cheap take up to 16
//! of them rather than a large table or ESC's path (kernels/spgemm/spgemm.cuh).
//!
//! Memory: buffer 1 holds 8(m+1) bytes of per-row product counts and 128 bytes of counts;
//! buffer 2 holds C's offsets (8(m+3) bytes), the row bins (4m), the big rows' pool offsets,
//! ranks, segment starts and column spans (36 bytes per row of more than 512 products) and
//! scan space. Both must stay alive until `copy` has run (as with cuSPARSE). Only rows too big
//! for every shared-memory method need more: their symbolic tables (in `compute`), and in
//! `copy` their numeric tables and a sort scratch of about 32 bytes per entry of those rows,
//! or on ESC's path 16 + sizeof(compute type) bytes per product of a pass (DEFAULT and ALG1
//! only; passes of at most the size of C's arrays or 16 MiB, or of one row);
//! spgemm/placement.rs says where that memory comes from (allocated and freed inside the call,
//! or buffer 2 with ALG2 and ALG3).

use std::sync::Arc;

use cudarc::driver::sys;

use super::context::{check, Device};
use super::kernels::{index_tag, value_tag};
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::prims::{key_bits, radix_sort, scan, scan_tmp_bytes, SortSpace, Width};
use crate::backend::{SpgemmArgs, SpgemmMethod, SpgemmState};
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::trace;
use crate::types::{DataType, IndexType};

mod esc;
mod placement;

use esc::{LongRows, CHUNK};
use placement::{group_passes, scratch_bytes, Placement, Workspace};

/// Warp bins 1..=8 (kernels/spgemm/spgemm.cuh): bin b holds rows with at most 16 << (b-1)
/// products and gives each warp a table of 32 << (b-1) slots.
const WARP_BINS: usize = 8;
const BIG: usize = 9;
/// The numeric phase runs rows from this bin up (more than 512 products) in the big rows'
/// kernel: a warp with a table of 2048 or 4096 slots (16–32 KB) leaves too few warps per SM.
const NUMERIC_BIG_FROM: usize = 7;
const STAT_POOL: usize = 10;
const STAT_PRODUCTS: usize = 11;
/// Bounds on the big rows' global numeric tables (slots) and their entries (ALG2's buffer).
const STAT_GLOBAL_SLOTS: usize = 12;
const STAT_GLOBAL_ENTRIES: usize = 13;
/// The largest global symbolic table (slots) and the most entries of a row counted in
/// STAT_GLOBAL_ENTRIES: ALG3's windows grow by them, so that any row fits a pass.
const STAT_POOL_MAX: usize = 14;
const STAT_GLOBAL_MAX_ENTRIES: usize = 15;
/// Descents inside B's rows (zero: sorted, so the dense windows may search them).
const STAT_B_DESCENTS: usize = 16;
const STATS: usize = 17;
/// A global row's rank and scratch start share a word (SPGEMM_SEG_BITS).
const SEG_BITS: u32 = 40;
/// Threads of a big row's block: 32 × SPGEMM_BIG_WARPS (8; column_owner's shift and the
/// route tables in kernels/spgemm assume 8 as well).
const BIG_THREADS: u32 = 256;
/// Big rows' numeric launches (kernels/spgemm/numeric.cu, big_numeric_kind): (kind, table
/// sizes exclusive..inclusive). Kind 0: dense windows (columns, up to `dense_max`); 1: shared
/// hash tables (slots, up to SPGEMM_BIG_NUMERIC_SLOTS); 2: global hash tables.
const BIG_CLASSES: [(i32, u64, u64); 9] = [
    (0, 0, 2048),
    (0, 2048, 8192),
    (0, 8192, 1 << 20),
    (1, 0, 1024),
    (1, 1024, 2048),
    (1, 2048, 4096),
    (1, 4096, 8192),
    (1, 8192, 16384),
    (2, 0, u64::MAX),
];

/// A big row takes ESC's long-row path in the numeric phase when its products are at most
/// ESC_X4 / 4 times its entries (and it spans over 4 dense windows; big_numeric_esc in
/// kernels/spgemm/spgemm.cuh). With DEFAULT and ALG1 only: ALG2 and ALG3 bound buffer 2 by the
/// hash tables' needs.
const ESC_X4: u32 = 8;
/// The path's scratch per product past the value (two keys, and a margin for the chunks'
/// starts). Its rows run in passes whose scratch stays within the size of C's arrays (columns
/// and values in the compute type) or 16 MiB, or holds one row, so that it at most doubles
/// C's memory on all but small products.
const ESC_BYTES: u64 = 17;

/// The walks (products x dense windows) from which a row's windows run in blocks of their own
/// (kernels/spgemm/spgemm.cuh, SPGEMM_SPLIT_ROW): a quarter of an even share of all products
/// among the big rows' blocks that the GPU holds at once (six an SM). Shorter rows keep B's rows
/// in one block's L1 across their windows.
fn split_work(products: u64, sm_count: u32) -> u64 {
    products / (24 * sm_count.max(1) as u64)
}

/// The most dense windows of a big row (SPGEMM_WINDOWS).
const WINDOWS: usize = 16;

/// The widest dense window: 64 KB of values.
fn dense_max(tsize: usize) -> u64 {
    65536 / tsize as u64
}

/// Shared memory of a big numeric block: the routing buffers (BigRoute), then the table.
fn big_shared_bytes(kind: i32, hi: u64, tsize: usize) -> u32 {
    let route = (256 * (4 + tsize) + 256).next_multiple_of(16) as u64;
    let table = match kind {
        0 => hi * tsize as u64 + hi / 8,
        1 => hi * (4 + tsize as u64),
        _ => 0,
    };
    (route + table) as u32
}

/// Warp bins whose rows (at most 32 products) both phases take in registers, without a table
/// (spgemm_symbolic_short, spgemm_numeric_short in kernels/spgemm); in the next bin (at most
/// 64), rows of over 32 entries take the numeric phase in registers, two products a lane.
const SHORT_BINS: usize = 2;

fn warp_table(bin: usize) -> u32 {
    32 << (bin - 1)
}

/// Warps per block of a warp bin: eight, fewer for the largest tables.
fn warps_per_block(table: u32) -> u32 {
    (8192 / table).clamp(1, 8)
}

/// Shared memory (u32 words) of the big rows' symbolic kernel: 64 KB (three blocks per SM),
/// or 128 KB when that lets a bitmap cover up to 2^20 columns.
fn symbolic_cap_words(n: i64) -> u64 {
    if n > 1 << 19 && n <= 1 << 20 {
        32768
    } else {
        16384
    }
}

/// What the descriptor keeps between the protocol's calls.
pub(super) struct GpuProduct {
    buffer1: u64,
    cap_words: u64,
    /// Buffer 2 (0 until `compute` has run): C's zero-based offsets, the bins, spans, ...
    buffer2: u64,
    /// The work estimation's counts (SPGEMM_STAT_* in spgemm.cuh): rows per bin, the
    /// products, the global tables' totals, bounds and maxima.
    stats: [u64; STATS],
    pub(super) nnz: u64,
    /// The rows with global numeric tables: count, and pool slots (tight).
    global: [u64; 2],
    /// The rows on ESC's long-row path: count, products, the most products of a row.
    esc: [u64; 3],
    /// The rows of several dense windows (their windows run in blocks of their own).
    multi_window_rows: u64,
    /// Their numeric passes: ranges of the scratch, each whole rows (one range but with ALG3).
    passes: Vec<(u64, u64)>,
    /// Where `compute` put the global rows' memory (`copy` does the same).
    placement: Placement,
    /// The reuse path's plan (spgemm_reuse.rs), once `reuse_copy` has built it.
    pub(super) reuse: Option<super::spgemm_reuse::ReusePlan>,
}

struct Layout1 {
    rowprod: u64,
    stats: u64,
}

fn layout1(c: &mut Carve, m: usize) -> Layout1 {
    Layout1 { rowprod: c.take(8 * (m + 1)), stats: c.take(8 * STATS) }
}

struct Layout2 {
    /// m + 1 offsets, then the numeric big rows' totals (TOTALS words: kernels/spgemm/
    /// analysis.cu's spgemm_big_numeric_pool): one read with nnz.
    c_ptr: u64,
    scan_tmp: u64,
    bin_rows: u64,
    /// Bin-9 rows' offsets into the global symbolic pool; after the symbolic phase reused
    /// for the numeric big list's seg_info (rank << 40 | start in the global rows' scratch).
    sym_off: u64,
    /// The numeric big list's offsets into the global numeric pool.
    num_off: u64,
    /// Per big row: its smallest and largest column (hi << 32 | lo).
    span: u64,
    /// The big rows with global tables, by rank; and each rank's start in a pass's sort.
    k2_row: u64,
    k2_start: u64,
    /// Per bin-9 row, SPGEMM_WINDOWS u32: its entries before each dense window (written by
    /// the symbolic phase for rows of several windows; the numeric phase runs those apart).
    win_start: u64,
    /// The positions (in the numeric big list) of the rows of several dense windows.
    multi_rows: u64,
    /// The big rows on ESC's long-row path (in list order): rows, their products' offsets
    /// (ascending), and a pass's products and chunks per row (scanned in `copy` into offsets,
    /// so one word more each).
    esc_rows: u64,
    esc_off: u64,
    pass_products: u64,
    pass_chunks: u64,
    cursors: u64,
}

/// The numeric big rows' totals after C's offsets: global rows << SEG_BITS | their entries,
/// global pool slots; ESC rows << SEG_BITS | their products, the most products of an ESC row;
/// rows of several dense windows.
const TOTALS: usize = 5;

/// Buffer 2's arrays: per row of C (offsets, bins), and per row of the numeric big list
/// (`big` rows, from the work estimation's bin counts; small matrices are mostly per-row
/// metadata, so these are not sized by m).
fn layout2(c: &mut Carve, m: usize, stats: &[u64; STATS]) -> Layout2 {
    let big = (stats[NUMERIC_BIG_FROM..=BIG].iter().sum::<u64>() as usize).max(1);
    let bin9 = (stats[BIG] as usize).max(1);
    Layout2 {
        c_ptr: c.take(8 * (m + 1 + TOTALS)),
        scan_tmp: c.take(scan_tmp_bytes(m as u64, Width::U64)),
        bin_rows: c.take(4 * m.max(1)),
        sym_off: c.take(8 * big),
        num_off: c.take(8 * big),
        span: c.take(8 * big),
        k2_row: c.take(4 * big),
        k2_start: c.take(8 * big),
        win_start: c.take(4 * WINDOWS * bin9),
        multi_rows: c.take(4 * big),
        esc_rows: c.take(4 * big),
        esc_off: c.take(8 * big),
        pass_products: c.take(8 * (big + 1)),
        pass_chunks: c.take(8 * (big + 1)),
        // SPGEMM_BINS u32 bin cursors, then the u64 pool cursor.
        cursors: c.take(64),
    }
}

/// Where each bin's rows start in the bin list (bins 1..=BIG, in order; as bin_rows lists them).
fn bin_offsets(stats: &[u64]) -> [u64; BIG + 1] {
    let mut offsets = [0u64; BIG + 1];
    for b in 2..=BIG {
        offsets[b] = offsets[b - 1] + stats[b - 1];
    }
    offsets
}

pub(super) fn csr_arrays(a: &SpMat) -> (u64, u64) {
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
    if args.method == SpgemmMethod::Esc {
        return esc::work_estimation_size(args);
    }
    let mut c = Carve::measure();
    layout1(&mut c, args.a.rows as usize);
    c.size().max(1)
}

/// Buffer 2: its layout, and with ALG2/ALG3 the largest of what `compute` (the global
/// symbolic tables) and `copy` (the global numeric tables and their sort) would otherwise
/// allocate, bounded from the work estimation (ALG3: for one pass).
pub fn compute_size(args: &SpgemmArgs, state: &SpgemmState) -> Result<usize> {
    if args.method == SpgemmMethod::Esc {
        return esc::compute_size(args, state);
    }
    let stats = &product_ref(state)?.stats;
    let mut c = Carve::measure();
    layout2(&mut c, args.a.rows as usize, stats);
    if let Some(bytes) = Placement::of(args, state, stats)?.bytes(stats, args.compute.size()) {
        c.take(bytes);
    }
    Ok(c.size().max(1))
}

pub fn work_estimation(
    l: &Launcher,
    args: &SpgemmArgs,
    state: &mut SpgemmState,
    buffer: *mut std::ffi::c_void,
) -> Result<()> {
    if args.method == SpgemmMethod::Esc {
        return esc::work_estimation(l, args, state, buffer);
    }
    check_limits(args)?;
    let m = args.a.rows;
    let cap_words = symbolic_cap_words(args.b.cols);
    let lay = layout1(&mut Carve::new(buffer), m as usize);
    count_products(l, args, lay.rowprod, lay.stats)?;
    // First sync: how many rows fall in each bin, the size of the global symbolic tables, and
    // the products (which decide the reuse path's buffers).
    let stats: [u64; STATS] = l.read_u64s(lay.stats, STATS)?.try_into().expect("STATS words");
    if stats[STAT_B_DESCENTS] == 0 {
        trace::note("B's rows sorted: the dense windows search B's long rows for their columns");
    }
    state.num_products = Some(stats[STAT_PRODUCTS] as i64);
    state.data = Some(Box::new(GpuProduct {
        buffer1: buffer as u64,
        cap_words,
        buffer2: 0,
        stats,
        nnz: 0,
        global: [0; 2],
        esc: [0; 3],
        multi_window_rows: 0,
        passes: Vec::new(),
        placement: Placement::Allocated,
        reuse: None,
    }));
    Ok(())
}

/// Products per row of A·B into `rowprod` (m words), the hash bins' statistics and B's
/// descents into `stats` (STATS words, zeroed here first).
fn count_products(l: &Launcher, args: &SpgemmArgs, rowprod: u64, stats: u64) -> Result<()> {
    let m = args.a.rows;
    l.memset_u32(stats, 0, 2 * STATS)?;
    if m == 0 {
        return Ok(());
    }
    let (a_ptr, a_col) = csr_arrays(args.a);
    let (b_ptr, b_col) = csr_arrays(args.b);
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
            .i64(args.b.rows)
            .ptr(b_ptr)
            .ptr(b_col)
            .i64(args.b.base.offset())
            .u64(symbolic_cap_words(args.b.cols))
            // The narrowest window of any compute type (f64's): the bound holds whichever
            // type the later calls give.
            .u64(dense_max(8))
            .ptr(rowprod)
            .ptr(stats),
    )
}

const NO_ESTIMATION: &str = "holds no CUDA work estimation (call spblkSpGEMM_workEstimation on this handle first)";

pub(super) fn product(state: &mut SpgemmState) -> Result<&mut GpuProduct> {
    state
        .data
        .as_mut()
        .and_then(|d| d.downcast_mut::<GpuProduct>())
        .ok_or_else(|| Error::invalid("spgemmDescr", NO_ESTIMATION))
}

pub(super) fn product_ref(state: &SpgemmState) -> Result<&GpuProduct> {
    state
        .data
        .as_ref()
        .and_then(|d| d.downcast_ref::<GpuProduct>())
        .ok_or_else(|| Error::invalid("spgemmDescr", NO_ESTIMATION))
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
    if args.method == SpgemmMethod::Esc {
        return esc::compute(l, args, state, buffer);
    }
    check_limits(args)?;
    let m = args.a.rows;
    let n = args.b.cols;
    let ity = args.a.indices_type;
    let it = index_tag(ity);
    let tsize = args.compute.size();
    let placement = Placement::of(args, state, &product_ref(state)?.stats)?;
    let prod = product(state)?;
    let cap_words = prod.cap_words;
    let l1 = layout1(&mut Carve::new(prod.buffer1 as *mut _), m as usize);
    let l2 = layout2(&mut Carve::new(buffer), m as usize, &prod.stats);
    prod.buffer2 = 0;
    prod.reuse = None;
    let stats = prod.stats;
    let b_sorted = (stats[STAT_B_DESCENTS] == 0) as u32;
    let offsets = bin_offsets(&stats);
    let rows_of = |b: usize| l2.bin_rows + 4 * offsets[b];
    // Spans are kept per position in the numeric big list (bins NUMERIC_BIG_FROM..=BIG).
    let span_of = |b: usize| l2.span + 8 * (offsets[b] - offsets[NUMERIC_BIG_FROM]);
    let numeric_big = offsets[BIG] + stats[BIG] - offsets[NUMERIC_BIG_FROM];
    let big = stats[BIG];
    let mut work = Workspace::new(dev, args, placement, buffer as u64, &stats);
    // The global symbolic tables: all at once, or (ALG3) a window of the pool per pass.
    let (pool_window, pool_room) = match placement {
        Placement::InPasses(w) if stats[STAT_POOL] > 0 => (w.pool_words, w.pool_words + stats[STAT_POOL_MAX]),
        _ => (stats[STAT_POOL], stats[STAT_POOL]),
    };
    let pool1 = work.take(4 * pool_room as usize)?;
    l.memset_u32(l2.cursors, 0, 16)?;
    l.memset_u32(l2.c_ptr + 8 * (m as u64 + 1), 0, 2 * TOTALS)?;
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
                .ptr(l1.stats)
                .u64(cap_words)
                .ptr(l2.cursors)
                .ptr(l2.bin_rows)
                .ptr(l2.sym_off)
                .ptr(l2.cursors + 48)
                .ptr(l2.c_ptr),
        )?;
    }
    for (bin, &count) in stats.iter().enumerate().take(WARP_BINS + 1).skip(1) {
        if count == 0 {
            continue;
        }
        if bin <= SHORT_BINS {
            l.launch(
                &format!("spblk_spgemm_symbolic_short_{it}"),
                l.grid(count, 8),
                256,
                0,
                ab_args(Args::new().ptr(rows_of(bin)).u32(count as u32), args, false).ptr(l2.c_ptr),
            )?;
            continue;
        }
        let (table, wpb) = (warp_table(bin), warps_per_block(warp_table(bin)));
        l.launch(
            &format!("spblk_spgemm_symbolic_warp_{it}"),
            l.grid(count, wpb as u64),
            32 * wpb,
            wpb * table * 4,
            ab_args(Args::new().ptr(rows_of(bin)).u32(count as u32).u32(table), args, false)
                .ptr(if bin >= NUMERIC_BIG_FROM { span_of(bin) } else { 0 })
                .ptr(l2.c_ptr),
        )?;
    }
    if big > 0 {
        for (lo, hi) in [(0, 4096), (4096, 16384), (16384, cap_words)] {
            if lo >= hi {
                continue;
            }
            l.launch(
                &format!("spblk_spgemm_symbolic_big_{it}"),
                l.grid(big, 1),
                BIG_THREADS,
                (hi * 4) as u32,
                ab_args(
                    Args::new().ptr(rows_of(BIG)).u32(big as u32).ptr(l1.rowprod).i64(n).u64(cap_words).u64(lo).u64(hi),
                    args,
                    false,
                )
                .u64(dense_max(tsize))
                .u32(b_sorted)
                .ptr(span_of(BIG))
                .ptr(l2.win_start)
                .ptr(l2.c_ptr),
            )?;
        }
        let mut lo = 0;
        while lo < stats[STAT_POOL] {
            l.launch(
                &format!("spblk_spgemm_symbolic_global_{it}"),
                l.grid(big, 1),
                BIG_THREADS,
                0,
                ab_args(
                    Args::new()
                        .ptr(rows_of(BIG))
                        .u32(big as u32)
                        .ptr(l2.sym_off)
                        .ptr(l1.rowprod)
                        .i64(n)
                        .u64(cap_words)
                        .u64(lo)
                        .u64(lo + pool_window),
                    args,
                    false,
                )
                .u64(dense_max(tsize))
                .u32(b_sorted)
                .ptr(pool1)
                .ptr(span_of(BIG))
                .ptr(l2.win_start)
                .ptr(l2.c_ptr),
            )?;
            lo += pool_window;
        }
    }
    // Freed after the queued work that uses it (cuMemFree waits for the device).
    drop(work);
    // Row counts -> offsets; the total lands in c_ptr[m]. The big rows too large for a
    // shared numeric table get places in a global pool; second sync: nnz(C) and that pool.
    scan(l, l2.c_ptr, m as u64, Width::U64, l2.scan_tmp, l2.c_ptr + 8 * m as u64)?;
    let totals = l2.c_ptr + 8 * (m as u64 + 1);
    if numeric_big > 0 {
        l.launch(
            "spblk_spgemm_big_numeric_pool",
            l.grid(numeric_big, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .ptr(rows_of(NUMERIC_BIG_FROM))
                .u32(numeric_big as u32)
                .ptr(l2.c_ptr)
                .ptr(l2.span)
                .ptr(l1.rowprod)
                .u64(dense_max(tsize))
                .u32(matches!(placement, Placement::InPasses(_)) as u32)
                .u32(if placement == Placement::Allocated { ESC_X4 } else { 0 })
                .u64(split_work(stats[STAT_PRODUCTS], l.dev.sm_count))
                .ptr(l2.multi_rows)
                .ptr(l2.num_off)
                .ptr(l2.sym_off)
                .ptr(l2.k2_row)
                .ptr(l2.k2_start)
                .ptr(l2.esc_rows)
                .ptr(l2.esc_off)
                .ptr(totals),
        )?;
    }
    let read = l.read_u64s(l2.c_ptr + 8 * m as u64, 1 + TOTALS)?;
    let nnz = read[0];
    if ity == IndexType::I32 && nnz as i64 + args.c.base.offset() > i32::MAX as i64 {
        return Err(Error::not_supported(format!("SpGEMM: nnz(C) = {nnz} does not fit 32-bit indices")));
    }
    let (global_rows, t2) = (read[1] >> SEG_BITS, read[1] & ((1 << SEG_BITS) - 1));
    prod.passes = match placement {
        _ if global_rows == 0 => Vec::new(),
        Placement::InPasses(w) => {
            // ALG3 only, a third read: the rows' segment starts (in rank order), grouped.
            let starts = l.read_u64s(l2.k2_start, global_rows as usize)?;
            group_passes(&starts, t2, w.entries + stats[STAT_GLOBAL_MAX_ENTRIES])
        }
        _ => vec![(0, t2)],
    };
    prod.buffer2 = buffer as u64;
    prod.placement = placement;
    prod.nnz = nnz;
    prod.global = [global_rows, read[2]];
    prod.esc = [read[3] >> SEG_BITS, read[3] & ((1 << SEG_BITS) - 1), read[4]];
    prod.multi_window_rows = read[5];
    Ok(nnz as i64)
}

/// The numeric phase, straight into C's arrays (set with `spblkCsrSetPointers`), in C's index
/// type, base and value type, with beta·C added when beta != 0; and C's offsets. Without
/// `values`, C's offsets and columns only (the reuse path's copy).
pub fn copy(l: &Launcher, dev: &Arc<Device>, args: &SpgemmArgs, state: &mut SpgemmState, values: bool) -> Result<()> {
    if args.method == SpgemmMethod::Esc {
        return esc::copy(l, args, state);
    }
    let prod = product(state)?;
    if prod.buffer2 == 0 {
        return Err(Error::invalid("spgemmDescr", "holds no computed product (call spblkSpGEMM_compute first)"));
    }
    if !matches!(args.c.value_type, DataType::F32 | DataType::F64 | DataType::F16 | DataType::BF16) {
        return Err(Error::not_supported(format!("SpGEMM output type {:?}", args.c.value_type)));
    }
    let m = args.a.rows;
    let n = args.b.cols;
    let it = index_tag(args.a.indices_type);
    let vt = value_tag(args.a.value_type);
    let tsize = args.compute.size();
    let alpha = Scalar::new(&args.alpha, args.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.compute, "beta")?;
    let l2 = layout2(&mut Carve::new(prod.buffer2 as *mut _), m as usize, &prod.stats);
    let stats = prod.stats;
    let b_sorted = (stats[STAT_B_DESCENTS] == 0) as u32;
    let [global_rows, global_slots] = prod.global;
    let multi = prod.multi_window_rows;
    let offsets = bin_offsets(&stats);
    let rows_of = |b: usize| l2.bin_rows + 4 * offsets[b];
    let numeric_big = offsets[BIG] + stats[BIG] - offsets[NUMERIC_BIG_FROM];
    let (c_ptr, c_col) = csr_arrays(args.c);
    let c_val = if values { args.c.values as u64 } else { 0 };
    let out = |a: Args| a.ptr(c_col).ptr(c_val).i64(args.c.base.offset()).scalar(beta);
    l.launch(
        &format!("spblk_spgemm_offsets_{it}"),
        l.grid(m as u64 + 1, BLOCK as u64),
        BLOCK,
        0,
        Args::new().i64(m).ptr(l2.c_ptr).i64(args.c.base.offset()).ptr(c_ptr),
    )?;
    // Arguments of the big rows' numeric kernel up to A's and B's arrays: the class, the
    // window of global rows' segments, and the global rows' tables and scratch.
    // `split`: a block per dense window (the class of the widest windows).
    let big_args = |kind: i32, (lo, hi): (u64, u64), split: bool, (seg_lo, seg_hi): (u64, u64), global: [u64; 5]| {
        let [entry_k, pool_keys, pool_vals, k2_col, k2_val] = global;
        let a = Args::new()
            .ptr(rows_of(NUMERIC_BIG_FROM))
            .u32(numeric_big as u32)
            .i32(kind)
            .u64(lo)
            .u64(hi)
            .u64(dense_max(tsize))
            .u32(b_sorted)
            .ptr(if split { l2.win_start } else { 0 })
            .u32((offsets[BIG] - offsets[NUMERIC_BIG_FROM]) as u32)
            .ptr(l2.multi_rows)
            .u32(multi as u32)
            .u64(seg_lo)
            .u64(seg_hi)
            .ptr(l2.span)
            .ptr(l2.sym_off)
            .ptr(entry_k)
            .ptr(l2.num_off)
            .ptr(pool_keys)
            .ptr(pool_vals);
        out(ab_args(a, args, true).ptr(l2.c_ptr).ptr(k2_col).ptr(k2_val)).scalar(alpha)
    };
    for (bin, &count) in stats.iter().enumerate().take(NUMERIC_BIG_FROM).skip(1) {
        if count == 0 {
            continue;
        }
        if bin <= SHORT_BINS {
            l.launch(
                &format!("spblk_spgemm_numeric_short_{vt}_{it}"),
                l.grid(count, 8),
                256,
                0,
                out(ab_args(Args::new().ptr(rows_of(bin)).u32(count as u32), args, true).ptr(l2.c_ptr)).scalar(alpha),
            )?;
            continue;
        }
        let (table, wpb) = (warp_table(bin), warps_per_block(warp_table(bin)));
        // The next bin's rows of over 32 entries sort in registers too (spgemm_numeric_warp).
        let warp = if bin == SHORT_BINS + 1 { "warp2" } else { "warp" };
        l.launch(
            &format!("spblk_spgemm_numeric_{warp}_{vt}_{it}"),
            l.grid(count, wpb as u64),
            32 * wpb,
            wpb * table * (4 + tsize as u32),
            out(ab_args(Args::new().ptr(rows_of(bin)).u32(count as u32).u32(table), args, true).ptr(l2.c_ptr))
                .scalar(alpha),
        )?;
    }
    let big_numeric = format!("spblk_spgemm_numeric_big_{vt}_{it}");
    if numeric_big > 0 {
        // Shared-memory kinds here; kind 2 (global tables) below.
        for &(kind, lo, hi) in BIG_CLASSES.iter().filter(|class| class.0 != 2) {
            let hi = if kind == 0 { hi.min(dense_max(tsize)) } else { hi };
            if lo < hi {
                // Rows of several windows fall in the class of the widest: its blocks take windows.
                let split = kind == 0 && hi == dense_max(tsize);
                let a = big_args(kind, (lo, hi), split, (0, u64::MAX), [0; 5]);
                let items = numeric_big + if split { multi * (WINDOWS as u64 - 1) } else { 0 };
                l.launch(&big_numeric, l.grid(items, 1), BIG_THREADS, big_shared_bytes(kind, hi, tsize), a)?;
            }
        }
    }
    let esc = prod.esc;
    if global_rows == 0 && esc[0] == 0 {
        return Ok(());
    }
    if trace::on() && global_rows > 0 {
        trace::note(format_args!(
            "rows with global tables: {global_rows} ({} entries)",
            prod.passes.last().map_or(0, |p| p.1)
        ));
    }
    // Freed at the end, after the queued work that uses it (cuMemFree waits for the device).
    let mut work = Workspace::new(dev, args, prod.placement, prod.buffer2, &stats);
    if esc[0] > 0 {
        esc_rows_in_passes(l, args, &mut work, &l2, esc, prod.nnz, values)?;
    }
    if global_rows == 0 {
        return Ok(());
    }
    // The global rows, in one pass or (ALG3) in the passes `compute` planned.
    let passes = prod.passes.clone();
    let room = passes.iter().map(|&(lo, hi)| hi - lo).max().unwrap_or(0);
    let slots = if matches!(prod.placement, Placement::InPasses(_)) { 4 * room } else { global_slots };
    let (pool_keys, pool_vals, scratch) =
        (work.take(slots as usize * 4)?, work.take(slots as usize * tsize)?, work.take(scratch_bytes(room, tsize))?);
    let mut c = Carve::new(scratch as *mut _);
    let space = SortSpace::carve(&mut c, room);
    let (k2_col, k2_k, k2_val) = (c.take(room as usize * 4), c.take(room as usize * 4), c.take(room as usize * tsize));
    for (seg_lo, seg_hi) in passes {
        let len = seg_hi - seg_lo;
        let a = big_args(2, (0, u64::MAX), false, (seg_lo, seg_hi), [k2_k, pool_keys, pool_vals, k2_col, k2_val]);
        l.launch(&big_numeric, l.grid(numeric_big, 1), BIG_THREADS, big_shared_bytes(2, 0, tsize), a)?;
        // The entries, unsorted in the scratch: stable sort by column, then by the row's rank,
        // and place each row's run at its offset in C. Other rows are not touched.
        // SAFETY: both ranges are `len` u32 words of device memory owned here.
        check(
            unsafe { sys::cuMemcpyDtoDAsync_v2(space.keys[0], k2_col, len as usize * 4, l.stream) },
            "cuMemcpyDtoDAsync",
        )?;
        l.launch("spblk_iota_u32", l.grid(len, BLOCK as u64), BLOCK, 0, Args::new().ptr(space.vals[0]).u64(len))?;
        let cur = radix_sort(l, &space, len, key_bits(n as u64), 0)?;
        l.launch(
            "spblk_spgemm_gather_keys",
            l.grid(len, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(space.vals[cur]).u64(len).ptr(k2_k).ptr(space.keys[cur]),
        )?;
        let cur = radix_sort(l, &space, len, key_bits(global_rows), cur)?;
        let (perm, sorted_k) = (space.vals[cur], space.keys[cur]);
        l.launch(
            "spblk_spgemm_k2_starts",
            l.grid(len, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(sorted_k).u64(len).ptr(l2.k2_start),
        )?;
        l.launch(
            &format!("spblk_spgemm_place_{vt}_{it}"),
            l.grid(len, BLOCK as u64),
            BLOCK,
            0,
            out(Args::new()
                .ptr(perm)
                .u64(len)
                .ptr(sorted_k)
                .ptr(k2_col)
                .ptr(k2_val)
                .ptr(l2.k2_row)
                .ptr(l2.k2_start)
                .ptr(l2.c_ptr)),
        )?;
    }
    // The pool and the scratch are freed here, after the queued work that uses them
    // (cuMemFree waits for the device).
    drop(work);
    Ok(())
}

/// The rows on ESC's long-row path (`copy`, `esc` = rows, products, most products of a row):
/// grouped into passes by their products' offsets (one read), each pass's rows sorted and
/// summed into C in one scratch, each row's values beside its keys. The scratch holds the
/// largest pass: at most the size of C's arrays (or 16 MiB), or a single row.
fn esc_rows_in_passes(
    l: &Launcher,
    args: &SpgemmArgs,
    work: &mut Workspace,
    l2: &Layout2,
    [rows, products, _]: [u64; 3],
    nnz: u64,
    values: bool,
) -> Result<()> {
    let tsize = args.compute.size() as u64;
    let starts = l.read_u64s(l2.esc_off, rows as usize)?;
    let room = ((nnz * (4 + tsize)).max(16 << 20) / (ESC_BYTES + tsize)).max(1);
    let next = |j: usize| starts.get(j + 1).copied().unwrap_or(products);
    // Per pass: its rows (list positions), products, chunks and most products of a row.
    let passes: Vec<_> = group_passes(&starts, products, room)
        .into_iter()
        .map(|(lo, hi)| {
            let span = starts.partition_point(|&s| s < lo)..starts.partition_point(|&s| s < hi);
            let chunks = span.clone().map(|j| (next(j) - starts[j]).div_ceil(CHUNK)).sum::<u64>();
            let most = span.clone().map(|j| next(j) - starts[j]).max().unwrap_or(0);
            (span, (lo, hi), chunks, most)
        })
        .collect();
    let widest = passes.iter().map(|p| p.1 .1 - p.1 .0).max().unwrap_or(0) as usize;
    let chunks = passes.iter().map(|p| p.2).max().unwrap_or(0) as usize;
    if trace::on() {
        trace::note(format_args!(
            "rows on ESC's long-row path: {rows} ({products} products in {} passes, {} MB of scratch)",
            passes.len(),
            (widest as u64 * (16 + tsize) + 12 * chunks as u64) >> 20
        ));
    }
    let (chunk_k, chunk_q) = (work.take(8 * chunks)?, work.take(4 * chunks)?);
    let keys = [work.take(8 * widest)?, work.take(8 * widest)?];
    let vals = work.take(tsize as usize * widest)?;
    for (span, (lo, hi), chunks, most) in passes {
        let count = (span.end - span.start) as u64;
        let off = l2.esc_off + 8 * span.start as u64;
        l.launch(
            "spblk_spgemm_esc_pass_counts",
            l.grid(count, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(off).u32(count as u32).u64(hi).ptr(l2.pass_products).ptr(l2.pass_chunks),
        )?;
        let pass = LongRows {
            list: l2.esc_rows + 4 * span.start as u64,
            count,
            products: hi - lo,
            chunks,
            most,
            long_off: l2.pass_products,
            chunk_off: l2.pass_chunks,
            chunk_k,
            chunk_q,
            keys,
            scan_tmp: l2.scan_tmp,
        };
        let at = esc::sort_long_rows(l, args, &pass, 0, vals)?;
        esc::write_long_rows(l, args, &pass, pass.keys[at], 0, vals, l2.c_ptr, values)?;
    }
    Ok(())
}
