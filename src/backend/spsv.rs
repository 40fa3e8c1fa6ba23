//! Triangular solves (SpSV: one right-hand side; SpSM: several): the request `ops` hands a
//! backend, and what a solve descriptor keeps between the protocol's calls.

use std::any::Any;
use std::ffi::c_void;

use super::ScalarArg;
use crate::descr::SpMat;
use crate::types::{DataType, DiagType, FillMode, Format, IndexType, Operation};

/// `cols` columns of n values in the caller's memory: element (i, j) at `values + i * row_step
/// + j * col_step` (in elements). A vector is one column with `row_step` 1.
#[derive(Clone, Copy, Debug)]
pub struct Columns {
    pub values: *mut c_void,
    pub row_step: i64,
    pub col_step: i64,
}

/// `op(A) Y = alpha X` with A square and triangular as its attributes say, X and Y n x `cols`
/// (SpSV: x and y, one column; SpSM: op(B) and C).
#[derive(Clone, Copy)]
pub struct SpsvArgs<'a> {
    pub op_a: Operation,
    pub alpha: ScalarArg,
    pub a: &'a SpMat,
    pub x: Columns,
    pub y: Columns,
    pub cols: i64,
    /// A's, x's, y's and alpha's type: R_32F or R_64F.
    pub value_type: DataType,
    /// Whether op(A) is lower triangular (rows solved first to last) or upper (last to first).
    pub lower: bool,
    /// `SPBLK_DIAG_TYPE_UNIT`: the diagonal is taken as ones, whatever A stores.
    pub unit: bool,
}

/// What an analysis was made for; the solve and the updates must match it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpsvShape {
    pub op_a: Operation,
    pub format: Format,
    pub rows: i64,
    pub nnz: i64,
    pub value_type: DataType,
    pub index_type: IndexType,
    pub fill: FillMode,
    pub diag: DiagType,
    /// The right-hand sides (the CUDA analysis keeps a published value per row and column).
    pub cols: i64,
}

impl SpsvShape {
    pub fn of(args: &SpsvArgs) -> Self {
        SpsvShape {
            op_a: args.op_a,
            format: args.a.format(),
            rows: args.a.rows,
            nnz: args.a.nnz,
            value_type: args.value_type,
            index_type: args.a.indices_type,
            fill: args.a.fill_mode,
            diag: args.a.diag_type,
            cols: args.cols,
        }
    }
}

/// The analysis a backend made, kept by the SpSV descriptor. Like cuSPARSE's, it holds a copy
/// of A's values (values changed in A after the analysis are not seen; `spblkSpSV_updateMatrix`
/// replaces them). On CUDA it lives in the caller's buffer, which must outlive the solves.
pub type SpsvAnalysis = dyn Any + Send;

/// A descriptor's state: nothing before the first analysis.
#[derive(Default)]
pub struct SpsvState {
    pub analysis: Option<(SpsvShape, Box<SpsvAnalysis>)>,
}
