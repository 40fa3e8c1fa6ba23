//! Sparse-vector requests (`spblkAxpby`, `spblkGather`, `spblkScatter`, `spblkRot`,
//! `spblkSpVV`): X sparse and Y dense of the same size.

use std::ffi::c_void;

use super::scalar;
use crate::abi::*;
use crate::backend::{SpvecArgs, SpvecUpdate, SpvvArgs};
use crate::descr::{DnVec, SpVec};
use crate::ensure;
use crate::error::{Error, Result};
use crate::trace;
use crate::types::{DataType, Operation, PointerMode, Precision};

/// Sizes and value types of X and Y agree.
fn same_shape(x: &SpVec, y: &DnVec) -> Result<()> {
    y.validate()?;
    ensure!(y.size == x.size, "vecY", "has size {} but vecX has size {}", y.size, x.size);
    ensure!(
        y.value_type == x.value_type,
        "vecY",
        "has value type {:?} but vecX has {:?} (they must match)",
        y.value_type,
        x.value_type
    );
    Ok(())
}

/// The arithmetic of Axpby and Rot: X's type in and out, scalars in f64 for f64 and in f32
/// otherwise (cuSPARSE's tables for these functions, real types).
fn arithmetic(t: DataType) -> Result<Precision> {
    let compute = if t == DataType::F64 { DataType::F64 } else { DataType::F32 };
    Precision::check(t, t, compute).map_err(|_| {
        Error::not_supported(format!("value type {t:?} is not supported here (supported: R_32F, R_64F, R_16F, R_16BF)"))
    })
}

/// `spblkAxpby`: `Y = alpha X + beta Y`.
pub fn axpby_args<'a>(
    mode: PointerMode,
    alpha: *const c_void,
    x: &'a SpVec,
    beta: *const c_void,
    y: &'a DnVec,
) -> Result<SpvecArgs<'a>> {
    let update = SpvecUpdate::Axpby { alpha: scalar(alpha, mode, "alpha")?, beta: scalar(beta, mode, "beta")? };
    update_args(update, x, y)
}

/// `spblkRot`: the Givens rotation of X and Y by `c` and `s`.
pub fn rot_args<'a>(
    mode: PointerMode,
    c: *const c_void,
    s: *const c_void,
    x: &'a SpVec,
    y: &'a DnVec,
) -> Result<SpvecArgs<'a>> {
    let update = SpvecUpdate::Rot { c: scalar(c, mode, "c_coeff")?, s: scalar(s, mode, "s_coeff")? };
    update_args(update, x, y)
}

/// Gather, Scatter, and the checks of every update.
pub fn update_args<'a>(update: SpvecUpdate, x: &'a SpVec, y: &'a DnVec) -> Result<SpvecArgs<'a>> {
    same_shape(x, y)?;
    let precision = match update {
        SpvecUpdate::Axpby { .. } | SpvecUpdate::Rot { .. } => arithmetic(x.value_type)?,
        // Copies: any value type.
        SpvecUpdate::Gather | SpvecUpdate::Scatter => {
            Precision { input: x.value_type, output: x.value_type, compute: x.value_type }
        }
    };
    trace::sizes(format_args!("size={} nnz={} {:?} {:?}", x.size, x.nnz, x.value_type, x.index_type));
    Ok(SpvecArgs { update, x, y, precision })
}

/// `spblkSpVV`: `result = op(X) · Y`.
pub fn spvv_args<'a>(
    mode: PointerMode,
    op_x: spblkOperation_t,
    x: &'a SpVec,
    y: &'a DnVec,
    result: *mut c_void,
    compute: spblkDataType_t,
) -> Result<SpvvArgs<'a>> {
    // For real types the conjugate is the vector itself; a transposed vector is not a case of
    // a dot product, and cuSPARSE accepts only these two.
    match Operation::decode(op_x, "opX")? {
        Operation::NonTranspose | Operation::ConjugateTranspose => {}
        Operation::Transpose => {
            return Err(Error::not_supported(
                "argument 'opX': SpVV takes SPBLK_OPERATION_NON_TRANSPOSE or SPBLK_OPERATION_CONJUGATE_TRANSPOSE",
            ))
        }
    }
    let compute = DataType::decode(compute, "computeType")?;
    same_shape(x, y)?;
    ensure!(!result.is_null(), "result", "is NULL");
    let precision = Precision::check(x.value_type, compute, compute)?;
    trace::sizes(format_args!("size={} nnz={} {precision}", x.size, x.nnz));
    Ok(SpvvArgs { x, y, result, result_mode: mode, precision })
}
