//! Numeric fields of a machine description addressed by path, read and written in the
//! TOML text itself (`toml_edit` keeps every comment and the layout, so a fitted file
//! differs from its source only in the fitted values).
//!
//! A path starts at a component (`lift_cylinder.friction.coulomb`, `payload.parts[0].mass`,
//! `lift_valve.edges.BT.coefficient[0][1]`, `lift_cylinder.rod.point[1]`) or at a table
//! of the file (`hydraulics.oil.bulk_modulus`); `[i]` indexes arrays from 0. A value
//! written with a unit (`"2.5 kN"`) is read in SI and written back in its own unit.
//!
//! ```
//! use model_compiler::fit::field::Document;
//! let mut d = Document::parse("m.toml", "[[bodies]]\nname = \"boom\"\nmass = \"2 t\"\n").unwrap();
//! let f = d.field("boom.mass").unwrap();
//! assert_eq!(d.get(&f), 2000.0);
//! d.set(&f, 2500.0);
//! assert!(d.text().contains("mass = \"2.5 t\""));
//! ```

use crate::names;
use crate::units::{parse_quantity, split_number};
use toml_edit::{DocumentMut, Item, Value};

/// A description's text, editable field by field.
#[derive(Clone, Debug)]
pub struct Document {
    pub file: String,
    doc: DocumentMut,
}

/// One numeric field: where it is and the unit it is written in.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The path as the user wrote it.
    pub name: String,
    /// From the file's root: keys and array indices.
    steps: Vec<Step>,
    /// The written unit (`kN`) and its SI factor; `None` for a plain number.
    pub unit: Option<(String, f64)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Key(String),
    Index(usize),
}

impl Document {
    pub fn parse(file: &str, text: &str) -> Result<Document, String> {
        let doc = text
            .parse::<DocumentMut>()
            .map_err(|e| format!("{file}: {e}"))?;
        Ok(Document {
            file: file.to_string(),
            doc,
        })
    }

    pub fn text(&self) -> String {
        self.doc.to_string()
    }

    /// The field at `name`, or why there is none (with the closest existing path).
    pub fn field(&self, name: &str) -> Result<Field, String> {
        let steps = parse_path(name)?;
        let candidates = self.numeric_fields();
        let unknown = || {
            // An FMU parameter derived from several fields (`payload.mass` from its parts)
            // is not a field: name the component's fields.
            let component = name.split(['.', '[']).next().unwrap_or(name);
            let own: Vec<&str> = candidates
                .iter()
                .map(|(n, _)| n.as_str())
                .filter(|n| n.starts_with(&format!("{component}.")))
                .collect();
            let listed = || {
                let more = if own.len() > 8 { ", ..." } else { "" };
                format!(
                    "; the numeric fields of '{component}': {}{more}",
                    own[..own.len().min(8)].join(", ")
                )
            };
            let hint = names::closest(name, candidates.iter().map(|(n, _)| n.as_str()))
                .map(|c| format!("; did you mean '{c}'?"))
                .or_else(|| (!own.is_empty()).then(listed))
                .unwrap_or_else(|| {
                    "; a path starts at a component's name or a table, e.g. \
                     'lift_cylinder.friction.coulomb' or 'hydraulics.oil.bulk_modulus'"
                        .into()
                });
            format!("'{name}' is not a numeric field of {}{hint}", self.file)
        };
        let (_, root) = candidates
            .iter()
            .find(|(n, _)| n == name)
            .or_else(|| {
                // The same field spelled with the file's table path (`hydraulics.oil...`).
                candidates.iter().find(|(_, r)| *r == steps)
            })
            .ok_or_else(unknown)?;
        let value = lookup(self.doc.as_item(), root).ok_or_else(unknown)?;
        let unit = match value {
            Value::String(s) => {
                let text = s.value();
                let (_, unit) = parse_quantity(text).map_err(|e| format!("{name}: {e}"))?;
                let (_, symbol) = split_number(text).map_err(|e| format!("{name}: {e}"))?;
                (!symbol.is_empty()).then(|| (symbol.to_string(), unit.factor))
            }
            _ => None,
        };
        Ok(Field {
            name: name.to_string(),
            steps: root.clone(),
            unit,
        })
    }

    /// The field's value in SI.
    pub fn get(&self, f: &Field) -> f64 {
        match lookup(self.doc.as_item(), &f.steps) {
            Some(v) => numeric(v).unwrap_or(f64::NAN),
            None => f64::NAN,
        }
    }

    /// Writes `si` into the field, in the field's unit, to 7 significant digits.
    pub fn set(&mut self, f: &Field, si: f64) {
        let Some(slot) = lookup_mut(self.doc.as_item_mut(), &f.steps) else {
            return;
        };
        let decor = slot.decor().clone();
        let mut new = match &f.unit {
            Some((symbol, factor)) => Value::from(format!("{} {symbol}", significant(si / factor))),
            None => Value::from(significant(si)),
        };
        *new.decor_mut() = decor;
        *slot = new;
    }

    /// Sets a top-level string such as `model.name`.
    pub fn set_string(&mut self, table: &str, key: &str, value: &str) {
        let slot = self
            .doc
            .get_mut(table)
            .and_then(Item::as_table_like_mut)
            .and_then(|t| t.get_mut(key))
            .and_then(Item::as_value_mut);
        if let Some(v) = slot {
            let decor = v.decor().clone();
            *v = Value::from(value);
            *v.decor_mut() = decor;
        }
    }

    /// Puts a comment line above the line that holds the field (the key of its table;
    /// a field inside an inline table or array is annotated on its key's line).
    pub fn annotate(&mut self, f: &Field, comment: &str) {
        annotate(self.doc.as_item_mut(), &f.steps, comment);
    }

    /// The description compiled (its diagnostics rendered, located in this file).
    pub fn compile(&self) -> Result<fmu_runtime::model::CompiledModel, String> {
        let source = crate::diagnostic::Source::new(&self.file, self.text());
        crate::compile(&source).map(|l| l.model).map_err(|ds| {
            ds.iter()
                .map(|d| source.render(d))
                .collect::<Vec<_>>()
                .join("\n")
        })
    }

    /// A string such as `model.description`.
    pub fn get_string(&self, table: &str, key: &str) -> Option<String> {
        self.doc.get(table)?.get(key)?.as_str().map(str::to_string)
    }

    /// Prepends comment lines to the file.
    pub fn prepend_comment(&mut self, lines: &[String]) {
        let mut head: String = lines.iter().map(|l| format!("# {l}\n")).collect();
        head.push_str("#\n");
        let old = self
            .doc
            .decor()
            .prefix()
            .and_then(|p| p.as_str())
            .unwrap_or("")
            .to_string();
        self.doc.decor_mut().set_prefix(head + &old);
    }

    /// Every numeric leaf (a number or a quantity string), named from its component when it
    /// sits in a named `[[...]]` entry and from the root otherwise, with its root steps.
    pub fn numeric_fields(&self) -> Vec<(String, Vec<Step>)> {
        let mut out = Vec::new();
        walk(self.doc.as_item(), &mut Vec::new(), None, &mut out);
        out
    }
}

/// Rounds to 7 significant digits (fitted values carry no more).
pub(crate) fn significant(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let text = format!("{v:.6e}");
    text.parse().unwrap_or(v)
}

fn numeric(v: &Value) -> Option<f64> {
    match v {
        Value::Float(f) => Some(*f.value()),
        Value::Integer(i) => Some(*i.value() as f64),
        Value::String(s) => parse_quantity(s.value()).ok().map(|(v, _)| v),
        _ => None,
    }
}

fn parse_path(name: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    for part in name.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if key.is_empty() {
            return Err(format!("'{name}': an empty key in the path"));
        }
        steps.push(Step::Key(key.to_string()));
        while let Some(r) = rest.strip_prefix('[') {
            let (index, after) = r
                .split_once(']')
                .ok_or_else(|| format!("'{name}': a '[' without its ']'"))?;
            let i = index
                .trim()
                .parse()
                .map_err(|_| format!("'{name}': '[{index}]' is not an index (0, 1, ...)"))?;
            steps.push(Step::Index(i));
            rest = after;
        }
        if !rest.is_empty() {
            return Err(format!("'{name}': unexpected '{rest}'"));
        }
    }
    Ok(steps)
}

fn annotate(item: &mut Item, steps: &[Step], comment: &str) {
    match (item, steps) {
        (Item::Table(t), [Step::Key(k), rest @ ..]) => {
            let is_value = t.get(k).is_some_and(Item::is_value);
            if is_value {
                if let Some(mut key) = t.key_mut(k) {
                    let decor = key.leaf_decor_mut();
                    let old = decor
                        .prefix()
                        .and_then(|p| p.as_str())
                        .unwrap_or("")
                        .to_string();
                    decor.set_prefix(format!("{old}# {comment}\n"));
                }
            } else if let Some(next) = t.get_mut(k) {
                annotate(next, rest, comment);
            }
        }
        (Item::ArrayOfTables(a), [Step::Index(i), rest @ ..]) => {
            if let Some(t) = a.get_mut(*i) {
                let mut item = Item::Table(std::mem::take(t));
                annotate(&mut item, rest, comment);
                if let Item::Table(back) = item {
                    *t = back;
                }
            }
        }
        _ => {}
    }
}

fn lookup<'a>(item: &'a Item, steps: &[Step]) -> Option<&'a Value> {
    let Some((first, rest)) = steps.split_first() else {
        return item.as_value();
    };
    match (item, first) {
        (Item::Table(t), Step::Key(k)) => lookup(t.get(k)?, rest),
        (Item::ArrayOfTables(a), Step::Index(i)) => lookup_table(a.get(*i)?, rest),
        (Item::Value(v), _) => lookup_value(v, steps),
        _ => None,
    }
}

fn lookup_table<'a>(t: &'a toml_edit::Table, steps: &[Step]) -> Option<&'a Value> {
    match steps.split_first()? {
        (Step::Key(k), rest) => lookup(t.get(k)?, rest),
        _ => None,
    }
}

fn lookup_value<'a>(v: &'a Value, steps: &[Step]) -> Option<&'a Value> {
    let Some((first, rest)) = steps.split_first() else {
        return Some(v);
    };
    match (v, first) {
        (Value::InlineTable(t), Step::Key(k)) => lookup_value(t.get(k)?, rest),
        (Value::Array(a), Step::Index(i)) => lookup_value(a.get(*i)?, rest),
        _ => None,
    }
}

fn lookup_mut<'a>(item: &'a mut Item, steps: &[Step]) -> Option<&'a mut Value> {
    let Some((first, rest)) = steps.split_first() else {
        return item.as_value_mut();
    };
    match (item, first) {
        (Item::Table(t), Step::Key(k)) => lookup_mut(t.get_mut(k)?, rest),
        (Item::ArrayOfTables(a), Step::Index(i)) => match rest.split_first()? {
            (Step::Key(k), rest) => lookup_mut(a.get_mut(*i)?.get_mut(k)?, rest),
            _ => None,
        },
        (Item::Value(v), _) => lookup_value_mut(v, steps),
        _ => None,
    }
}

fn lookup_value_mut<'a>(v: &'a mut Value, steps: &[Step]) -> Option<&'a mut Value> {
    let Some((first, rest)) = steps.split_first() else {
        return Some(v);
    };
    match (v, first) {
        (Value::InlineTable(t), Step::Key(k)) => lookup_value_mut(t.get_mut(k)?, rest),
        (Value::Array(a), Step::Index(i)) => lookup_value_mut(a.get_mut(*i)?, rest),
        _ => None,
    }
}

/// Collects numeric leaves. `named` is the display path of the innermost named entry.
fn walk(
    item: &Item,
    root: &mut Vec<Step>,
    named: Option<String>,
    out: &mut Vec<(String, Vec<Step>)>,
) {
    match item {
        Item::Table(t) => {
            for (k, v) in t.iter() {
                root.push(Step::Key(k.to_string()));
                walk(v, root, named.as_ref().map(|n| format!("{n}.{k}")), out);
                root.pop();
            }
        }
        Item::ArrayOfTables(a) => {
            for (i, t) in a.iter().enumerate() {
                root.push(Step::Index(i));
                let name = t
                    .get("name")
                    .and_then(Item::as_str)
                    .map(str::to_string)
                    .or_else(|| named.as_ref().map(|n| format!("{n}[{i}]")));
                walk_table(t, root, name, out);
                root.pop();
            }
        }
        Item::Value(v) => walk_value(v, root, named, out),
        Item::None => {}
    }
}

fn walk_table(
    t: &toml_edit::Table,
    root: &mut Vec<Step>,
    named: Option<String>,
    out: &mut Vec<(String, Vec<Step>)>,
) {
    for (k, v) in t.iter() {
        root.push(Step::Key(k.to_string()));
        walk(v, root, named.as_ref().map(|n| format!("{n}.{k}")), out);
        root.pop();
    }
}

fn walk_value(
    v: &Value,
    root: &mut Vec<Step>,
    named: Option<String>,
    out: &mut Vec<(String, Vec<Step>)>,
) {
    match v {
        Value::InlineTable(t) => {
            for (k, x) in t.iter() {
                root.push(Step::Key(k.to_string()));
                walk_value(x, root, named.as_ref().map(|n| format!("{n}.{k}")), out);
                root.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                root.push(Step::Index(i));
                walk_value(x, root, named.as_ref().map(|n| format!("{n}[{i}]")), out);
                root.pop();
            }
        }
        _ if numeric(v).is_some() => {
            let display = named.unwrap_or_else(|| display_root(root));
            out.push((display, root.clone()));
        }
        _ => {}
    }
}

fn display_root(root: &[Step]) -> String {
    let mut s = String::new();
    for step in root {
        match step {
            Step::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Step::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}
