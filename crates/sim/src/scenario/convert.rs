//! The file's tables whose shape differs from the model's configuration,
//! turned into it, each in one place: error models (the file gives an
//! Expo model's average loss and burst, the model its transition
//! probabilities; a ramp's times in seconds), links and cells (names and
//! addresses beside the kernel's configuration), what a station's radio
//! hears of a cell (the `[radio]` defaults with the cell's overrides),
//! movements (the mobility patterns and trace files) and traffic. The
//! other tables need no conversion: the file's `policy` is the engine's
//! `PolicyKind`, its `[flows.sctp]` the engine's `AssociationConfig` (see
//! [`super::spec::sctp`]), its `[flows.tcp]` the TCP model's `TcpConfig`
//! over a preset, and the Mobile IP, FMIPv6, handoff and CMHN tables and
//! the address acquisition the models' settings themselves (see
//! [`super::spec::transport`]).
//!
//! A value the file leaves out keeps the configuration's default (RFC or
//! preset). Each conversion ends with the model's own `validate`, whose
//! complaint is reported under the file's key; the file checks only what
//! the conversion needs (finite numbers, durations that fit) and what no
//! model checks (see [`crate::scenario::error`]).

use std::time::Duration;

use msctp_proto::Time;

use super::error::ScenarioError;
use super::spec::*;
use crate::kernel::dcf::{DcfTiming, Phy};
use crate::kernel::error_model::ErrorModelSpec;
use crate::kernel::link::LinkConfig;
use crate::kernel::wireless::{CellConfig, Sharing};
use crate::models::app::Traffic;
use crate::models::mobility::{
    DEFAULT_MAX_WAYPOINTS, MobilityError, OverlapGeometry, Point, RandomWaypointParams, Trajectory,
    TrajectoryBuilder, TurnPolicy, cross_over, import, scheduled_handoffs,
};
use crate::models::radio::propagation::TwoRayGround;
use crate::models::radio::{
    self, CellRadio, CellSignal, DecisionLatency, SampleMode, ScriptedSignal, Thresholds,
};

/// Milliseconds of a scenario file as a duration (negative: zero).
pub(crate) fn ms(v: f64) -> Duration {
    Duration::from_secs_f64((v / 1000.0).max(0.0))
}

/// Seconds of a scenario file as a time (negative: zero).
pub(crate) fn secs(v: f64) -> Time {
    Time::from_secs_f64(v.max(0.0))
}

/// An error model, checked by the model.
pub(crate) fn error_model(e: &ErrorSpec, key: &str) -> Result<ErrorModelSpec, ScenarioError> {
    let spec = match *e {
        ErrorSpec::None => ErrorModelSpec::None,
        ErrorSpec::Bernoulli { loss } => ErrorModelSpec::Bernoulli { loss },
        ErrorSpec::Expo { loss, mean_burst } => {
            ErrorModelSpec::expo_for_average_loss(loss, mean_burst)
                .map_err(|e| ScenarioError::model(key, e))?
        }
        ErrorSpec::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_good,
            loss_bad,
        } => ErrorModelSpec::GilbertElliott {
            p_good_to_bad,
            p_bad_to_good,
            loss_good,
            loss_bad,
        },
        ErrorSpec::Ramp {
            from,
            to,
            start_s,
            end_s,
        } => ErrorModelSpec::Ramp {
            from,
            to,
            start: secs(start_s),
            end: secs(end_s),
        },
    };
    spec.validate().map_err(|e| ScenarioError::model(key, e))?;
    Ok(spec)
}

/// A point-to-point link's configuration.
pub(crate) fn link_config(l: &LinkSpec, key: &str) -> Result<LinkConfig, ScenarioError> {
    let err = error_model(&l.error, &format!("{key}.error"))?;
    Ok(LinkConfig::new(l.rate_bps, ms(l.delay_ms))
        .queue_limit(l.queue_packets)
        .error(err))
}

/// A cell's wireless medium and its configured error models (downlink,
/// uplink), which a `restore_cell` event puts back.
pub(crate) fn cell_medium(
    c: &CellSpec,
    key: &str,
) -> Result<(CellConfig, (ErrorModelSpec, ErrorModelSpec)), ScenarioError> {
    let sharing = match c.sharing {
        SharingSpec::Shared => Sharing::Shared,
        SharingSpec::Dedicated => Sharing::Dedicated,
        SharingSpec::Common => Sharing::Common,
    };
    let errors = (
        error_model(&c.downlink_error, &format!("{key}.downlink_error"))?,
        error_model(&c.uplink_error, &format!("{key}.uplink_error"))?,
    );
    let mac = match c.mac {
        MacSpec::Rate => None,
        MacSpec::Dcf {
            basic_rate_bps,
            rts_threshold_bytes,
            phy,
            contention,
            short_retry_limit,
            long_retry_limit,
        } => Some(DcfTiming {
            phy: match phy {
                PhySpec::Dsss => Phy::Dsss,
                PhySpec::Ofdm => Phy::Ofdm,
            },
            basic_rate_bps,
            rts_threshold: rts_threshold_bytes,
            contention,
            short_retry_limit,
            long_retry_limit,
        }),
    };
    let mut cfg = CellConfig::new(c.rate_bps, ms(c.delay_ms), sharing)
        .mac(mac)
        .at(c.x_m, c.y_m, c.radius_m)
        .queue_limit(c.queue_packets)
        .error(errors.0, errors.1);
    cfg.ap_queue_limit = c.ap_queue_packets;
    cfg.frame_overhead = std::time::Duration::from_secs_f64(c.frame_overhead_us * 1e-6);
    cfg.tti = c.tti_ms.map(ms);
    cfg.rlc_pdu_bytes = c.rlc_pdu_bytes;
    cfg.rlc_status_delay = ms(c.rlc_status_delay_ms.unwrap_or(2.0 * c.delay_ms));
    Ok((cfg, errors))
}

/// What a station's radio hears of a cell: the `[radio]` defaults with the
/// cell's overrides, checked by the radio model.
pub(crate) fn cell_radio(
    r: &RadioSpec,
    c: &CellSpec,
    key: &str,
) -> Result<CellRadio, ScenarioError> {
    let data_w = c.data_w.unwrap_or(r.data_w);
    let thresholds = Thresholds {
        beacon_detection_w: c.beacon_detection_w.unwrap_or(r.beacon_detection_w),
        data_w,
        going_down_w: c.going_down_w.or(r.going_down_w).unwrap_or(data_w),
    };
    let interval = ms(c.beacon_interval_ms.unwrap_or(r.beacon_interval_ms));
    let signal = match &c.signal_steps {
        Some(steps) => {
            let steps = steps
                .iter()
                .map(|(t, p)| (secs(*t), (*p > 0.0).then_some(*p)))
                .collect();
            CellSignal::Scripted(
                ScriptedSignal::new(steps)
                    .map_err(|e| ScenarioError::model(format!("{key}.signal_steps"), e))?,
            )
        }
        None => {
            let base = TwoRayGround::ns2_default();
            let tx = match c.tx_power_w {
                Some(p) => p,
                None => base
                    .tx_power_for_range_w(c.radius_m, data_w)
                    .map_err(|e| ScenarioError::model(format!("{key}.radius_m"), e))?,
            };
            CellSignal::Geometric {
                position: Point::new(c.x_m, c.y_m),
                propagation: base
                    .with_tx_power_w(tx)
                    .map_err(|e| ScenarioError::model(format!("{key}.tx_power_w"), e))?,
            }
        }
    };
    let a = c.acquisition.as_ref().unwrap_or(&r.acquisition);
    let cfg = CellRadio {
        id: radio::CellIndex(0),
        signal,
        beacon_interval: interval,
        beacon_offset: ms(c.beacon_offset_ms),
        thresholds,
        decision: DecisionLatency {
            link_up_after: ms(c.link_up_after_ms.unwrap_or(r.link_up_after_ms)),
            link_down_after: c
                .link_down_after_ms
                .or(r.link_down_after_ms)
                .map_or(interval, ms),
            beacon_lost_after: c
                .beacon_lost_after_ms
                .or(r.beacon_lost_after_ms)
                .map_or(interval, ms),
        },
        acquisition: *a,
    };
    cfg.validate().map_err(|e| ScenarioError::model(key, e))?;
    Ok(cfg)
}

/// When the radio produces signal samples.
pub(crate) fn sample_mode(r: &RadioSpec) -> SampleMode {
    match r.samples {
        SampleName::EveryBeacon => SampleMode::EveryBeacon,
        SampleName::Off => SampleMode::Off,
        SampleName::Periodic => SampleMode::Interval(ms(r.sample_period_ms)),
    }
}

/// How a mobile moves: a trajectory, or the parameters of one drawn from
/// the run's seed.
#[derive(Debug, Clone)]
pub(crate) enum Movement {
    Fixed(Trajectory),
    RandomWaypoint(RandomWaypointParams),
}

/// A mobile's movement until `end`, checked by the mobility model (the
/// random waypoints when they are drawn).
pub(crate) fn movement(m: &MobilitySpec, key: &str, end: Time) -> Result<Movement, ScenarioError> {
    let err = |e: crate::models::mobility::MobilityError| ScenarioError::model(key, e);
    let p = |(x, y): (f64, f64)| Point::new(x, y);
    let fixed = match m {
        MobilitySpec::Stationary { x_m, y_m } => {
            Trajectory::stationary(Point::new(*x_m, *y_m)).map_err(err)?
        }
        MobilitySpec::Waypoints {
            start,
            start_s,
            legs,
        } => {
            let mut b = TrajectoryBuilder::new(secs(*start_s), p(*start)).map_err(err)?;
            for (i, l) in legs.iter().enumerate() {
                match (l.speed_mps, l.pause_s) {
                    (Some(v), None) => {
                        b.move_to(p(l.to), v).map_err(err)?;
                    }
                    (None, Some(d)) => {
                        b.pause(Duration::from_secs_f64(d.max(0.0))).map_err(err)?;
                    }
                    _ => {
                        return Err(ScenarioError::range(
                            format!("{key}.legs[{i}]"),
                            format!("{l:?}"),
                            "a leg has either speed_mps or pause_s",
                        ));
                    }
                }
            }
            b.build()
        }
        MobilitySpec::CrossOver {
            a,
            b,
            speed_mps,
            pause_s,
            start_s,
            legs,
        } => cross_over(
            p(*a),
            p(*b),
            *speed_mps,
            Duration::from_secs_f64(pause_s.max(0.0)),
            secs(*start_s),
            *legs,
        )
        .map_err(err)?,
        MobilitySpec::RandomWaypoint {
            min,
            max,
            start,
            start_s,
            speed_min_mps,
            speed_max_mps,
            pause_min_s,
            pause_max_s,
        } => {
            return Ok(Movement::RandomWaypoint(RandomWaypointParams {
                region_min: p(*min),
                region_max: p(*max),
                start: p(*start),
                start_time: secs(*start_s),
                speed_min_mps: *speed_min_mps,
                speed_max_mps: *speed_max_mps,
                pause_min: Duration::from_secs_f64(pause_min_s.max(0.0)),
                pause_max: Duration::from_secs_f64(pause_max_s.max(0.0)),
                until: end,
                max_waypoints: DEFAULT_MAX_WAYPOINTS,
            }));
        }
        MobilitySpec::Trace {
            trace,
            format,
            node,
            dimensions,
            max_bytes,
            max_waypoints,
        } => {
            let text = read_trace(trace, *max_bytes)
                .map_err(|e| ScenarioError::model(format!("{key}.trace"), e))?;
            match format {
                TraceFormatSpec::Bonnmotion => {
                    import::bonnmotion(&text, *node, *dimensions, *max_waypoints)
                }
                TraceFormatSpec::Ns2 => import::ns2(&text, *node, end, *max_waypoints),
                TraceFormatSpec::Sumo => import::sumo_fcd(&text, *node, *max_waypoints),
            }
            .map_err(|e| ScenarioError::model(format!("{key} ({trace})"), e))?
        }
        MobilitySpec::E1 {
            handoffs,
            window_start_s,
            window_s,
            turn,
        } => scheduled_handoffs(
            &OverlapGeometry::default(),
            match turn {
                TurnSpec::Continuous => TurnPolicy::Continuous,
                TurnSpec::Dwell => TurnPolicy::Dwell,
            },
            *handoffs,
            secs(*window_start_s),
            Duration::from_secs_f64(window_s.max(0.0)),
        )
        .map_err(err)?,
    };
    Ok(Movement::Fixed(fixed))
}

/// A trace file's text, at most `max_bytes` long (read no further).
impl Scenario {
    /// The files a run of this scenario reads besides the scenario itself
    /// (mobility traces, `mobility.trace`), with the most bytes read of
    /// each: what a results store must key on besides the scenario text,
    /// so that a changed file is not answered with a stored run.
    pub fn input_files(&self) -> Vec<(&str, u64)> {
        self.mobiles
            .iter()
            .filter_map(|m| match &m.mobility {
                MobilitySpec::Trace {
                    trace, max_bytes, ..
                } => Some((trace.as_str(), *max_bytes)),
                _ => None,
            })
            .collect()
    }
}

fn read_trace(path: &str, max_bytes: u64) -> Result<String, MobilityError> {
    use std::io::Read;
    let err = |e: std::io::Error| MobilityError::BadTrace {
        line: 0,
        reason: format!("{path}: {e}"),
    };
    let f = std::fs::File::open(path).map_err(err)?;
    let mut text = String::new();
    f.take(max_bytes.saturating_add(1))
        .read_to_string(&mut text)
        .map_err(err)?;
    if text.len() as u64 > max_bytes {
        return Err(MobilityError::BadTrace {
            line: 0,
            reason: format!("{path}: longer than max_bytes = {max_bytes}"),
        });
    }
    Ok(text)
}

/// The application's traffic.
pub(crate) fn traffic(t: &TrafficSpec) -> Traffic {
    match *t {
        TrafficSpec::Bulk { message_bytes } => Traffic::Bulk { message_bytes },
        TrafficSpec::File {
            bytes,
            message_bytes,
        } => Traffic::File {
            bytes,
            message_bytes,
        },
        TrafficSpec::Cbr {
            message_bytes,
            rate_bps,
        } => Traffic::Cbr {
            message_bytes,
            rate_bps,
        },
        TrafficSpec::Pareto {
            message_bytes,
            rate_bps,
            mean_on_ms,
            mean_off_ms,
            shape,
        } => Traffic::Pareto {
            message_bytes,
            rate_bps,
            mean_on: ms(mean_on_ms),
            mean_off: ms(mean_off_ms),
            shape,
        },
    }
}
