//! The scripts' names of chunk types, parameter types and error cause
//! codes (packetdrill's spelling), bound to msctp-proto's wire constants:
//! one table each, read both ways (script to number when parsing and
//! encoding, number to script when rendering the engine's packets). The
//! numbers are RFC 9260 section 3.2 (chunk types), 3.2.1 (parameter
//! types) and 3.3.10 (cause codes), RFC 4895 section 3 (AUTH) and
//! RFC 5061 section 4 (ADD-IP); they live in `msctp_proto::wire` only.

use msctp_proto::wire::cause::cause_code as c;
use msctp_proto::wire::chunk::chunk_type as t;
use msctp_proto::wire::param::param_type as p;

/// Chunk types by script name.
const CHUNKS: &[(&str, u8)] = &[
    ("DATA", t::DATA),
    ("INIT", t::INIT),
    ("INIT_ACK", t::INIT_ACK),
    ("SACK", t::SACK),
    ("HEARTBEAT", t::HEARTBEAT),
    ("HEARTBEAT_ACK", t::HEARTBEAT_ACK),
    ("ABORT", t::ABORT),
    ("SHUTDOWN", t::SHUTDOWN),
    ("SHUTDOWN_ACK", t::SHUTDOWN_ACK),
    ("ERROR", t::ERROR),
    ("COOKIE_ECHO", t::COOKIE_ECHO),
    ("COOKIE_ACK", t::COOKIE_ACK),
    ("ECNE", t::ECNE),
    ("CWR", t::CWR),
    ("SHUTDOWN_COMPLETE", t::SHUTDOWN_COMPLETE),
    ("AUTH", t::AUTH),
    ("ASCONF_ACK", t::ASCONF_ACK),
    ("FORWARD_TSN", t::FORWARD_TSN),
    ("ASCONF", t::ASCONF),
    ("RECONFIG", t::RECONFIG),
    ("I_DATA", t::I_DATA),
    ("I_FORWARD_TSN", t::I_FORWARD_TSN),
];

/// Parameter types by script name.
const PARAMS: &[(&str, u16)] = &[
    ("HEARTBEAT_INFORMATION", p::HEARTBEAT_INFO),
    ("IPV4_ADDRESS", p::IPV4_ADDRESS),
    ("IPV6_ADDRESS", p::IPV6_ADDRESS),
    ("STATE_COOKIE", p::STATE_COOKIE),
    ("UNRECOGNIZED_PARAMETER", p::UNRECOGNIZED_PARAMETER),
    ("COOKIE_PRESERVATIVE", p::COOKIE_PRESERVATIVE),
    ("HOSTNAME_ADDRESS", p::HOST_NAME_ADDRESS),
    ("SUPPORTED_ADDRESS_TYPES", p::SUPPORTED_ADDRESS_TYPES),
    ("ECN_CAPABLE", p::ECN_CAPABLE),
    ("RANDOM", p::RANDOM),
    ("CHUNKS", p::CHUNKS),
    ("HMAC_ALGO", p::HMAC_ALGO),
    ("SUPPORTED_EXTENSIONS", p::SUPPORTED_EXTENSIONS),
    ("FORWARD_TSN_SUPPORTED", p::FORWARD_TSN_SUPPORTED),
    ("ADD_IP_ADDRESS", p::ADD_IP_ADDRESS),
    ("DELETE_IP_ADDRESS", p::DELETE_IP_ADDRESS),
    ("ERROR_CAUSE_INDICATION", p::ERROR_CAUSE_INDICATION),
    ("SET_PRIMARY_ADDRESS", p::SET_PRIMARY_ADDRESS),
    ("SUCCESS_INDICATION", p::SUCCESS_INDICATION),
    ("ADAPTATION_INDICATION", p::ADAPTATION_LAYER_INDICATION),
];

/// Error cause codes by script name.
const CAUSES: &[(&str, u16)] = &[
    ("INVALID_STREAM_IDENTIFIER", c::INVALID_STREAM_IDENTIFIER),
    (
        "MISSING_MANDATORY_PARAMETER",
        c::MISSING_MANDATORY_PARAMETER,
    ),
    ("STALE_COOKIE_ERROR", c::STALE_COOKIE),
    ("OUT_OF_RESOURCES", c::OUT_OF_RESOURCE),
    ("UNRESOLVABLE_ADDRESS", c::UNRESOLVABLE_ADDRESS),
    ("UNRECOGNIZED_CHUNK_TYPE", c::UNRECOGNIZED_CHUNK_TYPE),
    (
        "INVALID_MANDATORY_PARAMETER",
        c::INVALID_MANDATORY_PARAMETER,
    ),
    ("UNRECOGNIZED_PARAMETERS", c::UNRECOGNIZED_PARAMETERS),
    ("NO_USER_DATA", c::NO_USER_DATA),
    (
        "COOKIE_RECEIVED_WHILE_SHUTDOWN",
        c::COOKIE_RECEIVED_WHILE_SHUTTING_DOWN,
    ),
    ("RESTART_WITH_NEW_ADDRESSES", c::RESTART_WITH_NEW_ADDRESSES),
    ("USER_INITIATED_ABORT", c::USER_INITIATED_ABORT),
    ("PROTOCOL_VIOLATION", c::PROTOCOL_VIOLATION),
    (
        "DELETE_LAST_REMAINING_ADDRESS",
        c::DELETE_LAST_REMAINING_ADDRESS,
    ),
    ("RESOURCE_SHORTAGE", c::RESOURCE_SHORTAGE),
    ("DELETE_SOURCE_ADDRESS", c::DELETE_SOURCE_ADDRESS),
    ("ILLEGAL_ASCONF_ACK", c::ILLEGAL_ASCONF_ACK),
    ("REQUEST_REFUSED", c::NO_AUTHORIZATION),
    (
        "UNSUPPORTED_HMAC_IDENTIFIER",
        c::UNSUPPORTED_HMAC_IDENTIFIER,
    ),
];

fn by_name<T: Copy>(table: &[(&str, T)], name: &str) -> Option<T> {
    table.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

fn by_number<T: Copy + PartialEq>(table: &[(&'static str, T)], v: T) -> Option<&'static str> {
    table.iter().find(|(_, x)| *x == v).map(|(n, _)| *n)
}

/// The chunk type a script name stands for.
pub fn chunk_type(name: &str) -> Option<u8> {
    by_name(CHUNKS, name)
}

/// The parameter type a script name stands for.
pub fn param_type(name: &str) -> Option<u16> {
    by_name(PARAMS, name)
}

/// The script name of a chunk type, if it has one.
pub fn chunk_name(ty: u8) -> Option<&'static str> {
    by_number(CHUNKS, ty)
}

/// The script name of a parameter type, if it has one.
pub fn param_name(ty: u16) -> Option<&'static str> {
    by_number(PARAMS, ty)
}

/// The script name of an error cause code, if it has one.
pub fn cause_name(code: u16) -> Option<&'static str> {
    by_number(CAUSES, code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_and_number_is_listed_once() {
        fn unique<T: Copy + PartialEq + std::fmt::Debug>(table: &[(&'static str, T)]) {
            for (k, (n, v)) in table.iter().enumerate() {
                assert_eq!(by_name(table, n), Some(*v), "{n}");
                assert_eq!(by_number(table, *v), Some(*n), "{n}: {v:?} listed twice");
                assert!(table[k + 1..].iter().all(|(m, _)| m != n), "{n} twice");
            }
        }
        unique(CHUNKS);
        unique(PARAMS);
        unique(CAUSES);
        assert_eq!(chunk_type("ASCONF"), Some(0xc1));
        assert_eq!(param_name(0xc006), Some("ADAPTATION_INDICATION"));
        assert_eq!(cause_name(0x00a4), Some("REQUEST_REFUSED"));
    }
}
