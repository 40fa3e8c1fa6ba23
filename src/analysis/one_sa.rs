//! 1-SA: row reordering and 1-D blocking of a sparse matrix into variable-height row groups ×
//! fixed-width column blocks (VBR), after Sylos Labini, Bernaschi, Silvestri, Vella,
//! "Blocking Techniques for Sparse Matrix Multiplication on Tensor Accelerators"
//! (arXiv 2202.05868), the algorithm behind SPARTA.
//!
//! # Algorithm (as implemented)
//!
//! 1. **Quotient rows.** Row `i` is replaced by the sorted set `Q(i)` of column blocks
//!    `col / ΔW` it touches.
//! 2. **Compression** (paper Algorithm 1). Rows with identical quotient rows form one *class*
//!    (hash of `Q(i)`, confirmed by exact comparison). Classes are ordered by their first row.
//!    A class is never split: identical rows always land in the same group.
//! 3. **Greedy grouping** (paper Algorithm 2), over classes in order: the first unassigned
//!    class seeds a group with pattern `P = Q(seed)`, `λ0 = |P|`; every later unassigned class
//!    `d`, in order, is merged when it *accepts* (see [`accepts`]) against the group's
//!    *current* pattern, and then `P ← P ∪ Q(d)`. A class is tested once per group, at its
//!    position in the scan.
//!    * `MergeRule::Plain`: accept iff `sim(P, Q(d)) ≥ τ`.
//!    * `MergeRule::TwoStep` (paper §3.2): additionally `|P ∪ Q(d)| ≤ λ0 / (1 − τ/2)`.
//!    * `sim` is Jaccard `|P∩d| / |P∪d|` or cosine `|P∩d| / sqrt(|P|·|d|)` over block sets.
//!    * Height cap (`max_group_height > 0`): a class is only added when the group height stays
//!      `≤ cap`; a single class larger than the cap is kept whole as its own group (so the
//!      cap can be exceeded only by a group that consists of one class of identical rows).
//!    * Rows with an empty pattern (no entries) form one class; no similarity with an empty
//!      set reaches `τ > 0`, so they form exactly one group of their own, placed at the
//!      position of the first empty row.
//!    * Output order: groups in seed order; inside a group, rows in ascending original index.
//!
//! # Density guarantee (TwoStep)
//!
//! Let a group have height `h`, final pattern `P`, seed size `λ0`. With Jaccard, every
//! merged class `d` satisfied `|d| ≥ |P_t ∩ d| ≥ τ |P_t ∪ d| ≥ τ λ0` (with `P_t ⊇ Q(seed)` the
//! pattern at merge time), and the seed rows have `λ0 ≥ τ λ0` blocks. The two-step bound
//! gives `|P| ≤ λ0 / (1 − τ/2)`. Each (row, block) pair in which the row is nonzero holds at
//! least one entry, so the group's nonzero count `E` satisfies
//!
//! `E ≥ Σ_rows |Q(row)| ≥ h·τ·λ0 ≥ τ(1 − τ/2) · h·|P| ≥ (τ/2) · h·|P|`,
//!
//! i.e. the fraction of nonzero (row, block) pairs is `≥ τ(1 − τ/2) ≥ τ/2` and the in-block
//! density `E / (h · |P| · ΔW) ≥ τ / (2ΔW)`. Counting only real columns (the last block may
//! be cut at `cols`) or only the columns that are nonempty in the group shrinks the
//! denominator, so the bound holds for those densities too. With cosine the same argument
//! gives `|d| ≥ τ² |P_t| ≥ τ² λ0` and therefore density `≥ τ²(1 − τ/2)/ΔW ≥ τ²/(2ΔW)`.
//!
//! # The fast versions ([`group_rows_exact`], [`group_rows`])
//!
//! [`group_rows_exact`] returns **exactly** the grouping of [`group_rows_reference`]; it only
//! avoids testing classes that cannot accept (below). [`group_rows`] (used by [`analyze`]) is
//! the same search with a per-group candidate budget ([`group_rows_budgeted`],
//! [`auto_candidate_budget`]): classes past the budget are left to later seeds, every merge
//! still passes [`accepts`], so all guarantees hold; with no budget cut the result is exact.
//! [`group_rows_serial_alg2`] is the plain row-wise Algorithm 2 (speed baseline).
//!
//! * Quotient rows, hashing, the class sort and the candidate index are built in parallel
//!   (rayon); the VBR build and the statistics are parallel over groups. [`analyze`] faults
//!   in the values buffer (its size is at least `Σ_rows |Q(row)|·ΔW`) beside the grouping.
//! * **Prefix filter** (as in set-similarity joins, AllPairs/PPJoin): fix a global order of
//!   column blocks, rarest first. Acceptance needs an overlap `|P∩d| ≥ α(|P|)` and
//!   `≥ α(|d|)`, with `α(n) = ⌈τ n⌉` (Jaccard) or `⌈τ² n⌉` (cosine). Hence `d` and `P` must
//!   share a block that lies both in the first `|d| − α(|d|) + 1` blocks of `d` and in the
//!   first `|P| − α(|P|) + 1` blocks of `P` (in the global order). Only those prefix entries
//!   of every class are indexed (block → classes, ascending), and a group only visits the
//!   index lists of blocks that have been in its current pattern's prefix. Because `P`
//!   only grows, a list is opened when its block enters `P`'s prefix and only the classes
//!   after the current scan position are taken; a min-heap replays them in class order, so
//!   every class that the serial scan would accept is seen at the same position with the
//!   same `P` — the result is identical, not approximate.
//! * **Size filters**: `|d| ≥ α(λ0)`; with TwoStep `|d| ≤ λ0/(1 − τ/2)`; with a height cap a
//!   class that does not fit now never fits later (height only grows).
//! * **Signature filter** (TwoStep): 64-bit block signatures bound `|P ∩ d|` by
//!   `|d| − popcount(sig(d) & !sig(P))`, plus what `P` can still grow; the overlap count of
//!   the exact test stops as soon as too many blocks are missing. Classes of 32 blocks and
//!   more also have a signature of about `2|d|` bits, which the certificates check before
//!   reading two long patterns.
//! * Index lists are compacted lazily when they fill up with assigned classes.
//!
//! The greedy scan itself is inherently sequential (each group depends on all previous
//! assignments) and runs on one thread; everything around it is parallel.

mod compress;
pub mod gen;
mod index;
mod reference;
mod scan;
mod search;
mod vbr;

pub use reference::{group_rows_reference, group_rows_serial_alg2};
pub use search::{
    auto_candidate_budget, group_rows, group_rows_auto_with_stats, group_rows_budgeted, group_rows_exact,
    group_rows_with_stats, SearchStats,
};
pub use vbr::{build_layout, build_vbr, fill_values, OneSaStats, Scalar, Vbr, VbrLayout};

use std::time::Instant;

/// Zero-based CSR pattern (validated by the caller: `row_ptr.len() == rows + 1`,
/// non-decreasing, `col_idx[k] < cols`). Column indices need not be sorted; duplicates are
/// allowed (their values are summed by [`build_vbr`]).
#[derive(Clone, Copy, Debug)]
pub struct CsrPattern<'a> {
    pub rows: usize,
    pub cols: usize,
    pub row_ptr: &'a [usize],
    pub col_idx: &'a [usize],
}

impl<'a> CsrPattern<'a> {
    pub fn nnz(&self) -> usize {
        self.row_ptr[self.rows] - self.row_ptr[0]
    }
    fn row(&self, i: usize) -> &'a [usize] {
        &self.col_idx[self.row_ptr[i]..self.row_ptr[i + 1]]
    }
}

/// `c / ΔW` and `c % ΔW`, with a shift and a mask when ΔW is a power of two (64 by default):
/// a hardware division per entry is a visible share of the O(nnz) passes.
#[derive(Clone, Copy, Debug)]
struct BlockDiv {
    bw: usize,
    shift: u32,
    pow2: bool,
}

impl BlockDiv {
    fn new(bw: usize) -> Self {
        BlockDiv { bw, shift: bw.trailing_zeros(), pow2: bw.is_power_of_two() }
    }
    #[inline]
    fn block(self, c: usize) -> usize {
        if self.pow2 {
            c >> self.shift
        } else {
            c / self.bw
        }
    }
    #[inline]
    fn offset(self, c: usize) -> usize {
        if self.pow2 {
            c & (self.bw - 1)
        } else {
            c % self.bw
        }
    }
}

/// `x.ceil() as usize` for `0 ≤ x < 2^53` without the libm call (the target has no SSE4.1
/// rounding instruction, and these bounds are evaluated for every candidate entry).
#[inline]
fn ceil_nonneg(x: f64) -> usize {
    let t = x as usize;
    if (t as f64) < x {
        t + 1
    } else {
        t
    }
}

/// Boundaries `0 = b_0 < b_1 < … < b_m = n` cutting the items `0..n` into at most `CHUNKS`
/// consecutive ranges of about equal weight, `cum(i)` being the total weight of items `0..i`
/// (non-decreasing). The count is fixed, so the split never depends on the thread count
/// (results do not either: every chunk of a parallel pass writes its own disjoint range).
fn chunk_bounds(n: usize, cum: impl Fn(usize) -> usize) -> Vec<usize> {
    chunk_bounds_n(n, 512, cum)
}

/// [`chunk_bounds`] with at most `chunks` ranges.
fn chunk_bounds_n(n: usize, chunks: usize, cum: impl Fn(usize) -> usize) -> Vec<usize> {
    let (c0, total) = (cum(0), cum(n));
    let step = ((total - c0) / chunks).max(1);
    let mut b = vec![0];
    for k in 1..chunks {
        // First i with cum(i) ≥ c0 + k·step.
        let target = c0 + k * step;
        let (mut lo, mut hi) = (*b.last().unwrap(), n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if cum(mid) < target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo > *b.last().unwrap() && lo < n {
            b.push(lo);
        }
    }
    if n > *b.last().unwrap() {
        b.push(n);
    }
    b
}

/// Split `v` into consecutive mutable pieces of the given lengths (for parallel passes that
/// each fill their own range).
fn split_by<T>(mut v: &mut [T], lens: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
    let mut out = Vec::new();
    for n in lens {
        let (a, b) = v.split_at_mut(n);
        out.push(a);
        v = b;
    }
    out
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Similarity {
    Jaccard,
    Cosine,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MergeRule {
    /// Merge when similarity ≥ τ only.
    Plain,
    /// Paper §3.2: similarity ≥ τ and merged pattern size ≤ λ0 / (1 − τ/2).
    TwoStep,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OneSaParams {
    /// ΔW, the column-block width (default 64).
    pub block_width: usize,
    /// Similarity threshold τ, `0 < τ ≤ 1` (default 0.5).
    pub tau: f64,
    /// Default Jaccard.
    pub similarity: Similarity,
    /// Default TwoStep.
    pub merge_rule: MergeRule,
    /// Maximum rows per group; 0 = no cap. A class of identical rows larger than the cap is
    /// kept whole (it becomes a group on its own).
    pub max_group_height: usize,
    /// Candidates a group may take from each inverted list it opens, for [`group_rows`]:
    /// `None` = automatic ([`auto_candidate_budget`], the default), `Some(0)` = exact
    /// (the grouping of [`group_rows_reference`]), `Some(k)` = at most k.
    pub candidate_budget: Option<usize>,
}

impl Default for OneSaParams {
    fn default() -> Self {
        OneSaParams {
            block_width: 64,
            tau: 0.5,
            similarity: Similarity::Jaccard,
            merge_rule: MergeRule::TwoStep,
            max_group_height: 0,
            candidate_budget: None,
        }
    }
}

impl OneSaParams {
    pub fn validate(&self) -> Result<(), String> {
        if self.block_width == 0 {
            return Err("block_width must be >= 1".into());
        }
        if !self.tau.is_finite() || self.tau <= 0.0 || self.tau > 1.0 {
            return Err(format!("tau must satisfy 0 < tau <= 1 (got {})", self.tau));
        }
        Ok(())
    }

    /// τ for Jaccard, τ² for cosine: the fraction of either set that an accepted overlap
    /// must at least reach.
    fn overlap_fraction(&self) -> f64 {
        match self.similarity {
            Similarity::Jaccard => self.tau,
            Similarity::Cosine => self.tau * self.tau,
        }
    }

    /// Lower bound on the overlap needed with a set of size `n` (conservative: a relative
    /// slack of 1e-9 keeps it ≤ the exact bound despite rounding in [`accepts`]).
    fn min_overlap(&self, n: usize) -> usize {
        ceil_nonneg((self.overlap_fraction() * n as f64) * (1.0 - 1e-9)).max(1)
    }

    /// Lower bound on the overlap `|P ∩ d|` that [`accepts`] needs from a class of `d_len`
    /// blocks in a group whose seed had `lambda0` blocks (so `|P| ≥ lambda0`):
    /// Jaccard `≥ τ(|P| + |d|)/(1 + τ)`, cosine `≥ τ·sqrt(|P|·|d|)`, and both `≥ α(|d|), α(λ0)`.
    fn needed_overlap(&self, lambda0: usize, d_len: usize) -> usize {
        let t = self.tau;
        let x = match self.similarity {
            Similarity::Jaccard => t * (lambda0 + d_len) as f64 / (1.0 + t),
            Similarity::Cosine => t * ((lambda0 * d_len) as f64).sqrt(),
        };
        let x = ceil_nonneg(x * (1.0 - 1e-9)).max(1);
        x.max(self.min_overlap(d_len)).max(self.min_overlap(lambda0))
    }

    /// TwoStep size bound λ0 / (1 − τ/2).
    fn size_bound(&self, lambda0: usize) -> f64 {
        lambda0 as f64 / (1.0 - self.tau / 2.0)
    }
}

/// The merge test shared by the reference and the fast version (so both take identical
/// floating-point decisions): a class with `d_len` blocks, `inter` of which are in the
/// current group pattern of `p_len` blocks, joins a group whose seed had `lambda0` blocks.
pub fn accepts(inter: usize, p_len: usize, d_len: usize, lambda0: usize, params: &OneSaParams) -> bool {
    if inter == 0 || p_len == 0 || d_len == 0 {
        return false;
    }
    let union = p_len + d_len - inter;
    let sim = match params.similarity {
        Similarity::Jaccard => inter as f64 / union as f64,
        Similarity::Cosine => inter as f64 / ((p_len as f64) * (d_len as f64)).sqrt(),
    };
    if sim < params.tau {
        return false;
    }
    match params.merge_rule {
        MergeRule::Plain => true,
        MergeRule::TwoStep => union as f64 <= params.size_bound(lambda0),
    }
}

/// A row grouping: `perm[new_row] = original row`; group `g` is
/// `perm[group_ptr[g]..group_ptr[g + 1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grouping {
    pub perm: Vec<usize>,
    pub group_ptr: Vec<usize>,
}

impl Grouping {
    pub fn groups(&self) -> usize {
        self.group_ptr.len() - 1
    }
}

/// [`group_rows`] + [`build_vbr`], with `stats.analysis_seconds` set to the wall time of both.
pub fn analyze<V>(p: &CsrPattern, values: &[V], params: &OneSaParams) -> Vbr<V>
where
    V: Copy + Default + Send + Sync + std::ops::Add<Output = V>,
{
    let t = Instant::now();
    // The values buffer is allocated and its pages faulted in by rayon tasks that run beside
    // the grouping, from the moment its lower bound Σ_rows |Q(row)|·ΔW is known (every group
    // stores each member row's blocks, so the plan is at least that large).
    let mut pre: Vec<V> = Vec::new();
    let g = rayon::scope(|s| {
        let pre = &mut pre;
        search::group_rows_then(p, params, move |n| vbr::prefault(s, pre, n * params.block_width))
    });
    let layout = vbr::build_layout(p, g, params);
    let values = vbr::fill_values(&layout, p, values, pre);
    let mut v = Vbr { layout, values };
    v.stats.analysis_seconds = t.elapsed().as_secs_f64();
    v
}

/// [`group_rows`] + [`build_layout`]: what [`analyze`] builds, without the values, for a
/// caller that fills them where they are multiplied (the CUDA backend, on the device). On
/// sparse plans (R-MAT: 60 stored values per entry, 4 GB) the values are most of the memory
/// and half of the time. `stats.analysis_seconds` as in [`analyze`].
pub fn analyze_layout(p: &CsrPattern, params: &OneSaParams) -> VbrLayout {
    let t = Instant::now();
    let mut layout = vbr::build_layout(p, search::group_rows(p, params), params);
    layout.stats.analysis_seconds = t.elapsed().as_secs_f64();
    layout
}

#[cfg(test)]
mod tests;
