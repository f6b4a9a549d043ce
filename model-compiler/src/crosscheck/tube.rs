//! The tolerance tube of the FMI cross-check, as FMPy computes it when it imports a
//! cross-check FMU (`fmpy.util.validate_signal` and `validate_result`, FMPy 0.3.32):
//!
//! 1. the reference is resampled linearly onto 1000 points spanning its time range;
//! 2. the tube is the running minimum and maximum over 20 neighbouring points (±1 % of the
//!    run; the window `[i − 10, i + 9]`, scipy's `minimum_filter1d(size = 20)`), widened by
//!    10 % of the reference's range (10 % of its value, or 0.5 where it is 0, for a constant);
//! 3. a result point strictly inside the reference's time range and outside the tube is an
//!    outlier; a signal passes with fewer than 10 % outliers (FMPy's `passed`).
//!
//! A non-finite result value, which FMPy's comparisons let through, fails here.

/// Resampling points, window width (points), relative tube width: FMPy's defaults.
const POINTS: usize = 1000;
const WINDOW: usize = 20;
const WIDTH: f64 = 0.1;
/// FMPy writes `passed` below this share of outliers.
pub const PASS_FRACTION: f64 = 0.1;

/// One signal against its reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Result points outside the tube, and all result points.
    pub outliers: usize,
    pub samples: usize,
    /// Half-width added to the running extremes.
    pub width: f64,
    /// Largest |result − reference| (reference interpolated at the result's time) and the
    /// index of the result point where it occurs.
    pub max_deviation: f64,
    pub max_at: usize,
    /// The first result point outside the tube.
    pub first_outlier: Option<usize>,
    /// The first non-finite result value.
    pub non_finite: Option<usize>,
}

impl Comparison {
    pub fn fraction(&self) -> f64 {
        self.outliers as f64 / self.samples.max(1) as f64
    }

    pub fn passed(&self) -> bool {
        self.non_finite.is_none() && self.fraction() < PASS_FRACTION
    }
}

/// numpy.interp: linear, the end values held outside `xp` (`xp` increasing).
fn interp(x: f64, xp: &[f64], fp: &[f64]) -> f64 {
    let n = xp.len();
    if x <= xp[0] {
        return fp[0];
    }
    if x >= xp[n - 1] {
        return fp[n - 1];
    }
    let j = xp.partition_point(|&v| v <= x) - 1;
    let slope = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
    fp[j] + slope * (x - xp[j])
}

/// Compares `y(t)` with `y_ref(t_ref)` (`t_ref` strictly increasing, at least 2 points).
pub fn compare(t: &[f64], y: &[f64], t_ref: &[f64], y_ref: &[f64]) -> Comparison {
    let (t0, t1) = (t_ref[0], t_ref[t_ref.len() - 1]);
    let dt = (t1 - t0) / (POINTS - 1) as f64;
    let t_band: Vec<f64> = (0..POINTS)
        .map(|i| {
            if i + 1 == POINTS {
                t1
            } else {
                t0 + i as f64 * dt
            }
        })
        .collect();
    let y_band: Vec<f64> = t_band.iter().map(|&x| interp(x, t_ref, y_ref)).collect();
    let lo = y_band.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = y_band.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let width = if lo == hi {
        if lo == 0.0 { 0.5 } else { lo.abs() * WIDTH }
    } else {
        (hi - lo) * WIDTH
    };
    let window = |i: usize| i.saturating_sub(WINDOW / 2)..(i + WINDOW - WINDOW / 2).min(POINTS);
    let (y_min, y_max): (Vec<f64>, Vec<f64>) = (0..POINTS)
        .map(|i| {
            let w = &y_band[window(i)];
            let lo = w.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (lo - width, hi + width)
        })
        .unzip();
    let mut c = Comparison {
        outliers: 0,
        samples: t.len(),
        width,
        max_deviation: 0.0,
        max_at: 0,
        first_outlier: None,
        non_finite: None,
    };
    for (k, (&tk, &yk)) in t.iter().zip(y).enumerate() {
        if !yk.is_finite() {
            c.non_finite.get_or_insert(k);
            continue;
        }
        if tk >= t0 && tk <= t1 {
            let d = (yk - interp(tk, t_ref, y_ref)).abs();
            if d > c.max_deviation {
                (c.max_deviation, c.max_at) = (d, k);
            }
        }
        let outside = yk < interp(tk, &t_band, &y_min) || yk > interp(tk, &t_band, &y_max);
        if outside && tk > t0 && tk < t1 {
            c.outliers += 1;
            c.first_outlier.get_or_insert(k);
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(n: usize) -> (Vec<f64>, Vec<f64>) {
        let t: Vec<f64> = (0..n).map(|k| k as f64 * 0.01).collect();
        let y = t.iter().map(|t| 2.0 * t).collect();
        (t, y)
    }

    #[test]
    fn the_reference_itself_passes_with_no_outliers() {
        let (t, y) = ramp(1001);
        let c = compare(&t, &y, &t, &y);
        assert_eq!((c.outliers, c.max_deviation, c.non_finite), (0, 0.0, None));
        assert!((c.width - 2.0).abs() < 1e-12); // 10 % of the range 0..20
        assert!(c.passed());
    }

    #[test]
    fn the_tube_is_ten_percent_of_the_range_plus_the_running_extremes() {
        let (t, y) = ramp(1001);
        // 1.9 above the ramp everywhere: inside the 2.0 band.
        let up: Vec<f64> = y.iter().map(|v| v + 1.9).collect();
        assert_eq!(compare(&t, &up, &t, &y).outliers, 0);
        // 2.0 + the window's lead (9 band points ≈ 0.18 of the ramp) + a margin: outside at
        // every interior point.
        let up: Vec<f64> = y.iter().map(|v| v + 2.25).collect();
        let c = compare(&t, &up, &t, &y);
        assert_eq!(c.outliers, 999); // the two end points are not counted
        assert!(!c.passed());
        assert!((c.max_deviation - 2.25).abs() < 1e-9);
        // A spike on 5 % of the points passes; on 15 % it fails.
        let mut spiky = y.clone();
        for v in spiky.iter_mut().skip(100).take(50) {
            *v += 10.0;
        }
        let c = compare(&t, &spiky, &t, &y);
        assert_eq!((c.outliers, c.first_outlier), (50, Some(100)));
        assert!((100..150).contains(&c.max_at));
        assert!(c.passed());
        for v in spiky.iter_mut().skip(300).take(100) {
            *v += 10.0;
        }
        assert!(!compare(&t, &spiky, &t, &y).passed());
    }

    #[test]
    fn constants_and_non_finite_values() {
        let t = [0.0, 1.0, 2.0];
        // A constant 0: half-width 0.5; a constant 4: 10 % of it.
        assert_eq!(compare(&t, &[0.4, 0.4, 0.4], &t, &[0.0; 3]).outliers, 0);
        assert_eq!(compare(&t, &[0.0, 0.6, 0.0], &t, &[0.0; 3]).outliers, 1);
        assert_eq!(compare(&t, &[4.0, 4.5, 4.0], &t, &[4.0; 3]).outliers, 1);
        let c = compare(&t, &[0.0, f64::NAN, 0.0], &t, &[0.0; 3]);
        assert_eq!((c.non_finite, c.outliers), (Some(1), 0));
        assert!(!c.passed());
    }
}
