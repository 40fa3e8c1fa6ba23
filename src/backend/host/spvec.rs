//! Sparse-vector operations on the host: plain loops over X's entries (the reference).

use super::elem::{Elem, Index, Real};
use super::products::read_scalar;
use super::views::{user_array, user_slice};
use crate::backend::{SpvecArgs, SpvecUpdate, SpvvArgs};
use crate::descr::SpVec;
use crate::error::{Error, Result};
use crate::{with_index_type, with_precision};

/// X's positions in Y (zero-based), checked against Y's size; with `distinct`, each at most
/// once (the operations that write through them would otherwise depend on the order).
///
/// # Safety
/// X's indices must be host memory of nnz elements.
unsafe fn positions(x: &SpVec, distinct: bool) -> Result<Vec<usize>> {
    with_index_type!(x.index_type, I => {
        // SAFETY: forwarded.
        let idx: &[I] = unsafe { user_slice(x.indices, x.nnz as usize, "vecX")? };
        let (base, size) = (x.base.offset(), x.size);
        let mut seen = if distinct { vec![false; size as usize] } else { Vec::new() };
        idx.iter()
            .map(|i| {
                let p = i.to_i64() - base;
                if p < 0 || p >= size {
                    return Err(Error::invalid(
                        "vecX",
                        format!("has index {} outside [{base}, {})", i.to_i64(), size + base),
                    ));
                }
                if distinct {
                    if seen[p as usize] {
                        return Err(Error::invalid(
                            "vecX",
                            format!("has index {} twice (indices must be distinct)", i.to_i64()),
                        ));
                    }
                    seen[p as usize] = true;
                }
                Ok(p as usize)
            })
            .collect()
    })
}

/// # Safety
/// X and Y must describe host memory of their declared sizes.
pub unsafe fn update(args: &SpvecArgs) -> Result<()> {
    let (x, y) = (args.x, args.y);
    let distinct = !matches!(args.update, SpvecUpdate::Gather);
    // SAFETY (this function): the caller's sizes; every position is checked < Y's size.
    let pos = unsafe { positions(x, distinct)? };
    let (nnz, size) = (pos.len(), y.size as usize);
    match args.update {
        SpvecUpdate::Gather | SpvecUpdate::Scatter => {
            let e = x.value_type.size();
            let (xv, yv) = unsafe {
                (user_array::<u8>(x.values, nnz * e, "vecX")?, user_array::<u8>(y.values, size * e, "vecY")?)
            };
            for (k, &p) in pos.iter().enumerate() {
                let (xe, ye) = unsafe { (xv.add(k * e), yv.add(p * e)) };
                match args.update {
                    SpvecUpdate::Gather => unsafe { std::ptr::copy(ye, xe, e) },
                    _ => unsafe { std::ptr::copy(xe, ye, e) },
                }
            }
            Ok(())
        }
        SpvecUpdate::Axpby { alpha, beta } => with_precision!(args.precision, V, _Out, T => {
            let (xv, yv) = unsafe { (user_array::<V>(x.values, nnz, "vecX")?, user_array::<V>(y.values, size, "vecY")?) };
            let (alpha, beta) = unsafe { (read_scalar::<T>(alpha, "alpha")?, read_scalar::<T>(beta, "beta")?) };
            // Y scaled first (beta = 0 never reads it; beta = 1 is the identity, skipped as the
            // CUDA backend does), then alpha X added to the stored result: the CUDA backend's
            // two passes, rounding where it rounds.
            if beta != T::from_f64(1.0) {
                for i in 0..size {
                    let old = if beta == T::ZERO { T::ZERO } else { beta * T::load(unsafe { *yv.add(i) }) };
                    unsafe { *yv.add(i) = old.store::<V>() };
                }
            }
            for (k, &p) in pos.iter().enumerate() {
                let v = alpha * T::load(unsafe { *xv.add(k) }) + T::load(unsafe { *yv.add(p) });
                unsafe { *yv.add(p) = v.store::<V>() };
            }
            Ok(())
        }),
        SpvecUpdate::Rot { c, s } => with_precision!(args.precision, V, _Out, T => {
            let (xv, yv) = unsafe { (user_array::<V>(x.values, nnz, "vecX")?, user_array::<V>(y.values, size, "vecY")?) };
            let (c, s) = unsafe { (read_scalar::<T>(c, "c_coeff")?, read_scalar::<T>(s, "s_coeff")?) };
            let minus_s = T::from_f64(-s.to_f64());
            for (k, &p) in pos.iter().enumerate() {
                let (xo, yo) = unsafe { (T::load(*xv.add(k)), T::load(*yv.add(p))) };
                unsafe {
                    *xv.add(k) = (c * xo + s * yo).store::<V>();
                    *yv.add(p) = (c * yo + minus_s * xo).store::<V>();
                }
            }
            Ok(())
        }),
    }
}

/// The dot product, in X's storage order, accumulated in the compute type.
///
/// # Safety
/// X and Y must describe host memory of their declared sizes; `result` a writable value of
/// the compute type (host memory in either pointer mode on this backend).
pub unsafe fn spvv(args: &SpvvArgs) -> Result<()> {
    let (x, y) = (args.x, args.y);
    // SAFETY (this function): the caller's sizes; every position is checked < Y's size.
    let pos = unsafe { positions(x, false)? };
    with_precision!(args.precision, V, _Out, T => {
        let xv: &[V] = unsafe { user_slice(x.values, pos.len(), "vecX")? };
        let yv: &[V] = unsafe { user_slice(y.values, y.size as usize, "vecY")? };
        let mut sum = T::ZERO;
        for (k, &p) in pos.iter().enumerate() {
            sum += T::load(xv[k]) * T::load(yv[p]);
        }
        unsafe { std::ptr::write_unaligned(args.result as *mut T, sum) };
        Ok(())
    })
}
