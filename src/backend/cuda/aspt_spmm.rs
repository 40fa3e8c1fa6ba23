//! ASpT SpMM (`SPBLK_SPMM_ALG_ASPT`, kernels/spmm/aspt.cu, docs/aspt-spmm.md): the SpMM plan
//! derived on the device from an ASpT plan's panel lists, and the product over it.

use std::sync::Arc;

use super::context::Device;
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::memory::DeviceAlloc;
use super::prims::{key_bits, radix_sort, scan, scan_tmp_bytes, SortSpace, Width};
use super::spmm::{c_args, c_copy, finish_c, op_b, stage_b, staging, target};
use crate::backend::SpmmArgs;
use crate::error::{Error, Result};
use crate::plan::{AsptPlan, AsptSpmmArrays, AsptSpmmPlan};
use crate::trace;

/// Shared memory of the product: two chunks of staged op(B) rows (`ASPT_STAGE_BYTES` each),
/// then each warp's four row windows of 33 entries (value in the compute type, u32 offset).
fn shared_bytes(compute_size: u32) -> u32 {
    let entry = (compute_size + 4).next_multiple_of(compute_size);
    2 * 32768 + 8 * 4 * 33 * entry
}
/// Threads of a product block: 8 warps of 4 rows, one panel.
const THREADS: u32 = 256;

/// Derives the SpMM plan from `base` on the device; waits for its work (reads the counts).
pub fn build_plan(l: &Launcher, dev: &Arc<Device>, base: &AsptPlan) -> Result<AsptSpmmPlan> {
    let start = std::time::Instant::now();
    let (m, nnz, panels) = (base.rows as u64, base.nnz as u64, base.panels);
    let alloc = |words: u64, what: &str| DeviceAlloc::new(dev, (words.max(1) * 4) as usize, what);
    let order = alloc(m, "ASpT SpMM plan")?;
    let half_ptr = alloc(2 * m + 1, "ASpT SpMM plan")?;
    let ent_pos = alloc(nnz, "ASpT SpMM plan")?;
    let ent_idx = alloc(nnz, "ASpT SpMM plan")?;
    let dcol_ptr = alloc(panels + 1, "ASpT SpMM plan")?;
    let mut measure = Carve::measure();
    SortSpace::carve(&mut measure, nnz);
    measure.take((nnz as usize + 1) * 4);
    measure.take(scan_tmp_bytes(nnz, Width::U32));
    measure.take(8);
    let scratch = DeviceAlloc::new(dev, measure.size(), "ASpT SpMM plan build")?;
    let mut c = Carve::new(scratch.ptr as *mut std::ffi::c_void);
    let space = SortSpace::carve(&mut c, nnz);
    let (scanned, tmp, counter) = (c.take((nnz as usize + 1) * 4), c.take(scan_tmp_bytes(nnz, Width::U32)), c.take(8));
    let a = &base.arrays;
    if m > 0 {
        l.copy(order.ptr, a.order.addr, m as usize * 4)?;
    }
    l.memset_u32(counter, 0, 2)?;
    if nnz > 0 {
        l.launch(
            "spblk_aspt_spmm_marks",
            l.grid(nnz, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .u64(nnz)
                .u64(panels)
                .ptr(a.panel_ptr.addr)
                .ptr(a.ent_key.addr)
                .ptr(scanned)
                .ptr(space.keys[0])
                .ptr(space.vals[0])
                .ptr(counter),
        )?;
    }
    scan(l, scanned, nnz, Width::U32, tmp, scanned + 4 * nnz)?;
    let dense_entries = l.read_u64s(counter, 1)?[0];
    let mut total = [0u8; 4];
    l.read(scanned + 4 * nnz, &mut total)?;
    let dense_columns = u32::from_ne_bytes(total) as u64;
    let dcols = alloc(dense_columns, "ASpT SpMM plan")?;
    l.launch(
        "spblk_aspt_spmm_columns",
        l.grid(nnz + panels + 1, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .u64(nnz)
            .u64(panels)
            .ptr(a.panel_ptr.addr)
            .ptr(a.ent_key.addr)
            .ptr(scanned)
            .ptr(dcol_ptr.ptr)
            .ptr(dcols.ptr),
    )?;
    // Each row's entries together, dense first, each part keeping the panel's column order.
    let cur = radix_sort(l, &space, nnz, key_bits(2 * m), 0)?;
    if nnz > 0 {
        l.launch(
            "spblk_aspt_spmm_entries",
            l.grid(nnz, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .u64(nnz)
                .ptr(space.keys[cur])
                .ptr(space.vals[cur])
                .ptr(a.ent_pos.addr)
                .ptr(a.ent_key.addr)
                .ptr(scanned)
                .ptr(dcol_ptr.ptr)
                .ptr(ent_pos.ptr)
                .ptr(ent_idx.ptr),
        )?;
    }
    l.launch(
        "spblk_aspt_spmm_half_ptr",
        l.grid(nnz + 1, BLOCK as u64),
        BLOCK,
        0,
        Args::new().u64(nnz).u64(2 * m).ptr(space.keys[cur]).ptr(half_ptr.ptr),
    )?;
    l.sync()?;
    Ok(AsptSpmmPlan {
        rows: base.rows,
        nnz: base.nnz,
        panels,
        dense_entries,
        dense_columns,
        build_seconds: start.elapsed().as_secs_f64(),
        arrays: AsptSpmmArrays {
            order: order.into_buffer(),
            half_ptr: half_ptr.into_buffer(),
            ent_pos: ent_pos.into_buffer(),
            ent_idx: ent_idx.into_buffer(),
            dcol_ptr: dcol_ptr.into_buffer(),
            dcols: dcols.into_buffer(),
        },
    })
}

/// Workspace: the row method's copies of a column-major op(B) and of a wide column-major C.
pub fn workspace(args: &SpmmArgs) -> usize {
    let mut c = Carve::measure();
    op_b(&mut c, args);
    c_copy(&mut c, args);
    c.size()
}

pub fn run(l: &Launcher, args: &SpmmArgs, plan: &AsptSpmmPlan, buffer: *mut std::ffi::c_void) -> Result<()> {
    let (m, n) = (args.c.rows, args.c.cols);
    let alpha = Scalar::new(&args.alpha, args.precision.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.precision.compute, "beta")?;
    if plan.rows != m || plan.nnz != args.a.nnz {
        return Err(Error::internal(format!("the ASpT plan is of {} rows and {} entries", plan.rows, plan.nnz)));
    }
    if m == 0 || n == 0 {
        return Ok(());
    }
    let mut c = Carve::new(buffer);
    let b = op_b(&mut c, args);
    let w = c_copy(&mut c, args);
    let out = target(args, w, alpha, beta);
    stage_b(l, args, &b)?;
    let esize = args.precision.input.size() as u64;
    // Four columns a lane in groups of 8, 16 or 32 lanes (tiles of 32, 64, 128 columns: a
    // warp takes 4, 2 or 1 of its rows at once), or one column a lane when op(B)'s rows are
    // not aligned for vector loads.
    let vec4 = b.row && n >= 4 && b.ld % 4 == 0 && b.ptr % (4 * esize).min(16) == 0;
    let (g, v): (u64, u64) = if !vec4 {
        (32, 1)
    } else if n <= 32 {
        (8, 4)
    } else if n <= 64 {
        (16, 4)
    } else {
        (32, 4)
    };
    let tiles = (n as u64).div_ceil(g * v);
    let cp16 = b.row && (b.ld as u64 * esize) % 16 == 0 && b.ptr % 16 == 0;
    if trace::on() {
        trace::note(format_args!(
            "ASpT: {} panels x {tiles} column tiles of {} ({g} lanes a row); {:.0}% of the entries in dense columns \
             ({:.1} each){}{}",
            plan.panels,
            g * v,
            100.0 * plan.dense_share(),
            plan.reuse(),
            if cp16 { "" } else { "; op(B) staged by element loads" },
            staging(&b, w)
        ));
    }
    let p = &plan.arrays;
    let blocks = plan.panels * tiles;
    if blocks > u32::MAX as u64 {
        return Err(Error::not_supported(format!("ASpT SpMM: {blocks} thread blocks (panels x column tiles)")));
    }
    l.launch(
        &format!("spblk_spmm_aspt_g{g}v{v}_{}", out.tag),
        blocks as u32,
        THREADS,
        shared_bytes(args.precision.compute.size() as u32),
        c_args(
            Args::new()
                .i64(m)
                .i64(n)
                .u64(plan.panels)
                .ptr(p.order.addr)
                .ptr(p.half_ptr.addr)
                .ptr(p.ent_pos.addr)
                .ptr(p.ent_idx.addr)
                .ptr(p.dcol_ptr.addr)
                .ptr(p.dcols.addr)
                .ptr(args.a.values as u64)
                .ptr(b.ptr)
                .i64(b.ld)
                .i32(b.row as i32)
                .i32(cp16 as i32),
            &out,
            v,
        ),
    )?;
    finish_c(l, args, w, alpha, beta)
}
