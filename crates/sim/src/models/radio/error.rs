//! Errors of the radio model.

use thiserror::Error;

use super::event::CellIndex;
use crate::models::mobility::MobilityError;
use crate::models::radio::propagation::PropagationError;

/// An invalid radio description or a limit reached.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RadioError {
    #[error("cell {0:?}: invalid thresholds: {1}")]
    BadThresholds(CellIndex, &'static str),
    #[error("cell {0:?}: invalid timing: {1}")]
    BadTiming(CellIndex, &'static str),
    #[error("cell id {0:?} appears twice")]
    DuplicateCell(CellIndex),
    #[error("invalid scripted signal: {0}")]
    BadScript(&'static str),
    #[error("invalid window: end before start")]
    BadWindow,
    #[error("invalid sampling period: must be > 0")]
    BadSamplePeriod,
    #[error("more than {limit} radio events")]
    TooManyEvents { limit: usize },
    #[error("cell {cell:?}: more than {limit} beacon slots in the window")]
    TooManySlots { cell: CellIndex, limit: u64 },
    #[error(transparent)]
    Propagation(#[from] PropagationError),
    #[error(transparent)]
    Mobility(#[from] MobilityError),
}
