//! Where the compiled model of this FMU binary comes from.
//!
//! `fmu-runtime` itself is model-agnostic. The per-model wrapper crate that `hydromech build`
//! generates enables the `external-model` feature and defines
//!
//! ```ignore
//! #[unsafe(no_mangle)]
//! pub fn hydromech_embedded_model() -> &'static [u8] { include_bytes!("model.bin") }
//! ```
//!
//! Every `fmi2Instantiate` decodes these bytes into its own `Arc<CompiledModel>`: there is no
//! process-global cache, so instances never share mutable state (pitfall 12 of the notes)
//! and a corrupted blob is reported per instance instead of poisoning a global.
//!
//! Without the feature (plain `cargo build`/`cargo test` of this crate) the model is
//! empty; `CompiledModel::from_bytes` then fails and `fmi2Instantiate` logs why and
//! returns NULL.

#[cfg(feature = "external-model")]
unsafe extern "Rust" {
    /// Defined by the per-model wrapper crate (see the module docs).
    fn hydromech_embedded_model() -> &'static [u8];
}

/// The serialized `CompiledModel` of this binary (empty without a model).
pub fn model_bytes() -> &'static [u8] {
    #[cfg(feature = "external-model")]
    {
        // SAFETY: the wrapper crate defines the symbol with exactly this Rust signature; it
        // only returns a reference to static data.
        unsafe { hydromech_embedded_model() }
    }
    #[cfg(not(feature = "external-model"))]
    {
        &[]
    }
}
