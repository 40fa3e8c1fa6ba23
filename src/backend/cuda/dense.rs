//! Dense transposes into the workspace (kernels/convert/dense.cu): a strided operand copied
//! so that the product kernels read it with unit stride.

use super::launch::{Args, Launcher};
use crate::error::Result;

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
