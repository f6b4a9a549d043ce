//! `[report]`: the standard manoeuvre and the plots of `hydromech report` (documentation
//! only; the FMU does not depend on it).

use super::{Located, Name, Quantity};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::collections::BTreeMap;
use std::fmt;
use toml::Spanned;

/// `[report]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportDesc {
    /// Default: `[experiment] stop_time`.
    pub stop_time: Option<Quantity>,
    /// Communication step of the run; default: `[experiment] step_size`.
    pub step: Option<Quantity>,
    /// Drawing plane: two world axes, horizontal then vertical (`"xy"`, `"xz"`, ...).
    pub view: Option<Name>,
    /// FMI input name → schedule `[[t, value], ...]` or a CSV column.
    #[serde(default)]
    pub inputs: BTreeMap<Name, Located<SignalSourceDesc>>,
    /// FMI parameter (or input) name → value set before initialization.
    #[serde(default)]
    pub parameters: BTreeMap<Name, Quantity>,
    #[serde(default)]
    pub plots: Vec<Located<PlotDesc>>,
}

/// Where an input of the manoeuvre comes from.
#[derive(Clone, Debug)]
pub enum SignalSourceDesc {
    /// Piecewise linear `[[t, value], ...]`; a repeated time is a step.
    Schedule(Vec<Spanned<[Quantity; 2]>>),
    Csv(CsvInputDesc),
}

impl<'de> Deserialize<'de> for SignalSourceDesc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SignalSourceDesc;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(
                    "a schedule [[t, value], ...] or a CSV column { csv = \"...\", column = \"...\" }",
                )
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Vec::deserialize(de::value::SeqAccessDeserializer::new(seq))
                    .map(SignalSourceDesc::Schedule)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                CsvInputDesc::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(SignalSourceDesc::Csv)
            }
        }
        d.deserialize_any(V)
    }
}

/// An input read from a CSV column (path relative to the description file).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CsvInputDesc {
    pub csv: Name,
    /// Time column [s]; default: the first column.
    pub time: Option<Name>,
    pub column: Name,
    /// Multiplies the column (default 1).
    pub scale: Option<Quantity>,
    /// Unit of the (scaled) column; default: the input's SI unit.
    pub unit: Option<Name>,
}

/// `[[report.plots]]`: one panel, several signals sharing a y axis.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotDesc {
    pub title: Option<String>,
    pub signals: Spanned<Vec<Name>>,
    /// Display unit of the y axis (`"deg"`, `"bar"`, `"mm"`, `"L/min"`); default SI.
    pub unit: Option<Name>,
    #[serde(default)]
    pub references: Vec<Located<ReferenceDesc>>,
}

/// A reference curve from a CSV column, overlaid on a plot and compared with a signal.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReferenceDesc {
    pub csv: Name,
    /// Time column [s]; default: the first column.
    pub time: Option<Name>,
    pub column: Name,
    /// Legend text; default: the column name.
    pub label: Option<String>,
    /// The plotted signal it is compared with; default: the plot's only signal.
    pub signal: Option<Name>,
    /// Multiplies the column (default 1).
    pub scale: Option<Quantity>,
    /// Unit of the (scaled) column; default: the plot's unit.
    pub unit: Option<Name>,
}
