//! The rows of a triangle sorted by level (kernels/spsv/order.cu; docs/spsv.md, sessions 21 and
//! 29): every row's level pulled from the stored pattern by persistent warps in the triangle's
//! dependency order, then a stable radix sort by level. The SpSV analysis orders its solve by
//! it; the incomplete factorizations order their rows by it. Everything lives in the caller's
//! buffer.

use super::kernels::index_tag;
use super::launch::{Args, Carve, Launcher, BLOCK};
use super::prims::{key_bits, radix_sort, SortSpace};
use crate::error::Result;
use crate::types::IndexType;

/// Warps per block of the level pass (`ORDER_WARPS` in order.cu), and blocks per SM: a warp
/// waiting on an earlier ticket holds its own, so more warps in flight widen the window of rows
/// whose levels are being found.
const ORDER_WARPS: u32 = 4;
const ORDER_BLOCKS_PER_SM: u32 = 16;

/// Triangles of up to this many rows are sorted by level in one block (kernels/spsv/small.cu,
/// `SMALL_ROWS`), of `SMALL_THREADS` threads, as SpSV's offsets and tickets are.
pub(super) const SMALL_ROWS: i64 = 8192;
pub(super) const SMALL_THREADS: u32 = 1024;

/// The polls a warp of the level pass may leave outstanding (order.cu, `OrderPolls`): twice a
/// ticket's average stored entries, a power of two from 128 to 1024. A full list makes the
/// walk wait in place holding its ticket; a longer one costs blocks per SM (docs/spsv.md,
/// session 34).
fn poll_cap(n: i64, nnz: i64) -> u32 {
    let per_ticket = (64 * nnz.max(0) as u64).div_ceil(n.max(1) as u64);
    per_ticket.next_power_of_two().clamp(128, 1024) as u32
}

/// A stored CSR pattern (offsets and columns of the index type, `base`; `nnz` stored entries)
/// whose strict lower triangle (`lower`) or strict upper one is the triangle whose rows are
/// ordered; the other entries are skipped. `perm` (0: identity) maps its entries to A's stored
/// ones.
#[derive(Clone, Copy)]
pub struct Pattern {
    pub ptr: u64,
    pub col: u64,
    pub nnz: i64,
    pub base: i64,
    pub perm: u64,
    pub ity: IndexType,
    pub lower: bool,
}

/// What the level pass also counts per row when asked (u32 arrays of n): the row's entries in
/// the triangle, and the position in A's values of its first diagonal entry (u32::MAX: none).
#[derive(Clone, Copy)]
pub struct RowTally {
    pub kept: u64,
    pub diag_src: u64,
}

/// The level pass' space: each row's level, the ticket counter, the sort by level.
pub struct LevelOrder {
    level: u64,
    tickets: u64,
    sort: SortSpace,
}

impl LevelOrder {
    /// Space for `n` rows.
    pub fn carve(c: &mut Carve, n: usize) -> Self {
        // The counter right after the levels: both start at zero, one memset.
        let level = c.take((n + 1) * 4);
        LevelOrder { level, tickets: level + n as u64 * 4, sort: SortSpace::carve(c, n as u64) }
    }

    /// Each row's level (u32), as the last `run` left it.
    pub fn level(&self) -> u64 {
        self.level
    }

    /// Writes `order` (the row at each position: rows sorted by level, within a level by
    /// index), `position` (each row's position) and the tally if asked for.
    pub fn run(
        &self,
        l: &Launcher,
        a: Pattern,
        n: i64,
        order: u64,
        position: u64,
        tally: Option<RowTally>,
    ) -> Result<()> {
        let tally = tally.unwrap_or(RowTally { kept: 0, diag_src: 0 });
        let n64 = n as u64;
        let rows = l.grid(n64, BLOCK as u64);
        l.memset_u32(self.level, 0, n as usize + 1)?;
        let cap = poll_cap(n, a.nnz);
        l.launch(
            &format!("spblk_spsv_order_levels_{}", index_tag(a.ity)),
            l.resident_grid(n64.div_ceil(32), ORDER_WARPS as u64, ORDER_BLOCKS_PER_SM),
            ORDER_WARPS * 32,
            ORDER_WARPS * cap * 5,
            Args::new()
                .u32(n as u32)
                .ptr(a.ptr)
                .ptr(a.col)
                .i64(a.base)
                .i32(a.lower as i32)
                .ptr(a.perm)
                .ptr(self.level)
                .ptr(self.tickets)
                .ptr(tally.kept)
                .ptr(tally.diag_src)
                .u32(cap),
        )?;
        // The rows sorted by level, stably (rows of a level in index order).
        if n <= SMALL_ROWS {
            let small = Args::new().i64(n).ptr(self.level).ptr(order).ptr(position);
            return l.launch("spblk_spsv_order_small", 1, SMALL_THREADS, 0, small);
        }
        let sort = &self.sort;
        l.launch(
            "spblk_spsv_order_keys",
            rows,
            BLOCK,
            0,
            Args::new().i64(n).ptr(self.level).ptr(sort.keys[0]).ptr(sort.vals[0]),
        )?;
        let cur = radix_sort(l, sort, n64, key_bits(n64), 0)?;
        let place = Args::new().i64(n).ptr(sort.vals[cur]).ptr(order).ptr(position);
        l.launch("spblk_spsv_order_place", rows, BLOCK, 0, place)
    }
}
