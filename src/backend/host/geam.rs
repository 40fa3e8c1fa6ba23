//! `C = alpha A + beta B` on the host (`spblkXcsrgeam2Nnz`, `spblk{S,D}csrgeam2`), checking
//! what it reads: offsets from the base to nnz + base, columns in range and ascending within
//! each row (repeats allowed: they sum into one entry). Everything is checked before anything
//! is written. Each entry of C is the sum, in order, of alpha a over A's entries at its column
//! and then beta b over B's, each product rounded and added (kernels/geam/merge.cu does the
//! same, so the two backends agree bit for bit).

use std::ops::Range;

use super::elem::Real;
use super::products::read_scalar;
use super::views::{check_offsets, user_array, user_slice};
use crate::backend::{GeamArgs, GeamOperand, GeamValues};
use crate::error::{Error, Result};
use crate::types::DataType;

/// A checked CSR operand: `offsets` as stored (with `base`), columns as stored.
struct Rows<'a> {
    offsets: &'a [i32],
    columns: &'a [i32],
    base: i64,
}

impl Rows<'_> {
    fn row(&self, i: usize) -> Range<usize> {
        (self.offsets[i] as i64 - self.base) as usize..(self.offsets[i + 1] as i64 - self.base) as usize
    }
}

/// # Safety
/// The operand's arrays are host memory of the sizes it names.
unsafe fn rows<'a>(op: &GeamOperand, m: i64, n: i64, name: &str) -> Result<Rows<'a>> {
    if m == 0 {
        if op.nnz > 0 {
            return Err(Error::invalid(&format!("nnz{name}"), format!("is {} but m = 0", op.nnz)));
        }
        return Ok(Rows { offsets: &[], columns: &[], base: op.base });
    }
    // SAFETY (both): the caller's guarantee.
    let offsets: &[i32] = unsafe { user_slice(op.offsets.cast(), m as usize + 1, &format!("csrSortedRowPtr{name}"))? };
    check_offsets(offsets, op.nnz, op.base, &format!("csrSortedRowPtr{name}"))?;
    let col_name = format!("csrSortedColInd{name}");
    let columns: &[i32] = unsafe { user_slice(op.columns.cast(), op.nnz as usize, &col_name)? };
    let r = Rows { offsets, columns, base: op.base };
    for i in 0..m as usize {
        let cols = &columns[r.row(i)];
        if let Some(&c) = cols.iter().find(|&&c| (c as i64) < op.base || c as i64 >= n + op.base) {
            return Err(Error::invalid(
                &col_name,
                format!("has column {c} in row {i}, outside [{}, {})", op.base, n + op.base),
            ));
        }
        if cols.windows(2).any(|w| w[1] < w[0]) {
            return Err(Error::invalid(&col_name, format!("is not ascending in row {i}")));
        }
    }
    Ok(r)
}

/// Walks the union of row `i` of A and of B, calling `f(column, A's run, B's run)` once per
/// distinct column (from 0), in ascending order.
fn merge(a: &Rows, b: &Rows, i: usize, mut f: impl FnMut(i64, Range<usize>, Range<usize>)) {
    let (ra, rb) = (a.row(i), b.row(i));
    let (mut p, mut q) = (ra.start, rb.start);
    let col = |r: &Rows, k: usize| r.columns[k] as i64 - r.base;
    while p < ra.end || q < rb.end {
        let c = match (p < ra.end, q < rb.end) {
            (true, true) => col(a, p).min(col(b, q)),
            (true, false) => col(a, p),
            _ => col(b, q),
        };
        let (p0, q0) = (p, q);
        while p < ra.end && col(a, p) == c {
            p += 1;
        }
        while q < rb.end && col(b, q) == c {
            q += 1;
        }
        f(c, p0..p, q0..q);
    }
}

/// Entries of each row of C.
fn row_counts(args: &GeamArgs, a: &Rows, b: &Rows) -> Vec<i64> {
    (0..args.m as usize)
        .map(|i| {
            let mut k = 0;
            merge(a, b, i, |_, _, _| k += 1);
            k
        })
        .collect()
}

/// # Safety
/// The arrays are host memory of the sizes the request names; `c_total` is NULL or an `int`.
pub unsafe fn nnz(args: &GeamArgs) -> Result<()> {
    let total = args.c_total;
    // SAFETY (this function): the caller's guarantee.
    let (a, b) = unsafe { (rows(&args.a, args.m, args.n, "A")?, rows(&args.b, args.m, args.n, "B")?) };
    let counts = row_counts(args, &a, &b);
    let nnz: i64 = counts.iter().sum();
    if nnz + args.c_base > i32::MAX as i64 {
        return Err(Error::invalid("csrSortedRowPtrC", format!("cannot hold nnz(C) = {nnz} plus the base in an int")));
    }
    let out = unsafe { user_array::<i32>(args.c_offsets.cast(), args.m as usize + 1, "csrSortedRowPtrC")? };
    if !total.is_null() {
        unsafe { user_array::<i32>(total.cast(), 1, "nnzTotalDevHostPtr")? };
    }
    let mut at = args.c_base;
    for (i, k) in counts.iter().chain(std::iter::once(&0)).enumerate() {
        unsafe { *out.add(i) = at as i32 };
        at += k;
    }
    if !total.is_null() {
        unsafe { *total = nnz as i32 };
    }
    Ok(())
}

/// # Safety
/// As [`nnz`]; values of `values.value_type`.
pub unsafe fn fill(args: &GeamArgs, values: &GeamValues) -> Result<()> {
    // SAFETY: forwarded.
    match values.value_type {
        DataType::F64 => unsafe { fill_typed::<f64>(args, values) },
        _ => unsafe { fill_typed::<f32>(args, values) },
    }
}

unsafe fn fill_typed<T: Real>(args: &GeamArgs, values: &GeamValues) -> Result<()> {
    // SAFETY (this function): the caller's guarantee.
    let (a, b) = unsafe { (rows(&args.a, args.m, args.n, "A")?, rows(&args.b, args.m, args.n, "B")?) };
    let (alpha, beta) = unsafe { (read_scalar::<T>(values.alpha, "alpha")?, read_scalar::<T>(values.beta, "beta")?) };
    let m = args.m as usize;
    let counts = row_counts(args, &a, &b);
    let c_offsets: &[i32] =
        unsafe { user_slice(args.c_offsets.cast(), if m > 0 { m + 1 } else { 0 }, "csrSortedRowPtrC")? };
    let nnz: i64 = counts.iter().sum();
    if m > 0 {
        check_offsets(c_offsets, nnz, args.c_base, "csrSortedRowPtrC")?;
        if let Some(i) = (0..m).find(|&i| (c_offsets[i + 1] - c_offsets[i]) as i64 != counts[i]) {
            return Err(Error::invalid(
                "csrSortedRowPtrC",
                format!(
                    "gives row {i} room for {} entries; A and B have {} distinct columns there",
                    c_offsets[i + 1] - c_offsets[i],
                    counts[i]
                ),
            ));
        }
    }
    let a_val: &[T] = unsafe { user_slice(args.a.values, args.a.nnz as usize, "csrSortedValA")? };
    let b_val: &[T] = unsafe { user_slice(args.b.values, args.b.nnz as usize, "csrSortedValB")? };
    let cols = unsafe { user_array::<i32>(args.c_columns.cast(), nnz as usize, "csrSortedColIndC")? };
    let vals = unsafe { user_array::<T>(args.c_values, nnz as usize, "csrSortedValC")? };
    let mut k = 0usize;
    for i in 0..m {
        merge(&a, &b, i, |c, ra, rb| {
            let mut s = T::ZERO;
            for p in ra {
                s += alpha * a_val[p];
            }
            for q in rb {
                s += beta * b_val[q];
            }
            unsafe {
                *cols.add(k) = (c + args.c_base) as i32;
                *vals.add(k) = s;
            }
            k += 1;
        });
    }
    Ok(())
}
