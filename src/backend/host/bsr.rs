//! The legacy BSR products on the host, checking what they read: `C = alpha A op(B) + beta C`
//! (`bsrmv` is n = 1). Each element of C sums A's blocks of its block row in storage order,
//! each block's columns in order, one rounding per product and per addition, as
//! kernels/spmm/bsr.cu does (the backends agree bit for bit).

use super::elem::Real;
use super::products::read_scalar;
use super::views::{user_array, user_slice};
use crate::backend::BsrProductArgs;
use crate::error::{Error, Result};
use crate::types::DataType;

/// # Safety
/// The arrays are host memory of the sizes the request names.
pub unsafe fn product(args: &BsrProductArgs) -> Result<()> {
    // SAFETY: forwarded.
    match args.value_type {
        DataType::F64 => unsafe { product_typed::<f64>(args) },
        _ => unsafe { product_typed::<f32>(args) },
    }
}

unsafe fn product_typed<T: Real>(args: &BsrProductArgs) -> Result<()> {
    let a = &args.a;
    let (b, base) = (a.block as usize, a.base);
    let (m, k, n) = (a.mb as usize * b, a.kb as usize * b, args.n as usize);
    // SAFETY (this function): the caller's sizes.
    let offsets: &[i32] =
        unsafe { user_slice(a.offsets.cast(), if a.mb > 0 { a.mb as usize + 1 } else { 0 }, "bsrSortedRowPtrA")? };
    if let (Some(&first), Some(&last)) = (offsets.first(), offsets.last()) {
        if first as i64 != base || last as i64 != a.nnzb + base {
            return Err(Error::invalid(
                "bsrSortedRowPtrA",
                format!("runs from {first} to {last}, not from {base} to nnzb + base = {}", a.nnzb + base),
            ));
        }
        if let Some(r) = offsets.windows(2).position(|w| w[1] < w[0]) {
            return Err(Error::invalid("bsrSortedRowPtrA", format!("decreases after block row {r}")));
        }
    }
    let columns: &[i32] = unsafe { user_slice(a.columns.cast(), a.nnzb as usize, "bsrSortedColIndA")? };
    if let Some(c) = columns.iter().find(|&&c| (c as i64) < base || c as i64 >= a.kb + base) {
        return Err(Error::invalid(
            "bsrSortedColIndA",
            format!("has block column {c} outside [{base}, {})", a.kb + base),
        ));
    }
    let values: &[T] = unsafe { user_slice(a.values, a.nnzb as usize * b * b, "bsrSortedValA")? };
    let (b_rows, b_cols) = if args.b_transposed { (n, k) } else { (k, n) };
    let ldb = args.ldb as usize;
    let b_len = if b_rows * b_cols == 0 { 0 } else { (b_cols - 1) * ldb + b_rows };
    let dense_b: &[T] = unsafe { user_slice(args.b, b_len, "B")? };
    let ldc = args.ldc as usize;
    let c_len = if m * n == 0 { 0 } else { (n - 1) * ldc + m };
    let dense_c = unsafe { user_array::<T>(args.c, c_len, "C")? };
    let (alpha, beta) = unsafe { (read_scalar::<T>(args.alpha, "alpha")?, read_scalar::<T>(args.beta, "beta")?) };
    let block_value = |blk: usize, i: usize, j: usize| {
        values[blk * b * b + if a.column_major_blocks { j * b + i } else { i * b + j }]
    };
    let b_at =
        |row: usize, col: usize| if args.b_transposed { dense_b[col + row * ldb] } else { dense_b[row + col * ldb] };
    for col in 0..n {
        for i in 0..m {
            let (r, ii) = (i / b, i % b);
            let mut acc = T::ZERO;
            let blocks = (offsets[r] as i64 - base) as usize..(offsets[r + 1] as i64 - base) as usize;
            for (blk, &column) in blocks.clone().zip(&columns[blocks]) {
                let bc = (column as i64 - base) as usize;
                for j in 0..b {
                    acc += block_value(blk, ii, j) * b_at(bc * b + j, col);
                }
            }
            let at = i + col * ldc;
            let mut out = alpha * acc;
            if beta != T::ZERO {
                // SAFETY: `at` < c_len.
                out += beta * unsafe { *dense_c.add(at) };
            }
            unsafe { *dense_c.add(at) = out };
        }
    }
    Ok(())
}
