//! Products with a BSR matrix on the host, checking what they read: `C = alpha A op(B) +
//! beta C` (the legacy `bsrmm`/`bsrmv`, and SpMM/SpMV on BSR descriptors). Each element of C
//! sums its block row's blocks in storage order, each block's columns in order, one rounding
//! per product and per addition in the compute type, as kernels/spmm/bsr.cu does (the backends
//! agree bit for bit).

use super::elem::{Elem, Index, Real};
use super::products::read_scalar;
use super::views::{check_offsets, strided_span, user_array, user_slice, write_scaled};
use crate::backend::BsrProductArgs;
use crate::error::{Error, Result};
use crate::{with_index_type, with_precision};

/// # Safety
/// The arrays are host memory of the sizes the request names.
pub unsafe fn product(args: &BsrProductArgs) -> Result<()> {
    // SAFETY: forwarded.
    with_index_type!(args.a.index_type, I => with_precision!(args.precision, In, Out, T => unsafe {
        product_typed::<I, In, Out, T>(args)
    }))
}

unsafe fn product_typed<I: Index, In: Elem, Out: Elem, T: Real>(args: &BsrProductArgs) -> Result<()> {
    let a = &args.a;
    let (b, base) = (a.block as usize, a.base);
    let (m, k, n) = (a.mb as usize * b, a.kb as usize * b, args.n as usize);
    // SAFETY (this function): the caller's sizes.
    let offsets: &[I] =
        unsafe { user_slice(a.offsets, if a.mb > 0 { a.mb as usize + 1 } else { 0 }, "bsrSortedRowPtrA")? };
    check_offsets(offsets, a.nnzb, base, "bsrSortedRowPtrA")?;
    let columns: &[I] = unsafe { user_slice(a.columns, a.nnzb as usize, "bsrSortedColIndA")? };
    if let Some(c) = columns.iter().map(|c| c.to_i64()).find(|&c| c < base || c >= a.kb + base) {
        return Err(Error::invalid(
            "bsrSortedColIndA",
            format!("has block column {c} outside [{base}, {})", a.kb + base),
        ));
    }
    let values: &[In] = unsafe { user_slice(a.values, a.nnzb as usize * b * b, "bsrSortedValA")? };
    let (bs, cs) = (&args.b, &args.c);
    let dense_b: &[In] = unsafe { user_slice(bs.ptr, strided_span(k, n, bs.rs, bs.cs), "B")? };
    let dense_c = unsafe { user_array::<Out>(cs.ptr, strided_span(m, n, cs.rs, cs.cs), "C")? };
    let (alpha, beta) = unsafe { (read_scalar::<T>(args.alpha, "alpha")?, read_scalar::<T>(args.beta, "beta")?) };
    let block_value = |blk: usize, i: usize, j: usize| {
        T::load(values[blk * b * b + if a.column_major_blocks { j * b + i } else { i * b + j }])
    };
    let b_at = |row: usize, col: usize| T::load(dense_b[(row as i64 * bs.rs + col as i64 * bs.cs) as usize]);
    for col in 0..n {
        for i in 0..m {
            let (r, ii) = (i / b, i % b);
            let blocks = (offsets[r].to_i64() - base) as usize..(offsets[r + 1].to_i64() - base) as usize;
            let mut acc = T::ZERO;
            for (blk, column) in blocks.clone().zip(&columns[blocks]) {
                let bc = (column.to_i64() - base) as usize;
                for j in 0..b {
                    acc += block_value(blk, ii, j) * b_at(bc * b + j, col);
                }
            }
            // SAFETY: the element is inside C's span.
            unsafe { write_scaled(dense_c, (i as i64 * cs.rs + col as i64 * cs.cs) as usize, alpha, beta, acc) };
        }
    }
    Ok(())
}
