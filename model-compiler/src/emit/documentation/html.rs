//! HTML pieces of the documentation page: escaping, numbers, and [`Doc`], the page being
//! written with the model and slots its values come from.

use crate::lower::SlotInfo;
use fmu_runtime::model::{CompiledModel, ParamId};
use std::fmt::Write;

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

pub(super) fn vec3(v: [f64; 3]) -> String {
    format!("[{}, {}, {}]", g(v[0]), g(v[1]), g(v[2]))
}

/// Compact number for tables: fixed notation for ordinary magnitudes, otherwise the
/// shortest exponent form (`7.6e6`).
pub(super) fn g(x: f64) -> String {
    if x == 0.0 || (1e-3..1e6).contains(&x.abs()) {
        let s = format!("{x:.6}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" { "0".into() } else { s.to_string() }
    } else {
        format!("{x:e}")
    }
}

pub(super) struct Doc<'a> {
    pub(super) m: &'a CompiledModel,
    pub(super) slots: &'a [SlotInfo],
    pub(super) out: String,
}

impl Doc<'_> {
    pub(super) fn p(&self, id: ParamId) -> String {
        let v = self.m.params[id.index()].default;
        let unit = self
            .slots
            .get(id.index())
            .map(|s| s.expect.describe_unit())
            .unwrap_or_default();
        match unit.as_str() {
            "1" | "signal" => g(v),
            // Engineering units for reading (the slot table lists the SI values).
            "Pa" => format!("{} bar", g(v * 1e-5)),
            "rad" => format!("{} deg", g(v.to_degrees())),
            "m3/s" => format!("{} L/min", g(v * 6e4)),
            _ => format!("{} {}", g(v), escape(&unit)),
        }
    }

    pub(super) fn body_name(&self, b: Option<usize>) -> String {
        b.map_or("ground".to_string(), |i| {
            self.m.mechanism.bodies[i].name.clone()
        })
    }

    pub(super) fn node_name(&self, n: usize) -> String {
        self.m
            .circuit
            .nodes
            .get(n)
            .map_or("?".to_string(), |n| n.name().to_string())
    }

    pub(super) fn h2(&mut self, title: &str) {
        let _ = writeln!(self.out, "<h2>{}</h2>", escape(title));
    }

    /// A table; a header of empty cells (a key–value table) is left out.
    pub(super) fn table(&mut self, header: &[&str], rows: Vec<Vec<String>>) {
        self.out.push_str("<table>\n");
        if header.iter().any(|h| !h.is_empty()) {
            self.out.push_str("<tr>");
            for h in header {
                let _ = write!(self.out, "<th>{}</th>", escape(h));
            }
            self.out.push_str("</tr>\n");
        }
        for row in rows {
            self.out.push_str("<tr>");
            for cell in row {
                let _ = write!(self.out, "<td>{cell}</td>");
            }
            self.out.push_str("</tr>\n");
        }
        self.out.push_str("</table>\n");
    }
}
