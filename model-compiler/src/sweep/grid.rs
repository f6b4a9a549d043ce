//! `--param NAME=SPEC`: the values one parameter takes in a sweep, and the cases of a
//! full-factorial grid over several.
//!
//! - `payload.mass=100..1000:10`: 10 values evenly spaced from 100 to 1000, ends included;
//! - `supply.p=150..200bar:5`: a unit after the upper end applies to both ends (SI inside);
//! - `valve.gain=0.8,1,1.2` or `supply.p=150bar,180bar`: a list;
//! - `payload.mass=200`: one value (held in every case).
//!
//! ```
//! use model_compiler::sweep::grid::Range;
//! let r = Range::parse("supply.p=150..200bar:3").unwrap();
//! assert_eq!(r.name, "supply.p");
//! assert_eq!(r.values, [150e5, 175e5, 200e5]);
//! ```

use crate::units::parse_quantity;

/// One swept parameter and its values (SI).
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    pub name: String,
    pub values: Vec<f64>,
}

impl Range {
    pub fn parse(arg: &str) -> Result<Range, String> {
        let what = format!("--param {arg}");
        let (name, spec) = arg
            .split_once('=')
            .ok_or_else(|| format!("{what}: expected NAME=LOW..HIGH:COUNT or NAME=A,B,..."))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("{what}: the parameter's name is missing"));
        }
        let values = match spec.split_once("..") {
            Some((low, rest)) => {
                let (high, count) = rest.rsplit_once(':').ok_or_else(|| {
                    format!(
                        "{what}: a range needs its number of values, e.g. {name}={low}..{rest}:5"
                    )
                })?;
                let count: usize =
                    count
                        .trim()
                        .parse()
                        .ok()
                        .filter(|n| *n >= 2)
                        .ok_or_else(|| {
                            format!("{what}: '{count}' is not a number of values (2 or more)")
                        })?;
                let (hi, unit) = parse_quantity(high.trim())
                    .map_err(|e| format!("{what}: the upper end: {}", e.0))?;
                // A bare lower end takes the upper end's unit.
                let lo = match low.trim().parse::<f64>() {
                    Ok(v) => v * unit.factor,
                    Err(_) => {
                        let (lo, lo_unit) = parse_quantity(low.trim())
                            .map_err(|e| format!("{what}: the lower end: {}", e.0))?;
                        if lo_unit.dim != unit.dim {
                            return Err(format!("{what}: the two ends have different units"));
                        }
                        lo
                    }
                };
                if hi <= lo {
                    return Err(format!("{what}: the upper end must be above the lower"));
                }
                (0..count)
                    .map(|k| lo + (hi - lo) * k as f64 / (count - 1) as f64)
                    .collect()
            }
            None => spec
                .split(',')
                .map(|v| {
                    parse_quantity(v.trim())
                        .map(|(x, _)| x)
                        .map_err(|e| format!("{what}: '{}': {}", v.trim(), e.0))
                })
                .collect::<Result<Vec<f64>, String>>()?,
        };
        Ok(Range {
            name: name.to_string(),
            values,
        })
    }
}

/// The full-factorial cases over `ranges`, the last varying fastest: case k's value of
/// each parameter, in the order of `ranges`.
pub fn cases(ranges: &[Range]) -> Vec<Vec<f64>> {
    let mut cases = vec![Vec::new()];
    for r in ranges {
        cases = cases
            .into_iter()
            .flat_map(|c| {
                r.values.iter().map(move |&v| {
                    let mut c = c.clone();
                    c.push(v);
                    c
                })
            })
            .collect();
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_lists_and_units() {
        let r = Range::parse("payload.mass=100..1000:10").unwrap();
        assert_eq!(r.values.len(), 10);
        assert_eq!((r.values[0], r.values[9]), (100.0, 1000.0));
        assert_eq!(r.values[1], 200.0);
        let r = Range::parse("supply.p=150bar..20MPa:2").unwrap();
        assert_eq!(r.values, [150e5, 200e5]);
        let r = Range::parse("g=0.8, 1,1.2").unwrap();
        assert_eq!(r.values, [0.8, 1.0, 1.2]);
        assert_eq!(Range::parse("m=200").unwrap().values, [200.0]);
    }

    #[test]
    fn malformed_specs_are_explained() {
        for (arg, expect) in [
            ("payload.mass", "expected NAME="),
            ("=1,2", "name is missing"),
            ("m=1..2", "number of values"),
            ("m=1..2:1", "2 or more"),
            ("m=2..1:3", "above the lower"),
            ("p=1m..2bar:3", "different units"),
            ("m=1,x", "'x'"),
        ] {
            let e = Range::parse(arg).unwrap_err();
            assert!(e.contains(expect), "{arg}: {e}");
        }
    }

    #[test]
    fn the_grid_is_full_factorial_last_fastest() {
        let a = Range::parse("a=1,2").unwrap();
        let b = Range::parse("b=10,20,30").unwrap();
        let c = cases(&[a, b]);
        assert_eq!(c.len(), 6);
        assert_eq!(c[0], [1.0, 10.0]);
        assert_eq!(c[1], [1.0, 20.0]);
        assert_eq!(c[5], [2.0, 30.0]);
    }
}
