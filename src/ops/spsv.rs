//! Triangular solves (`spblkSpSV_*`): the request checks, and the protocol's rules between
//! the analysis and the calls that use it.

use std::ffi::c_void;

use super::{operation, scalar, sparse_operand};
use crate::abi::*;
use crate::backend::{Backend, Exec, SpsvAnalysis, SpsvArgs, SpsvShape, SpsvState};
use crate::descr::{DnVec, SpMat};
use crate::ensure;
use crate::error::{Error, Result};
use crate::trace;
use crate::types::{DataType, DiagType, FillMode, Format, PointerMode, SpsvAlg, SpsvUpdate};

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
    let op_a = operation(op_a, "opA")?;
    let alpha = scalar(alpha, mode, "alpha")?;
    let compute = DataType::decode(compute, "computeType")?;
    let SpsvAlg::Default = SpsvAlg::decode(alg, "alg")?;
    sparse_operand(a, "matA", &[Format::Csr, Format::Coo])?;
    super::batch::single(a, "matA", "SpSV")?;
    ensure!(a.rows == a.cols, "matA", "is {}x{}; a triangular solve needs a square matrix", a.rows, a.cols);
    x.validate()?;
    y.validate()?;
    ensure!(x.size == a.rows, "vecX", "has size {} but matA has {} rows", x.size, a.rows);
    ensure!(y.size == a.rows, "vecY", "has size {} but matA has {} rows", y.size, a.rows);
    if !matches!(a.value_type, DataType::F32 | DataType::F64) {
        return Err(Error::not_supported(format!("SpSV with values {:?} (supported: R_32F and R_64F)", a.value_type)));
    }
    for (t, arg) in [(x.value_type, "vecX"), (y.value_type, "vecY"), (compute, "computeType")] {
        ensure!(t == a.value_type, arg, "has type {t:?} but matA has {:?} (they must match)", a.value_type);
    }
    let lower = (a.fill_mode == FillMode::Lower) != op_a.is_transposed();
    trace::sizes(format_args!(
        "A={:?} {}x{} nnz={} op={op_a:?} {:?} {:?} {:?}",
        a.format(),
        a.rows,
        a.cols,
        a.nnz,
        a.fill_mode,
        a.diag_type,
        a.value_type
    ));
    Ok(SpsvArgs { op_a, alpha, a, x, y, value_type: a.value_type, lower, unit: a.diag_type == DiagType::Unit })
}

/// `spblkSpSV_analysis`: replaces the descriptor's analysis only when the new one succeeds.
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
fn analysed(state: &mut SpsvState) -> Result<&mut (SpsvShape, Box<SpsvAnalysis>)> {
    state
        .analysis
        .as_mut()
        .ok_or_else(|| Error::invalid("spsvDescr", "has no analysis (call spblkSpSV_analysis first)"))
}

/// `spblkSpSV_solve`: the call must describe the matrix the analysis was made for.
pub fn solve(backend: &dyn Backend, exec: &Exec, args: &SpsvArgs, state: &mut SpsvState) -> Result<()> {
    let (shape, made) = analysed(state)?;
    let now = SpsvShape::of(args);
    if *shape != now {
        return Err(Error::invalid(
            "matA",
            format!("or opA differs from what spsvDescr was analysed for ({shape:?}; now {now:?})"),
        ));
    }
    backend.spsv_solve(exec, args, made.as_ref())
}

/// `spblkSpSV_updateMatrix`.
pub fn update(
    backend: &dyn Backend,
    exec: &Exec,
    state: &mut SpsvState,
    values: *const c_void,
    part: spblkSpSVUpdate_t,
) -> Result<()> {
    let part = SpsvUpdate::decode(part, "updatePart")?;
    let (shape, made) = analysed(state)?;
    let count = match part {
        SpsvUpdate::General => shape.nnz,
        SpsvUpdate::Diagonal => shape.rows,
    };
    ensure!(!values.is_null() || count == 0, "newValues", "is NULL but {count} values are needed");
    backend.spsv_update(exec, made.as_mut(), values, part)
}
