//! `SPBLK_SPGEMM_ALG_ESC`: the seed's binned ESC method (kernels/spgemm/esc.cu, docs/spgemm.md).
//!
//! * `workEstimation` (buffer 1): products per row (the hash method's kernel) and the ESC
//!   bins' statistics, read back (first sync).
//! * `compute` (buffer 2): bins the rows; every row's entries are computed, values included,
//!   into its P slots of C-hat (P = its products, the upper bound of its entries); the counts
//!   are scanned into C's offsets and nnz(C) is read back (second sync).
//! * `copy` (asynchronous): compacts C-hat into C's arrays, times alpha, plus beta·C.
//!
//! Memory: buffer 2 holds C-hat, 4 + sizeof(compute type) bytes per product, plus 16 bytes
//! per product of the long rows (their sort keys, twice) and per-row arrays. Nothing is
//! allocated inside the calls. Both buffers must stay alive until `copy` has run.

use super::super::kernels::{index_tag, value_tag};
use super::super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::super::prims::{scan, scan_tmp_bytes, Width};
use super::{ab_args, check_limits, count_products, csr_arrays, STATS, STAT_PRODUCTS};
use crate::backend::{SpgemmArgs, SpgemmState};
use crate::error::{Error, Result};
use crate::types::{DataType, IndexType};

/// Bins (esc.cu): 0 no products, 1..=4 a warp or a block per row, 5 long rows.
const BINS: usize = 6;
const LONG_BIN: usize = 5;
/// The row kernels of bins 1..=4: (bin, kernel, slots, threads). A warp per row sorting in
/// registers (up to 32 products) and in 256 slots of shared memory; a block per row.
const ROW_KERNELS: [(usize, &str, u32, u32); 4] =
    [(1, "warp", 32, 256), (2, "warp", 256, 256), (3, "block", 1024, 256), (4, "block", 4096, 512)];
/// Products per chunk of a long row (ESC_CHUNK), and the chunk kernel's threads.
pub(super) const CHUNK: u64 = 4096;
const CHUNK_THREADS: u32 = 512;
/// Warps per block of the warp bins (ESC_WARPS).
const WARPS: u32 = 8;
const STAT_LONG_PRODUCTS: usize = 6;
const STAT_LONG_CHUNKS: usize = 7;
const STAT_LONG_MAX: usize = 8;
const ESC_STATS: usize = 9;

/// What the descriptor keeps between the protocol's calls.
struct EscProduct {
    buffer1: u64,
    /// The bins' row counts and the long rows' totals (esc.cu's statistics).
    stats: [u64; ESC_STATS],
    products: u64,
    /// Buffer 2 (0 until `compute` has run).
    buffer2: u64,
    /// Which of the two key arrays holds the long rows' merged keys.
    keys_at: usize,
}

struct Layout1 {
    rowprod: u64,
    /// The hash method's statistics (its kernel writes them), then ESC's: one read.
    stats: u64,
}

fn layout1(c: &mut Carve, m: usize) -> Layout1 {
    Layout1 { rowprod: c.take(8 * (m + 1)), stats: c.take(8 * (STATS + ESC_STATS)) }
}

struct Layout2 {
    /// C-hat's row offsets: m + 1 (the products' exclusive scan).
    prod_off: u64,
    /// Entries per row, scanned into C's offsets: m + 1.
    c_ptr: u64,
    scan_tmp: u64,
    cursors: u64,
    bin_rows: u64,
    /// Per long row (list order): key offsets and chunk offsets (rows + 1 each).
    long_off: u64,
    chunk_off: u64,
    /// Per chunk: its first A entry and the offset in that entry's B row (once sorted, the
    /// first holds the runs each chunk starts, for the copy).
    chunk_k: u64,
    chunk_q: u64,
    keys: [u64; 2],
    chat_col: u64,
    chat_val: u64,
}

fn layout2(c: &mut Carve, m: usize, stats: &[u64; ESC_STATS], products: u64, tsize: usize) -> Layout2 {
    let long = stats[LONG_BIN] as usize;
    let (long_products, chunks) = (stats[STAT_LONG_PRODUCTS] as usize, stats[STAT_LONG_CHUNKS] as usize);
    let scanned = (m as u64).max(long as u64);
    Layout2 {
        prod_off: c.take(8 * (m + 1)),
        c_ptr: c.take(8 * (m + 1)),
        scan_tmp: c.take(scan_tmp_bytes(scanned, Width::U64)),
        cursors: c.take(4 * BINS),
        bin_rows: c.take(4 * m.max(1)),
        long_off: c.take(8 * (long + 1)),
        chunk_off: c.take(8 * (long + 1)),
        chunk_k: c.take(8 * chunks),
        chunk_q: c.take(4 * chunks),
        keys: [c.take(8 * long_products), c.take(8 * long_products)],
        chat_col: c.take(4 * products as usize),
        chat_val: c.take(tsize * products as usize),
    }
}

/// The ESC method's long rows (`list`: their place in the bin list), in buffer 2.
fn long_rows(l2: &Layout2, stats: &[u64; ESC_STATS], list: u64) -> LongRows {
    LongRows {
        list,
        count: stats[LONG_BIN],
        products: stats[STAT_LONG_PRODUCTS],
        chunks: stats[STAT_LONG_CHUNKS],
        most: stats[STAT_LONG_MAX],
        long_off: l2.long_off,
        chunk_off: l2.chunk_off,
        chunk_k: l2.chunk_k,
        chunk_q: l2.chunk_q,
        keys: l2.keys,
        scan_tmp: l2.scan_tmp,
    }
}

/// Where each bin's rows start in the bin list.
fn bin_starts(stats: &[u64; ESC_STATS]) -> [u64; BINS] {
    let mut at = [0u64; BINS];
    for b in 2..BINS {
        at[b] = at[b - 1] + stats[b - 1];
    }
    at
}

const NO_ESTIMATION: &str =
    "holds no ESC work estimation (call spblkSpGEMM_workEstimation with SPBLK_SPGEMM_ALG_ESC on this handle first)";

fn held(state: &mut SpgemmState) -> Result<&mut EscProduct> {
    state
        .data
        .as_mut()
        .and_then(|d| d.downcast_mut::<EscProduct>())
        .ok_or_else(|| Error::invalid("spgemmDescr", NO_ESTIMATION))
}

fn held_ref(state: &SpgemmState) -> Result<&EscProduct> {
    state
        .data
        .as_ref()
        .and_then(|d| d.downcast_ref::<EscProduct>())
        .ok_or_else(|| Error::invalid("spgemmDescr", NO_ESTIMATION))
}

pub fn work_estimation_size(args: &SpgemmArgs) -> usize {
    let mut c = Carve::measure();
    layout1(&mut c, args.a.rows as usize);
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
    let esc_stats = lay.stats + 8 * STATS as u64;
    count_products(l, args, lay.rowprod, lay.stats)?;
    l.memset_u32(esc_stats, 0, 2 * ESC_STATS)?;
    if m > 0 {
        l.launch(
            "spblk_spgemm_esc_stats",
            l.grid(m as u64, BLOCK as u64),
            BLOCK,
            0,
            Args::new().i64(m).ptr(lay.rowprod).ptr(esc_stats),
        )?;
    }
    let read = l.read_u64s(lay.stats, STATS + ESC_STATS)?;
    let stats: [u64; ESC_STATS] = read[STATS..].try_into().expect("ESC_STATS words");
    if stats[STAT_LONG_MAX] > u32::MAX as u64 {
        return Err(Error::not_supported(format!(
            "SPBLK_SPGEMM_ALG_ESC: a row of C has {} products; the method handles up to 2^32 - 1 a row",
            stats[STAT_LONG_MAX]
        )));
    }
    state.num_products = Some(read[STAT_PRODUCTS] as i64);
    state.data = Some(Box::new(EscProduct {
        buffer1: buffer as u64,
        stats,
        products: read[STAT_PRODUCTS],
        buffer2: 0,
        keys_at: 0,
    }));
    Ok(())
}

pub fn compute_size(args: &SpgemmArgs, state: &SpgemmState) -> Result<usize> {
    let p = held_ref(state)?;
    let mut c = Carve::measure();
    layout2(&mut c, args.a.rows as usize, &p.stats, p.products, args.compute.size());
    Ok(c.size().max(1))
}

pub fn compute(l: &Launcher, args: &SpgemmArgs, state: &mut SpgemmState, buffer: *mut std::ffi::c_void) -> Result<i64> {
    check_limits(args)?;
    let m = args.a.rows as u64;
    let (it, vt) = (index_tag(args.a.indices_type), value_tag(args.a.value_type));
    let tsize = args.compute.size();
    let p = held(state)?;
    p.buffer2 = 0;
    let stats = p.stats;
    let l1 = layout1(&mut Carve::new(p.buffer1 as *mut _), m as usize);
    let l2 = layout2(&mut Carve::new(buffer), m as usize, &stats, p.products, tsize);
    let starts = bin_starts(&stats);
    let rows_of = |b: usize| l2.bin_rows + 4 * starts[b];
    let long = stats[LONG_BIN];
    l.memset_u32(l2.cursors, 0, BINS)?;
    l.memset_u32(l2.c_ptr, 0, 2 * (m as usize + 1))?;
    if m > 0 {
        l.launch(
            "spblk_spgemm_esc_bin_rows",
            l.grid(m, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .i64(m as i64)
                .ptr(l1.rowprod)
                .u64(starts[1])
                .u64(starts[2])
                .u64(starts[3])
                .u64(starts[4])
                .u64(starts[5])
                .ptr(l2.cursors)
                .ptr(l2.bin_rows)
                .ptr(l2.prod_off)
                .ptr(l2.long_off)
                .ptr(l2.chunk_off),
        )?;
    }
    scan(l, l2.prod_off, m, Width::U64, l2.scan_tmp, l2.prod_off + 8 * m)?;
    let out = |a: Args| a.ptr(l2.prod_off).ptr(l2.c_ptr).ptr(l2.chat_col).ptr(l2.chat_val);
    for (bin, kernel, slots, threads) in ROW_KERNELS {
        let count = stats[bin];
        if count == 0 {
            continue;
        }
        // Warp kernels: ESC_WARPS rows a block, `slots` each.
        let (grid, rows) = if kernel == "block" { (l.grid(count, 1), 1) } else { (l.grid(count, WARPS as u64), WARPS) };
        let shared = rows * slots * (8 + tsize as u32);
        l.launch(
            &format!("spblk_spgemm_esc_{kernel}_{vt}_{it}"),
            grid,
            threads,
            shared,
            out(ab_args(Args::new().ptr(rows_of(bin)).u32(count as u32).u32(slots), args, true)),
        )?;
    }
    p.keys_at = 0;
    if long > 0 {
        let rows = long_rows(&l2, &stats, rows_of(LONG_BIN));
        p.keys_at = sort_long_rows(l, args, &rows, l2.prod_off, l2.chat_val)?;
        l.launch(
            "spblk_spgemm_esc_long_counts",
            l.grid(long, 1),
            BLOCK,
            0,
            Args::new().ptr(rows.list).u32(long as u32).ptr(l2.long_off).ptr(l2.keys[p.keys_at]).ptr(l2.c_ptr),
        )?;
    }
    // Entries per row -> C's offsets; second sync: nnz(C).
    scan(l, l2.c_ptr, m, Width::U64, l2.scan_tmp, l2.c_ptr + 8 * m)?;
    let nnz = l.read_u64s(l2.c_ptr + 8 * m, 1)?[0];
    if args.a.indices_type == IndexType::I32 && nnz as i64 + args.c.base.offset() > i32::MAX as i64 {
        return Err(Error::not_supported(format!("SpGEMM: nnz(C) = {nnz} does not fit 32-bit indices")));
    }
    p.buffer2 = buffer as u64;
    Ok(nnz as i64)
}

/// C-hat into C's arrays (set with `spblkCsrSetPointers`), in C's index type, base and value
/// type, times alpha, with beta·C added when beta != 0.
pub fn copy(l: &Launcher, args: &SpgemmArgs, state: &mut SpgemmState) -> Result<()> {
    let p = held(state)?;
    if p.buffer2 == 0 {
        return Err(Error::invalid("spgemmDescr", "holds no computed product (call spblkSpGEMM_compute first)"));
    }
    if !matches!(args.c.value_type, DataType::F32 | DataType::F64 | DataType::F16 | DataType::BF16) {
        return Err(Error::not_supported(format!("SpGEMM output type {:?}", args.c.value_type)));
    }
    let m = args.a.rows as u64;
    let (it, vt) = (index_tag(args.a.indices_type), value_tag(args.a.value_type));
    let alpha = Scalar::new(&args.alpha, args.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.compute, "beta")?;
    let l2 = layout2(&mut Carve::new(p.buffer2 as *mut _), m as usize, &p.stats, p.products, args.compute.size());
    let (c_ptr, c_col) = csr_arrays(args.c);
    let base = args.c.base.offset();
    let out = |a: Args| a.ptr(c_col).ptr(args.c.values as u64).i64(base).scalar(beta).scalar(alpha);
    l.launch(
        &format!("spblk_spgemm_offsets_{it}"),
        l.grid(m + 1, BLOCK as u64),
        BLOCK,
        0,
        Args::new().i64(m as i64).ptr(l2.c_ptr).i64(base).ptr(c_ptr),
    )?;
    if m > 0 {
        l.launch(
            &format!("spblk_spgemm_esc_copy_short_{vt}_{it}"),
            l.grid(32 * m, BLOCK as u64),
            BLOCK,
            0,
            out(Args::new().i64(m as i64).ptr(l2.prod_off).ptr(l2.c_ptr).ptr(l2.chat_col).ptr(l2.chat_val)),
        )?;
    }
    let long = p.stats[LONG_BIN];
    if long > 0 {
        let rows = long_rows(&l2, &p.stats, l2.bin_rows + 4 * bin_starts(&p.stats)[LONG_BIN]);
        write_long_rows(l, args, &rows, rows.keys[p.keys_at], l2.prod_off, l2.chat_val, l2.c_ptr, true)?;
    }
    Ok(())
}

/// Long rows on ESC's long-row path (their arrays in device memory): the list of rows, their
/// products' and chunks' offsets (per list position, scanned by `sort_long_rows`), each
/// chunk's start, the keys twice (merge levels go back and forth) and the scan's space.
pub(super) struct LongRows {
    pub(super) list: u64,
    pub(super) count: u64,
    pub(super) products: u64,
    pub(super) chunks: u64,
    /// The most products of a row.
    pub(super) most: u64,
    pub(super) long_off: u64,
    pub(super) chunk_off: u64,
    pub(super) chunk_k: u64,
    pub(super) chunk_q: u64,
    pub(super) keys: [u64; 2],
    pub(super) scan_tmp: u64,
}

/// Expands every long row's products, their values into `vals` (at `prod_off[row]`, or with
/// `prod_off` = 0 beside their keys) and their keys sorted per chunk, then merges the chunks
/// level by level. `long_off` and `chunk_off` hold each row's products and chunks, scanned
/// here. Returns which of `keys` holds the sorted keys.
pub(super) fn sort_long_rows(
    l: &Launcher,
    args: &SpgemmArgs,
    rows: &LongRows,
    prod_off: u64,
    vals: u64,
) -> Result<usize> {
    let (it, vt) = (index_tag(args.a.indices_type), value_tag(args.a.value_type));
    let long = rows.count;
    scan(l, rows.long_off, long, Width::U64, rows.scan_tmp, rows.long_off + 8 * long)?;
    scan(l, rows.chunk_off, long, Width::U64, rows.scan_tmp, rows.chunk_off + 8 * long)?;
    let (a_ptr, a_col) = csr_arrays(args.a);
    let (b_ptr, _) = csr_arrays(args.b);
    l.launch(
        &format!("spblk_spgemm_esc_chunk_starts_{it}"),
        l.grid(long, 1),
        CHUNK_THREADS,
        0,
        Args::new()
            .ptr(rows.list)
            .u32(long as u32)
            .ptr(a_ptr)
            .ptr(a_col)
            .i64(args.a.base.offset())
            .ptr(b_ptr)
            .ptr(rows.chunk_off)
            .ptr(rows.chunk_k)
            .ptr(rows.chunk_q),
    )?;
    let a = Args::new()
        .ptr(rows.list)
        .u32(long as u32)
        .u64(rows.chunks)
        .ptr(rows.chunk_off)
        .ptr(rows.chunk_k)
        .ptr(rows.chunk_q)
        .ptr(rows.long_off);
    l.launch(
        &format!("spblk_spgemm_esc_chunks_{vt}_{it}"),
        l.grid(rows.chunks, 1),
        CHUNK_THREADS,
        0,
        ab_args(a, args, true).ptr(prod_off).ptr(vals).ptr(rows.keys[0]),
    )?;
    // Merge levels: runs of CHUNK keys, then 2 CHUNK, ... up to the longest row.
    let mut at = 0;
    let mut w = CHUNK;
    while w < rows.most {
        l.launch(
            "spblk_spgemm_esc_merge",
            l.grid(rows.products, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .ptr(rows.keys[at])
                .ptr(rows.keys[1 - at])
                .u64(rows.products)
                .ptr(rows.long_off)
                .u32(long as u32)
                .u64(w),
        )?;
        at = 1 - at;
        w *= 2;
    }
    Ok(at)
}

/// Sums each column's run of the sorted long rows (`keys`, as `sort_long_rows` left them, with
/// the values where it put them) into C at `c_ptr[row]`, times alpha, plus beta·C; C's columns
/// only without `values`. A block per chunk of sorted keys: first the runs each chunk starts
/// (into `chunk_k`, free once sorted), then the sums.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_long_rows(
    l: &Launcher,
    args: &SpgemmArgs,
    rows: &LongRows,
    keys: u64,
    prod_off: u64,
    vals: u64,
    c_ptr: u64,
    values: bool,
) -> Result<()> {
    let (it, vt) = (index_tag(args.a.indices_type), value_tag(args.a.value_type));
    let alpha = Scalar::new(&args.alpha, args.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.compute, "beta")?;
    let (_, c_col) = csr_arrays(args.c);
    let c_val = if values { args.c.values as u64 } else { 0 };
    let chunks = |a: Args| a.u32(rows.count as u32).u64(rows.chunks).ptr(rows.chunk_off);
    l.launch(
        "spblk_spgemm_esc_chunk_heads",
        l.grid(rows.chunks, 1),
        BLOCK,
        0,
        chunks(Args::new()).ptr(rows.long_off).ptr(keys).ptr(rows.chunk_k),
    )?;
    l.launch(
        &format!("spblk_spgemm_esc_copy_long_{vt}_{it}"),
        l.grid(rows.chunks, 1),
        BLOCK,
        0,
        chunks(Args::new().ptr(rows.list))
            .ptr(rows.chunk_k)
            .ptr(rows.long_off)
            .ptr(keys)
            .ptr(prod_off)
            .ptr(c_ptr)
            .ptr(vals)
            .ptr(c_col)
            .ptr(c_val)
            .i64(args.c.base.offset())
            .scalar(beta)
            .scalar(alpha),
    )
}
