//! The run viewer: one self-contained HTML page for a simulated run
//! (`msctp view DIR`, `msctp run --view`) or a live transfer (`msctp perf
//! --view`): the map (cells with radius and rate, the mobile's trajectory,
//! animated over simulated time with a slider and play/pause), per path
//! the time series of cwnd, ssthresh, flight size and SRTT, per flow
//! goodput and one-way delay and jitter, per queue its length, with the
//! run's events (handover decisions, ASCONFs, path state changes,
//! timeouts, fast retransmits, the baselines' signalling) as marks on one
//! shared, zoomable time axis; hovering a mark shows the event.
//!
//! The page opens from disk with no server and no network: the charting
//! library (uPlot, MIT, vendored in `assets/`, see its README), the page's
//! own script and the data are all inside it.
//!
//! A crate of its own rather than a module of the simulator, the lab or
//! the command: the page is fed by the simulator's stored outputs and by
//! the real-network driver's live statistics, neither of which needs the
//! other or the page's assets, and the command stays a thin front end.

pub mod data;
pub mod decimate;
#[cfg(feature = "test-support")]
pub mod headless;
pub mod live;
pub mod page;

pub use data::{Mark, Series, ViewData};
pub use decimate::DEFAULT_MAX_POINTS;
pub use page::{LIVE_PATH, render};

/// What can go wrong making a page.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    #[error("{0}")]
    Input(String),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}
