//! Host kernels for SpMV/SpMM (one code path: a vector is an n×1 matrix) and SDDMM.
//! Parallel over output rows; each output element is written by one worker, and sums run in
//! the order the sparse entries are stored, so results are deterministic.

use rayon::prelude::*;

use super::elem::{Elem, Index, Real, SharedMut};
use super::views::{csr_of_op, csr_structure, DenseView};
use crate::backend::{ScalarArg, SddmmArgs};
use crate::descr::{DnMat, SpMat};
use crate::error::{Error, Result};
use crate::plan::{AsptPlan, OperandPlan, RodePlan};
use crate::trace;
use crate::types::Operation;

/// Reads alpha or beta. In the host backend "device" pointer mode also means host memory.
///
/// # Safety
/// `s.ptr` must point to a value of type `T` (checked non-NULL by `ops`).
pub unsafe fn read_scalar<T: Real>(s: ScalarArg, what: &str) -> Result<T> {
    if s.ptr.is_null() {
        return Err(Error::invalid(what, "is NULL"));
    }
    // SAFETY: non-null; the caller passes a pointer to the compute type (read unaligned to
    // tolerate any host address).
    Ok(unsafe { std::ptr::read_unaligned(s.ptr as *const T) })
}

/// The order in which a row's products are added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SumOrder {
    /// One sum over the row's entries in storage order.
    Entries,
    /// RoDe's (`SpmmMethod::Rode`) with the plan's segment length: each segment of the row's
    /// block part summed on its own, the segments' sums added in order, then the residual
    /// entries one by one.
    RodeSegments(i64),
}

/// rows of work per rayon task, so short rows don't drown in scheduling overhead.
const MIN_ROWS_PER_TASK: usize = 64;

/// `C = alpha op(A) op(B) + beta C` with `A` sparse (any format) and `B`, `C` dense.
///
/// # Safety
/// All descriptors must describe host memory of their declared sizes.
#[allow(clippy::too_many_arguments)]
pub unsafe fn spmm<I: Index, In: Elem, Out: Elem, T: Real>(
    op_a: Operation,
    op_b: Operation,
    alpha: ScalarArg,
    a: &SpMat,
    plan: Option<&OperandPlan>,
    b: &DnMat,
    beta: ScalarArg,
    c: &DnMat,
    order: SumOrder,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    let (alpha, beta) = unsafe { (read_scalar::<T>(alpha, "alpha")?, read_scalar::<T>(beta, "beta")?) };
    let a = unsafe { csr_of_op::<I, In>(a, op_a, plan, "matA")? };
    trace::kernel(if order == SumOrder::Entries { "host:spmm_rows" } else { "host:spmm_rode" });
    let b = unsafe { DenseView::<In>::new(b, op_b, "matB")? };
    let c = unsafe { DenseView::<Out>::new(c, Operation::NonTranspose, "matC")? };
    let n = c.cols;
    // acc += the products of entries `range` with op(B)'s rows.
    let add = |acc: &mut [T], range: std::ops::Range<usize>| {
        for p in range {
            let (k, v) = (a.col(p), T::load(a.val[p]));
            for (j, s) in acc.iter_mut().enumerate() {
                // SAFETY: k < op(A).cols = op(B).rows and j < n, checked by ops.
                *s += v * T::load(unsafe { b.get(k, j) });
            }
        }
    };
    (0..a.rows).into_par_iter().with_min_len(MIN_ROWS_PER_TASK).for_each_init(
        || (vec![T::ZERO; n], vec![T::ZERO; n]),
        |(acc, part), i| {
            acc.iter_mut().for_each(|x| *x = T::ZERO);
            let range = a.row_range(i);
            let mut residual = range.start;
            if let SumOrder::RodeSegments(seg) = order {
                let blocked = RodePlan::block_part(range.len() as i64);
                let len = RodePlan::seg_len(blocked, seg) as usize;
                let blocked = range.start + blocked as usize;
                for s in (range.start..blocked).step_by(len) {
                    part.iter_mut().for_each(|x| *x = T::ZERO);
                    add(part, s..blocked.min(s + len));
                    acc.iter_mut().zip(part.iter()).for_each(|(x, y)| *x += *y);
                }
                residual = blocked;
            }
            add(acc, residual..range.end);
            for (j, s) in acc.iter().enumerate() {
                // beta = 0 must not read C (it may hold NaN or be uninitialized).
                let out = if beta == T::ZERO {
                    alpha * *s
                } else {
                    // SAFETY: row i, column j of C, written only by this worker.
                    alpha * *s + beta * T::load(unsafe { c.get(i, j) })
                };
                // SAFETY: as above.
                unsafe { c.set(i, j, out.store::<Out>()) };
            }
        },
    );
    Ok(())
}

/// `C = alpha (op(A) op(B)) ∘ spy(C) + beta C` with `C` in CSR: row by row, or with an ASpT
/// plan panel by panel, each panel's entries column by column (`SddmmMethod::Aspt`). Each
/// entry's dot product is summed in the same order either way.
///
/// # Safety
/// All descriptors must describe host memory of their declared sizes; `aspt` must be a host
/// plan of C's pattern.
pub unsafe fn sddmm<I: Index, In: Elem, Out: Elem, T: Real>(args: &SddmmArgs, aspt: Option<&AsptPlan>) -> Result<()> {
    // SAFETY: forwarded from the caller.
    let alpha = unsafe { read_scalar::<T>(args.alpha, "alpha")? };
    let beta = unsafe { read_scalar::<T>(args.beta, "beta")? };
    let a = unsafe { DenseView::<In>::new(args.a, args.op_a, "matA")? };
    let b = unsafe { DenseView::<In>::new(args.b, args.op_b, "matB")? };
    // SAFETY: forwarded from the caller.
    let (ptr, idx) = unsafe { csr_structure::<I>(args.c, "matC")? };
    let base = args.c.base.offset();
    let vals = SharedMut(args.c.values as *mut Out);
    let k = a.cols;
    // Entry p of row i, column j; every p is written by exactly one worker.
    let entry = |i: usize, j: usize, p: usize| {
        let mut dot = T::ZERO;
        for l in 0..k {
            // SAFETY: i < m, j < n, l < k, checked by ops.
            dot += T::load(unsafe { a.get(i, l) }) * T::load(unsafe { b.get(l, j) });
        }
        // SAFETY: p < nnz; only this worker handles entry p.
        let old = || T::load(unsafe { *vals.get().add(p) });
        let out = if beta == T::ZERO { alpha * dot } else { alpha * dot + beta * old() };
        unsafe { *vals.get().add(p) = out.store::<Out>() };
    };
    let Some(plan) = aspt else {
        (0..args.c.rows as usize).into_par_iter().with_min_len(MIN_ROWS_PER_TASK).for_each(|i| {
            let first = (ptr[i].to_i64() - base) as usize;
            for (p, j) in (first..).zip(&idx[first..(ptr[i + 1].to_i64() - base) as usize]) {
                entry(i, (j.to_i64() - base) as usize, p);
            }
        });
        return Ok(());
    };
    let arrays = &plan.arrays;
    // SAFETY: a host plan's arrays are Vec<u32> (host/aspt.rs).
    let (order, panel_ptr, pos, key) = unsafe {
        (
            arrays.order.host_slice::<u32>(),
            arrays.panel_ptr.host_slice::<u32>(),
            arrays.ent_pos.host_slice::<u32>(),
            arrays.ent_key.host_slice::<u32>(),
        )
    };
    (0..plan.panels as usize).into_par_iter().for_each(|q| {
        for e in panel_ptr[q] as usize..panel_ptr[q + 1] as usize {
            let row = order[q * AsptPlan::PANEL as usize + (key[e] % AsptPlan::PANEL as u32) as usize];
            entry(row as usize, (key[e] >> AsptPlan::SLOT_BITS) as usize, pos[e] as usize);
        }
    });
    Ok(())
}
