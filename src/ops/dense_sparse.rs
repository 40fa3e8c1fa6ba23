//! Dense <-> sparse conversion requests (`spblkSparseToDense`, `spblkDenseToSparse_*`).

use crate::abi::*;
use crate::backend::{DenseToSparseArgs, SparseToDenseArgs};
use crate::descr::{DnMat, SpMat, SparsePattern};
use crate::ensure;
use crate::error::{Error, Result};
use crate::trace;
use crate::types::{DenseToSparseAlg, Format, SparseToDenseAlg};

/// The formats SparseToDense reads; DenseToSparse writes these and Blocked-ELL (whose block
/// columns the caller sets), as cuSPARSE.
const FORMATS: [Format; 3] = [Format::Csr, Format::Csc, Format::Coo];
const TARGETS: [Format; 4] = [Format::Csr, Format::Csc, Format::Coo, Format::BlockedEll];

/// The sparse and dense sides agree in shape and value type, and each is one matrix.
fn same_matrix(s: &SpMat, s_arg: &str, formats: &[Format], d: &DnMat, d_arg: &str) -> Result<()> {
    if !formats.contains(&s.format()) {
        let names: Vec<_> = formats.iter().map(|f| f.name()).collect();
        return Err(Error::not_supported(format!(
            "argument '{s_arg}': format {} is not supported here (supported: {})",
            s.format().name(),
            names.join(", ")
        )));
    }
    s.validate_shape()?;
    s.uniform_index_type(s_arg)?;
    super::batch::single(s, s_arg, "a conversion")?;
    d.validate()?;
    if d.batch.count > 1 {
        return Err(Error::not_supported(format!(
            "argument '{d_arg}' is a batch of {} matrices; a conversion takes one",
            d.batch.count
        )));
    }
    ensure!(
        (d.rows, d.cols) == (s.rows, s.cols),
        d_arg,
        "is {}x{} but {s_arg} is {}x{}",
        d.rows,
        d.cols,
        s.rows,
        s.cols
    );
    ensure!(
        d.value_type == s.value_type,
        d_arg,
        "has value type {:?} but {s_arg} has {:?} (they must match)",
        d.value_type,
        s.value_type
    );
    Ok(())
}

pub fn sparse_to_dense_args<'a>(
    a: &'a SpMat,
    b: &'a DnMat,
    alg: spblkSparseToDenseAlg_t,
) -> Result<SparseToDenseArgs<'a>> {
    let SparseToDenseAlg::Default = SparseToDenseAlg::decode(alg, "alg")?;
    same_matrix(a, "matA", &FORMATS, b, "matB")?;
    a.require_arrays("matA")?;
    trace::sizes(format_args!("A={:?} {}x{} nnz={} {:?}", a.format(), a.rows, a.cols, a.nnz, a.value_type));
    Ok(SparseToDenseArgs { a, b })
}

/// Which call of the DenseToSparse protocol is checking its arguments.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DenseToSparseStage {
    BufferSize,
    /// Writes B's offsets (CSR, CSC): they must be there.
    Analysis,
    /// Writes B's indices and values: all of B's arrays must be there.
    Convert,
}

pub fn dense_to_sparse_args<'a>(
    a: &'a DnMat,
    b: &'a SpMat,
    alg: spblkDenseToSparseAlg_t,
    stage: DenseToSparseStage,
) -> Result<DenseToSparseArgs<'a>> {
    let DenseToSparseAlg::Default = DenseToSparseAlg::decode(alg, "alg")?;
    same_matrix(b, "matB", &TARGETS, a, "matA")?;
    match stage {
        DenseToSparseStage::BufferSize => {}
        DenseToSparseStage::Analysis => {
            let (offsets, name, lines) = match b.pattern {
                SparsePattern::Csr { row_offsets, .. } => (row_offsets, "csrRowOffsets", b.rows),
                SparsePattern::Csc { col_offsets, .. } => (col_offsets, "cscColOffsets", b.cols),
                SparsePattern::Coo { .. } | SparsePattern::BlockedEll { .. } => (std::ptr::null_mut(), "", 0),
                _ => return Err(b.unsupported("DenseToSparse")),
            };
            ensure!(!offsets.is_null() || lines == 0, "matB", "has a NULL {name} array (the analysis writes it)");
        }
        DenseToSparseStage::Convert => b.require_arrays("matB")?,
    }
    trace::sizes(format_args!("B={:?} {}x{} {:?}", b.format(), b.rows, b.cols, b.value_type));
    Ok(DenseToSparseArgs { a, b })
}
