//! Dense transposes into the workspace (kernels/convert/dense.cu): a strided operand copied
//! so that the product kernels read it with unit stride.

use super::kernels::value_tag;
use super::launch::{Args, Launcher, Scalar};
use crate::error::Result;
use crate::types::DataType;

/// `dst[r*ldd + c] = src[r + c*lds]` for `r < rows`, `c < cols`, with `src = (address, lds)`
/// and `dst = (address, ldd)`; elements of `esize` bytes (2, 4 or 8; copied as raw words).
pub fn transpose(l: &Launcher, rows: i64, cols: i64, src: (u64, i64), dst: (u64, i64), esize: u64) -> Result<()> {
    let word = match esize {
        2 => "b16",
        4 => "b32",
        _ => "b64",
    };
    let tiles = (rows.max(0) as u64).div_ceil(32) * (cols.max(0) as u64).div_ceil(32);
    l.launch(
        &format!("spblk_dense_transpose_{word}"),
        l.grid(tiles * 256, 256),
        256,
        0,
        Args::new().i64(rows).i64(cols).ptr(src.0).i64(src.1).ptr(dst.0).i64(dst.1),
    )
}

/// `C[i + j*ldc] = alpha·W[i*ldw + j] + beta·C[i + j*ldc]` for `i < rows`, `j < cols`: W row-major
/// in the compute type of `out` (f64 for f64, else f32), C column-major of type `out`.
pub fn axpby_transpose(
    l: &Launcher,
    rows: i64,
    cols: i64,
    w: (u64, i64),
    c: (u64, i64),
    out: DataType,
    (alpha, beta): (Scalar, Scalar),
) -> Result<()> {
    let tiles = (rows.max(0) as u64).div_ceil(32) * (cols.max(0) as u64).div_ceil(32);
    l.launch(
        &format!("spblk_dense_axpby_transpose_{}", value_tag(out)),
        l.grid(tiles * 256, 256),
        256,
        0,
        Args::new().i64(rows).i64(cols).ptr(w.0).i64(w.1).ptr(c.0).i64(c.1).scalar(alpha).scalar(beta),
    )
}
