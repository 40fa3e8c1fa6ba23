//! Typed views of user memory for the host kernels: sparse operands normalized to CSR of
//! op(A), and dense operands addressed through op(·) and their storage order.
//!
//! The host backend is the reference the CUDA results are checked against, so it also checks
//! the index arrays it reads (a bad index is an error here, never an out-of-bounds access).

use std::borrow::Cow;
use std::ffi::c_void;

use super::elem::{Elem, Index, Real, SharedMut};
use crate::descr::{DnMat, SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::plan::OperandPlan;
use crate::trace;
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

/// A user array to write, checked for NULL and alignment like [`user_slice`]. Returned as a
/// raw pointer, not a slice: a caller may pass overlapping arrays.
///
/// # Safety
/// As for [`user_slice`].
pub unsafe fn user_array<T>(ptr: *mut c_void, len: usize, what: &str) -> Result<*mut T> {
    // SAFETY: forwarded; only the checks are used.
    unsafe { user_slice::<T>(ptr, len, what)? };
    Ok(ptr as *mut T)
}

/// Elements a `rows` x `cols` operand addressed by element strides spans (0 when empty).
pub fn strided_span(rows: usize, cols: usize, rs: i64, cs: i64) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        ((rows - 1) as i64 * rs + (cols - 1) as i64 * cs) as usize + 1
    }
}

/// Writes `alpha * acc + beta * c[at]`, reading `c[at]` only when beta is not zero.
///
/// # Safety
/// `c.add(at)` is valid for reads and writes.
pub unsafe fn write_scaled<Out: Elem, T: Real>(c: *mut Out, at: usize, alpha: T, beta: T, acc: T) {
    let mut out = alpha * acc;
    if beta != T::ZERO {
        // SAFETY: the caller's guarantee.
        out += beta * T::load(unsafe { *c.add(at) });
    }
    unsafe { *c.add(at) = out.store() };
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
    check_offsets(ptr, idx.len() as i64, base, what)?;
    check_indices(idx, minor, base, what)
}

/// Offsets run from the index base to `nnz + base` and never decrease (none: nothing to check).
pub(super) fn check_offsets<I: Index>(ptr: &[I], nnz: i64, base: i64, what: &str) -> Result<()> {
    let (Some(first), Some(last)) = (ptr.first(), ptr.last()) else { return Ok(()) };
    let (first, last) = (first.to_i64(), last.to_i64());
    if first != base || last != nnz + base {
        return Err(Error::invalid(
            what,
            format!("runs from {first} to {last}, not from {base} to nnz + base = {}", nnz + base),
        ));
    }
    if let Some(r) = ptr.windows(2).position(|w| w[1].to_i64() < w[0].to_i64()) {
        return Err(Error::invalid(what, format!("decreases after row {r}")));
    }
    Ok(())
}

pub(super) fn check_indices<I: Index>(idx: &[I], bound: usize, base: i64, what: &str) -> Result<()> {
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

/// The zero-based CSR pattern of op(A) when A is not stored that way, and for each entry the
/// position of its value in A's storage. What the host keeps in an operand plan.
pub struct Pattern<I> {
    pub rows: usize,
    pub cols: usize,
    pub ptr: Vec<I>,
    pub idx: Vec<I>,
    pub perm: Vec<u64>,
}

/// The pattern of CSR of op(A) if A must be converted (`None`: A is CSR of op(A) as stored).
/// Checks every index it reads.
///
/// # Safety
/// The descriptor's arrays must be host memory of the sizes it declares.
pub unsafe fn convert_pattern<I: Index>(a: &SpMat, op: Operation, what: &str) -> Result<Option<Pattern<I>>> {
    let (rows, cols, nnz) = (a.rows as usize, a.cols as usize, a.nnz as usize);
    let base = a.base.offset();
    let transpose = op != Operation::NonTranspose;
    // SAFETY (all user_slice calls): the caller guarantees the declared sizes.
    match a.pattern {
        SparsePattern::Csr { row_offsets, col_ind }
        | SparsePattern::Csc { col_offsets: row_offsets, row_ind: col_ind } => {
            let is_csc = matches!(a.pattern, SparsePattern::Csc { .. });
            if transpose == is_csc {
                return Ok(None);
            }
            // Stored as CSR of `stored` = A (CSR) or Aᵀ (CSC); its transpose is op(A).
            let (srows, scols) = if is_csc { (cols, rows) } else { (rows, cols) };
            let ptr: &[I] = unsafe { user_slice(row_offsets, if srows > 0 { srows + 1 } else { 0 }, what)? };
            let idx: &[I] = unsafe { user_slice(col_ind, nnz, what)? };
            check_compressed(ptr, idx, scols, base, what)?;
            let mut source_row = Vec::with_capacity(nnz);
            for i in 0..srows {
                let n = (ptr[i + 1].to_i64() - ptr[i].to_i64()) as usize;
                source_row.extend(std::iter::repeat_n(I::from_i64(i as i64 + base), n));
            }
            Ok(Some(counting_sort(scols, srows, idx, &source_row, base)))
        }
        SparsePattern::Coo { row_ind, col_ind } => {
            let ri: &[I] = unsafe { user_slice(row_ind, nnz, what)? };
            let ci: &[I] = unsafe { user_slice(col_ind, nnz, what)? };
            check_indices(ri, rows, base, what)?;
            check_indices(ci, cols, base, what)?;
            Ok(Some(if transpose {
                counting_sort(cols, rows, ci, ri, base)
            } else {
                counting_sort(rows, cols, ri, ci, base)
            }))
        }
        _ => Err(a.unsupported("this operation")),
    }
}

/// The longest row of a compressed pattern.
pub fn max_row<I: Index>(ptr: &[I]) -> i64 {
    ptr.windows(2).map(|w| w[1].to_i64() - w[0].to_i64()).max().unwrap_or(0)
}

/// The longest stored row of a CSR or CSC matrix (rows of A, or of Aᵀ for CSC), checked.
///
/// # Safety
/// The descriptor's arrays must be host memory of the sizes it declares.
pub unsafe fn stored_max_row<I: Index>(a: &SpMat, what: &str) -> Result<i64> {
    // SAFETY: forwarded.
    Ok(max_row(unsafe { stored_offsets::<I>(a, what)? }))
}

/// The offsets of a CSR or CSC matrix (rows of A, or of Aᵀ for CSC), checked.
///
/// # Safety
/// The descriptor's arrays must be host memory of the sizes it declares.
pub unsafe fn stored_offsets<'a, I: Index>(a: &'a SpMat, what: &str) -> Result<&'a [I]> {
    let (offsets, indices, major, minor) = match a.pattern {
        SparsePattern::Csr { row_offsets, col_ind } => (row_offsets, col_ind, a.rows, a.cols),
        SparsePattern::Csc { col_offsets, row_ind } => (col_offsets, row_ind, a.cols, a.rows),
        _ => return Err(Error::internal("only CSR and CSC have stored rows")),
    };
    let major = major as usize;
    // SAFETY: the caller guarantees the declared sizes.
    let ptr: &[I] = unsafe { user_slice(offsets, if major > 0 { major + 1 } else { 0 }, what)? };
    let idx: &[I] = unsafe { user_slice(indices, a.nnz as usize, what)? };
    check_compressed(ptr, idx, minor as usize, a.base.offset(), what)?;
    Ok(ptr)
}

/// Counting sort of (major, minor) pairs into a zero-based CSR pattern; stable, so entries
/// keep their storage order within a row (which keeps sums reproducible).
fn counting_sort<I: Index>(rows: usize, cols: usize, major: &[I], minor: &[I], base: i64) -> Pattern<I> {
    let mut count = vec![0usize; rows + 1];
    for r in major {
        count[(r.to_i64() - base) as usize + 1] += 1;
    }
    for i in 0..rows {
        count[i + 1] += count[i];
    }
    let ptr: Vec<I> = if rows > 0 { count.iter().map(|&c| I::from_i64(c as i64)).collect() } else { Vec::new() };
    let mut next = count;
    let mut idx = vec![I::from_i64(0); minor.len()];
    let mut perm = vec![0u64; minor.len()];
    for (p, r) in major.iter().enumerate() {
        let slot = &mut next[(r.to_i64() - base) as usize];
        perm[*slot] = p as u64;
        idx[*slot] = I::from_i64(minor[p].to_i64() - base);
        *slot += 1;
    }
    Pattern { rows, cols, ptr, idx, perm }
}

/// CSR of op(A) from any supported format: borrowed when A is stored that way (CSR with N,
/// CSC with T), else the plan's pattern (or a fresh conversion without one) with the current
/// values gathered through its permutation.
///
/// # Safety
/// The descriptor's arrays must be host memory of the sizes it declares, and `plan` must have
/// been made for this matrix and op by the host backend.
pub unsafe fn csr_of_op<'a, I: Index + Clone, V: Elem + Clone>(
    a: &'a SpMat,
    op: Operation,
    plan: Option<&'a OperandPlan>,
    what: &str,
) -> Result<CsrView<'a, I, V>> {
    let (rows, cols, nnz) = (a.rows as usize, a.cols as usize, a.nnz as usize);
    // SAFETY (user_slice): the caller guarantees the declared sizes.
    let val: &[V] = unsafe { user_slice(a.values, nnz, what)? };
    let gather = |perm: &[u64]| -> Vec<V> { perm.iter().map(|&p| val[p as usize]).collect() };
    if let Some(conv) = plan.and_then(|p| p.converted.as_ref()) {
        trace::kernel("host:gather_values");
        let (r, c) = if op.is_transposed() { (cols, rows) } else { (rows, cols) };
        // SAFETY: the host backend made these buffers from `Vec<I>` and `Vec<u64>`.
        let (ptr, idx, perm) =
            unsafe { (conv.row_ptr.host_slice::<I>(), conv.col_ind.host_slice::<I>(), conv.perm.host_slice::<u64>()) };
        let val = Cow::Owned(gather(perm));
        return Ok(CsrView { rows: r, cols: c, ptr: Cow::Borrowed(ptr), idx: Cow::Borrowed(idx), val, base: 0 });
    }
    // SAFETY: forwarded.
    match unsafe { convert_pattern::<I>(a, op, what)? } {
        Some(p) => {
            trace::kernel("host:convert");
            let val = Cow::Owned(gather(&p.perm));
            Ok(CsrView { rows: p.rows, cols: p.cols, ptr: Cow::Owned(p.ptr), idx: Cow::Owned(p.idx), val, base: 0 })
        }
        None => {
            let (SparsePattern::Csr { row_offsets, col_ind }
            | SparsePattern::Csc { col_offsets: row_offsets, row_ind: col_ind }) = a.pattern
            else {
                return Err(Error::internal("COO is always converted"));
            };
            let (r, c) = if op.is_transposed() { (cols, rows) } else { (rows, cols) };
            // SAFETY: the caller guarantees the declared sizes.
            let ptr: &[I] = unsafe { user_slice(row_offsets, if r > 0 { r + 1 } else { 0 }, what)? };
            let idx: &[I] = unsafe { user_slice(col_ind, nnz, what)? };
            check_compressed(ptr, idx, c, a.base.offset(), what)?;
            let (ptr, idx, val) = (Cow::Borrowed(ptr), Cow::Borrowed(idx), Cow::Borrowed(val));
            Ok(CsrView { rows: r, cols: c, ptr, idx, val, base: a.base.offset() })
        }
    }
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
