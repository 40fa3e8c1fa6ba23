//! Which method runs for each (operation, algorithm value): the one table of it.
//!
//! cuSPARSE's algorithm values name a format family and a contract (deterministic or not,
//! extra memory or not); spblk runs each with the method below, whose contract is at least as
//! strong (every spblk method is deterministic). A value whose method spblk lacks, or that
//! names another format than the matrix's, is `NOT_SUPPORTED` with a message; it never runs
//! something else. `*_ALG_DEFAULT` picks from the matrix's cheap statistics, deterministically,
//! and the choice and its reason go to the log (`SPBLK_LOG`).

use crate::backend::{SddmmMethod, SpgemmMethod, SpmmMethod, SpmvMethod};
use crate::descr::SpMat;
use crate::error::{Error, Result};
use crate::plan::{AsptPlan, AsptSpmmShape, RodePlan};
use crate::trace;
use crate::types::{DataType, Format, Operation, Precision, SddmmAlg, SpgemmAlg, SpmmAlg, SpmvAlg};

/// An algorithm of a format family must meet a matrix of that family.
fn family<A: std::fmt::Debug>(alg: A, a: &SpMat, formats: &[Format]) -> Result<()> {
    if formats.contains(&a.format()) {
        return Ok(());
    }
    Err(Error::not_supported(format!(
        "argument 'alg': {alg:?} is an algorithm for {formats:?} matrices but matA is {:?} \
         (use the format's algorithms or ALG_DEFAULT)",
        a.format()
    )))
}

const CSR_FAMILY: &[Format] = &[Format::Csr, Format::Csc];
const COO_FAMILY: &[Format] = &[Format::Coo];

/// Average entries per row of A as stored (the statistic the row methods size their groups by).
fn avg_row(a: &SpMat) -> f64 {
    if a.rows > 0 {
        a.nnz as f64 / a.rows as f64
    } else {
        0.0
    }
}

/// Rows at least this long on average go to the row method: one warp streams a whole row,
/// where the merge tiles (`MERGE_W` = 512 items) would cut every row into windows and add them
/// in a second kernel (H100, docs/spmv.md: block matrices of 655 and 984 entries per row 0.88
/// with rows, 0.72-0.83 with merge tiles; 110 and 131 per row: merge 0.88-1.03, rows 0.69-0.88).
const SPMV_ROWS_MIN_AVG: f64 = 256.0;
/// Below this many entries a call is latency-bound and the row method's chain of dependent
/// loads (offsets, entries, x) is the shortest (H100: the 31 real matrices, 4 K - 150 K
/// entries, geomean 0.85 with rows, 0.63 with merge tiles; 3.9 M entries and up, merge wins).
const SPMV_MERGE_MIN_NNZ: i64 = 1 << 19;
/// With a plan (its longest row known), skewed rows go to the merge tiles whatever the size:
/// a longest row of at least this many entries and this many times the average (H100, the 31
/// real matrices: every one with longest/average <= 5 ran faster with rows, 24 of the 28
/// cases with >= 20 and a longest row >= 128 faster with merge tiles, docs/spmv.md).
const SPMV_SKEW_MIN_LONGEST: i64 = 128;
const SPMV_SKEW_OVER_AVG: f64 = 16.0;

/// Whether `alg` leaves the method to spblk (the default and cuSPARSE's CSR/COO values). Its
/// workspace must then fit every method the choice can name (`SPMV_CHOICES`), since a
/// preprocess may change the choice after `bufferSize`.
pub fn spmv_chooses(alg: SpmvAlg) -> bool {
    matches!(alg, SpmvAlg::Default | SpmvAlg::CsrAlg1 | SpmvAlg::CsrAlg2 | SpmvAlg::CooAlg1 | SpmvAlg::CooAlg2)
}
pub const SPMV_CHOICES: [SpmvMethod; 2] = [SpmvMethod::CsrRows, SpmvMethod::CsrMerge];

/// `SPBLK_SPMV_ALG_DEFAULT` (and cuSPARSE's CSR/COO values), for op(A): with op(A)'s plan,
/// merge tiles for skewed rows; then, from the sizes, the row groups for long rows and small
/// matrices, merge tiles for the rest.
fn spmv_default(a: &SpMat, op: Operation, why: &str) -> SpmvMethod {
    let (rows, _) = if op.is_transposed() { (a.cols, a.rows) } else { (a.rows, a.cols) };
    let avg = if rows > 0 { a.nnz as f64 / rows as f64 } else { 0.0 };
    let longest = a.plans.lock().operand(op).map(|p| p.max_row_len);
    let skewed = longest.filter(|&l| l >= SPMV_SKEW_MIN_LONGEST && l as f64 >= SPMV_SKEW_OVER_AVG * avg);
    let (method, reason) = if avg >= SPMV_ROWS_MIN_AVG {
        (SpmvMethod::CsrRows, format!("average row {avg:.1} >= {SPMV_ROWS_MIN_AVG}: a warp per row"))
    } else if let Some(l) = skewed {
        (SpmvMethod::CsrMerge, format!("longest row {l} is {:.0}x the average {avg:.1}: merge tiles", l as f64 / avg))
    } else if a.nnz < SPMV_MERGE_MIN_NNZ {
        (SpmvMethod::CsrRows, format!("{} entries < {SPMV_MERGE_MIN_NNZ}: latency-bound, row groups", a.nnz))
    } else {
        (SpmvMethod::CsrMerge, format!("merge tiles balance any row lengths (average row {avg:.1})"))
    };
    trace::choice(format_args!("{method:?}"), format_args!("{why}: {reason}"));
    method
}

/// The method of a stored-as-is format (BSR, Blocked-ELL, Sliced-ELL), for an algorithm that
/// takes it (the default or the format's own); any other algorithm names another format.
fn blocked<A: std::fmt::Debug, M: std::fmt::Debug>(alg: A, a: &SpMat, takes: bool, method: M) -> Result<M> {
    let name = a.format().name();
    if !takes {
        return Err(Error::not_supported(format!(
            "argument 'alg': {alg:?} does not take {name} matrices (use the default or the {name} algorithm)"
        )));
    }
    trace::choice(format_args!("{method:?}"), format_args!("matA is {name} (asked for {alg:?}): read as stored"));
    Ok(method)
}

pub fn spmv(alg: SpmvAlg, a: &SpMat, op: Operation) -> Result<SpmvMethod> {
    match a.format() {
        Format::Bsr => return blocked(alg, a, matches!(alg, SpmvAlg::Default | SpmvAlg::BsrAlg1), SpmvMethod::Bsr),
        Format::SlicedEll => {
            return blocked(alg, a, matches!(alg, SpmvAlg::Default | SpmvAlg::SellAlg1), SpmvMethod::Sell)
        }
        _ => {}
    }
    let method = match alg {
        SpmvAlg::Default => return Ok(spmv_default(a, op, "default")),
        // ALG1 promises speed, ALG2 determinism: the default's choice gives both.
        SpmvAlg::CsrAlg1 | SpmvAlg::CsrAlg2 => {
            return family(alg, a, CSR_FAMILY).map(|_| spmv_default(a, op, &format!("asked for {alg:?}")))
        }
        SpmvAlg::CooAlg1 | SpmvAlg::CooAlg2 => {
            return family(alg, a, COO_FAMILY).map(|_| spmv_default(a, op, &format!("asked for {alg:?}")))
        }
        SpmvAlg::CsrMerge => family(alg, a, CSR_FAMILY).map(|_| SpmvMethod::CsrMerge),
        SpmvAlg::CsrScalar => family(alg, a, CSR_FAMILY).map(|_| SpmvMethod::CsrScalar),
        SpmvAlg::CsrVector => family(alg, a, CSR_FAMILY).map(|_| SpmvMethod::CsrVector),
        SpmvAlg::CsrRows => family(alg, a, CSR_FAMILY).map(|_| SpmvMethod::CsrRows),
        SpmvAlg::SellAlg1 => family(alg, a, &[Format::SlicedEll]).map(|_| SpmvMethod::Sell),
        SpmvAlg::BsrAlg1 => family(alg, a, &[Format::Bsr]).map(|_| SpmvMethod::Bsr),
    }?;
    trace::choice(format_args!("{method:?}"), format_args!("asked for {alg:?}"));
    Ok(method)
}

/// Multiply-adds per second of the CUDA kernels on an H100 (docs/vbr.md): the CSR row kernel
/// on block matrices at N = 128 .. 4096 (f16 and f32 alike), and the VBR kernel on 64-row
/// tiles at N = 128 (f16/bf16 tensor cores; f32 in three TF32 products: 2.6–3.1e13 measured
/// since the split without cvt.rna, kept below that like the others).
const CSR_FMA_PER_S: f64 = 1.3e12;
const VBR_HALF_FMA_PER_S: f64 = 7.0e13;
const VBR_F32_FMA_PER_S: f64 = 2.3e13;
/// VBR must be predicted this much faster before the default takes it: the model's error
/// stays inside the margin, so the default is never slower than CSR by more than a few %.
const VBR_MARGIN: f64 = 1.5;
/// No call is predicted below this: under ~15 µs a call's time is its fixed costs (launch,
/// pipeline fill), where neither method is reliably faster (measured: a 118 k-entry matrix
/// at N = 128 ran CSR in 19 µs and VBR in 22 µs while the rates predicted 12 µs and 10 µs).
/// Raising both predictions can only turn VBR choices into CSR ones.
const CALL_FLOOR_S: f64 = 15e-6;
/// No `parallel_tiles` row tiles (x 128 columns) are predicted below this: a thread block's
/// time has a floor of its own (the chain of loads that locates its blocks, the pipeline
/// fill, C's stores). Measured on an H200 on the n = 8192, θ = 0.01 grid rows (1.3 blocks per
/// tile): 19-22 µs per wave of thread blocks, a wave holding 3-4 tiles per SM (twice
/// `parallel_tiles`); without this term the default took VBR there and was 1.15-1.22x slower
/// than CSR (docs/vbr.md).
const VBR_TILES_FLOOR_S: f64 = 10e-6;

/// `SPBLK_SPMM_ALG_DEFAULT`: VBR when the matrix has a 1-SA plan on a backend with the
/// tensor-core kernel and the cost model predicts it faster than the row method, else rows.
fn spmm_default(a: &SpMat, op_a: Operation, n: i64) -> SpmmMethod {
    let plan = if op_a == Operation::NonTranspose { a.plans.lock().one_sa() } else { None };
    let Some(one_sa) = plan else {
        trace::choice(
            "CsrRows",
            format_args!("the row method serves every format (avg row {:.1}; no 1-SA plan of A itself)", avg_row(a)),
        );
        return SpmmMethod::CsrRows;
    };
    let Some(arrays) = &one_sa.arrays else {
        trace::choice("CsrRows", "the host computes VBR as a reference only (every stored zero multiplied)");
        return SpmmMethod::CsrRows;
    };
    let rate = match a.value_type {
        DataType::F16 | DataType::BF16 => VBR_HALF_FMA_PER_S,
        DataType::F32 => VBR_F32_FMA_PER_S,
        _ => {
            trace::choice("CsrRows", format_args!("no tensor-core VBR for {:?}", a.value_type));
            return SpmmMethod::CsrRows;
        }
    };
    let csr = (a.nnz as f64 * n as f64 / CSR_FMA_PER_S).max(CALL_FLOOR_S);
    // The kernel computes whole 128-column tiles, one thread block per (row tile, column
    // tile); with fewer blocks than the device runs at once, the rate drops in proportion.
    let col_tiles = (n.max(1) as f64 / 128.0).ceil();
    let waves = arrays.tile_count as f64 * col_tiles / arrays.parallel_tiles.max(1) as f64;
    let busy = waves.min(1.0);
    let vbr = (arrays.tile_work * col_tiles * 128.0 / (rate * busy.max(1e-9)))
        .max(waves.ceil() * VBR_TILES_FLOOR_S)
        .max(CALL_FLOOR_S);
    let s = one_sa.plan.vbr.stats();
    let why = format_args!(
        "predicted VBR {:.3} ms ({:.0}% of the GPU busy) vs CSR {:.3} ms (rho' {:.3}, dH' {:.1}, N {n}, {:?}; \
         VBR needs {VBR_MARGIN}x)",
        vbr * 1e3,
        busy * 100.0,
        csr * 1e3,
        s.in_block_density,
        s.avg_block_height,
        a.value_type
    );
    if vbr * VBR_MARGIN < csr {
        trace::choice("Vbr", why);
        SpmmMethod::Vbr
    } else {
        trace::choice("CsrRows", why);
        SpmmMethod::CsrRows
    }
}

/// From this many entries up, the default takes RoDe wherever the row method would need its
/// long-row path (a row over 8x the average and over `RODE_LONG_ROW`): on the H100 RoDe was
/// 1.08-1.26x the default on R-MAT and power-law at N = 32, equal at N = 128 (docs/rode.md).
const RODE_LARGE_NNZ: i64 = 1 << 20;
const RODE_LONG_ROW: i64 = 256;
/// Below `RODE_LARGE_NNZ` the call is bound by its longest chain of dependent loads, which
/// RoDe cuts: any row over `RODE_SMALL_LONG_ROW` entries makes RoDe the choice (measured
/// faster on the real matrices whose longest row is 169-1463 entries, slower on those of 78-99),
/// unless the longest row would be cut into more than `RODE_SMALL_MAX_SEGS` segments, which one
/// group adds one after another (arrow, one row of 46 500 entries: 0.91 -> 0.61x cuSPARSE).
const RODE_SMALL_LONG_ROW: i64 = 128;
const RODE_SMALL_MAX_SEGS: i64 = 64;

/// The default's cost model for RoDe (after a preprocess: the operand plan's longest row), from
/// the measured wins on the real matrices and the `--full` set (docs/rode.md): whether RoDe is
/// predicted faster than the row method, and why.
pub fn rode_predicted(a: &SpMat, op_a: Operation, n: i64, max_row_len: i64) -> (bool, String) {
    let rows = if op_a.is_transposed() { a.cols } else { a.rows };
    let avg = if rows > 0 { a.nnz as f64 / rows as f64 } else { 0.0 };
    if n < 2 {
        return (false, "one column goes through SpMV's kernels".into());
    }
    if a.nnz >= RODE_LARGE_NNZ {
        let skewed = max_row_len > RODE_LONG_ROW && max_row_len as f64 > 8.0 * avg;
        let why = format!("{} entries, longest row {max_row_len}, avg {avg:.1}", a.nnz);
        return (skewed, if skewed { format!("{why}: skewed rows") } else { format!("{why}: no long rows") });
    }
    let segs = RodePlan::segments_of(max_row_len, RodePlan::seg_for(a.nnz));
    let why = format!("{} entries, longest row {max_row_len} ({segs} segments)", a.nnz);
    (max_row_len > RODE_SMALL_LONG_ROW && segs <= RODE_SMALL_MAX_SEGS, why)
}

/// The default takes ASpT (after a plan was built: `spblkAnalyze(SPBLK_ANALYSIS_ASPT)` or a
/// preprocess with `SPBLK_SPMM_ALG_ASPT`) from `ASPT_MIN_N` columns and `ASPT_MIN_NNZ` entries
/// up when most entries read op(B) from shared memory and each staged row serves several:
/// measured on the H100 (docs/aspt-spmm.md) it beat the row method at N = 128 on the block
/// matrices whose staged rows serve 8.1-25.3 entries each (1.15-1.93x), lost at 3.2
/// (block-131072) and on every pattern without shared columns, and at N = 32 won only at 25.3.
const ASPT_MIN_N: i64 = 64;
const ASPT_MIN_NNZ: i64 = 1 << 20;
const ASPT_MIN_DENSE_SHARE: f64 = 0.8;
const ASPT_MIN_REUSE: f64 = 6.0;

/// The default's cost model for ASpT, from an ASpT SpMM plan's counts or the preprocess's
/// estimate of them: whether it is predicted faster than the row method, and why.
pub fn aspt_predicted(a: &SpMat, shape: &AsptSpmmShape, n: i64) -> (bool, String) {
    let why = format!(
        "N {n}, {} entries, {:.0}% in dense columns, {:.1} entries per staged row",
        a.nnz,
        100.0 * shape.dense_share(),
        shape.reuse()
    );
    let wins = aspt_candidate(a, Operation::NonTranspose, n)
        && shape.dense_share() >= ASPT_MIN_DENSE_SHARE
        && shape.reuse() >= ASPT_MIN_REUSE;
    (wins, why)
}

/// The default takes the column sweep (`SPBLK_SPMM_ALG_CSR_SWEEP`, after its preprocess built
/// the plan) where the row kernel reads op(B) from DRAM entry by entry: op(B) at least
/// `SWEEP_MIN_B_BYTES` (several times the 50 MB L2 of an H100), rows long enough that a band of
/// rows uses most of op(B) in every slab (`SWEEP_MIN_AVG` entries on average) and even (the
/// longest at most `SWEEP_MAX_SKEW` times the average: one long row would hold its band's launch
/// open), and whole 128-column tiles. Measured on the H100 with f32 only (docs/spmm.md: uniform
/// rows of 128 entries over 1 M columns, N = 128, 1.6-1.8x the row kernel; 32 entries: equal,
/// since a band's 17 K rows then touch only a third of op(B) per slab).
const SWEEP_MIN_N: i64 = 128;
const SWEEP_MIN_B_BYTES: f64 = 256.0 * (1u64 << 20) as f64;
const SWEEP_MIN_AVG: f64 = 64.0;
const SWEEP_MAX_SKEW: f64 = 4.0;

/// The default's cost model for the column sweep, from op(A)'s longest row (an operand plan's):
/// whether it is predicted faster than the row method, and why.
pub fn sweep_predicted(a: &SpMat, op_a: Operation, n: i64, max_row_len: i64) -> (bool, String) {
    let (rows, k) = if op_a.is_transposed() { (a.cols, a.rows) } else { (a.rows, a.cols) };
    let avg = if rows > 0 { a.nnz as f64 / rows as f64 } else { 0.0 };
    let b_bytes = k as f64 * n as f64 * a.value_type.size() as f64;
    let why = format!(
        "N {n}, op(B) {:.0} MB, rows of {avg:.1} entries on average, longest {max_row_len}",
        b_bytes / (1u64 << 20) as f64
    );
    let wins = a.value_type == DataType::F32
        && n >= SWEEP_MIN_N
        && b_bytes >= SWEEP_MIN_B_BYTES
        && avg >= SWEEP_MIN_AVG
        && max_row_len as f64 <= SWEEP_MAX_SKEW * avg;
    (wins, why)
}

/// Whether the default's preprocess should estimate an ASpT plan at all: CSR, opA = N, and the
/// size from which the model can take it.
pub fn aspt_candidate(a: &SpMat, op_a: Operation, n: i64) -> bool {
    a.format() == Format::Csr && op_a == Operation::NonTranspose && n >= ASPT_MIN_N && a.nnz >= ASPT_MIN_NNZ
}

pub fn spmm(alg: SpmmAlg, a: &SpMat, op_a: Operation, n: i64) -> Result<SpmmMethod> {
    match a.format() {
        Format::Bsr => return blocked(alg, a, matches!(alg, SpmmAlg::Default | SpmmAlg::BsrAlg1), SpmmMethod::Bsr),
        Format::BlockedEll => {
            let takes = matches!(alg, SpmmAlg::Default | SpmmAlg::BlockedEllAlg1);
            return blocked(alg, a, takes, SpmmMethod::BlockedEll);
        }
        _ => {}
    }
    let method = match alg {
        SpmmAlg::Default => return Ok(spmm_default(a, op_a, n)),
        SpmmAlg::CsrAlg1 | SpmmAlg::CsrAlg2 | SpmmAlg::CsrAlg3 => {
            family(alg, a, CSR_FAMILY).map(|_| SpmmMethod::CsrRows)
        }
        SpmmAlg::CooAlg1 | SpmmAlg::CooAlg2 | SpmmAlg::CooAlg3 | SpmmAlg::CooAlg4 => {
            family(alg, a, COO_FAMILY).map(|_| SpmmMethod::CsrRows)
        }
        SpmmAlg::BsrAlg1 => family(alg, a, &[Format::Bsr]).map(|_| SpmmMethod::Bsr),
        SpmmAlg::BlockedEllAlg1 => family(alg, a, &[Format::BlockedEll]).map(|_| SpmmMethod::BlockedEll),
        // Any format: CSC, COO and transposed operands are converted once by the preprocess
        // that builds the plan; the product checks the plan is there.
        SpmmAlg::Rode => Ok(SpmmMethod::Rode),
        SpmmAlg::CsrSweep => Ok(SpmmMethod::CsrSweep),
        SpmmAlg::Aspt => {
            if a.format() != Format::Csr || op_a.is_transposed() {
                return Err(Error::not_supported(format!(
                    "SPBLK_SPMM_ALG_ASPT tiles CSR with opA = NON_TRANSPOSE (matA is {:?}, opA {op_a:?})",
                    a.format()
                )));
            }
            Ok(SpmmMethod::Aspt)
        }
        SpmmAlg::Vbr | SpmmAlg::VbrTf32 => {
            if a.plans.lock().one_sa().is_none() {
                return Err(Error::invalid(
                    "alg",
                    format!(
                        "is {alg:?} but matA has no 1-SA analysis (call spblkAnalyze with SPBLK_ANALYSIS_1SA first)"
                    ),
                ));
            }
            Ok(if alg == SpmmAlg::Vbr { SpmmMethod::Vbr } else { SpmmMethod::VbrTf32 })
        }
    }?;
    trace::choice(format_args!("{method:?}"), format_args!("asked for {alg:?}"));
    Ok(method)
}

/// The default runs ASpT's tensor-core tiles (`SPBLK_SDDMM_ALG_ASPT` in f32 over a plan whose rows
/// are sorted) where a panel's column holds `SDDMM_TILES_MIN_REUSE` entries or more on average:
/// measured on the H200 (docs/sddmm.md, session 35) 1.4-3.3x faster than streaming on scrambled
/// block matrices with 7.9-25 entries per panel column, slower at 2.3-3.2 (there a tile's
/// products serve too few entries). From `SDDMM_TILES_MIN_NNZ` entries: a panel per block, so
/// smaller matrices leave SMs idle, and the plan costs several calls.
const SDDMM_TILES_MIN_REUSE: f64 = 6.0;
const SDDMM_TILES_MIN_NNZ: i64 = 1 << 20;

/// Whether the default's preprocess should estimate ASpT's plan for the tiles at all.
pub fn sddmm_tiles_candidate(c: &SpMat, precision: Precision, k: i64) -> bool {
    AsptPlan::tiles(precision, true)
        && c.format() == Format::Csr
        && c.nnz >= SDDMM_TILES_MIN_NNZ
        && k <= AsptPlan::max_k(precision.compute)
}

/// The default's cost model for ASpT's tiles, from a plan's counts or an estimate of them
/// (`entries` in `runs` distinct (panel, column) pairs): whether they are predicted faster than
/// streaming, and why.
pub fn sddmm_tiles_predicted(c: &SpMat, precision: Precision, k: i64, entries: u64, runs: u64) -> (bool, String) {
    let reuse = entries as f64 / runs.max(1) as f64;
    let why = format!("{reuse:.1} entries per panel column, k {k}, {} entries", c.nnz);
    (sddmm_tiles_candidate(c, precision, k) && reuse >= SDDMM_TILES_MIN_REUSE, why)
}

/// The method of an SDDMM algorithm: the default streams, unless C has an ASpT plan (its
/// preprocess builds one where predicted) on which the tiles are predicted faster.
pub fn sddmm(alg: SddmmAlg, c: &SpMat, precision: Precision, k: i64) -> SddmmMethod {
    match alg {
        SddmmAlg::Default => {
            let plan = c.plans.lock().aspt();
            if let Some(plan) = plan.filter(|p| p.sorted) {
                let (wins, why) = sddmm_tiles_predicted(c, precision, k, plan.nnz as u64, plan.runs);
                if wins {
                    trace::choice("Aspt", format_args!("ASpT's tiles: {why}"));
                    return SddmmMethod::Aspt;
                }
            }
            trace::choice("CsrEntries", "the default streams (no ASpT plan on which the tiles pay: docs/sddmm.md)");
            SddmmMethod::CsrEntries
        }
        SddmmAlg::Aspt => {
            trace::choice("Aspt", "asked for Aspt");
            SddmmMethod::Aspt
        }
    }
}

pub fn spgemm(alg: SpgemmAlg) -> Result<SpgemmMethod> {
    match alg {
        SpgemmAlg::Default | SpgemmAlg::Alg1 | SpgemmAlg::CsrDeterministic | SpgemmAlg::CsrNondeterministic => {
            trace::choice("BinnedHash", format_args!("asked for {alg:?}; deterministic"));
            Ok(SpgemmMethod::BinnedHash)
        }
        SpgemmAlg::Alg2 => {
            trace::choice("BinnedHashInBuffer", "asked for Alg2: every byte in buffer 2, sized by estimateMemory");
            Ok(SpgemmMethod::BinnedHashInBuffer)
        }
        SpgemmAlg::Alg3 => {
            trace::choice("BinnedHashInChunks", "asked for Alg3: buffer 2 in passes of chunk_fraction");
            Ok(SpgemmMethod::BinnedHashInChunks)
        }
        SpgemmAlg::Esc => {
            trace::choice("Esc", "asked for ALG_ESC: expansion, sort and compression in buffer 2");
            Ok(SpgemmMethod::Esc)
        }
    }
}
