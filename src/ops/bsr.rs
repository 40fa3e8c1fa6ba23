//! The legacy BSR products `spblk{S,D}bsrmv` (`y = alpha A x + beta y`) and `spblk{S,D}bsrmm`
//! (`C = alpha A op(B) + beta C`, column-major B and C): sizes as `int`, 32-bit indices, the
//! index base from a general matrix descriptor, op(A) = A only (as in cuSPARSE).

use std::ffi::c_void;

use crate::abi::*;
use crate::backend::{BsrOperand, BsrProductArgs, ScalarArg, Strided};
use crate::descr::MatDescr;
use crate::ensure;
use crate::error::{Error, Result};
use crate::types::{DataType, Direction, IndexType, Operation, PointerMode, Precision};

use super::int_size as size;

/// A as the C arguments give it.
pub struct BsrInput {
    pub dir: spblkDirection_t,
    pub trans: spblkOperation_t,
    pub mb: i32,
    pub kb: i32,
    pub nnzb: i32,
    pub descr: *const MatDescr,
    pub values: *const c_void,
    pub offsets: *const i32,
    pub columns: *const i32,
    pub block: i32,
}

/// # Safety
/// `a.descr` points to a live descriptor (registry-checked by the caller).
unsafe fn bsr(a: &BsrInput, (block_name, cols_name): (&str, &str)) -> Result<BsrOperand> {
    let column_major_blocks = Direction::decode(a.dir, "dirA")? == Direction::Column;
    if Operation::decode(a.trans, "transA")? != Operation::NonTranspose {
        return Err(Error::not_supported(
            "argument 'transA': the BSR products take SPBLK_OPERATION_NON_TRANSPOSE only (as cuSPARSE)",
        ));
    }
    let (mb, kb, nnzb) = (size(a.mb, "mb")?, size(a.kb, cols_name)?, size(a.nnzb, "nnzb")?);
    ensure!(a.block >= 1, block_name, "must be >= 1 (got {})", a.block);
    let block = a.block as i64;
    ensure!(mb * block <= i32::MAX as i64, "mb", "times {block_name} ({}) does not fit an int", mb * block);
    ensure!(kb * block <= i32::MAX as i64, cols_name, "times {block_name} ({}) does not fit an int", kb * block);
    // SAFETY: the caller's guarantee.
    let d = unsafe { &*a.descr };
    let base = super::general_base(d, "descrA", "the BSR products")?;
    ensure!(!a.values.is_null() || nnzb == 0, "bsrSortedValA", "is NULL with nnzb = {nnzb}");
    ensure!(!a.offsets.is_null() || mb == 0, "bsrSortedRowPtrA", "is NULL with mb = {mb}");
    ensure!(!a.columns.is_null() || nnzb == 0, "bsrSortedColIndA", "is NULL with nnzb = {nnzb}");
    let (offsets, columns, values) = (a.offsets.cast(), a.columns.cast(), a.values);
    let index_type = IndexType::I32;
    Ok(BsrOperand { mb, kb, nnzb, block, offsets, columns, values, index_type, base, column_major_blocks })
}

fn scalars(mode: PointerMode, alpha: *const c_void, beta: *const c_void) -> Result<(ScalarArg, ScalarArg)> {
    ensure!(!alpha.is_null(), "alpha", "is NULL");
    ensure!(!beta.is_null(), "beta", "is NULL");
    Ok((ScalarArg { ptr: alpha, mode }, ScalarArg { ptr: beta, mode }))
}

/// `spblk{S,D}bsrmv`: x has nb * blockDim elements, y mb * blockDim.
///
/// # Safety
/// As [`bsr`].
pub unsafe fn bsrmv_args(
    mode: PointerMode,
    a: &BsrInput,
    (alpha, beta): (*const c_void, *const c_void),
    x: *const c_void,
    y: *mut c_void,
    value_type: DataType,
) -> Result<BsrProductArgs> {
    // SAFETY: forwarded.
    let a = unsafe { bsr(a, ("blockDim", "nb"))? };
    let (alpha, beta) = scalars(mode, alpha, beta)?;
    let (m, k) = (a.mb * a.block, a.kb * a.block);
    ensure!(!x.is_null() || k == 0, "x", "is NULL with nb * blockDim = {k}");
    ensure!(!y.is_null() || m == 0, "y", "is NULL with mb * blockDim = {m}");
    crate::trace::sizes(format_args!("mb={} nb={} nnzb={} blockDim={}", a.mb, a.kb, a.nnzb, a.block));
    let (b, c) = (Strided { ptr: x, rs: 1, cs: k.max(1) }, Strided { ptr: y, rs: 1, cs: m.max(1) });
    let precision = Precision { input: value_type, output: value_type, compute: value_type };
    Ok(BsrProductArgs { a, n: 1, b, c, alpha, beta, precision })
}

/// B and C as `spblk{S,D}bsrmm` takes them.
pub struct DenseOperands {
    pub trans_b: spblkOperation_t,
    pub n: i32,
    pub b: *const c_void,
    pub ldb: i32,
    pub c: *mut c_void,
    pub ldc: i32,
}

/// `spblk{S,D}bsrmm`: op(B) is (kb * blockSize) x n, C is (mb * blockSize) x n, column-major.
///
/// # Safety
/// As [`bsr`].
pub unsafe fn bsrmm_args(
    mode: PointerMode,
    a: &BsrInput,
    (alpha, beta): (*const c_void, *const c_void),
    d: &DenseOperands,
    value_type: DataType,
) -> Result<BsrProductArgs> {
    // SAFETY: forwarded.
    let a = unsafe { bsr(a, ("blockSize", "kb"))? };
    let b_transposed = match Operation::decode(d.trans_b, "transB")? {
        Operation::NonTranspose => false,
        Operation::Transpose => true,
        Operation::ConjugateTranspose => {
            return Err(Error::not_supported(
                "argument 'transB': SPBLK_OPERATION_CONJUGATE_TRANSPOSE of a real matrix is not supported",
            ))
        }
    };
    let n = size(d.n, "n")?;
    let (alpha, beta) = scalars(mode, alpha, beta)?;
    let (m, k) = (a.mb * a.block, a.kb * a.block);
    let (ldb, ldc) = (d.ldb as i64, d.ldc as i64);
    let (b_rows, b_cols) = if b_transposed { (n, k) } else { (k, n) };
    ensure!(ldb >= b_rows.max(1), "ldb", "({ldb}) is less than max(1, {b_rows}), the rows of B as stored");
    ensure!(ldc >= m.max(1), "ldc", "({ldc}) is less than max(1, mb * blockSize = {m})");
    ensure!(!d.b.is_null() || b_rows * b_cols == 0, "B", "is NULL with {b_rows} x {b_cols} elements");
    ensure!(!d.c.is_null() || m * n == 0, "C", "is NULL with {m} x {n} elements");
    crate::trace::sizes(format_args!("mb={} kb={} nnzb={} blockSize={} n={n}", a.mb, a.kb, a.nnzb, a.block));
    // Bᵀ stored n x k column-major is op(B) read with the strides swapped.
    let b = Strided { ptr: d.b, rs: if b_transposed { ldb } else { 1 }, cs: if b_transposed { 1 } else { ldb } };
    let c = Strided { ptr: d.c, rs: 1, cs: ldc };
    let precision = Precision { input: value_type, output: value_type, compute: value_type };
    Ok(BsrProductArgs { a, n, b, c, alpha, beta, precision })
}
