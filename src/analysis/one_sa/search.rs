//! The fast grouping (exact and budgeted): compression, prefix index, greedy scan.

use super::reference::quotient_row;
use super::{accepts, CsrPattern, Grouping, MergeRule, OneSaParams};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

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

/// Smallest candidate budget that [`group_rows`] (and hence [`analyze`](super::analyze) and `spblkAnalyze`)
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
    /// the grouping equals [`group_rows_reference`](super::group_rows_reference).
    pub truncated_lists: usize,
}

/// Fast 1-SA grouping used by [`analyze`](super::analyze): [`group_rows_budgeted`] with the automatic budget
/// [`auto_candidate_budget`] of the number of classes. Same guarantees as the exact version (every row exactly once,
/// identical rows together, TwoStep density bound, height cap); the grouping can differ from
/// [`group_rows_reference`](super::group_rows_reference) only where the budget cut a candidate list.
///
/// `params.candidate_budget` overrides the automatic budget (`Some(0)`: exact).
pub fn group_rows(p: &CsrPattern, params: &OneSaParams) -> Grouping {
    group_rows_impl(p, params, params.candidate_budget).0
}

/// [`group_rows`] plus its [`SearchStats`] (`budget` reports the automatic budget used).
pub fn group_rows_auto_with_stats(p: &CsrPattern, params: &OneSaParams) -> (Grouping, SearchStats) {
    group_rows_impl(p, params, None)
}

/// Exact fast 1-SA grouping: the same result as [`group_rows_reference`](super::group_rows_reference) (see the module docs
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
