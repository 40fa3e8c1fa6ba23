//! Legacy matrix descriptors (`spblkMatDescr_t`, cuSPARSE's `cusparseMatDescr_t`): the matrix
//! type, fill mode, diagonal type and index base that the legacy functions read. cuSOLVER and
//! the legacy calls of PETSc, hypre and AMGX create them through cuSPARSE.

use std::ffi::c_void;

use super::boundary::{self, entry, entry_value, out, write, Kind};
use super::types::*;
use crate::descr::MatDescr;
use crate::error::Result;
use crate::types::{DiagType, FillMode, IndexBase, MatrixType};

/// What the getters return for a NULL or dead descriptor: no value of any of their enums
/// (2^31 - 1, so that it fits the Fortran module's 32-bit integers).
pub const SPBLK_MAT_DESCR_INVALID: u32 = 2_147_483_647;

/// # Safety
/// Registry-checked; see `boundary::descr`.
pub(crate) unsafe fn mat_descr<'a>(p: spblkMatDescr_t) -> Result<&'a mut MatDescr> {
    // SAFETY: forwarded.
    unsafe { mat_descr_arg(p, "descrA") }
}

/// # Safety
/// As [`mat_descr`]; `arg` names the parameter in messages.
pub(crate) unsafe fn mat_descr_arg<'a>(p: spblkMatDescr_t, arg: &str) -> Result<&'a mut MatDescr> {
    // SAFETY: forwarded.
    unsafe { boundary::descr(p as *const c_void, Kind::MatDescr, arg) }
}

/// Creates a legacy matrix descriptor: general, zero-based, fill mode LOWER, diagonal NON_UNIT.
#[no_mangle]
pub extern "C" fn spblkCreateMatDescr(descrA: *mut spblkMatDescr_t) -> spblkStatus_t {
    entry("spblkCreateMatDescr", || {
        out(descrA, "descrA")?;
        let p = boundary::register(MatDescr::default(), Kind::MatDescr) as spblkMatDescr_t;
        // SAFETY: checked non-NULL.
        unsafe { write(descrA, p) };
        Ok(())
    })
}

/// Destroys a legacy matrix descriptor; NULL is a no-op.
#[no_mangle]
pub extern "C" fn spblkDestroyMatDescr(descrA: spblkMatDescr_t) -> spblkStatus_t {
    entry("spblkDestroyMatDescr", || {
        // SAFETY: registry-checked; C must not use it afterwards.
        unsafe { boundary::release::<MatDescr>(descrA as *const c_void, Kind::MatDescr, "descrA")? };
        Ok(())
    })
}

/// Sets the matrix type.
#[no_mangle]
pub extern "C" fn spblkSetMatType(descrA: spblkMatDescr_t, type_: spblkMatrixType_t) -> spblkStatus_t {
    entry("spblkSetMatType", || {
        // SAFETY: registry-checked.
        let d = unsafe { mat_descr(descrA)? };
        d.matrix_type = MatrixType::decode(type_, "type")?;
        Ok(())
    })
}

/// The matrix type, or `SPBLK_MAT_DESCR_INVALID` (with a message) for a NULL or dead descriptor.
#[no_mangle]
pub extern "C" fn spblkGetMatType(descrA: spblkMatDescr_t) -> spblkMatrixType_t {
    // SAFETY: registry-checked.
    entry_value("spblkGetMatType", SPBLK_MAT_DESCR_INVALID, || Ok(unsafe { mat_descr(descrA)? }.matrix_type.to_c()))
}

/// Sets the fill mode.
#[no_mangle]
pub extern "C" fn spblkSetMatFillMode(descrA: spblkMatDescr_t, fillMode: spblkFillMode_t) -> spblkStatus_t {
    entry("spblkSetMatFillMode", || {
        // SAFETY: registry-checked.
        let d = unsafe { mat_descr(descrA)? };
        d.fill_mode = FillMode::decode(fillMode, "fillMode")?;
        Ok(())
    })
}

/// The fill mode, or `SPBLK_MAT_DESCR_INVALID` (with a message) for a NULL or dead descriptor.
#[no_mangle]
pub extern "C" fn spblkGetMatFillMode(descrA: spblkMatDescr_t) -> spblkFillMode_t {
    // SAFETY: registry-checked.
    entry_value("spblkGetMatFillMode", SPBLK_MAT_DESCR_INVALID, || Ok(unsafe { mat_descr(descrA)? }.fill_mode.to_c()))
}

/// Sets the diagonal type.
#[no_mangle]
pub extern "C" fn spblkSetMatDiagType(descrA: spblkMatDescr_t, diagType: spblkDiagType_t) -> spblkStatus_t {
    entry("spblkSetMatDiagType", || {
        // SAFETY: registry-checked.
        let d = unsafe { mat_descr(descrA)? };
        d.diag_type = DiagType::decode(diagType, "diagType")?;
        Ok(())
    })
}

/// The diagonal type, or `SPBLK_MAT_DESCR_INVALID` (with a message) for a NULL or dead
/// descriptor.
#[no_mangle]
pub extern "C" fn spblkGetMatDiagType(descrA: spblkMatDescr_t) -> spblkDiagType_t {
    // SAFETY: registry-checked.
    entry_value("spblkGetMatDiagType", SPBLK_MAT_DESCR_INVALID, || Ok(unsafe { mat_descr(descrA)? }.diag_type.to_c()))
}

/// Sets the index base.
#[no_mangle]
pub extern "C" fn spblkSetMatIndexBase(descrA: spblkMatDescr_t, base: spblkIndexBase_t) -> spblkStatus_t {
    entry("spblkSetMatIndexBase", || {
        // SAFETY: registry-checked.
        let d = unsafe { mat_descr(descrA)? };
        d.base = IndexBase::decode(base, "base")?;
        Ok(())
    })
}

/// The index base, or `SPBLK_MAT_DESCR_INVALID` (with a message) for a NULL or dead descriptor.
#[no_mangle]
pub extern "C" fn spblkGetMatIndexBase(descrA: spblkMatDescr_t) -> spblkIndexBase_t {
    // SAFETY: registry-checked.
    entry_value("spblkGetMatIndexBase", SPBLK_MAT_DESCR_INVALID, || Ok(unsafe { mat_descr(descrA)? }.base.to_c()))
}
