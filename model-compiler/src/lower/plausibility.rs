//! Plausible ranges of what a description gives, by kind of quantity: a value outside its
//! kind's range is almost always a unit slip (`bore = 140` is read as 140 m, a 15,394 m²
//! piston), so it is warned about where it is written, and for a bare number with the
//! unit that brings it into range ("did you mean \"140 mm\"?"). `hydromech check` prints
//! the warnings; `--deny-warnings` makes them errors.
//!
//! The ranges are ours: wide enough for every machine from a 1 t mini-excavator to a
//! 500 t crane and the seeds' laboratory rigs (seed 002's rod, the PATU crane), narrow
//! enough that a value in the wrong unit (a factor of 1000 or more) leaves them. A zero
//! passes where the field allows it (a tank at 0 Pa, no dead volume).

use crate::description::{BulkModulusDesc, Description, QValue, Quantity};
use crate::diagnostic::Diagnostic;
use crate::units;
use std::ops::Range;

/// The plausible range of one kind of quantity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kind {
    /// What it is, for the message ("a cylinder bore").
    what: &'static str,
    /// SI bounds.
    lo: f64,
    hi: f64,
    /// The bounds as a user reads them.
    shown: &'static str,
    /// The SI unit a bare number is read in.
    si: &'static str,
    /// Units a bare number was likely meant in, tried in order: (unit, SI per unit).
    meant: &'static [(&'static str, f64)],
    /// Zero is a valid value (none, or a tank at absolute zero).
    zero_ok: bool,
}

const LENGTH_UNITS: &[(&str, f64)] = &[("mm", 1e-3), ("cm", 1e-2)];
const VOLUME_UNITS: &[(&str, f64)] = &[("L", 1e-3), ("cm3", 1e-6)];
const PRESSURE_UNITS: &[(&str, f64)] = &[("bar", 1e5), ("MPa", 1e6)];

const fn kind(
    what: &'static str,
    (lo, hi): (f64, f64),
    shown: &'static str,
    si: &'static str,
    meant: &'static [(&'static str, f64)],
    zero_ok: bool,
) -> Kind {
    Kind {
        what,
        lo,
        hi,
        shown,
        si,
        meant,
        zero_ok,
    }
}

pub(crate) const BORE: Kind = kind(
    "a cylinder bore",
    (5e-3, 1.0),
    "5 mm … 1 m",
    "m",
    LENGTH_UNITS,
    false,
);
pub(crate) const ROD: Kind = kind(
    "a piston rod diameter",
    (3e-3, 0.8),
    "3 mm … 0.8 m",
    "m",
    LENGTH_UNITS,
    false,
);
pub(crate) const PISTON_AREA: Kind = kind(
    "a piston area",
    (2e-5, 0.8),
    "0.2 cm² … 0.8 m²",
    "m2",
    // Piston areas are written in cm² more than in mm².
    &[("cm2", 1e-4), ("mm2", 1e-6)],
    false,
);
pub(crate) const STROKE: Kind = kind(
    "a cylinder stroke",
    (5e-3, 20.0),
    "5 mm … 20 m",
    "m",
    LENGTH_UNITS,
    false,
);
pub(crate) const CYLINDER_LENGTH: Kind = kind(
    "a cylinder's retracted length",
    (1e-2, 30.0),
    "10 mm … 30 m",
    "m",
    LENGTH_UNITS,
    false,
);
pub(crate) const DEAD_VOLUME: Kind = kind(
    "a dead volume",
    (1e-8, 0.1),
    "0.01 cm³ … 100 L",
    "m3",
    VOLUME_UNITS,
    true,
);
pub(crate) const VOLUME: Kind = kind(
    "a hydraulic volume",
    (1e-7, 1.5),
    "0.1 cm³ … 1.5 m³",
    "m3",
    VOLUME_UNITS,
    // A volume of 0: a chamber that is the cylinder's alone (seed 002's rod).
    true,
);
pub(crate) const MASS: Kind = kind(
    "a body's mass",
    (1e-3, 5e5),
    "1 g … 500 t",
    "kg",
    &[("g", 1e-3), ("t", 1e3)],
    true,
);
pub(crate) const SYSTEM_PRESSURE: Kind = kind(
    "a pressure",
    (1e3, 1e8),
    "0.01 … 1000 bar",
    "Pa",
    PRESSURE_UNITS,
    true,
);
pub(crate) const VALVE_PRESSURE: Kind = kind(
    "a valve's pressure setting",
    (1e2, 1e8),
    "1 mbar … 1000 bar",
    "Pa",
    PRESSURE_UNITS,
    true,
);
pub(crate) const BULK_MODULUS: Kind = kind(
    "an oil's bulk modulus",
    (1e7, 1e10),
    "10 MPa … 10 GPa",
    "Pa",
    &[("MPa", 1e6), ("bar", 1e5)],
    false,
);
pub(crate) const DENSITY: Kind = kind(
    "an oil's density",
    (500.0, 2000.0),
    "500 … 2000 kg/m³",
    "kg/m3",
    &[("g/cm3", 1e3)],
    false,
);
pub(crate) const DISPLACEMENT: Kind = kind(
    "a pump or motor displacement",
    (1e-8, 1e-2),
    "0.01 cm³/rev … 10 L/rev",
    "m3 per revolution",
    &[("cm3/rev", 1e-6), ("L/rev", 1e-3)],
    false,
);
pub(crate) const SHAFT_SPEED: Kind = kind(
    "a pump's shaft speed",
    (1.0, 1100.0),
    "10 … 10,000 rpm",
    "rad/s",
    &[("rpm", std::f64::consts::PI / 30.0)],
    true,
);
pub(crate) const SPRING_STIFFNESS: Kind = kind(
    "a spring stiffness",
    (1.0, 1e11),
    "1 N/m … 100 kN/mm",
    "N/m",
    &[],
    true,
);
pub(crate) const SPRING_LENGTH: Kind = kind(
    "a spring's free length",
    (1e-3, 100.0),
    "1 mm … 100 m",
    "m",
    LENGTH_UNITS,
    true,
);
pub(crate) const SOLVER_STEP: Kind = kind(
    "a solver step",
    (1e-6, 0.1),
    "1 µs … 100 ms",
    "s",
    &[("ms", 1e-3), ("us", 1e-6)],
    false,
);

/// Warnings for every quantity of `d` that lies outside its kind's range. Values that do
/// not parse are the lowering's errors, not looked at here.
pub(crate) fn check(d: &Description) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    // (A bulk modulus is a quantity or a law β(p); only the quantity has a range.)
    if let Some(oil) = d.hydraulics.as_ref().and_then(|h| h.oil.as_ref())
        && let BulkModulusDesc::Constant(v) = oil.bulk_modulus.get_ref()
        && let Some(span) = oil.bulk_modulus.span.clone()
        && let Some(w) = judge("bulk_modulus", span, v, BULK_MODULUS)
    {
        found.push(w);
    }
    let mut see = |key: &str, q: Option<&Quantity>, kind: Kind| {
        if let Some(q) = q
            && let Some(w) = judge(key, q.span(), q.get_ref(), kind)
        {
            found.push(w);
        }
    };
    if let Some(s) = &d.solver {
        see("step", s.step.as_ref(), SOLVER_STEP);
    }
    for b in &d.bodies {
        see("mass", b.mass.as_ref(), MASS);
        for p in b.parts.iter().flat_map(|p| p.get_ref()) {
            see("mass", Some(&p.get_ref().mass), MASS);
        }
    }
    for s in &d.spring_dampers {
        see("stiffness", Some(&s.stiffness), SPRING_STIFFNESS);
        see("free_length", Some(&s.free_length), SPRING_LENGTH);
    }
    if let Some(h) = &d.hydraulics {
        if let Some(oil) = &h.oil {
            see("density", Some(&oil.density), DENSITY);
        }
        for s in &h.pressure_sources {
            see("pressure", Some(&s.pressure), SYSTEM_PRESSURE);
        }
        for v in &h.volumes {
            see("volume", Some(&v.volume), VOLUME);
            see("precharge", v.precharge.as_ref(), SYSTEM_PRESSURE);
        }
        for a in &h.accumulators {
            see("volume", Some(&a.volume), VOLUME);
            see("precharge", Some(&a.precharge), SYSTEM_PRESSURE);
        }
        for c in &h.cylinders {
            see("bore", c.bore.as_ref(), BORE);
            see("rod_diameter", c.rod_diameter.as_ref(), ROD);
            see("cap_area", c.cap_area.as_ref(), PISTON_AREA);
            see("rod_area", c.rod_area.as_ref(), PISTON_AREA);
            see("stroke", Some(&c.stroke), STROKE);
            see(
                "retracted_length",
                Some(&c.retracted_length),
                CYLINDER_LENGTH,
            );
            see("cap_dead_volume", c.cap_dead_volume.as_ref(), DEAD_VOLUME);
            see("rod_dead_volume", c.rod_dead_volume.as_ref(), DEAD_VOLUME);
        }
        for r in &h.relief_valves {
            see(
                "cracking_pressure",
                Some(&r.cracking_pressure),
                VALVE_PRESSURE,
            );
        }
        for c in &h.check_valves {
            see(
                "cracking_pressure",
                Some(&c.cracking_pressure),
                VALVE_PRESSURE,
            );
            see(
                "full_open_pressure",
                Some(&c.full_open_pressure),
                VALVE_PRESSURE,
            );
        }
        for c in &h.counterbalance_valves {
            see("setting", Some(&c.setting), VALVE_PRESSURE);
        }
        for p in &h.pumps {
            see("displacement", Some(&p.displacement), DISPLACEMENT);
            see("speed", Some(&p.speed), SHAFT_SPEED);
        }
        for p in &h.load_sensing_pumps {
            see("displacement", Some(&p.displacement), DISPLACEMENT);
            see("speed", Some(&p.speed), SHAFT_SPEED);
            see("margin", Some(&p.margin), VALVE_PRESSURE);
            see("cutoff", Some(&p.cutoff), SYSTEM_PRESSURE);
        }
        for m in &h.motors {
            see("displacement", Some(&m.displacement), DISPLACEMENT);
        }
    }
    found.sort_by_key(|w| w.span.as_ref().map(|s| s.start));
    found
}

/// The warning for `key = value` (at `span`) if the value lies outside `kind`'s range.
fn judge(key: &str, span: Range<usize>, value: &QValue, kind: Kind) -> Option<Diagnostic> {
    let (si, bare) = match value {
        QValue::Number(v) => (*v, true),
        QValue::Text(t) => (units::parse_quantity(t).ok()?.0, false),
    };
    let plausible = (kind.lo..=kind.hi).contains(&si) || (si == 0.0 && kind.zero_ok);
    if plausible || !si.is_finite() {
        return None;
    }
    let range = format!("{} ({})", kind.what, kind.shown);
    if bare {
        let number = real(si);
        let meant = kind
            .meant
            .iter()
            .find(|(_, factor)| (kind.lo..=kind.hi).contains(&(si * factor)));
        let message = format!(
            "{key} = {number} is read as {number} {}, implausible for {range}",
            kind.si
        );
        let help = match meant {
            Some((unit, _)) => format!(
                "did you mean \"{number} {unit}\"? A number without a unit is in SI units; write the unit in a string"
            ),
            None => "check the value; a number without a unit is in SI units".into(),
        };
        Some(Diagnostic::at(span, message, help).warning())
    } else {
        let QValue::Text(text) = value else {
            return None;
        };
        Some(
            Diagnostic::at(
                span,
                format!("{key} = \"{text}\" is implausible for {range}"),
                "check the value and its unit",
            )
            .warning(),
        )
    }
}

/// A number as written in a description (`140`, `0.5`, `2e-05`).
fn real(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warnings(body: &str) -> Vec<String> {
        let d = Description::parse(body).unwrap();
        check(&d)
            .into_iter()
            .map(|w| format!("{} | {}", w.message, w.help))
            .collect()
    }

    #[test]
    fn a_bare_bore_in_millimetres_is_caught_with_the_unit_meant() {
        let w = warnings(
            "[model]\nname = \"t\"\n[[hydraulics.cylinders]]\nname = \"c\"\ncap = { body = \"ground\", point = [0, 0, 0] }\nrod = { body = \"arm\", point = [1, 0, 0] }\ncap_volume = \"a\"\nrod_volume = \"b\"\nbore = 140\nrod_diameter = \"80 mm\"\nstroke = \"0.6 m\"\nretracted_length = \"1.2 m\"\n",
        );
        assert_eq!(
            w,
            [
                "bore = 140 is read as 140 m, implausible for a cylinder bore (5 mm … 1 m) | did you mean \"140 mm\"? A number without a unit is in SI units; write the unit in a string"
            ]
        );
    }

    #[test]
    fn each_kind_suggests_the_unit_that_brings_a_bare_number_into_range() {
        for (kind, bare, meant) in [
            (BORE, 63.0, "mm"),
            (STROKE, 600.0, "mm"),
            (VOLUME, 50.0, "L"),
            (SYSTEM_PRESSURE, 200.0, "bar"),
            (VALVE_PRESSURE, 2.0, "bar"),
            (BULK_MODULUS, 1500.0, "MPa"),
            (DISPLACEMENT, 45.0, "cm3/rev"),
            (SHAFT_SPEED, 1500.0, "rpm"),
            (SOLVER_STEP, 1.0, "ms"),
            (DENSITY, 0.85, "g/cm3"),
        ] {
            let (_, factor) = kind.meant.iter().find(|(u, _)| *u == meant).unwrap();
            // The suggestion is a unit the description format reads, with the factor used.
            let (si, _) = units::parse_quantity(&format!("{bare} {meant}")).unwrap();
            assert!((si - bare * factor).abs() <= 1e-12 * si.abs(), "{meant}");
            assert!(!(kind.lo..=kind.hi).contains(&bare), "{}", kind.what);
            let first = kind
                .meant
                .iter()
                .find(|(_, f)| (kind.lo..=kind.hi).contains(&(bare * f)))
                .unwrap();
            assert_eq!(first.0, meant, "{}", kind.what);
        }
    }

    #[test]
    fn values_in_range_and_zeros_where_allowed_pass() {
        let w = warnings(
            "[model]\nname = \"t\"\n[[hydraulics.pressure_sources]]\nname = \"tank\"\npressure = 0\n[[hydraulics.pressure_sources]]\nname = \"supply\"\npressure = \"200 bar\"\n[[hydraulics.volumes]]\nname = \"v\"\nvolume = \"0.5 L\"\n",
        );
        assert!(w.is_empty(), "{w:?}");
    }

    #[test]
    fn a_value_with_a_unit_out_of_range_is_warned_without_a_guess() {
        let w = warnings(
            "[model]\nname = \"t\"\n[[hydraulics.volumes]]\nname = \"v\"\nvolume = \"500 m3\"\n",
        );
        assert_eq!(
            w,
            [
                "volume = \"500 m3\" is implausible for a hydraulic volume (0.1 cm³ … 1.5 m³) | check the value and its unit"
            ]
        );
    }

    #[test]
    fn every_shipped_model_is_plausible() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../models");
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "toml") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(d) = Description::parse(&text) else {
                continue;
            };
            let w: Vec<String> = check(&d).into_iter().map(|w| w.message).collect();
            assert!(w.is_empty(), "{}: {w:?}", path.display());
        }
    }
}
