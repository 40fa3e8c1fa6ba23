//! Incomplete factorizations on the GPU (kernels/factor/rows.cuh, ilu0.cu, ic0.cu). The analysis
//! lives in the caller's buffer: each row's diagonal entry and first entry not below the
//! diagonal, the first row without a diagonal entry; the factorization adds the rows' done
//! flags and its counters. Nothing is allocated and nothing waits for the GPU but the zero-pivot
//! query, as cuSPARSE's.

use std::ffi::c_void;

use super::kernels::value_tag;
use super::launch::{Args, Carve, Launcher, BLOCK};
use crate::backend::{Boost, FactorArgs, FactorKind};
use crate::error::{Error, Result};
use crate::types::DataType;

/// Warps per block of the factorization kernels (`__launch_bounds__(128)`), and blocks per SM
/// in the persistent grid (all resident: a warp may wait for a row another warp holds).
const FACTOR_WARPS: u32 = 4;
const FACTOR_BLOCKS_PER_SM: u32 = 8;
const NONE: u32 = u32::MAX;

/// Where an analysis keeps each array in the buffer.
struct Layout {
    /// u32 words: the first row without a diagonal entry (NONE: every row has one); the
    /// factorization's row counter; the first zero pivot it found (NONE: none).
    words: u64,
    diag: u64,
    split: u64,
    done: u64,
}

fn layout(c: &mut Carve, n: usize) -> Layout {
    Layout { words: c.take(16), diag: c.take(n * 4), split: c.take(n * 4), done: c.take(n * 4) }
}

pub fn buffer_size(args: &FactorArgs) -> usize {
    let mut c = Carve::measure();
    layout(&mut c, args.n as usize);
    c.size()
}

/// An analysis in the caller's buffer.
pub struct DevicePattern {
    n: i64,
    at: Layout,
}

pub fn analysis(l: &Launcher, args: &FactorArgs, buffer: *mut c_void) -> Result<DevicePattern> {
    let at = layout(&mut Carve::new(buffer), args.n as usize);
    l.memset_u32(at.words, NONE, 3)?;
    if args.n > 0 {
        l.launch(
            "spblk_factor_pattern",
            l.grid(args.n as u64, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .i64(args.n)
                .ptr(args.offsets as u64)
                .ptr(args.columns as u64)
                .i32(args.base as i32)
                .ptr(at.diag)
                .ptr(at.split)
                .ptr(at.words),
        )?;
    }
    Ok(DevicePattern { n: args.n, at })
}

pub fn factor(l: &Launcher, args: &FactorArgs, t: &DevicePattern, boost: Option<Boost>) -> Result<()> {
    let at = &t.at;
    // The row counter from 0, no zero pivot yet, no row done.
    l.memset_u32(at.words + 4, 0, 1)?;
    l.memset_u32(at.words + 8, NONE, 1)?;
    if t.n == 0 {
        return Ok(());
    }
    l.memset_u32(at.done, 0, t.n as usize)?;
    let rows = Args::new()
        .u32(t.n as u32)
        .ptr(args.offsets as u64)
        .ptr(args.columns as u64)
        .i32(args.base as i32)
        .ptr(args.values as u64)
        .ptr(at.diag)
        .ptr(at.split)
        .ptr(at.done)
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
        &format!("spblk_{name}_{}", value_tag(args.value_type)),
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
