//! Device-wide building blocks: exclusive scan and stable radix sort (kernels/common).

use super::kernels::index_tag;
use super::launch::{Args, Carve, Launcher, BLOCK};
use crate::error::{Error, Result};
use crate::types::IndexType;

const SCAN_TILE: u64 = 2048;

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

/// Up to this many elements, one block scans them all (`spblk_scan_sums`, a chunk of 1024 at a
/// time) in one launch instead of three.
const SCAN_ONE_BLOCK: u64 = 8192;

/// Exclusive scan of `n` elements at `data`, in place; writes the total to `total` (0 = skip).
pub fn scan(l: &Launcher, data: u64, n: u64, w: Width, tmp: u64, total: u64) -> Result<()> {
    let tiles = n.div_ceil(SCAN_TILE);
    let t = w.tag();
    if n <= SCAN_ONE_BLOCK {
        return l.launch(&format!("spblk_scan_sums_{t}"), 1, 1024, 0, Args::new().ptr(data).u64(n).ptr(total));
    }
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

/// Words of the sort state before the per-tile status (kernels/common/radix.cu).
const STATE_HEAD: u64 = 1056;
const MAX_PASSES: u32 = 4;
/// `RADIX_BLOCKS_PER_SM` in radix.cu.
const PASS_BLOCKS_PER_SM: u32 = 2;

/// Items per tile of a pass that carries `words` payload words (`Tile<W>` in radix.cu).
fn tile_items(words: usize) -> u64 {
    if words == 1 {
        6144
    } else {
        4096
    }
}

/// Dynamic shared memory of a pass: the sorted tile's keys and payload words.
fn tile_shared(words: usize) -> u32 {
    (tile_items(words) * (1 + words as u64) * 4) as u32
}

/// Workspace of a radix sort of `n` keys with one or two u32 payload words: two key arrays,
/// two arrays per payload word (`vals`, and `vals2` with two words; 0 otherwise) and the sort
/// state (digit counts, tile counters, a status word per tile and digit).
pub struct SortSpace {
    pub keys: [u64; 2],
    pub vals: [u64; 2],
    vals2: [u64; 2],
    state: u64,
    state_words: u64,
}

impl SortSpace {
    /// For (key, value) pairs.
    pub fn carve(c: &mut Carve, n: u64) -> SortSpace {
        Self::carve_words(c, n, 1)
    }

    /// For keys with `words` (1 or 2) payload words.
    pub fn carve_words(c: &mut Carve, n: u64, words: usize) -> SortSpace {
        let state_words = STATE_HEAD + 2 * 256 * n.div_ceil(tile_items(words)).max(1);
        let mut array = || c.take(n as usize * 4);
        let keys = [array(), array()];
        let vals = [array(), array()];
        let vals2 = if words == 2 { [array(), array()] } else { [0, 0] };
        SortSpace { keys, vals, vals2, state: c.take(state_words as usize * 4), state_words }
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

/// What a conversion's sort carries with each index (`IndexSource` in radix.cu).
#[derive(Clone, Copy)]
pub enum Carried {
    /// Its position: the sort yields the permutation.
    Position,
    /// The entry's old major index, from `minor_of` (u32) or, when that is 0, from `other`
    /// (the COO index array, minus the base).
    Minor { minor_of: u64, other: u64 },
    /// The old major index and the value's bits (values of at most 4 bytes).
    MinorValue { minor_of: u64, other: u64, val: u64, elem_bytes: i32 },
}

/// Where the last pass of a conversion writes the carried minor indices (`idx_bytes`-byte
/// integers plus `base`) and, with `Carried::MinorValue`, the values (0: not written).
#[derive(Clone, Copy)]
pub struct Destination {
    pub idx: u64,
    pub base: i64,
    pub idx_bytes: i32,
    pub val: u64,
}

/// Sorts the `n` pairs in `s.keys[start]`/`s.vals[start]` by the low `bits` bits of the
/// keys, stably. Returns which of the two arrays holds the result (0 or 1).
pub fn radix_sort(l: &Launcher, s: &SortSpace, n: u64, bits: u32, start: usize) -> Result<usize> {
    if n == 0 || bits == 0 {
        return Ok(start);
    }
    sort(l, s, n, bits, None, start, None, 0)
}

/// Which of the workspace's arrays `radix_sort_index` leaves its result in, for `bits`-bit
/// keys and at least one entry.
pub fn index_sort_slot(bits: u32) -> usize {
    let passes = bits.max(1).div_ceil(8).min(MAX_PASSES);
    if passes % 2 == 1 {
        0
    } else {
        1
    }
}

/// Sorts the entries of an index array (`ity`, minus `base`) by their index, stably, with
/// what `carried` says (at least one pass). Returns which of the workspace's key arrays holds
/// the sorted indices; with `Carried::Position` the permutation is in `vals` beside them, and
/// with a `Destination` the carried words are written there instead. `needed` (0: always)
/// is the address of a u32 word: where it holds 0 when the sort's kernels start, they do
/// nothing (an earlier kernel did the work; `skipped` in kernels/common/types.cuh).
#[allow(clippy::too_many_arguments)]
pub fn radix_sort_index(
    l: &Launcher,
    s: &SortSpace,
    n: u64,
    bits: u32,
    (idx, ity, base): (u64, IndexType, i64),
    carried: Carried,
    dest: Option<Destination>,
    needed: u64,
) -> Result<usize> {
    if n == 0 {
        return Ok(1);
    }
    let slot = sort(l, s, n, bits.max(1), Some((idx, ity, base, carried)), 1, dest, needed)?;
    debug_assert_eq!(slot, index_sort_slot(bits));
    Ok(slot)
}

type IndexInput = (u64, IndexType, i64, Carried);

#[allow(clippy::too_many_arguments)]
fn sort(
    l: &Launcher,
    s: &SortSpace,
    n: u64,
    bits: u32,
    index: Option<IndexInput>,
    start: usize,
    dest: Option<Destination>,
    needed: u64,
) -> Result<usize> {
    if n > u32::MAX as u64 {
        return Err(Error::not_supported(format!("sorting {n} entries (more than 2^32) on the GPU")));
    }
    let words = match index {
        Some((.., Carried::MinorValue { .. })) => 2,
        _ => 1,
    };
    let passes = bits.div_ceil(8).min(MAX_PASSES);
    let tiles = n.div_ceil(tile_items(words));
    l.memset_u32(s.state, 0, s.state_words as usize)?;
    let counts = match index {
        None => ("spblk_radix_counts_pairs".to_string(), Args::new().ptr(s.keys[start]).u64(n)),
        Some((idx, ity, base, _)) => {
            (format!("spblk_radix_counts_{}", index_tag(ity)), Args::new().ptr(idx).i64(base).u64(n))
        }
    };
    l.launch(&counts.0, l.grid(n, 16 * BLOCK as u64), BLOCK, 0, counts.1.u32(passes).ptr(s.state).ptr(needed))?;
    // The passes take tiles from a counter: blocks beyond those resident would find none.
    let g = l.resident_grid(tiles, 1, PASS_BLOCKS_PER_SM);
    let mut cur = start;
    for pass in 0..passes {
        let (name, args) = match (index, pass) {
            (Some((idx, ity, base, carried)), 0) => {
                let (minor_of, other, val) = match carried {
                    Carried::Position => (0, 0, 0),
                    Carried::Minor { minor_of, other } => (minor_of, other, 0),
                    Carried::MinorValue { minor_of, other, val, .. } => (minor_of, other, val),
                };
                let args = Args::new().ptr(idx).i64(base).ptr(minor_of).ptr(other).ptr(val);
                (format!("spblk_radix_pass_{}_w{words}", index_tag(ity)), args)
            }
            _ => (
                format!("spblk_radix_pass_pairs_w{words}"),
                Args::new().ptr(s.keys[cur]).ptr(s.vals[cur]).ptr(s.vals2[cur]),
            ),
        };
        let last = pass + 1 == passes;
        let sink = dest.filter(|_| last);
        let elem_bytes = match index {
            Some((.., Carried::MinorValue { elem_bytes, .. })) => elem_bytes,
            _ => 0,
        };
        let args = args
            .u64(n)
            .u32(8 * pass)
            .u32(pass + 1)
            .ptr(s.state)
            .u64(tiles)
            .ptr(s.keys[1 - cur])
            .ptr(s.vals[1 - cur])
            .ptr(s.vals2[1 - cur])
            .ptr(sink.map_or(0, |d| d.idx))
            .i64(sink.map_or(0, |d| d.base))
            .i32(sink.map_or(0, |d| d.idx_bytes))
            .ptr(sink.map_or(0, |d| d.val))
            .i32(elem_bytes)
            .ptr(needed);
        l.launch(&name, g, BLOCK, tile_shared(words), args)?;
        cur = 1 - cur;
    }
    Ok(cur)
}
