//! msctp-net (under construction).
