//! The lab's error type.

use thiserror::Error;

use crate::experiment::SpecError;
use crate::report::plot::PlotError;
use crate::store::StoreError;

/// Anything that stops an experiment.
#[derive(Debug, Error)]
pub enum LabError {
    #[error(transparent)]
    Spec(#[from] SpecError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// A variant or axis override cannot be applied, or the runner
    /// refuses a scenario; names the experiment, variant and point.
    #[error("{experiment}: {message}")]
    Scenario { experiment: String, message: String },
    /// No runner of that name.
    #[error("{experiment}: {message}")]
    Runner { experiment: String, message: String },
    /// (`err` is in the message, so it is not also the error's source:
    /// a report of the chain would say it twice.)
    #[error("{path}: {err}")]
    Io {
        path: std::path::PathBuf,
        err: std::io::Error,
    },
    /// Bad command-line style input (a `--param`, a count).
    #[error("{0}")]
    Input(String),
}
