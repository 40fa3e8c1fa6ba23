//! The legacy index-array helpers on the host, checking what they read.

use super::views::{check_offsets, user_array, user_slice};
use crate::backend::{IndexArrays, SortArgs, SortLines};
use crate::error::{Error, Result};

/// # Safety
/// The arrays must be host memory of the sizes the request names.
pub unsafe fn run(op: &IndexArrays) -> Result<()> {
    // SAFETY (this function): the caller's sizes; every write is inside them.
    match *op {
        IndexArrays::Identity { n, p } => {
            let p = unsafe { user_array::<i32>(p.cast(), n as usize, "p")? };
            for i in 0..n as usize {
                unsafe { *p.add(i) = i as i32 };
            }
        }
        IndexArrays::CsrToCoo { m, nnz, offsets, rows, base } => {
            let ptr: &[i32] =
                unsafe { user_slice(offsets.cast(), if m > 0 { m as usize + 1 } else { 0 }, "csrSortedRowPtr")? };
            check_offsets(ptr, nnz, base, "csrSortedRowPtr")?;
            if ptr.is_empty() && nnz > 0 {
                return Err(Error::invalid("csrSortedRowPtr", format!("describes no rows (m = 0) but nnz = {nnz}")));
            }
            let rows = unsafe { user_array::<i32>(rows.cast(), nnz as usize, "cooRowInd")? };
            for (i, w) in ptr.windows(2).enumerate() {
                for k in (w[0] as i64 - base) as usize..(w[1] as i64 - base) as usize {
                    unsafe { *rows.add(k) = (i as i64 + base) as i32 };
                }
            }
        }
        IndexArrays::CooToCsr { m, nnz, rows, offsets, base } => {
            let rows: &[i32] = unsafe { user_slice(rows.cast(), nnz as usize, "cooRowInd")? };
            if let Some(r) = rows.iter().find(|&&r| (r as i64) < base || r as i64 >= m + base) {
                return Err(Error::invalid("cooRowInd", format!("has row {r} outside [{base}, {})", m + base)));
            }
            if rows.windows(2).any(|w| w[1] < w[0]) {
                return Err(Error::invalid("cooRowInd", "is not sorted by row"));
            }
            let ptr = unsafe { user_array::<i32>(offsets.cast(), m as usize + 1, "csrSortedRowPtr")? };
            let mut next = 0usize;
            for i in 0..=m {
                while next < rows.len() && (rows[next] as i64 - base) < i {
                    next += 1;
                }
                unsafe { *ptr.add(i as usize) = (next as i64 + base) as i32 };
            }
        }
    }
    Ok(())
}

/// The legacy sorts: every index checked, then one stable sort by (line, index).
///
/// # Safety
/// The arrays must be host memory of the sizes the request names.
pub unsafe fn sort(a: &SortArgs) -> Result<()> {
    let (nnz, base) = (a.nnz as usize, a.base);
    let (line_name, minor_name) = a.names;
    // SAFETY (this function): the caller's sizes; every write is inside them.
    let minor = unsafe { user_array::<i32>(a.minor.cast(), nnz, minor_name)? };
    let old_minor: Vec<i32> = (0..nnz).map(|k| unsafe { *minor.add(k) }).collect();
    // COO indices are compared as stored (either base): the bound is inclusive.
    let (minor_hi, major_hi) = match a.line_of {
        SortLines::Offsets(_) => (a.len, a.lines),
        SortLines::Indices(_) => (a.len + 1, a.lines + 1),
    };
    if let Some(v) = old_minor.iter().find(|&&v| v as i64 - base < 0 || v as i64 - base >= minor_hi) {
        return Err(Error::invalid(minor_name, format!("has index {v} outside [{base}, {})", minor_hi + base)));
    }
    let (line, major): (Vec<i64>, Option<*mut i32>) = match a.line_of {
        SortLines::Offsets(offsets) => {
            let n = if a.lines > 0 { a.lines as usize + 1 } else { 0 };
            let ptr: &[i32] = unsafe { user_slice(offsets.cast(), n, line_name)? };
            check_offsets(ptr, a.nnz, base, line_name)?;
            if n == 0 && nnz > 0 {
                return Err(Error::invalid(line_name, format!("describe no lines but nnz = {nnz}")));
            }
            let mut line = Vec::with_capacity(nnz);
            for (i, w) in ptr.windows(2).enumerate() {
                line.extend(std::iter::repeat_n(i as i64, (w[1] - w[0]) as usize));
            }
            (line, None)
        }
        SortLines::Indices(p) => {
            let p = unsafe { user_array::<i32>(p.cast(), nnz, line_name)? };
            let line: Vec<i64> = (0..nnz).map(|k| unsafe { *p.add(k) } as i64).collect();
            if let Some(v) = line.iter().find(|&&v| v < 0 || v >= major_hi) {
                return Err(Error::invalid(line_name, format!("has index {v} outside [0, {major_hi})")));
            }
            (line, Some(p))
        }
    };
    let mut order: Vec<usize> = (0..nnz).collect();
    order.sort_by_key(|&k| (line[k], old_minor[k]));
    for (k, &from) in order.iter().enumerate() {
        unsafe { *minor.add(k) = old_minor[from] };
        if let Some(p) = major {
            unsafe { *p.add(k) = line[from] as i32 };
        }
    }
    if !a.perm.is_null() {
        let perm = unsafe { user_array::<i32>(a.perm.cast(), nnz, "P")? };
        let old: Vec<i32> = (0..nnz).map(|k| unsafe { *perm.add(k) }).collect();
        for (k, &from) in order.iter().enumerate() {
            unsafe { *perm.add(k) = old[from] };
        }
    }
    Ok(())
}
