//! The two ELL formats: SpMM with a Blocked-ELL matrix (kernels/spmm/blocked_ell.cu) and SpMV
//! with a Sliced-ELL one (kernels/spmv/sell.cu).
//!
//! Blocked-ELL runs on tensor cores where it can (blocks a multiple of 16 rows; f16/bf16 values
//! 4-byte aligned, or f32 values as three TF32 products), else a thread per element of C. Sliced-ELL with op(A) = A
//! reads the slots as stored; with Aᵀ it converts A to CSR in the workspace (row counts, scan,
//! fill) and runs the CSR row method on that, whose own conversion transposes it.

use super::kernels::{index_tag, precision_tag};
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use super::prims::{scan, scan_tmp_bytes, Width};
use crate::backend::{BlockedEllProductArgs, SpmvArgs};
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::plan::PlanSlot;
use crate::trace;
use crate::types::{DataType, IndexBase};

/// Whether a tensor-core kernel takes this product: f16/bf16 (values read in 4-byte pairs)
/// or f32 (three TF32 products), blocks a multiple of the 16-row tile.
fn on_tensor_cores(args: &BlockedEllProductArgs) -> bool {
    let input = args.precision.input;
    let half = matches!(input, DataType::F16 | DataType::BF16) && (args.a.values as usize) % 4 == 0;
    (half || input == DataType::F32) && args.a.block % 16 == 0
}

/// Rows of C (16 per warp) times 32-column tiles per 256-thread block of the mma kernel.
const MMA_WARPS: u64 = 8;

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
    let (kind, grid) = if tensor_cores {
        let tiles = (a.rows / 16) as u64 * (args.n as u64).div_ceil(32);
        ("mma", l.grid(tiles, MMA_WARPS))
    } else {
        ("rows", l.grid(a.rows as u64 * args.n as u64, BLOCK as u64))
    };
    let name = format!("spblk_blocked_ell_{kind}_{}_{}", precision_tag(&args.precision), index_tag(a.index_type));
    l.launch(
        &name,
        grid,
        BLOCK,
        0,
        Args::new()
            .i64(a.rows)
            .i64(a.kb)
            .i64(a.block)
            .i64(a.ell_cols)
            .ptr(a.columns as u64)
            .ptr(a.values as u64)
            .i64(a.base)
            .i64(args.n)
            .ptr(args.b.ptr as u64)
            .i64(args.b.rs)
            .i64(args.b.cs)
            .ptr(args.c.ptr as u64)
            .i64(args.c.rs)
            .i64(args.c.cs)
            .scalar(alpha)
            .scalar(beta),
    )
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

/// CSR of a Sliced-ELL matrix in the workspace (zero-based, each row's entries in slot order),
/// as a descriptor of A's shape and types; with a measuring `Carve` and no launcher it only
/// reserves the space.
pub fn sell_as_csr(l: Option<&Launcher>, c: &mut Carve, a: &SpMat) -> Result<SpMat> {
    let s = sell(a)?;
    let (isz, vsz, rows, nnz) = (a.indices_type.size(), a.value_type.size(), a.rows, a.nnz);
    let ptr = c.take((rows as usize + 1) * isz);
    let (col, val) = (c.take(words(nnz as usize * isz)), c.take(words(nnz as usize * vsz)));
    let counts = c.take((rows as usize + 1) * 8);
    let tmp = c.take(scan_tmp_bytes(rows as u64 + 1, Width::U64));
    let csr = SpMat {
        pattern: SparsePattern::Csr { row_offsets: ptr as *mut _, col_ind: col as *mut _ },
        values: val as *mut _,
        base: IndexBase::Zero,
        plans: std::sync::Arc::new(PlanSlot::default()),
        ..a.clone()
    };
    let Some(l) = l else { return Ok(csr) };
    let t = index_tag(a.indices_type);
    let common = Args::new().i64(rows).i64(a.cols).i64(s.slice_size).ptr(s.offsets).ptr(s.columns);
    l.memset_u32(col, 0, words(nnz as usize * isz) / 4)?;
    l.memset_u32(val, 0, words(nnz as usize * vsz) / 4)?;
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
        let args = common.ptr(a.values as u64).i64(s.slots).i64(a.base.offset()).ptr(counts).i64(nnz).ptr(col).ptr(val);
        l.launch(&format!("spblk_sell_to_csr_{w}_{t}"), l.grid(rows as u64, BLOCK as u64), BLOCK, 0, args)?;
    }
    Ok(csr)
}
