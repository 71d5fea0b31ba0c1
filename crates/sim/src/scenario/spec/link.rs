//! Point-to-point links and error models: the file's tables, which check
//! their own values (each message names the key path) and give the
//! kernel's configuration ([`LinkConfig`], [`ErrorModelSpec`]). The names
//! a link refers to (its nodes) are resolved with the whole scenario.

use serde::{Deserialize, Serialize};

use super::{d_delay_ms, d_queue, d_rate, secs};
use crate::kernel::error_model::ErrorModelSpec;
use crate::kernel::link::LinkConfig;
use crate::scenario::error::{
    MAX_QUEUE, MAX_RATE, MAX_S, ScenarioError, duration_ms, positive_f, range_f, range_u,
};

/// An error model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ErrorSpec {
    #[default]
    None,
    /// Each packet lost with probability `loss`.
    Bernoulli { loss: f64 },
    /// ns-2 ErrorModel/Expo with average loss `loss` and error bursts of
    /// `mean_burst` packets.
    Expo { loss: f64, mean_burst: f64 },
    /// Gilbert-Elliott: transition and loss probabilities per packet.
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    /// Loss probability rising linearly from `from` to `to` between
    /// `start_s` and `end_s`.
    Ramp {
        from: f64,
        to: f64,
        start_s: f64,
        end_s: f64,
    },
}

/// A point-to-point link between two fixed nodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    /// Required, unique.
    pub name: String,
    /// Required: node names and their addresses with prefix length.
    pub a: String,
    pub a_addr: String,
    pub b: String,
    pub b_addr: String,
    #[serde(default = "d_rate")]
    pub rate_bps: u64,
    #[serde(default = "d_delay_ms")]
    pub delay_ms: f64,
    #[serde(default = "d_queue")]
    pub queue_packets: usize,
    #[serde(default)]
    pub error: ErrorSpec,
}

impl ErrorSpec {
    /// The error model, its times checked here and its probabilities by
    /// the model (the file gives an Expo model's average loss and burst,
    /// the model its transition probabilities; a ramp's times in seconds).
    pub(crate) fn model(&self, key: &str) -> Result<ErrorModelSpec, ScenarioError> {
        self.check_times(key)?;
        let spec = match *self {
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

    /// The times of an error model (its probabilities are the model's to
    /// check).
    pub(crate) fn check_times(&self, key: &str) -> Result<(), ScenarioError> {
        match *self {
            ErrorSpec::Expo { loss, mean_burst } => {
                range_f(&format!("{key}.loss"), loss, 0.0, 1.0)?;
                positive_f(&format!("{key}.mean_burst"), mean_burst, 1e9)
            }
            ErrorSpec::Ramp { start_s, end_s, .. } => {
                range_f(&format!("{key}.start_s"), start_s, 0.0, MAX_S)?;
                range_f(&format!("{key}.end_s"), end_s, 0.0, MAX_S)
            }
            _ => Ok(()),
        }
    }
}

impl LinkSpec {
    /// The link's configuration, its values checked; `key` names the link
    /// (`links[<name>]`).
    pub(crate) fn config(&self, key: &str) -> Result<LinkConfig, ScenarioError> {
        range_u(&format!("{key}.rate_bps"), self.rate_bps, 1, MAX_RATE)?;
        duration_ms(&format!("{key}.delay_ms"), self.delay_ms)?;
        range_u(
            &format!("{key}.queue_packets"),
            self.queue_packets as u64,
            1,
            MAX_QUEUE,
        )?;
        let err = self.error.model(&format!("{key}.error"))?;
        Ok(LinkConfig::new(self.rate_bps, super::ms(self.delay_ms))
            .queue_limit(self.queue_packets)
            .error(err))
    }
}
