//! msctp-tcp (under construction).
