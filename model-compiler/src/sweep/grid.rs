//! `--param NAME=SPEC`: the values one parameter takes in a sweep, and the cases: the
//! full-factorial grid over several, or `--samples N` drawn at random.
//!
//! - `payload.mass=100..1000:10`: 10 values evenly spaced from 100 to 1000, ends included;
//! - `supply.p=150..200bar:5`: a unit after the upper end applies to both ends (SI inside);
//! - `valve.gain=0.8,1,1.2` or `supply.p=150bar,180bar`: a list;
//! - `payload.mass=200`: one value (held in every case);
//! - with `--samples N`: `payload.mass=100..1000` drawn uniformly (or by Latin hypercube)
//!   over the range, `payload.mass=normal(211, 21)` from a normal distribution.
//!
//! ```
//! use model_compiler::sweep::grid::Range;
//! let r = Range::parse("supply.p=150..200bar:3").unwrap();
//! assert_eq!(r.name, "supply.p");
//! assert_eq!(r.values(), Some(&[150e5, 175e5, 200e5][..]));
//! ```

use crate::units::parse_quantity;

/// One swept parameter (SI values).
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    pub name: String,
    pub spec: Spec,
}

/// The values of a swept parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum Spec {
    /// Given values (a list, evenly spaced points of a range, one value).
    Values(Vec<f64>),
    /// `LOW..HIGH` without a count: sampled (`--samples`).
    Interval { low: f64, high: f64 },
    /// `normal(MEAN, SD)`: sampled (`--samples`).
    Normal { mean: f64, sd: f64 },
}

/// How `--samples` draws an interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    /// Independent uniform draws.
    Uniform,
    /// Latin hypercube: each interval cut into N strata, one draw in each, the strata
    /// paired at random across parameters (a space-filling design).
    LatinHypercube,
}

/// `--samples N`: how many cases, how intervals are drawn, and the random seed (a sweep is
/// reproducible).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampling {
    pub samples: usize,
    pub distribution: Distribution,
    pub seed: u64,
}

impl Range {
    pub fn parse(arg: &str) -> Result<Range, String> {
        let what = format!("--param {arg}");
        let (name, spec) = arg.split_once('=').ok_or_else(|| {
            format!("{what}: expected NAME=LOW..HIGH:COUNT, NAME=A,B,... or NAME=normal(MEAN,SD)")
        })?;
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("{what}: the parameter's name is missing"));
        }
        let spec = spec.trim();
        let quantity = |text: &str, end: &str| {
            parse_quantity(text.trim()).map_err(|e| format!("{what}: {end}: {}", e.0))
        };
        let spec = if let Some(args) = spec
            .strip_prefix("normal(")
            .and_then(|s| s.strip_suffix(')'))
        {
            let (mean, sd) = args
                .split_once(',')
                .ok_or_else(|| format!("{what}: expected normal(MEAN, SD)"))?;
            let (mean, unit) = quantity(mean, "the mean")?;
            let sd = match sd.trim().parse::<f64>() {
                Ok(v) => v * unit.factor,
                Err(_) => quantity(sd, "the standard deviation")?.0,
            };
            if sd <= 0.0 {
                return Err(format!("{what}: the standard deviation must be positive"));
            }
            Spec::Normal { mean, sd }
        } else if let Some((low, rest)) = spec.split_once("..") {
            let (high, count) = match rest.rsplit_once(':') {
                Some((h, c)) => (h, Some(c)),
                None => (rest, None),
            };
            let (hi, unit) = quantity(high, "the upper end")?;
            // A bare lower end takes the upper end's unit.
            let lo = match low.trim().parse::<f64>() {
                Ok(v) => v * unit.factor,
                Err(_) => {
                    let (lo, lo_unit) = quantity(low, "the lower end")?;
                    if lo_unit.dim != unit.dim {
                        return Err(format!("{what}: the two ends have different units"));
                    }
                    lo
                }
            };
            if hi <= lo {
                return Err(format!("{what}: the upper end must be above the lower"));
            }
            match count {
                None => Spec::Interval { low: lo, high: hi },
                Some(count) => {
                    let n: usize =
                        count
                            .trim()
                            .parse()
                            .ok()
                            .filter(|n| *n >= 2)
                            .ok_or_else(|| {
                                format!("{what}: '{count}' is not a number of values (2 or more)")
                            })?;
                    Spec::Values(
                        (0..n)
                            .map(|k| lo + (hi - lo) * k as f64 / (n - 1) as f64)
                            .collect(),
                    )
                }
            }
        } else {
            Spec::Values(
                spec.split(',')
                    .map(|v| quantity(v, &format!("'{}'", v.trim())).map(|(x, _)| x))
                    .collect::<Result<Vec<f64>, String>>()?,
            )
        };
        Ok(Range {
            name: name.to_string(),
            spec,
        })
    }

    /// The given values (None for a sampled spec).
    pub fn values(&self) -> Option<&[f64]> {
        match &self.spec {
            Spec::Values(v) => Some(v),
            _ => None,
        }
    }
}

/// The cases over `ranges`, each a value per range in their order: without `sampling` the
/// full-factorial grid (the last range varying fastest); with it, `samples` draws (a
/// range of one value is held; lists and counted ranges are refused).
pub fn cases(ranges: &[Range], sampling: Option<Sampling>) -> Result<Vec<Vec<f64>>, String> {
    let Some(s) = sampling else {
        let mut cases = vec![Vec::new()];
        for r in ranges {
            let values = r.values().ok_or_else(|| {
                format!(
                    "--param {}: a range without a count or a distribution is drawn: give --samples N, or LOW..HIGH:COUNT",
                    r.name
                )
            })?;
            cases = cases
                .into_iter()
                .flat_map(|c| {
                    values.iter().map(move |&v| {
                        let mut c = c.clone();
                        c.push(v);
                        c
                    })
                })
                .collect();
        }
        return Ok(cases);
    };
    if s.samples == 0 {
        return Err("--samples must be at least 1".into());
    }
    let mut rng = Rng::new(s.seed);
    let n = s.samples;
    let mut columns = Vec::with_capacity(ranges.len());
    for r in ranges {
        let column: Vec<f64> = match &r.spec {
            Spec::Values(v) if v.len() == 1 => vec![v[0]; n],
            Spec::Values(_) => {
                return Err(format!(
                    "--param {}: with --samples give LOW..HIGH, normal(MEAN,SD) or one value",
                    r.name
                ));
            }
            &Spec::Interval { low, high } => {
                let u: Vec<f64> = match s.distribution {
                    Distribution::Uniform => (0..n).map(|_| rng.uniform()).collect(),
                    Distribution::LatinHypercube => {
                        let strata = rng.permutation(n);
                        strata
                            .into_iter()
                            .map(|k| (k as f64 + rng.uniform()) / n as f64)
                            .collect()
                    }
                };
                u.into_iter().map(|u| low + (high - low) * u).collect()
            }
            &Spec::Normal { mean, sd } => (0..n).map(|_| mean + sd * rng.normal()).collect(),
        };
        columns.push(column);
    }
    Ok((0..n)
        .map(|k| columns.iter().map(|c| c[k]).collect())
        .collect())
}

/// xorshift64* (Vigna 2016): small, seedable and the same on every platform, which is
/// all a reproducible design of experiments needs.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        // Any seed, 0 included, gives a non-zero state.
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15 | 1)
    }

    /// Uniform on (0, 1).
    fn uniform(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// A random permutation of 0..n (Fisher–Yates).
    fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = ((self.uniform() * (i + 1) as f64) as usize).min(i);
            p.swap(i, j);
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_lists_and_units() {
        let r = Range::parse("payload.mass=100..1000:10").unwrap();
        let v = r.values().unwrap();
        assert_eq!(v.len(), 10);
        assert_eq!((v[0], v[1], v[9]), (100.0, 200.0, 1000.0));
        let r = Range::parse("supply.p=150bar..20MPa:2").unwrap();
        assert_eq!(r.values(), Some(&[150e5, 200e5][..]));
        let r = Range::parse("g=0.8, 1,1.2").unwrap();
        assert_eq!(r.values(), Some(&[0.8, 1.0, 1.2][..]));
        assert_eq!(Range::parse("m=200").unwrap().values(), Some(&[200.0][..]));
        assert_eq!(
            Range::parse("p=normal(180bar, 5)").unwrap().spec,
            Spec::Normal {
                mean: 180e5,
                sd: 5e5
            }
        );
        assert_eq!(
            Range::parse("m=100..400").unwrap().spec,
            Spec::Interval {
                low: 100.0,
                high: 400.0
            }
        );
    }

    #[test]
    fn malformed_specs_are_explained() {
        for (arg, expect) in [
            ("payload.mass", "expected NAME="),
            ("=1,2", "name is missing"),
            ("m=1..2:1", "2 or more"),
            ("m=2..1:3", "above the lower"),
            ("p=1m..2bar:3", "different units"),
            ("m=1,x", "'x'"),
            ("m=normal(1)", "normal(MEAN, SD)"),
            ("m=normal(1,-2)", "must be positive"),
        ] {
            let e = Range::parse(arg).unwrap_err();
            assert!(e.contains(expect), "{arg}: {e}");
        }
    }

    #[test]
    fn the_grid_is_full_factorial_last_fastest() {
        let a = Range::parse("a=1,2").unwrap();
        let b = Range::parse("b=10,20,30").unwrap();
        let c = cases(&[a.clone(), b], None).unwrap();
        assert_eq!(c.len(), 6);
        assert_eq!(
            (&c[0], &c[1], &c[5]),
            (&vec![1.0, 10.0], &vec![1.0, 20.0], &vec![2.0, 30.0])
        );
        let interval = Range::parse("m=1..2").unwrap();
        assert!(cases(&[interval], None).unwrap_err().contains("--samples"));
        let sampling = Sampling {
            samples: 4,
            distribution: Distribution::Uniform,
            seed: 1,
        };
        assert!(
            cases(&[a], Some(sampling))
                .unwrap_err()
                .contains("with --samples")
        );
    }

    #[test]
    fn samples_are_reproducible_and_fill_their_distributions() {
        let ranges = [
            Range::parse("m=100..200").unwrap(),
            Range::parse("p=normal(10, 2)").unwrap(),
            Range::parse("held=7").unwrap(),
        ];
        let s = Sampling {
            samples: 20_000,
            distribution: Distribution::Uniform,
            seed: 42,
        };
        let c = cases(&ranges, Some(s)).unwrap();
        assert_eq!(c, cases(&ranges, Some(s)).unwrap());
        assert!(
            c.iter()
                .all(|x| (100.0..200.0).contains(&x[0]) && x[2] == 7.0)
        );
        let mean = |j: usize| c.iter().map(|x| x[j]).sum::<f64>() / c.len() as f64;
        let sd = |j: usize| {
            let m = mean(j);
            (c.iter().map(|x| (x[j] - m).powi(2)).sum::<f64>() / (c.len() - 1) as f64).sqrt()
        };
        // Uniform on [100, 200]: mean 150, σ 100/√12 = 28.87; normal: 10 and 2 (within
        // four standard errors for 20 000 draws).
        assert!((mean(0) - 150.0).abs() < 4.0 * 28.87 / 141.4, "{}", mean(0));
        assert!((sd(0) - 28.87).abs() < 0.5, "{}", sd(0));
        assert!((mean(1) - 10.0).abs() < 4.0 * 2.0 / 141.4, "{}", mean(1));
        assert!((sd(1) - 2.0).abs() < 0.05, "{}", sd(1));
        // A Latin hypercube puts exactly one draw in each of the N strata.
        let lhs = Sampling {
            samples: 50,
            distribution: Distribution::LatinHypercube,
            seed: 7,
        };
        let c = cases(&ranges[..1], Some(lhs)).unwrap();
        let mut strata: Vec<usize> = c.iter().map(|x| ((x[0] - 100.0) / 2.0) as usize).collect();
        strata.sort_unstable();
        assert_eq!(strata, (0..50).collect::<Vec<_>>());
    }
}
