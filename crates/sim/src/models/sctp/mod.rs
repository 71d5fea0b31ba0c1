//! mSCTP inside the simulator: the unchanged `msctp-proto` engine as a
//! simulator agent ([`SctpAgent`]), with the observers that write a flow's
//! records (see the agent's documentation for what is logged and how paths
//! are numbered).

mod agent;
pub mod handover;
pub mod observe;

pub use agent::{
    AgentCounters, AgentEvent, AgentLimits, LocalSwitch, PathSample, Role, ScriptedPrimary,
    SctpAgent, SctpAgentConfig,
};
