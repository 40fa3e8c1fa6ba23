//! ASpT's plan on the host: the arrays the CUDA backend builds on the device (same row keys,
//! same stable orders), in host memory. SDDMM's product is `products::sddmm` with the plan;
//! SpMM's plan and product are below.

use rayon::prelude::*;

use super::elem::{Elem, Index, Real};
use super::products::read_scalar;
use super::views::{csr_structure, DenseView};
use crate::backend::SpmmArgs;
use crate::descr::SpMat;
use crate::error::{Error, Result};
use crate::plan::{AsptArrays, AsptPlan, AsptSpmmArrays, AsptSpmmPlan, Buffer};
use crate::trace;
use crate::types::Operation;

/// # Safety
/// `c` must describe host memory of its declared sizes (validated by `ops`).
pub unsafe fn build_plan<I: Index>(c: &SpMat) -> Result<AsptPlan> {
    let start = std::time::Instant::now();
    if let Some(why) = AsptPlan::unsupported(c.rows, c.cols, c.nnz) {
        return Err(Error::not_supported(why));
    }
    // SAFETY: forwarded from the caller.
    let (ptr, idx) = unsafe { csr_structure::<I>(c, "matC")? };
    let base = c.base.offset();
    let m = c.rows as usize;
    let entries = |r: usize| (ptr[r].to_i64() - base) as usize..(ptr[r + 1].to_i64() - base) as usize;
    let col = |p: usize| (idx[p].to_i64() - base) as u32;
    let keys: Vec<(u32, u32)> = (0..m).into_par_iter().map(|r| AsptPlan::row_key(entries(r).map(col))).collect();
    let mut order: Vec<u32> = (0..m as u32).collect();
    order.sort_by_key(|&r| keys[r as usize]); // stable: equal keys keep row order, as on the GPU
    let panel = AsptPlan::PANEL as usize;
    // Each panel's (column, position, slot), by column then position.
    let lists: Vec<Vec<(u32, u32, u32)>> = order
        .par_chunks(panel)
        .map(|rows| {
            let mut v: Vec<(u32, u32, u32)> = rows
                .iter()
                .enumerate()
                .flat_map(|(slot, &r)| entries(r as usize).map(move |p| (col(p), p as u32, slot as u32)))
                .collect();
            v.sort_unstable();
            v
        })
        .collect();
    let mut panel_ptr = Vec::with_capacity(lists.len() + 1);
    let (mut ent_pos, mut ent_key) = (Vec::with_capacity(c.nnz as usize), Vec::with_capacity(c.nnz as usize));
    let (mut run_ptr, mut run_col) = (Vec::with_capacity(lists.len() + 1), Vec::new());
    let mut ent_run = vec![0u32; c.nnz as usize];
    panel_ptr.push(0u32);
    for list in &lists {
        run_ptr.push(run_col.len() as u32);
        for (i, &(cl, p, slot)) in list.iter().enumerate() {
            if i == 0 || list[i - 1].0 != cl {
                run_col.push(cl);
            }
            ent_run[p as usize] = run_col.len() as u32 - 1;
            ent_pos.push(p);
            ent_key.push((cl << AsptPlan::SLOT_BITS) | slot);
        }
        panel_ptr.push(ent_pos.len() as u32);
    }
    let runs = run_col.len() as u64;
    run_ptr.push(runs as u32);
    let sorted = (0..m).into_par_iter().all(|r| {
        let e = entries(r);
        e.clone().zip(e.skip(1)).all(|(p, q)| col(p) <= col(q))
    });
    Ok(AsptPlan {
        rows: c.rows,
        nnz: c.nnz,
        panels: lists.len() as u64,
        runs,
        sorted,
        build_seconds: start.elapsed().as_secs_f64(),
        arrays: AsptArrays {
            order: Buffer::from_vec(order),
            panel_ptr: Buffer::from_vec(panel_ptr),
            ent_pos: Buffer::from_vec(ent_pos),
            ent_key: Buffer::from_vec(ent_key),
            run_ptr: Buffer::from_vec(run_ptr),
            run_col: Buffer::from_vec(run_col),
            ent_run: Buffer::from_vec(ent_run),
        },
    })
}

/// The SpMM tiling of `base`'s pattern (what kernels/spmm/aspt.cu's build computes on the
/// device, in the same order): per panel, columns of two or more entries are dense and
/// numbered in column order; each row's entries dense first, then sparse, each by column.
pub fn build_spmm_plan(base: &AsptPlan) -> AsptSpmmPlan {
    let start = std::time::Instant::now();
    let a = &base.arrays;
    // SAFETY: a host descriptor's plan holds host vectors of u32 (build_plan above).
    let (order, panel_ptr, pos, key) = unsafe {
        (
            a.order.host_slice::<u32>(),
            a.panel_ptr.host_slice::<u32>(),
            a.ent_pos.host_slice::<u32>(),
            a.ent_key.host_slice::<u32>(),
        )
    };
    let col = |e: usize| key[e] >> AsptPlan::SLOT_BITS;
    let panel = AsptPlan::PANEL as usize;
    // Per panel: its listed (half, pos, idx) in the order of the rows' lists, and its dense columns.
    type Listed = Vec<(u32, u32, u32)>;
    let panels: Vec<(Listed, Vec<u32>)> = (0..base.panels as usize)
        .into_par_iter()
        .map(|p| {
            let (ps, pe) = (panel_ptr[p] as usize, panel_ptr[p + 1] as usize);
            let mut dense_cols = Vec::new();
            let mut list = Vec::with_capacity(pe - ps);
            for e in ps..pe {
                let same_prev = e > ps && col(e - 1) == col(e);
                let same_next = e + 1 < pe && col(e + 1) == col(e);
                if same_next && !same_prev {
                    dense_cols.push(col(e));
                }
                let dense = same_prev || same_next;
                let half = 2 * (key[e] & (AsptPlan::PANEL as u32 - 1)) + u32::from(!dense);
                let idx = if dense { dense_cols.len() as u32 - 1 } else { col(e) };
                list.push((half, pos[e], idx));
            }
            list.sort_by_key(|&(half, _, _)| half); // stable: each half keeps column order
            (list, dense_cols)
        })
        .collect();
    let m = base.rows as usize;
    let mut half_ptr = Vec::with_capacity(2 * m + 1);
    let (mut ent_pos, mut ent_idx) = (Vec::with_capacity(base.nnz as usize), Vec::with_capacity(base.nnz as usize));
    let (mut dcol_ptr, mut dcols) = (vec![0u32], Vec::new());
    let mut dense_entries = 0u64;
    for (p, (list, cols)) in panels.iter().enumerate() {
        let halves = (2 * panel).min(2 * (m - p * panel));
        let mut e = 0;
        for h in 0..halves as u32 {
            half_ptr.push(ent_pos.len() as u32);
            while e < list.len() && list[e].0 == h {
                dense_entries += u64::from(h % 2 == 0);
                ent_pos.push(list[e].1);
                ent_idx.push(list[e].2);
                e += 1;
            }
        }
        dcols.extend_from_slice(cols);
        dcol_ptr.push(dcols.len() as u32);
    }
    half_ptr.push(ent_pos.len() as u32);
    AsptSpmmPlan {
        rows: base.rows,
        nnz: base.nnz,
        panels: base.panels,
        dense_entries,
        dense_columns: dcols.len() as u64,
        build_seconds: start.elapsed().as_secs_f64(),
        arrays: AsptSpmmArrays {
            order: Buffer::from_vec(order.to_vec()),
            half_ptr: Buffer::from_vec(half_ptr),
            ent_pos: Buffer::from_vec(ent_pos),
            ent_idx: Buffer::from_vec(ent_idx),
            dcol_ptr: Buffer::from_vec(dcol_ptr),
            dcols: Buffer::from_vec(dcols),
        },
    }
}

/// `C = alpha A op(B) + beta C` over the plan: each row's dense entries, then its sparse ones,
/// in the plan's order (the order the CUDA kernel sums them in).
///
/// # Safety
/// The descriptors must describe host memory of their declared sizes; `plan` must be a host
/// plan of A's pattern.
pub unsafe fn spmm<In: Elem, Out: Elem, T: Real>(args: &SpmmArgs, plan: &AsptSpmmPlan) -> Result<()> {
    // SAFETY: forwarded from the caller.
    let (alpha, beta) = unsafe { (read_scalar::<T>(args.alpha, "alpha")?, read_scalar::<T>(args.beta, "beta")?) };
    let b = unsafe { DenseView::<In>::new(args.b, args.op_b, "matB")? };
    let c = unsafe { DenseView::<Out>::new(args.c, Operation::NonTranspose, "matC")? };
    let p = &plan.arrays;
    // SAFETY: host plan (build_spmm_plan); A's values hold nnz elements (validated by ops).
    let (order, half_ptr, pos, idx, dcol_ptr, dcols, val) = unsafe {
        (
            p.order.host_slice::<u32>(),
            p.half_ptr.host_slice::<u32>(),
            p.ent_pos.host_slice::<u32>(),
            p.ent_idx.host_slice::<u32>(),
            p.dcol_ptr.host_slice::<u32>(),
            p.dcols.host_slice::<u32>(),
            std::slice::from_raw_parts(args.a.values as *const In, args.a.nnz as usize),
        )
    };
    let n = c.cols;
    trace::kernel("host:spmm_aspt");
    (0..plan.rows as usize).into_par_iter().with_min_len(64).for_each_init(
        || vec![T::ZERO; n],
        |acc, r| {
            acc.iter_mut().for_each(|x| *x = T::ZERO);
            let first_dense = dcol_ptr[r / AsptPlan::PANEL as usize] as usize;
            let (s, d, e) = (half_ptr[2 * r] as usize, half_ptr[2 * r + 1] as usize, half_ptr[2 * r + 2] as usize);
            for q in s..e {
                let k = if q < d { dcols[first_dense + idx[q] as usize] } else { idx[q] } as usize;
                let v = T::load(val[pos[q] as usize]);
                for (j, x) in acc.iter_mut().enumerate() {
                    // SAFETY: k < A's columns = op(B)'s rows, j < n (checked by ops).
                    *x += v * T::load(unsafe { b.get(k, j) });
                }
            }
            let i = order[r] as usize;
            for (j, x) in acc.iter().enumerate() {
                // beta = 0 never reads C; row i is written by this worker only.
                let out =
                    if beta == T::ZERO { alpha * *x } else { alpha * *x + beta * T::load(unsafe { c.get(i, j) }) };
                unsafe { c.set(i, j, out.store::<Out>()) };
            }
        },
    );
    Ok(())
}
