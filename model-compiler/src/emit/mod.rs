//! Emit: what a compiled model becomes on disk — `modelDescription.xml` (FMI 2.0 and 3.0,
//! with the Model Exchange states), the HTML documentation, the OSP model description, the
//! FMI 3.0 terminals,
//! and the `.fmu` archive with the runtime binary of each platform.

pub mod archive;
pub mod dependencies;
pub mod documentation;
pub mod icon;
pub mod model_description;
pub mod model_exchange;
pub mod osp;
pub mod runtime;
pub mod terminals;
pub mod timestamp;
