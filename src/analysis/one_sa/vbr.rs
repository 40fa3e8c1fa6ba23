//! VBR storage: building it from a grouping, statistics, the host reference product.

use super::{chunk_bounds, split_by, BlockDiv, CsrPattern, Grouping, OneSaParams};
use rayon::prelude::*;

/// Blocking statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OneSaStats {
    /// Number of row groups (all groups, including a group of empty rows).
    pub groups: usize,
    /// Number of stored (group × column-block) blocks.
    pub nonzero_blocks: usize,
    /// ΔH' = rows in nonempty groups / nonempty groups (groups with at least one nonzero
    /// block); 0 if there is none. Empty rows do not dilute it.
    pub avg_block_height: f64,
    /// ρ' = nnz / Σ_blocks height × (real width), the real width being `min(ΔW, cols − c0)`
    /// (zero padding past `cols` is not counted). `nnz` is the number of entries in the
    /// input CSR (duplicates counted as given). 0 if there are no blocks.
    pub in_block_density: f64,
    /// Stored values including padding (`values.len()`) / nnz; 0 if nnz = 0.
    pub fill_in_ratio: f64,
    /// Wall time of grouping + VBR build in [`analyze`](super::analyze) (0 from [`build_vbr`] alone).
    pub analysis_seconds: f64,
}

/// The structure of a VBR matrix without its values: row groups of variable height × column
/// blocks of width ΔW, and where every block's values go. What [`analyze_layout`]
/// (super::analyze_layout) builds when the values are filled elsewhere (on the device, from
/// the matrix in device memory: src/backend/cuda/vbr.rs).
#[derive(Clone, Debug, PartialEq)]
pub struct VbrLayout {
    pub rows: usize,
    pub cols: usize,
    pub block_width: usize,
    /// `perm[new_row] = original row`.
    pub perm: Vec<usize>,
    /// Group boundaries in permuted row order, len groups + 1.
    pub group_ptr: Vec<usize>,
    /// Per group, range into `block_col`, len groups + 1.
    pub block_ptr: Vec<usize>,
    /// Column-block index of every nonzero block, ascending within a group.
    pub block_col: Vec<usize>,
    /// Start in the values of every nonzero block; the block is (group height × ΔW)
    /// row-major, zero-padded past `cols` in the last column block. A group's blocks are
    /// consecutive, the groups in order.
    pub value_offset: Vec<usize>,
    /// Number of stored values, padding included.
    pub values_len: usize,
    pub stats: OneSaStats,
}

/// Variable Block Row storage: a [`VbrLayout`] and its `values_len` values (reached through
/// `Deref` as `vbr.perm`, `vbr.stats`, ...).
#[derive(Clone, Debug, PartialEq)]
pub struct Vbr<V> {
    pub layout: VbrLayout,
    pub values: Vec<V>,
}

impl<V> std::ops::Deref for Vbr<V> {
    type Target = VbrLayout;
    fn deref(&self) -> &VbrLayout {
        &self.layout
    }
}

impl<V> std::ops::DerefMut for Vbr<V> {
    fn deref_mut(&mut self) -> &mut VbrLayout {
        &mut self.layout
    }
}

/// Build the VBR matrix of `p` (with `values[k]` the value of entry `k` of the CSR) for a
/// grouping: [`build_layout`], then [`fill_values`]. Duplicate (row, col) entries are summed.
pub fn build_vbr<V>(p: &CsrPattern, values: &[V], grouping: &Grouping, params: &OneSaParams) -> Vbr<V>
where
    V: Copy + Default + Send + Sync + std::ops::Add<Output = V>,
{
    let layout = build_layout(p, grouping.clone(), params);
    let values = fill_values(&layout, p, values, Vec::new());
    Vbr { layout, values }
}

/// Values buffers smaller than this are not faulted in ahead ([`prefault`]); the tests take
/// that path on every input.
const PREFAULT_MIN_BYTES: usize = if cfg!(test) { 1 } else { 64 << 20 };

/// Elements per task of [`prefault`] (8 MiB of f32): small enough that a rayon worker that
/// picks one up while it waits for a join of the grouping is back within a few milliseconds.
const PREFAULT_PIECE: usize = 2 << 20;

/// Spawn on `s` the allocation of a values buffer for a plan of at least `len` values into
/// `buf` (with 1/8 spare, so that the exact size, known only after the grouping, usually needs
/// no reallocation), and the first touch of the pages of its first `len` elements, in pieces.
/// Faulting in gigabytes of padding is most of the VBR build on sparse plans; done here it
/// fills the cores' idle moments during the grouping, and it takes pages soon after the
/// caller's previous plan was freed (on a VM with free-page reporting, pages freed seconds
/// earlier are handed back to the host and fault in several times slower).
pub(super) fn prefault<'s, V>(s: &rayon::Scope<'s>, buf: &'s mut Vec<V>, len: usize)
where
    V: Copy + Default + Send + 's,
{
    if len.saturating_mul(std::mem::size_of::<V>()) < PREFAULT_MIN_BYTES {
        return;
    }
    s.spawn(move |s| {
        *buf = vec![V::default(); len + len / 8];
        crate::os::advise_huge_pages(buf);
        for piece in buf[..len].chunks_mut(PREFAULT_PIECE) {
            s.spawn(move |_| touch_pages(piece));
        }
    });
}

/// Write `V::default()` (what the range already holds) to one element in every 4 KiB of
/// `out` and to its last one, so that the first access to each of its pages is a write: a
/// first read would map the shared zero page and the write after it would fault again,
/// with a TLB shootdown to the other cores. Cheaper than rewriting the whole range.
fn touch_pages<V: Copy + Default>(out: &mut [V]) {
    let step = (4096 / std::mem::size_of::<V>().max(1)).max(1);
    for i in (0..out.len()).step_by(step) {
        out[i] = V::default();
    }
    if let Some(x) = out.last_mut() {
        *x = V::default();
    }
}

/// The layout of [`build_vbr`] for a grouping (taken by value: no copy of `perm`): the
/// sorted block list of every group, per chunk of groups in parallel; then prefix sums give
/// every group's blocks and values range, and every chunk writes its own ranges of
/// `block_col` and `value_offset`.
pub fn build_layout(p: &CsrPattern, grouping: Grouping, params: &OneSaParams) -> VbrLayout {
    params.validate().expect("invalid OneSaParams");
    assert_eq!(grouping.perm.len(), p.rows, "grouping must cover every row");
    let bw = params.block_width;
    let div = BlockDiv::new(bw);
    let ng = grouping.groups();
    let gp = &grouping.group_ptr;
    let perm = &grouping.perm;
    let height = |g: usize| gp[g + 1] - gp[g];
    // Width of the last column block (< ΔW when ΔW does not divide cols): only it has padding.
    let nblk = p.cols.div_ceil(bw);
    let last_pad = nblk * bw - p.cols;

    // Pass 1: block list of every group, per chunk of groups.
    struct Part {
        blocks: Vec<usize>,
        counts: Vec<usize>,
        real_entries: usize,
        nonempty_groups: usize,
        rows_in_nonempty: usize,
    }
    let bounds = chunk_bounds(ng, |g| gp[g]);
    let parts: Vec<Part> = bounds
        .par_windows(2)
        .with_max_len(1)
        .map(|w| {
            let mut part = Part {
                blocks: Vec::new(),
                counts: Vec::with_capacity(w[1] - w[0]),
                real_entries: 0,
                nonempty_groups: 0,
                rows_in_nonempty: 0,
            };
            let v = &mut part.blocks;
            for g in w[0]..w[1] {
                let start = v.len();
                for &r in &perm[gp[g]..gp[g + 1]] {
                    v.extend(p.row(r).iter().map(|&c| div.block(c)));
                }
                let tail = &mut v[start..];
                // One row with sorted columns (the common case) needs no sort.
                if !tail.windows(2).all(|x| x[0] <= x[1]) {
                    tail.sort_unstable();
                }
                let mut n = 0;
                for i in 0..tail.len() {
                    if n == 0 || tail[i] != tail[n - 1] {
                        tail[n] = tail[i];
                        n += 1;
                    }
                }
                v.truncate(start + n);
                part.counts.push(n);
                if n > 0 {
                    let h = height(g);
                    let pad = if v[start + n - 1] == nblk - 1 { last_pad } else { 0 };
                    part.real_entries += h * (n * bw - pad);
                    part.nonempty_groups += 1;
                    part.rows_in_nonempty += h;
                }
            }
            part
        })
        .collect();

    // Prefix sums: blocks and values of every group.
    let mut block_ptr = Vec::with_capacity(ng + 1);
    let mut group_val_ptr = Vec::with_capacity(ng + 1);
    block_ptr.push(0);
    group_val_ptr.push(0);
    let (mut nb_total, mut off) = (0usize, 0usize);
    let mut g = 0;
    for part in &parts {
        for &n in &part.counts {
            nb_total += n;
            off += n * height(g) * bw;
            block_ptr.push(nb_total);
            group_val_ptr.push(off);
            g += 1;
        }
    }

    // Pass 2: every chunk of groups writes its own ranges of `block_col` and `value_offset`.
    let mut block_col = vec![0usize; nb_total];
    let mut value_offset = vec![0usize; nb_total];
    crate::os::advise_huge_pages(&mut block_col);
    crate::os::advise_huge_pages(&mut value_offset);
    {
        let bcs = split_by(&mut block_col, parts.iter().map(|x| x.blocks.len()));
        let vos = split_by(&mut value_offset, parts.iter().map(|x| x.blocks.len()));
        let jobs: Vec<_> = parts.iter().zip(bounds.windows(2)).zip(bcs.into_iter().zip(vos)).collect();
        jobs.into_par_iter().with_max_len(1).for_each(|((part, w), (bc, vo))| {
            bc.copy_from_slice(&part.blocks);
            let mut k = 0; // first block of the group in this chunk
            for (i, &n) in part.counts.iter().enumerate() {
                let g = w[0] + i;
                let step = height(g) * bw;
                for j in 0..n {
                    vo[k + j] = group_val_ptr[g] + j * step;
                }
                k += n;
            }
        });
    }
    let (real_entries, nonempty_groups, rows_in_nonempty) =
        parts.iter().fold((0, 0, 0), |a, x| (a.0 + x.real_entries, a.1 + x.nonempty_groups, a.2 + x.rows_in_nonempty));
    drop(parts);
    let nnz = p.nnz();
    let stats = OneSaStats {
        groups: ng,
        nonzero_blocks: nb_total,
        avg_block_height: if nonempty_groups > 0 { rows_in_nonempty as f64 / nonempty_groups as f64 } else { 0.0 },
        in_block_density: if real_entries > 0 { nnz as f64 / real_entries as f64 } else { 0.0 },
        fill_in_ratio: if nnz > 0 { off as f64 / nnz as f64 } else { 0.0 },
        analysis_seconds: 0.0,
    };
    VbrLayout {
        rows: p.rows,
        cols: p.cols,
        block_width: bw,
        perm: grouping.perm,
        group_ptr: grouping.group_ptr,
        block_ptr,
        block_col,
        value_offset,
        values_len: off,
        stats,
    }
}

impl VbrLayout {
    pub fn groups(&self) -> usize {
        self.group_ptr.len() - 1
    }

    /// Where group `g`'s values start (a group's blocks are stored together, groups in order).
    fn group_values(&self, g: usize) -> usize {
        self.value_offset.get(self.block_ptr[g]).copied().unwrap_or(self.values_len)
    }
}

/// The values of `layout` from the CSR `p` (`values[k]` the value of its entry `k`): every
/// entry added into its slot in entry order (duplicates summed), the padding zero. Parallel
/// over the same chunks of groups as [`build_layout`], each filling its own range.
/// `vec![V::default(); n]` is, for f32/f64, a lazily zeroed mapping, and every group writes
/// one element per page of its range ([`touch_pages`]) before scattering its entries into it,
/// so every page is faulted in once, by a write: faulting in gigabytes of mostly padding is
/// most of the fill on the 2^20-row matrices, and read-first faults took twice as long.
/// `pre`, if not empty, is such a buffer from [`prefault`] (at most the plan's size in its
/// first pages, already faulted in), used instead of a new one.
pub fn fill_values<V>(layout: &VbrLayout, p: &CsrPattern, values: &[V], pre: Vec<V>) -> Vec<V>
where
    V: Copy + Default + Send + Sync + std::ops::Add<Output = V>,
{
    assert_eq!(values.len(), p.col_idx.len(), "values must match col_idx");
    assert_eq!(layout.rows, p.rows, "the layout must be of this pattern");
    let bw = layout.block_width;
    let div = BlockDiv::new(bw);
    let (gp, perm, off) = (&layout.group_ptr, &layout.perm, layout.values_len);
    let mut vals = if pre.is_empty() {
        let mut v = vec![V::default(); off];
        crate::os::advise_huge_pages(&mut v);
        v
    } else {
        // A buffer from `prefault`: all `V::default()`, its first pages already faulted in.
        let mut v = pre;
        if off <= v.len() {
            v.truncate(off);
        } else {
            v.resize(off, V::default());
        }
        v.shrink_to_fit();
        v
    };
    let bounds = chunk_bounds(layout.groups(), |g| gp[g]);
    let chunks = split_by(&mut vals, bounds.windows(2).map(|w| layout.group_values(w[1]) - layout.group_values(w[0])));
    let jobs: Vec<_> = bounds.windows(2).zip(chunks).collect();
    jobs.into_par_iter().with_max_len(1).for_each(|(w, chunk)| {
        let base = layout.group_values(w[0]);
        for g in w[0]..w[1] {
            let (k0, k1) = (layout.block_ptr[g], layout.block_ptr[g + 1]);
            let bl = &layout.block_col[k0..k1];
            let step = (gp[g + 1] - gp[g]) * bw;
            let out = &mut chunk[layout.group_values(g) - base..layout.group_values(g + 1) - base];
            touch_pages(out);
            for (lr, &r) in perm[gp[g]..gp[g + 1]].iter().enumerate() {
                let range = p.row_ptr[r]..p.row_ptr[r + 1];
                let mut bi = 0;
                for (&c, &v) in p.col_idx[range.clone()].iter().zip(&values[range]) {
                    let b = div.block(c);
                    if bl[bi] != b {
                        // Sorted columns walk the block list forward; others search it.
                        bi = if bl[bi] < b && bl[bi + 1] == b { bi + 1 } else { bl.partition_point(|&x| x < b) };
                    }
                    let slot = bi * step + lr * bw + div.offset(c);
                    out[slot] = out[slot] + v;
                }
            }
        }
    });
    vals
}

/// Minimal arithmetic for the host VBR product.
pub trait Scalar: Copy + Send + Sync {
    fn zero() -> Self;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
}

macro_rules! float_scalar {
    ($($t:ty),*) => {$(
        impl Scalar for $t {
            fn zero() -> Self {
                0.0
            }
            fn add(self, o: Self) -> Self {
                self + o
            }
            fn mul(self, o: Self) -> Self {
                self * o
            }
        }
    )*};
}
float_scalar!(f32, f64);

impl<V: Copy> Vbr<V> {
    /// Convert the stored values (e.g. to `half::f16` / `half::bf16`); structure unchanged.
    pub fn map_values<W: Send>(&self, f: impl Fn(V) -> W + Sync) -> Vbr<W>
    where
        V: Sync,
    {
        Vbr { layout: self.layout.clone(), values: self.values.par_iter().map(|&v| f(v)).collect() }
    }

    /// Host reference product `C = A · B` with `A` this matrix (`rows × cols`) and `B` a
    /// dense `cols × n` matrix given by `b(k, j)`. Every entry `C[i][j]` (original row order)
    /// is reported exactly once through `out(i, j, value)`, zeros for empty rows included.
    /// Values are converted by `conv` and accumulated in `T`, block by block, over real
    /// columns only. Serial.
    pub fn spmm<T: Scalar>(
        &self,
        conv: impl Fn(V) -> T,
        b: impl Fn(usize, usize) -> T,
        n: usize,
        mut out: impl FnMut(usize, usize, T),
    ) {
        let bw = self.block_width;
        let mut acc = vec![T::zero(); n];
        for g in 0..self.groups() {
            let (r0, r1) = (self.group_ptr[g], self.group_ptr[g + 1]);
            let h = r1 - r0;
            for lr in 0..h {
                acc.iter_mut().for_each(|x| *x = T::zero());
                for k in self.block_ptr[g]..self.block_ptr[g + 1] {
                    let c0 = self.block_col[k] * bw;
                    let width = bw.min(self.cols - c0);
                    let base = self.value_offset[k] + lr * bw;
                    for c in 0..width {
                        let a = conv(self.values[base + c]);
                        for (j, x) in acc.iter_mut().enumerate() {
                            *x = x.add(a.mul(b(c0 + c, j)));
                        }
                    }
                }
                let orig = self.perm[r0 + lr];
                for (j, &x) in acc.iter().enumerate() {
                    out(orig, j, x);
                }
            }
        }
    }
}
