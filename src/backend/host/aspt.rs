//! ASpT's plan on the host: the arrays the CUDA backend builds on the device (same row keys,
//! same stable orders), in host memory. The product is `products::sddmm` with the plan.

use rayon::prelude::*;

use super::elem::Index;
use super::views::csr_structure;
use crate::descr::SpMat;
use crate::error::{Error, Result};
use crate::plan::{AsptArrays, AsptPlan, Buffer};

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
    let mut runs = 0u64;
    panel_ptr.push(0u32);
    for list in &lists {
        for (i, &(cl, p, slot)) in list.iter().enumerate() {
            runs += u64::from(i == 0 || list[i - 1].0 != cl);
            ent_pos.push(p);
            ent_key.push((cl << AsptPlan::SLOT_BITS) | slot);
        }
        panel_ptr.push(ent_pos.len() as u32);
    }
    Ok(AsptPlan {
        rows: c.rows,
        nnz: c.nnz,
        panels: lists.len() as u64,
        runs,
        build_seconds: start.elapsed().as_secs_f64(),
        arrays: AsptArrays {
            order: Buffer::from_vec(order),
            panel_ptr: Buffer::from_vec(panel_ptr),
            ent_pos: Buffer::from_vec(ent_pos),
            ent_key: Buffer::from_vec(ent_key),
        },
    })
}
