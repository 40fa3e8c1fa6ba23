//! Host SpGEMM: row-by-row expansion, stable sort by column and merge (ESC). The product is
//! kept in the SpGEMM descriptor between `compute` and `copy`.

use rayon::prelude::*;

use super::elem::{Elem, Index, Real};
use super::products::read_scalar;
use super::views::csr_of_op;
use crate::backend::{SpgemmArgs, SpgemmState};
use crate::descr::SparsePattern;
use crate::error::{Error, Result};
use crate::types::{DataType, Operation};
use crate::with_index_type;

/// C = alpha A B, zero-based, columns sorted within rows; values held exactly as f64
/// (every compute-type value converts to f64 without rounding).
pub struct HostProduct {
    pub row_ptr: Vec<i64>,
    pub col: Vec<i64>,
    pub val: Vec<f64>,
}

/// The product the descriptor holds since `compute` or `reuse_nnz`.
pub fn held(state: &SpgemmState) -> Result<&HostProduct> {
    state
        .data
        .as_ref()
        .and_then(|d| d.downcast_ref::<HostProduct>())
        .ok_or_else(|| Error::invalid("spgemmDescr", "holds no computed product (call spblkSpGEMM_compute first)"))
}

/// `num_products` for A's index and value types.
pub fn count_products(args: &SpgemmArgs) -> Result<i64> {
    let ity = args.a.uniform_index_type("matA")?;
    with_index_type!(ity, I => {
        // SAFETY (each arm): ops validated the descriptors; host memory.
        match args.a.value_type {
            DataType::F32 => unsafe { num_products::<I, f32>(args) },
            DataType::F64 => unsafe { num_products::<I, f64>(args) },
            DataType::F16 => unsafe { num_products::<I, half::f16>(args) },
            DataType::BF16 => unsafe { num_products::<I, half::bf16>(args) },
            v => Err(Error::not_supported(format!("SpGEMM with values {v:?}"))),
        }
    })
}

/// `compute` for the call's index, value and compute types.
pub fn product(args: &SpgemmArgs) -> Result<HostProduct> {
    let ity = args.a.uniform_index_type("matA")?;
    with_index_type!(ity, I => {
        // SAFETY (each arm): ops validated the descriptors; host memory.
        match (args.a.value_type, args.compute) {
            (DataType::F32, DataType::F32) => unsafe { compute::<I, f32, f32>(args) },
            (DataType::F64, DataType::F64) => unsafe { compute::<I, f64, f64>(args) },
            (DataType::F16, DataType::F32) => unsafe { compute::<I, half::f16, f32>(args) },
            (DataType::BF16, DataType::F32) => unsafe { compute::<I, half::bf16, f32>(args) },
            (v, c) => Err(Error::not_supported(format!("SpGEMM with values {v:?} and compute {c:?}"))),
        }
    })
}

/// `copy_out` for C's index type and the compute type.
pub fn write_c(args: &SpgemmArgs, product: &HostProduct, values: bool) -> Result<()> {
    let ity = args.c.uniform_index_type("matC")?;
    with_index_type!(ity, I => {
        // SAFETY (each arm): ops checked that C's arrays are present; host memory sized by
        // the caller.
        match args.compute {
            DataType::F32 => unsafe { copy_out::<I, f32>(args, product, values) },
            DataType::F64 => unsafe { copy_out::<I, f64>(args, product, values) },
            c => Err(Error::not_supported(format!("SpGEMM compute type {c:?}"))),
        }
    })
}

/// The scalar products of A·B: over A's entries, the length of the B row each one selects.
///
/// # Safety
/// A and B must describe host memory of their declared sizes.
pub unsafe fn num_products<I: Index, V: Elem>(args: &SpgemmArgs) -> Result<i64> {
    // SAFETY: forwarded from the caller.
    let a = unsafe { csr_of_op::<I, V>(args.a, Operation::NonTranspose, None, "matA")? };
    let b = unsafe { csr_of_op::<I, V>(args.b, Operation::NonTranspose, None, "matB")? };
    Ok((0..a.rows)
        .into_par_iter()
        .map(|i| a.row_range(i).map(|p| b.row_range(a.col(p)).len() as i64).sum::<i64>())
        .sum())
}

/// # Safety
/// A and B must describe host memory of their declared sizes.
pub unsafe fn compute<I: Index, V: Elem, T: Real>(args: &SpgemmArgs) -> Result<HostProduct> {
    // SAFETY: forwarded from the caller.
    let alpha = unsafe { read_scalar::<T>(args.alpha, "alpha")? };
    let a = unsafe { csr_of_op::<I, V>(args.a, Operation::NonTranspose, None, "matA")? };
    let b = unsafe { csr_of_op::<I, V>(args.b, Operation::NonTranspose, None, "matB")? };
    let rows: Vec<(Vec<i64>, Vec<f64>)> = (0..a.rows)
        .into_par_iter()
        .with_min_len(32)
        .map_init(Vec::new, |products: &mut Vec<(usize, T)>, i| {
            products.clear();
            for p in a.row_range(i) {
                let (k, av) = (a.col(p), T::load(a.val[p]));
                products.extend(b.row_range(k).map(|q| (b.col(q), av * T::load(b.val[q]))));
            }
            // Stable: equal columns are summed in expansion order, so results are reproducible.
            products.sort_by_key(|&(j, _)| j);
            let mut cols = Vec::new();
            let mut vals = Vec::new();
            let mut idx = 0;
            while idx < products.len() {
                let j = products[idx].0;
                let mut sum = T::ZERO;
                while idx < products.len() && products[idx].0 == j {
                    sum += products[idx].1;
                    idx += 1;
                }
                cols.push(j as i64);
                vals.push((alpha * sum).to_f64());
            }
            (cols, vals)
        })
        .collect();
    let mut row_ptr = Vec::with_capacity(a.rows + 1);
    row_ptr.push(0i64);
    for (c, _) in &rows {
        row_ptr.push(row_ptr.last().unwrap() + c.len() as i64);
    }
    let nnz = *row_ptr.last().unwrap() as usize;
    let mut col = Vec::with_capacity(nnz);
    let mut val = Vec::with_capacity(nnz);
    for (c, v) in rows {
        col.extend(c);
        val.extend(v);
    }
    Ok(HostProduct { row_ptr, col, val })
}

/// Writes the product into C's arrays in C's index type, base and value type; with beta ≠ 0
/// the values already in C (same structure) are scaled and added. Without `values`, only the
/// structure is written (the reuse path's copy).
///
/// # Safety
/// C's arrays must be host memory sized for `product`.
pub unsafe fn copy_out<I: Index, T: Real>(args: &SpgemmArgs, product: &HostProduct, values: bool) -> Result<()> {
    // SAFETY: forwarded from the caller.
    let beta = unsafe { read_scalar::<T>(args.beta, "beta")? };
    let c = args.c;
    let SparsePattern::Csr { row_offsets, col_ind } = c.pattern else {
        return Err(Error::not_supported("SpGEMM: matC must be in CSR format"));
    };
    let base = c.base.offset();
    let nnz = product.col.len();
    let write_idx = |dst: *mut std::ffi::c_void, src: &[i64], what: &str| -> Result<()> {
        if src.is_empty() {
            return Ok(());
        }
        // SAFETY: non-null and sized by the caller's allocation for nnz(C) (checked by ops).
        let out: &mut [I] = unsafe { std::slice::from_raw_parts_mut(aligned::<I>(dst, what)?, src.len()) };
        out.iter_mut().zip(src).for_each(|(o, &s)| *o = I::from_i64(s + base));
        Ok(())
    };
    write_idx(row_offsets, &product.row_ptr, "csrRowOffsets of matC")?;
    write_idx(col_ind, &product.col, "csrColInd of matC")?;
    if nnz == 0 || !values {
        return Ok(());
    }
    macro_rules! write_vals {
        ($V:ty) => {{
            let out: &mut [$V] =
                // SAFETY: as above.
                unsafe { std::slice::from_raw_parts_mut(aligned::<$V>(c.values, "values of matC")?, nnz) };
            for (o, &v) in out.iter_mut().zip(&product.val) {
                let v = T::from_f64(v);
                let r = if beta == T::ZERO { v } else { v + beta * T::load(*o) };
                *o = r.store::<$V>();
            }
        }};
    }
    match c.value_type {
        DataType::F32 => write_vals!(f32),
        DataType::F64 => write_vals!(f64),
        DataType::F16 => write_vals!(half::f16),
        DataType::BF16 => write_vals!(half::bf16),
        other => return Err(Error::not_supported(format!("SpGEMM output type {other:?}"))),
    }
    Ok(())
}

pub(super) fn aligned<T>(p: *mut std::ffi::c_void, what: &str) -> Result<*mut T> {
    if p.is_null() {
        return Err(Error::invalid(what, "is NULL"));
    }
    if (p as usize) % std::mem::align_of::<T>() != 0 {
        return Err(Error::invalid(what, format!("is not aligned to {} bytes", std::mem::align_of::<T>())));
    }
    Ok(p as *mut T)
}
