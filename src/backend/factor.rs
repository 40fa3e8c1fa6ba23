//! Incomplete factorizations without fill (IC0: `spblk{S,D}csric02*`, ILU0:
//! `spblk{S,D}csrilu02*`): the request `ops` hands a backend, and what an info object keeps
//! between the protocol's calls.

use std::any::Any;
use std::ffi::c_void;

use crate::types::DataType;

/// Which factorization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactorKind {
    /// A = L Lᵀ on A's lower triangle (entries above the diagonal are left alone).
    Ic0,
    /// A = L U, L unit lower (its ones not stored), U upper, in A's pattern.
    Ilu0,
}

/// An n x n CSR matrix with 32-bit indices (the legacy API's `int`), columns ascending within
/// rows, factored in place on `values`.
#[derive(Debug, Clone, Copy)]
pub struct FactorArgs {
    pub kind: FactorKind,
    pub n: i64,
    pub nnz: i64,
    pub offsets: *const i32,
    pub columns: *const i32,
    pub values: *mut c_void,
    /// R_32F or R_64F.
    pub value_type: DataType,
    /// Subtracted from offsets and columns.
    pub base: i64,
}

/// What an analysis was made for; the factorization must match it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FactorShape {
    pub kind: FactorKind,
    pub n: i64,
    pub nnz: i64,
    pub value_type: DataType,
    pub base: i64,
}

impl FactorShape {
    pub fn of(args: &FactorArgs) -> Self {
        FactorShape { kind: args.kind, n: args.n, nnz: args.nnz, value_type: args.value_type, base: args.base }
    }
}

/// ILU0's numeric boost (`spblk{S,D}csrilu02_numericBoost`): a pivot of magnitude at most
/// `tolerance` is replaced by `value` (and not reported as zero).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Boost {
    pub tolerance: f64,
    pub value: f64,
}

/// The analysis a backend made (on CUDA it lives in the caller's buffer). It knows the first
/// row without a diagonal entry, and after a factorization the first zero pivot.
pub type FactorAnalysis = dyn Any + Send;

/// An info object's state (`spblkCsric02Info_t`, `spblkCsrilu02Info_t`).
pub struct FactorState {
    pub kind: FactorKind,
    pub analysis: Option<(FactorShape, Box<FactorAnalysis>)>,
    pub boost: Option<Boost>,
}

impl FactorState {
    pub fn new(kind: FactorKind) -> Self {
        FactorState { kind, analysis: None, boost: None }
    }
}
