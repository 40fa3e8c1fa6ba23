//! VBR storage: building it from a grouping, statistics, the host reference product.

use super::{CsrPattern, Grouping, OneSaParams};
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

/// Variable Block Row storage: row groups of variable height × column blocks of width ΔW.
#[derive(Clone, Debug, PartialEq)]
pub struct Vbr<V> {
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
    /// Start in `values` of every nonzero block; the block is (group height × ΔW)
    /// row-major, zero-padded past `cols` in the last column block.
    pub value_offset: Vec<usize>,
    pub values: Vec<V>,
    pub stats: OneSaStats,
}

/// Build the VBR matrix of `p` (with `values[k]` the value of entry `k` of the CSR) for a
/// grouping. Duplicate (row, col) entries are summed. Parallel over groups.
pub fn build_vbr<V>(p: &CsrPattern, values: &[V], grouping: &Grouping, params: &OneSaParams) -> Vbr<V>
where
    V: Copy + Default + Send + Sync + std::ops::Add<Output = V>,
{
    params.validate().expect("invalid OneSaParams");
    assert_eq!(values.len(), p.col_idx.len(), "values must match col_idx");
    assert_eq!(grouping.perm.len(), p.rows, "grouping must cover every row");
    let bw = params.block_width;
    let ng = grouping.groups();
    let gp = &grouping.group_ptr;
    // Block pattern of every group.
    let gblocks: Vec<Vec<usize>> = (0..ng)
        .into_par_iter()
        .map(|g| {
            let mut v: Vec<usize> = Vec::new();
            for &r in &grouping.perm[gp[g]..gp[g + 1]] {
                v.extend(p.row(r).iter().map(|&c| c / bw));
            }
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    let mut block_ptr = Vec::with_capacity(ng + 1);
    block_ptr.push(0);
    let mut block_col = Vec::new();
    let mut value_offset = Vec::new();
    let mut group_val_ptr = Vec::with_capacity(ng + 1);
    group_val_ptr.push(0);
    let mut off = 0usize;
    let mut real_entries = 0usize;
    let mut nonempty_groups = 0usize;
    let mut rows_in_nonempty = 0usize;
    for (g, bl) in gblocks.iter().enumerate() {
        let h = gp[g + 1] - gp[g];
        for &b in bl {
            block_col.push(b);
            value_offset.push(off);
            off += h * bw;
            real_entries += h * (bw.min(p.cols - b * bw));
        }
        if !bl.is_empty() {
            nonempty_groups += 1;
            rows_in_nonempty += h;
        }
        block_ptr.push(block_col.len());
        group_val_ptr.push(off);
    }
    let mut vals = vec![V::default(); off];
    // Split the value array into per-group chunks and fill them in parallel.
    let mut chunks: Vec<&mut [V]> = Vec::with_capacity(ng);
    let mut rest: &mut [V] = &mut vals;
    for g in 0..ng {
        let (a, b) = rest.split_at_mut(group_val_ptr[g + 1] - group_val_ptr[g]);
        chunks.push(a);
        rest = b;
    }
    chunks.into_par_iter().enumerate().for_each(|(g, chunk)| {
        let bl = &gblocks[g];
        let nb = bl.len();
        for (lr, &r) in grouping.perm[gp[g]..gp[g + 1]].iter().enumerate() {
            let range = p.row_ptr[r]..p.row_ptr[r + 1];
            for (&c, &v) in p.col_idx[range.clone()].iter().zip(&values[range]) {
                let bi = bl.partition_point(|&x| x < c / bw);
                debug_assert!(bi < nb);
                let slot = bi * (gp[g + 1] - gp[g]) * bw + lr * bw + c % bw;
                chunk[slot] = chunk[slot] + v;
            }
        }
    });
    let nnz = p.nnz();
    let stats = OneSaStats {
        groups: ng,
        nonzero_blocks: block_col.len(),
        avg_block_height: if nonempty_groups > 0 { rows_in_nonempty as f64 / nonempty_groups as f64 } else { 0.0 },
        in_block_density: if real_entries > 0 { nnz as f64 / real_entries as f64 } else { 0.0 },
        fill_in_ratio: if nnz > 0 { off as f64 / nnz as f64 } else { 0.0 },
        analysis_seconds: 0.0,
    };
    Vbr {
        rows: p.rows,
        cols: p.cols,
        block_width: bw,
        perm: grouping.perm.clone(),
        group_ptr: grouping.group_ptr.clone(),
        block_ptr,
        block_col,
        value_offset,
        values: vals,
        stats,
    }
}

/// Minimal arithmetic for the host VBR product.
pub trait Scalar: Copy + Send + Sync {
    fn zero() -> Self;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
}

impl Scalar for f32 {
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

impl Scalar for f64 {
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

impl<V: Copy> Vbr<V> {
    pub fn groups(&self) -> usize {
        self.group_ptr.len() - 1
    }

    /// Convert the stored values (e.g. to `half::f16` / `half::bf16`); structure unchanged.
    pub fn map_values<W: Send>(&self, f: impl Fn(V) -> W + Sync) -> Vbr<W>
    where
        V: Sync,
    {
        Vbr {
            rows: self.rows,
            cols: self.cols,
            block_width: self.block_width,
            perm: self.perm.clone(),
            group_ptr: self.group_ptr.clone(),
            block_ptr: self.block_ptr.clone(),
            block_col: self.block_col.clone(),
            value_offset: self.value_offset.clone(),
            values: self.values.par_iter().map(|&v| f(v)).collect(),
            stats: self.stats,
        }
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
