//! The CSV files of the FMI Cross-Check (`FMI-CROSS-CHECK-RULES.md` v4.1): comma separated,
//! a header row of double-quoted variable names exactly as in `modelDescription.xml`, the
//! first column `time`, unquoted C-style numbers. `<Model>_in.csv` may repeat a time (a
//! step of an input); `<Model>_ref.csv` must not.
//!
//! Numbers are written in Rust's shortest round-trip form, so a file read back gives the
//! very bits that were written: the reference run reads the `_in.csv` it ships.

use std::fmt::Write as _;

/// Which of the two files: the rules on the time column differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `_in.csv`: times must not decrease (a repeated time is a step).
    Inputs,
    /// `_ref.csv`: times strictly increase.
    Reference,
}

/// A parsed cross-check CSV file.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Variable names after `time`.
    pub names: Vec<String>,
    pub time: Vec<f64>,
    /// `rows[k][j]`: variable `j` at `time[k]`.
    pub rows: Vec<Vec<f64>>,
    /// 1-based line number of each row in the file.
    pub lines: Vec<usize>,
}

impl Table {
    /// Column `j` as a vector.
    pub fn column(&self, j: usize) -> Vec<f64> {
        self.rows.iter().map(|r| r[j]).collect()
    }
}

/// The CSV text: quoted header, one row per time point.
pub fn write(names: &[String], time: &[f64], rows: &[Vec<f64>]) -> String {
    let mut s = String::from("\"time\"");
    for n in names {
        let _ = write!(s, ",\"{n}\"");
    }
    s.push('\n');
    for (t, row) in time.iter().zip(rows) {
        let _ = write!(s, "{t:?}");
        for v in row {
            let _ = write!(s, ",{v:?}");
        }
        s.push('\n');
    }
    s
}

/// Reads a cross-check CSV; an error names the 1-based line (and the column) at fault.
pub fn parse(text: &str, kind: Kind) -> Result<Table, String> {
    let mut lines = text.lines().enumerate();
    let header = loop {
        match lines.next() {
            Some((_, l)) if l.trim().is_empty() => continue,
            Some((k, l)) => break (k + 1, l),
            None => return Err(
                "line 1: the file is empty; expected the header row \"time\",\"<variable>\",..."
                    .into(),
            ),
        }
    };
    let mut names = Vec::new();
    for (c, cell) in header.1.split(',').enumerate() {
        let cell = cell.trim();
        let name = cell
            .strip_prefix('"')
            .and_then(|x| x.strip_suffix('"'))
            .ok_or_else(|| {
                format!(
                    "line {}: header column {}: `{cell}` is not double-quoted; the cross-check rules want \"name\"",
                    header.0,
                    c + 1
                )
            })?;
        if name.is_empty() || name.contains('"') {
            return Err(format!(
                "line {}: header column {}: `{cell}` is not a variable name",
                header.0,
                c + 1
            ));
        }
        names.push(name.to_string());
    }
    if names[0] != "time" {
        return Err(format!(
            "line {}: the first column must be \"time\", is \"{}\"",
            header.0, names[0]
        ));
    }
    if let Some((j, n)) = names
        .iter()
        .enumerate()
        .find(|(j, n)| names[..*j].contains(n))
    {
        return Err(format!(
            "line {}: header column {}: \"{n}\" appears twice",
            header.0,
            j + 1
        ));
    }
    names.remove(0);
    let mut table = Table {
        names,
        time: Vec::new(),
        rows: Vec::new(),
        lines: Vec::new(),
    };
    for (k, line) in lines {
        let number = k + 1;
        if line.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != table.names.len() + 1 {
            return Err(format!(
                "line {number}: {} values, expected {} (time and {} variables)",
                cells.len(),
                table.names.len() + 1,
                table.names.len()
            ));
        }
        let mut row = Vec::with_capacity(cells.len());
        for (c, cell) in cells.iter().enumerate() {
            let v: f64 = cell.parse().map_err(|_| {
                format!(
                    "line {number}, column {} (\"{}\"): `{cell}` is not a number",
                    c + 1,
                    if c == 0 { "time" } else { &table.names[c - 1] }
                )
            })?;
            if !v.is_finite() {
                return Err(format!(
                    "line {number}, column {}: `{cell}` is not a finite number",
                    c + 1
                ));
            }
            row.push(v);
        }
        let t = row.remove(0);
        if let Some(&last) = table.time.last() {
            let bad = match kind {
                Kind::Inputs => t < last,
                Kind::Reference => t <= last,
            };
            if bad {
                return Err(format!(
                    "line {number}: time {t} after {last} on line {}; the time column must {}",
                    table.lines[table.lines.len() - 1],
                    match kind {
                        Kind::Inputs => "not decrease (a repeated time is a step)",
                        Kind::Reference => "increase strictly",
                    }
                ));
            }
        }
        table.time.push(t);
        table.rows.push(row);
        table.lines.push(number);
    }
    if table.time.is_empty() {
        return Err(format!("line {}: a header but no rows", header.0));
    }
    Ok(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_numbers_read_back_to_the_same_bits() {
        let names = vec!["a.b".to_string(), "c".to_string()];
        let time = vec![0.0, 0.1 + 0.2, 1e-300];
        let rows = vec![
            vec![1.0 / 3.0, -0.0],
            vec![2e10, 5.0],
            vec![f64::MIN_POSITIVE, 7.0],
        ];
        let text = write(&names, &time, &rows);
        assert!(text.starts_with("\"time\",\"a.b\",\"c\"\n0.0,"));
        let t = parse(&text, Kind::Inputs).unwrap_err();
        assert!(t.contains("line 4") && t.contains("not decrease"), "{t}");
        let time = vec![0.0, 0.1 + 0.2, 1.0];
        let t = parse(&write(&names, &time, &rows), Kind::Reference).unwrap();
        assert_eq!(t.names, names);
        assert_eq!(t.lines, [2, 3, 4]);
        for (a, b) in t.rows.iter().flatten().zip(rows.iter().flatten()) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
        assert_eq!(t.time[1].to_bits(), (0.1f64 + 0.2).to_bits());
    }

    #[test]
    fn bad_files_name_the_line() {
        let e = |text: &str, kind| parse(text, kind).unwrap_err();
        assert!(e("", Kind::Inputs).contains("empty"));
        assert!(e("time,\"x\"\n0,1\n", Kind::Inputs).contains("not double-quoted"));
        assert!(e("\"t\",\"x\"\n0,1\n", Kind::Inputs).contains("first column"));
        assert!(e("\"time\",\"x\",\"x\"\n0,1,2\n", Kind::Inputs).contains("twice"));
        assert!(e("\"time\",\"x\"\n0,1\n1\n", Kind::Inputs).contains("line 3: 1 values"));
        assert!(e("\"time\",\"x\"\n0,abc\n", Kind::Inputs).contains("line 2, column 2 (\"x\")"));
        assert!(e("\"time\",\"x\"\n0,nan\n", Kind::Inputs).contains("finite"));
        assert!(e("\"time\",\"x\"\n", Kind::Inputs).contains("no rows"));
        // A repeated time: a step in the inputs, an error in the reference.
        let step = "\"time\",\"x\"\n0,1\n1,1\n1,2\n";
        assert_eq!(parse(step, Kind::Inputs).unwrap().time, [0.0, 1.0, 1.0]);
        let r = e(step, Kind::Reference);
        assert!(
            r.contains("line 4") && r.contains("on line 3") && r.contains("strictly"),
            "{r}"
        );
    }
}
