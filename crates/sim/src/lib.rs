//! msctp-sim (under construction).
