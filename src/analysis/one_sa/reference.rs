//! The serial reference (paper Algorithms 1 + 2 over classes) and the plain row-wise
//! Algorithm 2 baseline.

use super::{accepts, CsrPattern, Grouping, OneSaParams};
use std::collections::hash_map::Entry;
use std::collections::HashMap;

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
/// This is the oracle for [`group_rows`](super::group_rows).
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
