//! The legacy index-array helpers (kernels/convert/coo.cu, and the radix sort's iota).

use super::launch::{Args, Launcher, BLOCK};
use crate::backend::IndexArrays;
use crate::error::Result;

pub fn run(l: &Launcher, op: &IndexArrays) -> Result<()> {
    match *op {
        IndexArrays::Identity { n, p } if n > 0 => l.launch(
            "spblk_iota_u32",
            l.grid(n as u64, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(p as u64).u64(n as u64),
        ),
        IndexArrays::CsrToCoo { m, nnz, offsets, rows, base } if m > 0 && nnz > 0 => l.launch(
            "spblk_csr2coo_rows",
            l.grid(m as u64 * 32, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(offsets as u64).i64(m).i64(base).i64(nnz).ptr(rows as u64),
        ),
        IndexArrays::CooToCsr { m, nnz, rows, offsets, base } => l.launch(
            "spblk_coo2csr_offsets",
            l.grid(m as u64 + 1, BLOCK as u64),
            BLOCK,
            0,
            Args::new().ptr(rows as u64).i64(nnz).i64(m).i64(base).ptr(offsets as u64),
        ),
        _ => Ok(()),
    }
}
