//! Device-wide building blocks: exclusive scan and stable radix sort (kernels/common).

use super::launch::{Args, Carve, Launcher, BLOCK};
use crate::error::{Error, Result};

const SCAN_TILE: u64 = 2048;
const RADIX_TILE: u64 = 4096;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Width {
    U32,
    U64,
}

impl Width {
    fn tag(self) -> &'static str {
        match self {
            Width::U32 => "u32",
            Width::U64 => "u64",
        }
    }
    fn bytes(self) -> usize {
        match self {
            Width::U32 => 4,
            Width::U64 => 8,
        }
    }
}

/// Workspace bytes for scanning `n` elements.
pub fn scan_tmp_bytes(n: u64, w: Width) -> usize {
    (n.div_ceil(SCAN_TILE).max(1) as usize) * w.bytes()
}

/// Exclusive scan of `n` elements at `data`, in place; writes the total to `total` (0 = skip).
pub fn scan(l: &Launcher, data: u64, n: u64, w: Width, tmp: u64, total: u64) -> Result<()> {
    let tiles = n.div_ceil(SCAN_TILE);
    let t = w.tag();
    if tiles > 0 {
        let g = l.grid(tiles, 1);
        l.launch(&format!("spblk_scan_reduce_{t}"), g, BLOCK, 0, Args::new().ptr(data).u64(n).ptr(tmp))?;
    }
    l.launch(&format!("spblk_scan_sums_{t}"), 1, 1024, 0, Args::new().ptr(tmp).u64(tiles).ptr(total))?;
    if tiles > 0 {
        let g = l.grid(tiles, 1);
        l.launch(&format!("spblk_scan_down_{t}"), g, BLOCK, 0, Args::new().ptr(data).u64(n).ptr(tmp))?;
    }
    Ok(())
}

/// Workspace of a radix sort of `n` (key, value) pairs: two key and two value arrays,
/// digit histograms and the scan of those.
pub struct SortSpace {
    pub keys: [u64; 2],
    pub vals: [u64; 2],
    hist: u64,
    scan_tmp: u64,
}

impl SortSpace {
    pub fn carve(c: &mut Carve, n: u64) -> SortSpace {
        let tiles = n.div_ceil(RADIX_TILE).max(1);
        SortSpace {
            keys: [c.take(n as usize * 4), c.take(n as usize * 4)],
            vals: [c.take(n as usize * 4), c.take(n as usize * 4)],
            hist: c.take(256 * tiles as usize * 4),
            scan_tmp: c.take(scan_tmp_bytes(256 * tiles, Width::U32)),
        }
    }
}

/// Number of bits that keys below `bound` need.
pub fn key_bits(bound: u64) -> u32 {
    if bound <= 1 {
        0
    } else {
        64 - (bound - 1).leading_zeros()
    }
}

/// Sorts the `n` pairs in `s.keys[start]`/`s.vals[start]` by the low `bits` bits of the
/// keys, stably. Returns which of the two arrays holds the result (0 or 1).
pub fn radix_sort(l: &Launcher, s: &SortSpace, n: u64, bits: u32, start: usize) -> Result<usize> {
    if n > u32::MAX as u64 {
        return Err(Error::not_supported(format!("sorting {n} entries (more than 2^32) on the GPU")));
    }
    let tiles = n.div_ceil(RADIX_TILE);
    let mut cur = start;
    if tiles == 0 {
        return Ok(start);
    }
    let g = l.grid(tiles, 1);
    for shift in (0..bits).step_by(8) {
        l.launch(
            "spblk_radix_hist",
            g,
            BLOCK,
            0,
            Args::new().ptr(s.keys[cur]).u64(n).u32(shift).ptr(s.hist).u64(tiles),
        )?;
        scan(l, s.hist, 256 * tiles, Width::U32, s.scan_tmp, 0)?;
        l.launch(
            "spblk_radix_scatter",
            g,
            BLOCK,
            0,
            Args::new()
                .ptr(s.keys[cur])
                .ptr(s.vals[cur])
                .u64(n)
                .u32(shift)
                .ptr(s.hist)
                .u64(tiles)
                .ptr(s.keys[1 - cur])
                .ptr(s.vals[1 - cur]),
        )?;
        cur = 1 - cur;
    }
    Ok(cur)
}
