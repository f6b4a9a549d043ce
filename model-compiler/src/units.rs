//! Physical quantities written with units ("200 bar", "40 L/min", "1e5 N s/m").
//!
//! A unit expression is a product of unit symbols, each with an optional integer exponent
//! (`m3`, `s^-1`, `m²`), separated by spaces, `*`, `·` or `.`; every `/` divides by the
//! product that follows it (`m3/s/Pa` = m³/(s·Pa), `N s/m` = N·s/m), and `(...)` groups.
//! Every symbol has an SI factor and a dimension; a value is converted to SI on parsing.
//! Dimensions carry the seven SI base exponents plus the radian, like FMI's `<BaseUnit>`,
//! so that angles are told apart from plain numbers.

use std::f64::consts::PI;
use std::fmt;

/// Exponents of kg, m, s, A, K, mol, cd, rad (the order of FMI's `<BaseUnit>` attributes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Dim(pub [i8; 8]);

/// Attribute names of FMI `<BaseUnit>`, in [`Dim`] order.
pub const BASE_NAMES: [&str; 8] = ["kg", "m", "s", "A", "K", "mol", "cd", "rad"];

impl Dim {
    pub const NONE: Dim = Dim([0; 8]);
    pub const MASS: Dim = Dim([1, 0, 0, 0, 0, 0, 0, 0]);
    pub const LENGTH: Dim = Dim([0, 1, 0, 0, 0, 0, 0, 0]);
    pub const TIME: Dim = Dim([0, 0, 1, 0, 0, 0, 0, 0]);
    pub const CURRENT: Dim = Dim([0, 0, 0, 1, 0, 0, 0, 0]);
    pub const ANGLE: Dim = Dim([0, 0, 0, 0, 0, 0, 0, 1]);
    pub const AREA: Dim = Dim([0, 2, 0, 0, 0, 0, 0, 0]);
    pub const VOLUME: Dim = Dim([0, 3, 0, 0, 0, 0, 0, 0]);
    pub const VELOCITY: Dim = Dim([0, 1, -1, 0, 0, 0, 0, 0]);
    pub const ACCELERATION: Dim = Dim([0, 1, -2, 0, 0, 0, 0, 0]);
    pub const FREQUENCY: Dim = Dim([0, 0, -1, 0, 0, 0, 0, 0]);
    pub const ANGULAR_VELOCITY: Dim = Dim([0, 0, -1, 0, 0, 0, 0, 1]);
    pub const ANGULAR_ACCELERATION: Dim = Dim([0, 0, -2, 0, 0, 0, 0, 1]);
    pub const FORCE: Dim = Dim([1, 1, -2, 0, 0, 0, 0, 0]);
    pub const PRESSURE: Dim = Dim([1, -1, -2, 0, 0, 0, 0, 0]);
    pub const ENERGY: Dim = Dim([1, 2, -2, 0, 0, 0, 0, 0]);
    pub const POWER: Dim = Dim([1, 2, -3, 0, 0, 0, 0, 0]);
    pub const VOLTAGE: Dim = Dim([1, 2, -3, -1, 0, 0, 0, 0]);
    pub const DENSITY: Dim = Dim([1, -3, 0, 0, 0, 0, 0, 0]);
    pub const VOLUME_FLOW: Dim = Dim([0, 3, -1, 0, 0, 0, 0, 0]);
    pub const STIFFNESS: Dim = Dim([1, 0, -2, 0, 0, 0, 0, 0]);
    pub const DAMPING: Dim = Dim([1, 0, -1, 0, 0, 0, 0, 0]);
    pub const INERTIA: Dim = Dim([1, 2, 0, 0, 0, 0, 0, 0]);
    pub const INVERSE_PRESSURE: Dim = Dim([-1, 1, 2, 0, 0, 0, 0, 0]);
    pub const INVERSE_PRESSURE_SQUARED: Dim = Dim([-2, 2, 4, 0, 0, 0, 0, 0]);
    pub const INVERSE_VELOCITY: Dim = Dim([0, -1, 1, 0, 0, 0, 0, 0]);
    pub const INVERSE_LENGTH: Dim = Dim([0, -1, 0, 0, 0, 0, 0, 0]);
    /// m³/(s·Pa): flow gain of a relief valve, conductance of a leakage.
    /// Hydraulic (characteristic) impedance Pa·s/m³ of a transmission line.
    pub const IMPEDANCE: Dim = Dim([1, -4, -1, 0, 0, 0, 0, 0]);
    pub const FLOW_GAIN: Dim = Dim([-1, 4, 1, 0, 0, 0, 0, 0]);

    fn mul(self, other: Dim, power: i32) -> Option<Dim> {
        let mut out = [0i8; 8];
        for (i, o) in out.iter_mut().enumerate() {
            let v = self.0[i] as i32 + other.0[i] as i32 * power;
            *o = i8::try_from(v).ok()?;
        }
        Some(Dim(out))
    }

    /// "a pressure", "an angle", ... or the SI expression for unnamed dimensions.
    pub fn describe(self) -> String {
        match NAMED_DIMS.iter().find(|(d, _, _)| *d == self) {
            Some((_, article_name, _)) => article_name.to_string(),
            None => format!("a quantity in {}", self.si_name()),
        }
    }

    /// Canonical SI unit name of the dimension: `Pa`, `m3/s`, `N.s/m`, `kg.m2`, ...
    /// (the name used in FMI `unit=` attributes). Dimensionless gives `1`.
    pub fn si_name(self) -> String {
        if let Some((_, _, name)) = NAMED_DIMS.iter().find(|(d, _, _)| *d == self) {
            return name.to_string();
        }
        let mut num = Vec::new();
        let mut den = Vec::new();
        for (i, &e) in self.0.iter().enumerate() {
            let sym = BASE_NAMES[i];
            let term = |p: i8| {
                if p == 1 {
                    sym.to_string()
                } else {
                    format!("{sym}{p}")
                }
            };
            if e > 0 {
                num.push(term(e));
            } else if e < 0 {
                den.push(term(-e));
            }
        }
        let num = if num.is_empty() {
            "1".to_string()
        } else {
            num.join(".")
        };
        match den.len() {
            0 => num,
            1 => format!("{num}/{}", den[0]),
            _ => format!("{num}/({})", den.join(".")),
        }
    }
}

/// Dimensions with a name for messages and a canonical unit name.
const NAMED_DIMS: &[(Dim, &str, &str)] = &[
    (Dim::NONE, "a plain number", "1"),
    (Dim::MASS, "a mass", "kg"),
    (Dim::LENGTH, "a length", "m"),
    (Dim::TIME, "a time", "s"),
    (Dim::CURRENT, "an electric current", "A"),
    (Dim::ANGLE, "an angle", "rad"),
    (Dim::AREA, "an area", "m2"),
    (Dim::VOLUME, "a volume", "m3"),
    (Dim::VELOCITY, "a velocity", "m/s"),
    (Dim::ACCELERATION, "an acceleration", "m/s2"),
    (Dim::ANGULAR_VELOCITY, "an angular velocity", "rad/s"),
    (
        Dim::ANGULAR_ACCELERATION,
        "an angular acceleration",
        "rad/s2",
    ),
    (Dim::FORCE, "a force", "N"),
    (Dim::PRESSURE, "a pressure", "Pa"),
    (Dim::ENERGY, "an energy", "J"),
    (Dim::POWER, "a power", "W"),
    (Dim::VOLTAGE, "a voltage", "V"),
    (Dim::DENSITY, "a density", "kg/m3"),
    (Dim::VOLUME_FLOW, "a volume flow", "m3/s"),
    (Dim::STIFFNESS, "a stiffness", "N/m"),
    (Dim::DAMPING, "a damping coefficient", "N.s/m"),
    (Dim::INERTIA, "a moment of inertia", "kg.m2"),
    (Dim::INVERSE_PRESSURE, "an inverse pressure", "1/Pa"),
    (Dim::IMPEDANCE, "a hydraulic impedance", "Pa.s/m3"),
    (
        Dim::INVERSE_PRESSURE_SQUARED,
        "an inverse squared pressure",
        "1/Pa2",
    ),
    (Dim::FLOW_GAIN, "a flow gain", "m3/(s.Pa)"),
    (Dim::INVERSE_VELOCITY, "an inverse velocity", "s/m"),
    (Dim::INVERSE_LENGTH, "an inverse length", "1/m"),
];

/// A parsed unit: `value_SI = factor · value`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Unit {
    pub factor: f64,
    pub dim: Dim,
}

/// Unit symbols: symbol, SI factor, dimension.
const SYMBOLS: &[(&str, f64, Dim)] = &[
    // length
    ("m", 1.0, Dim::LENGTH),
    ("km", 1e3, Dim::LENGTH),
    ("cm", 1e-2, Dim::LENGTH),
    ("mm", 1e-3, Dim::LENGTH),
    ("dm", 1e-1, Dim::LENGTH),
    ("um", 1e-6, Dim::LENGTH),
    ("µm", 1e-6, Dim::LENGTH),
    // Imperial lengths (data sheets): inch, foot.
    ("in", 0.0254, Dim::LENGTH),
    ("ft", 0.3048, Dim::LENGTH),
    // mass
    ("kg", 1.0, Dim::MASS),
    ("g", 1e-3, Dim::MASS),
    ("t", 1e3, Dim::MASS),
    ("lb", 0.45359237, Dim::MASS),
    // time
    ("s", 1.0, Dim::TIME),
    ("ms", 1e-3, Dim::TIME),
    ("us", 1e-6, Dim::TIME),
    ("µs", 1e-6, Dim::TIME),
    ("min", 60.0, Dim::TIME),
    ("h", 3600.0, Dim::TIME),
    // angle
    ("rad", 1.0, Dim::ANGLE),
    ("mrad", 1e-3, Dim::ANGLE),
    ("deg", PI / 180.0, Dim::ANGLE),
    ("°", PI / 180.0, Dim::ANGLE),
    // A revolution counts strokes of a pump: `cm3/rev` is a volume (per revolution).
    ("rev", 1.0, Dim::NONE),
    ("rpm", 2.0 * PI / 60.0, Dim::ANGULAR_VELOCITY),
    ("Hz", 1.0, Dim([0, 0, -1, 0, 0, 0, 0, 0])),
    // force, pressure, energy, power
    ("N", 1.0, Dim::FORCE),
    ("kN", 1e3, Dim::FORCE),
    ("MN", 1e6, Dim::FORCE),
    ("lbf", 4.4482216152605, Dim::FORCE),
    ("Pa", 1.0, Dim::PRESSURE),
    ("kPa", 1e3, Dim::PRESSURE),
    ("MPa", 1e6, Dim::PRESSURE),
    ("GPa", 1e9, Dim::PRESSURE),
    ("bar", 1e5, Dim::PRESSURE),
    ("mbar", 1e2, Dim::PRESSURE),
    ("psi", 6894.757293168361, Dim::PRESSURE),
    ("J", 1.0, Dim::ENERGY),
    ("kJ", 1e3, Dim::ENERGY),
    ("W", 1.0, Dim::POWER),
    ("kW", 1e3, Dim::POWER),
    // volume
    ("L", 1e-3, Dim::VOLUME),
    ("l", 1e-3, Dim::VOLUME),
    ("mL", 1e-6, Dim::VOLUME),
    ("ml", 1e-6, Dim::VOLUME),
    ("cc", 1e-6, Dim::VOLUME),
    // US gallon (pump data sheets: gal/min).
    ("gal", 3.785411784e-3, Dim::VOLUME),
    // electric (valve command signals)
    ("V", 1.0, Dim::VOLTAGE),
    ("mV", 1e-3, Dim::VOLTAGE),
    ("A", 1.0, Dim::CURRENT),
    ("mA", 1e-3, Dim::CURRENT),
    ("%", 1e-2, Dim::NONE),
];

/// Why a quantity or unit did not parse.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitError(pub String);

impl fmt::Display for UnitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Parses a unit expression (see module docs). The empty string is dimensionless.
/// The `BaseUnit` attributes of a unit name as FMI and SSP write them: the non-zero SI
/// base exponents (`kg="1"`, `m="-1"`, ...) and a `factor` when it is not 1; empty for a
/// name that does not parse.
pub fn base_unit_attributes(name: &str) -> Vec<(&'static str, String)> {
    let Ok(parsed) = parse_unit(name) else {
        return Vec::new();
    };
    let mut out: Vec<(&'static str, String)> = parsed
        .dim
        .0
        .iter()
        .zip(BASE_NAMES)
        .filter(|(e, _)| **e != 0)
        .map(|(e, n)| (n, e.to_string()))
        .collect();
    if parsed.factor != 1.0 {
        out.push(("factor", format!("{:?}", parsed.factor)));
    }
    out
}

pub fn parse_unit(text: &str) -> Result<Unit, UnitError> {
    let tokens = tokenize(text)?;
    let mut p = Parser {
        tokens: &tokens,
        pos: 0,
        text,
    };
    let unit = p.expr()?;
    if p.pos != tokens.len() {
        return Err(UnitError(format!(
            "unexpected '{}' in unit '{text}'",
            tokens[p.pos].show()
        )));
    }
    Ok(unit)
}

/// Splits "200 bar" into (200.0, "bar"); a string without a unit gives "".
pub fn split_number(text: &str) -> Result<(f64, &str), UnitError> {
    let t = text.trim();
    let b = t.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i == digits_start || !t[digits_start..i].bytes().any(|c| c.is_ascii_digit()) {
        return Err(UnitError(format!(
            "'{text}' does not start with a number; write a value and a unit, e.g. \"200 bar\""
        )));
    }
    // Exponent only when digits follow ("1e5"), so that "2 e" is not eaten.
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_digits = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_digits {
            i = j;
        }
    }
    let value: f64 = t[..i]
        .parse()
        .map_err(|_| UnitError(format!("'{}' is not a number", &t[..i])))?;
    Ok((value, t[i..].trim()))
}

/// Parses "200 bar" into its SI value and unit.
pub fn parse_quantity(text: &str) -> Result<(f64, Unit), UnitError> {
    let (value, unit_text) = split_number(text)?;
    let unit = parse_unit(unit_text)?;
    let si = value * unit.factor;
    if !si.is_finite() {
        return Err(UnitError(format!("'{text}' is not a finite number")));
    }
    Ok((si, unit))
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Sym(String),
    /// Explicit exponent after `^` or superscript digits.
    Pow(i32),
    One,
    Mul,
    Div,
    Open,
    Close,
}

impl Tok {
    fn show(&self) -> String {
        match self {
            Tok::Sym(s) => s.clone(),
            Tok::Pow(p) => format!("^{p}"),
            Tok::One => "1".into(),
            Tok::Mul => "·".into(),
            Tok::Div => "/".into(),
            Tok::Open => "(".into(),
            Tok::Close => ")".into(),
        }
    }
}

fn superscript_digit(c: char) -> Option<i32> {
    Some(match c {
        '⁰' => 0,
        '¹' => 1,
        '²' => 2,
        '³' => 3,
        '⁴' => 4,
        '⁵' => 5,
        '⁶' => 6,
        '⁷' => 7,
        '⁸' => 8,
        '⁹' => 9,
        _ => return None,
    })
}

fn tokenize(text: &str) -> Result<Vec<Tok>, UnitError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() || c == '*' || c == '·' || c == '.' || c == '⋅' {
            if !matches!(out.last(), None | Some(Tok::Mul | Tok::Div | Tok::Open)) {
                out.push(Tok::Mul);
            }
            i += 1;
        } else if c == '/' {
            if matches!(out.last(), Some(Tok::Mul)) {
                out.pop();
            }
            out.push(Tok::Div);
            i += 1;
        } else if c == '(' {
            out.push(Tok::Open);
            i += 1;
        } else if c == ')' {
            if matches!(out.last(), Some(Tok::Mul)) {
                out.pop();
            }
            out.push(Tok::Close);
            i += 1;
        } else if c == '^'
            || c == '-'
            || c.is_ascii_digit()
            || superscript_digit(c).is_some()
            || c == '⁻'
        {
            // An exponent: `^-1`, `3`, `²`, `⁻¹`; a bare `1` (as in `1/s`) is the unit one.
            let after_symbol = matches!(out.last(), Some(Tok::Sym(_)) | Some(Tok::Close));
            if c == '^' {
                i += 1;
            }
            let mut neg = false;
            if i < chars.len() && (chars[i] == '-' || chars[i] == '⁻') {
                neg = true;
                i += 1;
            }
            let start = i;
            let mut value: i32 = 0;
            while i < chars.len() {
                let d = if chars[i].is_ascii_digit() {
                    chars[i] as i32 - '0' as i32
                } else if let Some(d) = superscript_digit(chars[i]) {
                    d
                } else {
                    break;
                };
                value = value.saturating_mul(10).saturating_add(d);
                i += 1;
            }
            if i == start {
                return Err(UnitError(format!(
                    "missing exponent digits in unit '{text}'"
                )));
            }
            if after_symbol {
                out.push(Tok::Pow(if neg { -value } else { value }));
            } else if value == 1 && !neg {
                out.push(Tok::One);
            } else {
                return Err(UnitError(format!("unexpected number in unit '{text}'")));
            }
        } else if c.is_alphabetic() || c == '°' || c == '%' || c == 'µ' {
            let start = i;
            if c == '°' || c == '%' {
                i += 1;
            } else {
                while i < chars.len() && (chars[i].is_alphabetic() && chars[i] != '°') {
                    i += 1;
                }
            }
            out.push(Tok::Sym(chars[start..i].iter().collect()));
        } else {
            return Err(UnitError(format!(
                "unexpected character '{c}' in unit '{text}'"
            )));
        }
    }
    while matches!(out.last(), Some(Tok::Mul)) {
        out.pop();
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: &'a [Tok],
    pos: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.pos)
    }

    /// expr := product ('/' product)*
    fn expr(&mut self) -> Result<Unit, UnitError> {
        if self.peek().is_none() {
            return Ok(Unit {
                factor: 1.0,
                dim: Dim::NONE,
            });
        }
        let mut u = self.product()?;
        while self.peek() == Some(&Tok::Div) {
            self.pos += 1;
            let d = self.product()?;
            u = combine(u, d, -1, self.text)?;
        }
        Ok(u)
    }

    /// product := factor (Mul? factor)*
    fn product(&mut self) -> Result<Unit, UnitError> {
        let mut u = self.factor()?;
        loop {
            match self.peek() {
                Some(Tok::Mul) => {
                    self.pos += 1;
                    let f = self.factor()?;
                    u = combine(u, f, 1, self.text)?;
                }
                Some(Tok::Sym(_) | Tok::Open) => {
                    let f = self.factor()?;
                    u = combine(u, f, 1, self.text)?;
                }
                _ => return Ok(u),
            }
        }
    }

    /// factor := (symbol | '1' | '(' expr ')') pow?
    fn factor(&mut self) -> Result<Unit, UnitError> {
        let base = match self.peek().cloned() {
            Some(Tok::Sym(s)) => {
                self.pos += 1;
                lookup_symbol(&s, self.text)?
            }
            Some(Tok::One) => {
                self.pos += 1;
                Unit {
                    factor: 1.0,
                    dim: Dim::NONE,
                }
            }
            Some(Tok::Open) => {
                self.pos += 1;
                let u = self.expr()?;
                if self.peek() != Some(&Tok::Close) {
                    return Err(UnitError(format!("missing ')' in unit '{}'", self.text)));
                }
                self.pos += 1;
                u
            }
            Some(t) => {
                return Err(UnitError(format!(
                    "unexpected '{}' in unit '{}'",
                    t.show(),
                    self.text
                )));
            }
            None => return Err(UnitError(format!("unit '{}' ends unexpectedly", self.text))),
        };
        if let Some(Tok::Pow(p)) = self.peek().cloned() {
            self.pos += 1;
            return combine(
                Unit {
                    factor: 1.0,
                    dim: Dim::NONE,
                },
                base,
                p,
                self.text,
            );
        }
        Ok(base)
    }
}

fn combine(a: Unit, b: Unit, power: i32, text: &str) -> Result<Unit, UnitError> {
    let dim = a
        .dim
        .mul(b.dim, power)
        .ok_or_else(|| UnitError(format!("exponent too large in unit '{text}'")))?;
    Ok(Unit {
        factor: a.factor * b.factor.powi(power),
        dim,
    })
}

fn lookup_symbol(sym: &str, text: &str) -> Result<Unit, UnitError> {
    if let Some((_, factor, dim)) = SYMBOLS.iter().find(|(s, _, _)| *s == sym) {
        return Ok(Unit {
            factor: *factor,
            dim: *dim,
        });
    }
    let near: Vec<&str> = SYMBOLS
        .iter()
        .map(|(s, _, _)| *s)
        .filter(|s| s.eq_ignore_ascii_case(sym))
        .collect();
    let hint = if near.is_empty() {
        String::new()
    } else {
        format!(" (did you mean '{}'?)", near[0])
    };
    Err(UnitError(format!("unknown unit '{sym}' in '{text}'{hint}")))
}

/// Display units offered for an SI unit name: (name, factor, offset) with
/// `value_display = factor · value_SI + offset` (FMI `<DisplayUnit>`).
/// The first one is the variable's default `displayUnit`.
pub fn display_units(si_unit: &str) -> &'static [(&'static str, f64, f64)] {
    match si_unit {
        "Pa" => &[("bar", 1e-5, 0.0), ("MPa", 1e-6, 0.0)],
        "rad" => &[("deg", 57.29577951308232, 0.0)],
        "rad/s" => &[
            ("deg/s", 57.29577951308232, 0.0),
            ("rpm", 9.549296585513721, 0.0),
        ],
        "rad/s2" => &[("deg/s2", 57.29577951308232, 0.0)],
        "m3/s" => &[("L/min", 60000.0, 0.0)],
        "m" => &[("mm", 1000.0, 0.0)],
        "m/s" => &[("mm/s", 1000.0, 0.0)],
        "m3" => &[("L", 1000.0, 0.0), ("cm3", 1e6, 0.0)],
        "m2" => &[("cm2", 1e4, 0.0), ("mm2", 1e6, 0.0)],
        "N" => &[("kN", 1e-3, 0.0)],
        "W" => &[("kW", 1e-3, 0.0)],
        _ => &[],
    }
}

/// Every unit symbol known to the parser (for documentation and help texts).
pub fn known_symbols() -> impl Iterator<Item = &'static str> {
    SYMBOLS.iter().map(|(s, _, _)| *s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> (f64, Dim) {
        let (v, u) = parse_quantity(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        (v, u.dim)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
    }

    #[test]
    fn examples_of_the_description_format() {
        let cases: &[(&str, f64, Dim)] = &[
            ("200 bar", 2e7, Dim::PRESSURE),
            ("80 mm", 0.08, Dim::LENGTH),
            ("7.6 MPa", 7.6e6, Dim::PRESSURE),
            ("40 L/min", 40e-3 / 60.0, Dim::VOLUME_FLOW),
            ("30 deg", PI / 6.0, Dim::ANGLE),
            ("10 ms", 0.01, Dim::TIME),
            ("1500 MPa", 1.5e9, Dim::PRESSURE),
            ("4.71e-5 m3", 4.71e-5, Dim::VOLUME),
            ("450 kg", 450.0, Dim::MASS),
            ("850 kg/m3", 850.0, Dim::DENSITY),
            ("1e5 N s/m", 1e5, Dim::DAMPING),
            ("1e5 N·s/m", 1e5, Dim::DAMPING),
            ("1e7 N/m", 1e7, Dim::STIFFNESS),
            ("2.83e-5 m2", 2.83e-5, Dim::AREA),
            ("28 cm3/rev", 28e-6, Dim::VOLUME),
            ("1500 rpm", 1500.0 * 2.0 * PI / 60.0, Dim::ANGULAR_VELOCITY),
            ("1e-11 m3/s/Pa", 1e-11, Dim::FLOW_GAIN),
            ("1e-11 m3/(s Pa)", 1e-11, Dim::FLOW_GAIN),
            ("9.81 m/s^2", 9.81, Dim::ACCELERATION),
            ("9.81 m/s2", 9.81, Dim::ACCELERATION),
            ("9.81 m s^-2", 9.81, Dim::ACCELERATION),
            ("9.81 m·s⁻²", 9.81, Dim::ACCELERATION),
            ("12 kg m2", 12.0, Dim::INERTIA),
            ("12 kg·m²", 12.0, Dim::INERTIA),
            ("6.53e-10 1/Pa", 6.53e-10, Dim::INVERSE_PRESSURE),
            ("10 V", 10.0, Dim::VOLTAGE),
            ("-0.5", -0.5, Dim::NONE),
            ("+3.", 3.0, Dim::NONE),
            ("50 %", 0.5, Dim::NONE),
            ("4.55 ms", 4.55e-3, Dim::TIME),
            ("1 bar", 1e5, Dim::PRESSURE),
            ("3000 psi", 3000.0 * 6894.757293168361, Dim::PRESSURE),
            ("250 kPa", 2.5e5, Dim::PRESSURE),
            ("2 in", 0.0508, Dim::LENGTH),
            ("3 ft", 0.9144, Dim::LENGTH),
            ("12 cm", 0.12, Dim::LENGTH),
            ("100 lbf", 444.82216152605, Dim::FORCE),
            ("10 lb", 4.5359237, Dim::MASS),
            ("2 t", 2000.0, Dim::MASS),
            ("10 gal/min", 10.0 * 3.785411784e-3 / 60.0, Dim::VOLUME_FLOW),
            ("40 l/min", 40e-3 / 60.0, Dim::VOLUME_FLOW),
            ("250 cm³", 250e-6, Dim::VOLUME),
            ("250 cm3", 250e-6, Dim::VOLUME),
            ("1.5 kg·m²", 1.5, Dim::INERTIA),
            ("5 mrad", 5e-3, Dim::ANGLE),
            ("180 °", PI, Dim::ANGLE),
            ("50 Hz", 50.0, Dim([0, 0, -1, 0, 0, 0, 0, 0])),
            ("20 mm2", 20e-6, Dim::AREA),
            ("3 kN/mm", 3e6, Dim::STIFFNESS),
        ];
        for (text, value, dim) in cases {
            let (v, d) = q(text);
            assert!(close(v, *value), "{text}: {v} != {value}");
            assert_eq!(d, *dim, "{text}");
        }
    }

    #[test]
    fn errors_are_explained() {
        let e = parse_quantity("200 barr").unwrap_err().0;
        assert!(e.contains("unknown unit 'barr'"), "{e}");
        let e = parse_quantity("bar").unwrap_err().0;
        assert!(e.contains("does not start with a number"), "{e}");
        let e = parse_quantity("3 mpa").unwrap_err().0;
        assert!(e.contains("did you mean 'MPa'"), "{e}");
        assert!(parse_quantity("3 m/(s").is_err());
        assert!(parse_quantity("3 m^").is_err());
        assert!(parse_quantity("1e400 Pa").is_err());
        assert!(parse_quantity("3 m 2").is_err());
        assert!(
            parse_quantity("5 psii")
                .unwrap_err()
                .0
                .contains("unknown unit 'psii'")
        );
        assert!(parse_quantity("NaN bar").is_err());
        assert!(parse_quantity("inf m").is_err());
    }

    #[test]
    fn display_units_are_defined_for_each_kind() {
        for (si, first) in [
            ("Pa", "bar"),
            ("rad", "deg"),
            ("rad/s", "deg/s"),
            ("m", "mm"),
            ("m/s", "mm/s"),
            ("m3/s", "L/min"),
            ("m3", "L"),
            ("m2", "cm2"),
            ("N", "kN"),
            ("W", "kW"),
        ] {
            let list = display_units(si);
            assert_eq!(list[0].0, first, "{si}");
            // Each display factor matches the unit parser: 1 display unit = 1/factor SI.
            for (name, factor, _) in list {
                if let Ok(u) = parse_unit(name) {
                    assert!((u.factor * factor - 1.0).abs() < 1e-12, "{name}");
                    assert_eq!(u.dim, parse_unit(si).unwrap().dim, "{name}");
                }
            }
        }
        // Masses and energies (small balance errors) stay in SI.
        assert!(display_units("kg").is_empty());
        assert!(display_units("J").is_empty());
    }

    #[test]
    fn canonical_names_parse_back_to_their_dimension() {
        for (dim, _, name) in NAMED_DIMS {
            let u = parse_unit(if *name == "1" { "" } else { name }).unwrap();
            assert_eq!(u.dim, *dim, "{name}");
            assert_eq!(u.factor, 1.0, "{name}");
        }
        let odd = Dim([1, 2, -1, 0, 0, 0, 0, -1]);
        let name = odd.si_name();
        assert_eq!(name, "kg.m2/(s.rad)");
        assert_eq!(parse_unit(&name).unwrap().dim, odd);
    }

    #[test]
    fn dimensions_are_described() {
        assert_eq!(Dim::PRESSURE.describe(), "a pressure");
        assert_eq!(Dim::ANGLE.describe(), "an angle");
        assert_eq!(parse_unit("mm").unwrap().dim.describe(), "a length");
    }
}
