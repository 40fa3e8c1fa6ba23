//! Host conversions.

use super::spgemm::aligned;
use super::views::user_slice;
use crate::error::Result;

/// CSR → CSC with 32-bit indices: a stable counting sort by column, so row indices come out
/// sorted within each column. Values are moved as opaque elements of `elem_size` bytes.
///
/// # Safety
/// The arrays must be host memory of the sizes given.
pub unsafe fn csr2csc(args: &crate::backend::Csr2CscArgs, elem_size: usize) -> Result<()> {
    let (m, n, nnz) = (args.m as usize, args.n as usize, args.nnz as usize);
    let base = args.base.offset();
    // SAFETY: forwarded from the caller.
    let row_ptr: &[i32] = unsafe { user_slice(args.csr_row_ptr as *const _, m + 1, "csrRowPtr")? };
    let col_ind: &[i32] = unsafe { user_slice(args.csr_col_ind as *const _, nnz, "csrColInd")? };
    let view = super::views::CsrView::<i32, f32> {
        rows: m,
        cols: n,
        ptr: std::borrow::Cow::Borrowed(row_ptr),
        idx: std::borrow::Cow::Borrowed(col_ind),
        val: std::borrow::Cow::Owned(Vec::new()),
        base,
    };
    super::views::check_compressed(row_ptr, col_ind, n, base, "csrRowPtr/csrColInd")?;
    let col_ptr = aligned::<i32>(args.csc_col_ptr as *mut _, "cscColPtr")?;
    // SAFETY: cscColPtr has n+1 entries.
    let col_ptr = unsafe { std::slice::from_raw_parts_mut(col_ptr, n + 1) };
    col_ptr.iter_mut().for_each(|c| *c = 0);
    for p in 0..nnz {
        col_ptr[view.col(p) + 1] += 1;
    }
    for j in 0..n {
        col_ptr[j + 1] += col_ptr[j];
    }
    let mut next: Vec<usize> = col_ptr[..n].iter().map(|&c| c as usize).collect();
    let move_values = args.action == crate::types::Action::Numeric && nnz > 0;
    let (src_val, dst_val) = if move_values {
        // SAFETY: values hold nnz elements of elem_size bytes.
        unsafe {
            (
                user_slice::<u8>(args.csr_val, nnz * elem_size, "csrVal")?,
                std::slice::from_raw_parts_mut(aligned::<u8>(args.csc_val, "cscVal")?, nnz * elem_size),
            )
        }
    } else {
        (&[][..], &mut [][..])
    };
    let row_ind = if nnz > 0 {
        // SAFETY: cscRowInd has nnz entries.
        unsafe { std::slice::from_raw_parts_mut(aligned::<i32>(args.csc_row_ind as *mut _, "cscRowInd")?, nnz) }
    } else {
        &mut [][..]
    };
    for i in 0..m {
        for p in view.row_range(i) {
            let slot = &mut next[view.col(p)];
            row_ind[*slot] = i as i32 + base as i32;
            if move_values {
                dst_val[*slot * elem_size..(*slot + 1) * elem_size]
                    .copy_from_slice(&src_val[p * elem_size..(p + 1) * elem_size]);
            }
            *slot += 1;
        }
    }
    col_ptr.iter_mut().for_each(|c| *c += base as i32);
    Ok(())
}
