//! Vertical handoff schemes of TCP, as compared with mSCTP in E4
//! (docs/MODELS.md sections 2.3 and 2.4):
//!
//! - [`SingleConnectionHandoff`] and its correspondent [`HandoffPeer`]:
//!   one TCP connection whose control block is rebuilt at each handoff
//!   (the processing latencies as parameters, BDP-based restart);
//! - the multi-connection transport is [`crate::models::cmhn`].
//!
//! Both act on link-layer decisions ([`LinkDecision`]), which a radio
//! driver raises after the decision latencies x and y of E4.

mod decision;
mod location;
mod peer;
mod settings;
mod single;

pub use decision::{LinkDecision, TriggerSource};
pub use location::LocationUpdate;
pub use peer::HandoffPeer;
pub use settings::{HandoffSettings, NetworkSettings, ProcessingMode};
pub use single::{
    HandoffConfigError, HandoffRecord, LOCATION_PORT, NetworkProfile, SingleConnectionConfig,
    SingleConnectionHandoff, TCB_UPDATE,
};
