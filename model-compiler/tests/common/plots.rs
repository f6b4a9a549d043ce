//! Figures of the documentation drawn from a test's own run: time series recorded while
//! the test steps, written as SVG line plots (`model_compiler::report::plot`) into the
//! directory `HYDROMECH_PLOTS` names. Without it nothing is recorded.

use model_compiler::report::plot::{Series, line_plot};

/// One figure: curves over a shared time axis.
pub struct Figure {
    file: String,
    title: String,
    y_label: String,
    time: Vec<f64>,
    curves: Vec<Series>,
}

impl Figure {
    /// `curves`: label, colour index, and whether it is a reference (drawn wide and light
    /// under the others: a measurement, a ±2σ bound). `None` unless `HYDROMECH_PLOTS` is set.
    pub fn new(
        file: &str,
        title: &str,
        y_label: &str,
        curves: &[(&str, usize, bool)],
    ) -> Option<Figure> {
        std::env::var_os("HYDROMECH_PLOTS")?;
        Some(Figure {
            file: file.into(),
            title: title.into(),
            y_label: y_label.into(),
            time: Vec::new(),
            curves: curves
                .iter()
                .map(|&(label, colour, reference)| Series {
                    label: label.into(),
                    time: Vec::new(),
                    values: Vec::new(),
                    colour,
                    reference,
                })
                .collect(),
        })
    }

    /// One sample of every curve, in the order given to [`Figure::new`].
    pub fn push(&mut self, t: f64, values: &[f64]) {
        assert_eq!(values.len(), self.curves.len());
        self.time.push(t);
        for (c, &v) in self.curves.iter_mut().zip(values) {
            c.values.push(v);
        }
    }

    /// Writes `<HYDROMECH_PLOTS>/<file>`.
    pub fn write(mut self) {
        let Some(dir) = std::env::var_os("HYDROMECH_PLOTS") else {
            return;
        };
        for c in &mut self.curves {
            c.time = self.time.clone();
        }
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(&self.file);
        std::fs::write(&path, line_plot(&self.title, &self.y_label, &self.curves)).unwrap();
        println!("wrote {}", path.display());
    }
}
