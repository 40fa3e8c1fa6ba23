//! Incomplete factorizations on the GPU (kernels/factor/rows.cuh, ilu0.cu, ic0.cu). The analysis
//! lives in the caller's buffer: each row's diagonal entry and first entry not below the
//! diagonal, the first row without a diagonal entry, and the rows sorted by level (the order in
//! which the factorization takes them, as SpSV's solve) in tickets; the factorization copies A's
//! values into the analysis' scratch and publishes each row's results into A, every value its
//! own flag. Nothing is allocated and nothing waits for the GPU but the zero-pivot query, as
//! cuSPARSE's.

use std::ffi::c_void;

use super::kernels::value_tag;
use super::launch::{Args, Carve, Launcher, BLOCK};
use super::levels::{LevelOrder, Pattern};
use super::prims::{scan, scan_tmp_bytes, Width};
use crate::backend::{Boost, FactorArgs, FactorKind};
use crate::error::{Error, Result};
use crate::types::{DataType, IndexType};

/// Warps per block of the factorization kernels (`__launch_bounds__(128)`), and blocks per SM
/// in the persistent grid. A warp holds a ticket: up to 32 short rows (a lane each, their
/// entries in registers: 128 registers, so 4 blocks of an SM are resident) or one long row.
/// Blocks beyond what an SM holds start as others end: a ticket is only taken by a running warp.
const FACTOR_WARPS: u32 = 4;
const FACTOR_BLOCKS_PER_SM: u32 = 16;
const NONE: u32 = u32::MAX;

/// Where an analysis keeps each array in the buffer.
struct Layout {
    /// u32 words: the first row without a diagonal entry (NONE: every row has one); the
    /// factorization's ticket counter; the first zero pivot it found (NONE: none); the number
    /// of tickets; the rows longer than the narrow bound; the longest row a lane takes.
    words: u64,
    diag: u64,
    split: u64,
    /// The rows sorted by level: the factorization takes them in this order, in tickets (up to
    /// 32 short rows, a lane each, or one long row, a warp) starting at these positions.
    order: u64,
    ticket_pos: u64,
    /// The factorization's copy of A's values (rows work on their own there while A's words
    /// wait for the published results).
    work: u64,
    /// Each row's position in the order (a short row polls the row it needs that comes last).
    position: u64,
    /// Analysis scratch: the tickets' starts, a scan's partial sums, the level pass.
    ticket_flags: u64,
    scan_tmp: u64,
    levels: LevelOrder,
}

fn layout(c: &mut Carve, n: usize, nnz: usize) -> Layout {
    let (words, diag, split, order) = (c.take(24), c.take(n * 4), c.take(n * 4), c.take(n * 4));
    let ticket_pos = c.take((n + 1) * 4);
    // The work values are 8 bytes at most.
    let (work, position, ticket_flags) = (c.take(nnz * 8), c.take(n * 4), c.take((n + 1) * 4));
    let scan_tmp = c.take(scan_tmp_bytes(n as u64 + 1, Width::U32));
    let levels = LevelOrder::carve(c, n);
    Layout { words, diag, split, order, ticket_pos, work, position, ticket_flags, scan_tmp, levels }
}

pub fn buffer_size(args: &FactorArgs) -> usize {
    let mut c = Carve::measure();
    layout(&mut c, args.n as usize, args.nnz as usize);
    c.size()
}

/// An analysis in the caller's buffer.
pub struct DevicePattern {
    n: i64,
    at: Layout,
}

pub fn analysis(l: &Launcher, args: &FactorArgs, buffer: *mut c_void) -> Result<DevicePattern> {
    let (n, nnz) = (args.n, args.nnz);
    let at = layout(&mut Carve::new(buffer), n as usize, nnz as usize);
    l.memset_u32(at.words, NONE, 3)?;
    if n == 0 {
        return Ok(DevicePattern { n, at });
    }
    let (rows, base) = (l.grid(n as u64, BLOCK as u64), args.base);
    let a = || Args::new().i64(n).ptr(args.offsets as u64).ptr(args.columns as u64);
    let pattern = a().i32(base as i32).ptr(at.diag).ptr(at.split).ptr(at.words);
    l.launch("spblk_factor_pattern", rows, BLOCK, 0, pattern)?;
    // The rows sorted by level (A's strict lower triangle), the factorization's order.
    let (ptr, col) = (args.offsets as u64, args.columns as u64);
    let a = Pattern { ptr, col, nnz, base, perm: 0, ity: IndexType::I32, lower: true };
    at.levels.run(l, a, n, at.order, at.position, None)?;
    tickets(l, args, &at, n)?;
    Ok(DevicePattern { n, at })
}

/// The factorization's tickets over the order (kernels/factor/rows.cuh).
fn tickets(l: &Launcher, args: &FactorArgs, at: &Layout, n: i64) -> Result<()> {
    let rows = l.grid(n as u64, BLOCK as u64);
    let (ic, base) = (matches!(args.kind, FactorKind::Ic0) as i32, args.base as i32);
    // The longest row a lane takes: shorter when the levels are narrow (kernels/factor/rows.cuh).
    l.memset_u32(at.words + 16, 0, 1)?;
    let count = Args::new().i64(n).ptr(args.offsets as u64).ptr(at.split).i32(base).i32(ic).ptr(at.words + 16);
    l.launch("spblk_factor_count_long", rows, BLOCK, 0, count)?;
    let kernel = format!("spblk_{}_{}", if ic == 1 { "ic0" } else { "ilu0" }, value_tag(args.value_type));
    let resident_warps = l.occupancy(&kernel, FACTOR_WARPS * 32, 0, 1)?.max(1) * l.dev.sm_count * FACTOR_WARPS;
    let bound = Args::new().i64(n).ptr(at.order).ptr(at.levels.level()).u32(resident_warps);
    l.launch("spblk_factor_lane_row", 1, 1, 0, bound.ptr(at.words + 16).ptr(at.words + 20))?;
    let a = || {
        let a = Args::new().i64(n).ptr(at.order).ptr(args.offsets as u64).ptr(at.split);
        a.i32(base).i32(ic).ptr(at.words + 20)
    };
    l.launch("spblk_factor_ticket_flags", rows, BLOCK, 0, a().ptr(at.ticket_flags))?;
    l.memset_u32(at.ticket_flags + n as u64 * 4, 0, 1)?;
    scan(l, at.ticket_flags, n as u64 + 1, Width::U32, at.scan_tmp, 0)?;
    let place = a().ptr(at.ticket_flags).ptr(at.ticket_pos).ptr(at.words + 12);
    l.launch("spblk_factor_ticket_place", rows, BLOCK, 0, place)
}

pub fn factor(l: &Launcher, args: &FactorArgs, t: &DevicePattern, boost: Option<Boost>) -> Result<()> {
    let at = &t.at;
    // The ticket counter from 0, no zero pivot yet (rows are published into A, after the
    // init kernel below has copied A's values to `work` and set A's words to all ones).
    l.memset_u32(at.words + 4, 0, 1)?;
    l.memset_u32(at.words + 8, NONE, 1)?;
    if t.n == 0 {
        return Ok(());
    }
    let (ty, ic) = (value_tag(args.value_type), matches!(args.kind, FactorKind::Ic0) as i32);
    let a = || Args::new().ptr(args.offsets as u64).ptr(args.columns as u64).i32(args.base as i32);
    let init = Args::new().i64(t.n).ptr(args.offsets as u64).ptr(args.columns as u64).i32(args.base as i32);
    let warps = l.grid(t.n as u64, (BLOCK / 32) as u64);
    l.launch(&format!("spblk_factor_init_{ty}"), warps, BLOCK, 0, init.i32(ic).ptr(args.values as u64).ptr(at.work))?;
    let rows = a()
        .ptr(args.values as u64)
        .ptr(at.work)
        .ptr(at.diag)
        .ptr(at.split)
        .ptr(at.order)
        .ptr(at.position)
        .ptr(at.ticket_pos)
        .ptr(at.words + 20)
        .ptr(at.words + 4);
    let (name, rows) = match args.kind {
        FactorKind::Ic0 => ("ic0", rows),
        FactorKind::Ilu0 => {
            let b = boost.unwrap_or(Boost { tolerance: -1.0, value: 0.0 });
            let rows = rows.i32(boost.is_some() as i32).u64(b.tolerance.to_bits());
            let value = if args.value_type == DataType::F32 {
                rows.u32((b.value as f32).to_bits())
            } else {
                rows.u64(b.value.to_bits())
            };
            ("ilu0", value)
        }
    };
    l.launch(
        &format!("spblk_{name}_{ty}"),
        l.resident_grid(t.n as u64, FACTOR_WARPS as u64, FACTOR_BLOCKS_PER_SM),
        FACTOR_WARPS * 32,
        0,
        rows,
    )
}

/// The first row without a diagonal entry or with a zero pivot (blocking).
pub fn zero_pivot(l: &Launcher, t: &DevicePattern) -> Result<Option<i64>> {
    let mut bytes = [0u8; 12];
    l.read(t.at.words, &mut bytes)?;
    let word = |k: usize| u32::from_le_bytes(bytes[4 * k..4 * k + 4].try_into().expect("4 bytes"));
    let first = word(0).min(word(2));
    if first != NONE && first as i64 >= t.n {
        return Err(Error::internal(format!("a zero pivot at row {first} of {}", t.n)));
    }
    Ok((first != NONE).then_some(first as i64))
}
