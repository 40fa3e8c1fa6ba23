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
//! The numeric phase takes rows of more than 512 products a block per row already.
//!
//! Memory: buffer 1 holds 8(m+1) bytes of per-row product counts and 128 bytes of counts;
//! buffer 2 holds C's offsets (8(m+5) bytes), the row bins (4m), the big rows' pool offsets,
//! ranks and column spans (28 bytes per row of more than 512 products) and scan space. Both
//! must stay alive until `copy` has run (as with cuSPARSE). Only rows too big for every shared-memory method allocate: their
//! symbolic tables (inside `compute`), and in `copy` their numeric tables and a sort scratch
//! of about 32 bytes per entry of those rows, freed before `copy` returns. With ALG2
//! (`BinnedHashInBuffer`) that memory is part of buffer 2 instead, at bounds taken from the
//! work estimation (rows that may have more than 8192 entries), so nothing is allocated.

use std::sync::Arc;

use cudarc::driver::sys;

use super::context::{check, Device};
use super::kernels::{index_tag, value_tag};
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::memory::DeviceAlloc as DevMem;
use super::prims::{key_bits, radix_sort, scan, scan_tmp_bytes, SortSpace, Width};
use crate::backend::{SpgemmArgs, SpgemmMethod, SpgemmState};
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::types::{DataType, IndexType};

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
const STATS: usize = 16;
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
    /// Rows per bin (work estimation), nnz(C), and the big rows with global tables: rows,
    /// pool slots, entries.
    stats: [u64; STATS],
    pub(super) nnz: u64,
    global: [u64; 3],
    /// `compute` ran ALG2 (`copy` works in buffer 2 too).
    in_buffer: bool,
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
    /// m + 1 offsets, then the global big rows' totals (rows, pool slots, scratch entries):
    /// one read with nnz; then the total of their scanned counts.
    c_ptr: u64,
    scan_tmp: u64,
    bin_rows: u64,
    /// Bin-9 rows' offsets into the global symbolic pool; after the symbolic phase reused
    /// for the numeric big list's seg_info (rank << 40 | start in the global rows' scratch).
    sym_off: u64,
    /// The numeric big list's offsets into the global numeric pool; after the numeric phase
    /// reused for the global rows' starts in sorted order.
    num_off: u64,
    /// Per big row: its smallest and largest column (hi << 32 | lo).
    span: u64,
    /// The big rows with global tables, by rank.
    k2_row: u64,
    cursors: u64,
}

/// Buffer 2's arrays: per row of C (offsets, bins), and per row of the numeric big list
/// (`big` rows, from the work estimation's bin counts; small matrices are mostly per-row
/// metadata, so these are not sized by m).
fn layout2(c: &mut Carve, m: usize, stats: &[u64; STATS]) -> Layout2 {
    let big = (stats[NUMERIC_BIG_FROM..=BIG].iter().sum::<u64>() as usize).max(1);
    Layout2 {
        c_ptr: c.take(8 * (m + 5)),
        scan_tmp: c.take(scan_tmp_bytes(m as u64, Width::U64)),
        bin_rows: c.take(4 * m.max(1)),
        sym_off: c.take(8 * big),
        num_off: c.take(8 * big),
        span: c.take(8 * big),
        k2_row: c.take(4 * big),
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
    let mut c = Carve::measure();
    layout1(&mut c, args.a.rows as usize);
    c.size().max(1)
}

/// Buffer 2: its layout, and with ALG2 (`BinnedHashInBuffer`) the largest of what `compute`
/// (the global symbolic tables) and `copy` (the global numeric tables and their sort) would
/// otherwise allocate, bounded from the work estimation.
pub fn compute_size(args: &SpgemmArgs, state: &SpgemmState) -> Result<usize> {
    let stats = &product_ref(state)?.stats;
    let mut c = Carve::measure();
    layout2(&mut c, args.a.rows as usize, stats);
    if args.method == SpgemmMethod::BinnedHashInBuffer {
        let (symbolic, numeric) = (symbolic_pool_bytes(stats), numeric_scratch_bytes(stats, args.compute.size()));
        c.take(symbolic.max(numeric));
    }
    Ok(c.size().max(1))
}

fn symbolic_pool_bytes(stats: &[u64; STATS]) -> usize {
    stats[STAT_POOL] as usize * 4
}

/// `copy`'s global rows at their bounds: tables (keys and values), then the scratch of their
/// entries (as `copy` takes them).
fn numeric_scratch_bytes(stats: &[u64; STATS], tsize: usize) -> usize {
    let (slots, entries) = (stats[STAT_GLOBAL_SLOTS] as usize, stats[STAT_GLOBAL_ENTRIES]);
    let mut c = Carve::measure();
    for bytes in [slots * 4, slots * tsize, scratch_bytes(entries, tsize)] {
        c.take(bytes);
    }
    c.size()
}

/// The global rows' entries unsorted (columns, row ranks, values) and the sort's buffers.
fn scratch_bytes(t2: u64, tsize: usize) -> usize {
    let mut c = Carve::measure();
    SortSpace::carve(&mut c, t2);
    c.take(t2 as usize * 4);
    c.take(t2 as usize * 4);
    c.take(t2 as usize * tsize);
    if t2 > 0 {
        c.size()
    } else {
        0
    }
}

/// Device memory for the rows too big for shared memory: carved from the rest of buffer 2
/// (ALG2; sized by `compute_size`, `limit` bytes) or allocated, and freed when dropped.
struct Workspace<'d> {
    dev: &'d Arc<Device>,
    carve: Option<(Carve, usize)>,
    owned: Vec<DevMem>,
}

impl<'d> Workspace<'d> {
    fn new(dev: &'d Arc<Device>, args: &SpgemmArgs, in_buffer: bool, buffer2: u64, stats: &[u64; STATS]) -> Self {
        let carve = in_buffer.then(|| {
            let mut c = Carve::new(buffer2 as *mut _);
            layout2(&mut c, args.a.rows as usize, stats);
            let rest = Carve::new(c.take(1) as *mut _);
            let tsize = args.compute.size();
            (rest, symbolic_pool_bytes(stats).max(numeric_scratch_bytes(stats, tsize)))
        });
        Workspace { dev, carve, owned: Vec::new() }
    }
    fn take(&mut self, bytes: usize) -> Result<u64> {
        match &mut self.carve {
            Some((c, limit)) => {
                let p = c.take(bytes);
                if c.size() > *limit {
                    return Err(Error::internal(format!("SpGEMM ALG2: buffer 2's bound ({limit} bytes) was exceeded")));
                }
                Ok(p)
            }
            None => {
                let m = DevMem::new(self.dev, bytes, "SpGEMM")?;
                let p = m.ptr;
                self.owned.push(m);
                Ok(p)
            }
        }
    }
}

pub fn work_estimation(
    l: &Launcher,
    args: &SpgemmArgs,
    state: &mut SpgemmState,
    buffer: *mut std::ffi::c_void,
) -> Result<()> {
    check_limits(args)?;
    let m = args.a.rows;
    let cap_words = symbolic_cap_words(args.b.cols);
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
                .u64(cap_words)
                .ptr(lay.rowprod)
                .ptr(lay.stats),
        )?;
    }
    // First sync: how many rows fall in each bin, the size of the global symbolic tables, and
    // the products (which decide the reuse path's buffers).
    let stats: [u64; STATS] = l.read_u64s(lay.stats, STATS)?.try_into().expect("STATS words");
    state.num_products = Some(stats[STAT_PRODUCTS] as i64);
    state.data = Some(Box::new(GpuProduct {
        buffer1: buffer as u64,
        cap_words,
        buffer2: 0,
        stats,
        nnz: 0,
        global: [0; 3],
        in_buffer: false,
        reuse: None,
    }));
    Ok(())
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
    check_limits(args)?;
    let m = args.a.rows;
    let n = args.b.cols;
    let ity = args.a.indices_type;
    let it = index_tag(ity);
    let tsize = args.compute.size();
    let prod = product(state)?;
    let cap_words = prod.cap_words;
    let l1 = layout1(&mut Carve::new(prod.buffer1 as *mut _), m as usize);
    let l2 = layout2(&mut Carve::new(buffer), m as usize, &prod.stats);
    prod.buffer2 = 0;
    prod.reuse = None;
    let stats = prod.stats;
    let offsets = bin_offsets(&stats);
    let rows_of = |b: usize| l2.bin_rows + 4 * offsets[b];
    // Spans are kept per position in the numeric big list (bins NUMERIC_BIG_FROM..=BIG).
    let span_of = |b: usize| l2.span + 8 * (offsets[b] - offsets[NUMERIC_BIG_FROM]);
    let numeric_big = offsets[BIG] + stats[BIG] - offsets[NUMERIC_BIG_FROM];
    let big = stats[BIG];
    let in_buffer = args.method == SpgemmMethod::BinnedHashInBuffer;
    let mut work = Workspace::new(dev, args, in_buffer, buffer as u64, &stats);
    let pool1 = work.take(symbolic_pool_bytes(&stats))?;
    l.memset_u32(l2.cursors, 0, 16)?;
    l.memset_u32(l2.c_ptr + 8 * (m as u64 + 1), 0, 6)?;
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
                .ptr(span_of(BIG))
                .ptr(l2.c_ptr),
            )?;
        }
        if stats[STAT_POOL] > 0 {
            l.launch(
                &format!("spblk_spgemm_symbolic_global_{it}"),
                l.grid(big, 1),
                BIG_THREADS,
                0,
                ab_args(
                    Args::new().ptr(rows_of(BIG)).u32(big as u32).ptr(l2.sym_off).ptr(l1.rowprod).i64(n).u64(cap_words),
                    args,
                    false,
                )
                .ptr(pool1)
                .ptr(span_of(BIG))
                .ptr(l2.c_ptr),
            )?;
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
                .u64(dense_max(tsize))
                .ptr(l2.num_off)
                .ptr(l2.sym_off)
                .ptr(l2.k2_row)
                .ptr(totals),
        )?;
    }
    let read = l.read_u64s(l2.c_ptr + 8 * m as u64, 4)?;
    let nnz = read[0];
    if ity == IndexType::I32 && nnz as i64 + args.c.base.offset() > i32::MAX as i64 {
        return Err(Error::not_supported(format!("SpGEMM: nnz(C) = {nnz} does not fit 32-bit indices")));
    }
    prod.buffer2 = buffer as u64;
    prod.in_buffer = in_buffer;
    prod.nnz = nnz;
    prod.global = [read[1], read[2], read[3]];
    Ok(nnz as i64)
}

/// The numeric phase, straight into C's arrays (set with `spblkCsrSetPointers`), in C's index
/// type, base and value type, with beta·C added when beta != 0; and C's offsets. Without
/// `values`, C's offsets and columns only (the reuse path's copy).
pub fn copy(l: &Launcher, dev: &Arc<Device>, args: &SpgemmArgs, state: &mut SpgemmState, values: bool) -> Result<()> {
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
    let [global_rows, global_slots, global_nnz] = prod.global;
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
    let t2 = global_nnz;
    let mut work = Workspace::new(dev, args, prod.in_buffer, prod.buffer2, &stats);
    let (pool_keys, pool_vals, scratch) = (
        work.take(global_slots as usize * 4)?,
        work.take(global_slots as usize * tsize)?,
        work.take(scratch_bytes(t2, tsize))?,
    );
    let mut c = Carve::new(scratch as *mut _);
    let space = SortSpace::carve(&mut c, t2);
    let (k2_col, k2_k, k2_val) = (c.take(t2 as usize * 4), c.take(t2 as usize * 4), c.take(t2 as usize * tsize));
    for (bin, &count) in stats.iter().enumerate().take(NUMERIC_BIG_FROM).skip(1) {
        if count == 0 {
            continue;
        }
        let (table, wpb) = (warp_table(bin), warps_per_block(warp_table(bin)));
        l.launch(
            &format!("spblk_spgemm_numeric_warp_{vt}_{it}"),
            l.grid(count, wpb as u64),
            32 * wpb,
            wpb * table * (4 + tsize as u32),
            out(ab_args(Args::new().ptr(rows_of(bin)).u32(count as u32).u32(table), args, true).ptr(l2.c_ptr))
                .scalar(alpha),
        )?;
    }
    if numeric_big > 0 {
        for &(kind, lo, hi) in &BIG_CLASSES {
            if kind == 2 && global_rows == 0 {
                continue;
            }
            let hi = if kind == 0 { hi.min(dense_max(tsize)) } else { hi };
            if lo >= hi {
                continue;
            }
            l.launch(
                &format!("spblk_spgemm_numeric_big_{vt}_{it}"),
                l.grid(numeric_big, 1),
                BIG_THREADS,
                big_shared_bytes(kind, hi, tsize),
                out(ab_args(
                    Args::new()
                        .ptr(rows_of(NUMERIC_BIG_FROM))
                        .u32(numeric_big as u32)
                        .i32(kind)
                        .u64(lo)
                        .u64(hi)
                        .u64(dense_max(tsize))
                        .ptr(l2.span)
                        .ptr(l2.sym_off)
                        .ptr(k2_k)
                        .ptr(l2.num_off)
                        .ptr(pool_keys)
                        .ptr(pool_vals),
                    args,
                    true,
                )
                .ptr(l2.c_ptr)
                .ptr(k2_col)
                .ptr(k2_val))
                .scalar(alpha),
            )?;
        }
    }
    if global_rows > 0 {
        // The global rows' entries, unsorted in the scratch: stable sort by column, then by the
        // row's rank, and place each row's run at its offset in C. Other rows are not touched.
        // SAFETY: both ranges are t2 u32 words of device memory owned here.
        check(
            unsafe { sys::cuMemcpyDtoDAsync_v2(space.keys[0], k2_col, t2 as usize * 4, l.stream) },
            "cuMemcpyDtoDAsync",
        )?;
        l.launch("spblk_iota_u32", l.grid(t2, BLOCK as u64), BLOCK, 0, Args::new().ptr(space.vals[0]).u64(t2))?;
        let cur = radix_sort(l, &space, t2, key_bits(n as u64), 0)?;
        l.launch(
            "spblk_spgemm_gather_keys",
            l.grid(t2, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(space.vals[cur]).u64(t2).ptr(k2_k).ptr(space.keys[cur]),
        )?;
        let cur = radix_sort(l, &space, t2, key_bits(global_rows), cur)?;
        // Each rank's start in sorted order: its row's nnz, scanned (num_off is free now).
        l.launch(
            "spblk_spgemm_k2_counts",
            l.grid(global_rows, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(l2.k2_row).u64(global_rows).ptr(l2.c_ptr).ptr(l2.num_off),
        )?;
        scan(l, l2.num_off, global_rows, Width::U64, l2.scan_tmp, l2.c_ptr + 8 * (m as u64 + 4))?;
        l.launch(
            &format!("spblk_spgemm_place_{vt}_{it}"),
            l.grid(t2, BLOCK as u64),
            BLOCK,
            0,
            out(Args::new()
                .ptr(space.vals[cur])
                .u64(t2)
                .ptr(k2_k)
                .ptr(k2_col)
                .ptr(k2_val)
                .ptr(l2.k2_row)
                .ptr(l2.num_off)
                .ptr(l2.c_ptr)),
        )?;
    }
    // The pool and the scratch are freed here, after the queued work that uses them
    // (cuMemFree waits for the device).
    drop(work);
    Ok(())
}
