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

/// The `q` quantile (0 ≤ q ≤ 1) of the samples, interpolating linearly between the two
/// nearest order statistics (so `percentile(v, 0.5)` is `median(v)`); NaN when empty.
pub fn percentile(v: &[f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let pos = q.clamp(0.0, 1.0) * (s.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    s[lo] + (s[hi] - s[lo]) * (pos - lo as f64)
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
        let v = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert!((percentile(&v, 0.1) - 1.4).abs() < 1e-12);
        assert_eq!(percentile(&v, 0.5), median(&v));
        assert_eq!(percentile(&[4.0, 1.0, 2.0, 3.0], 0.5), 2.5);
        assert_eq!(percentile(&v, 1.0), 5.0);
        assert!(percentile(&[], 0.5).is_nan());
    }
}
