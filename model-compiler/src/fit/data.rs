//! The measurement a fit follows: a CSV table (a header row of column names, numbers
//! below, one column of times), the measured channels mapped to model outputs and the
//! measured inputs mapped to model inputs, each with the unit its column is written in.
//!
//! `--map lift.angle=z1_deg[deg]`: the model output `lift.angle` (SI: rad) against the
//! column `z1_deg`, whose numbers are degrees; without `[unit]` a column is SI.

use crate::names;
use crate::simulate::{InputSeries, data_lines, unquote};
use crate::units::parse_unit;

/// A measured table.
#[derive(Clone, Debug)]
pub struct Table {
    pub file: String,
    pub columns: Vec<String>,
    /// `rows[row][column]`.
    pub rows: Vec<Vec<f64>>,
}

/// `NAME=COLUMN[unit]`: a model variable and the column that measures (or drives) it.
#[derive(Clone, Debug, PartialEq)]
pub struct Mapping {
    pub variable: String,
    pub column: String,
    /// The column's unit as written (`deg`), if any.
    pub unit: Option<String>,
    /// SI per column unit.
    pub factor: f64,
}

impl Mapping {
    pub fn parse(flag: &str, arg: &str) -> Result<Mapping, String> {
        let what = format!("{flag} {arg}");
        let (variable, column) = arg
            .split_once('=')
            .ok_or_else(|| format!("{what}: expected NAME=COLUMN or NAME=COLUMN[unit]"))?;
        let (column, factor): (&str, Option<(String, f64)>) = match column.trim().strip_suffix(']')
        {
            Some(c) => {
                let (column, unit) = c
                    .split_once('[')
                    .ok_or_else(|| format!("{what}: a ']' without its '['"))?;
                let factor = parse_unit(unit).map_err(|e| format!("{what}: {e}"))?.factor;
                (column, Some((unit.trim().to_string(), factor)))
            }
            None => (column, None),
        };
        let (variable, column) = (variable.trim(), column.trim());
        if variable.is_empty() || column.is_empty() {
            return Err(format!("{what}: expected NAME=COLUMN"));
        }
        Ok(Mapping {
            variable: variable.to_string(),
            column: column.to_string(),
            factor: factor.as_ref().map_or(1.0, |u| u.1),
            unit: factor.map(|u| u.0),
        })
    }
}

impl Table {
    pub fn parse(file: &str, text: &str) -> Result<Table, String> {
        let mut lines = data_lines(text);
        let (_, header) = lines
            .next()
            .ok_or_else(|| format!("{file}: empty; expected a header row of column names"))?;
        let columns: Vec<String> = header.split(',').map(unquote).collect();
        let mut rows = Vec::new();
        for (k, line) in lines {
            let cells: Vec<&str> = line.split(',').collect();
            if cells.len() != columns.len() {
                return Err(format!(
                    "{file}:{}: {} values, the header has {} columns",
                    k + 1,
                    cells.len(),
                    columns.len()
                ));
            }
            let row = cells
                .iter()
                .map(|c| {
                    unquote(c)
                        .parse::<f64>()
                        .ok()
                        .filter(|v| v.is_finite())
                        .ok_or_else(|| {
                            format!("{file}:{}: '{}' is not a finite number", k + 1, c.trim())
                        })
                })
                .collect::<Result<Vec<f64>, String>>()?;
            rows.push(row);
        }
        if rows.len() < 2 {
            return Err(format!("{file}: fewer than two rows of data"));
        }
        Ok(Table {
            file: file.to_string(),
            columns,
            rows,
        })
    }

    /// The index of `column`, or an error naming the closest column.
    pub fn column(&self, column: &str, what: &str) -> Result<usize, String> {
        self.columns
            .iter()
            .position(|c| c == column)
            .ok_or_else(|| {
                let hint = names::closest(column, self.columns.iter().map(String::as_str))
                    .map(|c| format!("did you mean '{c}'? "))
                    .unwrap_or_default();
                format!(
                    "{what}: {} has no column '{column}'; {hint}its columns: {}",
                    self.file,
                    self.columns.join(", ")
                )
            })
    }

    /// The values of one column in SI.
    pub fn series(&self, m: &Mapping, what: &str) -> Result<Vec<f64>, String> {
        let c = self.column(&m.column, what)?;
        Ok(self.rows.iter().map(|r| r[c] * m.factor).collect())
    }

    /// The times of column `time`, checked to increase strictly.
    pub fn times(&self, time: &str) -> Result<Vec<f64>, String> {
        let c = self.column(time, "--time")?;
        let t: Vec<f64> = self.rows.iter().map(|r| r[c]).collect();
        if let Some(k) = t.windows(2).position(|w| w[1] <= w[0]) {
            return Err(format!(
                "{}: the time column '{time}' does not increase at row {} ({} then {}); \
                 sort the file or name the time column with --time",
                self.file,
                k + 2,
                t[k],
                t[k + 1]
            ));
        }
        Ok(t)
    }

    /// The mapped input columns as an input schedule (interpolated as FMPy does).
    pub fn inputs(&self, time: &[f64], inputs: &[Mapping]) -> Result<InputSeries, String> {
        let cols = inputs
            .iter()
            .map(|m| self.series(m, &format!("--input {}", m.variable)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(InputSeries {
            names: inputs.iter().map(|m| m.variable.clone()).collect(),
            time: time.to_vec(),
            values: (0..time.len())
                .map(|r| cols.iter().map(|c| c[r]).collect())
                .collect(),
        })
    }
}
