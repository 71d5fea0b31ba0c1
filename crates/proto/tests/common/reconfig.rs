//! Helpers of the stream reconfiguration tests (RFC 6525): an endpoint
//! with the extension on, and a Re-configuration Response's fields.

use msctp_proto::wire::ReconfigParam;
use msctp_proto::{AssociationConfig, EndpointConfig};

/// An endpoint on `port` with stream reconfiguration on, `f` applied.
pub fn config(port: u16, f: &dyn Fn(&mut AssociationConfig)) -> EndpointConfig {
    let mut c = EndpointConfig::new(port);
    c.association = AssociationConfig {
        stream_reconfig: true,
        ..Default::default()
    };
    f(&mut c.association);
    c
}

/// A Re-configuration Response's sequence number and result (RFC 6525
/// section 4.4); panics on any other parameter.
pub fn response(p: &ReconfigParam) -> (u32, u32) {
    match p {
        ReconfigParam::Response {
            response_seq,
            result,
            ..
        } => (*response_seq, *result),
        other => panic!("not a response: {other:?}"),
    }
}
