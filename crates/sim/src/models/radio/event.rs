//! Link-layer events (docs/MODELS.md section 3: beacon detected / lost, signal
//! strength samples, link up / going down / down, address obtained / lost).

use msctp_proto::Time;

/// Identifies a cell (an access point or base station).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CellIndex(pub u32);

/// One link-layer event seen by the station.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RadioEvent {
    /// A beacon was heard (power >= detection threshold) after none was.
    BeaconDetected { cell: CellIndex },
    /// No beacon was heard for the beacon-lost latency.
    BeaconLost { cell: CellIndex },
    /// Received power of a beacon (or at a sampling instant), in watts.
    SignalSample { cell: CellIndex, power_w: f64 },
    /// The station declares the cell usable: beacons at or above the data
    /// threshold for the link-up latency x.
    LinkUp { cell: CellIndex },
    /// While the link is up, a beacon's power fell below the warning
    /// threshold (the link layer's "going down" hint).
    LinkGoingDown { cell: CellIndex },
    /// The station declares the cell gone: no beacon at or above the data
    /// threshold for the link-down latency y.
    LinkDown { cell: CellIndex },
    /// The address acquisition latency after link up has elapsed with the
    /// link still up: the station has an address in this cell.
    AddressObtained { cell: CellIndex },
    /// The link went down while the station had an address in the cell.
    AddressLost { cell: CellIndex },
}

impl RadioEvent {
    /// The cell the event is about.
    pub fn cell(&self) -> CellIndex {
        match *self {
            RadioEvent::BeaconDetected { cell }
            | RadioEvent::BeaconLost { cell }
            | RadioEvent::SignalSample { cell, .. }
            | RadioEvent::LinkUp { cell }
            | RadioEvent::LinkGoingDown { cell }
            | RadioEvent::LinkDown { cell }
            | RadioEvent::AddressObtained { cell }
            | RadioEvent::AddressLost { cell } => cell,
        }
    }
}

/// An event and the exact time it happens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimedRadioEvent {
    pub time: Time,
    pub event: RadioEvent,
}
