//! The fast grouping (exact and budgeted): the public entry points, the budget, and the
//! pipeline compression → prefix index → certificates → serial scan → rows of the groups.

use super::compress::{compress, Classes};
use super::scan::{certify, scan, Search};
use super::{chunk_bounds, index, split_by, CsrPattern, Grouping, OneSaParams};
use rayon::prelude::*;

/// Smallest candidate budget that [`group_rows`] (and hence `analyze` and `spblkAnalyze`)
/// uses; see [`auto_candidate_budget`] and [`group_rows_budgeted`].
pub(crate) const DEFAULT_CANDIDATE_BUDGET: usize = 32;

/// Work target of the automatic budget: about this many candidate slots in total.
pub(crate) const AUTO_BUDGET_WORK: usize = 1 << 24;

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
    /// Classes certified lonely (no class in their windows accepts against their own
    /// pattern), each a group on its own if it seeds one, with no serial search.
    pub lonely: usize,
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
    group_rows_impl_with(p, params, budget, true)
}

/// [`group_rows_impl`] with the shortcuts switchable (tests: they must not change the
/// result): `shortcuts = false` runs every seed through the serial search, without
/// certificates or speculative groups.
pub(super) fn group_rows_impl_with(
    p: &CsrPattern,
    params: &OneSaParams,
    budget: Option<usize>,
    shortcuts: bool,
) -> (Grouping, SearchStats) {
    group_rows_hooked(p, params, budget, shortcuts, |_| {})
}

/// [`group_rows`] calling `quotients(Σ_rows |Q(row)|)` as soon as that is known (early in
/// the compression), for [`analyze`](super::analyze).
pub(super) fn group_rows_then(p: &CsrPattern, params: &OneSaParams, quotients: impl FnOnce(usize)) -> Grouping {
    group_rows_hooked(p, params, params.candidate_budget, true, quotients).0
}

fn group_rows_hooked(
    p: &CsrPattern,
    params: &OneSaParams,
    budget: Option<usize>,
    shortcuts: bool,
    quotients: impl FnOnce(usize),
) -> (Grouping, SearchStats) {
    params.validate().expect("invalid OneSaParams");
    let cls = compress(p, params.block_width, quotients);
    let nc = cls.len();
    let budget = budget.unwrap_or_else(|| auto_candidate_budget(nc));
    let k = if budget == 0 { usize::MAX } else { budget };
    let (w, g) = (k.saturating_mul(4), k.saturating_mul(8));
    let idx = index::build(&cls, params, w, g);
    let sx = Search { cls: &cls, params, w, g };
    let (mut certs, cnt) = certify(&sx, &idx);
    if !shortcuts {
        certs.iter_mut().for_each(|l| *l = false);
    }
    let (members, mptr, mut stats) = scan(&sx, &idx, &certs, shortcuts);
    drop(idx);
    stats.classes = nc;
    stats.budget = budget;
    stats.scanned += cnt.scanned;
    stats.tests += cnt.tests;
    stats.test_blocks += cnt.test_blocks;
    stats.lonely = certs.iter().filter(|&&l| l).count();
    (assemble(&cls, &members, &mptr), stats)
}

/// The rows of every group, ascending, concatenated in group order (parallel over chunks
/// of groups).
fn assemble(cls: &Classes, members: &[u32], mptr: &[usize]) -> Grouping {
    let ng = mptr.len() - 1;
    let mut group_ptr = Vec::with_capacity(ng + 1);
    group_ptr.push(0usize);
    for w in mptr.windows(2) {
        let h: usize = members[w[0]..w[1]].iter().map(|&c| cls.height(c as usize)).sum();
        group_ptr.push(group_ptr.last().unwrap() + h);
    }
    let mut perm = vec![0usize; group_ptr[ng]];
    let gb = chunk_bounds(ng, |g| group_ptr[g]);
    let pieces = split_by(&mut perm, gb.windows(2).map(|w| group_ptr[w[1]] - group_ptr[w[0]]));
    pieces.into_par_iter().zip(gb.par_windows(2)).with_max_len(1).for_each(|(out, w)| {
        let (g0, g1) = (w[0], w[1]);
        let base = group_ptr[g0];
        for g in g0..g1 {
            let dst = &mut out[group_ptr[g] - base..group_ptr[g + 1] - base];
            let mut k = 0;
            for &c in &members[mptr[g]..mptr[g + 1]] {
                let rows = &cls.rows[cls.row_ptr[c as usize]..cls.row_ptr[c as usize + 1]];
                dst[k..k + rows.len()].copy_from_slice(rows);
                k += rows.len();
            }
            if mptr[g + 1] - mptr[g] > 1 {
                dst.sort_unstable();
            }
        }
    });
    Grouping { perm, group_ptr }
}
