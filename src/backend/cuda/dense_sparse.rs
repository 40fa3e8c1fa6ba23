//! Dense <-> sparse conversions (kernels/convert/dense_sparse.cu). DenseToSparse counts each
//! line's nonzeros (one warp per line), scans the counts into line offsets in the workspace,
//! and fills B from them; convert recounts rather than trusting a workspace the caller may
//! have reused, and never writes past B's nnz.

use cudarc::driver::sys;

use super::context::check;
use super::kernels::index_tag;
use super::launch::{Args, Carve, Launcher, BLOCK};
use super::prims::{scan, scan_tmp_bytes, Width};
use crate::backend::{DenseToSparseArgs, SparseToDenseArgs};
use crate::descr::{DnMat, SparsePattern};
use crate::error::{Error, Result};
use crate::types::{DataType, Order};

/// The word an element moves as, and the mask under which it is zero (sign bits of
/// floating-point components cleared).
fn word(t: DataType) -> (&'static str, u64) {
    use DataType::*;
    match t {
        I8 => ("b8", 0xff),
        F16 | BF16 => ("b16", 0x7fff),
        C16 | CBF16 => ("b32", 0x7fff_7fff),
        F32 => ("b32", 0x7fff_ffff),
        I32 => ("b32", 0xffff_ffff),
        C32 => ("b64", 0x7fff_ffff_7fff_ffff),
        F64 => ("b64", u64::MAX >> 1),
        C64 => ("b128", u64::MAX >> 1),
    }
}

/// Elements between consecutive rows and consecutive columns of a dense matrix.
fn strides(d: &DnMat) -> (i64, i64) {
    match d.order {
        Order::Row => (d.ld, 1),
        Order::Col => (1, d.ld),
    }
}

/// A read in B's order: (lines, line length, line stride, k stride).
fn walk(args: &DenseToSparseArgs) -> (i64, i64, i64, i64) {
    let (rs, cs) = strides(args.a);
    match args.b.pattern {
        SparsePattern::Csc { .. } => (args.a.cols, args.a.rows, cs, rs),
        _ => (args.a.rows, args.a.cols, rs, cs),
    }
}

/// The workspace: line offsets (lines + 1, u64) and the scan's scratch.
fn layout(c: &mut Carve, lines: i64) -> (u64, u64) {
    let n = lines as u64 + 1;
    (c.take(n as usize * 8), c.take(scan_tmp_bytes(n, Width::U64)))
}

pub fn buffer_size(args: &DenseToSparseArgs) -> usize {
    if let SparsePattern::BlockedEll { .. } = args.b.pattern {
        return 0;
    }
    let mut c = Carve::measure();
    layout(&mut c, walk(args).0);
    c.size()
}

/// Counts each line's nonzeros and scans them into line offsets; returns their address.
fn line_offsets(l: &Launcher, args: &DenseToSparseArgs, buffer: *mut std::ffi::c_void) -> Result<u64> {
    let (lines, len, line_stride, k_stride) = walk(args);
    let (offsets, tmp) = layout(&mut Carve::new(buffer), lines);
    let (w, mask) = word(args.a.value_type);
    l.memset_u32(offsets + lines as u64 * 8, 0, 2)?;
    if lines > 0 {
        l.launch(
            &format!("spblk_dense_to_sparse_count_{w}"),
            l.grid(lines as u64 * 32, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .i64(lines)
                .i64(len)
                .ptr(args.a.values as u64)
                .i64(line_stride)
                .i64(k_stride)
                .u64(mask)
                .ptr(offsets),
        )?;
    }
    scan(l, offsets, lines as u64 + 1, Width::U64, tmp, 0)?;
    Ok(offsets)
}

pub fn analysis(l: &Launcher, args: &DenseToSparseArgs, buffer: *mut std::ffi::c_void) -> Result<i64> {
    let b = args.b;
    if let SparsePattern::BlockedEll { .. } = b.pattern {
        // The caller's block columns fix the pattern: nothing to count.
        return Ok(b.nnz);
    }
    let lines = walk(args).0;
    let offsets = line_offsets(l, args, buffer)?;
    let nnz = l.read_u64s(offsets + lines as u64 * 8, 1)?[0] as i64;
    if nnz + b.base.offset() > b.offsets_type.max_value() {
        return Err(Error::invalid("matB", format!("cannot hold nnz = {nnz} in its index type")));
    }
    let dst = match b.pattern {
        SparsePattern::Csr { row_offsets, .. } => row_offsets,
        SparsePattern::Csc { col_offsets, .. } => col_offsets,
        SparsePattern::Coo { .. } => return Ok(nnz),
        _ => return Err(b.unsupported("DenseToSparse")),
    };
    if lines > 0 {
        l.launch(
            &format!("spblk_dense_to_sparse_offsets_{}", index_tag(b.offsets_type)),
            l.grid(lines as u64 + 1, BLOCK as u64),
            BLOCK,
            0,
            Args::new().i64(lines + 1).ptr(offsets).i64(b.base.offset()).ptr(dst as u64),
        )?;
        l.sync()?;
    }
    Ok(nnz)
}

pub fn convert(l: &Launcher, args: &DenseToSparseArgs, buffer: *mut std::ffi::c_void) -> Result<()> {
    let b = args.b;
    if let SparsePattern::BlockedEll { col_ind, block, ell_cols } = b.pattern {
        if b.nnz == 0 {
            return Ok(());
        }
        let (rs, cs) = strides(args.a);
        let name = format!("spblk_dense_to_blocked_ell_{}_{}", word(b.value_type).0, index_tag(b.indices_type));
        let grid = l.grid(b.nnz as u64, BLOCK as u64);
        let a = Args::new().i64(b.rows).i64(b.cols / block).i64(block).i64(ell_cols).ptr(args.a.values as u64);
        let a = a.i64(rs).i64(cs).ptr(col_ind as u64).i64(b.base.offset()).ptr(b.values as u64);
        return l.launch(&name, grid, BLOCK, 0, a);
    }
    let (lines, len, line_stride, k_stride) = walk(args);
    if lines == 0 || b.nnz == 0 {
        return Ok(());
    }
    let offsets = line_offsets(l, args, buffer)?;
    let (major, minor) = match b.pattern {
        SparsePattern::Csr { col_ind, .. } => (0, col_ind as u64),
        SparsePattern::Csc { row_ind, .. } => (0, row_ind as u64),
        SparsePattern::Coo { row_ind, col_ind } => (row_ind as u64, col_ind as u64),
        _ => return Err(b.unsupported("DenseToSparse")),
    };
    let (w, mask) = word(args.a.value_type);
    l.launch(
        &format!("spblk_dense_to_sparse_fill_{w}_{}", index_tag(b.indices_type)),
        l.grid(lines as u64 * 32, BLOCK as u64),
        BLOCK,
        0,
        Args::new()
            .i64(lines)
            .i64(len)
            .ptr(args.a.values as u64)
            .i64(line_stride)
            .i64(k_stride)
            .u64(mask)
            .ptr(offsets)
            .i64(b.nnz)
            .i64(b.base.offset())
            .ptr(major)
            .ptr(minor)
            .ptr(b.values as u64),
    )
}

pub fn sparse_to_dense(l: &Launcher, args: &SparseToDenseArgs) -> Result<()> {
    let (a, b) = (args.a, args.b);
    if b.rows == 0 || b.cols == 0 {
        return Ok(());
    }
    let e = b.value_type.size();
    let (outer, inner) = match b.order {
        Order::Row => (b.rows, b.cols),
        Order::Col => (b.cols, b.rows),
    };
    // SAFETY: B spans `outer` lines of `inner` elements, `ld` apart (validated descriptor).
    check(
        unsafe {
            sys::cuMemsetD2D8Async(b.values as u64, b.ld as usize * e, 0, inner as usize * e, outer as usize, l.stream)
        },
        "cuMemsetD2D8Async",
    )?;
    if a.nnz == 0 {
        return Ok(());
    }
    let (w, _) = word(a.value_type);
    let itag = index_tag(a.indices_type);
    let (rs, cs) = strides(b);
    let base = a.base.offset();
    match a.pattern {
        SparsePattern::Csr { row_offsets: ptr, col_ind: idx }
        | SparsePattern::Csc { col_offsets: ptr, row_ind: idx } => {
            let csc = matches!(a.pattern, SparsePattern::Csc { .. });
            let (lines, minor_n, ms, ns) = if csc { (a.cols, a.rows, cs, rs) } else { (a.rows, a.cols, rs, cs) };
            l.launch(
                &format!("spblk_sparse_to_dense_compressed_{w}_{itag}"),
                l.grid(lines as u64 * 32, BLOCK as u64),
                BLOCK,
                0,
                Args::new()
                    .i64(lines)
                    .i64(minor_n)
                    .ptr(ptr as u64)
                    .ptr(idx as u64)
                    .ptr(a.values as u64)
                    .i64(base)
                    .ptr(b.values as u64)
                    .i64(ms)
                    .i64(ns),
            )
        }
        SparsePattern::Coo { row_ind, col_ind } => l.launch(
            &format!("spblk_sparse_to_dense_coo_{w}_{itag}"),
            l.grid(a.nnz as u64, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .i64(a.nnz)
                .i64(a.rows)
                .i64(a.cols)
                .ptr(row_ind as u64)
                .ptr(col_ind as u64)
                .ptr(a.values as u64)
                .i64(base)
                .ptr(b.values as u64)
                .i64(rs)
                .i64(cs),
        ),
        _ => Err(a.unsupported("SparseToDense")),
    }
}
