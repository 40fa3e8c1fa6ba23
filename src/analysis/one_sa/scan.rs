//! Paper Algorithm 2 over the classes: the parallel lonely-seed certificates and the serial
//! greedy scan that commits the groups.
//!
//! **Windows.** A group reads from every inverted list it opens only the *window*: the next
//! `w` entries after the scan position (class order); over all its lists a group reads at
//! most `g` entries. These limits count entries whatever their state (assigned or not), so
//! the windows a seed reads before its first merge do not depend on what earlier groups
//! took. Exact mode: `w = g = ∞`.
//!
//! **Certificates (parallel).** Before the scan, every class `s` is examined as a seed in
//! isolation: every class in its windows (see [`index::build`](super::index::build)) is
//! tested against `P = Q(s)`, list by list in parallel (the windows of the seeds of one list
//! slide along it, so the entries are read from cache). If none is accepted, `s` is
//! *lonely*: the serial scan, which tests a subset of these classes (it skips assigned ones
//! and filters more) against the same `P` until its first merge, accepts none, so `s` forms
//! a group alone whatever was assigned before it. A lonely seed costs the serial scan O(1);
//! only the other seeds run the full search there.

use super::compress::Classes;
use super::index::{block_sig, block_sig2, long_sig_outside, prefix_len, Ent, Index, CERT_EFFORT};
use super::{accepts, chunk_bounds, split_by, MergeRule, OneSaParams, SearchStats, Similarity};
use rayon::prelude::*;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Mutex;

/// Class marks of the serial scan (`u32` per class): assigned, never marked, or the seed of
/// the group that last queued or pruned the class.
const ASSIGNED: u32 = u32::MAX;
const NO_MARK: u32 = u32::MAX - 1;

/// What the grouping searches over, and its limits.
pub(super) struct Search<'a> {
    pub cls: &'a Classes,
    pub params: &'a OneSaParams,
    /// Window per list and per group (`usize::MAX`: exact).
    pub w: usize,
    pub g: usize,
}

impl Search<'_> {
    fn two_step(&self) -> bool {
        self.params.merge_rule == MergeRule::TwoStep
    }
    /// Size filter `[α(λ0), λ0/(1 − τ/2)]` of a group seeded with `lambda0` blocks (TwoStep;
    /// Plain has no upper bound): no class outside it can ever join.
    fn size_range(&self, lambda0: usize) -> (usize, usize) {
        let hi = match self.params.merge_rule {
            MergeRule::TwoStep => self.params.size_bound(lambda0) as usize,
            MergeRule::Plain => usize::MAX,
        };
        (self.params.min_overlap(lambda0), hi)
    }
    /// A lower bound on the overlap [`accepts`] needs from a class of `dl` blocks against a
    /// pattern of exactly `plen` blocks (no growth).
    fn need_exact(&self, lambda0: usize, plen: usize, max_len: usize, dl: usize) -> usize {
        let sim = self.params.needed_overlap(plen, dl).max(self.params.min_overlap(lambda0));
        match self.params.merge_rule {
            MergeRule::TwoStep => sim.max((plen + dl).saturating_sub(max_len)),
            MergeRule::Plain => sim,
        }
    }
    /// Whether a class of `dl` blocks, at most `ub` of which are in the current pattern
    /// (`plen` blocks, in a group seeded with `lambda0` blocks; TwoStep bound `max_len`), can
    /// still be accepted at some later point of the group. Growing the pattern by `x` blocks
    /// raises the overlap by at most `x` (and never above `dl`):
    /// * TwoStep: `|P_t ∪ d| ≤ max_len` needs `|P_t ∩ d| ≥ |P_t| + dl − max_len`, hence
    ///   `ub ≥ plen + dl − max_len` (the growth cancels);
    /// * Jaccard: at best the growth adds only blocks of `d`, so the similarity is at most
    ///   `min(ub + x, dl) / (plen + dl − ub)`, largest for the most growth allowed;
    /// * cosine: `ub + (max_len − plen) ≥ needed_overlap(λ0, dl)`.
    fn may_join(&self, lambda0: usize, plen: usize, max_len: usize, dl: usize, ub: usize) -> bool {
        let p = self.params;
        if p.merge_rule == MergeRule::TwoStep && ub + max_len < plen + dl {
            return false;
        }
        let x = max_len.saturating_sub(plen);
        match p.similarity {
            Similarity::Jaccard => {
                ub.saturating_add(x).min(dl) as f64 >= p.tau * (plen + dl - ub) as f64 * (1.0 - 1e-9)
            }
            Similarity::Cosine => ub.saturating_add(x) >= p.needed_overlap(lambda0, dl),
        }
    }
}

/// Whether `x` has at least `t` bits set (clears the lowest bit `t` times: cheaper than a
/// population count without the instruction, as for the baseline x86-64 target, when `t` is
/// small, as it is for most candidates).
#[inline]
fn bits_at_least(mut x: u64, t: usize) -> bool {
    for _ in 0..t {
        if x == 0 {
            return false;
        }
        x &= x - 1;
    }
    true
}

/// Signature bound on `|P ∩ d|` (see [`block_sig`]).
#[inline]
fn sig_bound(dsig: u64, dl: usize, psig: u64) -> usize {
    dl - (dsig & !psig).count_ones() as usize
}

/// `|a ∩ b|` for ascending rank lists `a` (the pattern) and `b` (a class), or `None` once
/// more than `max_miss` elements of `b` are missing from `a`; plus the elements of `b` read.
/// For short patterns (a merge walk).
fn overlap(a: &[u32], b: &[u32], max_miss: usize) -> (Option<usize>, usize) {
    let (mut inter, mut miss, mut i) = (0, 0, 0);
    for (read, &x) in b.iter().enumerate() {
        while i < a.len() && a[i] < x {
            i += 1;
        }
        if i < a.len() && a[i] == x {
            inter += 1;
            i += 1;
        } else {
            miss += 1;
            if miss > max_miss {
                return (None, read + 1);
            }
        }
    }
    (Some(inter), b.len())
}

/// [`overlap`] against a pattern given as a bitmap over ranks (long patterns: one probe per
/// element read instead of a merge walk over both lists).
fn overlap_bits(bits: &[u64], b: &[u32], max_miss: usize) -> (Option<usize>, usize) {
    let mut miss = 0;
    for (read, &x) in b.iter().enumerate() {
        if bits[x as usize >> 6] >> (x & 63) & 1 == 0 {
            miss += 1;
            if miss > max_miss {
                return (None, read + 1);
            }
        }
    }
    (Some(b.len() - miss), b.len())
}

/// Seeds with at least this many blocks are tested through a bitmap.
const BITMAP_MIN: usize = 48;

#[derive(Clone, Copy, Default)]
pub(super) struct Counters {
    pub scanned: usize,
    pub tests: usize,
    pub test_blocks: usize,
}

impl Counters {
    fn add(self, o: Counters) -> Counters {
        Counters {
            scanned: self.scanned + o.scanned,
            tests: self.tests + o.tests,
            test_blocks: self.test_blocks + o.test_blocks,
        }
    }
}

/// Certificates of all classes: `lonely[s]` (see the module docs). Parallel over chunks of
/// lists; in list `r`, the seed of entry `p` tests the classes of entries `p + 1 ..= p +
/// wl[p]` that can pass against its own pattern (size, signature; no positional filter, so
/// the tested set contains whatever the serial scan would test).
pub(super) fn certify(sx: &Search, idx: &Index) -> (Vec<bool>, Counters) {
    let (cls, params) = (sx.cls, sx.params);
    let nr = cls.nranks;
    let two_step = sx.two_step();
    let lb = chunk_bounds(nr, |r| idx.ptr[r]);
    // Size range and α(λ0) of the common small seed sizes, computed once.
    let bounds: Vec<(usize, usize, usize)> = (0..1024)
        .map(|l0| {
            let (lo, hi) = sx.size_range(l0);
            (lo, hi, params.min_overlap(l0))
        })
        .collect();
    let parts: Vec<(Vec<u32>, Counters)> = lb
        .par_windows(2)
        .with_max_len(1)
        .map(|w| {
            let mut found: Vec<u32> = Vec::new();
            let mut cnt = Counters::default();
            let mut bits: Vec<u64> = Vec::new();
            // Per list: the positions of its entries by size bucket (each bucket in class
            // order), and a cursor per bucket that only moves forward as the seeds do.
            let mut bstart = [0usize; LEN_BUCKETS + 1];
            let mut cur = [0usize; LEN_BUCKETS];
            // The list's entries by size bucket: (signature, position, size), read
            // sequentially by the seeds' windows.
            let mut bent: Vec<(u64, u32, u32)> = Vec::new();
            for r in w[0]..w[1] {
                let list = &idx.ent[idx.ptr[r]..idx.ptr[r + 1]];
                if list.len() < 2 {
                    continue;
                }
                bstart.fill(0);
                for e in list {
                    bstart[len_bucket(e.2) + 1] += 1;
                }
                for b in 0..LEN_BUCKETS {
                    bstart[b + 1] += bstart[b];
                }
                cur.copy_from_slice(&bstart[..LEN_BUCKETS]);
                bent.resize(list.len(), (0, 0, 0));
                for (k, e) in list.iter().enumerate() {
                    let b = len_bucket(e.2);
                    bent[cur[b]] = (e.0, k as u32, e.2);
                    cur[b] += 1;
                }
                cur.copy_from_slice(&bstart[..LEN_BUCKETS]);
                for (pi, &(ssig, s, l0, _, wl)) in list.iter().enumerate() {
                    if wl == 0 {
                        continue;
                    }
                    let (s, l0, wl) = (s as usize, l0 as usize, wl as usize);
                    let (min_len, max_len, a0) = match bounds.get(l0) {
                        Some(&x) => x,
                        None => {
                            let (lo, hi) = sx.size_range(l0);
                            (lo, hi, params.min_overlap(l0))
                        }
                    };
                    cnt.scanned += wl;
                    let last = (pi + wl) as u32;
                    // The seed's second signature and pattern are fetched only when needed
                    // (most windows have no candidate that gets that far).
                    let mut spat: &[u32] = &[];
                    let mut s2 = None;
                    let mut bitmap = false;
                    let mut accepted = false;
                    'buckets: for b in len_bucket(min_len as u32)..=len_bucket(max_len.min(u32::MAX as usize) as u32) {
                        let end = bstart[b + 1];
                        let mut c = cur[b];
                        while c < end && bent[c].1 as usize <= pi {
                            c += 1;
                        }
                        cur[b] = c;
                        for &(dsig, q, dl) in bent[c..end].iter().take_while(|e| e.1 <= last) {
                            let dl = dl as usize;
                            if dl < min_len || dl > max_len {
                                continue;
                            }
                            // With P = Q(s) fixed (no growth), the overlap must reach `need`:
                            // first a cheap integer bound (the signature rules out most
                            // candidates after a few bits), then the exact one.
                            let lb = if two_step { a0.max((l0 + dl).saturating_sub(max_len)) } else { a0 };
                            if lb > dl || bits_at_least(dsig & !ssig, dl - lb + 1) {
                                continue;
                            }
                            let ub = sig_bound(dsig, dl, ssig);
                            let need = sx.need_exact(l0, l0, max_len, dl);
                            if ub < need || need > dl.min(l0) {
                                continue;
                            }
                            // The second signature, from one line per class.
                            let d = list[q as usize].1;
                            let c2 = &idx.csig2[d as usize];
                            if s2.is_none() {
                                s2 = Some(idx.csig2[s]);
                            }
                            let sc2 = s2.as_ref().unwrap();
                            if dl - c2.outside(sc2.w) < need {
                                continue;
                            }
                            // Long classes: their long signatures (one to a few lines).
                            let (dlong, slong) = (
                                &idx.lsig[idx.lsig_ptr[d as usize]..idx.lsig_ptr[d as usize + 1]],
                                &idx.lsig[idx.lsig_ptr[s]..idx.lsig_ptr[s + 1]],
                            );
                            if !dlong.is_empty() && !slong.is_empty() && dl - long_sig_outside(dlong, slong) < need {
                                continue;
                            }
                            if spat.is_empty() {
                                spat = &cls.pat[sc2.off..sc2.off + l0];
                            }
                            let dpat = &cls.pat[c2.off..c2.off + dl];
                            let (inter, read) = if l0 >= BITMAP_MIN {
                                if !bitmap {
                                    bits.resize(bits.len().max(nr.div_ceil(64)), 0);
                                    for &x in spat {
                                        bits[x as usize >> 6] |= 1 << (x & 63);
                                    }
                                    bitmap = true;
                                }
                                overlap_bits(&bits, dpat, dl - need)
                            } else {
                                overlap(spat, dpat, dl - need)
                            };
                            cnt.tests += 1;
                            cnt.test_blocks += read;
                            if inter.is_some_and(|x| accepts(x, l0, dl, l0, params)) {
                                accepted = true;
                                break 'buckets;
                            }
                        }
                    }
                    if bitmap {
                        for &x in spat {
                            bits[x as usize >> 6] = 0;
                        }
                    }
                    if accepted {
                        found.push(s as u32);
                    }
                }
            }
            (found, cnt)
        })
        .collect();
    let mut lonely: Vec<bool> = idx.unknown.iter().map(|&u| !u).collect();
    let mut cnt = Counters::default();
    for (found, k) in parts {
        for s in found {
            lonely[s as usize] = false;
        }
        cnt = cnt.add(k);
    }
    (lonely, cnt)
}

/// Size buckets of the certificate pass: sizes below 32 one each, then quarter octaves.
const LEN_BUCKETS: usize = 32 + 4 * 27;

#[inline]
fn len_bucket(len: u32) -> usize {
    if len < 32 {
        len as usize
    } else {
        let e = 31 - len.leading_zeros(); // ≥ 5
        32 + 4 * (e as usize - 5) + ((len >> (e - 2)) & 3) as usize
    }
}

/// State of the group being grown by the serial scan.
struct Group {
    stamp: u32,
    lambda0: usize,
    min_len: usize,
    max_len: usize,
    h: usize,
    psig: u64,
    psig2: (u64, u64),
    /// Class order position of the scan (the last candidate taken from the heap).
    pos: u32,
    /// Window entries read so far by this group.
    gscan: usize,
}

/// The state of a search for groups (the serial scan, or a speculative one).
struct Scanner<'a> {
    sx: &'a Search<'a>,
    idx: &'a Index,
    /// The serial scan's own copy of the lists, compacted lazily (assigned classes removed;
    /// the last field of an entry becomes its offset in the list as built); `lend` are the
    /// list ends.
    own: Option<Vec<Ent>>,
    lend: Vec<usize>,
    mark: Vec<u32>,
    /// Per rank: seed of the group whose pattern holds it / that opened its list.
    in_pat: Vec<u32>,
    opened: Vec<u32>,
    /// Queued candidates (class, signature, size), in class order.
    heap: BinaryHeap<Reverse<(u32, u64, u32)>>,
    /// Current pattern (ranks ascending) and a merge buffer.
    pat: Vec<u32>,
    merged: Vec<u32>,
    stats: SearchStats,
}

impl<'a> Scanner<'a> {
    fn new(sx: &'a Search<'a>, idx: &'a Index, own: Option<Vec<Ent>>) -> Self {
        let (nc, nr) = (sx.cls.len(), sx.cls.nranks);
        Scanner {
            sx,
            idx,
            own,
            lend: idx.ptr[1..].to_vec(),
            mark: vec![NO_MARK; nc],
            in_pat: vec![NO_MARK; nr],
            opened: vec![NO_MARK; nr],
            heap: BinaryHeap::new(),
            pat: Vec::new(),
            merged: Vec::new(),
            stats: SearchStats::default(),
        }
    }

    /// Open the lists of the prefix blocks of the current pattern not yet opened by this
    /// group and queue the candidates of their windows.
    fn open_prefix(&mut self, g: &mut Group) {
        let (sx, params) = (self.sx, self.sx.params);
        let cap = params.max_group_height;
        let plen = self.pat.len();
        for i in 0..prefix_len(params, plen) {
            let r = self.pat[i] as usize;
            if self.opened[r] == g.stamp {
                continue;
            }
            if g.gscan >= sx.g {
                // Budget: this group opens no further lists.
                self.stats.truncated_lists += 1;
                break;
            }
            self.opened[r] = g.stamp;
            // Window: the next entries after the scan position (classes ≤ pos are assigned),
            // counted in the list as built (assigned classes count too).
            let (lo, hi) = (self.idx.ptr[r], self.idx.ptr[r + 1]);
            let start = if g.pos == g.stamp {
                // First lists of the seed: its own entry is known.
                self.idx.selfpos[self.idx.pre_ptr[g.stamp as usize] + i] as usize + 1
            } else {
                lo + self.idx.ent[lo..hi].partition_point(|e| e.1 <= g.pos)
            };
            let n = (hi - start).min(sx.w.min(sx.g - g.gscan));
            if hi - start > n {
                // Budget: the rest of this list is left to later seeds.
                self.stats.truncated_lists += 1;
            }
            g.gscan += n;
            self.stats.scanned += n;
            // The same window in the compacted copy, if any: entries keep their offset in
            // the list as built in their last field.
            let (ent, a, b): (&[Ent], usize, usize) = match &self.own {
                None => (&self.idx.ent, start, start + n),
                Some(own) => {
                    let live = &own[lo..self.lend[r]];
                    let (o0, o1) = ((start - lo) as u32, (start - lo + n) as u32);
                    (own, lo + live.partition_point(|e| e.4 < o0), lo + live.partition_point(|e| e.4 < o1))
                }
            };
            let mut dead = 0usize;
            for &(dsig, d, dl, dj, _) in &ent[a..b] {
                let (d, dl) = (d as usize, dl as usize);
                if dl < g.min_len || dl > g.max_len {
                    continue;
                }
                // Signature bound on the overlap now.
                if !sx.may_join(g.lambda0, plen, g.max_len, dl, sig_bound(dsig, dl, g.psig)) {
                    continue;
                }
                let m = self.mark[d];
                if m == ASSIGNED {
                    dead += 1;
                    continue;
                }
                if m == g.stamp || (cap > 0 && g.h + sx.cls.height(d) > cap) {
                    continue;
                }
                self.mark[d] = g.stamp;
                // Positional filter: `r` is the rarest block shared by `d` and the current
                // pattern (rarer shared blocks would lie in both prefixes and their lists were
                // opened first), so the overlap now is at most 1 + the blocks after `r` in
                // either order. Valid for the rest of this group, hence the class is dropped
                // for good.
                let after = (plen - i - 1).min(dl - dj as usize - 1);
                if !sx.may_join(g.lambda0, plen, g.max_len, dl, 1 + after) {
                    continue;
                }
                self.heap.push(Reverse((d as u32, dsig, dl as u32)));
            }
            if let Some(own) = &mut self.own {
                if dead > 32 && 2 * dead > b - a {
                    // Lazy compaction: assigned classes never come back.
                    let mut wr = lo;
                    for x in lo..self.lend[r] {
                        if self.mark[own[x].1 as usize] != ASSIGNED {
                            own[wr] = own[x];
                            wr += 1;
                        }
                    }
                    self.lend[r] = wr;
                }
            }
        }
    }

    /// Grow the group seeded by `s` (not lonely): test the queued candidates in class
    /// order against the current pattern, merge the accepted ones (marked assigned and
    /// appended to `members`).
    fn grow(&mut self, s: usize, members: &mut Vec<u32>) {
        let (cls, params) = (self.sx.cls, self.sx.params);
        let cap = params.max_group_height;
        let lambda0 = cls.pat(s).len();
        let (min_len, max_len) = self.sx.size_range(lambda0);
        let stamp = s as u32;
        if lambda0 == 0 || (cap > 0 && cls.height(s) >= cap) {
            return;
        }
        let mut g = Group {
            stamp,
            lambda0,
            min_len,
            max_len,
            h: cls.height(s),
            psig: self.idx.csig[s],
            psig2: self.idx.csig2[s].w,
            pos: stamp,
            gscan: 0,
        };
        self.pat.clear();
        self.pat.extend_from_slice(cls.pat(s));
        for &r in &self.pat {
            self.in_pat[r as usize] = stamp;
        }
        self.open_prefix(&mut g);
        while let Some(Reverse((d, dsig, dl))) = self.heap.pop() {
            if cap > 0 && g.h >= cap {
                self.heap.clear();
                break;
            }
            g.pos = d;
            let (d, dl) = (d as usize, dl as usize);
            if cap > 0 && g.h + cls.height(d) > cap {
                continue;
            }
            let plen = self.pat.len();
            // `need` is a lower bound on the overlap `accepts` needs now; the signature
            // against the current pattern often rules the class out without reading it.
            let need = self.sx.need_exact(lambda0, plen, max_len, dl);
            if need > dl || sig_bound(dsig, dl, g.psig) < need {
                continue;
            }
            let c2 = &self.idx.csig2[d];
            if dl - c2.outside(g.psig2) < need {
                continue;
            }
            let dp = &cls.pat[c2.off..c2.off + dl];
            // Count the overlap, stopping once more blocks are missing than any accepted
            // class can miss.
            let max_miss = dp.len() - need.min(dp.len());
            let (mut inter, mut miss, mut read) = (0usize, 0usize, 0usize);
            for &r in dp {
                read += 1;
                if self.in_pat[r as usize] == stamp {
                    inter += 1;
                } else {
                    miss += 1;
                    if miss > max_miss {
                        break;
                    }
                }
            }
            self.stats.tests += 1;
            self.stats.test_blocks += read;
            if miss > max_miss || !accepts(inter, plen, dp.len(), lambda0, params) {
                continue;
            }
            self.mark[d] = ASSIGNED;
            members.push(d as u32);
            g.h += cls.height(d);
            if inter < dp.len() {
                // P ← P ∪ Q(d): both ascending, merge.
                self.merged.clear();
                let mut i = 0;
                for &r in dp {
                    if self.in_pat[r as usize] == stamp {
                        continue;
                    }
                    self.in_pat[r as usize] = stamp;
                    g.psig |= block_sig(r);
                    let x = block_sig2(r);
                    g.psig2 = (g.psig2.0 | x.0, g.psig2.1 | x.1);
                    while i < self.pat.len() && self.pat[i] < r {
                        self.merged.push(self.pat[i]);
                        i += 1;
                    }
                    self.merged.push(r);
                }
                self.merged.extend_from_slice(&self.pat[i..]);
                std::mem::swap(&mut self.pat, &mut self.merged);
            }
            self.open_prefix(&mut g);
        }
    }
}

/// Groups of the non-lonely seeds searched speculatively, in parallel, each as if no other
/// group had taken anything: the members after the seed, flat (seed `k` of the input:
/// `members[mptr[k]..mptr[k + 1]]`), and the counters of each search.
struct Speculation {
    members: Vec<u32>,
    mptr: Vec<usize>,
    stats: Vec<SearchStats>,
}

fn speculate(sx: &Search, idx: &Index, seeds: &[u32]) -> Speculation {
    // One scanner per thread of the pool (its marks are reset after every seed), so the
    // class-sized arrays are allocated once per thread, not per chunk.
    let pool: Vec<Mutex<Option<Scanner>>> = (0..rayon::current_num_threads()).map(|_| Mutex::new(None)).collect();
    let sb = chunk_bounds(seeds.len(), |k| k);
    let parts: Vec<Speculation> = sb
        .par_windows(2)
        .with_max_len(1)
        .map(|w| {
            let slot = rayon::current_thread_index().unwrap_or(0) % pool.len();
            let mut guard = pool[slot].lock().unwrap_or_else(|e| e.into_inner());
            let sc = guard.get_or_insert_with(|| Scanner::new(sx, idx, None));
            let mut out = Speculation { members: Vec::new(), mptr: vec![0], stats: Vec::new() };
            for &s in &seeds[w[0]..w[1]] {
                let s = s as usize;
                let m0 = out.members.len();
                sc.stats = SearchStats::default();
                sc.mark[s] = ASSIGNED;
                sc.grow(s, &mut out.members);
                sc.mark[s] = NO_MARK;
                for &d in &out.members[m0..] {
                    sc.mark[d as usize] = NO_MARK;
                }
                out.mptr.push(out.members.len());
                out.stats.push(sc.stats);
            }
            out
        })
        .collect();
    let mut all = Speculation { members: Vec::new(), mptr: vec![0], stats: Vec::new() };
    for p in parts {
        let m0 = all.members.len();
        all.members.extend_from_slice(&p.members);
        all.mptr.extend(p.mptr[1..].iter().map(|x| x + m0));
        all.stats.extend(p.stats);
    }
    all
}

/// The greedy scan over classes in order (paper Algorithm 2 with the windows of the module
/// docs). A lonely seed is a group alone. The other seeds' groups are first searched
/// speculatively in parallel (budget mode), each as if nothing had been assigned; the
/// serial pass takes such a group as it is when none of its members has been assigned by an
/// earlier group, and searches it again otherwise. Taking it is exact: assigned classes
/// only drop out of the search (the windows count them all the same), a dropped class that
/// the speculative search rejected changes nothing (the pattern, the scan position at the
/// next list opening and every later test depend on the accepted classes only), so the
/// serial search would accept the same classes in the same order. Returns the classes of
/// every group, flat, the group boundaries, and the counters.
pub(super) fn scan(
    sx: &Search,
    idx: &Index,
    lonely: &[bool],
    speculation: bool,
) -> (Vec<u32>, Vec<usize>, SearchStats) {
    let nc = sx.cls.len();
    // Speculation pays with small windows (large inputs); with large ones (exact mode, the
    // large automatic budgets of small inputs) the serial scan compacts its own copy of the
    // lists instead, so that assigned classes are not read again and again.
    let spec = (speculation && sx.g <= CERT_EFFORT).then(|| {
        let seeds: Vec<u32> = (0..nc as u32).filter(|&s| !lonely[s as usize]).collect();
        (speculate(sx, idx, &seeds), seeds)
    });
    let own = spec.is_none().then(|| {
        let mut own = idx.ent.clone();
        let lb = chunk_bounds(sx.cls.nranks, |r| idx.ptr[r]);
        split_by(&mut own, lb.windows(2).map(|w| idx.ptr[w[1]] - idx.ptr[w[0]]))
            .into_par_iter()
            .zip(lb.par_windows(2))
            .for_each(|(part, w)| {
                for r in w[0]..w[1] {
                    let base = idx.ptr[w[0]];
                    for (k, e) in part[idx.ptr[r] - base..idx.ptr[r + 1] - base].iter_mut().enumerate() {
                        e.4 = k as u32;
                    }
                }
            });
        own
    });
    let mut sc = Scanner::new(sx, idx, own);
    let mut members: Vec<u32> = Vec::with_capacity(nc);
    let mut mptr: Vec<usize> = Vec::with_capacity(nc + 1);
    mptr.push(0);
    let mut k = 0; // next speculative seed
    for (s, &lone) in lonely.iter().enumerate() {
        if let Some((_, seeds)) = &spec {
            while k < seeds.len() && (seeds[k] as usize) < s {
                k += 1;
            }
        }
        if sc.mark[s] == ASSIGNED {
            continue;
        }
        sc.mark[s] = ASSIGNED;
        members.push(s as u32);
        if lone {
            sc.stats.truncated_lists += idx.cuts[s] as usize;
        } else if let Some((sp, _)) = spec
            .as_ref()
            .filter(|(sp, _)| sp.members[sp.mptr[k]..sp.mptr[k + 1]].iter().all(|&d| sc.mark[d as usize] != ASSIGNED))
        {
            for &d in &sp.members[sp.mptr[k]..sp.mptr[k + 1]] {
                sc.mark[d as usize] = ASSIGNED;
                members.push(d);
            }
            let st = &sp.stats[k];
            sc.stats.truncated_lists += st.truncated_lists;
            sc.stats.scanned += st.scanned;
            sc.stats.tests += st.tests;
            sc.stats.test_blocks += st.test_blocks;
        } else {
            sc.grow(s, &mut members);
        }
        mptr.push(members.len());
    }
    (members, mptr, sc.stats)
}
