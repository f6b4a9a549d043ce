//! `--free NAME=LOW..HIGH`: a description field the fit may move, within bounds (a unit
//! after the upper end applies to both: `lift_cylinder.friction.coulomb=1..4kN`). Fields
//! named together, `a.coulomb,a.stiction=1..4kN`, are tied: one fitted value for all.

use crate::units::parse_quantity;

/// A free field and its bounds (SI).
#[derive(Clone, Debug, PartialEq)]
pub struct FreeSpec {
    /// As given (tied fields joined by commas).
    pub name: String,
    /// The tied fields (one for a plain free field).
    pub names: Vec<String>,
    pub low: f64,
    pub high: f64,
}

impl FreeSpec {
    pub fn parse(arg: &str) -> Result<FreeSpec, String> {
        let what = format!("--free {arg}");
        let (name, range) = arg
            .split_once('=')
            .ok_or_else(|| format!("{what}: expected NAME=LOW..HIGH, e.g. valve.tau=0.1..1s"))?;
        let (low, high) = range
            .split_once("..")
            .ok_or_else(|| format!("{what}: expected a range LOW..HIGH"))?;
        let (high, unit) =
            parse_quantity(high.trim()).map_err(|e| format!("{what}: the upper end: {e}"))?;
        let low = match low.trim().parse::<f64>() {
            Ok(v) => v * unit.factor,
            Err(_) => {
                let (v, u) = parse_quantity(low.trim())
                    .map_err(|e| format!("{what}: the lower end: {e}"))?;
                if u.dim != unit.dim {
                    return Err(format!("{what}: the two ends have different units"));
                }
                v
            }
        };
        if high <= low {
            return Err(format!("{what}: the upper end must be above the lower"));
        }
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("{what}: the field's name is missing"));
        }
        let names: Vec<String> = name.split(',').map(|n| n.trim().to_string()).collect();
        if names.iter().any(String::is_empty) {
            return Err(format!("{what}: an empty name among the tied fields"));
        }
        Ok(FreeSpec {
            name: names.join(","),
            names,
            low,
            high,
        })
    }
}

/// Bounds by the sine transform (MINUIT's): the optimizer's unbounded `u` maps to
/// `low + (high − low)(1 + sin u)/2`, so every trial value is inside.
pub fn to_bounded(u: f64, low: f64, high: f64) -> f64 {
    low + (high - low) * (1.0 + u.sin()) / 2.0
}

pub fn from_bounded(p: f64, low: f64, high: f64) -> f64 {
    (2.0 * (p - low) / (high - low) - 1.0)
        .clamp(-1.0, 1.0)
        .asin()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_with_units() {
        let f = FreeSpec::parse("lift_cylinder.friction.coulomb=1..4kN").unwrap();
        assert_eq!((f.low, f.high), (1e3, 4e3));
        let f = FreeSpec::parse("v.tau = 100ms..1s").unwrap();
        assert_eq!((f.name.as_str(), f.low, f.high), ("v.tau", 0.1, 1.0));
        assert!(
            FreeSpec::parse("v.tau=1..0.5")
                .unwrap_err()
                .contains("above")
        );
        assert!(
            FreeSpec::parse("v.tau=1bar..2s")
                .unwrap_err()
                .contains("units")
        );
        assert!(
            FreeSpec::parse("v.tau")
                .unwrap_err()
                .contains("NAME=LOW..HIGH")
        );
        let f = FreeSpec::parse("c.coulomb, c.stiction=1..4kN").unwrap();
        assert_eq!(f.names, ["c.coulomb", "c.stiction"]);
        assert!(
            FreeSpec::parse("c.coulomb,=1..2")
                .unwrap_err()
                .contains("empty")
        );
        for p in [0.0, 0.3, 1.0] {
            assert!((to_bounded(from_bounded(p, 0.0, 1.0), 0.0, 1.0) - p).abs() < 1e-12);
        }
    }
}
