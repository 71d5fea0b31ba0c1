//! Traffic: the file's `traffic` table of a flow, which checks its own
//! values (each message names the key path) and gives the application
//! model's [`Traffic`].

use serde::{Deserialize, Serialize};

use super::{d_message, ms};
use crate::models::app::Traffic;
use crate::scenario::error::{MAX_MS, MAX_RATE, ScenarioError, positive_f, range_f, range_u};

/// The application's traffic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum TrafficSpec {
    Bulk {
        #[serde(default = "d_message")]
        message_bytes: usize,
    },
    File {
        bytes: u64,
        #[serde(default = "d_message")]
        message_bytes: usize,
    },
    Cbr {
        #[serde(default = "d_message")]
        message_bytes: usize,
        rate_bps: u64,
    },
    Pareto {
        #[serde(default = "d_message")]
        message_bytes: usize,
        rate_bps: u64,
        mean_on_ms: f64,
        mean_off_ms: f64,
        #[serde(default = "d_shape")]
        shape: f64,
    },
}

fn d_shape() -> f64 {
    1.5
}

impl TrafficSpec {
    /// The size of the file a `file` source sends; `None` for the others.
    pub fn file_bytes(&self) -> Option<u64> {
        match *self {
            TrafficSpec::File { bytes, .. } => Some(bytes),
            _ => None,
        }
    }
}

impl Default for TrafficSpec {
    fn default() -> Self {
        TrafficSpec::Bulk {
            message_bytes: d_message(),
        }
    }
}

impl TrafficSpec {
    /// The application's traffic, its values checked; `key` names the
    /// flow (`flows[<name>]`).
    pub(crate) fn traffic(&self, key: &str) -> Result<Traffic, ScenarioError> {
        self.check(key)?;
        Ok(match *self {
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
        })
    }

    /// A transport that sends datagrams (`transport`) carries cbr or
    /// pareto traffic, whose `message_bytes` is the whole IP packet
    /// (ns-2's `packetSize_`): headers plus the 16-byte stamp at least.
    pub(crate) fn check_datagrams(&self, key: &str, transport: &str) -> Result<(), ScenarioError> {
        let not_datagrams = |kind: &str| {
            ScenarioError::combination(
                format!("{key}.traffic.kind"),
                format!(
                    "transport {transport} sends datagrams: traffic must be cbr or pareto, \
                     not {kind}"
                ),
            )
        };
        let size = match *self {
            TrafficSpec::Cbr { message_bytes, .. } | TrafficSpec::Pareto { message_bytes, .. } => {
                message_bytes
            }
            TrafficSpec::Bulk { .. } => return Err(not_datagrams("bulk")),
            TrafficSpec::File { .. } => return Err(not_datagrams("file")),
        };
        range_u(
            &format!("{key}.traffic.message_bytes"),
            size as u64,
            44,
            65_535,
        )
    }

    /// The values of the traffic table of flow `key` (`flows[<name>]`).
    fn check(&self, key: &str) -> Result<(), ScenarioError> {
        let t = self;
        let msg_key = format!("{key}.traffic.message_bytes");
        let max_msg = 1u64 << 24;
        match t {
            TrafficSpec::Bulk { message_bytes } => {
                range_u(&msg_key, *message_bytes as u64, 1, max_msg)
            }
            TrafficSpec::File {
                bytes,
                message_bytes,
            } => {
                range_u(&msg_key, *message_bytes as u64, 1, max_msg)?;
                range_u(&format!("{key}.traffic.bytes"), *bytes, 1, 1 << 50)
            }
            TrafficSpec::Cbr {
                message_bytes,
                rate_bps,
            } => {
                range_u(&msg_key, *message_bytes as u64, 1, max_msg)?;
                range_u(&format!("{key}.traffic.rate_bps"), *rate_bps, 1, MAX_RATE)
            }
            TrafficSpec::Pareto {
                message_bytes,
                rate_bps,
                mean_on_ms,
                mean_off_ms,
                shape,
            } => {
                range_u(&msg_key, *message_bytes as u64, 1, max_msg)?;
                range_u(&format!("{key}.traffic.rate_bps"), *rate_bps, 1, MAX_RATE)?;
                positive_f(&format!("{key}.traffic.mean_on_ms"), *mean_on_ms, MAX_MS)?;
                positive_f(&format!("{key}.traffic.mean_off_ms"), *mean_off_ms, MAX_MS)?;
                range_f(&format!("{key}.traffic.shape"), *shape, 1.000_001, 1e3)
            }
        }
    }
}

/// A partial reliability policy for every message of an SCTP flow
/// (`reliability = { lifetime_ms = 200.0 }`; RFC 3758, RFC 7496): timed
/// reliability, limited retransmissions or priority, exactly one of them.
/// Needs `[flows.sctp] pr_sctp = true` (negotiated with the peer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ReliabilitySpec {
    /// A message not acknowledged this long after it was sent is
    /// abandoned (RFC 7496 section 3: SCTP_PR_SCTP_TTL).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifetime_ms: Option<f64>,
    /// Each chunk is retransmitted at most this many times (0: sent once;
    /// RFC 7496 section 3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_retransmissions: Option<u32>,
    /// Messages of a lower priority (a larger value) give way when the
    /// send buffer is full (RFC 7496 section 3.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u16>,
}

impl ReliabilitySpec {
    /// The engine's policy; the error names `key`'s sub-key.
    pub fn policy(&self, key: &str) -> Result<msctp_proto::PrPolicy, ScenarioError> {
        use msctp_proto::PrPolicy;
        match (self.lifetime_ms, self.max_retransmissions, self.priority) {
            (Some(l), None, None) => {
                positive_f(&format!("{key}.lifetime_ms"), l, MAX_MS)?;
                Ok(PrPolicy::Lifetime(ms(l)))
            }
            (None, Some(n), None) => {
                range_u(
                    &format!("{key}.max_retransmissions"),
                    u64::from(n),
                    0,
                    1 << 20,
                )?;
                Ok(PrPolicy::MaxRetransmissions(n))
            }
            (None, None, Some(p)) => Ok(PrPolicy::Priority(p)),
            _ => Err(ScenarioError::combination(
                key.to_string(),
                "exactly one of lifetime_ms, max_retransmissions and priority",
            )),
        }
    }
}
