//! SpMM on CSR of op(A) (kernels/spmm/csr.cu); one column goes through SpMV's kernels.
//!
//! Rows longer than a threshold are split into chunks of `chunk` entries, each summed by
//! its own group into the workspace (one partial row of C per chunk), then reduced in chunk
//! order: no floating-point atomics, deterministic. The workspace for that is bounded by
//! nnz / chunk, and `chunk` grows with n so that it stays under `PARTIAL_BUDGET`.

use super::convert::{csr_of_op, Csr};
use super::dense;
use super::kernels::{index_tag, precision_tag, value_tag};
use super::launch::{pow2_clamp, Args, Carve, Launcher, Scalar, BLOCK};
use super::spmv::{self, Strided};
use crate::backend::SpmmArgs;
use crate::error::Result;
use crate::plan::OperandPlan;
use crate::trace;
use crate::types::{DataType, Operation, Order};

/// Chunks of a long row (entries): aim at `CHUNK_TARGET` chunks over all entries, between
/// `MIN_CHUNK` and `MAX_CHUNK` (then grown for the workspace budget). One group sums a chunk
/// in chunk / G dependent steps, so on a small matrix 256-entry chunks left a few dozen
/// groups running 60 µs each (rajat01, 43 K entries, N = 32: 11 blocks); from 2 M entries up
/// the chunk stays 256. Also the smallest long-row threshold. Sizes only: bufferSize and the
/// call agree.
const MIN_CHUNK: u64 = 32;
const MAX_CHUNK: u64 = 256;
const CHUNK_TARGET: u64 = 8192;
/// Rows longer than this many times the average row length (and than the chunk) are long.
const LONG_OVER_AVG: i64 = 8;
/// Bytes of partial sums the workspace may reserve before chunks grow.
const PARTIAL_BUDGET: u64 = 256 << 20;

/// Long-row bookkeeping of SpMM with n > 1 columns.
pub struct LongRows {
    pub(super) count: u64,
    pub(super) list: u64,
    prefix: u64,
    partial: u64,
    max_rows: u64,
    max_chunks: u64,
    pub(super) threshold: i64,
    chunk: i64,
}

/// Reserves the long-row space; `None` when no row can be long (from the sizes, or from the
/// longest row a plan measured).
pub(super) fn long_rows(
    c: &mut Carve,
    csr: &Csr,
    n: i64,
    compute: DataType,
    plan: Option<&OperandPlan>,
) -> Option<LongRows> {
    let nnz = csr.nnz.max(0) as u64;
    let rows = csr.rows.max(0) as u64;
    let csize = compute.size() as u64;
    let mut chunk = (nnz / CHUNK_TARGET).next_power_of_two().clamp(MIN_CHUNK, MAX_CHUNK);
    // Worst case: every entry in a long row, each row adding one partly filled chunk.
    while 2 * (nnz / chunk + 1) * n as u64 * csize > PARTIAL_BUDGET && chunk < (1 << 30) {
        chunk *= 2;
    }
    let avg = if rows > 0 { nnz.div_ceil(rows) } else { 0 };
    let threshold = chunk.max(avg * LONG_OVER_AVG as u64);
    let max_rows = rows.min(nnz / (threshold + 1));
    // With a plan whose longest row is at most MAX_CHUNK, the row kernel takes every row: the
    // long-row path's memset and three launches cost more than the tail of 57-256-entry rows
    // they remove (H100: pubmed, p2p-Gnutella31, citeseer and cora were 10-35 % slower with
    // them; docs/spmm.md).
    if max_rows == 0 || plan.is_some_and(|p| p.max_row_len <= threshold.max(MAX_CHUNK) as i64) {
        return None;
    }
    let max_chunks = nnz / chunk + max_rows;
    Some(LongRows {
        count: c.take(4),
        list: c.take(max_rows as usize * 8),
        prefix: c.take((max_rows as usize + 1) * 8),
        partial: c.take((max_chunks * n as u64 * csize) as usize),
        max_rows,
        max_chunks,
        threshold: threshold as i64,
        chunk: chunk as i64,
    })
}

/// The long-row space of either path: SpMV's for one column, SpMM's otherwise.
pub enum Long {
    Spmv(spmv::LongRows),
    Spmm(LongRows),
}

/// op(B) as the row kernels read it: the caller's array, or a row-major copy in the workspace.
pub(super) struct OpB {
    pub ptr: u64,
    pub ld: i64,
    /// op(B)(k, j) at ptr[k*ld + j] (else ptr[k + j*ld]).
    pub row: bool,
    /// Where the copy goes when op(B) is effectively column-major and n > 1: every lane of the
    /// row kernels would read it with stride ld (10-30x slower than row-major on the H100,
    /// docs/spmm.md), so one transpose (K x n elements read and written) comes first.
    pub copy: Option<u64>,
}

/// Where the row kernels and the long rows' finish write, with which scalars, through which
/// kernel flavour (`{input}_{output}`).
pub(super) struct Target {
    pub ptr: u64,
    pub ld: i64,
    pub row: bool,
    /// Bytes per element.
    pub esize: u64,
    pub tag: String,
    pub alpha: Scalar,
    pub beta: Scalar,
}

/// Rows of op(B) (= columns of op(A)).
fn op_b_rows(args: &SpmmArgs) -> i64 {
    if args.op_b == Operation::NonTranspose {
        args.b.rows
    } else {
        args.b.cols
    }
}

/// Row stride of the row-major copy of op(B): n rounded up to 4 elements, so that the
/// four-column loads stay aligned.
fn copy_ld(n: i64) -> i64 {
    (n + 3) / 4 * 4
}

pub(super) fn op_b(c: &mut Carve, args: &SpmmArgs) -> OpB {
    let row = (args.b.order == Order::Row) != (args.op_b == Operation::Transpose);
    let n = args.c.cols;
    if row || n <= 1 {
        return OpB { ptr: args.b.values as u64, ld: args.b.ld, row, copy: None };
    }
    let bytes = op_b_rows(args).max(0) as u64 * copy_ld(n) as u64 * args.precision.input.size() as u64;
    let at = c.take(bytes as usize);
    OpB { ptr: at, ld: copy_ld(n), row: true, copy: Some(at) }
}

/// From this many columns up, a column-major C is computed row-major into the workspace (in
/// the compute type) and written out by one transpose: with more than 64 columns a warp takes
/// one row and its stores go to as many different columns of C (H100, Poisson 3-D at N = 128:
/// 6.97 ms against 2.18 ms with C row-major; at N = 32, four rows per warp, both 0.60 ms).
const C_COPY_MIN_N: i64 = 65;

/// The workspace result for a column-major C (m x n, row-major, compute type), if used.
pub(super) fn c_copy(c: &mut Carve, args: &SpmmArgs) -> Option<u64> {
    let (m, n) = (args.c.rows, args.c.cols);
    if args.c.order == Order::Row || n < C_COPY_MIN_N || m <= 0 {
        return None;
    }
    Some(c.take(m as usize * n as usize * compute_of(args).size()))
}

/// The type the row kernels accumulate in (`ComputeOf<In>` in the kernels).
pub(super) fn compute_of(args: &SpmmArgs) -> DataType {
    if args.precision.input == DataType::F64 {
        DataType::F64
    } else {
        DataType::F32
    }
}

/// Workspace: CSR of op(A) if converted, the long-row space, the row-major copy of op(B) when
/// it is column-major, and the row-major result for a wide column-major C.
fn layout_all(
    l: Option<&Launcher>,
    c: &mut Carve,
    args: &SpmmArgs,
    plan: Option<&OperandPlan>,
) -> Result<(Csr, Option<Long>, OpB, Option<u64>)> {
    let csr = csr_of_op(l, c, args.a, args.op_a, spmv::in_bytes(&args.precision), plan)?;
    let compute = args.precision.compute;
    let long = if args.c.cols == 1 {
        spmv::long_rows(c, &csr, compute, plan).map(Long::Spmv)
    } else if args.c.cols > 1 {
        long_rows(c, &csr, args.c.cols, compute, plan).map(Long::Spmm)
    } else {
        None
    };
    let b = op_b(c, args);
    let w = c_copy(c, args);
    Ok((csr, long, b, w))
}

/// Workspace: CSR of op(A) if converted, the long-row space, the row-major copy of op(B) when
/// it is column-major, and the row-major result for a wide column-major C.
pub fn layout(
    l: Option<&Launcher>,
    c: &mut Carve,
    args: &SpmmArgs,
    plan: Option<&OperandPlan>,
) -> Result<(Csr, Option<Long>)> {
    layout_all(l, c, args, plan).map(|(csr, long, _, _)| (csr, long))
}

pub fn run(l: &Launcher, args: &SpmmArgs, plan: Option<&OperandPlan>, buffer: *mut std::ffi::c_void) -> Result<()> {
    let (m, n) = (args.c.rows, args.c.cols);
    let alpha = Scalar::new(&args.alpha, args.precision.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.precision.compute, "beta")?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    let mut carve = Carve::new(buffer);
    let (csr, long, b, w) = layout_all(Some(l), &mut carve, args, plan)?;
    if n == 1 {
        let x = Strided { ptr: b.ptr, inc: if b.row { b.ld } else { 1 } };
        let y = Strided { ptr: args.c.values as u64, inc: if args.c.order == Order::Row { args.c.ld } else { 1 } };
        let long = match &long {
            Some(Long::Spmv(lr)) => Some(lr),
            _ => None,
        };
        return spmv::run(l, &csr, long, x, y, &args.precision, alpha, beta);
    }
    let out = target(args, w, alpha, beta);
    stage_b(l, args, &b)?;
    let (v, g, tiles) = shape(args, &b);
    let it = index_tag(csr.ity);
    let name = format!("spblk_spmm_csr_v{v}_{}_{it}", out.tag);
    if trace::on() {
        let split = if long.is_some() { "long rows chunked" } else { "no long rows" };
        trace::note(format_args!("{g} lanes x {v} columns per row tile ({tiles} tiles); {split}{}", staging(&b, w)));
    }
    let long = match long {
        Some(Long::Spmm(lr)) => Some(lr),
        _ => None,
    };
    if let Some(lr) = &long {
        l.memset_u32(lr.count, 0, 1)?;
    }
    let (list, count, threshold) = match &long {
        Some(lr) => (lr.list, lr.count, lr.threshold),
        None => (0, 0, i64::MAX),
    };
    l.launch(
        &name,
        l.grid(m as u64 * tiles * g as u64, BLOCK as u64),
        BLOCK,
        0,
        c_args(a_b_args(Args::new().i64(m).i64(n), &csr, &b), &out, v)
            .i32(g as i32)
            .i64(threshold)
            .ptr(list)
            .ptr(count)
            .u32(l.wave_blocks(&name)?),
    )?;
    if let Some(lr) = long {
        run_long_rows(l, args, &csr, &lr, &b, &out, (v, g, tiles))?;
    }
    finish_c(l, args, w, alpha, beta)
}

/// Where the row kernels write: C with alpha and beta, or the workspace result W (row-major,
/// compute type: the kernels for (input, compute)) as alpha = 1, beta = 0, written to C by
/// `finish_c` with the caller's alpha and beta.
pub(super) fn target(args: &SpmmArgs, w: Option<u64>, alpha: Scalar, beta: Scalar) -> Target {
    match w {
        Some(at) => {
            let one = if compute_of(args) == DataType::F64 { 1f64.to_bits() } else { 1f32.to_bits() as u64 };
            Target {
                ptr: at,
                ld: args.c.cols,
                row: true,
                esize: compute_of(args).size() as u64,
                tag: format!("{}_{}", value_tag(args.precision.input), value_tag(compute_of(args))),
                alpha: Scalar { dev: 0, bits: one },
                beta: Scalar { dev: 0, bits: 0 },
            }
        }
        None => Target {
            ptr: args.c.values as u64,
            ld: args.c.ld,
            row: args.c.order == Order::Row,
            esize: args.precision.output.size() as u64,
            tag: precision_tag(&args.precision),
            alpha,
            beta,
        },
    }
}

impl Target {
    /// The kernels' `c_row`: 0 column-major, 1 row-major, `C_ROW_VEC4` row-major with every
    /// row 4-element aligned, so that lanes holding four columns (`vec` = 4) store them as one
    /// vector (kernels/common/vec.cuh).
    pub fn c_row(&self, vec: u64) -> i32 {
        const C_ROW_VEC4: i32 = 2;
        let aligned = self.ld % 4 == 0 && self.ptr % (4 * self.esize).min(16) == 0;
        match (self.row, vec == 4 && aligned) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) => C_ROW_VEC4,
        }
    }
}

/// The row-major copy of a column-major op(B), when `op_b` reserved one.
pub(super) fn stage_b(l: &Launcher, args: &SpmmArgs, b: &OpB) -> Result<()> {
    match b.copy {
        Some(dst) => {
            let esize = args.precision.input.size() as u64;
            dense::transpose(l, op_b_rows(args), args.c.cols, (args.b.values as u64, args.b.ld), (dst, b.ld), esize)
        }
        None => Ok(()),
    }
}

/// C = alpha W + beta C from the workspace result of a wide column-major C, if used.
pub(super) fn finish_c(l: &Launcher, args: &SpmmArgs, w: Option<u64>, alpha: Scalar, beta: Scalar) -> Result<()> {
    match w {
        Some(at) => {
            let (m, n) = (args.c.rows, args.c.cols);
            let c = (args.c.values as u64, args.c.ld);
            dense::axpby_transpose(l, m, n, (at, n), c, args.precision.output, (alpha, beta))
        }
        None => Ok(()),
    }
}

/// The row kernels' arguments for A (offsets, columns, values, base) and op(B) (pointer, ld,
/// row-major).
pub(super) fn a_b_args(a: Args, csr: &Csr, b: &OpB) -> Args {
    a.ptr(csr.ptr).ptr(csr.col).ptr(csr.val).i64(csr.base).ptr(b.ptr).i64(b.ld).i32(b.row as i32)
}

/// The row kernels' arguments for where they write: C or W, ld, `c_row`, alpha, beta.
pub(super) fn c_args(a: Args, out: &Target, vec: u64) -> Args {
    a.ptr(out.ptr).i64(out.ld).i32(out.c_row(vec)).scalar(out.alpha).scalar(out.beta)
}

/// (VEC, lanes per group, column tiles): four consecutive B elements per lane when they are
/// aligned for one vector load.
pub(super) fn shape(args: &SpmmArgs, b: &OpB) -> (u64, u32, u64) {
    let n = args.c.cols;
    let vec_align = (4 * args.precision.input.size() as u64).min(16);
    let vec4 = b.row && n >= 4 && b.ld % 4 == 0 && b.ptr % vec_align == 0;
    let v = if vec4 { 4 } else { 1 };
    let g = pow2_clamp((n as u64).div_ceil(v), 4, 32);
    (v, g, (n as u64).div_ceil(g as u64 * v))
}

/// The trace's note on the dense operands' copies.
pub(super) fn staging(b: &OpB, w: Option<u64>) -> &'static str {
    match (b.copy.is_some(), w.is_some()) {
        (false, false) => "",
        (true, false) => "; column-major op(B) copied row-major first",
        (false, true) => "; C computed row-major, then transposed out",
        (true, true) => "; column-major op(B) copied row-major first; C computed row-major, then transposed out",
    }
}

/// The long rows' chunks (partial sums in the workspace) and their fixed-order finish into C
/// (or the workspace result).
pub(super) fn run_long_rows(
    l: &Launcher,
    args: &SpmmArgs,
    csr: &Csr,
    lr: &LongRows,
    b: &OpB,
    out: &Target,
    (v, g, tiles): (u64, u32, u64),
) -> Result<()> {
    let n = args.c.cols;
    let it = index_tag(csr.ity);
    l.launch(
        &format!("spblk_spmv_csr_long_plan_{it}"),
        1,
        BLOCK,
        0,
        Args::new().ptr(lr.count).ptr(lr.list).ptr(csr.ptr).i64(csr.base).i64(lr.chunk).ptr(lr.prefix),
    )?;
    l.launch(
        &format!("spblk_spmm_csr_long_partial_v{v}_{}_{it}", value_tag(args.precision.input)),
        l.grid(lr.max_chunks * tiles * g as u64, BLOCK as u64),
        BLOCK,
        0,
        a_b_args(Args::new().i64(n).ptr(lr.count).ptr(lr.list).ptr(lr.prefix), csr, b)
            .i64(lr.chunk)
            .ptr(lr.partial)
            .i32(g as i32),
    )?;
    // One block of FINISH_WARPS (kernels/spmm/csr.cu) warps per (long row, 32 columns).
    const FINISH_THREADS: u32 = 32 * 8;
    l.launch(
        &format!("spblk_spmm_csr_long_finish_{}", out.tag),
        l.grid(lr.max_rows * (n as u64).div_ceil(32), 1),
        FINISH_THREADS,
        0,
        Args::new()
            .i64(n)
            .ptr(lr.count)
            .ptr(lr.list)
            .ptr(lr.prefix)
            .ptr(lr.partial)
            .ptr(out.ptr)
            .i64(out.ld)
            .i32(out.row as i32)
            .scalar(out.alpha)
            .scalar(out.beta),
    )
}
