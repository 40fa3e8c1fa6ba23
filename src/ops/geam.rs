//! `spblkXcsrgeam2Nnz` and `spblk{S,D}csrgeam2`: `C = alpha A + beta B` on CSR matrices with
//! 32-bit indices, the legacy API's matrix addition (hypre, PETSc and AMGX call it). Sizes are
//! `int`; every matrix is `SPBLK_MATRIX_TYPE_GENERAL`, as in cuSPARSE.

use std::ffi::c_void;

use crate::backend::{GeamArgs, GeamOperand, GeamValues, ScalarArg};
use crate::descr::MatDescr;
use crate::ensure;
use crate::error::Result;
use crate::types::{DataType, PointerMode};

use super::int_size as size;

/// The index base of a general matrix's descriptor.
fn general(d: &MatDescr, arg: &str) -> Result<i64> {
    super::general_base(d, arg, "the csrgeam2 calls")
}

/// An input matrix as the C arguments give it; `name` is its letter (A or B).
pub struct Input {
    pub descr: *const MatDescr,
    pub nnz: i32,
    pub offsets: *const i32,
    pub columns: *const i32,
    /// NULL for the count, which reads no values.
    pub values: *const c_void,
}

/// # Safety
/// `input.descr` points to a live descriptor (registry-checked by the caller).
unsafe fn operand(input: &Input, name: &str, m: i64, with_values: bool) -> Result<GeamOperand> {
    // SAFETY: the caller's guarantee.
    let base = general(unsafe { &*input.descr }, &format!("descr{name}"))?;
    let nnz = size(input.nnz, &format!("nnz{name}"))?;
    ensure!(!input.offsets.is_null() || m == 0, &format!("csrSortedRowPtr{name}"), "is NULL with m = {m}");
    ensure!(!input.columns.is_null() || nnz == 0, &format!("csrSortedColInd{name}"), "is NULL with nnz{name} = {nnz}");
    if with_values {
        ensure!(!input.values.is_null() || nnz == 0, &format!("csrSortedVal{name}"), "is NULL with nnz{name} = {nnz}");
    }
    Ok(GeamOperand { nnz, offsets: input.offsets, columns: input.columns, values: input.values, base })
}

/// C as the C arguments give it: its descriptor, offsets, columns and values.
pub struct Output {
    pub descr: *const MatDescr,
    pub offsets: *mut i32,
    pub columns: *mut i32,
    pub values: *mut c_void,
    /// The count's nnz(C) (NULL: not asked).
    pub total: *mut i32,
}

/// What a call does with C's arrays.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// `_bufferSizeExt`: C's arrays are not read (C is not allocated yet).
    Size,
    /// `Xcsrgeam2Nnz`: writes C's m + 1 offsets.
    Count,
    /// `csrgeam2`: reads C's offsets, writes its columns and values.
    Fill,
}

/// # Safety
/// The descriptors point to live descriptors (registry-checked by the caller).
pub unsafe fn geam_args(m: i32, n: i32, a: &Input, b: &Input, c: &Output, step: Step) -> Result<GeamArgs> {
    let (m, n) = (size(m, "m")?, size(n, "n")?);
    let with_values = step == Step::Fill;
    // SAFETY: forwarded.
    let (a, b) = unsafe { (operand(a, "A", m, with_values)?, operand(b, "B", m, with_values)?) };
    // SAFETY: forwarded.
    let c_base = general(unsafe { &*c.descr }, "descrC")?;
    match step {
        Step::Size => {}
        Step::Count => {
            ensure!(!c.offsets.is_null(), "csrSortedRowPtrC", "is NULL (it receives m + 1 = {} offsets)", m + 1)
        }
        Step::Fill => {
            ensure!(!c.offsets.is_null() || m == 0, "csrSortedRowPtrC", "is NULL with m = {m}");
            // C has no more entries than A and B together.
            let most = a.nnz + b.nnz;
            ensure!(!c.columns.is_null() || most == 0, "csrSortedColIndC", "is NULL with nnzA + nnzB = {most}");
            ensure!(!c.values.is_null() || most == 0, "csrSortedValC", "is NULL with nnzA + nnzB = {most}");
        }
    }
    crate::trace::sizes(format_args!("m={m} n={n} nnzA={} nnzB={}", a.nnz, b.nnz));
    let c_total = if step == Step::Count { c.total } else { std::ptr::null_mut() };
    Ok(GeamArgs { m, n, a, b, c_offsets: c.offsets, c_columns: c.columns, c_values: c.values, c_base, c_total })
}

/// The fill's scalars (of `value_type`, R_32F or R_64F), in host or backend memory as the
/// handle's pointer mode says.
pub fn geam_values(
    mode: PointerMode,
    alpha: *const c_void,
    beta: *const c_void,
    value_type: DataType,
) -> Result<GeamValues> {
    ensure!(!alpha.is_null(), "alpha", "is NULL");
    ensure!(!beta.is_null(), "beta", "is NULL");
    Ok(GeamValues { alpha: ScalarArg { ptr: alpha, mode }, beta: ScalarArg { ptr: beta, mode }, value_type })
}
