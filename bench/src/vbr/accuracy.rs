//! Accuracy of one SpMM result against exact f64 products on sampled rows: the error of an
//! entry is |c − ref| / Σ_k |a_ik|·|b_kj| (the sum of the magnitudes of its terms, so the
//! measure is the relative error of a dot product and cancellation does not inflate it); a
//! case's figure is the largest over every sampled entry. A and B are taken as stored (the
//! rounding of the inputs to f16/bf16/f32 is not counted); what remains is the arithmetic:
//! products and accumulation, and TF32 rounding inside the kernels that use it.

use rayon::prelude::*;

use crate::gen::Pattern;

/// Exact products on the sampled rows: `refv[k·n + j]` and `absv[k·n + j]` for the k-th
/// sampled row and column j.
pub struct Reference {
    pub rows: Vec<usize>,
    pub refv: Vec<f64>,
    pub absv: Vec<f64>,
}

/// Σ_e a_e·b[col_e, j] and Σ_e |a_e|·|b[col_e, j]| in f64 for each sampled row, B row-major
/// (`cols × n`). Products of f32 (or narrower) values are exact in f64; the sums' own
/// rounding (≤ 2^-53 per term) is far below every threshold used.
pub fn reference(p: &Pattern, a: &[f64], b: &[f64], n: usize, rows: &[usize]) -> Reference {
    let per_row: Vec<(Vec<f64>, Vec<f64>)> = rows
        .par_iter()
        .map(|&i| {
            let mut r = vec![0f64; n];
            let mut s = vec![0f64; n];
            for e in p.ptr[i] as usize..p.ptr[i + 1] as usize {
                let av = a[e];
                let brow = &b[p.col[e] as usize * n..][..n];
                for ((rj, sj), &bv) in r.iter_mut().zip(s.iter_mut()).zip(brow) {
                    *rj += av * bv;
                    *sj += (av * bv).abs();
                }
            }
            (r, s)
        })
        .collect();
    let mut refv = Vec::with_capacity(rows.len() * n);
    let mut absv = Vec::with_capacity(rows.len() * n);
    for (r, s) in per_row {
        refv.extend(r);
        absv.extend(s);
    }
    Reference { rows: rows.to_vec(), refv, absv }
}

/// The error of one entry: |c − ref| / Σ|a||b|; 0 for an exact match (an empty row's zero
/// included), infinite for NaN (an unwritten, poisoned output) or a nonzero where the sum of
/// magnitudes is zero.
pub fn entry_err(c: f64, r: f64, s: f64) -> f64 {
    if c.is_nan() {
        return f64::INFINITY;
    }
    let d = (c - r).abs();
    if d == 0.0 {
        0.0
    } else if s > 0.0 {
        d / s
    } else {
        f64::INFINITY
    }
}

/// The largest entry error; `c` holds the sampled rows' outputs, `rows.len() × n`, in order.
pub fn max_rel_err(reference: &Reference, c: &[f64]) -> f64 {
    assert_eq!(c.len(), reference.refv.len(), "sampled outputs and references differ in length");
    c.par_iter()
        .zip(reference.refv.par_iter().zip(reference.absv.par_iter()))
        .map(|(&c, (&r, &s))| entry_err(c, r, s))
        .reduce(|| 0.0, f64::max)
}

/// The rows to check: all of them when there are at most `count`, else the longest, the
/// first, the last and random ones (`count` in all, about).
pub fn sample(p: &Pattern, count: usize, seed: u64) -> Vec<usize> {
    if p.rows <= count {
        return (0..p.rows).collect();
    }
    crate::check::sample_rows(p.rows, |i| p.row_len(i), count.saturating_sub(3).max(1), seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_and_errors() {
        // A = [[1, 2], [0, 0], [0, -1]] (row 1 empty), B (2 × 2) = [[1, -1], [0.5, 2]].
        let p = Pattern { rows: 3, cols: 2, ptr: vec![0, 2, 2, 3], col: vec![0, 1, 1] };
        let a = [1.0, 2.0, -1.0];
        let b = [1.0, -1.0, 0.5, 2.0];
        let r = reference(&p, &a, &b, 2, &[0, 1, 2]);
        assert_eq!(r.refv, vec![2.0, 3.0, 0.0, 0.0, -0.5, -2.0]);
        assert_eq!(r.absv, vec![2.0, 5.0, 0.0, 0.0, 0.5, 2.0]);
        assert_eq!(max_rel_err(&r, &r.refv.clone()), 0.0);
        let mut c = r.refv.clone();
        c[1] = 3.5; // off by 0.5 of a sum of magnitudes 5
        assert!((max_rel_err(&r, &c) - 0.1).abs() < 1e-15);
        c[1] = f64::NAN;
        assert!(max_rel_err(&r, &c).is_infinite());
        let mut c = r.refv.clone();
        c[2] = 1e-30; // the empty row must be exactly zero
        assert!(max_rel_err(&r, &c).is_infinite());
    }

    #[test]
    fn sampling() {
        let p = crate::gen::uniform(100, 100, 3, 1);
        assert_eq!(sample(&p, 512, 1), (0..100).collect::<Vec<_>>());
        let p = crate::gen::power_law(5000, 5000, 2.2, 2, 500, 1);
        let s = sample(&p, 64, 1);
        assert!(s.len() <= 64 && s.len() >= 40, "{}", s.len());
        let longest = (0..p.rows).max_by_key(|&i| p.row_len(i)).unwrap();
        assert!(s.contains(&longest) && s.contains(&0) && s.contains(&4999));
    }
}
