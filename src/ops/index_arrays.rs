//! The legacy index-array helpers (`spblkCreateIdentityPermutation`, `spblkXcsr2coo`,
//! `spblkXcoo2csr`): 32-bit indices, sizes as `int`.

use crate::abi::*;
use crate::backend::{IndexArrays, SortArgs, SortLines};
use crate::ensure;
use crate::error::Result;
use crate::types::IndexBase;

use super::int_size as size;

pub fn identity(n: i32, p: *mut i32) -> Result<IndexArrays> {
    let n = size(n, "n")?;
    ensure!(!p.is_null() || n == 0, "p", "is NULL with n = {n}");
    Ok(IndexArrays::Identity { n, p })
}

pub fn csr_to_coo(
    offsets: *const i32,
    nnz: i32,
    m: i32,
    rows: *mut i32,
    base: spblkIndexBase_t,
) -> Result<IndexArrays> {
    let base = IndexBase::decode(base, "idxBase")?.offset();
    let (nnz, m) = (size(nnz, "nnz")?, size(m, "m")?);
    ensure!(!offsets.is_null() || m == 0, "csrSortedRowPtr", "is NULL with m = {m}");
    ensure!(!rows.is_null() || nnz == 0, "cooRowInd", "is NULL with nnz = {nnz}");
    Ok(IndexArrays::CsrToCoo { m, nnz, offsets, rows, base })
}

pub fn coo_to_csr(
    rows: *const i32,
    nnz: i32,
    m: i32,
    offsets: *mut i32,
    base: spblkIndexBase_t,
) -> Result<IndexArrays> {
    let base = IndexBase::decode(base, "idxBase")?.offset();
    let (nnz, m) = (size(nnz, "nnz")?, size(m, "m")?);
    ensure!(!rows.is_null() || nnz == 0, "cooRowInd", "is NULL with nnz = {nnz}");
    ensure!(!offsets.is_null(), "csrSortedRowPtr", "is NULL (it receives m + 1 = {} offsets)", m + 1);
    ensure!(nnz + base <= i32::MAX as i64, "nnz", "({nnz}) plus the index base does not fit an int");
    Ok(IndexArrays::CooToCsr { m, nnz, rows, offsets, base })
}

/// Which legacy sort a call is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKind {
    Csr,
    Csc,
    CooByRow,
    CooByColumn,
}

/// A sort request: `offsets` for CSR/CSC (row or column offsets), `major` the COO index
/// array sorted first (rows by row, columns by column), `minor` the other index array.
#[allow(clippy::too_many_arguments)]
pub fn sort(
    kind: SortKind,
    (m, n, nnz): (i32, i32, i32),
    offsets: *const i32,
    major: *mut i32,
    minor: *mut i32,
    perm: *mut i32,
    base: i64,
    names: (&'static str, &'static str),
) -> Result<SortArgs> {
    let (offsets_name, minor_name) = names;
    let (m, n, nnz) = (size(m, "m")?, size(n, "n")?, size(nnz, "nnz")?);
    let (lines, len) = match kind {
        SortKind::Csr | SortKind::CooByRow => (m, n),
        SortKind::Csc | SortKind::CooByColumn => (n, m),
    };
    let line_of = match kind {
        SortKind::Csr | SortKind::Csc => {
            ensure!(!offsets.is_null() || lines == 0, offsets_name, "is NULL");
            SortLines::Offsets(offsets)
        }
        SortKind::CooByRow | SortKind::CooByColumn => {
            ensure!(!major.is_null() || nnz == 0, offsets_name, "is NULL with nnz = {nnz}");
            SortLines::Indices(major)
        }
    };
    ensure!(!minor.is_null() || nnz == 0, minor_name, "is NULL with nnz = {nnz}");
    Ok(SortArgs { lines, len, nnz, line_of, minor, perm, base, names })
}
