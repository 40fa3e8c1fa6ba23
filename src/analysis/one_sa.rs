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
//!   (rayon); the VBR build and the statistics are parallel over groups.
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
//!   the exact test stops as soon as too many blocks are missing.
//! * Index lists are compacted lazily when they fill up with assigned classes.
//!
//! The greedy scan itself is inherently sequential (each group depends on all previous
//! assignments) and runs on one thread; everything around it is parallel.

pub mod gen;

use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap};
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
        ((self.overlap_fraction() * n as f64) * (1.0 - 1e-9)).ceil().max(1.0) as usize
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
        let x = (x * (1.0 - 1e-9)).ceil().max(1.0) as usize;
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

// ---------------------------------------------------------------------------------------
// Reference (serial, straightforward)
// ---------------------------------------------------------------------------------------

fn quotient_row(cols: &[usize], bw: usize) -> Vec<usize> {
    let mut q: Vec<usize> = cols.iter().map(|&c| c / bw).collect();
    if !q.windows(2).all(|w| w[0] <= w[1]) {
        q.sort_unstable();
    }
    q.dedup();
    q
}

fn sorted_intersection(a: &[usize], b: &[usize]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

fn sorted_union(a: &[usize], b: &[usize]) -> Vec<usize> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Serial reference implementation of 1-SA (paper Algorithms 1 and 2, see the module docs):
/// hash compression of identical quotient rows, then the greedy scan of every later
/// unassigned class against the current group pattern — O(classes²) similarity tests.
/// This is the oracle for [`group_rows`].
pub fn group_rows_reference(p: &CsrPattern, params: &OneSaParams) -> Grouping {
    params.validate().expect("invalid OneSaParams");
    let bw = params.block_width;
    // Algorithm 1: compression.
    let mut class_of: HashMap<Vec<usize>, usize> = HashMap::new();
    let mut pats: Vec<Vec<usize>> = Vec::new();
    let mut members: Vec<Vec<usize>> = Vec::new();
    for i in 0..p.rows {
        let q = quotient_row(p.row(i), bw);
        match class_of.entry(q) {
            Entry::Occupied(e) => members[*e.get()].push(i),
            Entry::Vacant(e) => {
                pats.push(e.key().clone());
                members.push(vec![i]);
                e.insert(pats.len() - 1);
            }
        }
    }
    // Algorithm 2: greedy grouping.
    let nc = pats.len();
    let cap = params.max_group_height;
    let mut assigned = vec![false; nc];
    let mut perm = Vec::with_capacity(p.rows);
    let mut group_ptr = vec![0];
    for s in 0..nc {
        if assigned[s] {
            continue;
        }
        assigned[s] = true;
        let mut pat = pats[s].clone();
        let lambda0 = pat.len();
        let mut h = members[s].len();
        let mut rows = members[s].clone();
        if lambda0 > 0 {
            for d in s + 1..nc {
                if cap > 0 && h >= cap {
                    break;
                }
                if assigned[d] || (cap > 0 && h + members[d].len() > cap) {
                    continue;
                }
                let inter = sorted_intersection(&pat, &pats[d]);
                if accepts(inter, pat.len(), pats[d].len(), lambda0, params) {
                    assigned[d] = true;
                    pat = sorted_union(&pat, &pats[d]);
                    h += members[d].len();
                    rows.extend_from_slice(&members[d]);
                }
            }
        }
        rows.sort_unstable();
        perm.extend_from_slice(&rows);
        group_ptr.push(perm.len());
    }
    Grouping { perm, group_ptr }
}

/// The straightforward serial transcription of paper Algorithm 2 applied directly to the
/// **rows** (no Algorithm-1 compression): the first unassigned row seeds a group with pattern
/// `P = Q(seed)`; every later unassigned row is tested once, in order, against the current
/// `P` with [`accepts`] (similarity, merge rule, height cap counted in rows) and merged with
/// `P ← P ∪ Q(row)`. O(rows²) set intersections. Test and benchmark baseline only.
///
/// Unlike the compressed versions it does not keep identical rows together (a copy of the
/// seed can fail against a pattern that has grown meanwhile), and every empty row is a group of
/// its own. Permutation, density bound and height cap hold as for the other versions.
pub fn group_rows_serial_alg2(p: &CsrPattern, params: &OneSaParams) -> Grouping {
    params.validate().expect("invalid OneSaParams");
    let q: Vec<Vec<usize>> = (0..p.rows).map(|i| quotient_row(p.row(i), params.block_width)).collect();
    let cap = params.max_group_height;
    let mut assigned = vec![false; p.rows];
    let mut perm = Vec::with_capacity(p.rows);
    let mut group_ptr = vec![0];
    for s in 0..p.rows {
        if assigned[s] {
            continue;
        }
        assigned[s] = true;
        perm.push(s);
        let mut pat = q[s].clone();
        let lambda0 = pat.len();
        let mut h = 1;
        for d in s + 1..p.rows {
            if lambda0 == 0 || (cap > 0 && h >= cap) {
                break;
            }
            if assigned[d] {
                continue;
            }
            let inter = sorted_intersection(&pat, &q[d]);
            if accepts(inter, pat.len(), q[d].len(), lambda0, params) {
                assigned[d] = true;
                pat = sorted_union(&pat, &q[d]);
                h += 1;
                perm.push(d);
            }
        }
        group_ptr.push(perm.len());
    }
    Grouping { perm, group_ptr }
}

// ---------------------------------------------------------------------------------------
// Fast version
// ---------------------------------------------------------------------------------------

fn hash_blocks(q: &[usize]) -> u64 {
    let mut h: u64 = 0x243F_6A88_85A3_08D3 ^ q.len() as u64;
    for &b in q {
        h = (h ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
    }
    h
}

/// Class marks of the greedy scan (`u32` per class): assigned, never marked, or the seed of
/// the group that last queued or pruned the class.
const ASSIGNED: u32 = u32::MAX;
const NO_MARK: u32 = u32::MAX - 1;

/// Inverted prefix-index entry: class, position of the block in the class's rarest-first
/// order, class size (in blocks).
#[derive(Clone, Copy)]
struct Ent {
    d: u32,
    j: u32,
    len: u32,
    sig: u64,
}

/// 64-bit block signature of a set: bit `hash(b) mod 64` for every block `b`. Every bit of
/// `sig(d) & !sig(P)` comes from at least one block of `d` that is not in `P`, so
/// `|P ∩ d| ≤ |d| − popcount(sig(d) & !sig(P))`.
fn block_sig(b: usize) -> u64 {
    1u64 << ((b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58)
}

/// Flat CSR of sets: `idx[ptr[i]..ptr[i + 1]]`.
struct Sets {
    ptr: Vec<usize>,
    idx: Vec<usize>,
}

impl Sets {
    fn from_vecs(v: Vec<Vec<usize>>) -> Sets {
        let mut ptr = Vec::with_capacity(v.len() + 1);
        ptr.push(0);
        let mut acc = 0;
        for x in &v {
            acc += x.len();
            ptr.push(acc);
        }
        let mut idx = Vec::with_capacity(acc);
        for x in v {
            idx.extend_from_slice(&x);
        }
        Sets { ptr, idx }
    }
    fn get(&self, i: usize) -> &[usize] {
        &self.idx[self.ptr[i]..self.ptr[i + 1]]
    }
    fn len(&self) -> usize {
        self.ptr.len() - 1
    }
}

/// Classes of identical quotient rows: patterns (sorted blocks) and member rows (ascending),
/// ordered by first member row.
struct Classes {
    pats: Sets,
    rows: Sets,
}

fn compress(p: &CsrPattern, bw: usize) -> Classes {
    let q: Vec<Vec<usize>> = (0..p.rows).into_par_iter().map(|i| quotient_row(p.row(i), bw)).collect();
    let mut keyed: Vec<(u64, usize)> = q.par_iter().enumerate().map(|(i, r)| (hash_blocks(r), i)).collect();
    keyed.par_sort_unstable();
    // Within a run of equal hashes (rows ascending), split by exact equality.
    let mut class_of_row = vec![0usize; p.rows];
    let mut firsts: Vec<usize> = Vec::new(); // provisional class id -> first row
    let mut i = 0;
    let mut reps: Vec<usize> = Vec::new();
    while i < keyed.len() {
        let mut j = i;
        while j < keyed.len() && keyed[j].0 == keyed[i].0 {
            j += 1;
        }
        reps.clear(); // provisional class ids in this run
        for &(_, r) in &keyed[i..j] {
            match reps.iter().find(|&&c| q[firsts[c]] == q[r]) {
                Some(&c) => class_of_row[r] = c,
                None => {
                    firsts.push(r);
                    reps.push(firsts.len() - 1);
                    class_of_row[r] = firsts.len() - 1;
                }
            }
        }
        i = j;
    }
    // Renumber classes by first row.
    let nc = firsts.len();
    let mut order: Vec<usize> = (0..nc).collect();
    order.par_sort_unstable_by_key(|&c| firsts[c]);
    let mut renum = vec![0usize; nc];
    for (new, &old) in order.iter().enumerate() {
        renum[old] = new;
    }
    let mut counts = vec![0usize; nc + 1];
    for c in class_of_row.iter_mut() {
        *c = renum[*c];
        counts[*c + 1] += 1;
    }
    for k in 0..nc {
        counts[k + 1] += counts[k];
    }
    let mut fill = counts.clone();
    let mut rows_idx = vec![0usize; p.rows];
    for (r, &c) in class_of_row.iter().enumerate() {
        rows_idx[fill[c]] = r;
        fill[c] += 1;
    }
    let pats: Vec<Vec<usize>> = order.iter().map(|&old| q[firsts[old]].clone()).collect();
    Classes { pats: Sets::from_vecs(pats), rows: Sets { ptr: counts, idx: rows_idx } }
}

/// Smallest candidate budget that [`group_rows`] (and hence [`analyze`] and `spblkAnalyze`)
/// uses; see [`auto_candidate_budget`] and [`group_rows_budgeted`].
pub const DEFAULT_CANDIDATE_BUDGET: usize = 32;

/// Work target of the automatic budget: about this many candidate slots in total.
pub const AUTO_BUDGET_WORK: usize = 1 << 24;

/// The budget [`group_rows`] uses for `classes` distinct quotient rows:
/// `max(DEFAULT_CANDIDATE_BUDGET, AUTO_BUDGET_WORK / classes)`. Small and medium inputs
/// (up to ~10^5 classes) get a budget of hundreds to thousands, which the paper's 8192 × 8192
/// matrices never hit at ρ ≥ 0.05; only inputs with ~10^6 classes drop to the minimum.
pub fn auto_candidate_budget(classes: usize) -> usize {
    (AUTO_BUDGET_WORK / classes.max(1)).max(DEFAULT_CANDIDATE_BUDGET)
}

/// Counters of one grouping run (for tests and the benchmark tool).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// Number of classes (distinct quotient rows).
    pub classes: usize,
    /// Candidate budget used (0 = exact).
    pub budget: usize,
    /// Exact merge tests ([`accepts`] calls) performed.
    pub tests: usize,
    /// Blocks read by those tests (sum of the tested classes' sizes).
    pub test_blocks: usize,
    /// Inverted-list entries scanned.
    pub scanned: usize,
    /// Inverted-list openings cut short by the candidate budget. 0 means the run was exact:
    /// the grouping equals [`group_rows_reference`].
    pub truncated_lists: usize,
}

/// Fast 1-SA grouping used by [`analyze`]: [`group_rows_budgeted`] with the automatic budget
/// [`auto_candidate_budget`] of the number of classes. Same guarantees as the exact version (every row exactly once,
/// identical rows together, TwoStep density bound, height cap); the grouping can differ from
/// [`group_rows_reference`] only where the budget cut a candidate list.
///
/// `params.candidate_budget` overrides the automatic budget (`Some(0)`: exact).
pub fn group_rows(p: &CsrPattern, params: &OneSaParams) -> Grouping {
    group_rows_impl(p, params, params.candidate_budget).0
}

/// [`group_rows`] plus its [`SearchStats`] (`budget` reports the automatic budget used).
pub fn group_rows_auto_with_stats(p: &CsrPattern, params: &OneSaParams) -> (Grouping, SearchStats) {
    group_rows_impl(p, params, None)
}

/// Exact fast 1-SA grouping: the same result as [`group_rows_reference`] (see the module docs
/// for how candidates are filtered and what runs in parallel).
pub fn group_rows_exact(p: &CsrPattern, params: &OneSaParams) -> Grouping {
    group_rows_budgeted(p, params, 0)
}

/// 1-SA grouping with a candidate budget (`0` = unlimited = exact). Per group, every inverted
/// prefix list the group opens contributes at most `budget` unassigned classes (the first ones
/// after the current scan position, in class order); the rest of that list is not examined by
/// this group and stays unassigned for later seeds. Every merge still passes the exact test
/// [`accepts`] against the current pattern, so the guarantees do not depend on the budget.
pub fn group_rows_budgeted(p: &CsrPattern, params: &OneSaParams, budget: usize) -> Grouping {
    group_rows_with_stats(p, params, budget).0
}

/// [`group_rows_budgeted`] plus its [`SearchStats`].
pub fn group_rows_with_stats(p: &CsrPattern, params: &OneSaParams, budget: usize) -> (Grouping, SearchStats) {
    group_rows_impl(p, params, Some(budget))
}

/// `budget`: `None` = automatic, `Some(0)` = exact.
fn group_rows_impl(p: &CsrPattern, params: &OneSaParams, budget: Option<usize>) -> (Grouping, SearchStats) {
    params.validate().expect("invalid OneSaParams");
    let mut stats = SearchStats::default();
    let bw = params.block_width;
    let nblk = p.cols.div_ceil(bw).max(1);
    let cls = compress(p, bw);
    let nc = cls.pats.len();
    let cap = params.max_group_height;
    stats.budget = budget.unwrap_or_else(|| auto_candidate_budget(nc));
    let budget = if stats.budget == 0 { usize::MAX } else { stats.budget };

    // Global block order: rarest first (number of classes containing the block), ties by id.
    let mut freq = vec![0usize; nblk];
    for &b in &cls.pats.idx {
        freq[b] += 1;
    }
    let mut by_rank: Vec<usize> = (0..nblk).collect();
    by_rank.par_sort_unstable_by_key(|&b| (freq[b], b));
    let mut rank = vec![0usize; nblk];
    for (r, &b) in by_rank.iter().enumerate() {
        rank[b] = r;
    }
    // Prefix of every class (its first |d| - α(|d|) + 1 blocks by rank).
    let prefixes: Vec<Vec<usize>> = (0..nc)
        .into_par_iter()
        .map(|d| {
            let pat = cls.pats.get(d);
            if pat.is_empty() {
                return Vec::new();
            }
            let k = pat.len() - params.min_overlap(pat.len()).min(pat.len()) + 1;
            let mut r: Vec<usize> = pat.iter().map(|&b| rank[b]).collect();
            r.sort_unstable();
            r.truncate(k);
            r.into_iter().map(|x| by_rank[x]).collect()
            // (position j in the class's rank order = index in this vector)
        })
        .collect();
    let sigs: Vec<u64> =
        (0..nc).into_par_iter().map(|d| cls.pats.get(d).iter().fold(0u64, |a, &b| a | block_sig(b))).collect();
    // Inverted prefix index: block -> (class ascending, position of the block in the
    // class's rarest-first order, class size, class signature).
    let mut lptr = vec![0usize; nblk + 1];
    for pre in &prefixes {
        for &b in pre {
            lptr[b + 1] += 1;
        }
    }
    for b in 0..nblk {
        lptr[b + 1] += lptr[b];
    }
    assert!(nc < NO_MARK as usize, "too many distinct rows");
    let mut lend = lptr[..nblk].to_vec();
    let mut list = vec![Ent { d: 0, j: 0, len: 0, sig: 0 }; lptr[nblk]];
    for (d, pre) in prefixes.iter().enumerate() {
        let len = cls.pats.ptr[d + 1] - cls.pats.ptr[d];
        for (j, &b) in pre.iter().enumerate() {
            list[lend[b]] = Ent { d: d as u32, j: j as u32, len: len.min(u32::MAX as usize) as u32, sig: sigs[d] };
            lend[b] += 1;
        }
    }
    drop(prefixes);
    drop(sigs);
    // Per-list cursor: entries before it are classes ≤ an earlier seed, assigned for good.
    let mut lcur = lptr;

    let class_h = |d: usize| cls.rows.ptr[d + 1] - cls.rows.ptr[d];

    // Per class: ASSIGNED, or the seed of the last group that queued or pruned it.
    let mut mark = vec![NO_MARK; nc];
    let mut in_pat = vec![usize::MAX; nblk]; // stamp = seed id
    let mut opened = vec![usize::MAX; nblk]; // list already taken for this group
    let mut heap: BinaryHeap<Reverse<usize>> = BinaryHeap::new();
    let mut pat_by_rank: Vec<usize> = Vec::new();
    let mut new_ranks: Vec<usize> = Vec::new();
    let mut merged_ranks: Vec<usize> = Vec::new();
    // Classes of every group, flat: group g is members[mptr[g]..mptr[g + 1]].
    let mut members: Vec<usize> = Vec::with_capacity(nc);
    let mut mptr: Vec<usize> = vec![0];
    // Raw scan limit per list (dead and size-filtered entries included) in budgeted mode.
    let scan_limit = budget.saturating_mul(4);
    // Per group (budgeted mode): raw entries scanned over all its lists, and exact tests.
    let group_scan_limit = budget.saturating_mul(8);
    let group_test_limit = budget.saturating_mul(2);

    for s in 0..nc {
        if mark[s] == ASSIGNED {
            continue;
        }
        mark[s] = ASSIGNED;
        let stamp = s as u32;
        members.push(s);
        let seed = cls.pats.get(s);
        let lambda0 = seed.len();
        let mut h = class_h(s);
        if lambda0 > 0 && !(cap > 0 && h >= cap) {
            let min_len = params.min_overlap(lambda0);
            let two_step = params.merge_rule == MergeRule::TwoStep;
            let max_len = match params.merge_rule {
                MergeRule::TwoStep => params.size_bound(lambda0).floor() as usize,
                MergeRule::Plain => usize::MAX,
            };
            pat_by_rank.clear();
            let mut psig = 0u64;
            for &b in seed {
                in_pat[b] = s;
                pat_by_rank.push(rank[b]);
                psig |= block_sig(b);
            }
            pat_by_rank.sort_unstable();
            let mut pos = s;
            let mut gscan = 0usize;
            let mut gtests = 0usize;
            // Open the lists of prefix blocks of the current pattern not yet opened.
            macro_rules! open_prefix {
                () => {{
                    let plen = pat_by_rank.len();
                    let k = plen - params.min_overlap(plen).min(plen) + 1;
                    // TwoStep: the pattern can still grow by at most `grow` blocks.
                    let grow = max_len.saturating_sub(plen);
                    for (i, &rk) in pat_by_rank[..k].iter().enumerate() {
                        let b = by_rank[rk];
                        if opened[b] == s {
                            continue;
                        }
                        if gscan >= group_scan_limit {
                            // Budget: this group opens no further lists.
                            stats.truncated_lists += 1;
                            break;
                        }
                        opened[b] = s;
                        let hi = lend[b];
                        let mut lo = lcur[b];
                        while lo < hi && list[lo].d as usize <= s {
                            lo += 1;
                        }
                        lcur[b] = lo;
                        let start =
                            if pos > s { lo + list[lo..hi].partition_point(|e| e.d as usize <= pos) } else { lo };
                        let mut dead = 0usize;
                        let mut taken = 0usize;
                        let mut x = 0usize;
                        for e in &list[start..hi] {
                            if taken == budget || x >= scan_limit || gscan + x >= group_scan_limit {
                                // Budget: the rest of this list is left to later seeds.
                                stats.truncated_lists += 1;
                                break;
                            }
                            x += 1;
                            let dl = e.len as usize;
                            if dl < min_len || dl > max_len {
                                continue;
                            }
                            // Signature bound on the overlap now, plus what the pattern can
                            // still gain (TwoStep; Plain: unbounded growth, no filter).
                            let sig_ub = dl - (e.sig & !psig).count_ones() as usize;
                            if two_step && sig_ub + grow < params.needed_overlap(lambda0, dl) {
                                continue;
                            }
                            let d = e.d as usize;
                            let m = mark[d];
                            if m == ASSIGNED {
                                dead += 1;
                                continue;
                            }
                            if m == stamp || (cap > 0 && h + class_h(d) > cap) {
                                continue;
                            }
                            mark[d] = stamp;
                            if two_step {
                                // Positional filter: `b` is the rarest block shared by `d` and
                                // the current pattern (rarer shared blocks would lie in both
                                // prefixes and their lists were opened first), so the overlap
                                // is at most 1 + the blocks after `b` in either order, plus
                                // what the pattern can still gain. Valid for the rest of this
                                // group, hence the class is dropped for good.
                                let after = (plen - i - 1).min(dl - e.j as usize - 1);
                                if 1 + after + grow < params.needed_overlap(lambda0, dl) {
                                    continue;
                                }
                            }
                            taken += 1;
                            heap.push(Reverse(d));
                        }
                        gscan += x;
                        stats.scanned += x;
                        if dead > 32 && 2 * dead > hi - start {
                            // Lazy compaction: drop assigned classes from the list.
                            let mut w = lo;
                            for x in lo..hi {
                                if mark[list[x].d as usize] != ASSIGNED {
                                    list[w] = list[x];
                                    w += 1;
                                }
                            }
                            lend[b] = w;
                        }
                    }
                }};
            }
            open_prefix!();
            while let Some(Reverse(d)) = heap.pop() {
                if cap > 0 && h >= cap {
                    heap.clear();
                    break;
                }
                pos = d;
                if cap > 0 && h + class_h(d) > cap {
                    continue;
                }
                if gtests == group_test_limit {
                    // Budget: the remaining candidates are left to later seeds.
                    stats.truncated_lists += 1;
                    heap.clear();
                    break;
                }
                let dp = cls.pats.get(d);
                let plen = pat_by_rank.len();
                if dp.len() < params.min_overlap(plen) {
                    continue;
                }
                // Count the overlap, stopping once more blocks are missing than any accepted
                // class can miss (`needed_overlap` is a lower bound on what `accepts` needs).
                let max_miss = dp.len() - params.needed_overlap(plen, dp.len()).min(dp.len());
                let (mut inter, mut miss, mut read) = (0usize, 0usize, 0usize);
                for &b in dp {
                    read += 1;
                    if in_pat[b] == s {
                        inter += 1;
                    } else {
                        miss += 1;
                        if miss > max_miss {
                            break;
                        }
                    }
                }
                stats.tests += 1;
                stats.test_blocks += read;
                if miss > max_miss {
                    continue;
                }
                gtests += 1;
                if !accepts(inter, plen, dp.len(), lambda0, params) {
                    continue;
                }
                mark[d] = ASSIGNED;
                members.push(d);
                h += class_h(d);
                if inter < dp.len() {
                    new_ranks.clear();
                    for &b in dp {
                        if in_pat[b] != s {
                            in_pat[b] = s;
                            new_ranks.push(rank[b]);
                            psig |= block_sig(b);
                        }
                    }
                    new_ranks.sort_unstable();
                    merged_ranks.clear();
                    let (mut i, mut j) = (0, 0);
                    while i < pat_by_rank.len() || j < new_ranks.len() {
                        if j == new_ranks.len() || (i < pat_by_rank.len() && pat_by_rank[i] < new_ranks[j]) {
                            merged_ranks.push(pat_by_rank[i]);
                            i += 1;
                        } else {
                            merged_ranks.push(new_ranks[j]);
                            j += 1;
                        }
                    }
                    std::mem::swap(&mut pat_by_rank, &mut merged_ranks);
                }
                open_prefix!();
            }
        }
        mptr.push(members.len());
    }

    // Rows of every group, ascending; then concatenate.
    let group_rows: Vec<Vec<usize>> = mptr
        .par_windows(2)
        .map(|w| {
            let m = &members[w[0]..w[1]];
            let mut rows: Vec<usize> = Vec::new();
            for &c in m {
                rows.extend_from_slice(cls.rows.get(c));
            }
            if m.len() > 1 {
                rows.sort_unstable();
            }
            rows
        })
        .collect();
    let mut group_ptr = Vec::with_capacity(group_rows.len() + 1);
    group_ptr.push(0);
    let mut perm = Vec::with_capacity(p.rows);
    for r in group_rows {
        perm.extend_from_slice(&r);
        group_ptr.push(perm.len());
    }
    stats.classes = nc;
    (Grouping { perm, group_ptr }, stats)
}

// ---------------------------------------------------------------------------------------
// VBR
// ---------------------------------------------------------------------------------------

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
    /// Wall time of grouping + VBR build in [`analyze`] (0 from [`build_vbr`] alone).
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

/// [`group_rows`] + [`build_vbr`], with `stats.analysis_seconds` set to the wall time of both.
pub fn analyze<V>(p: &CsrPattern, values: &[V], params: &OneSaParams) -> Vbr<V>
where
    V: Copy + Default + Send + Sync + std::ops::Add<Output = V>,
{
    let t = Instant::now();
    let g = group_rows(p, params);
    let mut v = build_vbr(p, values, &g, params);
    v.stats.analysis_seconds = t.elapsed().as_secs_f64();
    v
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

#[cfg(test)]
mod tests;
