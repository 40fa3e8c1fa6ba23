//! The two ELL formats: SpMM with a Blocked-ELL matrix (kernels/spmm/blocked_ell.cu) and SpMV
//! with a Sliced-ELL one (kernels/spmv/sell.cu).
//!
//! Blocked-ELL runs on tensor cores where it can (blocks a multiple of 16 rows; f16/bf16 values
//! 4-byte aligned, or f32 values as three TF32 products), else a thread per element of C. Sliced-ELL with op(A) = A
//! reads the slots as stored; with Aᵀ it converts A to CSR in the workspace (row counts, scan,
//! fill) and runs the CSR row method on that, whose own conversion transposes it; after a
//! preprocess, the plan of Aᵀ holds that pattern and each entry's slot, and a call only
//! gathers the values.

use std::sync::Arc;

use super::context::Device;
use super::convert::build_operand_plan;
use super::kernels::{index_tag, precision_tag};
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::prims::{scan, scan_tmp_bytes, Width};
use crate::backend::{BlockedEllProductArgs, SpmvArgs};
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::plan::{OperandPlan, PlanSlot};
use crate::trace;
use crate::types::{DataType, IndexBase, Operation};

/// Whether a tensor-core kernel takes this product: f16/bf16 (values read in 4-byte pairs)
/// or f32 (three TF32 products), blocks a multiple of the 16-row tile.
fn on_tensor_cores(args: &BlockedEllProductArgs) -> bool {
    let input = args.precision.input;
    let half = matches!(input, DataType::F16 | DataType::BF16) && (args.a.values as usize) % 4 == 0;
    (half || input == DataType::F32) && args.a.block % 16 == 0
}

/// Threads per block of the f16/bf16 tensor-core kernel (4 warps on a 16 x 128 tile of C), and
/// 16 x 32 warp tiles per 256-thread block of the f32 one.
const HALF_THREADS: u32 = 128;
const TF32_WARPS: u64 = 8;

pub fn blocked_ell_product(l: &Launcher, args: &BlockedEllProductArgs) -> Result<()> {
    let a = &args.a;
    let compute = args.precision.compute;
    let (alpha, beta) = (Scalar::new(&args.alpha, compute, "alpha")?, Scalar::new(&args.beta, compute, "beta")?);
    if a.rows == 0 || args.n == 0 {
        return Ok(());
    }
    let tensor_cores = on_tensor_cores(args);
    if !tensor_cores {
        trace::note(format_args!(
            "Blocked-ELL on CUDA cores: {:?} values, block {}{}",
            args.precision.input,
            a.block,
            if (a.values as usize) % 4 != 0 { ", values not 4-byte aligned" } else { "" }
        ));
    }
    let half = tensor_cores && args.precision.input != DataType::F32;
    let b = &args.b;
    let (kind, grid, threads) = match (tensor_cores, half) {
        (true, true) => ("mma", l.grid((a.rows / 16) as u64 * (args.n as u64).div_ceil(128), 1), HALF_THREADS),
        (true, false) => ("mma", l.grid((a.rows / 16) as u64 * (args.n as u64).div_ceil(32), TF32_WARPS), BLOCK),
        _ => ("rows", l.grid(a.rows as u64 * args.n as u64, BLOCK as u64), BLOCK),
    };
    let name = format!("spblk_blocked_ell_{kind}_{}_{}", precision_tag(&args.precision), index_tag(a.index_type));
    let mut launch = Args::new()
        .i64(a.rows)
        .i64(a.kb)
        .i64(a.block)
        .i64(a.ell_cols)
        .ptr(a.columns as u64)
        .ptr(a.values as u64)
        .i64(a.base)
        .i64(args.n)
        .ptr(b.ptr as u64)
        .i64(b.rs)
        .i64(b.cs);
    if half {
        // op(B) staged with 16-byte copies when its k is contiguous and every copy aligned.
        let vec = b.rs == 1 && b.cs % 8 == 0 && (b.ptr as usize) % 16 == 0;
        launch = launch.i32(vec as i32);
    }
    let launch = launch.ptr(args.c.ptr as u64).i64(args.c.rs).i64(args.c.cs).scalar(alpha).scalar(beta);
    l.launch(&name, grid, threads, 0, launch)
}

/// A Sliced-ELL matrix's arrays and sizes.
struct Sell {
    offsets: u64,
    columns: u64,
    slice_size: i64,
    slots: i64,
}

fn sell(a: &SpMat) -> Result<Sell> {
    let SparsePattern::SlicedEll { slice_offsets, col_ind, slice_size, values_size } = a.pattern else {
        return Err(Error::internal("the Sliced-ELL method needs a Sliced-ELL matrix"));
    };
    Ok(Sell { offsets: slice_offsets as u64, columns: col_ind as u64, slice_size, slots: values_size })
}

/// y = alpha A x + beta y, A as stored.
pub fn sell_spmv(l: &Launcher, args: &SpmvArgs) -> Result<()> {
    let a = args.a;
    let s = sell(a)?;
    let compute = args.precision.compute;
    let (alpha, beta) = (Scalar::new(&args.alpha, compute, "alpha")?, Scalar::new(&args.beta, compute, "beta")?);
    let name = format!("spblk_sell_spmv_{}_{}", precision_tag(&args.precision), index_tag(a.indices_type));
    l.launch(
        &name,
        l.grid(a.rows as u64, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .i64(a.rows)
            .i64(a.cols)
            .i64(s.slice_size)
            .ptr(s.offsets)
            .ptr(s.columns)
            .ptr(a.values as u64)
            .i64(s.slots)
            .i64(a.base.offset())
            .ptr(args.x.values as u64)
            .ptr(args.y.values as u64)
            .scalar(alpha)
            .scalar(beta),
    )
}

/// Bytes rounded up to whole 4-byte words (the arrays are zeroed by words).
fn words(bytes: usize) -> usize {
    bytes.div_ceil(4) * 4
}

/// What CSR of a Sliced-ELL matrix carries with each entry: its value (a call's product) or
/// the slot its value is stored in (the plan of Aᵀ, which gathers values per call).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Carry {
    Values,
    Slots,
}

/// CSR of a Sliced-ELL matrix in the workspace (zero-based, each row's entries in slot order),
/// as a descriptor of A's shape and types, and with `Carry::Slots` the address of each entry's
/// slot (u32); with a measuring `Carve` and no launcher it only reserves the space.
pub fn sell_as_csr(l: Option<&Launcher>, c: &mut Carve, a: &SpMat, carry: Carry) -> Result<(SpMat, u64)> {
    let s = sell(a)?;
    if carry == Carry::Slots && s.slots > u32::MAX as i64 {
        return Err(Error::not_supported(format!(
            "matA: a plan of Aᵀ for a Sliced-ELL matrix of {} slots (up to 2^32-1)",
            s.slots
        )));
    }
    let (isz, vsz, rows, nnz) = (a.indices_type.size(), a.value_type.size(), a.rows, a.nnz);
    let ptr = c.take((rows as usize + 1) * isz);
    let col = c.take(words(nnz as usize * isz));
    let (val, slot_of) = match carry {
        Carry::Values => (c.take(words(nnz as usize * vsz)), 0),
        Carry::Slots => (0, c.take(nnz as usize * 4)),
    };
    let counts = c.take((rows as usize + 1) * 8);
    let tmp = c.take(scan_tmp_bytes(rows as u64 + 1, Width::U64));
    let csr = SpMat {
        pattern: SparsePattern::Csr { row_offsets: ptr as *mut _, col_ind: col as *mut _ },
        values: val as *mut _,
        base: IndexBase::Zero,
        plans: std::sync::Arc::new(PlanSlot::default()),
        ..a.clone()
    };
    let Some(l) = l else { return Ok((csr, slot_of)) };
    let t = index_tag(a.indices_type);
    let common = Args::new().i64(rows).i64(a.cols).i64(s.slice_size).ptr(s.offsets).ptr(s.columns);
    // A tail the slots do not fill (fewer entries than nnz) is column 0, value or slot 0.
    l.memset_u32(col, 0, words(nnz as usize * isz) / 4)?;
    l.memset_u32(val, 0, words(nnz as usize * vsz) / 4 * (val != 0) as usize)?;
    l.memset_u32(slot_of, 0, nnz as usize * (slot_of != 0) as usize)?;
    l.memset_u32(counts + rows as u64 * 8, 0, 2)?;
    if rows > 0 {
        let grid = l.grid(rows as u64, BLOCK as u64);
        let args = common.clone().i64(s.slots).i64(a.base.offset()).ptr(counts);
        l.launch(&format!("spblk_sell_row_counts_{t}"), grid, BLOCK, 0, args)?;
    }
    scan(l, counts, rows as u64 + 1, Width::U64, tmp, 0)?;
    let grid = l.grid(rows as u64 + 1, BLOCK as u64);
    l.launch(
        &format!("spblk_sell_csr_offsets_{t}"),
        grid,
        BLOCK,
        0,
        Args::new().i64(rows).ptr(counts).i64(nnz).ptr(ptr),
    )?;
    if rows > 0 && nnz > 0 {
        let w = match vsz {
            2 => "b16",
            4 => "b32",
            8 => "b64",
            _ => return Err(a.unsupported(&format!("SpMV with {:?} values", a.value_type))),
        };
        let args = common
            .ptr(a.values as u64)
            .i64(s.slots)
            .i64(a.base.offset())
            .ptr(counts)
            .i64(nnz)
            .ptr(col)
            .ptr(val)
            .ptr(slot_of);
        l.launch(&format!("spblk_sell_to_csr_{w}_{t}"), l.grid(rows as u64, BLOCK as u64), BLOCK, 0, args)?;
    }
    Ok((csr, slot_of))
}

/// The workspace an op T call needs (and the plan's build): CSR of A carrying values or slots,
/// whichever is larger, then the CSR method's layout on it (its transposing conversion).
pub fn sell_transposed_size(args: &SpmvArgs, layout: impl Fn(&mut Carve, &SpMat) -> Result<()>) -> Result<usize> {
    let mut most = 0;
    for carry in [Carry::Values, Carry::Slots] {
        let mut c = Carve::measure();
        let (csr, _) = sell_as_csr(None, &mut c, args.a, carry)?;
        layout(&mut c, &csr)?;
        most = most.max(c.size());
    }
    Ok(most)
}

/// The operand plan of Aᵀ for a Sliced-ELL A: CSR of Aᵀ's pattern and, for each of its entries,
/// the slot of its value in A's storage (`perm`), so that a call gathers the current values and
/// runs the CSR method without converting. Built in `scratch` (the call's workspace).
pub fn sell_transposed_plan(l: &Launcher, dev: &Arc<Device>, a: &SpMat, scratch: u64) -> Result<OperandPlan> {
    let mut c = Carve::new(scratch as *mut std::ffi::c_void);
    let (csr, slot_of) = sell_as_csr(Some(l), &mut c, a, Carry::Slots)?;
    // The conversion's sort space follows; once the plan is built (stream order), the
    // composed permutation reuses it.
    let rest = scratch + c.size().next_multiple_of(256) as u64;
    let plan = build_operand_plan(l, dev, &csr, Operation::Transpose, rest)?;
    if let (Some(conv), true) = (plan.converted.as_ref(), a.nnz > 0) {
        // perm: entry of CSR(Aᵀ) -> entry of CSR(A); composed with slot_of: -> slot of A.
        let composed = c.take(a.nnz as usize * 4);
        l.launch(
            "spblk_convert_values",
            l.grid(a.nnz as u64, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(conv.perm.addr).u64(a.nnz as u64).ptr(slot_of).ptr(composed).i32(4).ptr(0),
        )?;
        l.copy(conv.perm.addr, composed, a.nnz as usize * 4)?;
        l.sync()?;
    }
    Ok(plan)
}
