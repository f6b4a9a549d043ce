//! Reference data of a model page: the `[report]` CSV files, read and checked.

use crate::diagnostic::Diagnostic;
use crate::lower::report::{CsvColumn, InputSource, ReportSpec};
use crate::simulate::InputSeries;
use crate::simulate::unquote;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A numeric CSV file: header names and columns (empty cells are NaN).
#[derive(Clone, Debug, Default)]
pub struct Csv {
    pub names: Vec<String>,
    pub columns: Vec<Vec<f64>>,
}

/// Parses a CSV file with a header row (comment lines `#` and blank lines are skipped).
pub fn parse_csv(text: &str) -> Result<Csv, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let (_, header) = lines.next().ok_or("the file is empty")?;
    let names: Vec<String> = header.split(',').map(unquote).collect();
    let mut columns = vec![Vec::new(); names.len()];
    for (k, line) in lines {
        let cells: Vec<&str> = line.split(',').collect();
        if cells.len() != names.len() {
            return Err(format!(
                "line {}: {} values, expected {} (one per header column)",
                k + 1,
                cells.len(),
                names.len()
            ));
        }
        for (c, cell) in cells.iter().enumerate() {
            let t = unquote(cell);
            let v = if t.is_empty() {
                f64::NAN
            } else {
                t.parse::<f64>()
                    .map_err(|_| format!("line {}: '{t}' is not a number", k + 1))?
            };
            columns[c].push(v);
        }
    }
    if columns.first().is_none_or(|c| c.is_empty()) {
        return Err("the file has a header but no rows".into());
    }
    Ok(Csv { names, columns })
}

/// CSV files of a report, read once each, relative to the description's directory.
pub(super) struct CsvFiles {
    base: PathBuf,
    files: HashMap<String, Result<Arc<Csv>, String>>,
}

impl CsvFiles {
    fn new(description: &Path) -> CsvFiles {
        CsvFiles {
            base: description
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            files: HashMap::new(),
        }
    }

    /// `(time, values × factor)` of a column, or the error at its position.
    fn column(&mut self, c: &CsvColumn) -> Result<(Vec<f64>, Vec<f64>), Diagnostic> {
        let path = self.base.join(&c.file);
        let csv = self
            .files
            .entry(c.file.clone())
            .or_insert_with(|| {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
                parse_csv(&text)
                    .map(Arc::new)
                    .map_err(|e| format!("'{}': {e}", path.display()))
            })
            .clone()
            .map_err(|e| {
                Diagnostic::at(
                    c.file_span.clone(),
                    e,
                    "give the CSV file relative to the description file",
                )
            })?;
        let find = |name: &str, span: &std::ops::Range<usize>| {
            csv.names.iter().position(|n| n == name).ok_or_else(|| {
                let help = match crate::names::closest(name, csv.names.iter().map(String::as_str)) {
                    Some(s) => format!("did you mean '{s}'?"),
                    None => format!("the columns are: {}", csv.names.join(", ")),
                };
                Diagnostic::at(
                    span.clone(),
                    format!("'{}' has no column '{name}'", c.file),
                    help,
                )
            })
        };
        let t = match &c.time {
            Some((name, span)) => find(name, span)?,
            None => 0,
        };
        let k = find(&c.column, &c.column_span)?;
        let time = csv.columns[t].clone();
        if let Some(i) = (1..time.len()).find(|&i| time[i].is_nan() || time[i] < time[i - 1]) {
            let span = c.time.as_ref().map_or(c.file_span.clone(), |t| t.1.clone());
            return Err(Diagnostic::at(
                span,
                format!(
                    "the time column '{}' of '{}' is not increasing (data row {})",
                    csv.names[t],
                    c.file,
                    i + 1
                ),
                "give the time column with time = \"...\" (the default is the first column)",
            ));
        }
        let values = csv.columns[k].iter().map(|v| v * c.factor).collect();
        Ok((time, values))
    }
}

/// The CSV data of a report: the manoeuvre's input series and the reference curves
/// (per plot, per reference: time and values in the plot's unit).
pub struct Loaded {
    pub inputs: Vec<InputSeries>,
    pub references: Vec<Vec<(Vec<f64>, Vec<f64>)>>,
}

/// Reads and checks the CSV columns of a report (errors point into the description).
pub fn load(spec: &ReportSpec, description: &Path) -> Result<Loaded, Vec<Diagnostic>> {
    let mut files = CsvFiles::new(description);
    let mut errors = Vec::new();
    let mut inputs = Vec::new();
    for i in &spec.inputs {
        let (time, values) = match &i.source {
            InputSource::Schedule(points) => (
                points.iter().map(|p| p.0).collect(),
                points.iter().map(|p| p.1).collect(),
            ),
            InputSource::Csv(c) => match files.column(c) {
                Ok(x) => x,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            },
        };
        let (time, values): (Vec<f64>, Vec<Vec<f64>>) = time
            .into_iter()
            .zip(values)
            .filter(|(_, v): &(f64, f64)| v.is_finite())
            .map(|(t, v)| (t, vec![v]))
            .unzip();
        if time.is_empty() {
            continue;
        }
        inputs.push(InputSeries {
            names: vec![i.name.clone()],
            time,
            values,
        });
    }
    let mut references = Vec::new();
    for p in &spec.plots {
        let mut curves = Vec::new();
        for r in &p.references {
            match files.column(&r.column) {
                Ok((t, v)) => curves.push((t, v.iter().map(|x| x / p.factor).collect())),
                Err(e) => errors.push(e),
            }
        }
        references.push(curves);
    }
    if errors.is_empty() {
        Ok(Loaded { inputs, references })
    } else {
        Err(errors)
    }
}
