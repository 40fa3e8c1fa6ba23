//! Strided batches: SpMM and SDDMM compute `C_i = op(A_i) op(B_i)` for every batch i, where an
//! operand of one batch is shared (cuSPARSE's `C_i = A·B_i`, `A_i·B`, `A_i·B_i`). Each batch
//! runs as its own product, one after the other on the call's stream and reusing the one
//! workspace; batched sparse operands run without plans (a plan describes batch 0's pattern).

use crate::abi::{spblkSDDMMAlg_t, spblkSpMMAlg_t};
use crate::descr::{DnMat, SpMat};
use crate::error::{Error, Result};
use crate::types::{SddmmAlg, SpmmAlg};

/// The most batches SpMM and SDDMM take (cuSPARSE's limit).
pub const MAX_BATCHES: i32 = 65_535;

/// An operand of an operation that takes one matrix, not a batch.
pub fn single(m: &SpMat, arg: &str, operation: &str) -> Result<()> {
    if m.batch.count > 1 {
        return Err(Error::not_supported(format!(
            "argument '{arg}' is a batch of {} matrices; {operation} takes one (strided batches: SpMM and SDDMM)",
            m.batch.count
        )));
    }
    Ok(())
}

/// The number of products: the output's batch count, which every input has or shares (1).
fn count(inputs: [(&str, i32); 2], output: (&str, i32)) -> Result<i32> {
    let (out_arg, n) = output;
    for (arg, k) in inputs {
        if k != 1 && k != n {
            return Err(Error::invalid(out_arg, format!("has batchCount {n} but {arg} has {k} (must be 1 or {n})")));
        }
    }
    if n > MAX_BATCHES {
        return Err(Error::not_supported(format!("argument '{out_arg}': batchCount {n} exceeds {MAX_BATCHES}")));
    }
    Ok(n)
}

/// A dense output's batches must not overlap.
fn dense_output(c: &DnMat, arg: &str) -> Result<()> {
    if c.batch.count > 1 && c.batch.stride < c.batch_size() {
        return Err(Error::invalid(
            arg,
            format!(
                "has batchStride {} < one matrix's {} elements: its batches would overlap",
                c.batch.stride,
                c.batch_size()
            ),
        ));
    }
    Ok(())
}

/// The products of a batched SpMM, as single matrices (one when nothing is batched), made
/// one at a time (bufferSize and preprocess look at the first only).
pub fn spmm<'a>(a: &'a SpMat, b: &'a DnMat, c: &'a DnMat) -> Result<impl Iterator<Item = (SpMat, DnMat, DnMat)> + 'a> {
    let n = count([("matA", a.batch.count), ("matB", b.batch.count)], ("matC", c.batch.count))?;
    dense_output(c, "matC")?;
    Ok((0..n)
        .map(|i| (a.batch_item(i.min(a.batch.count - 1)), b.batch_item(i.min(b.batch.count - 1)), c.batch_item(i))))
}

/// The products of a batched SDDMM (one when nothing is batched), made one at a time.
pub fn sddmm<'a>(a: &'a DnMat, b: &'a DnMat, c: &'a SpMat) -> Result<impl Iterator<Item = (DnMat, DnMat, SpMat)> + 'a> {
    let n = count([("matA", a.batch.count), ("matB", b.batch.count)], ("matC", c.batch.count))?;
    if n > 1 && c.batch.entries_stride < c.nnz {
        return Err(Error::invalid(
            "matC",
            format!(
                "has columnsValuesBatchStride {} < nnz ({}): its batches' values would overlap",
                c.batch.entries_stride, c.nnz
            ),
        ));
    }
    Ok((0..n)
        .map(|i| (a.batch_item(i.min(a.batch.count - 1)), b.batch_item(i.min(b.batch.count - 1)), c.batch_item(i))))
}

/// SpMM algorithms that run on a plan cannot take a batched matA.
pub fn spmm_alg(alg: spblkSpMMAlg_t, a: &SpMat) -> Result<()> {
    let alg = SpmmAlg::decode(alg, "alg")?;
    let planned = matches!(alg, SpmmAlg::Rode | SpmmAlg::Aspt | SpmmAlg::Vbr | SpmmAlg::VbrTf32 | SpmmAlg::CsrSweep);
    planned_on_batch(planned, alg, "matA", a.batch.count)
}

/// As [`spmm_alg`] for SDDMM's matC.
pub fn sddmm_alg(alg: spblkSDDMMAlg_t, c: &SpMat) -> Result<()> {
    let alg = SddmmAlg::decode(alg, "alg")?;
    planned_on_batch(alg == SddmmAlg::Aspt, alg, "matC", c.batch.count)
}

/// `alg` is formatted only for the error: these checks run on every product call.
fn planned_on_batch(planned: bool, alg: impl std::fmt::Debug, arg: &str, count: i32) -> Result<()> {
    if planned && count > 1 {
        return Err(Error::not_supported(format!(
            "algorithm {alg:?} runs on a plan of {arg}, and a batched {arg} ({count} matrices) runs without plans"
        )));
    }
    Ok(())
}
