//! Description of one cell as the station's radio sees it.

use std::time::Duration;

use msctp_proto::Time;

use super::acquisition::AddressAcquisition;
use super::error::RadioError;
use super::event::CellIndex;
use super::script::ScriptedSignal;
use crate::models::mobility::{Point, Trajectory};
use crate::models::radio::propagation::TwoRayGround;

/// Where the received power comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum CellSignal {
    /// From the station's distance to the cell's antenna at `position`,
    /// through `propagation` (which holds the cell's transmit power).
    Geometric {
        position: Point,
        propagation: TwoRayGround,
    },
    /// From a script of powers over time; the station's position is ignored.
    Scripted(ScriptedSignal),
}

impl CellSignal {
    /// Received power (W) at time `t` for a station on `station`; `None`
    /// when a script says there is no signal.
    pub fn power_at(&self, station: &Trajectory, t: Time) -> Option<f64> {
        match self {
            CellSignal::Geometric {
                position,
                propagation,
            } => Some(propagation.received_power_w(station.position(t).distance_to(*position))),
            CellSignal::Scripted(s) => s.power_at(t),
        }
    }
}

/// Received-power thresholds (W), `beacon_detection_w <= data_w <=
/// going_down_w`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// A beacon at or above this power is heard (E3: 1.5e-11 W).
    pub beacon_detection_w: f64,
    /// Data can be received at or above this power (ns-2's RXThresh; E3:
    /// 3.6e-10 W).
    pub data_w: f64,
    /// Below this power (while the link is up) the link layer warns that
    /// the link is going down. Equal to `data_w` disables the warning.
    pub going_down_w: f64,
}

impl Thresholds {
    /// E3's thresholds: detection 1.5e-11 W, data 3.6e-10 W, and a warning
    /// at E3's conservative Primary-Change threshold, 4.7e-10 W.
    pub const E3: Thresholds = Thresholds {
        beacon_detection_w: 1.5e-11,
        data_w: 3.6e-10,
        going_down_w: 4.7e-10,
    };

    /// ns-2's defaults: CSThresh 1.559e-11 W for detection, RXThresh
    /// 3.652e-10 W for data, no warning.
    pub const NS2: Thresholds = Thresholds {
        beacon_detection_w: 1.559e-11,
        data_w: 3.652e-10,
        going_down_w: 3.652e-10,
    };

    fn validate(&self, id: CellIndex) -> Result<(), RadioError> {
        for w in [self.beacon_detection_w, self.data_w, self.going_down_w] {
            if !(w.is_finite() && w > 0.0) {
                return Err(RadioError::BadThresholds(
                    id,
                    "thresholds must be finite and > 0",
                ));
            }
        }
        if self.beacon_detection_w > self.data_w {
            return Err(RadioError::BadThresholds(
                id,
                "beacon detection threshold above data threshold",
            ));
        }
        if self.going_down_w < self.data_w {
            return Err(RadioError::BadThresholds(
                id,
                "going-down threshold below data threshold",
            ));
        }
        Ok(())
    }
}

/// Handoff decision latencies (E4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecisionLatency {
    /// x: beacons at or above the data threshold must have been received
    /// without a gap for this long before the link is declared up.
    pub link_up_after: Duration,
    /// y: the link is declared down this long after the last beacon at or
    /// above the data threshold, if no such beacon came in between. At
    /// least one beacon interval.
    pub link_down_after: Duration,
    /// A beacon is declared lost this long after the last heard beacon, if
    /// none was heard in between. At least one beacon interval.
    pub beacon_lost_after: Duration,
}

impl DecisionLatency {
    /// No wait for link up; down and lost at the first missing beacon.
    pub fn immediate(beacon_interval: Duration) -> DecisionLatency {
        DecisionLatency {
            link_up_after: Duration::ZERO,
            link_down_after: beacon_interval,
            beacon_lost_after: beacon_interval,
        }
    }
}

/// One cell: where its power comes from, its beacons, thresholds,
/// decision latencies and address acquisition delay.
#[derive(Debug, Clone, PartialEq)]
pub struct CellRadio {
    pub id: CellIndex,
    pub signal: CellSignal,
    /// Time between beacons (> 0; 802.11's usual 100 ms by default).
    pub beacon_interval: Duration,
    /// Beacons are sent at `beacon_offset + k * beacon_interval`, k >= 0.
    pub beacon_offset: Duration,
    pub thresholds: Thresholds,
    pub decision: DecisionLatency,
    pub acquisition: AddressAcquisition,
}

/// Default beacon interval: 100 ms.
pub const DEFAULT_BEACON_INTERVAL: Duration = Duration::from_millis(100);

impl CellRadio {
    /// A cell with the given signal and thresholds, 100 ms beacons from
    /// time zero, immediate decisions and no address acquisition delay.
    pub fn new(id: CellIndex, signal: CellSignal, thresholds: Thresholds) -> CellRadio {
        CellRadio {
            id,
            signal,
            beacon_interval: DEFAULT_BEACON_INTERVAL,
            beacon_offset: Duration::ZERO,
            thresholds,
            decision: DecisionLatency::immediate(DEFAULT_BEACON_INTERVAL),
            acquisition: AddressAcquisition::NONE,
        }
    }

    /// A cell at `position` with the given propagation model.
    pub fn geometric(
        id: CellIndex,
        position: Point,
        propagation: TwoRayGround,
        thresholds: Thresholds,
    ) -> CellRadio {
        CellRadio::new(
            id,
            CellSignal::Geometric {
                position,
                propagation,
            },
            thresholds,
        )
    }

    /// Checks thresholds and timing.
    pub fn validate(&self) -> Result<(), RadioError> {
        self.thresholds.validate(self.id)?;
        if self.beacon_interval.is_zero() {
            return Err(RadioError::BadTiming(
                self.id,
                "beacon interval must be > 0",
            ));
        }
        if self.decision.link_down_after < self.beacon_interval {
            return Err(RadioError::BadTiming(
                self.id,
                "link-down latency shorter than the beacon interval",
            ));
        }
        if self.decision.beacon_lost_after < self.beacon_interval {
            return Err(RadioError::BadTiming(
                self.id,
                "beacon-lost latency shorter than the beacon interval",
            ));
        }
        if let CellSignal::Geometric { position, .. } = self.signal
            && !position.is_finite()
        {
            return Err(RadioError::BadTiming(
                self.id,
                "cell position must be finite",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        let id = CellIndex(1);
        let mut c = CellRadio::geometric(
            id,
            Point::ORIGIN,
            TwoRayGround::ns2_default(),
            Thresholds::E3,
        );
        c.validate().unwrap();
        c.decision.link_down_after = Duration::from_millis(50);
        assert!(matches!(
            c.validate(),
            Err(RadioError::BadTiming(CellIndex(1), _))
        ));
        c.decision = DecisionLatency::immediate(c.beacon_interval);
        c.beacon_interval = Duration::ZERO;
        assert!(c.validate().is_err());
        let mut c = CellRadio::geometric(
            id,
            Point::ORIGIN,
            TwoRayGround::ns2_default(),
            Thresholds::NS2,
        );
        c.validate().unwrap();
        c.thresholds.going_down_w = 1e-10;
        assert!(matches!(c.validate(), Err(RadioError::BadThresholds(..))));
        c.thresholds = Thresholds {
            beacon_detection_w: 1e-9,
            data_w: 1e-10,
            going_down_w: 1e-9,
        };
        assert!(c.validate().is_err());
        c.thresholds = Thresholds {
            beacon_detection_w: f64::NAN,
            data_w: 1e-10,
            going_down_w: 1e-9,
        };
        assert!(c.validate().is_err());
        let c = CellRadio::geometric(
            id,
            Point::new(f64::NAN, 0.0),
            TwoRayGround::ns2_default(),
            Thresholds::E3,
        );
        assert!(c.validate().is_err());
    }
}
