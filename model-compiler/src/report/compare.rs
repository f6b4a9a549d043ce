//! Model against reference: interpolation and the differences a page tabulates.

/// Linear interpolation of `(t, v)` (sorted by `t`) at `x`; NaN outside.
pub fn interpolate(t: &[f64], v: &[f64], x: f64) -> f64 {
    let n = t.len();
    if n == 0 || x < t[0] || x > t[n - 1] {
        return f64::NAN;
    }
    let i = t.partition_point(|&ti| ti <= x);
    if i == 0 {
        return v[0];
    }
    if i >= n {
        return v[n - 1];
    }
    let (t0, t1) = (t[i - 1], t[i]);
    if t1 <= t0 {
        return v[i];
    }
    let w = (x - t0) / (t1 - t0);
    v[i - 1] + w * (v[i] - v[i - 1])
}

/// Model minus reference on the reference times inside the model's time span.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Difference {
    pub mean: f64,
    pub rms: f64,
    /// max |Δ|
    pub max: f64,
    pub points: usize,
}

/// [`Difference`] of the model `(t, v)` (interpolated linearly) and a reference.
pub fn compare(model_t: &[f64], model_v: &[f64], ref_t: &[f64], ref_v: &[f64]) -> Difference {
    let (mut sum, mut sum2, mut max, mut n) = (0.0, 0.0, 0.0f64, 0usize);
    for (&t, &r) in ref_t.iter().zip(ref_v) {
        let m = interpolate(model_t, model_v, t);
        if m.is_finite() && r.is_finite() {
            let d = m - r;
            sum += d;
            sum2 += d * d;
            max = max.max(d.abs());
            n += 1;
        }
    }
    let k = n.max(1) as f64;
    let nan = if n == 0 { f64::NAN } else { 0.0 };
    Difference {
        mean: sum / k + nan,
        rms: (sum2 / k).sqrt() + nan,
        max: max + nan,
        points: n,
    }
}
