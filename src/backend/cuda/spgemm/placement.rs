//! Where SpGEMM's rows too big for shared memory get their memory (the global symbolic
//! tables in `compute`, the global numeric tables and their sort's scratch in `copy`):
//! allocated at their sizes (DEFAULT, ALG1), carved from buffer 2 at the work estimation's
//! bounds (ALG2), or carved from buffer 2 one pass at a time (ALG3, docs/spgemm.md).

use std::sync::Arc;

use super::super::context::Device;
use super::super::launch::Carve;
use super::super::memory::DeviceAlloc as DevMem;
use super::super::prims::SortSpace;
use super::{
    layout2, STATS, STAT_GLOBAL_ENTRIES, STAT_GLOBAL_MAX_ENTRIES, STAT_GLOBAL_SLOTS, STAT_POOL, STAT_POOL_MAX,
};
use crate::backend::{SpgemmArgs, SpgemmMethod, SpgemmState};
use crate::error::{Error, Result};

/// Where the rows too big for shared memory get their tables and scratch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Placement {
    /// Allocated in `compute` and `copy`, at their sizes (DEFAULT, ALG1).
    Allocated,
    /// Carved from buffer 2, at the work estimation's bounds (ALG2).
    InBuffer,
    /// Carved from buffer 2, in passes over windows of the symbolic pool and of the numeric
    /// scratch (ALG3).
    InPasses(Windows),
}

/// ALG3's windows: `chunk_fraction` of the symbolic pool (u32 words) and of the global rows'
/// entries (their bounds from the work estimation), at least 1. A symbolic pass takes the rows
/// whose table starts in its window; a numeric pass whole rows up to the window plus the
/// largest row's entries. So a pass's memory is a window plus one row's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Windows {
    pub(super) pool_words: u64,
    pub(super) entries: u64,
}

impl Placement {
    pub(super) fn of(args: &SpgemmArgs, state: &SpgemmState, stats: &[u64; STATS]) -> Result<Self> {
        Ok(match args.method {
            SpgemmMethod::BinnedHash => Placement::Allocated,
            SpgemmMethod::Esc => return Err(Error::internal("the ESC method plans its own buffer 2 (spgemm/esc.rs)")),
            SpgemmMethod::BinnedHashInBuffer => Placement::InBuffer,
            SpgemmMethod::BinnedHashInChunks => {
                let f = state.chunk_fraction.ok_or_else(|| {
                    Error::invalid("spgemmDescr", "has no chunk_fraction (call spblkSpGEMM_estimateMemory first)")
                })? as f64;
                let part = |total: u64| ((total as f64 * f).ceil() as u64).max(1);
                Placement::InPasses(Windows {
                    pool_words: part(stats[STAT_POOL]),
                    entries: part(stats[STAT_GLOBAL_ENTRIES]),
                })
            }
        })
    }

    /// Buffer 2's bytes past its layout (None: allocated as needed).
    pub(super) fn bytes(self, stats: &[u64; STATS], tsize: usize) -> Option<usize> {
        match self {
            Placement::Allocated => None,
            Placement::InBuffer => Some(symbolic_pool_bytes(stats).max(numeric_scratch_bytes(
                stats[STAT_GLOBAL_SLOTS],
                stats[STAT_GLOBAL_ENTRIES],
                tsize,
            ))),
            Placement::InPasses(w) => {
                let symbolic =
                    if stats[STAT_POOL] > 0 { 4 * (w.pool_words + stats[STAT_POOL_MAX]) as usize } else { 0 };
                let room = w.entries + stats[STAT_GLOBAL_MAX_ENTRIES];
                let numeric =
                    if stats[STAT_GLOBAL_ENTRIES] > 0 { numeric_scratch_bytes(4 * room, room, tsize) } else { 0 };
                Some(symbolic.max(numeric))
            }
        }
    }
}

fn symbolic_pool_bytes(stats: &[u64; STATS]) -> usize {
    stats[STAT_POOL] as usize * 4
}

/// `copy`'s global rows: tables of `slots` (keys and values), then the scratch of `entries`
/// (as `copy` takes them).
fn numeric_scratch_bytes(slots: u64, entries: u64, tsize: usize) -> usize {
    let slots = slots as usize;
    let mut c = Carve::measure();
    for bytes in [slots * 4, slots * tsize, scratch_bytes(entries, tsize)] {
        c.take(bytes);
    }
    c.size()
}

/// The global rows' entries unsorted (columns, row ranks, values) and the sort's buffers.
pub(super) fn scratch_bytes(t2: u64, tsize: usize) -> usize {
    let mut c = Carve::measure();
    SortSpace::carve(&mut c, t2);
    c.take(t2 as usize * 4);
    c.take(t2 as usize * 4);
    c.take(t2 as usize * tsize);
    if t2 > 0 {
        c.size()
    } else {
        0
    }
}

/// Device memory for the rows too big for shared memory: carved from the rest of buffer 2
/// (ALG2, ALG3; sized by `compute_size`, `limit` bytes) or allocated, and freed when dropped.
pub(super) struct Workspace<'d> {
    dev: &'d Arc<Device>,
    carve: Option<(Carve, usize)>,
    owned: Vec<DevMem>,
}

impl<'d> Workspace<'d> {
    pub(super) fn new(
        dev: &'d Arc<Device>,
        args: &SpgemmArgs,
        placement: Placement,
        buffer2: u64,
        stats: &[u64; STATS],
    ) -> Self {
        let carve = placement.bytes(stats, args.compute.size()).map(|limit| {
            let mut c = Carve::new(buffer2 as *mut _);
            layout2(&mut c, args.a.rows as usize, stats);
            (Carve::new(c.take(1) as *mut _), limit)
        });
        Workspace { dev, carve, owned: Vec::new() }
    }
    pub(super) fn take(&mut self, bytes: usize) -> Result<u64> {
        match &mut self.carve {
            Some((c, limit)) => {
                let p = c.take(bytes);
                if c.size() > *limit {
                    return Err(Error::internal(format!("SpGEMM: buffer 2's bound ({limit} bytes) was exceeded")));
                }
                Ok(p)
            }
            None => {
                let m = DevMem::new(self.dev, bytes, "SpGEMM")?;
                let p = m.ptr;
                self.owned.push(m);
                Ok(p)
            }
        }
    }
}

/// ALG3's numeric passes: consecutive rows (their segment `starts`, ascending, of `total`
/// entries in all) grouped into ranges of at most `room` entries; a row alone may take a
/// pass whatever its size (the room holds the largest row).
pub(super) fn group_passes(starts: &[u64], total: u64, room: u64) -> Vec<(u64, u64)> {
    let mut passes = Vec::new();
    let mut lo = 0;
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(total);
        if end - lo > room && start > lo {
            passes.push((lo, start));
            lo = start;
        }
    }
    passes.push((lo, total));
    passes
}

#[cfg(test)]
mod tests {
    use super::group_passes;

    #[test]
    fn passes_group_whole_rows_within_the_room() {
        // Rows of 5, 3, 4, 9 and 2 entries.
        let starts = [0, 5, 8, 12, 21];
        assert_eq!(group_passes(&starts, 23, 9), vec![(0, 8), (8, 12), (12, 21), (21, 23)]);
        assert_eq!(group_passes(&starts, 23, 12), vec![(0, 12), (12, 23)]);
        assert_eq!(group_passes(&starts, 23, 100), vec![(0, 23)]);
        // A row over the room still gets a pass of its own.
        assert_eq!(group_passes(&starts, 23, 4), vec![(0, 5), (5, 8), (8, 12), (12, 21), (21, 23)]);
        assert_eq!(group_passes(&[0], 7, 3), vec![(0, 7)]);
    }
}
