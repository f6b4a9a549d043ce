//! What a component instantiated for Model Exchange keeps between calls: the last ẋ, whether
//! it is current, a pending re-choice of coordinates; its calls are in [`super::model_exchange`].

use crate::instance::Snapshot;

/// The Model Exchange side of a component.
#[derive(Debug)]
pub struct ModelExchange {
    /// ẋ of the last evaluation.
    pub(super) dx: Vec<f64>,
    /// Whether `dx` and the outputs are those of the states, time and inputs as set.
    pub(super) current: bool,
    /// A step event asked for new independent coordinates.
    pub(super) rechoice: bool,
    /// Right-hand-side evaluations so far (for the log at termination and benchmarks).
    pub evaluations: u64,
    /// The state before a `SetContinuousStates` (kept, so that setting allocates once).
    pub(super) backup: Option<Snapshot>,
}

/// What an event update reports (FMI 2.0 `fmi2EventInfo`, FMI 3.0
/// `fmi3UpdateDiscreteStates`'s outputs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventUpdate {
    pub values_changed: bool,
}

impl ModelExchange {
    pub fn new(n: usize) -> ModelExchange {
        ModelExchange {
            dx: vec![0.0; n],
            current: false,
            rechoice: false,
            evaluations: 0,
            backup: None,
        }
    }

    /// Something ẋ depends on was set.
    pub fn invalidate(&mut self) {
        self.current = false;
    }
}
