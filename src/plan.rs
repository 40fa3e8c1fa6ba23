//! Plans: what an algorithm precomputes for one sparse matrix, kept by the matrix's descriptor
//! so that `*_preprocess` (or `spblkAnalyze`) on one call and the product on the next see the
//! same plan.
//!
//! A descriptor owns a [`PlanSlot`] through an `Arc`, so the copies that one call takes of a
//! descriptor share it. Replacing the descriptor's pointers or values gives it a fresh, empty
//! slot (the old plans are freed once no call holds them); destroying the descriptor frees
//! them. Plans are built by the backends and live in the backend's memory ([`Buffer`]: device
//! memory on CUDA), so the plan types name no backend.
//!
//! Values: the operand plans hold the *pattern* only (offsets, indices and the permutation
//! from stored entries to CSR of op(A)); every call reads the current values through the
//! permutation, so values changed in place need no new preprocess. The 1-SA plan copies the
//! values into its dense blocks: after changing values in place, call `spblkAnalyze` again.

use std::any::Any;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::analysis::OneSaPlan;
use crate::types::{DataType, IndexType, Operation, Precision};

/// Memory a backend allocated for a plan: its address (device or host) and the owner that
/// frees it on drop.
pub struct Buffer {
    pub addr: u64,
    pub bytes: usize,
    _owner: Box<dyn Any + Send + Sync>,
}

impl Buffer {
    pub fn new(addr: u64, bytes: usize, owner: Box<dyn Any + Send + Sync>) -> Self {
        Buffer { addr, bytes, _owner: owner }
    }
    /// Host memory: the vector is the owner (its heap block does not move).
    pub fn from_vec<T: Send + Sync + 'static>(v: Vec<T>) -> Self {
        let (addr, bytes) = (v.as_ptr() as u64, std::mem::size_of_val(v.as_slice()));
        Buffer { addr, bytes, _owner: Box::new(v) }
    }
    /// The buffer as a host slice (host backend only).
    ///
    /// # Safety
    /// The buffer must hold host memory of `T` elements (as `from_vec::<T>` made it).
    pub unsafe fn host_slice<T>(&self) -> &[T] {
        let len = self.bytes / std::mem::size_of::<T>().max(1);
        if len == 0 {
            return &[];
        }
        // SAFETY: forwarded; `_owner` keeps the memory alive as long as `self`.
        unsafe { std::slice::from_raw_parts(self.addr as *const T, len) }
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Buffer({:#x}, {} bytes)", self.addr, self.bytes)
    }
}

/// The pattern of CSR of op(A) when A is not stored that way (CSC, COO, or transposed):
/// zero-based offsets and indices in A's index type, and for each CSR entry the position of
/// its value in A's storage (`perm`, u32 on CUDA, u64 on the host).
#[derive(Debug)]
pub struct Converted {
    pub rows: i64,
    pub nnz: i64,
    pub index_type: IndexType,
    pub row_ptr: Buffer,
    pub col_ind: Buffer,
    pub perm: Buffer,
}

/// What SpMV and SpMM keep for op(A) after a preprocess.
#[derive(Debug)]
pub struct OperandPlan {
    /// `None`: A is stored as CSR of op(A) and is read in place.
    pub converted: Option<Converted>,
    /// The longest row of op(A): decides whether the long-row path is needed at all.
    pub max_row_len: i64,
}

/// What the merge-tile SpMV (`SpmvMethod::CsrMerge`) keeps for op(A) after a preprocess: the
/// first row of every tile of `width` merge-path items (rows + entries), `count + 1` entries in
/// A's index type (the last is the number of rows). Calls without it search for the same rows.
#[derive(Debug)]
pub struct SpmvTiles {
    pub width: i64,
    pub count: u64,
    pub starts: Buffer,
}

/// RoDe's row decomposition of op(A) (`SPBLK_SPMM_ALG_RODE`, docs/rode.md): each row's first
/// `len / BLOCK * BLOCK` entries (its block part) cut into segments of `seg_len` entries (the
/// last one shorter), the rest its residual part. Built on the device by the CUDA backend; the
/// host backend derives the same segments from the row lengths and keeps only the counts.
#[derive(Debug)]
pub struct RodePlan {
    pub rows: i64,
    /// Segments over all rows.
    pub segments: u64,
    /// The segment length before the per-row cap (`seg_for`).
    pub seg: i64,
    /// Seconds the build took (the analysis cost the benchmark reports).
    pub build_seconds: f64,
    /// CUDA: `seg_ptr` (rows + 1 u32, each row's first segment) and `seg_row` (segments u32,
    /// each segment's row; `None` when there is no segment).
    pub arrays: Option<(Buffer, Option<Buffer>)>,
}

impl RodePlan {
    /// Entries per block of a row's block part (a row shorter than this is all residual).
    pub(crate) const BLOCK: i64 = 32;
    /// The longest segment length `seg_for` picks (RoDe's own).
    pub(crate) const MAX_SEG: i64 = 512;
    /// A row is cut into at most this many segments (longer ones for longer rows), so that
    /// adding a row's partials stays short (kernels/spmm/rode.cu's RODE_MAX_SEGS).
    pub(crate) const MAX_SEGS: i64 = 256;
    /// The product's message (argument matA) when op(A) has no RoDe plan.
    pub(crate) const MISSING: &'static str = "has no RoDe plan for this op(A) (call spblkSpMM_preprocess with \
                                        SPBLK_SPMM_ALG_RODE, or spblkAnalyze with SPBLK_ANALYSIS_RODE, first)";

    /// The segment length of a matrix of `nnz` entries: nnz / 8192 as a power of two, from
    /// `BLOCK` to `MAX_SEG`. One group sums a segment in about len / 4 dependent rounds of
    /// loads, which a small matrix cannot hide behind other work (H100: 512-entry segments made
    /// the real matrices of 10^4 entries up to 4x slower than the CSR row method).
    pub fn seg_for(nnz: i64) -> i64 {
        ((nnz.max(0) as u64 / 8192).next_power_of_two() as i64).clamp(Self::BLOCK, Self::MAX_SEG)
    }
    /// Entries in the block part of a row of `len` entries.
    pub fn block_part(len: i64) -> i64 {
        len / Self::BLOCK * Self::BLOCK
    }
    /// The segment length of a block part of `blocked` entries: `seg`, or longer (a multiple
    /// of `BLOCK`) when the row would make more than `MAX_SEGS` segments.
    pub fn seg_len(blocked: i64, seg: i64) -> i64 {
        let per = (blocked + Self::MAX_SEGS - 1) / Self::MAX_SEGS;
        ((per + Self::BLOCK - 1) / Self::BLOCK * Self::BLOCK).max(seg)
    }
    /// Segments of a row of `len` entries.
    pub fn segments_of(len: i64, seg: i64) -> i64 {
        let blocked = Self::block_part(len);
        (blocked + Self::seg_len(blocked, seg) - 1) / Self::seg_len(blocked, seg)
    }
}

/// Column slabs of op(A) for `SPBLK_SPMM_ALG_CSR_SWEEP` (kernels/spmm/sweep.cu, docs/spmm.md):
/// slab s holds columns `[s * slab_cols, (s + 1) * slab_cols)`, and on CUDA `offsets` holds
/// `(slabs - 1) x rows` u32, where each row's slabs 1.. start, counted from the row's start.
#[derive(Debug)]
pub struct SweepPlan {
    pub rows: i64,
    pub slabs: u32,
    pub slab_cols: i64,
    /// Seconds the build took (the analysis cost the benchmark reports).
    pub build_seconds: f64,
    /// CUDA: the slab starts (`None` with one slab, and on the host).
    pub offsets: Option<Buffer>,
}

impl SweepPlan {
    /// The product's message (argument matA) when op(A) has no sweep plan.
    pub(crate) const MISSING: &'static str = "has no column-sweep plan for this op(A) (call spblkSpMM_preprocess \
                                               with SPBLK_SPMM_ALG_CSR_SWEEP first)";
    /// Bytes of op(B) per slab: a third of the H100's 50 MB L2, so that one slab's rows stay
    /// there while the next one's come in (prototype: 16 MB slabs 14.6 ms, 64 MB 16.3 ms,
    /// 512 MB (one slab) 19.7 ms on uniform rows of 128 entries, N = 128).
    pub const SLAB_BYTES: u64 = 16 << 20;
    /// At least this many slabs (small matrices still run the slab walk) and at most this many
    /// (each slab costs every row 4 bytes of plan and a few instructions).
    pub const MIN_SLABS: u64 = 8;
    pub const MAX_SLABS: u64 = 64;

    /// The slabs of `k` columns of op(A) when a row of op(B) takes `row_bytes`: (count, columns
    /// per slab), each slab at least one column.
    pub fn slabs_for(k: i64, row_bytes: u64) -> (u32, i64) {
        let k = k.max(1) as u64;
        let slabs = (k * row_bytes).div_ceil(Self::SLAB_BYTES).clamp(Self::MIN_SLABS, Self::MAX_SLABS).min(k);
        let cols = k.div_ceil(slabs);
        (k.div_ceil(cols) as u32, cols as i64)
    }
}

/// ASpT's tiling of a CSR pattern (`SPBLK_SDDMM_ALG_ASPT`, docs/sddmm.md): the rows ordered by
/// a min-hash of their column blocks (rows with the same blocks next to each other), that order
/// cut into panels of `PANEL` rows, and each panel's entries listed by column. The CUDA backend
/// builds it on the device, the host backend the same arrays on the host.
#[derive(Debug)]
pub struct AsptPlan {
    pub rows: i64,
    pub nnz: i64,
    pub panels: u64,
    /// Distinct (panel, column) pairs: `nnz / runs` entries of a panel share a column on average.
    pub runs: u64,
    /// Whether every row's columns are in nondecreasing order (a row's entries then meet the
    /// panel's runs in order: the CUDA f32 product's tiles need it).
    pub sorted: bool,
    /// Seconds the build took (the analysis cost the benchmark reports).
    pub build_seconds: f64,
    pub arrays: AsptArrays,
}

/// The plan's arrays (u32): `order` (rows: the rows in panel order), `panel_ptr` (panels + 1:
/// each panel's first entry), `ent_pos` (nnz: each listed entry's position in C's arrays),
/// `ent_key` (nnz: its column << 5 | its row's slot in the panel), and the runs (a panel's
/// entries of one column; numbered over all panels in list order): `run_ptr` (panels + 1: each
/// panel's first run), `run_col` (runs: each run's column) and `ent_run` (nnz: the run of the
/// entry at each position of C).
#[derive(Debug)]
pub struct AsptArrays {
    pub order: Buffer,
    pub panel_ptr: Buffer,
    pub ent_pos: Buffer,
    pub ent_key: Buffer,
    pub run_ptr: Buffer,
    pub run_col: Buffer,
    pub ent_run: Buffer,
}

impl AsptPlan {
    /// An entry key's low bits: its row's slot in the panel.
    pub(crate) const SLOT_BITS: u32 = 5;
    /// Rows per panel.
    pub(crate) const PANEL: i64 = 1 << Self::SLOT_BITS;
    /// The row key hashes columns in blocks of 2^COARSE.
    pub(crate) const COARSE: u32 = 5;
    /// The product's message (argument matC) when C has no ASpT plan.
    pub(crate) const MISSING: &'static str =
        "has no ASpT plan (call spblkSDDMM_preprocess with SPBLK_SDDMM_ALG_ASPT, or \
                                        spblkAnalyze with SPBLK_ANALYSIS_ASPT, first)";

    /// The largest k the CUDA product takes (one 8G-element slice per lane group, G <= 32, and
    /// 32 staged rows of op(A) in at most 48 KB of shared memory); larger k is NOT_SUPPORTED there.
    pub fn max_k(compute: DataType) -> i64 {
        if compute == DataType::F64 {
            128
        } else {
            256
        }
    }
    /// Whether the CUDA product takes the tensor-core tiles (kernels/sddmm/aspt_tiles.cu): f32
    /// values, rows sorted by column; else each entry's dot product as the default sums it.
    pub fn tiles(precision: Precision, sorted: bool) -> bool {
        precision.input == DataType::F32 && precision.output == DataType::F32 && sorted
    }
    /// Entries per (panel, column) pair: how often a staged column of op(B) is used.
    pub fn reuse(&self) -> f64 {
        self.nnz as f64 / self.runs.max(1) as f64
    }
    /// Why a pattern cannot be tiled (32-bit positions, columns in 27 bits), if it cannot.
    pub fn unsupported(rows: i64, cols: i64, nnz: i64) -> Option<String> {
        (rows >= u32::MAX as i64 || nnz >= u32::MAX as i64 || cols > 1 << 27).then(|| {
            format!(
                "ASpT plans index rows and entries with 32 bits and columns with 27 ({rows} rows, {cols} columns, \
                 {nnz} entries)"
            )
        })
    }
    /// The sort keys of a row with these columns, (first min-hash, hash of the other three):
    /// the host's copy of kernels/sddmm/aspt.cu's `aspt_row_keys`.
    pub fn row_key(cols: impl Iterator<Item = u32>) -> (u32, u32) {
        let mut h = [u32::MAX; 4];
        for c in cols {
            let block = c >> Self::COARSE;
            for (t, h) in h.iter_mut().enumerate() {
                *h = (*h).min(mix(block.wrapping_mul(4).wrapping_add(t as u32)));
            }
        }
        if h[0] == u32::MAX {
            return (u32::MAX, u32::MAX);
        }
        (h[0], mix(h[1] ^ mix(h[2] ^ mix(h[3]))))
    }
}

/// ASpT's tiling for SpMM (`SPBLK_SPMM_ALG_ASPT`, docs/aspt-spmm.md), derived from an
/// [`AsptPlan`] of the same pattern: in each panel the columns that two or more of its rows use
/// are *dense* (numbered in column order, their rows of op(B) staged in shared memory a chunk at
/// a time); each row lists its dense entries first, then the rest (*sparse*, op(B) read from
/// memory), each part in column order. That is also the order of every row's sum.
#[derive(Debug)]
pub struct AsptSpmmPlan {
    pub rows: i64,
    pub nnz: i64,
    pub panels: u64,
    /// Entries in dense columns.
    pub dense_entries: u64,
    /// Dense (panel, column) pairs: rows of op(B) staged per column tile.
    pub dense_columns: u64,
    /// Seconds the build took, the base plan's included when it was built for this one.
    pub build_seconds: f64,
    pub arrays: AsptSpmmArrays,
}

/// The arrays (u32): `order` (the rows in panel order, as the base plan's); `half_ptr` (twice
/// the rows, plus one: ranked row r's dense entries are `half_ptr[2r]..half_ptr[2r+1]`, its
/// sparse ones up to `half_ptr[2r+2]`); `ent_pos` (nnz: the entry's position in A's values);
/// `ent_idx` (nnz: a dense entry's column number in its panel, a sparse entry's column);
/// `dcol_ptr` (panels plus one: each panel's first dense column); `dcols` (the dense columns).
#[derive(Debug)]
pub struct AsptSpmmArrays {
    pub order: Buffer,
    pub half_ptr: Buffer,
    pub ent_pos: Buffer,
    pub ent_idx: Buffer,
    pub dcol_ptr: Buffer,
    pub dcols: Buffer,
}

impl AsptSpmmPlan {
    /// The product's message (argument matA) when A has no plan for SpMM.
    pub(crate) const MISSING: &'static str = "has no ASpT plan for SpMM (call spblkSpMM_preprocess with \
                                              SPBLK_SPMM_ALG_ASPT, or spblkAnalyze with SPBLK_ANALYSIS_ASPT, first)";
    pub fn shape(&self) -> AsptSpmmShape {
        AsptSpmmShape { entries: self.nnz as u64, dense_entries: self.dense_entries, dense_columns: self.dense_columns }
    }
    pub fn reuse(&self) -> f64 {
        self.shape().reuse()
    }
    pub fn dense_share(&self) -> f64 {
        self.shape().dense_share()
    }
}

/// What the default's cost model reads of an ASpT SpMM plan: counted over the whole plan, or
/// estimated before building one from a sample of its panels (the default's preprocess).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsptSpmmShape {
    pub entries: u64,
    /// Entries in dense columns (used by two or more of their panel's rows).
    pub dense_entries: u64,
    /// Dense (panel, column) pairs: rows of op(B) staged per column tile.
    pub dense_columns: u64,
}

impl AsptSpmmShape {
    /// Entries per dense (panel, column) pair: how often a staged row of op(B) is used.
    pub fn reuse(&self) -> f64 {
        self.dense_entries as f64 / self.dense_columns.max(1) as f64
    }
    /// The share of entries that read op(B) from shared memory.
    pub fn dense_share(&self) -> f64 {
        self.dense_entries as f64 / self.entries.max(1) as f64
    }
}

/// kernels/sddmm/aspt.cu's `aspt_mix`.
fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// The VBR arrays of a 1-SA plan in a backend's memory, as its kernel reads them: the
/// plan's index arrays as u64 (zero-based, whatever A's index type and base), the block
/// values in A's value type, and the row tiles: `(group, first permuted row)` pairs (u64),
/// each at most `tile_rows` rows of one group, so tall groups are cut into slices.
#[derive(Debug)]
pub struct VbrArrays {
    pub group_ptr: Buffer,
    pub block_ptr: Buffer,
    pub block_col: Buffer,
    pub value_offset: Buffer,
    pub perm: Buffer,
    pub values: Buffer,
    pub tiles: Buffer,
    /// One record per row tile, in the order of `tiles`, so that a thread block locates its
    /// work with one round of loads (the wgmma kernel): `TILE_RECORD` u64 each, see
    /// src/backend/cuda/vbr.rs (`tile_records`).
    pub tile_records: Buffer,
    pub tile_count: usize,
    pub tile_rows: usize,
    /// Multiply-adds per column of op(B) that the kernel issues: every row tile computes
    /// `tile_rows` rows of each of its group's blocks, whatever the group's height (the
    /// default algorithm's cost model).
    pub tile_work: f64,
    /// Row tiles that keep the device busy: with fewer tiles than this the kernel leaves SMs
    /// (partly) idle (the cost model's utilisation).
    pub parallel_tiles: usize,
    /// The most nonzero blocks of one group (the kernel's step count per tile).
    pub most_group_blocks: usize,
}

/// Each stored entry's row (u32, zero-based) of a small CSR matrix, for SDDMM's small calls:
/// a lane group reads its entries' rows instead of searching and stepping along the offsets
/// (kernels/sddmm/csr.cu, `sddmm_csr_entries`). Built by SDDMM's preprocess on CUDA.
#[derive(Debug)]
pub struct EntryRows {
    pub rows: Buffer,
}

impl EntryRows {
    /// The most entries a matrix gets the plan for (512 KB of rows): above, a call's groups
    /// take many entries each, the search is a small part of a warp's work, and the fast path
    /// keeps each row's slice of op(A) for all of its entries.
    pub const MAX_NNZ: i64 = 1 << 17;
}

/// A 1-SA analysis and, on backends that compute from their own memory, its arrays there.
#[derive(Debug)]
pub struct OneSa {
    pub plan: OneSaPlan,
    pub arrays: Option<VbrArrays>,
}

/// The plans of one matrix.
#[derive(Default, Debug)]
pub struct Plans {
    /// Indexed by [`op_index`]: op(A) = A and op(A) = Aᵀ.
    operand: [Option<Arc<OperandPlan>>; 2],
    spmv_tiles: [Option<Arc<SpmvTiles>>; 2],
    one_sa: Option<Arc<OneSa>>,
    rode: [Option<Arc<RodePlan>>; 2],
    sweep: [Option<Arc<SweepPlan>>; 2],
    aspt: Option<Arc<AsptPlan>>,
    aspt_spmm: Option<Arc<AsptSpmmPlan>>,
    /// The default preprocess's estimate of the ASpT SpMM plan, kept so that it is made once.
    aspt_estimate: Option<AsptSpmmShape>,
    entry_rows: Option<Arc<EntryRows>>,
}

fn op_index(op: Operation) -> usize {
    usize::from(op.is_transposed())
}

impl Plans {
    pub fn operand(&self, op: Operation) -> Option<Arc<OperandPlan>> {
        self.operand[op_index(op)].clone()
    }
    pub fn set_operand(&mut self, op: Operation, plan: OperandPlan) -> Arc<OperandPlan> {
        let plan = Arc::new(plan);
        self.operand[op_index(op)] = Some(plan.clone());
        plan
    }
    pub fn spmv_tiles(&self, op: Operation) -> Option<Arc<SpmvTiles>> {
        self.spmv_tiles[op_index(op)].clone()
    }
    pub fn set_spmv_tiles(&mut self, op: Operation, plan: SpmvTiles) {
        self.spmv_tiles[op_index(op)] = Some(Arc::new(plan));
    }
    pub fn one_sa(&self) -> Option<Arc<OneSa>> {
        self.one_sa.clone()
    }
    pub fn set_one_sa(&mut self, plan: OneSa) {
        self.one_sa = Some(Arc::new(plan));
    }
    pub fn rode(&self, op: Operation) -> Option<Arc<RodePlan>> {
        self.rode[op_index(op)].clone()
    }
    pub fn set_rode(&mut self, op: Operation, plan: RodePlan) {
        self.rode[op_index(op)] = Some(Arc::new(plan));
    }
    pub fn sweep(&self, op: Operation) -> Option<Arc<SweepPlan>> {
        self.sweep[op_index(op)].clone()
    }
    pub fn set_sweep(&mut self, op: Operation, plan: SweepPlan) {
        self.sweep[op_index(op)] = Some(Arc::new(plan));
    }
    pub fn aspt(&self) -> Option<Arc<AsptPlan>> {
        self.aspt.clone()
    }
    pub fn set_aspt(&mut self, plan: AsptPlan) -> Arc<AsptPlan> {
        let plan = Arc::new(plan);
        self.aspt = Some(plan.clone());
        plan
    }
    pub fn aspt_spmm(&self) -> Option<Arc<AsptSpmmPlan>> {
        self.aspt_spmm.clone()
    }
    pub fn set_aspt_spmm(&mut self, plan: AsptSpmmPlan) {
        self.aspt_spmm = Some(Arc::new(plan));
    }
    pub fn aspt_estimate(&self) -> Option<AsptSpmmShape> {
        self.aspt_estimate
    }
    pub fn set_aspt_estimate(&mut self, shape: AsptSpmmShape) {
        self.aspt_estimate = Some(shape);
    }
    pub fn entry_rows(&self) -> Option<Arc<EntryRows>> {
        self.entry_rows.clone()
    }
    pub fn set_entry_rows(&mut self, plan: EntryRows) {
        self.entry_rows = Some(Arc::new(plan));
    }
    /// How many plans are held (tests and logs).
    pub fn count(&self) -> usize {
        self.operand.iter().flatten().count()
            + self.spmv_tiles.iter().flatten().count()
            + usize::from(self.one_sa.is_some())
            + self.rode.iter().flatten().count()
            + self.sweep.iter().flatten().count()
            + usize::from(self.aspt.is_some())
            + usize::from(self.aspt_spmm.is_some())
            + usize::from(self.entry_rows.is_some())
    }
}

/// The descriptor's shared, lockable set of plans.
#[derive(Default, Debug)]
pub struct PlanSlot(Mutex<Plans>);

impl PlanSlot {
    pub fn lock(&self) -> MutexGuard<'_, Plans> {
        // A panic while building a plan leaves the slot as it was before the insertion.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::{RodePlan, SweepPlan};

    #[test]
    fn sweep_slabs_cover_the_columns() {
        // 1 M columns of 512-byte rows: 512 MB in 16 MB slabs.
        assert_eq!(SweepPlan::slabs_for(1 << 20, 512), (32, 32_768));
        // Small: at least MIN_SLABS, each at least one column, the last one possibly shorter.
        assert_eq!(SweepPlan::slabs_for(1000, 512), (8, 125));
        assert_eq!(SweepPlan::slabs_for(10, 4), (5, 2));
        assert_eq!(SweepPlan::slabs_for(3, 4), (3, 1));
        assert_eq!(SweepPlan::slabs_for(0, 4), (1, 1));
        // Huge: at most MAX_SLABS.
        assert_eq!(SweepPlan::slabs_for(1 << 24, 512).0, 64);
        for (k, b) in [(1, 4), (7, 8), (1001, 512), (123_457, 256), (5 << 20, 1024)] {
            let (s, cols) = SweepPlan::slabs_for(k, b);
            assert!(s as i64 * cols >= k && (s as i64 - 1) * cols < k.max(1), "{k} {b}: {s} x {cols}");
        }
    }

    #[test]
    fn rode_segments_follow_the_size_and_the_row_cap() {
        assert_eq!(RodePlan::seg_for(0), 32);
        assert_eq!(RodePlan::seg_for(43_250), 32);
        assert_eq!(RodePlan::seg_for(1 << 20), 128);
        assert_eq!(RodePlan::seg_for(16_000_000), 512);
        // Rows of fewer than BLOCK entries have no segment; then one per `seg` entries.
        assert_eq!(RodePlan::segments_of(31, 32), 0);
        assert_eq!(RodePlan::segments_of(33, 32), 1);
        assert_eq!(RodePlan::segments_of(1600, 512), 4);
        // 46 500 entries in segments of 32 would be 1453: capped at MAX_SEGS by longer ones.
        let blocked = RodePlan::block_part(46_500);
        assert_eq!(RodePlan::seg_len(blocked, 32), 192);
        assert_eq!(RodePlan::segments_of(46_500, 32), 243);
        for len in [0i64, 32, 8800, 46_500, 1 << 24] {
            for seg in [32i64, 64, 512] {
                let s = RodePlan::segments_of(len, seg);
                assert!(s <= RodePlan::MAX_SEGS, "{len} {seg}: {s} segments");
                assert_eq!(RodePlan::seg_len(RodePlan::block_part(len), seg) % RodePlan::BLOCK, 0);
            }
        }
    }
}
