//! Comparing the two libraries' outputs with each other and with exact host references on
//! sampled rows.
//!
//! Tolerance: an output element may differ by at most `tol · max(1, len/1024) · scale`,
//! where `len` is the length of the sum that produced it (row length for SpMV/SpMM, K for
//! SDDMM, products for SpGEMM) and `scale` bounds Σ|terms| of that sum (so cancellation does
//! not produce false alarms). `tol` is 1e-4 for f32 and 1e-10 for f64 by default. NaN
//! (the poison written before the checked run, i.e. an unwritten output) always fails.

use std::ops::Range;

use rayon::prelude::*;

/// Outcome of a comparison.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub ok: bool,
    /// Largest |difference| / allowed seen (≤ 1 passes); NaN when nothing was compared.
    pub max_err: f64,
    pub msg: String,
}

impl Verdict {
    pub fn skipped(why: &str) -> Verdict {
        Verdict { ok: true, max_err: f64::NAN, msg: format!("not checked: {why}") }
    }
}

pub fn len_factor(len: usize) -> f64 {
    (len as f64 / 1024.0).max(1.0)
}

fn err(a: f64, b: f64, allowed: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::INFINITY;
    }
    let d = (a - b).abs();
    if d == 0.0 {
        0.0
    } else {
        d / allowed.max(f64::MIN_POSITIVE)
    }
}

/// An exact host value of one output element: (row, element index, value).
pub type Ref = (usize, usize, f64);

/// Compares the outputs of the libraries that ran (one or two, named) element by element,
/// and each against the sampled host references. `range(i)` gives row i's element indices,
/// `allowed(i, e)` the tolerance of element e of row i.
pub fn compare(
    outs: &[(&str, &[f64])],
    rows: usize,
    range: &(dyn Fn(usize) -> Range<usize> + Sync),
    allowed: &(dyn Fn(usize, usize) -> f64 + Sync),
    refs: &[Ref],
) -> Verdict {
    let mut max_err: f64 = 0.0;
    let mut problems = Vec::new();
    if outs.len() == 2 {
        let (na, a) = outs[0];
        let (nb, b) = outs[1];
        if a.len() != b.len() {
            return Verdict {
                ok: false,
                max_err: f64::INFINITY,
                msg: format!("{na} wrote {} outputs, {nb} {}", a.len(), b.len()),
            };
        }
        // (bad count, worst error, worst row, worst element)
        let (bad, worst, wi, we) = (0..rows)
            .into_par_iter()
            .map(|i| {
                let mut acc = (0usize, 0.0f64, i, usize::MAX);
                for e in range(i) {
                    let x = err(a[e], b[e], allowed(i, e));
                    if x > 1.0 {
                        acc.0 += 1;
                    }
                    if x > acc.1 || (x.is_infinite() && acc.3 == usize::MAX) {
                        acc = (acc.0, x, i, e);
                    }
                }
                acc
            })
            .reduce(
                || (0, 0.0, 0, usize::MAX),
                |x, y| {
                    (
                        x.0 + y.0,
                        if y.1 > x.1 { y.1 } else { x.1 },
                        if y.1 > x.1 { y.2 } else { x.2 },
                        if y.1 > x.1 { y.3 } else { x.3 },
                    )
                },
            );
        max_err = max_err.max(worst);
        if bad > 0 {
            problems.push(format!(
                "{na} vs {nb}: {bad} of {} outputs differ beyond tolerance; worst at row {wi} (element {we}): {} vs {} (allowed ±{:.3e})",
                a.len(),
                a[we],
                b[we],
                allowed(wi, we)
            ));
        }
    }
    for (name, out) in outs {
        let mut bad = 0;
        let mut first = None;
        for &(i, e, r) in refs {
            let x = err(out[e], r, allowed(i, e));
            max_err = max_err.max(x);
            if x > 1.0 {
                bad += 1;
                first.get_or_insert((i, e, out[e], r));
            }
        }
        if let Some((i, e, got, want)) = first {
            problems.push(format!(
                "{name} vs host reference: {bad} of {} sampled outputs wrong; first at row {i} (element {e}): {got} vs exact {want}",
                refs.len()
            ));
        }
    }
    let what = if outs.len() == 2 { "outputs agree and match" } else { "output matches" };
    Verdict {
        ok: problems.is_empty(),
        max_err,
        msg: if problems.is_empty() {
            format!("ok ({what} {} sampled host values; worst {:.2} of tolerance)", refs.len(), max_err)
        } else {
            problems.join("; ")
        },
    }
}

/// Exact comparison of integer arrays (structure) from the libraries and a host reference.
pub fn exact_i32(what: &str, outs: &[(&str, &[i32])], reference: Option<&[i32]>) -> Option<String> {
    let mut problems = Vec::new();
    if let Some(r) = reference {
        for (name, o) in outs {
            if let Some(msg) = first_diff_i32(o, r) {
                problems.push(format!("{what}: {name} vs host: {msg}"));
            }
        }
    } else if outs.len() == 2 {
        if let Some(msg) = first_diff_i32(outs[0].1, outs[1].1) {
            problems.push(format!("{what}: {} vs {}: {msg}", outs[0].0, outs[1].0));
        }
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

fn first_diff_i32(a: &[i32], b: &[i32]) -> Option<String> {
    if a.len() != b.len() {
        return Some(format!("lengths {} and {}", a.len(), b.len()));
    }
    let pos = a.par_iter().zip(b.par_iter()).position_first(|(x, y)| x != y)?;
    let count = a.par_iter().zip(b.par_iter()).filter(|(x, y)| x != y).count();
    Some(format!("{count} entries differ, first at {pos}: {} vs {}", a[pos], b[pos]))
}

/// Rows to check exactly on the host: the longest row, the first and last, and random ones.
pub fn sample_rows(rows: usize, len: impl Fn(usize) -> usize, count: usize, seed: u64) -> Vec<usize> {
    if rows == 0 {
        return Vec::new();
    }
    let longest = (0..rows).max_by_key(|&i| len(i)).unwrap_or(0);
    let mut v = vec![longest, 0, rows - 1];
    let mut rng = crate::gen::Rng::new(seed, 0xC4EC);
    while v.len() < count.min(rows) + 3 {
        v.push(rng.below(rows as u64) as usize);
    }
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_detects_differences_nan_and_ref() {
        let a = vec![1.0, 2.0, 3.0, 4.0];
        let mut b = a.clone();
        let range = |i: usize| i * 2..i * 2 + 2;
        let allowed = |_: usize, _: usize| 1e-3;
        let refs = vec![(0, 0, 1.0), (1, 3, 4.0)];
        let v = compare(&[("x", &a), ("y", &b)], 2, &range, &allowed, &refs);
        assert!(v.ok, "{}", v.msg);
        b[2] = 3.01;
        let v = compare(&[("x", &a), ("y", &b)], 2, &range, &allowed, &refs);
        assert!(!v.ok);
        assert!(v.msg.contains("row 1"), "{}", v.msg);
        b[2] = f64::NAN;
        assert!(!compare(&[("x", &a), ("y", &b)], 2, &range, &allowed, &refs).ok);
        let wrong = vec![1.0, 2.0, 3.0, 5.0];
        let v = compare(&[("x", &wrong)], 2, &range, &allowed, &refs);
        assert!(!v.ok && v.msg.contains("host reference"), "{}", v.msg);
    }

    #[test]
    fn exact_and_sampling() {
        assert!(exact_i32("ptr", &[("a", &[1, 2]), ("b", &[1, 2])], None).is_none());
        assert!(exact_i32("ptr", &[("a", &[1, 2]), ("b", &[1, 3])], None).is_some());
        assert!(exact_i32("ptr", &[("a", &[1, 2])], Some(&[1, 2, 3])).is_some());
        let s = sample_rows(100, |i| if i == 42 { 9 } else { 1 }, 10, 1);
        assert!(s.contains(&42) && s.contains(&0) && s.contains(&99));
        assert!(s.windows(2).all(|w| w[0] < w[1]));
    }
}
