//! Triangular solves (`spblkSpSV_*`, `spblkSpSM_*`): the request checks, and the protocol's
//! rules between the analysis and the calls that use it.

use std::ffi::c_void;

use super::{operation, scalar, sparse_operand};
use crate::abi::*;
use crate::backend::{Backend, Columns, Exec, SpsvAnalysis, SpsvArgs, SpsvShape, SpsvState};
use crate::descr::{DnMat, DnVec, SpMat};
use crate::ensure;
use crate::error::{Error, Result};
use crate::trace;
use crate::types::{DataType, DiagType, FillMode, Format, Order, PointerMode, SpsmAlg, SpsvAlg, SpsvUpdate};

#[allow(clippy::too_many_arguments)]
pub fn spsv_args<'a>(
    mode: PointerMode,
    op_a: spblkOperation_t,
    alpha: *const c_void,
    a: &'a SpMat,
    x: &'a DnVec,
    y: &'a DnVec,
    compute: spblkDataType_t,
    alg: spblkSpSVAlg_t,
) -> Result<SpsvArgs<'a>> {
    let SpsvAlg::Default = SpsvAlg::decode(alg, "alg")?;
    x.validate()?;
    y.validate()?;
    ensure!(x.size == a.rows, "vecX", "has size {} but matA has {} rows", x.size, a.rows);
    ensure!(y.size == a.rows, "vecY", "has size {} but matA has {} rows", y.size, a.rows);
    let column = |v: &DnVec| Columns { values: v.values, row_step: 1, col_step: 0 };
    let (xs, ys) = ((column(x), x.value_type, "vecX"), (column(y), y.value_type, "vecY"));
    solve_args(mode, op_a, alpha, a, xs, ys, 1, compute)
}

/// `spblkSpSM_*`: `op(A) C = alpha op(B)`, B and C dense in either order.
#[allow(clippy::too_many_arguments)]
pub fn spsm_args<'a>(
    mode: PointerMode,
    op_a: spblkOperation_t,
    op_b: spblkOperation_t,
    alpha: *const c_void,
    a: &'a SpMat,
    b: &'a DnMat,
    c: &'a DnMat,
    compute: spblkDataType_t,
    alg: spblkSpSMAlg_t,
) -> Result<SpsvArgs<'a>> {
    let SpsmAlg::Default = SpsmAlg::decode(alg, "alg")?;
    let op_b = operation(op_b, "opB")?;
    for (m, arg) in [(b, "matB"), (c, "matC")] {
        m.validate()?;
        if m.batch.count > 1 {
            return Err(Error::not_supported(format!(
                "argument '{arg}' is a batch of {} matrices; SpSM takes one",
                m.batch.count
            )));
        }
    }
    let (b_rows, b_cols) = if op_b.is_transposed() { (b.cols, b.rows) } else { (b.rows, b.cols) };
    ensure!(b_rows == a.rows, "matB", "gives op(B) {b_rows} rows but matA has {} (opB {op_b:?})", a.rows);
    ensure!(c.rows == a.rows, "matC", "has {} rows but matA has {}", c.rows, a.rows);
    ensure!(c.cols == b_cols, "matC", "has {} columns but op(B) has {b_cols}", c.cols);
    // Element (i, j) of a stored matrix is at i * ld + j (row-major) or i + j * ld; op(B)'s
    // (i, j) is B's (j, i) when transposed.
    let steps = |m: &DnMat, transposed: bool| {
        let (row, col) = if m.order == Order::Row { (m.ld, 1) } else { (1, m.ld) };
        if transposed {
            (col, row)
        } else {
            (row, col)
        }
    };
    let columns = |m: &DnMat, transposed: bool| {
        let (row_step, col_step) = steps(m, transposed);
        Columns { values: m.values, row_step, col_step }
    };
    let bs = (columns(b, op_b.is_transposed()), b.value_type, "matB");
    let cs = (columns(c, false), c.value_type, "matC");
    solve_args(mode, op_a, alpha, a, bs, cs, c.cols, compute)
}

/// The checks SpSV and SpSM share: A square, CSR or COO, f32 or f64 like the dense operands.
#[allow(clippy::too_many_arguments)]
fn solve_args<'a>(
    mode: PointerMode,
    op_a: spblkOperation_t,
    alpha: *const c_void,
    a: &'a SpMat,
    (x, x_type, x_arg): (Columns, DataType, &str),
    (y, y_type, y_arg): (Columns, DataType, &str),
    cols: i64,
    compute: spblkDataType_t,
) -> Result<SpsvArgs<'a>> {
    let op_a = operation(op_a, "opA")?;
    let alpha = scalar(alpha, mode, "alpha")?;
    let compute = DataType::decode(compute, "computeType")?;
    sparse_operand(a, "matA", &[Format::Csr, Format::Coo])?;
    super::batch::single(a, "matA", "a triangular solve")?;
    ensure!(a.rows == a.cols, "matA", "is {}x{}; a triangular solve needs a square matrix", a.rows, a.cols);
    if !matches!(a.value_type, DataType::F32 | DataType::F64) {
        return Err(Error::not_supported(format!(
            "a triangular solve with values {:?} (supported: R_32F and R_64F)",
            a.value_type
        )));
    }
    for (t, arg) in [(x_type, x_arg), (y_type, y_arg), (compute, "computeType")] {
        ensure!(t == a.value_type, arg, "has type {t:?} but matA has {:?} (they must match)", a.value_type);
    }
    let lower = (a.fill_mode == FillMode::Lower) != op_a.is_transposed();
    trace::sizes(format_args!(
        "A={:?} {}x{} nnz={} op={op_a:?} {:?} {:?} {:?} columns={cols}",
        a.format(),
        a.rows,
        a.cols,
        a.nnz,
        a.fill_mode,
        a.diag_type,
        a.value_type
    ));
    Ok(SpsvArgs { op_a, alpha, a, x, y, cols, value_type: a.value_type, lower, unit: a.diag_type == DiagType::Unit })
}

/// Which protocol a call belongs to: the names its errors use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// `spblkSpSV_*`: one right-hand side.
    Sv,
    /// `spblkSpSM_*`: several.
    Sm,
}

impl Solver {
    fn descr(self) -> &'static str {
        match self {
            Solver::Sv => "spsvDescr",
            Solver::Sm => "spsmDescr",
        }
    }

    fn prefix(self) -> &'static str {
        match self {
            Solver::Sv => "spblkSpSV",
            Solver::Sm => "spblkSpSM",
        }
    }
}

/// `spblkSpSV_analysis`, `spblkSpSM_analysis`: replaces the descriptor's analysis only when the
/// new one succeeds.
pub fn analysis(
    backend: &dyn Backend,
    exec: &Exec,
    args: &SpsvArgs,
    state: &mut SpsvState,
    buffer: *mut c_void,
) -> Result<()> {
    super::require_buffer(backend.spsv_buffer_size(args)?, buffer, "externalBuffer")?;
    let made = backend.spsv_analysis(exec, args, buffer)?;
    state.analysis = Some((SpsvShape::of(args), made));
    Ok(())
}

/// The analysis of a descriptor, which must exist.
fn analysed(state: &mut SpsvState, which: Solver) -> Result<&mut (SpsvShape, Box<SpsvAnalysis>)> {
    state.analysis.as_mut().ok_or_else(|| {
        Error::invalid(which.descr(), format!("has no analysis (call {}_analysis first)", which.prefix()))
    })
}

/// `spblkSpSV_solve`, `spblkSpSM_solve`: the call must describe the matrix (and the number of
/// right-hand sides) the analysis was made for.
pub fn solve(backend: &dyn Backend, exec: &Exec, args: &SpsvArgs, state: &mut SpsvState, which: Solver) -> Result<()> {
    let (shape, made) = analysed(state, which)?;
    let now = SpsvShape::of(args);
    if *shape != now {
        return Err(Error::invalid(
            "matA",
            format!(
                "or opA (or the number of right-hand sides) differs from what {} was analysed for ({shape:?}; now {now:?})",
                which.descr()
            ),
        ));
    }
    backend.spsv_solve(exec, args, made.as_ref())
}

/// `spblkSpSV_updateMatrix`, `spblkSpSM_updateMatrix` (both updates have the same values).
pub fn update(
    backend: &dyn Backend,
    exec: &Exec,
    state: &mut SpsvState,
    values: *const c_void,
    part: spblkSpSVUpdate_t,
    which: Solver,
) -> Result<()> {
    let part = SpsvUpdate::decode(part, "updatePart")?;
    let (shape, made) = analysed(state, which)?;
    let count = match part {
        SpsvUpdate::General => shape.nnz,
        SpsvUpdate::Diagonal => shape.rows,
    };
    ensure!(!values.is_null() || count == 0, "newValues", "is NULL but {count} values are needed");
    backend.spsv_update(exec, made.as_mut(), values, part)
}
