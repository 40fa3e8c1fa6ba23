//! The rows of a triangle sorted by level (kernels/spsv/order.cu; docs/spsv.md, session 21):
//! each row's dependents listed, Kahn's algorithm by persistent warps computing every row's
//! level, then a stable radix sort by level. The SpSV analysis orders its solve by it; the
//! incomplete factorizations order their rows by it. Everything lives in the caller's buffer.

use super::kernels::index_tag;
use super::launch::{Args, Carve, Launcher, BLOCK};
use super::prims::{key_bits, radix_sort, scan, SortSpace, Width};
use crate::error::Result;
use crate::types::IndexType;

/// Warps per block of the level pass (`__launch_bounds__(128)`), and blocks per SM: a warp
/// keeps the rows it makes ready on its own lanes, so a wavefront needs a warp per 32 of its
/// rows; idle warps only poll the queue.
const ORDER_WARPS: u32 = 4;
const ORDER_BLOCKS_PER_SM: u32 = 4;

/// A strict triangle in row order: offsets of the index type, and each entry's column and row
/// (u32, zero-based).
#[derive(Clone, Copy)]
pub struct RowTriangle {
    pub ptr: u64,
    pub col: u64,
    pub row: u64,
    pub ity: IndexType,
}

/// The level pass' scratch: dependent lists (offsets, fill cursors, rows, ranges), each row's
/// level and wait count (one u64 word), the queue and its counters, the sort by level.
pub struct LevelOrder {
    dep_ptr: u64,
    cursor: u64,
    dep_rows: u64,
    dep_range: u64,
    state: u64,
    sort: SortSpace,
    queue: u64,
    counters: u64,
}

impl LevelOrder {
    /// Space for `n` rows and up to `nnz` triangle entries.
    pub fn carve(c: &mut Carve, n: usize, nnz: usize) -> Self {
        let (dep_ptr, cursor) = (c.take((n + 1) * 4), c.take(n * 4));
        let (dep_rows, dep_range) = (c.take(nnz * 4), c.take(nnz * 8));
        let (state, sort, queue, counters) = (c.take(n * 8), SortSpace::carve(c, n as u64), c.take(n * 8), c.take(12));
        LevelOrder { dep_ptr, cursor, dep_rows, dep_range, state, sort, queue, counters }
    }

    /// Scratch of at least `nnz` u32 that is free until `run` starts (its dependent lists).
    pub fn scratch(&self) -> u64 {
        self.dep_rows
    }

    /// Writes `order` (the row at each position: rows sorted by level, within a level by
    /// index) and `position` (each row's position). `scan_tmp` holds a scan of n + 1 u32.
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &self,
        l: &Launcher,
        tri: RowTriangle,
        n: i64,
        nnz: i64,
        scan_tmp: u64,
        order: u64,
        position: u64,
    ) -> Result<()> {
        let (n64, i) = (n as u64, index_tag(tri.ity));
        let rows = l.grid(n64, BLOCK as u64);
        // Kept entries are at most `nnz`; the kernels read their count from the offsets.
        let entries = l.grid(nnz.max(1) as u64, BLOCK as u64);
        l.memset_u32(self.dep_ptr, 0, n as usize + 1)?;
        let count = Args::new().i64(n).ptr(tri.ptr).ptr(tri.col).ptr(self.dep_ptr);
        l.launch(&format!("spblk_spsv_order_count_{i}"), entries, BLOCK, 0, count)?;
        scan(l, self.dep_ptr, n64 + 1, Width::U32, scan_tmp, 0)?;
        l.copy(self.cursor, self.dep_ptr, n as usize * 4)?;
        let fill = Args::new().i64(n).ptr(tri.ptr).ptr(tri.col).ptr(tri.row).ptr(self.cursor).ptr(self.dep_rows);
        l.launch(&format!("spblk_spsv_order_fill_{i}"), entries, BLOCK, 0, fill)?;
        let ranges = Args::new().i64(n).ptr(self.dep_rows).ptr(self.dep_ptr).ptr(self.dep_range);
        l.launch("spblk_spsv_order_ranges", entries, BLOCK, 0, ranges)?;
        l.memset_u32(self.queue, u32::MAX, n as usize * 2)?;
        l.memset_u32(self.counters, 0, 3)?;
        // counters: the queue's head and tail (one u64 word), then the number of rows found.
        let (queue_ends, found) = (self.counters, self.counters + 8);
        let sources = Args::new().i64(n).ptr(tri.ptr).ptr(self.dep_ptr).ptr(self.state).ptr(self.queue);
        l.launch(&format!("spblk_spsv_order_sources_{i}"), rows, BLOCK, 0, sources.ptr(queue_ends).ptr(found))?;
        l.launch(
            "spblk_spsv_order_levels",
            l.resident_grid(n64.div_ceil(32), ORDER_WARPS as u64, ORDER_BLOCKS_PER_SM),
            ORDER_WARPS * 32,
            0,
            Args::new()
                .u32(n as u32)
                .ptr(self.dep_ptr)
                .ptr(self.dep_rows)
                .ptr(self.dep_range)
                .ptr(self.state)
                .ptr(self.queue)
                .ptr(queue_ends)
                .ptr(found),
        )?;
        // The rows sorted by level, stably (rows of a level in index order).
        let sort = &self.sort;
        l.launch(
            "spblk_spsv_order_keys",
            rows,
            BLOCK,
            0,
            Args::new().i64(n).ptr(self.state).ptr(sort.keys[0]).ptr(sort.vals[0]),
        )?;
        let cur = radix_sort(l, sort, n64, key_bits(n64), 0)?;
        let place = Args::new().i64(n).ptr(sort.vals[cur]).ptr(order).ptr(position);
        l.launch("spblk_spsv_order_place", rows, BLOCK, 0, place)
    }
}
