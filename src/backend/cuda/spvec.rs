//! Sparse-vector operations (kernels/spvec/): the updates one thread per entry of X, SpVV in
//! two launches whose chunking depends on nnz alone (deterministic).

use std::ffi::c_void;

use cudarc::driver::sys;

use super::context::check;
use super::kernels::{index_tag, value_tag};
use super::launch::{Args, Carve, Launcher, Scalar, BLOCK};
use crate::backend::{SpvecArgs, SpvecUpdate, SpvvArgs};
use crate::error::{Error, Result};
use crate::types::{DataType, PointerMode};

/// X's index array and how kernels locate an entry in Y: (indices, base, size).
fn positions(x: &crate::descr::SpVec) -> (u64, i64, i64) {
    (x.indices as u64, x.base.offset(), x.size)
}

pub fn update(l: &Launcher, args: &SpvecArgs) -> Result<()> {
    let (x, y) = (args.x, args.y);
    let (idx, base, size) = positions(x);
    let itag = index_tag(x.index_type);
    let entries = l.grid(x.nnz as u64, BLOCK as u64);
    let located = || Args::new().i64(x.nnz).ptr(idx).i64(base).i64(size).ptr(x.values as u64).ptr(y.values as u64);
    match args.update {
        SpvecUpdate::Gather | SpvecUpdate::Scatter => {
            if x.nnz == 0 {
                return Ok(());
            }
            let word = match x.value_type.size() {
                1 => "b8",
                2 => "b16",
                4 => "b32",
                8 => "b64",
                _ => "b128",
            };
            let op = if matches!(args.update, SpvecUpdate::Gather) { "gather" } else { "scatter" };
            l.launch(&format!("spblk_spvec_{op}_{word}_{itag}"), entries, BLOCK, 0, located())
        }
        SpvecUpdate::Axpby { alpha, beta } => {
            let compute = args.precision.compute;
            let (alpha, beta) = (Scalar::new(&alpha, compute, "alpha")?, Scalar::new(&beta, compute, "beta")?);
            let vtag = value_tag(x.value_type);
            // Scaling by 1 is the identity (also through a narrower value type): skipping it
            // makes `Y += alpha X` cost X's entries, not all of Y (a halo update, say).
            if size > 0 && !beta.is_host_one(compute) {
                l.launch(
                    &format!("spblk_spvec_scale_{vtag}"),
                    l.grid(size as u64, BLOCK as u64),
                    BLOCK,
                    0,
                    Args::new().i64(size).ptr(y.values as u64).scalar(beta),
                )?;
            }
            if x.nnz == 0 {
                return Ok(());
            }
            l.launch(&format!("spblk_spvec_axpy_{vtag}_{itag}"), entries, BLOCK, 0, located().scalar(alpha))
        }
        SpvecUpdate::Rot { c, s } => {
            let compute = args.precision.compute;
            let (c, s) = (Scalar::new(&c, compute, "c_coeff")?, Scalar::new(&s, compute, "s_coeff")?);
            if x.nnz == 0 {
                return Ok(());
            }
            let name = format!("spblk_spvec_rot_{}_{itag}", value_tag(x.value_type));
            l.launch(&name, entries, BLOCK, 0, located().scalar(c).scalar(s))
        }
    }
}

/// SpVV's chunking: (blocks, entries per block), from nnz alone. A block takes at least
/// 2048 entries (8 per thread) and there are at most 1024 blocks (about 8 per SM on an H100).
fn chunks(nnz: i64) -> (i64, i64) {
    let blocks = (nnz.max(1) as u64).div_ceil(2048).min(1024) as i64;
    (blocks, (nnz.max(1) as u64).div_ceil(blocks as u64) as i64)
}

/// The workspace: the blocks' partial sums, then (pointer mode host) the result's slot.
pub fn layout(c: &mut Carve, args: &SpvvArgs) -> (u64, u64) {
    let t = args.precision.compute.size();
    let partials = c.take(chunks(args.x.nnz).0 as usize * t);
    let slot = if args.result_mode == PointerMode::Host { c.take(t) } else { 0 };
    (partials, slot)
}

pub fn spvv(l: &Launcher, args: &SpvvArgs, buffer: *mut c_void) -> Result<()> {
    let host_result = args.result_mode == PointerMode::Host;
    if host_result && capturing(l)? {
        return Err(Error::not_supported(
            "SpVV with its result in host memory needs the answer on the host, which a stream \
             being captured into a graph cannot give; capture it with SPBLK_POINTER_MODE_DEVICE",
        ));
    }
    let (x, y) = (args.x, args.y);
    let (partials, slot) = layout(&mut Carve::new(buffer), args);
    let (blocks, chunk) = chunks(x.nnz);
    let (idx, base, size) = positions(x);
    let itag = index_tag(x.index_type);
    let ctag = if args.precision.compute == DataType::F64 { "f64" } else { "f32" };
    l.launch(
        &format!("spblk_spvv_partial_{}_{itag}", value_tag(x.value_type)),
        blocks as u32,
        BLOCK,
        0,
        Args::new()
            .i64(x.nnz)
            .i64(chunk)
            .ptr(idx)
            .i64(base)
            .i64(size)
            .ptr(x.values as u64)
            .ptr(y.values as u64)
            .ptr(partials),
    )?;
    let out = if host_result { slot } else { args.result as u64 };
    l.launch(&format!("spblk_spvv_finish_{ctag}"), 1, BLOCK, 0, Args::new().i64(blocks).ptr(partials).ptr(out))?;
    if host_result {
        let mut bytes = vec![0u8; args.precision.compute.size()];
        l.read(slot, &mut bytes)?;
        // SAFETY: `result` is a writable value of the compute type in host memory (the
        // caller's contract in pointer mode host); checked non-NULL by ops.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), args.result as *mut u8, bytes.len()) };
    }
    Ok(())
}

/// Whether the launcher's stream is being captured into a graph.
fn capturing(l: &Launcher) -> Result<bool> {
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: out-pointer to a local; the stream is the caller's.
    check(unsafe { sys::cuStreamIsCapturing(l.stream, &mut status) }, "cuStreamIsCapturing")?;
    Ok(status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
}
