//! `<Model>_ref.opt`: the settings that reproduce a cross-check reference, one `Key, value`
//! per line (`StartTime`, `StopTime`, `StepSize`, `RelTol`), read and checked as FMPy's
//! `read_ref_opt_file` does, with the line of every fault.

/// The experiment of a reference result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefOpt {
    pub start_time: f64,
    pub stop_time: f64,
    /// Communication step size [s].
    pub step_size: f64,
    pub rel_tol: f64,
}

impl RefOpt {
    pub fn write(&self) -> String {
        format!(
            "StartTime, {:?}\nStopTime, {:?}\nStepSize, {:?}\nRelTol, {:?}\n",
            self.start_time, self.stop_time, self.step_size, self.rel_tol
        )
    }

    /// Parses the file; an error names the line or the missing key.
    pub fn parse(text: &str) -> Result<RefOpt, String> {
        const KEYS: [&str; 4] = ["StartTime", "StopTime", "StepSize", "RelTol"];
        let mut values: [Option<(f64, usize)>; 4] = [None; 4];
        for (k, line) in text.lines().enumerate() {
            let number = k + 1;
            if line.trim().is_empty() {
                continue;
            }
            let Some((key, value)) = line.split_once(',') else {
                return Err(format!(
                    "line {number}: `{}` is not `Key, value`",
                    line.trim()
                ));
            };
            let (key, value) = (key.trim(), value.trim());
            let Some(i) = KEYS.iter().position(|k| *k == key) else {
                return Err(format!(
                    "line {number}: unknown key `{key}`; the keys are {}",
                    KEYS.join(", ")
                ));
            };
            let v: f64 = value
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite())
                .ok_or_else(|| format!("line {number}: {key} `{value}` is not a finite number"))?;
            if let Some((_, first)) = values[i] {
                return Err(format!(
                    "line {number}: {key} given again (first on line {first})"
                ));
            }
            values[i] = Some((v, number));
        }
        let get = |i: usize| {
            values[i]
                .ok_or_else(|| format!("`{}` is missing (line `{}, <value>`)", KEYS[i], KEYS[i]))
        };
        let ((start_time, _), (stop_time, stop_line), (step_size, step_line), (rel_tol, tol_line)) =
            (get(0)?, get(1)?, get(2)?, get(3)?);
        if stop_time <= start_time {
            return Err(format!(
                "line {stop_line}: StopTime {stop_time} must be after StartTime {start_time}"
            ));
        }
        if !(step_size > 0.0 && step_size <= stop_time - start_time) {
            return Err(format!(
                "line {step_line}: StepSize {step_size} must be > 0 and at most StopTime - StartTime"
            ));
        }
        if rel_tol <= 0.0 {
            return Err(format!("line {tol_line}: RelTol {rel_tol} must be > 0"));
        }
        Ok(RefOpt {
            start_time,
            stop_time,
            step_size,
            rel_tol,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_faults_with_their_lines() {
        let o = RefOpt {
            start_time: 0.0,
            stop_time: 12.0,
            step_size: 0.016,
            rel_tol: 1e-4,
        };
        assert_eq!(
            o.write(),
            "StartTime, 0.0\nStopTime, 12.0\nStepSize, 0.016\nRelTol, 0.0001\n"
        );
        assert_eq!(RefOpt::parse(&o.write()), Ok(o));
        let e = |t: &str| RefOpt::parse(t).unwrap_err();
        assert!(e("StartTime, 0\nStopTime, 1\nStepSize, 0.1\n").contains("`RelTol` is missing"));
        assert!(e("StartTime 0\n").contains("line 1"));
        assert!(e("StartTime, 0\nStoptime, 1\n").contains("line 2: unknown key `Stoptime`"));
        assert!(e("StartTime, x\n").contains("line 1: StartTime `x`"));
        assert!(e("StartTime, 0\nStartTime, 1\n").contains("line 2: StartTime given again"));
        let swapped = "StartTime, 2\nStopTime, 1\nStepSize, 0.1\nRelTol, 1e-4\n";
        assert!(e(swapped).contains("line 2: StopTime 1 must be after"));
        let step = "StartTime, 0\nStopTime, 1\nStepSize, 2\nRelTol, 1e-4\n";
        assert!(e(step).contains("line 3: StepSize"));
    }
}
