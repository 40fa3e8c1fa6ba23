//! Typed views of user memory for the host kernels: sparse operands normalized to CSR of
//! op(A), and dense operands addressed through op(·) and their storage order.
//!
//! The host backend is the reference the CUDA results are checked against, so it also checks
//! the index arrays it reads (a bad index is an error here, never an out-of-bounds access).

use std::borrow::Cow;
use std::ffi::c_void;

use super::elem::{Elem, Index, SharedMut};
use crate::descr::{DnMat, SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::types::{Operation, Order};

/// A slice over user memory; `len == 0` accepts NULL.
///
/// # Safety
/// `ptr` must point to at least `len` valid, initialized elements that outlive `'a`.
pub unsafe fn user_slice<'a, T>(ptr: *const c_void, len: usize, what: &str) -> Result<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(Error::invalid(what, format!("is NULL but {len} elements are needed")));
    }
    if (ptr as usize) % std::mem::align_of::<T>() != 0 {
        return Err(Error::invalid(what, format!("is not aligned to {} bytes", std::mem::align_of::<T>())));
    }
    // SAFETY: non-null, aligned, and the caller guarantees `len` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(ptr as *const T, len) })
}

/// CSR of op(A): `rows × cols`, entries of row i at `ptr[i]-base .. ptr[i+1]-base`.
pub struct CsrView<'a, I: Index + Clone, V: Elem + Clone> {
    pub rows: usize,
    pub cols: usize,
    pub ptr: Cow<'a, [I]>,
    pub idx: Cow<'a, [I]>,
    pub val: Cow<'a, [V]>,
    pub base: i64,
}

impl<I: Index + Clone, V: Elem + Clone> CsrView<'_, I, V> {
    #[inline]
    pub fn row_range(&self, i: usize) -> std::ops::Range<usize> {
        (self.ptr[i].to_i64() - self.base) as usize..(self.ptr[i + 1].to_i64() - self.base) as usize
    }
    #[inline]
    pub fn col(&self, p: usize) -> usize {
        (self.idx[p].to_i64() - self.base) as usize
    }
    pub fn nnz(&self) -> usize {
        self.idx.len()
    }
}

/// Checks offsets (`len = major+1`, starting at `base`, non-decreasing, ending at `nnz+base`)
/// and indices (`base <= j < minor+base`).
pub(super) fn check_compressed<I: Index>(ptr: &[I], idx: &[I], minor: usize, base: i64, what: &str) -> Result<()> {
    let nnz = idx.len() as i64;
    if let Some(first) = ptr.first() {
        if first.to_i64() != base {
            return Err(Error::invalid(what, format!("offsets must start at the index base {base}")));
        }
        if ptr[ptr.len() - 1].to_i64() != nnz + base {
            return Err(Error::invalid(
                what,
                format!("offsets end at {} but nnz + base = {}", ptr[ptr.len() - 1].to_i64(), nnz + base),
            ));
        }
        if ptr.windows(2).any(|w| w[1].to_i64() < w[0].to_i64()) {
            return Err(Error::invalid(what, "offsets are decreasing"));
        }
    }
    check_indices(idx, minor, base, what)
}

fn check_indices<I: Index>(idx: &[I], bound: usize, base: i64, what: &str) -> Result<()> {
    let hi = bound as i64 + base;
    if let Some(bad) = idx.iter().find(|j| j.to_i64() < base || j.to_i64() >= hi) {
        return Err(Error::invalid(what, format!("has index {} outside [{base}, {hi})", bad.to_i64())));
    }
    Ok(())
}

/// The checked offsets and column indices of a CSR matrix, without its values (for outputs
/// whose values are written).
///
/// # Safety
/// The descriptor's arrays must be host memory of the sizes it declares.
pub unsafe fn csr_structure<'a, I: Index>(a: &'a SpMat, what: &str) -> Result<(&'a [I], &'a [I])> {
    let SparsePattern::Csr { row_offsets, col_ind } = a.pattern else {
        return Err(Error::not_supported(format!("argument '{what}' must be in CSR format")));
    };
    let rows = a.rows as usize;
    // SAFETY: the caller guarantees the declared sizes.
    let ptr: &[I] = unsafe { user_slice(row_offsets, if rows > 0 { rows + 1 } else { 0 }, what)? };
    let idx: &[I] = unsafe { user_slice(col_ind, a.nnz as usize, what)? };
    check_compressed(ptr, idx, a.cols as usize, a.base.offset(), what)?;
    Ok((ptr, idx))
}

/// Builds CSR of op(A) from any supported format. Borrowed when the storage already is that
/// CSR (CSR with N, CSC with T); otherwise a zero-based transposed or sorted copy.
///
/// # Safety
/// The descriptor's arrays must be host memory of the sizes it declares.
pub unsafe fn csr_of_op<'a, I: Index + Clone, V: Elem + Clone>(
    a: &'a SpMat,
    op: Operation,
    what: &str,
) -> Result<CsrView<'a, I, V>> {
    let (rows, cols, nnz) = (a.rows as usize, a.cols as usize, a.nnz as usize);
    let base = a.base.offset();
    // SAFETY (all user_slice calls): the caller guarantees the declared sizes.
    let val: &[V] = unsafe { user_slice(a.values, nnz, what)? };
    let transpose = op != Operation::NonTranspose;
    match a.pattern {
        SparsePattern::Csr { row_offsets, col_ind }
        | SparsePattern::Csc { col_offsets: row_offsets, row_ind: col_ind } => {
            let is_csc = matches!(a.pattern, SparsePattern::Csc { .. });
            // Stored as CSR of `stored` = A (CSR) or A^T (CSC).
            let (srows, scols) = if is_csc { (cols, rows) } else { (rows, cols) };
            let ptr: &[I] = unsafe { user_slice(row_offsets, if srows > 0 { srows + 1 } else { 0 }, what)? };
            let idx: &[I] = unsafe { user_slice(col_ind, nnz, what)? };
            check_compressed(ptr, idx, scols, base, what)?;
            let stored = CsrView {
                rows: srows,
                cols: scols,
                ptr: Cow::Borrowed(ptr),
                idx: Cow::Borrowed(idx),
                val: Cow::Borrowed(val),
                base,
            };
            if transpose != is_csc {
                Ok(transpose_csr(&stored))
            } else {
                Ok(stored)
            }
        }
        SparsePattern::Coo { row_ind, col_ind } => {
            let ri: &[I] = unsafe { user_slice(row_ind, nnz, what)? };
            let ci: &[I] = unsafe { user_slice(col_ind, nnz, what)? };
            check_indices(ri, rows, base, what)?;
            check_indices(ci, cols, base, what)?;
            if transpose {
                Ok(coo_to_csr(cols, rows, ci, ri, val, base))
            } else {
                Ok(coo_to_csr(rows, cols, ri, ci, val, base))
            }
        }
    }
}

/// Counting sort of (major, minor) pairs into zero-based CSR; stable, so entries keep their
/// input order within a row (which keeps sums reproducible).
fn coo_to_csr<'a, I: Index + Clone, V: Elem + Clone>(
    rows: usize,
    cols: usize,
    major: &[I],
    minor: &[I],
    val: &[V],
    base: i64,
) -> CsrView<'a, I, V> {
    let mut count = vec![0usize; rows + 1];
    for r in major {
        count[(r.to_i64() - base) as usize + 1] += 1;
    }
    for i in 0..rows {
        count[i + 1] += count[i];
    }
    let ptr: Vec<I> = count.iter().map(|&c| I::from_i64(c as i64)).collect();
    let mut next = count;
    let mut idx = vec![I::from_i64(0); minor.len()];
    let mut out = Vec::with_capacity(val.len());
    let mut order = vec![0usize; minor.len()];
    for (p, r) in major.iter().enumerate() {
        let slot = &mut next[(r.to_i64() - base) as usize];
        order[*slot] = p;
        idx[*slot] = I::from_i64(minor[p].to_i64() - base);
        *slot += 1;
    }
    out.extend(order.iter().map(|&p| val[p]));
    CsrView {
        rows,
        cols,
        ptr: if rows > 0 { Cow::Owned(ptr) } else { Cow::Owned(Vec::new()) },
        idx: Cow::Owned(idx),
        val: Cow::Owned(out),
        base: 0,
    }
}

/// CSR of the transpose (zero-based). Entries of a CSR are stored row after row, so a stable
/// counting sort by column yields each row of the transpose in increasing source-row order.
pub fn transpose_csr<'a, I: Index + Clone, V: Elem + Clone>(m: &CsrView<'_, I, V>) -> CsrView<'a, I, V> {
    let mut source_row = Vec::with_capacity(m.nnz());
    for i in 0..m.rows {
        source_row.extend(m.row_range(i).map(|_| I::from_i64(i as i64)));
    }
    let col: Vec<I> = (0..m.nnz()).map(|p| I::from_i64(m.col(p) as i64)).collect();
    coo_to_csr(m.cols, m.rows, &col, &source_row, &m.val, 0)
}

/// op(D) of a dense descriptor, addressed element-wise.
pub struct DenseView<V> {
    pub ptr: SharedMut<V>,
    pub rows: usize,
    pub cols: usize,
    ld: usize,
    /// Effective storage order of op(D): transposing flips it.
    row_major: bool,
}

impl<V> DenseView<V> {
    /// # Safety
    /// `d` must describe valid host memory of its declared span.
    pub unsafe fn new(d: &DnMat, op: Operation, what: &str) -> Result<Self> {
        let transpose = op != Operation::NonTranspose;
        let (rows, cols) = if transpose { (d.cols, d.rows) } else { (d.rows, d.cols) };
        if d.span() > 0 && (d.values as usize) % std::mem::align_of::<V>() != 0 {
            return Err(Error::invalid(what, format!("values are not aligned to {} bytes", std::mem::align_of::<V>())));
        }
        Ok(DenseView {
            ptr: SharedMut(d.values as *mut V),
            rows: rows as usize,
            cols: cols as usize,
            ld: d.ld as usize,
            row_major: (d.order == Order::Row) != transpose,
        })
    }

    #[inline]
    pub fn offset(&self, i: usize, j: usize) -> usize {
        if self.row_major {
            i * self.ld + j
        } else {
            i + j * self.ld
        }
    }

    /// # Safety
    /// `(i, j)` must be inside op(D).
    #[inline]
    pub unsafe fn get(&self, i: usize, j: usize) -> V
    where
        V: Copy,
    {
        // SAFETY: in bounds by the caller; the descriptor spans the memory.
        unsafe { *self.ptr.get().add(self.offset(i, j)) }
    }

    /// # Safety
    /// `(i, j)` must be inside op(D) and written by one thread only.
    #[inline]
    pub unsafe fn set(&self, i: usize, j: usize, v: V) {
        // SAFETY: as for `get`; disjoint writers.
        unsafe { *self.ptr.get().add(self.offset(i, j)) = v }
    }
}
