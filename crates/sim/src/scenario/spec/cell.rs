//! Wireless cells: the file's table, which checks its own values (each
//! message names the key path) and gives the kernel's medium
//! ([`CellConfig`]) and what a station's radio hears of it ([`CellRadio`]:
//! the `[radio]` defaults with the cell's overrides, checked by the radio
//! model). The router a cell refers to and its prefix are resolved with
//! the whole scenario.

use serde::{Deserialize, Serialize};

use super::{
    AcquisitionSpec, ErrorSpec, RadioSpec, d_cell_rate, d_delay_ms, d_queue, d_radius, ms, secs,
};
use crate::kernel::dcf::{DcfTiming, Phy};
use crate::kernel::error_model::ErrorModelSpec;
use crate::kernel::wireless::{CellConfig, Sharing};
use crate::models::mobility::Point;
use crate::models::radio::propagation::TwoRayGround;
use crate::models::radio::{
    self, CellRadio, CellSignal, DecisionLatency, ScriptedSignal, Thresholds,
};
use crate::scenario::error::{
    MAX_QUEUE, MAX_RATE, MAX_S, ScenarioError, duration_ms, positive_f, range_f, range_u,
};

/// A wireless cell on a router.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CellSpec {
    /// Required, unique.
    pub name: String,
    /// Required: the node holding the access point.
    pub router: String,
    /// Required: the AP interface's address with prefix length; mobiles
    /// get `prefix + host_id` in the cell and route through this address.
    pub ap_addr: String,
    #[serde(default)]
    pub x_m: f64,
    #[serde(default)]
    pub y_m: f64,
    /// Radius (m) at the data threshold; sets the transmit power of the
    /// two-ray ground model unless `tx_power_w` is given.
    #[serde(default = "d_radius")]
    pub radius_m: f64,
    #[serde(default)]
    pub tx_power_w: Option<f64>,
    #[serde(default = "d_cell_rate")]
    pub rate_bps: u64,
    #[serde(default = "d_delay_ms")]
    pub delay_ms: f64,
    #[serde(default = "d_queue")]
    pub queue_packets: usize,
    /// "shared" (one medium), "dedicated" (a channel per station) or
    /// "common" (UMTS common transport channels shared per TTI, RLC
    /// acknowledged mode; `kernel::wireless`).
    #[serde(default)]
    pub sharing: SharingSpec,
    /// The medium access of a shared cell: "rate" (a packet holds the
    /// medium for its bytes at `rate_bps`) or "dcf" (an 802.11 DCF frame
    /// exchange, `rate_bps` being the data rate; `kernel::dcf`).
    #[serde(default)]
    pub mac: MacSpec,
    /// Shared cells: the AP's downlink queue (packets); absent:
    /// `queue_packets` (which is then each station's uplink queue).
    #[serde(default)]
    pub ap_queue_packets: Option<usize>,
    /// Shared cells: airtime per frame besides its bits (µs): 802.11b
    /// about 892, 802.11a about 171 (docs/MODELS.md 6.1); 0: none.
    #[serde(default)]
    pub frame_overhead_us: f64,
    /// Common cells: RLC PDU payload bytes (Budzisz et al. 4.2.2: 40).
    #[serde(default = "d_rlc_pdu")]
    pub rlc_pdu_bytes: usize,
    /// Common cells: end of a TTI that lost a PDU to its retransmission
    /// (ms; the RLC STATUS report's way back, 3GPP TS 25.322 9.7); absent:
    /// twice `delay_ms`.
    #[serde(default)]
    pub rlc_status_delay_ms: Option<f64>,
    /// Dedicated and common cells: transmission time interval (ms; UMTS
    /// 10); absent: none (common cells: 10).
    #[serde(default)]
    pub tti_ms: Option<f64>,
    #[serde(default)]
    pub downlink_error: ErrorSpec,
    #[serde(default)]
    pub uplink_error: ErrorSpec,
    /// Beacon offset (ms) within the interval.
    #[serde(default)]
    pub beacon_offset_ms: f64,
    /// Overrides of the `[radio]` defaults for this cell.
    #[serde(default)]
    pub beacon_interval_ms: Option<f64>,
    #[serde(default)]
    pub beacon_detection_w: Option<f64>,
    #[serde(default)]
    pub data_w: Option<f64>,
    #[serde(default)]
    pub going_down_w: Option<f64>,
    #[serde(default)]
    pub link_up_after_ms: Option<f64>,
    #[serde(default)]
    pub link_down_after_ms: Option<f64>,
    #[serde(default)]
    pub beacon_lost_after_ms: Option<f64>,
    #[serde(default)]
    pub acquisition: Option<AcquisitionSpec>,
    /// A scripted signal instead of geometry: `[[time_s, power_w], ...]`,
    /// a power of 0 meaning no signal.
    #[serde(default)]
    pub signal_steps: Option<Vec<(f64, f64)>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SharingSpec {
    #[default]
    Shared,
    Dedicated,
    Common,
}

fn d_rlc_pdu() -> usize {
    40
}

fn d_basic_rate() -> u64 {
    1_000_000
}

/// A cell's medium access (`kernel::dcf`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum MacSpec {
    /// The packet's bytes at the cell's rate.
    #[default]
    Rate,
    /// IEEE 802.11 DCF (clause 9.2): control frames at `basic_rate_bps`
    /// (ns-2's basicRate_ 1 Mbit/s), RTS/CTS before unicast frames longer
    /// than `rts_threshold_bytes` (dot11RTSThreshold; ns-2's RTSThreshold_
    /// 0: every frame), `phy` "dsss" (802.11b) or "ofdm" (802.11a);
    /// `contention = true`: random backoff, collisions and retries up to
    /// `short_retry_limit` / `long_retry_limit` (7 / 4, the standard's and
    /// ns-2's), else the mean exchange shared round robin.
    Dcf {
        #[serde(default = "d_basic_rate")]
        basic_rate_bps: u64,
        #[serde(default)]
        rts_threshold_bytes: u32,
        #[serde(default)]
        phy: PhySpec,
        #[serde(default)]
        contention: bool,
        #[serde(default = "d_short_retry")]
        short_retry_limit: u32,
        #[serde(default = "d_long_retry")]
        long_retry_limit: u32,
    },
}

/// An 802.11 PHY's timing (`kernel::dcf::Phy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum PhySpec {
    #[default]
    Dsss,
    Ofdm,
}

fn d_short_retry() -> u32 {
    7
}

fn d_long_retry() -> u32 {
    4
}

/// A cell's models, built from its table.
pub(crate) struct CellModels {
    pub medium: CellConfig,
    /// The configured error models (downlink, uplink), which a
    /// `restore_cell` event puts back.
    pub errors: (ErrorModelSpec, ErrorModelSpec),
    pub radio: CellRadio,
}

impl CellSpec {
    /// The cell's medium and radio, its values checked; `key` names the
    /// cell (`cells[<name>]`), `r` is the file's `[radio]` defaults.
    pub(crate) fn models(&self, r: &RadioSpec, key: &str) -> Result<CellModels, ScenarioError> {
        self.check(r, key)?;
        let (medium, errors) = self.medium(key)?;
        Ok(CellModels {
            medium,
            errors,
            radio: self.radio(r, key)?,
        })
    }

    /// The values no model checks: positions, rates, queues, times.
    fn check(&self, r: &RadioSpec, key: &str) -> Result<(), ScenarioError> {
        let c = self;
        range_f(&format!("{key}.x_m"), c.x_m, -1e7, 1e7)?;
        range_f(&format!("{key}.y_m"), c.y_m, -1e7, 1e7)?;
        positive_f(&format!("{key}.radius_m"), c.radius_m, 1e6)?;
        range_u(&format!("{key}.rate_bps"), c.rate_bps, 1, MAX_RATE)?;
        c.check_mac(key)?;
        duration_ms(&format!("{key}.delay_ms"), c.delay_ms)?;
        range_u(
            &format!("{key}.rlc_pdu_bytes"),
            c.rlc_pdu_bytes as u64,
            1,
            65_535,
        )?;
        if let Some(d) = c.rlc_status_delay_ms {
            duration_ms(&format!("{key}.rlc_status_delay_ms"), d)?;
        }
        range_u(
            &format!("{key}.queue_packets"),
            c.queue_packets as u64,
            1,
            MAX_QUEUE,
        )?;
        if let Some(q) = c.ap_queue_packets {
            range_u(&format!("{key}.ap_queue_packets"), q as u64, 1, MAX_QUEUE)?;
        }
        range_f(
            &format!("{key}.frame_overhead_us"),
            c.frame_overhead_us,
            0.0,
            1e6,
        )?;
        if let Some(t) = c.tti_ms {
            positive_f(&format!("{key}.tti_ms"), t, 1e4)?;
        }
        c.downlink_error
            .check_times(&format!("{key}.downlink_error"))?;
        c.uplink_error.check_times(&format!("{key}.uplink_error"))?;
        positive_f(
            &format!("{key}.beacon_interval_ms"),
            c.beacon_interval_ms.unwrap_or(r.beacon_interval_ms),
            1e6,
        )?;
        duration_ms(&format!("{key}.beacon_offset_ms"), c.beacon_offset_ms)?;
        for (k, v) in [
            ("link_up_after_ms", c.link_up_after_ms),
            ("link_down_after_ms", c.link_down_after_ms),
            ("beacon_lost_after_ms", c.beacon_lost_after_ms),
        ] {
            if let Some(v) = v {
                duration_ms(&format!("{key}.{k}"), v)?;
            }
        }
        for (i, (t, p)) in c.signal_steps.iter().flatten().enumerate() {
            let k = format!("{key}.signal_steps[{i}]");
            range_f(&format!("{k}.time_s"), *t, 0.0, MAX_S)?;
            range_f(&format!("{k}.power_w"), *p, 0.0, 1e3)?;
        }
        Ok(())
    }

    fn check_mac(&self, key: &str) -> Result<(), ScenarioError> {
        if let MacSpec::Dcf {
            basic_rate_bps,
            short_retry_limit,
            long_retry_limit,
            ..
        } = self.mac
        {
            range_u(
                &format!("{key}.mac.basic_rate_bps"),
                basic_rate_bps,
                1,
                MAX_RATE,
            )?;
            // dot11ShortRetryLimit / dot11LongRetryLimit: 1..255 (IEEE
            // 802.11-2007, annex D).
            range_u(
                &format!("{key}.mac.short_retry_limit"),
                u64::from(short_retry_limit),
                1,
                255,
            )?;
            range_u(
                &format!("{key}.mac.long_retry_limit"),
                u64::from(long_retry_limit),
                1,
                255,
            )?;
            if self.sharing != SharingSpec::Shared {
                return Err(ScenarioError::combination(
                    format!("{key}.mac"),
                    "a contention MAC (\"dcf\") needs sharing = \"shared\"",
                ));
            }
        }
        Ok(())
    }

    /// The cell's wireless medium and its configured error models
    /// (downlink, uplink).
    fn medium(
        &self,
        key: &str,
    ) -> Result<(CellConfig, (ErrorModelSpec, ErrorModelSpec)), ScenarioError> {
        let c = self;
        let sharing = match c.sharing {
            SharingSpec::Shared => Sharing::Shared,
            SharingSpec::Dedicated => Sharing::Dedicated,
            SharingSpec::Common => Sharing::Common,
        };
        let errors = (
            c.downlink_error.model(&format!("{key}.downlink_error"))?,
            c.uplink_error.model(&format!("{key}.uplink_error"))?,
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

    /// What a station's radio hears of the cell: the `[radio]` defaults
    /// with the cell's overrides, checked by the radio model.
    fn radio(&self, r: &RadioSpec, key: &str) -> Result<CellRadio, ScenarioError> {
        let c = self;
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
}
