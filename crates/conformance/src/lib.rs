//! msctp-conformance (under construction).
