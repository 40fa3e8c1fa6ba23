//! Small statistics helpers.

/// Median of the samples (mean of the middle two for an even count); NaN when empty.
pub fn median(v: &[f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        0.5 * (s[n / 2 - 1] + s[n / 2])
    }
}

pub fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NAN, f64::min)
}

pub fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NAN, f64::max)
}

/// Geometric mean of the positive finite values; NaN when there are none.
pub fn geomean(v: &[f64]) -> f64 {
    let good: Vec<f64> = v.iter().copied().filter(|x| x.is_finite() && *x > 0.0).collect();
    if good.is_empty() {
        return f64::NAN;
    }
    (good.iter().map(|x| x.ln()).sum::<f64>() / good.len() as f64).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basics() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert_eq!(min(&[2.0, 1.0]), 1.0);
        assert_eq!(max(&[2.0, 1.0]), 2.0);
        assert!((geomean(&[1.0, 4.0, f64::NAN]) - 2.0).abs() < 1e-12);
    }
}
