//! The per-cell state machine that turns received powers at beacon times
//! into link-layer events. Exact rules (all times exact, in nanoseconds):
//!
//! - **Beacon slots.** Cell beacons are sent at `offset + k * interval`
//!   (k >= 0). Only slots inside the generation window `[start, end]` are
//!   evaluated. At slot `t` the received power `p` is the cell signal's
//!   power at `t`. The beacon is *heard* when `p >= beacon_detection_w`,
//!   *usable* when `p >= data_w`.
//! - **BeaconDetected** at a heard slot when the previous state was "not
//!   detected". **BeaconLost** at `h + beacon_lost_after`, where `h` is the
//!   last heard slot, if no slot in `(h, h + beacon_lost_after]` is heard
//!   (a beacon arriving exactly at the deadline is in time). With the
//!   default latency of one interval that is the first missing slot.
//! - **SignalSample** (sampling mode "every beacon"): at every heard slot,
//!   with the power.
//! - **LinkUp** (decision latency x = `link_up_after`): at the first usable
//!   slot `t` with `t - t0 >= x`, where `t0` starts the current run of
//!   consecutive usable slots (a slot that is not usable ends the run).
//!   With x = 0 that is the first usable slot.
//! - **LinkDown** (decision latency y = `link_down_after`): at `u + y`,
//!   where `u` is the last usable slot, if no slot in `(u, u + y]` is
//!   usable. The link can then only come up again after a new run of x.
//! - **LinkGoingDown**: at a usable slot while the link is up (including
//!   the LinkUp slot) whose power is below `going_down_w`, once; it is
//!   re-armed by a usable slot at or above `going_down_w` and by LinkDown.
//! - **AddressObtained** at `LinkUp time + acquisition.total()`, if the
//!   link has not been declared down at or before that time.
//!   **AddressLost** together with LinkDown, if the address was obtained.
//!
//! Order of events at the same time: timers due strictly before a slot
//! fire before it, in the order BeaconLost, LinkDown (+ AddressLost),
//! AddressObtained; then the slot's BeaconDetected, SignalSample, LinkUp,
//! LinkGoingDown; then timers due exactly at the slot time (a LinkDown
//! whose deadline is the slot time fires only if that slot was not usable,
//! and an address due at the LinkDown time is not obtained). At the end of
//! the window, timers due at or before `end` fire.

use std::time::Duration;

use msctp_proto::Time;

use super::cell_radio::CellRadio;
use super::error::RadioError;
use super::event::{RadioEvent, TimedRadioEvent};
use crate::models::mobility::Trajectory;

/// Collects events up to a bound.
#[derive(Debug)]
pub(crate) struct EventSink {
    pub(crate) events: Vec<TimedRadioEvent>,
    pub(crate) limit: usize,
}

impl EventSink {
    pub(crate) fn push(&mut self, time: Time, event: RadioEvent) -> Result<(), RadioError> {
        if self.events.len() >= self.limit {
            return Err(RadioError::TooManyEvents { limit: self.limit });
        }
        self.events.push(TimedRadioEvent { time, event });
        Ok(())
    }
}

/// Up/down state with an "up after a run of x" rule and a "down y after
/// the last good slot" deadline.
#[derive(Debug, Clone)]
struct Hysteresis {
    up_after: Duration,
    down_after: Duration,
    up: bool,
    run_start: Option<Time>,
    last_good: Option<Time>,
}

impl Hysteresis {
    fn new(up_after: Duration, down_after: Duration) -> Hysteresis {
        Hysteresis {
            up_after,
            down_after,
            up: false,
            run_start: None,
            last_good: None,
        }
    }

    /// When the state goes down unless a good slot comes first.
    fn deadline(&self) -> Option<Time> {
        if self.up {
            self.last_good.map(|t| t + self.down_after)
        } else {
            None
        }
    }

    /// Records a slot; true when the state goes up at this slot.
    fn slot(&mut self, t: Time, good: bool) -> bool {
        if !good {
            self.run_start = None;
            return false;
        }
        let run_start = *self.run_start.get_or_insert(t);
        self.last_good = Some(t);
        if !self.up && t - run_start >= self.up_after {
            self.up = true;
            return true;
        }
        false
    }

    fn expire(&mut self) {
        self.up = false;
        self.run_start = None;
    }
}

/// Which timer fires (also their order at equal times).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Timer {
    BeaconLost,
    LinkDown,
    Address,
}

/// State of one cell as seen by the station.
#[derive(Debug)]
pub(crate) struct CellTracker<'a> {
    cell: &'a CellRadio,
    detect: Hysteresis,
    data: Hysteresis,
    warned: bool,
    address_due: Option<Time>,
    has_address: bool,
}

impl<'a> CellTracker<'a> {
    pub(crate) fn new(cell: &'a CellRadio) -> CellTracker<'a> {
        CellTracker {
            cell,
            detect: Hysteresis::new(Duration::ZERO, cell.decision.beacon_lost_after),
            data: Hysteresis::new(cell.decision.link_up_after, cell.decision.link_down_after),
            warned: false,
            address_due: None,
            has_address: false,
        }
    }

    fn next_timer(&self, t: Time, inclusive: bool) -> Option<(Time, Timer)> {
        let due = |d: Time| d < t || (inclusive && d == t);
        [
            self.detect.deadline().map(|d| (d, Timer::BeaconLost)),
            self.data.deadline().map(|d| (d, Timer::LinkDown)),
            self.address_due.map(|d| (d, Timer::Address)),
        ]
        .into_iter()
        .flatten()
        .filter(|(d, _)| due(*d))
        .min()
    }

    /// Fires the timers due before `t` (or at `t` too, if `inclusive`).
    pub(crate) fn fire_due(
        &mut self,
        t: Time,
        inclusive: bool,
        sink: &mut EventSink,
    ) -> Result<(), RadioError> {
        let cell = self.cell.id;
        while let Some((d, timer)) = self.next_timer(t, inclusive) {
            match timer {
                Timer::BeaconLost => {
                    self.detect.expire();
                    sink.push(d, RadioEvent::BeaconLost { cell })?;
                }
                Timer::LinkDown => {
                    self.data.expire();
                    self.warned = false;
                    self.address_due = None;
                    sink.push(d, RadioEvent::LinkDown { cell })?;
                    if self.has_address {
                        self.has_address = false;
                        sink.push(d, RadioEvent::AddressLost { cell })?;
                    }
                }
                Timer::Address => {
                    self.address_due = None;
                    self.has_address = true;
                    sink.push(d, RadioEvent::AddressObtained { cell })?;
                }
            }
        }
        Ok(())
    }

    /// Handles the beacon slot at `t`.
    pub(crate) fn slot(
        &mut self,
        t: Time,
        station: &Trajectory,
        sample: bool,
        sink: &mut EventSink,
    ) -> Result<(), RadioError> {
        let cell = self.cell.id;
        let th = self.cell.thresholds;
        self.fire_due(t, false, sink)?;
        let power = self.cell.signal.power_at(station, t);
        let heard = power.filter(|w| *w >= th.beacon_detection_w);
        let usable = power.filter(|w| *w >= th.data_w);
        if self.detect.slot(t, heard.is_some()) {
            sink.push(t, RadioEvent::BeaconDetected { cell })?;
        }
        if let (true, Some(w)) = (sample, heard) {
            sink.push(t, RadioEvent::SignalSample { cell, power_w: w })?;
        }
        if self.data.slot(t, usable.is_some()) {
            sink.push(t, RadioEvent::LinkUp { cell })?;
            self.warned = false;
            self.address_due = Some(t + self.cell.acquisition.total());
        }
        if let (true, Some(w)) = (self.data.up, usable) {
            if w < th.going_down_w {
                if !self.warned {
                    self.warned = true;
                    sink.push(t, RadioEvent::LinkGoingDown { cell })?;
                }
            } else {
                self.warned = false;
            }
        }
        self.fire_due(t, true, sink)
    }
}
