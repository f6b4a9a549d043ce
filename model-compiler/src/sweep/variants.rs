//! Swept fields of the description (`--param lift_cylinder.bore=90..110mm:5` on a
//! `.toml`): design variants that no FMU parameter reaches — a bore, an attachment point,
//! a valve's flow table. Each case compiles the edited description into a model file of
//! the FMU's GUID and runs it through the same loaded FMU, instantiated with that file as
//! its resources: the same C ABI run as every other case, one binary. A variant whose
//! interface differs from the FMU's (its variables) is refused.

use crate::fit::field::{Document, Field};
use fmu_runtime::model::{CompiledModel, Variable, file};
use std::path::{Path, PathBuf};

/// The description the FMU was built from, and where case variants are written.
#[derive(Debug)]
pub struct Variants {
    pub doc: Document,
    /// The FMU's GUID and variables (the unmodified description compiled).
    guid: String,
    interface: Vec<(String, u32, String)>,
    dir: PathBuf,
}

/// A variable's identity as an importer binds it: name, value reference, causality.
fn identity(vars: &[Variable]) -> Vec<(String, u32, String)> {
    vars.iter()
        .map(|v| {
            (
                v.name.clone(),
                v.value_reference,
                format!("{:?}{:?}{:?}", v.causality, v.variability, v.var_type),
            )
        })
        .collect()
}

impl Variants {
    /// `doc` compiled as given must be the FMU's model (`guid`).
    pub fn new(doc: Document, guid: &str) -> Result<Variants, String> {
        let base = doc.compile()?;
        if base.guid != guid {
            return Err(format!(
                "{}: the FMU was not built from this description (GUID {} vs {guid})",
                doc.file, base.guid
            ));
        }
        let dir = std::env::temp_dir().join(format!(
            "hydromech-variants-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        Ok(Variants {
            doc,
            guid: guid.to_string(),
            interface: identity(&base.variables),
            dir,
        })
    }

    /// The field named `name`, or why not.
    pub fn field(&self, name: &str) -> Result<Field, String> {
        self.doc.field(name)
    }

    /// The model of the description with `values` in `fields`, checked to keep the FMU's
    /// interface, under the FMU's GUID.
    pub fn model(&self, fields: &[Field], values: &[f64]) -> Result<CompiledModel, String> {
        let mut doc = self.doc.clone();
        for (f, v) in fields.iter().zip(values) {
            doc.set(f, *v);
        }
        let mut model = doc.compile()?;
        if identity(&model.variables) != self.interface {
            return Err("this variant changes the FMU's variables; sweep it as its own FMU".into());
        }
        model.guid = self.guid.clone();
        Ok(model)
    }

    /// Writes case `k`'s model file; returns its resources folder.
    pub fn write(&self, k: usize, model: &CompiledModel) -> Result<PathBuf, String> {
        let resources = self.dir.join(format!("case-{k}")).join("resources");
        std::fs::create_dir_all(&resources).map_err(|e| format!("{}: {e}", resources.display()))?;
        let path = resources.join(file::FILE_NAME);
        std::fs::write(&path, file::encode(model))
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(resources)
    }

    /// Removes case `k`'s folder.
    pub fn remove(&self, resources: &Path) {
        if let Some(case) = resources.parent() {
            std::fs::remove_dir_all(case).ok();
        }
    }
}

impl Drop for Variants {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.dir).ok();
    }
}
