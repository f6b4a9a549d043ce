//! The PVG32 lift experiment's measurement (`tests/data/patu-crane/
//! patu_pvg32_lift_measured_27s_5ms.csv`; note shared/reference/patu-crane.md §8.1): the
//! measured inputs (valve voltages U1, U2, supply and tank pressures) and responses.

/// The measured signals, on the file's 5 ms grid.
pub struct Measurement {
    pub t: Vec<f64>,
    pub u1: Vec<f64>,
    pub u2: Vec<f64>,
    pub pp: Vec<f64>,
    pub pt: Vec<f64>,
    pub z1: Vec<f64>,
    pub z2: Vec<f64>,
    pub s1: Vec<f64>,
    pub s2: Vec<f64>,
    pub p: [Vec<f64>; 4],
}

pub fn load_measurement() -> Measurement {
    let path =
        super::workspace().join("tests/data/patu-crane/patu_pvg32_lift_measured_27s_5ms.csv");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("measurement {} cannot be read: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.trim().parse().unwrap()).collect())
        .collect();
    let get = |name: &str| -> Vec<f64> {
        let c = col(name);
        rows.iter().map(|r| r[c]).collect()
    };
    Measurement {
        t: get("t_s"),
        u1: get("U1_V"),
        u2: get("U2_V"),
        pp: get("pP_Pa"),
        pt: get("pT_Pa"),
        z1: get("z1_deg"),
        z2: get("z2abs_deg"),
        s1: get("s1_m"),
        s2: get("s2_m"),
        p: [get("p1_Pa"), get("p2_Pa"), get("p3_Pa"), get("p4_Pa")],
    }
}

/// Linear interpolation of `y(t)` on the measurement grid (clamped at the ends).
pub fn interp(t: &[f64], y: &[f64], x: f64) -> f64 {
    let k = t.partition_point(|&ti| ti <= x);
    if k == 0 {
        return y[0];
    }
    if k >= t.len() {
        return y[t.len() - 1];
    }
    let (t0, t1) = (t[k - 1], t[k]);
    y[k - 1] + (y[k] - y[k - 1]) * (x - t0) / (t1 - t0)
}
