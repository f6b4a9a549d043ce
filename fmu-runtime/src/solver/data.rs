//! The two sides of a solver call, as MuJoCo's `mjModel` and `mjData`. [`Model`] is what a
//! step reads and never writes: the compiled model, where each unknown sits, and the
//! parameter values (the master sets those between steps, never within one). [`Data`] is
//! what a step advances and works in: one instance's state and its buffers. An instance
//! owns the storage of both; instances of one FMU share the compiled model (`Arc`), and an
//! estimator's twin is a second instance on the same compiled model.
//!
//! Both are views (a few pointers, passed by value): a solver function takes
//! `(model: Model, data: Data, …)`, splits them into the names the numerics use
//! (`m, l, p` and `st, ws`) and hands `Data::new(st, ws)` on to the functions it calls.

use super::{Layout, State, Workspace};
use crate::model::CompiledModel;

/// What a step reads.
#[derive(Clone, Copy)]
pub struct Model<'a> {
    pub compiled: &'a CompiledModel,
    pub layout: &'a Layout,
    /// Parameter and input values by slot.
    pub params: &'a [f64],
}

impl<'a> Model<'a> {
    pub fn new(compiled: &'a CompiledModel, layout: &'a Layout, params: &'a [f64]) -> Model<'a> {
        Model {
            compiled,
            layout,
            params,
        }
    }

    /// `(m, l, p)`: the compiled model, the layout, the parameter values.
    #[inline]
    pub fn parts(self) -> (&'a CompiledModel, &'a Layout, &'a [f64]) {
        (self.compiled, self.layout, self.params)
    }
}

/// What a step writes.
pub struct Data<'a> {
    pub state: &'a mut State,
    pub work: &'a mut Workspace,
}

impl<'a> Data<'a> {
    #[inline]
    pub fn new(state: &'a mut State, work: &'a mut Workspace) -> Data<'a> {
        Data { state, work }
    }

    /// `(st, ws)`: the state and the workspace.
    #[inline]
    pub fn parts(self) -> (&'a mut State, &'a mut Workspace) {
        (self.state, self.work)
    }
}
