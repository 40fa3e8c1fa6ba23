//! The legacy sorts (`spblkXcsrsort`, `spblkXcscsort`, `spblkXcoosortBy*`) from the radix sort
//! of common/radix.cu, least significant key first: a stable sort by the index within the
//! line, then a stable sort of that order by line; then every array is gathered through the
//! final permutation (spblk_convert_values) from a copy in the workspace.

use std::ffi::c_void;

use super::launch::{Args, Carve, Launcher, BLOCK};
use super::prims::{key_bits, radix_sort, radix_sort_index, Carried, SortSpace};
use crate::backend::{SortArgs, SortLines};
use crate::error::Result;
use crate::types::IndexType;

/// `spblk_convert_rows_*`'s entries per block (kernels/convert/rows.cuh).
const ROWS_TILE: u64 = 2048;

struct Space {
    sort: SortSpace,
    /// Each entry's line from CSR/CSC offsets (u32).
    lines: u64,
    /// Copies of the arrays being rewritten.
    minor: u64,
    major: u64,
    perm: u64,
}

fn layout(c: &mut Carve, a: &SortArgs) -> Space {
    let n = a.nnz as u64;
    let words = n as usize * 4;
    let sort = SortSpace::carve(c, n);
    let offsets = matches!(a.line_of, SortLines::Offsets(_));
    Space {
        sort,
        lines: if offsets { c.take(words) } else { 0 },
        minor: c.take(words),
        major: if offsets { 0 } else { c.take(words) },
        // Always: `_bufferSizeExt` does not know whether P will be given.
        perm: c.take(words),
    }
}

pub fn buffer_size(a: &SortArgs) -> usize {
    let mut c = Carve::measure();
    layout(&mut c, a);
    c.size()
}

/// dst[k] = src[perm[k]] for 4-byte words.
fn gather(l: &Launcher, perm: u64, n: u64, src: u64, dst: u64) -> Result<()> {
    l.launch(
        "spblk_convert_values",
        l.grid(n, BLOCK as u64),
        BLOCK,
        0,
        Args::new().ptr(perm).u64(n).ptr(src).ptr(dst).i32(4).ptr(0),
    )
}

pub fn run(l: &Launcher, a: &SortArgs, buffer: *mut c_void) -> Result<()> {
    let n = a.nnz as u64;
    if n == 0 {
        return Ok(());
    }
    let s = layout(&mut Carve::new(buffer), a);
    // COO indices are compared as stored (either base): one more possible value.
    let slot = radix_sort_index(
        l,
        &s.sort,
        n,
        key_bits(a.len as u64 + 1),
        (a.minor as u64, IndexType::I32, a.base),
        Carried::Position,
        None,
        0,
    )?;
    let line_of = match a.line_of {
        SortLines::Offsets(ptr) => {
            l.launch(
                "spblk_convert_rows_i32",
                l.grid(n, ROWS_TILE),
                BLOCK,
                0,
                Args::new().ptr(ptr as u64).i64(a.lines).i64(a.base).u64(n).ptr(s.lines).ptr(0),
            )?;
            s.lines
        }
        SortLines::Indices(p) => p as u64,
    };
    // The sorted keys are not needed any more: their array takes the lines in that order.
    gather(l, s.sort.vals[slot], n, line_of, s.sort.keys[slot])?;
    let done = radix_sort(l, &s.sort, n, key_bits(a.lines as u64 + 1), slot)?;
    let perm = s.sort.vals[done];
    let bytes = n as usize * 4;
    for (array, copy) in [(a.minor as u64, s.minor), (major(a), s.major), (a.perm as u64, s.perm)] {
        // 0: no such array (CSR/CSC offsets stay; P not given).
        if array != 0 && copy != 0 {
            l.copy(copy, array, bytes)?;
            gather(l, perm, n, copy, array)?;
        }
    }
    Ok(())
}

/// The COO index array sorted first (0 for CSR and CSC, whose offsets stay as they are).
fn major(a: &SortArgs) -> u64 {
    match a.line_of {
        SortLines::Indices(p) => p as u64,
        SortLines::Offsets(_) => 0,
    }
}
