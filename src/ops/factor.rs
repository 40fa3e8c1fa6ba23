//! Incomplete factorizations (`spblk{S,D}csric02*`, `spblk{S,D}csrilu02*`): the request
//! checks and the protocol between the info object's analysis and the calls that use it.

use std::ffi::c_void;

use crate::abi::*;
use crate::backend::{Backend, Boost, Exec, FactorArgs, FactorKind, FactorShape, FactorState};
use crate::descr::MatDescr;
use crate::ensure;
use crate::error::{Error, Result};
use crate::trace;
use crate::types::{DataType, MatrixType, PointerMode, SolvePolicy};

/// The caller's matrix: `m` rows, `nnz` entries, CSR with `int` indices from descrA's base.
pub struct Csr {
    pub m: i32,
    pub nnz: i32,
    pub values: *mut c_void,
    pub offsets: *const i32,
    pub columns: *const i32,
}

/// Checks a call's matrix (the legacy API's names in the messages).
pub fn factor_args(kind: FactorKind, descr: &MatDescr, a: &Csr, value_type: DataType) -> Result<FactorArgs> {
    ensure!(a.m >= 0, "m", "must be >= 0 (got {})", a.m);
    ensure!(a.nnz >= 0, "nnz", "must be >= 0 (got {})", a.nnz);
    if descr.matrix_type != MatrixType::General {
        return Err(Error::not_supported(format!(
            "argument 'descrA' has matrix type {:?}; an incomplete factorization takes GENERAL (the lower \
             triangle is what IC0 reads)",
            descr.matrix_type
        )));
    }
    ensure!(!a.offsets.is_null() || a.m == 0, "csrSortedRowPtrA", "is NULL for {} rows", a.m);
    ensure!(!a.columns.is_null() || a.nnz == 0, "csrSortedColIndA", "is NULL with nnz = {}", a.nnz);
    ensure!(!a.values.is_null() || a.nnz == 0, "csrSortedValA", "is NULL with nnz = {}", a.nnz);
    trace::sizes(format_args!("{kind:?} m={} nnz={} {value_type:?} base {:?}", a.m, a.nnz, descr.base));
    Ok(FactorArgs {
        kind,
        n: a.m as i64,
        nnz: a.nnz as i64,
        offsets: a.offsets,
        columns: a.columns,
        values: a.values,
        value_type,
        base: descr.base.offset(),
    })
}

/// `_bufferSize`: the bytes the analysis keeps in the caller's buffer, as an `int`.
pub fn buffer_size(backend: &dyn Backend, args: &FactorArgs) -> Result<i32> {
    let bytes = backend.factor_buffer_size(args)?;
    i32::try_from(bytes).map_err(|_| {
        Error::not_supported(format!("the factorization needs {bytes} bytes of buffer, more than an int holds"))
    })
}

fn policy(p: spblkSolvePolicy_t) -> Result<()> {
    // Both policies give the same factor: spblk's rows wait for the rows they need, with or
    // without level information.
    SolvePolicy::decode(p, "policy").map(|_| ())
}

/// `_analysis`: replaces the info object's analysis only when the new one succeeds (a later
/// factorization or zeroPivot then refers to it).
pub fn analysis(
    backend: &dyn Backend,
    exec: &Exec,
    args: &FactorArgs,
    state: &mut FactorState,
    p: spblkSolvePolicy_t,
    buffer: *mut c_void,
) -> Result<()> {
    policy(p)?;
    super::require_buffer(backend.factor_buffer_size(args)?, buffer, "pBuffer")?;
    let made = backend.factor_analysis(exec, args, buffer)?;
    state.analysis = Some((FactorShape::of(args), made));
    Ok(())
}

/// The factorization, in place on the caller's values, with the analysis made for this matrix.
pub fn factor(
    backend: &dyn Backend,
    exec: &Exec,
    args: &FactorArgs,
    state: &mut FactorState,
    p: spblkSolvePolicy_t,
) -> Result<()> {
    policy(p)?;
    let boost = state.boost;
    let (shape, made) = analysed(state)?;
    let now = FactorShape::of(args);
    if *shape != now {
        return Err(Error::invalid("info", format!("was analysed for another matrix ({shape:?}; now {now:?})")));
    }
    backend.factor(exec, args, made.as_mut(), boost)
}

fn analysed(state: &mut FactorState) -> Result<&mut (FactorShape, Box<crate::backend::FactorAnalysis>)> {
    let name = match state.kind {
        FactorKind::Ic0 => "spblk{S,D}csric02_analysis",
        FactorKind::Ilu0 => "spblk{S,D}csrilu02_analysis",
    };
    state.analysis.as_mut().ok_or_else(|| Error::invalid("info", format!("has no analysis (call {name} first)")))
}

/// `spblkXcsr{ic,ilu}02_zeroPivot`: blocks until the last analysis or factorization is done,
/// then writes the first row (plus the base) whose pivot is missing or zero, or -1, to
/// `position` (host or device memory per the pointer mode). A pivot found is reported as
/// `SPBLK_STATUS_ZERO_PIVOT` (position written all the same, as cuSPARSE does).
// `position` is memory the caller vouches for (host memory in pointer mode host), as every
// pointer of the C API.
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn zero_pivot(
    backend: &dyn Backend,
    exec: &Exec,
    mode: PointerMode,
    state: &mut FactorState,
    position: *mut i32,
) -> Result<()> {
    ensure!(!position.is_null(), "position", "is NULL");
    let (shape, made) = analysed(state)?;
    let base = shape.base;
    let row = backend.factor_zero_pivot(exec, made.as_ref())?;
    let value = row.map_or(-1, |r| (r + base) as i32);
    match mode {
        // SAFETY: checked non-NULL; the caller's host int in pointer mode host.
        PointerMode::Host => unsafe { *position = value },
        PointerMode::Device => backend.write_i32(exec, position, value)?,
    }
    match row {
        Some(r) => {
            Err(Error::new(SPBLK_STATUS_ZERO_PIVOT, format!("row {r} (position {value}) has a missing or zero pivot")))
        }
        None => Ok(()),
    }
}

/// `spblk{S,D}csrilu02_numericBoost`: with `enable` non-zero, later factorizations replace a
/// pivot of magnitude at most `*tol` by `*boost` (both read now, from host or device memory
/// per the pointer mode); with zero, they do not.
#[allow(clippy::too_many_arguments)]
pub fn numeric_boost(
    backend: &dyn Backend,
    exec: &Exec,
    mode: PointerMode,
    state: &mut FactorState,
    enable: i32,
    tol: *const f64,
    boost: *const c_void,
    value_type: DataType,
) -> Result<()> {
    if enable == 0 {
        state.boost = None;
        return Ok(());
    }
    ensure!(!tol.is_null(), "tol", "is NULL with enable_boost set");
    ensure!(!boost.is_null(), "boost_val", "is NULL with enable_boost set");
    let read = |p: *const c_void, len: usize| -> Result<Vec<u8>> {
        let mut bytes = vec![0u8; len];
        match mode {
            // SAFETY: checked non-NULL; the caller's host value in pointer mode host.
            PointerMode::Host => unsafe { std::ptr::copy_nonoverlapping(p as *const u8, bytes.as_mut_ptr(), len) },
            PointerMode::Device => backend.read_bytes(exec, p, &mut bytes)?,
        }
        Ok(bytes)
    };
    let tolerance = f64::from_le_bytes(read(tol.cast(), 8)?.try_into().expect("8 bytes"));
    let value = match value_type {
        DataType::F32 => f32::from_le_bytes(read(boost, 4)?.try_into().expect("4 bytes")) as f64,
        _ => f64::from_le_bytes(read(boost, 8)?.try_into().expect("8 bytes")),
    };
    state.boost = Some(Boost { tolerance, value });
    Ok(())
}
