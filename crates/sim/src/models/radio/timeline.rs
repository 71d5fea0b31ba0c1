//! Generation of the sorted link-layer event timeline for a time window.

use std::time::Duration;

use msctp_proto::Time;

use super::cell_radio::{CellRadio, CellSignal};
use super::error::RadioError;
use super::event::{CellIndex, RadioEvent, TimedRadioEvent};
use super::tracker::{CellTracker, EventSink};
use crate::models::mobility::Trajectory;

/// When [`RadioEvent::SignalSample`] events are produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleMode {
    /// Never.
    Off,
    /// At every heard beacon.
    EveryBeacon,
    /// At `start + k * period` for every cell whose power is at or above
    /// its detection threshold at that instant.
    Interval(Duration),
}

/// Options and limits of [`generate_timeline`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RadioConfig {
    pub sample_mode: SampleMode,
    /// Bound on the number of events generated (error beyond).
    pub max_events: usize,
    /// Bound on the number of beacon slots (or sampling instants) of one
    /// cell in the window (error beyond): bounds the work done.
    pub max_slots_per_cell: u64,
}

impl Default for RadioConfig {
    fn default() -> Self {
        RadioConfig {
            sample_mode: SampleMode::EveryBeacon,
            max_events: 1_000_000,
            max_slots_per_cell: 10_000_000,
        }
    }
}

/// Link-layer events sorted by time (ties: in the order of the cells given
/// to [`generate_timeline`], then in the order of [`super::tracker`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RadioTimeline {
    events: Vec<TimedRadioEvent>,
}

impl RadioTimeline {
    /// A timeline from events given by hand (scripted mode), sorted by time
    /// (stable: equal times keep their order).
    pub fn from_events(mut events: Vec<TimedRadioEvent>) -> RadioTimeline {
        events.sort_by_key(|e| e.time);
        RadioTimeline { events }
    }

    pub fn events(&self) -> &[TimedRadioEvent] {
        &self.events
    }

    pub fn into_events(self) -> Vec<TimedRadioEvent> {
        self.events
    }

    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Index of the first event strictly after `t`.
    pub fn index_after(&self, t: Time) -> usize {
        self.events.partition_point(|e| e.time <= t)
    }

    /// The first event strictly after `t`.
    pub fn next_after(&self, t: Time) -> Option<&TimedRadioEvent> {
        self.events.get(self.index_after(t))
    }

    /// The events with `start <= time < end`.
    pub fn window(&self, start: Time, end: Time) -> &[TimedRadioEvent] {
        let a = self.events.partition_point(|e| e.time < start);
        let b = self.events.partition_point(|e| e.time < end).max(a);
        &self.events[a..b]
    }

    /// The events about one cell.
    pub fn for_cell(&self, cell: CellIndex) -> impl Iterator<Item = &TimedRadioEvent> + '_ {
        self.events.iter().filter(move |e| e.event.cell() == cell)
    }
}

/// First slot `offset + k * interval` at or after `start`, and the number
/// of slots up to `end` inclusive.
fn slots(offset: Duration, interval: Duration, start: Time, end: Time) -> (u64, u64, u64) {
    let off = u64::try_from(offset.as_nanos()).unwrap_or(u64::MAX);
    let iv = u64::try_from(interval.as_nanos())
        .unwrap_or(u64::MAX)
        .max(1);
    let k0 = if start.as_nanos() <= off {
        0
    } else {
        (start.as_nanos() - off).div_ceil(iv)
    };
    let first = k0.checked_mul(iv).and_then(|x| x.checked_add(off));
    match first {
        Some(f) if f <= end.as_nanos() => (f, iv, (end.as_nanos() - f) / iv + 1),
        _ => (0, iv, 0),
    }
}

/// Generates all link-layer events of `cells` for a station moving along
/// `station`, for beacon slots in `[start, end]`.
pub fn generate_timeline(
    station: &Trajectory,
    cells: &[CellRadio],
    start: Time,
    end: Time,
    cfg: &RadioConfig,
) -> Result<RadioTimeline, RadioError> {
    if end < start {
        return Err(RadioError::BadWindow);
    }
    if cfg.sample_mode == SampleMode::Interval(Duration::ZERO) {
        return Err(RadioError::BadSamplePeriod);
    }
    for (i, c) in cells.iter().enumerate() {
        c.validate()?;
        if cells[..i].iter().any(|o| o.id == c.id) {
            return Err(RadioError::DuplicateCell(c.id));
        }
    }
    let mut sink = EventSink {
        events: Vec::new(),
        limit: cfg.max_events,
    };
    for cell in cells {
        let (first, iv, count) = slots(cell.beacon_offset, cell.beacon_interval, start, end);
        if count > cfg.max_slots_per_cell {
            return Err(RadioError::TooManySlots {
                cell: cell.id,
                limit: cfg.max_slots_per_cell,
            });
        }
        let mut tracker = CellTracker::new(cell);
        let every_beacon = cfg.sample_mode == SampleMode::EveryBeacon;
        for k in 0..count {
            let t = Time::from_nanos(first + k * iv);
            tracker.slot(t, station, every_beacon, &mut sink)?;
        }
        tracker.fire_due(end, true, &mut sink)?;
        if let SampleMode::Interval(period) = cfg.sample_mode {
            let (first, iv, count) =
                slots(Duration::from_nanos(start.as_nanos()), period, start, end);
            if count > cfg.max_slots_per_cell {
                return Err(RadioError::TooManySlots {
                    cell: cell.id,
                    limit: cfg.max_slots_per_cell,
                });
            }
            for k in 0..count {
                let t = Time::from_nanos(first + k * iv);
                if let Some(w) = cell.signal.power_at(station, t)
                    && w >= cell.thresholds.beacon_detection_w
                {
                    sink.push(
                        t,
                        RadioEvent::SignalSample {
                            cell: cell.id,
                            power_w: w,
                        },
                    )?;
                }
            }
        }
    }
    Ok(RadioTimeline::from_events(sink.events))
}

/// Maximal intervals `[from, until)` during which the station receives the
/// cell at or above `threshold_w` (`None` as end: for ever), computed
/// exactly (circle crossings for a geometric cell, the script's steps for a
/// scripted one). This is physical coverage, e.g. when data frames get
/// through at the data threshold, independent of beacons and decisions.
pub fn coverage_intervals(
    station: &Trajectory,
    cell: &CellRadio,
    threshold_w: f64,
) -> Result<Vec<(Time, Option<Time>)>, RadioError> {
    match &cell.signal {
        CellSignal::Geometric {
            position,
            propagation,
        } => {
            let r = propagation.distance_for_power_m(threshold_w)?;
            Ok(station.circle_crossings(*position, r)?.inside_intervals())
        }
        CellSignal::Scripted(s) => {
            if !(threshold_w.is_finite() && threshold_w > 0.0) {
                return Err(RadioError::BadThresholds(
                    cell.id,
                    "threshold must be finite and > 0",
                ));
            }
            Ok(s.intervals_at_least(threshold_w))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_arithmetic() {
        let ms = Duration::from_millis;
        let t = Time::from_millis;
        // Offset 30 ms, interval 100 ms, window [0, 1 s]: 30, 130, ..., 930.
        assert_eq!(
            slots(ms(30), ms(100), t(0), t(1000)),
            (30_000_000, 100_000_000, 10)
        );
        // Window starting at 130 ms exactly includes it.
        assert_eq!(
            slots(ms(30), ms(100), t(130), t(930)),
            (130_000_000, 100_000_000, 9)
        );
        assert_eq!(slots(ms(30), ms(100), t(131), t(229)).2, 0);
        assert_eq!(slots(Duration::MAX, ms(100), t(0), t(1000)).2, 0);
    }
}
