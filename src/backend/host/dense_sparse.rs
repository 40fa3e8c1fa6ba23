//! Dense <-> sparse conversions on the host: elements copied as bytes, so every value type
//! converts; the only arithmetic is the test for zero.

use super::elem::Index;
use super::views::{check_compressed, check_indices, user_array, user_slice};
use crate::backend::{DenseToSparseArgs, SparseToDenseArgs};
use crate::descr::{DnMat, SparsePattern};
use crate::error::{Error, Result};
use crate::types::{DataType, Order};
use crate::with_index_type;

/// Whether an element is zero: every component's bits zero, the sign aside for floating
/// point (-0 is zero; NaN is not).
pub fn is_zero(e: &[u8], t: DataType) -> bool {
    use DataType::*;
    match t {
        F16 | BF16 | C16 | CBF16 => e.chunks_exact(2).all(|c| u16::from_le_bytes([c[0], c[1]]) & 0x7fff == 0),
        F32 | C32 => e.chunks_exact(4).all(|c| u32::from_le_bytes(c.try_into().unwrap()) & 0x7fff_ffff == 0),
        F64 | C64 => e.chunks_exact(8).all(|c| u64::from_le_bytes(c.try_into().unwrap()) & (u64::MAX >> 1) == 0),
        I8 | I32 => e.iter().all(|&b| b == 0),
    }
}

/// Element (i, j) of a dense matrix, counted in elements.
fn offset(d: &DnMat, i: usize, j: usize) -> usize {
    match d.order {
        Order::Row => i * d.ld as usize + j,
        Order::Col => i + j * d.ld as usize,
    }
}

/// # Safety
/// The descriptors must describe host memory of their declared sizes.
pub unsafe fn sparse_to_dense(args: &SparseToDenseArgs) -> Result<()> {
    let (a, b) = (args.a, args.b);
    let (rows, cols, nnz, e) = (a.rows as usize, a.cols as usize, a.nnz as usize, a.value_type.size());
    // SAFETY (this function): the caller's sizes; every position is checked inside B.
    let bv = unsafe { user_array::<u8>(b.values, b.span() * e, "matB")? };
    let av = unsafe { user_slice::<u8>(a.values, nnz * e, "matA")? };
    let positions = with_index_type!(a.indices_type, I => unsafe { positions::<I>(a, "matA") })?;
    for i in 0..rows {
        for j in 0..cols {
            unsafe { std::ptr::write_bytes(bv.add(offset(b, i, j) * e), 0, e) };
        }
    }
    for (p, (i, j)) in positions.into_iter().enumerate() {
        unsafe { std::ptr::copy_nonoverlapping(av.as_ptr().add(p * e), bv.add(offset(b, i, j) * e), e) };
    }
    Ok(())
}

/// A's entries as zero-based (row, column) in storage order, every index checked.
///
/// # Safety
/// A's arrays must be host memory of the sizes it declares.
unsafe fn positions<I: Index>(a: &crate::descr::SpMat, what: &str) -> Result<Vec<(usize, usize)>> {
    let (rows, cols, nnz, base) = (a.rows as usize, a.cols as usize, a.nnz as usize, a.base.offset());
    let zb = |v: I| (v.to_i64() - base) as usize;
    // SAFETY (user_slice): the caller's sizes.
    match a.pattern {
        SparsePattern::Coo { row_ind, col_ind } => {
            let (ri, ci): (&[I], &[I]) = unsafe { (user_slice(row_ind, nnz, what)?, user_slice(col_ind, nnz, what)?) };
            check_indices(ri, rows, base, what)?;
            check_indices(ci, cols, base, what)?;
            Ok(ri.iter().zip(ci).map(|(&r, &c)| (zb(r), zb(c))).collect())
        }
        SparsePattern::Csr { row_offsets: offsets, col_ind: idx }
        | SparsePattern::Csc { col_offsets: offsets, row_ind: idx } => {
            let csc = matches!(a.pattern, SparsePattern::Csc { .. });
            let (major, minor) = if csc { (cols, rows) } else { (rows, cols) };
            let ptr: &[I] = unsafe { user_slice(offsets, if major > 0 { major + 1 } else { 0 }, what)? };
            let idx: &[I] = unsafe { user_slice(idx, nnz, what)? };
            check_compressed(ptr, idx, minor, base, what)?;
            let mut out = Vec::with_capacity(nnz);
            for line in 0..major {
                for &k in &idx[zb(ptr[line])..zb(ptr[line + 1])] {
                    out.push(if csc { (zb(k), line) } else { (line, zb(k)) });
                }
            }
            Ok(out)
        }
        _ => Err(a.unsupported("SparseToDense")),
    }
}

/// B's lines (rows for CSR and COO, columns for CSC) and their length, and A's element
/// (line, k) as (row, column).
fn lines(args: &DenseToSparseArgs) -> (usize, usize, bool) {
    let (rows, cols) = (args.b.rows as usize, args.b.cols as usize);
    match args.b.pattern {
        SparsePattern::Csc { .. } => (cols, rows, true),
        _ => (rows, cols, false),
    }
}

/// A nonzero element of A: its line and place in B's order, and its offset in A (elements).
struct Nonzero {
    line: usize,
    k: usize,
    at: usize,
}

/// A's bytes and its nonzero elements in B's order.
///
/// # Safety
/// A must describe host memory of its declared span.
unsafe fn nonzeros<'a>(args: &'a DenseToSparseArgs) -> Result<(&'a [u8], Vec<Nonzero>)> {
    let (a, e) = (args.a, args.a.value_type.size());
    // SAFETY: the caller's span.
    let av = unsafe { user_slice::<u8>(a.values, a.span() * e, "matA")? };
    let (n_lines, len, csc) = lines(args);
    let mut out = Vec::new();
    for line in 0..n_lines {
        for k in 0..len {
            let at = if csc { offset(a, k, line) } else { offset(a, line, k) };
            if !is_zero(&av[at * e..][..e], a.value_type) {
                out.push(Nonzero { line, k, at });
            }
        }
    }
    Ok((av, out))
}

/// # Safety
/// The descriptors must describe host memory of their declared sizes.
pub unsafe fn dense_to_sparse_analysis(args: &DenseToSparseArgs) -> Result<i64> {
    let b = args.b;
    if let SparsePattern::BlockedEll { .. } = b.pattern {
        // The caller's block columns fix the pattern: nothing to count.
        return Ok(b.nnz);
    }
    // SAFETY: forwarded.
    let (_, found) = unsafe { nonzeros(args)? };
    let (nnz, base) = (found.len() as i64, b.base.offset());
    if nnz + base > b.offsets_type.max_value() {
        return Err(Error::invalid("matB", format!("cannot hold nnz = {nnz} in its index type")));
    }
    let offsets = match b.pattern {
        SparsePattern::Csr { row_offsets, .. } => row_offsets,
        SparsePattern::Csc { col_offsets, .. } => col_offsets,
        SparsePattern::Coo { .. } => return Ok(nnz),
        _ => return Err(b.unsupported("DenseToSparse")),
    };
    let (n_lines, _, _) = lines(args);
    if n_lines == 0 {
        return Ok(nnz);
    }
    with_index_type!(b.offsets_type, I => {
        // SAFETY: B's offsets hold lines + 1 elements (the caller's contract).
        let ptr = unsafe { user_array::<I>(offsets, n_lines + 1, "matB")? };
        let mut next = 0;
        for line in 0..=n_lines {
            while next < found.len() && found[next].line < line {
                next += 1;
            }
            unsafe { *ptr.add(line) = I::from_i64(next as i64 + base) };
        }
        Ok(())
    })?;
    Ok(nnz)
}

/// # Safety
/// The descriptors must describe host memory of their declared sizes.
pub unsafe fn dense_to_sparse_convert(args: &DenseToSparseArgs) -> Result<()> {
    let b = args.b;
    if let SparsePattern::BlockedEll { col_ind, block, ell_cols } = b.pattern {
        // SAFETY: forwarded.
        return with_index_type!(b.indices_type, I => unsafe {
            dense_to_blocked_ell::<I>(args, col_ind, block as usize, ell_cols as usize)
        });
    }
    // SAFETY (this function): the caller's sizes; nothing is written unless A has B's nnz.
    let (av, found) = unsafe { nonzeros(args)? };
    if found.len() as i64 != b.nnz {
        return Err(Error::invalid(
            "matA",
            format!("has {} nonzero elements but matB's nnz is {} (A changed since the analysis?)", found.len(), b.nnz),
        ));
    }
    let (nnz, e, base) = (found.len(), b.value_type.size(), b.base.offset());
    let (major, minor) = match b.pattern {
        SparsePattern::Csr { col_ind, .. } => (std::ptr::null_mut(), col_ind),
        SparsePattern::Csc { row_ind, .. } => (std::ptr::null_mut(), row_ind),
        SparsePattern::Coo { row_ind, col_ind } => (row_ind, col_ind),
        _ => return Err(b.unsupported("DenseToSparse")),
    };
    let bv = unsafe { user_array::<u8>(b.values, nnz * e, "matB")? };
    with_index_type!(b.indices_type, I => {
        let minor = unsafe { user_array::<I>(minor, nnz, "matB")? };
        let major = if major.is_null() { None } else { Some(unsafe { user_array::<I>(major, nnz, "matB")? }) };
        for (p, &Nonzero { line, k, at }) in found.iter().enumerate() {
            unsafe {
                *minor.add(p) = I::from_i64(k as i64 + base);
                if let Some(major) = major {
                    *major.add(p) = I::from_i64(line as i64 + base);
                }
                std::ptr::copy_nonoverlapping(av.as_ptr().add(at * e), bv.add(p * e), e);
            }
        }
        Ok(())
    })
}

/// A's elements under Blocked-ELL B's blocks (the caller set the block columns), zero in
/// padding slots (block column -1).
///
/// # Safety
/// As for [`dense_to_sparse_convert`].
unsafe fn dense_to_blocked_ell<I: Index>(
    args: &DenseToSparseArgs,
    col_ind: *mut std::ffi::c_void,
    block: usize,
    ell_cols: usize,
) -> Result<()> {
    let (a, b) = (args.a, args.b);
    let (rows, e, base, kb) = (b.rows as usize, b.value_type.size(), b.base.offset(), b.cols / block as i64);
    let slots = ell_cols / block;
    // SAFETY (this function): the caller's sizes; every position is inside A's span.
    let columns: &[I] = unsafe { user_slice(col_ind, rows / block * slots, "ellColInd")? };
    let av = unsafe { user_slice::<u8>(a.values, a.span() * e, "matA")? };
    let bv = unsafe { user_array::<u8>(b.values, rows * ell_cols * e, "matB")? };
    let block_cols = super::ell::block_columns(columns, base, kb, "matB")?;
    for i in 0..rows {
        for (s, bc) in block_cols[i / block * slots..][..slots].iter().enumerate() {
            for j in 0..block {
                // SAFETY: inside B's values and A's span.
                let dst = unsafe { bv.add((i * ell_cols + s * block + j) * e) };
                match bc {
                    Some(bc) => unsafe {
                        std::ptr::copy_nonoverlapping(av.as_ptr().add(offset(a, i, bc * block + j) * e), dst, e)
                    },
                    None => unsafe { std::ptr::write_bytes(dst, 0, e) },
                }
            }
        }
    }
    Ok(())
}
