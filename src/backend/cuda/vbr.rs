//! `SPBLK_SPMM_ALG_VBR` / `_TF32` on tensor cores (kernels/spmm/vbr.cu): the 1-SA plan's
//! arrays in device memory, cut into row tiles, and the kernel's launch.

use std::sync::Arc;

use super::context::Device;
use super::kernels::{index_tag, value_tag};
use super::launch::{Args, Launcher, Scalar, BLOCK};
use super::memory::DeviceAlloc;
use super::tensor_map;
use crate::analysis::one_sa::VbrLayout;
use crate::analysis::{OneSaPlan, VbrValues};
use crate::backend::{SpmmArgs, SpmmMethod};
use crate::descr::{SpMat, SparsePattern};
use crate::error::{Error, Result};
use crate::plan::{Buffer, VbrArrays};
use crate::trace;
use crate::types::{DataType, Operation, Order};

type TensorMapDesc = cudarc::driver::sys::CUtensorMap;

/// Rows of a thread block's tile (`vbr::BM` in the kernel).
const TILE_ROWS: usize = 64;
/// Block columns a thread block stages in shared memory at a time (`vbr::BC_TABLE`).
const BLOCK_COLUMN_TABLE: usize = 256;
/// Bytes of op(B) a band of column tiles may span so that it stays in L2 while every row
/// tile passes (H100/H200: 50 MB of L2; half of it, for A and C traffic beside).
const BAND_BYTES: i64 = 24 << 20;

// The plan's usize arrays are uploaded as the kernel's u64.
const _: () = assert!(std::mem::size_of::<usize>() == 8);

fn bytes_of<T: Copy>(v: &[T]) -> &[u8] {
    // SAFETY: plain numeric data (usize, f32, f64, f16, bf16) viewed as its bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// `(group, first row)` of every row tile: each group cut into slices of `TILE_ROWS` rows,
/// the tiles with the most blocks first. The hardware hands out thread blocks in index
/// order, so the longest tiles start in the first wave and the short ones fill the gaps
/// (longest-processing-time first): with 1.3 waves of tiles whose block counts vary by ±15 %,
/// launch order decided a quarter of the SMs' idle time (docs/vbr.md).
fn row_tiles(group_ptr: &[usize], block_ptr: &[usize]) -> Vec<usize> {
    let mut tiles: Vec<[usize; 2]> = Vec::new();
    for (g, w) in group_ptr.windows(2).enumerate() {
        for r in (w[0]..w[1]).step_by(TILE_ROWS) {
            tiles.push([g, r]);
        }
    }
    // Stable: equal work keeps row order (neighbouring tiles of a tall group stay together).
    tiles.sort_by_key(|t| std::cmp::Reverse(block_ptr[t[0] + 1] - block_ptr[t[0]]));
    tiles.into_iter().flatten().collect()
}

/// u64 per row tile in `tile_records` (`vbr::RECORD` in kernels/spmm/vbr_tile.cuh).
const TILE_RECORD: usize = 8;

/// For every row tile of `tiles`: its first permuted row, the row of its first block's values
/// in rows of ΔW (`value_offset / ΔW` plus the tile's offset in the group), its first block,
/// its block count, the group's height and the tile's rows (then padding to 64 bytes). After
/// the L2 is cold, locating a tile through `tiles`, `group_ptr`/`block_ptr` and `value_offset`
/// took three dependent DRAM round trips before the first load could be issued.
fn tile_records(v: &VbrLayout, tiles: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(tiles.len() / 2 * TILE_RECORD);
    for t in tiles.chunks(2) {
        let (g, row0) = (t[0], t[1]);
        let (g0, g1) = (v.group_ptr[g], v.group_ptr[g + 1]);
        let (kb0, kb1) = (v.block_ptr[g], v.block_ptr[g + 1]);
        let a_row = if kb1 > kb0 { v.value_offset[kb0] / v.block_width.max(1) + (row0 - g0) } else { 0 };
        out.extend_from_slice(&[row0, a_row, kb0, kb1 - kb0, g1 - g0, (g1 - row0).min(TILE_ROWS), 0, 0]);
    }
    out
}

/// The kernel addresses a group's blocks from the first one's offset (`value_offset[kb] =
/// value_offset[first] + j · height · ΔW` for its j-th block), as the 1-SA build lays them out;
/// a plan that does not is refused rather than multiplied wrongly. Returns the most blocks of
/// one group (the kernel counts a tile's steps in 32 bits).
fn check_layout(v: &VbrLayout) -> Result<usize> {
    let mut most = 0;
    for g in 0..v.groups() {
        let (b0, b1) = (v.block_ptr[g], v.block_ptr[g + 1]);
        let step = (v.group_ptr[g + 1] - v.group_ptr[g]) * v.block_width;
        if (b0..b1).any(|kb| v.value_offset[kb] != v.value_offset[b0] + (kb - b0) * step) {
            return Err(Error::internal(format!("1-SA plan: the blocks of group {g} are not stored contiguously")));
        }
        most = most.max(b1 - b0);
    }
    Ok(most)
}

/// Where the plan's values come from: the host's build, or A itself, scattered on the device.
enum ValuesFrom<'a> {
    Host(&'a [u8]),
    Matrix(&'a SpMat),
}

fn upload_vbr(l: &Launcher, dev: &Arc<Device>, v: &VbrLayout, from: ValuesFrom) -> Result<VbrArrays> {
    let up = |bytes: &[u8]| -> Result<Buffer> { Ok(DeviceAlloc::upload(l, dev, bytes)?.into_buffer()) };
    let most_group_blocks = check_layout(v)?;
    let tiles = row_tiles(&v.group_ptr, &v.block_ptr);
    let blocks_per_tile: usize = tiles.chunks(2).map(|t| v.block_ptr[t[0] + 1] - v.block_ptr[t[0]]).sum();
    let (group_ptr, block_ptr) = (up(bytes_of(&v.group_ptr))?, up(bytes_of(&v.block_ptr))?);
    let (block_col, value_offset) = (up(bytes_of(&v.block_col))?, up(bytes_of(&v.value_offset))?);
    let perm = up(bytes_of(&v.perm))?;
    let values = match from {
        ValuesFrom::Host(bytes) => up(bytes)?,
        ValuesFrom::Matrix(a) => {
            let structure = [&perm, &group_ptr, &block_ptr, &block_col, &value_offset].map(|b| b.addr);
            fill_values(l, dev, v, structure, a)?
        }
    };
    Ok(VbrArrays {
        group_ptr,
        block_ptr,
        block_col,
        value_offset,
        perm,
        values,
        tile_records: up(bytes_of(&tile_records(v, &tiles)))?,
        tiles: up(bytes_of(&tiles))?,
        tile_count: tiles.len() / 2,
        tile_rows: TILE_ROWS,
        tile_work: (blocks_per_tile * TILE_ROWS * v.block_width) as f64,
        // Two row tiles per SM reach most of an SM's rate (4 fit): measured on the H100,
        // 128 tiles of n = 8192 at N = 128 run at 0.41 of the full rate (docs/vbr.md).
        parallel_tiles: 2 * dev.sm_count as usize,
        most_group_blocks,
    })
}

/// The layout's values scattered from CSR matrix `a` in device memory into a zeroed buffer
/// (kernels/spmm/vbr_fill.cu), bitwise what the host build makes, and complete on return (a
/// later product may run on another stream). `structure`: the device copies of `perm`,
/// `group_ptr`, `block_ptr`, `block_col` and `value_offset`.
fn fill_values(l: &Launcher, dev: &Arc<Device>, v: &VbrLayout, structure: [u64; 5], a: &SpMat) -> Result<Buffer> {
    let SparsePattern::Csr { row_offsets, col_ind } = a.pattern else {
        return Err(Error::internal("1-SA plan: values filled from a matrix that is not CSR"));
    };
    let bytes = v.values_len * a.value_type.size();
    let values = DeviceAlloc::new(dev, bytes, "spblkAnalyze (the 1-SA plan's values)")?;
    l.zero_bytes(values.ptr, bytes)?;
    if v.rows > 0 {
        let [perm, group_ptr, block_ptr, block_col, value_offset] = structure;
        let name = format!("spblk_vbr_fill_{}_{}", value_tag(a.value_type), index_tag(a.indices_type));
        l.launch(
            &name,
            l.grid(v.rows as u64 * 32, BLOCK as u64),
            BLOCK,
            0,
            Args::new()
                .u64(v.rows as u64)
                .ptr(perm)
                .ptr(group_ptr)
                .u64(v.groups() as u64)
                .ptr(block_ptr)
                .ptr(block_col)
                .ptr(value_offset)
                .u64(v.block_width as u64)
                .ptr(row_offsets as u64)
                .ptr(col_ind as u64)
                .i64(a.base.offset())
                .ptr(a.values as u64)
                .ptr(values.ptr),
        )?;
    }
    l.sync()?;
    Ok(values.into_buffer())
}

/// The plan's arrays in device memory, the values from the host's build or, for a plan of
/// the layout alone, from `a`. The half copies (`SPBLK_VBR_COPY_*`) stay on the host: the
/// kernel multiplies A in its own type, the type of B.
pub fn upload(l: &Launcher, dev: &Arc<Device>, plan: &OneSaPlan, a: &SpMat) -> Result<VbrArrays> {
    match &plan.vbr {
        VbrValues::F32(v) => upload_vbr(l, dev, v, ValuesFrom::Host(bytes_of(&v.values))),
        VbrValues::F64(v) => upload_vbr(l, dev, v, ValuesFrom::Host(bytes_of(&v.values))),
        VbrValues::F16(v) => upload_vbr(l, dev, v, ValuesFrom::Host(bytes_of(&v.values))),
        VbrValues::BF16(v) => upload_vbr(l, dev, v, ValuesFrom::Host(bytes_of(&v.values))),
        VbrValues::InBackend(layout) => upload_vbr(l, dev, layout, ValuesFrom::Matrix(a)),
    }
}

/// Value types whose plans `upload` fills from the matrix (every type a 1-SA plan holds).
pub fn fills_values(t: DataType) -> bool {
    matches!(t, DataType::F32 | DataType::F64 | DataType::F16 | DataType::BF16)
}

/// The kernel's product flavour for the call's input type and method, or why there is none.
fn mode(args: &SpmmArgs) -> Result<&'static str> {
    match (args.precision.input, args.method) {
        (DataType::F16 | DataType::BF16, SpmmMethod::Vbr) => Ok("tc"),
        (DataType::F32, SpmmMethod::Vbr) => Ok("tf32x3"),
        (DataType::F32, SpmmMethod::VbrTf32) => Ok("tf32"),
        (DataType::F64, _) => Err(Error::not_supported(
            "SPBLK_SPMM_ALG_VBR with f64 values runs on the host backend only: the CUDA kernel has no \
             f64 tensor-core path (use f32, f16 or bf16, or a CSR algorithm)",
        )),
        (t, m) => Err(Error::internal(format!("VBR kernel asked for {t:?} with {m:?}"))),
    }
}

/// Checks that the call can run (before any buffer size is promised).
pub fn check(args: &SpmmArgs) -> Result<()> {
    mode(args).map(drop)
}

pub fn run(l: &Launcher, args: &SpmmArgs, plan: &OneSaPlan, arrays: &VbrArrays) -> Result<()> {
    let mode = mode(args)?;
    let (m, n) = (args.c.rows, args.c.cols);
    let alpha = Scalar::new(&args.alpha, args.precision.compute, "alpha")?;
    let beta = Scalar::new(&args.beta, args.precision.compute, "beta")?;
    if m == 0 || n == 0 {
        return Ok(());
    }
    let bw = plan.params.block_width as i64;
    let k = args.a.cols;
    let esize = args.precision.input.size() as i64;
    let per16 = 16 / esize;
    let b_row = (args.b.order == Order::Row) != (args.op_b == Operation::Transpose);
    let c_row = args.c.order == Order::Row;
    let vec = bw % per16 == 0 && args.b.ld % per16 == 0 && (args.b.values as u64) % 16 == 0;
    // The kernel counts a tile's steps (blocks x BK-deep slices of ΔW, BK >= 16) and a block's
    // element offsets (64 rows x ΔW) in 32 bits.
    let steps = arrays.most_group_blocks as u64 * (bw as u64).div_ceil(16);
    if steps > i32::MAX as u64 || TILE_ROWS as u64 * bw as u64 > i32::MAX as u64 {
        return Err(Error::not_supported(format!(
            "VBR SpMM with {} column blocks of width {bw} in one row group (the kernel's 32-bit step count)",
            arrays.most_group_blocks
        )));
    }
    // ... and a block's column index in 32 bits.
    if (k.max(1) as u64).div_ceil(bw as u64) > u32::MAX as u64 {
        return Err(Error::not_supported(format!("VBR SpMM with {k} columns in blocks of {bw} (over 2^32 blocks)")));
    }
    let layout = if b_row { "brow" } else { "bcol" };
    let maps = wgmma_maps(l, args, mode, arrays, bw, b_row, k, n)?;
    // The wgmma kernels: f16/bf16 (vbr_wgmma.cu) and f32 by split TF32 (vbr_wgmma_f32.cu).
    let kernel = match (&maps, mode) {
        (Some(_), "tf32x3") => "wgx3",
        (Some(_), _) => "wg",
        (None, _) => mode,
    };
    let name = |bn: i64, split: bool| {
        format!(
            "spblk_spmm_vbr_{kernel}_{layout}_n{bn}{}_{}_{}",
            if split { "_split" } else { "" },
            value_tag(args.precision.input),
            value_tag(args.precision.output)
        )
    };
    let shared = |bn: i64, split: bool| match kernel {
        "wgx3" => X3_SMEM_BYTES,
        "wg" => wg_smem_bytes(bn as usize, split),
        _ => smem_bytes(esize as usize, b_row, bn as usize),
    };
    // One thread per column of the tile (two warps per 64 columns, or a warpgroup per 128),
    // except the split-TF32 kernel's two warpgroups of 64 columns each.
    let threads = |bn: i64| if kernel == "wgx3" { 256 } else { bn as u32 };
    let tiles = arrays.tile_count as u64;
    // 256-column tiles (8 warps) halve the reads of A per flop once N needs more than one
    // 128-column tile; f32 comes in 128 only (its split products need the registers).
    let mut bn: i64 = if mode == "tc" && n > 128 { 256 } else { 128 };
    let mut splits = 1u32;
    // Split tiles need clusters, built for compute capability 9.0 (sm_90a; other GPUs run
    // the compute_80 PTX, which has none). The mma.sync kernel splits when its tiles fill
    // less than one wave; the wgmma one only when fewer than half the SMs get a tile: at
    // n = 8192 (128 tiles of 12.7 blocks, N = 128) its split parts took 24.2 µs against 19.9
    // for whole tiles, and at 32 or 64 tiles the two were even (H100, docs/vbr.md).
    if l.dev.cc_major == 9 {
        let busy = if maps.is_some() {
            l.dev.sm_count as u64 / 2
        } else {
            l.occupancy(&name(bn, false), threads(bn), shared(bn, false) as u32, 1)? as u64 * l.dev.sm_count as u64
        };
        if tiles * (n as u64).div_ceil(bn as u64) < busy {
            // Less than one wave: 128-column tiles, each split over a cluster. A step is a
            // BK-deep slice of a block (mma.sync: BK = 32, f32 16) or a whole block (wgmma).
            let bk = if maps.is_some() {
                64
            } else if esize == 4 {
                16
            } else {
                32
            };
            let chunks = (bw as u64).div_ceil(bk) as f64;
            let steps_per_tile = arrays.tile_work / (TILE_ROWS as f64 * bw as f64) / tiles.max(1) as f64 * chunks;
            let split = name(128, true);
            let mut clusters = Vec::new();
            for s in 2..=MAX_SPLITS {
                clusters.push(l.occupancy(&split, threads(128), shared(128, true) as u32, s)? as u64);
            }
            splits = split_count(tiles * (n as u64).div_ceil(128), &clusters, steps_per_tile);
            if trace::on() {
                trace::note(format_args!(
                    "under one wave: {steps_per_tile:.1} steps per tile; clusters of 2..{MAX_SPLITS} at once: {clusters:?}"
                ));
            }
            if splits > 1 {
                bn = 128;
            }
        }
    }
    let col_tiles = (n + bn - 1) / bn;
    let band = (BAND_BYTES / (bn * k.max(1) * esize)).clamp(1, col_tiles);
    let blocks = tiles * col_tiles as u64 * splits as u64;
    let grid = u32::try_from(blocks).map_err(|_| {
        Error::not_supported(format!(
            "VBR SpMM with {blocks} thread blocks (row tiles x column tiles x splits) over 2^32"
        ))
    })?;
    if grid == 0 {
        return Ok(());
    }
    let name = name(bn, splits > 1);
    let shared = shared(bn, splits > 1);
    if trace::on() {
        trace::note(format_args!(
            "{} row tiles of <= {} rows x {col_tiles} column tiles of {bn} (bands of {band}), each in {splits} \
             part(s); {}; {shared} B shared",
            arrays.tile_count,
            arrays.tile_rows,
            if kernel == "wgx3" {
                "TMA loads, split-TF32 wgmma"
            } else if maps.is_some() {
                "TMA loads, wgmma"
            } else if vec {
                "16-byte async copies, mma.sync"
            } else {
                "element loads (unaligned B or block width), mma.sync"
            }
        ));
    }
    let args = match &maps {
        Some((a_map, b_map)) => Args::new()
            .tensor_map(a_map)
            .tensor_map(b_map)
            .ptr(arrays.tile_records.addr)
            .i64(arrays.tile_count as i64)
            .i64(band)
            .i32(splits as i32)
            .ptr(arrays.block_col.addr)
            .ptr(arrays.perm.addr)
            .i64(n)
            .ptr(args.c.values as u64)
            .i64(args.c.ld)
            .i32(c_row as i32)
            .scalar(alpha)
            .scalar(beta),
        None => Args::new()
            .ptr(arrays.tiles.addr)
            .i64(arrays.tile_count as i64)
            .i64(band)
            .i32(splits as i32)
            .ptr(arrays.group_ptr.addr)
            .ptr(arrays.block_ptr.addr)
            .ptr(arrays.block_col.addr)
            .ptr(arrays.value_offset.addr)
            .ptr(arrays.perm.addr)
            .ptr(arrays.values.addr)
            .i64(bw)
            .i64(k)
            .i64(n)
            .ptr(args.b.values as u64)
            .i64(args.b.ld)
            .ptr(args.c.values as u64)
            .i64(args.c.ld)
            .i32(c_row as i32)
            .scalar(alpha)
            .scalar(beta)
            .i32(vec as i32),
    };
    l.launch_cluster(&name, grid, threads(bn), shared as u32, splits, args)
}

/// TMA descriptors of A's values and of op(B) for the wgmma kernels (kernels/spmm/
/// vbr_wgmma.cu, vbr_wgmma_f32.cu), or None where they do not apply: they take plans of
/// 64-wide blocks on compute capability 9.0 (sm_90a), f16/bf16 or f32 in the f32-accurate
/// mode (`mode` "tf32x3"), with op(B) as TMA can read it (16-byte aligned base and leading
/// dimension).
#[allow(clippy::too_many_arguments)]
fn wgmma_maps(
    l: &Launcher,
    args: &SpmmArgs,
    mode: &str,
    arrays: &VbrArrays,
    bw: i64,
    b_row: bool,
    k: i64,
    n: i64,
) -> Result<Option<(TensorMapDesc, TensorMapDesc)>> {
    let ty = args.precision.input;
    let half = matches!(ty, DataType::F16 | DataType::BF16);
    if l.dev.cc_major != 9 || bw != 64 || !(half || (ty == DataType::F32 && mode == "tf32x3")) {
        return Ok(None);
    }
    // A: the values as rows of one block's width; op(B): N-long rows of k, or k-long columns
    // of n, `ld` elements apart.
    let esize = ty.size() as u64;
    let a_pitch = 64 * esize;
    let a_rows = arrays.values.bytes as u64 / a_pitch;
    let (b_cols, b_rows) = if b_row { (n as u64, k as u64) } else { (k as u64, n as u64) };
    let b_pitch = args.b.ld as u64 * esize;
    let b_addr = args.b.values as u64;
    if !tensor_map::fits(arrays.values.addr, a_pitch, a_rows, a_pitch)
        || !tensor_map::fits(b_addr, b_cols * esize, b_rows, b_pitch)
    {
        return Ok(None);
    }
    // Boxes of 128 bytes by: A 64 rows; f16/bf16 op(B) 64 k rows (row-major, two per
    // warpgroup) or 128 n columns; f32 op(B) 64 k rows of 32 columns, or 64 columns of 32 k.
    let a = tensor_map::tiled(ty, arrays.values.addr, 64, a_rows, a_pitch, 64)?;
    let b = tensor_map::tiled(ty, b_addr, b_cols, b_rows, b_pitch, if b_row || !half { 64 } else { 128 })?;
    Ok(Some((a, b)))
}

/// Dynamic shared memory of a wgmma kernel (`vbr_wg::Layout`): its stages of a 64 x 64 A
/// tile and one 64 x 128 op(B) tile per warpgroup (one at 128 columns, with 4 stages, or 2
/// when split; two at 256, with 2), an mbarrier per stage, and 1 KB to align the stages to
/// the swizzle.
fn wg_smem_bytes(bn: usize, split: bool) -> usize {
    let (warpgroups, stages) = if bn == 256 { (2, 2) } else { (1, if split { 2 } else { 4 }) };
    stages * (64 * 64 * 2 + warpgroups * 64 * 128 * 2) + stages * 8 + 1024
}

/// Dynamic shared memory of the split-TF32 wgmma kernel (`vbr_x3::Layout`): 4 stages of a
/// 64 x 64 f32 A tile and a 64 x 128 op(B) tile, two blocks' lo parts, an mbarrier per stage,
/// the tile's 64 rows of the permutation, and 1 KB to align the tiles to the swizzle.
const X3_SMEM_BYTES: usize = 4 * (64 * 64 * 4 + 64 * 128 * 4) + 2 * 64 * 64 * 4 + 4 * 8 + TILE_ROWS * 8 + 1024;

/// Most parts of one split tile: the portable cluster size.
const MAX_SPLITS: u32 = 8;
/// Fewest pipeline steps of one part: below it the part is mostly pipeline fill (3 steps
/// in flight).
const MIN_PART_STEPS: f64 = 4.0;

/// How many parts to split each of `tiles` tiles' steps into, when the whole tiles fill less
/// than one wave: `clusters[s - 2]` is how many clusters of s parts the GPU runs at once.
/// The most parts that still run in one wave, each keeping `MIN_PART_STEPS`; 1 when no split
/// fits one wave. At this size a part's time is mostly latency (its first loads, the
/// pipeline fill, the reduction of the parts' partial tiles in kernels/spmm/vbr.cu), so a
/// second wave costs nearly a whole part again: on an H200 at n = 8192, f16 in 3 parts (one
/// wave) took 26.5 µs against 30.4 µs in 4 (two waves); f32 in 8 parts (three waves) 54.9 µs
/// against 50.8 µs in 3 (two waves).
fn split_count(tiles: u64, clusters: &[u64], steps_per_tile: f64) -> u32 {
    let mut best = 1;
    for (s, &c) in (2..=MAX_SPLITS).zip(clusters) {
        if steps_per_tile / (s as f64) < MIN_PART_STEPS {
            break;
        }
        if tiles > 0 && tiles <= c {
            best = s;
        }
    }
    best
}

/// Dynamic shared memory of a kernel: its pipeline stages of an A tile (64 x BK) and a B tile
/// (BK x bn row-major or bn x BK), as `vbr::Smem` lays them out; the kernel traps if given
/// less. f16/bf16: BK = 32, unpadded (XOR-swizzled), 4 stages at 128 columns, 3 at 256; f32:
/// BK = 16, rows padded by 4 (B row-major by 8), 4 stages. Then the block-column table.
fn smem_bytes(esize: usize, b_row: bool, bn: usize) -> usize {
    let (bk, pad, b_pad) = if esize == 4 { (16, 4, 8) } else { (32, 0, 0) };
    let stages = if bn == 256 { 3 } else { 4 };
    let a = TILE_ROWS * (bk + pad);
    let b = if b_row { bk * (bn + b_pad) } else { bn * (bk + pad) };
    // The tile's block columns (`vbr::BC_TABLE` u64) after the stages.
    stages * (a + b) * esize + BLOCK_COLUMN_TABLE * 8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vbr_with_offsets(value_offset: Vec<usize>) -> VbrLayout {
        // Groups of heights 2 and 1, with 2 and 3 blocks of width 4.
        VbrLayout {
            rows: 3,
            cols: 20,
            block_width: 4,
            perm: vec![0, 1, 2],
            group_ptr: vec![0, 2, 3],
            block_ptr: vec![0, 2, 5],
            block_col: vec![0, 3, 1, 2, 4],
            value_offset,
            values_len: 28,
            stats: Default::default(),
        }
    }

    #[test]
    fn layout_check_accepts_contiguous_groups_and_refuses_others() {
        assert_eq!(check_layout(&vbr_with_offsets(vec![0, 8, 16, 20, 24])).unwrap(), 3);
        let err = check_layout(&vbr_with_offsets(vec![0, 8, 16, 24, 20])).unwrap_err();
        assert!(err.to_string().contains("group 1"), "{err}");
    }

    #[test]
    fn tile_records_locate_rows_blocks_and_values() {
        let v = vbr_with_offsets(vec![0, 8, 16, 20, 24]);
        let tiles = row_tiles(&v.group_ptr, &v.block_ptr);
        assert_eq!(tiles, vec![1, 2, 0, 0]);
        // Group 1 (row 2, 3 blocks from block 2, values at 16 = row 4 of width 4), then group 0.
        let want = vec![2, 4, 2, 3, 1, 1, 0, 0, 0, 0, 0, 2, 2, 2, 0, 0];
        assert_eq!(tile_records(&v, &tiles), want);
        // A slice of a tall group starts TILE_ROWS rows into the group's values; an empty
        // group has no values row.
        let tall = VbrLayout {
            rows: 103,
            cols: 4,
            block_width: 4,
            perm: (0..103).collect(),
            group_ptr: vec![0, 100, 103],
            block_ptr: vec![0, 1, 1],
            block_col: vec![0],
            value_offset: vec![0],
            values_len: 400,
            stats: Default::default(),
        };
        let tiles = row_tiles(&tall.group_ptr, &tall.block_ptr);
        let r = tile_records(&tall, &tiles);
        assert_eq!(&r[..8], &[0, 0, 0, 1, 100, 64, 0, 0]);
        assert_eq!(&r[8..16], &[64, 64, 0, 1, 100, 36, 0, 0]);
        assert_eq!(&r[16..24], &[100, 0, 1, 0, 3, 3, 0, 0]);
    }

    #[test]
    fn split_count_takes_the_most_parts_that_fit_one_wave() {
        // Clusters of 2..8 an H200 ran at once (f16 kernel; f32 kernel).
        let f16 = [264, 163, 124, 94, 79, 69, 62];
        let f32 = [198, 124, 92, 69, 62, 47, 45];
        assert_eq!(split_count(128, &f16, 25.5), 3);
        assert_eq!(split_count(128, &f32, 50.9), 2);
        assert_eq!(split_count(90, &f16, 25.5), 5);
        // Parts keep MIN_PART_STEPS: 8 steps make two parts of 4 at most.
        assert_eq!(split_count(60, &f16, 8.0), 2);
        assert_eq!(split_count(60, &f16, 7.9), 1);
        // A handful of tiles: at most a cluster of 8.
        assert_eq!(split_count(3, &f16, 1000.0), 8);
        // No split fits one wave, no cluster fits, or no tile: no split.
        assert_eq!(split_count(300, &f16, 100.0), 1);
        assert_eq!(split_count(128, &[0; 7], 100.0), 1);
        assert_eq!(split_count(0, &f16, 100.0), 1);
    }

    #[test]
    fn row_tiles_cut_tall_groups_and_cover_every_row() {
        let gp = [0, 1, 65, 65 + 128, 65 + 129];
        let bp = [0, 1, 4, 6, 6]; // blocks per group: 1, 3, 2, 0
        let t = row_tiles(&gp, &bp);
        let pairs: Vec<(usize, usize)> = t.chunks(2).map(|c| (c[0], c[1])).collect();
        // Most blocks first; equal counts keep row order.
        assert_eq!(pairs, vec![(1, 1), (2, 65), (2, 129), (0, 0), (3, 193)]);
    }
}
