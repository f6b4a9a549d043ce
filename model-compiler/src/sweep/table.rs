//! A sweep's results as a table of named columns, written as CSV or as Apache Parquet (the
//! columnar file pandas, Dask, Polars and DuckDB read directly, typed and compressed): the
//! one-row-per-case summary and the long table of trajectories alike.

use parquet::basic::{Compression, LogicalType, Repetition, Type as Physical};
use parquet::data_type::{ByteArray, ByteArrayType, DoubleType, Int64Type};
use parquet::file::properties::WriterProperties;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::Type;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// One column's values.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    Int(Vec<i64>),
    Real(Vec<f64>),
    Text(Vec<String>),
    /// Texts that are single words (`ok`, `failed`): unquoted in CSV.
    Word(Vec<&'static str>),
}

/// Named columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Values)>,
}

/// Rows per Parquet row group: about 8 MB of a ten-column table of doubles (readers load
/// a row group at a time).
const ROW_GROUP: usize = 100_000;

impl Values {
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Real(v) => v.len(),
            Values::Text(v) => v.len(),
            Values::Word(v) => v.len(),
        }
    }
}

impl Table {
    pub fn push(&mut self, name: impl Into<String>, values: Values) {
        self.columns.push((name.into(), values));
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, v)| v.len())
    }

    /// CSV: quoted names, reals in the shortest text that parses back to the same bits,
    /// texts quoted.
    pub fn to_csv(&self) -> String {
        let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        let mut s = self
            .columns
            .iter()
            .map(|(n, _)| quote(n))
            .collect::<Vec<_>>()
            .join(",");
        s.push('\n');
        for r in 0..self.rows() {
            for (k, (_, v)) in self.columns.iter().enumerate() {
                if k > 0 {
                    s.push(',');
                }
                let _ = match v {
                    Values::Int(v) => write!(s, "{}", v[r]),
                    Values::Real(v) => write!(s, "{:?}", v[r]),
                    Values::Text(v) => write!(s, "{}", quote(&v[r])),
                    Values::Word(v) => write!(s, "{}", v[r]),
                };
            }
            s.push('\n');
        }
        s
    }

    /// Writes `path` as Parquet (Snappy-compressed, required columns: INT64, DOUBLE and
    /// UTF-8 strings).
    pub fn write_parquet(&self, path: &Path) -> Result<(), String> {
        let fail = |e: parquet::errors::ParquetError| format!("{}: {e}", path.display());
        let fields = self
            .columns
            .iter()
            .map(|(name, v)| {
                let (physical, logical) = match v {
                    Values::Int(_) => (Physical::INT64, None),
                    Values::Real(_) => (Physical::DOUBLE, None),
                    Values::Text(_) | Values::Word(_) => {
                        (Physical::BYTE_ARRAY, Some(LogicalType::String))
                    }
                };
                Type::primitive_type_builder(name, physical)
                    .with_repetition(Repetition::REQUIRED)
                    .with_logical_type(logical)
                    .build()
                    .map(Arc::new)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(fail)?;
        let schema = Type::group_type_builder("hydromech")
            .with_fields(fields)
            .build()
            .map_err(fail)?;
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_created_by(format!("hydromech {}", env!("CARGO_PKG_VERSION")))
            .build();
        let file = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut writer =
            SerializedFileWriter::new(file, Arc::new(schema), Arc::new(props)).map_err(fail)?;
        let rows = self.rows();
        let mut start = 0;
        // An empty table still gets its schema (and one empty row group).
        while start < rows || start == 0 {
            let end = (start + ROW_GROUP).min(rows);
            let mut group = writer.next_row_group().map_err(fail)?;
            let mut k = 0;
            while let Some(mut column) = group.next_column().map_err(fail)? {
                let done = match &self.columns[k].1 {
                    Values::Int(v) => {
                        column
                            .typed::<Int64Type>()
                            .write_batch(&v[start..end], None, None)
                    }
                    Values::Real(v) => {
                        column
                            .typed::<DoubleType>()
                            .write_batch(&v[start..end], None, None)
                    }
                    Values::Text(v) => {
                        let bytes: Vec<ByteArray> = v[start..end]
                            .iter()
                            .map(|s| ByteArray::from(s.as_str()))
                            .collect();
                        column
                            .typed::<ByteArrayType>()
                            .write_batch(&bytes, None, None)
                    }
                    Values::Word(v) => {
                        let bytes: Vec<ByteArray> =
                            v[start..end].iter().map(|s| ByteArray::from(*s)).collect();
                        column
                            .typed::<ByteArrayType>()
                            .write_batch(&bytes, None, None)
                    }
                };
                done.map_err(fail)?;
                column.close().map_err(fail)?;
                k += 1;
            }
            group.close().map_err(fail)?;
            if end == rows {
                break;
            }
            start = end;
        }
        writer.close().map_err(fail)?;
        Ok(())
    }

    /// Writes CSV or, for a `.parquet` path, Parquet.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        if is_parquet(path) {
            self.write_parquet(path)
        } else {
            std::fs::write(path, self.to_csv()).map_err(|e| format!("{}: {e}", path.display()))
        }
    }
}

/// A `.parquet` (or `.pq`) file name.
pub fn is_parquet(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("pq"))
}
