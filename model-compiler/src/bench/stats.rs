//! Order statistics of timing samples.

/// Summary of a sample (same unit as the samples).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stats {
    pub n: usize,
    pub min: f64,
    pub median: f64,
    /// Nearest-rank 99th percentile.
    pub p99: f64,
    pub max: f64,
    pub mean: f64,
}

/// Nearest-rank percentile of sorted data: the smallest value with at least `q` of the
/// sample at or below it.
pub fn percentile_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Median: the mean of the two middle values for an even count.
pub fn median_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]),
    }
}

pub fn stats(samples: &[f64]) -> Stats {
    if samples.is_empty() {
        return Stats {
            n: 0,
            min: f64::NAN,
            median: f64::NAN,
            p99: f64::NAN,
            max: f64::NAN,
            mean: f64::NAN,
        };
    }
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    Stats {
        n: s.len(),
        min: s[0],
        median: median_sorted(&s),
        p99: percentile_sorted(&s, 0.99),
        max: s[s.len() - 1],
        mean: s.iter().sum::<f64>() / s.len() as f64,
    }
}

/// Least-squares slope of log(y) over log(x): the exponent `k` of y ∝ x^k.
pub fn log_log_slope(points: &[(f64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0 && x.is_finite() && y.is_finite())
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_statistics() {
        let v: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        let s = stats(&v);
        assert_eq!((s.n, s.min, s.max), (100, 1.0, 100.0));
        assert_eq!(s.median, 50.5);
        assert_eq!(s.p99, 99.0);
        assert_eq!(s.mean, 50.5);
        assert_eq!(stats(&[3.0]).p99, 3.0);
        assert_eq!(median_sorted(&[1.0, 2.0, 10.0]), 2.0);
        assert!(stats(&[]).median.is_nan());
    }

    #[test]
    fn slope_of_a_power_law() {
        let pts: Vec<(f64, f64)> = [1.0, 2.0, 4.0, 8.0]
            .iter()
            .map(|&x| (x, 3.0 * x * x))
            .collect();
        assert!((log_log_slope(&pts).unwrap() - 2.0).abs() < 1e-12);
        assert_eq!(log_log_slope(&[(1.0, 1.0)]), None);
    }
}
