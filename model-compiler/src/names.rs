//! Name syntax: component names and FMI structured variable names.

/// A component name: a C-like identifier (`[A-Za-z_][A-Za-z0-9_]*`), so that it can be
/// the first part of a structured FMI name.
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// FMI 2.0 `variableNamingConvention="structured"` (fmi-standard v2.0.5,
/// `2_2_common_schema.adoc` §2.2.9): identifiers separated by `.`, each optionally followed
/// by an array subscript `[1]` or `[1,2]` of unsigned integers. (Quoted q-names and
/// `der(...)` are legal FMI but never needed by a machine interface, so they are refused.)
pub fn check_structured(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("the name is empty".into());
    }
    for part in name.split('.') {
        let (ident, subscript) = match part.find('[') {
            Some(i) => (&part[..i], Some(&part[i..])),
            None => (part, None),
        };
        if ident.is_empty() {
            return Err(if part.is_empty() {
                format!("'{name}' has an empty part between dots")
            } else {
                format!("'{name}' has a subscript without a name before it")
            });
        }
        if !is_identifier(ident) {
            return Err(format!(
                "'{ident}' in '{name}' is not an identifier (letters, digits and '_', not starting with a digit)"
            ));
        }
        if let Some(sub) = subscript {
            let inner = sub
                .strip_prefix('[')
                .and_then(|s| s.strip_suffix(']'))
                .ok_or_else(|| format!("malformed subscript '{sub}' in '{name}'"))?;
            let ok = !inner.is_empty()
                && inner.split(',').all(|i| {
                    let i = i.trim();
                    !i.is_empty() && i.bytes().all(|b| b.is_ascii_digit())
                });
            if !ok {
                return Err(format!(
                    "subscript '{sub}' in '{name}' must be unsigned integers like [1] or [1,2]"
                ));
            }
        }
    }
    Ok(())
}

/// Model identifiers that cannot name the FMU's binary: on Windows these are device names
/// whatever the extension (`binaries/win64/con.dll` cannot be created or loaded); compared
/// without regard to case.
pub const RESERVED_IDENTIFIERS: &[&str] = &[
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// `naya-rod` → `naya_rod`; then anything that is not an identifier character becomes
/// `_`, and a leading digit gets a `_` prefix.
pub fn model_identifier(name: &str) -> String {
    let mut id: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    id
}

/// Edit distance with adjacent transpositions (optimal string alignment), for
/// "did you mean" hints.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// The closest candidate within a small edit distance.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(name, c), c))
        .filter(|(d, c)| *d <= (name.len().max(c.len()) / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_names() {
        for ok in [
            "a",
            "valve.command",
            "rod.tip.x",
            "a_b.c1",
            "x[1]",
            "boom.p[2,3].q",
            "_x",
        ] {
            assert!(check_structured(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "a..b", ".a", "a.", "1a", "a-b", "a[", "a[x]", "a[]", "[1]", "a b", "a.b[1",
        ] {
            assert!(check_structured(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn identifiers() {
        assert_eq!(model_identifier("naya-rod"), "naya_rod");
        assert_eq!(model_identifier("jaiswal-fourbar"), "jaiswal_fourbar");
        assert_eq!(model_identifier("3d arm"), "_3d_arm");
        assert!(is_identifier("chamber_a"));
        assert!(!is_identifier("chamber-a"));
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            closest("chamber_c", ["chamber_a", "pump", "tank"]),
            Some("chamber_a")
        );
        assert_eq!(closest("xyz", ["chamber_a", "pump"]), None);
        assert_eq!(closest("amr", ["arm", "ground"]), Some("arm"));
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
