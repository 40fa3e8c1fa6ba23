//! The two ELL formats on the host, checking what they read.
//!
//! Blocked-ELL SpMM (`C = alpha A op(B) + beta C`, op(A) = A): each element of C sums its block
//! row's slots in order, each block's columns in order, one rounding per product and addition
//! in the compute type, as the CUDA backend's thread-per-element kernel does (its tensor-core
//! kernel sums in another order). Sliced-ELL: CSR of A with each row's entries in slot order,
//! which the CSR reference then multiplies (either op(A)).

use std::ffi::c_void;

use super::elem::{Elem, Index, Real};
use super::products::read_scalar;
use super::views::{strided_span, user_array, user_slice, write_scaled};
use crate::backend::BlockedEllProductArgs;
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::plan::PlanSlot;
use crate::{with_index_type, with_precision};

/// The slot value that marks padding in both ELL formats.
const PADDING: i64 = -1;

/// Blocked-ELL block columns, zero-based; `None` for padding; an error naming `what` for any
/// other value outside `[base, kb + base)`.
pub fn block_columns<I: Index>(columns: &[I], base: i64, kb: i64, what: &str) -> Result<Vec<Option<usize>>> {
    columns
        .iter()
        .map(|c| match c.to_i64() {
            PADDING => Ok(None),
            c if c >= base && c < kb + base => Ok(Some((c - base) as usize)),
            c => Err(Error::invalid(
                what,
                format!("has block column {c} outside [{base}, {}) (and not the padding -1)", kb + base),
            )),
        })
        .collect()
}

/// # Safety
/// The arrays are host memory of the sizes the request names.
pub unsafe fn blocked_ell_product(args: &BlockedEllProductArgs) -> Result<()> {
    // SAFETY: forwarded.
    with_index_type!(args.a.index_type, I => with_precision!(args.precision, In, Out, T => unsafe {
        blocked_ell_typed::<I, In, Out, T>(args)
    }))
}

unsafe fn blocked_ell_typed<I: Index, In: Elem, Out: Elem, T: Real>(args: &BlockedEllProductArgs) -> Result<()> {
    let a = &args.a;
    let (b, base, m, n) = (a.block as usize, a.base, a.rows as usize, args.n as usize);
    let (k, slots) = (a.kb as usize * b, (a.ell_cols / a.block) as usize);
    // SAFETY (this function): the caller's sizes.
    let columns: &[I] = unsafe { user_slice(a.columns, m / b * slots, "ellColInd")? };
    let block_cols = block_columns(columns, base, a.kb, "ellColInd")?;
    let values: &[In] = unsafe { user_slice(a.values, m * a.ell_cols as usize, "ellValue")? };
    let (bs, cs) = (&args.b, &args.c);
    let dense_b: &[In] = unsafe { user_slice(bs.ptr, strided_span(k, n, bs.rs, bs.cs), "B")? };
    let dense_c = unsafe { user_array::<Out>(cs.ptr, strided_span(m, n, cs.rs, cs.cs), "C")? };
    let (alpha, beta) = unsafe { (read_scalar::<T>(args.alpha, "alpha")?, read_scalar::<T>(args.beta, "beta")?) };
    let b_at = |row: usize, col: usize| T::load(dense_b[(row as i64 * bs.rs + col as i64 * bs.cs) as usize]);
    for col in 0..n {
        for i in 0..m {
            let row = &values[i * a.ell_cols as usize..][..a.ell_cols as usize];
            let mut acc = T::ZERO;
            for (s, bc) in block_cols[i / b * slots..][..slots].iter().enumerate() {
                let Some(bc) = bc else { continue };
                for j in 0..b {
                    acc += T::load(row[s * b + j]) * b_at(bc * b + j, col);
                }
            }
            // SAFETY: the element is inside C's span.
            unsafe { write_scaled(dense_c, (i as i64 * cs.rs + col as i64 * cs.cs) as usize, alpha, beta, acc) };
        }
    }
    Ok(())
}

/// CSR of a Sliced-ELL matrix, in host memory the result owns.
pub struct SellAsCsr {
    offsets: Vec<u64>,
    columns: Vec<u64>,
    values: Vec<u64>,
}

impl SellAsCsr {
    /// A CSR descriptor over these arrays, shaped and typed as `a` (zero-based).
    pub fn descriptor(&mut self, a: &SpMat) -> SpMat {
        SpMat {
            pattern: SparsePattern::Csr {
                row_offsets: self.offsets.as_mut_ptr() as *mut c_void,
                col_ind: self.columns.as_mut_ptr() as *mut c_void,
            },
            values: self.values.as_mut_ptr() as *mut c_void,
            base: crate::types::IndexBase::Zero,
            plans: std::sync::Arc::new(PlanSlot::default()),
            ..a.clone()
        }
    }
}

/// The entries of a Sliced-ELL matrix as CSR: each row's non-padding slots in slot order.
///
/// # Safety
/// A's arrays are host memory of the sizes its descriptor names.
pub unsafe fn sell_as_csr(a: &SpMat) -> Result<SellAsCsr> {
    // SAFETY: forwarded.
    with_index_type!(a.indices_type, I => unsafe { sell_as_csr_typed::<I>(a) })
}

/// The bytes of `v` in 8-byte words (aligned for every index and value type).
fn words_of<T: Copy>(v: &[T]) -> Vec<u64> {
    let bytes = std::mem::size_of_val(v);
    let mut out = vec![0u64; bytes.div_ceil(8)];
    // SAFETY: `out` holds at least `bytes` bytes; the two do not overlap.
    unsafe { std::ptr::copy_nonoverlapping(v.as_ptr() as *const u8, out.as_mut_ptr() as *mut u8, bytes) };
    out
}

unsafe fn sell_as_csr_typed<I: Index>(a: &SpMat) -> Result<SellAsCsr> {
    let SparsePattern::SlicedEll { slice_offsets, col_ind, slice_size, values_size } = a.pattern else {
        return Err(Error::internal("sell_as_csr needs a Sliced-ELL matrix"));
    };
    let (rows, s, base) = (a.rows as usize, slice_size as usize, a.base.offset());
    let slices = rows.div_ceil(s);
    // SAFETY (this function): the descriptor's sizes.
    let offsets: &[I] =
        unsafe { user_slice(slice_offsets, if rows > 0 { slices + 1 } else { 0 }, "sellSliceOffsets")? };
    let columns: &[I] = unsafe { user_slice(col_ind, values_size as usize, "sellColInd")? };
    let elem = a.value_type.size();
    let values: &[u8] = unsafe { user_slice(a.values, values_size as usize * elem, "sellValues")? };
    let mut ptr = vec![I::from_i64(0)];
    let (mut col, mut val) = (Vec::with_capacity(a.nnz as usize), Vec::with_capacity(a.nnz as usize * elem));
    for slice in 0..slices {
        let (first, last) = (offsets[slice].to_i64() - base, offsets[slice + 1].to_i64() - base);
        if first < 0 || last < first || last > values_size || (last - first) % slice_size != 0 {
            return Err(Error::invalid(
                "sellSliceOffsets",
                format!(
                    "slice {slice} spans [{first}, {last}) (zero-based): not a multiple of sliceSize {s} \
                     inside the {values_size} slots"
                ),
            ));
        }
        let width = (last - first) as usize / s;
        for local in 0..s.min(rows - slice * s) {
            for j in 0..width {
                let slot = first as usize + j * s + local;
                match columns[slot].to_i64() {
                    PADDING => continue,
                    c if c >= base && c < a.cols + base => col.push(I::from_i64(c - base)),
                    c => {
                        return Err(Error::invalid(
                            "sellColInd",
                            format!(
                                "has column {c} at slot {slot}, outside [{base}, {}) (and not the padding -1)",
                                a.cols + base
                            ),
                        ))
                    }
                }
                val.extend_from_slice(&values[slot * elem..][..elem]);
            }
            ptr.push(I::from_i64(col.len() as i64));
        }
    }
    if col.len() as i64 != a.nnz {
        return Err(Error::invalid("nnz", format!("is {} but the slots hold {} entries", a.nnz, col.len())));
    }
    Ok(SellAsCsr { offsets: words_of(&ptr), columns: words_of(&col), values: words_of(&val) })
}
