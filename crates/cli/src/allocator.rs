//! The allocator's settings for the batch commands (simulation runs).
//!
//! mimalloc (v3) returns freed memory to the system after a purge delay
//! (1 s by default) and, with transparent huge pages, fresh memory comes
//! back as 2 MiB pages the kernel zeroes on first touch. A simulation run
//! frees its world and its records at its end and the next run on the
//! same worker allocates them again: purged memory is faulted in and
//! zeroed once more. The batch commands (`run`, `sweep`, `reproduce`,
//! `bench sim`) end when their runs do, so they keep what they freed
//! (mimalloc's `purge_delay` = -1, "no purging at all"). The long-running
//! network commands (listen, tunnel server) keep mimalloc's defaults:
//! they must give memory back. Figures: docs/DESIGN.md, "Crates chosen".

use libmimalloc_sys::{mi_option_set_default, mi_option_t};

/// mimalloc v3's `mi_option_purge_delay` (position 15 of `mi_option_t` in
/// `mimalloc.h`; libmimalloc-sys names no constant for it): milliseconds
/// before freed memory is returned to the system, -1 for never.
const PURGE_DELAY: mi_option_t = 15;

/// The purge delay meaning "never purge" (mimalloc.h).
const NEVER: std::ffi::c_long = -1;

/// Freed memory stays with the process until it exits, unless the user
/// set `MIMALLOC_PURGE_DELAY`: mimalloc reads its options from the
/// environment first, and `mi_option_set_default` changes only an option
/// the environment did not set.
pub fn keep_freed_memory() {
    // SAFETY: mimalloc's options are plain integers behind its own
    // initialisation; setting a default is valid at any time, from any
    // thread, and PURGE_DELAY is within `_mi_option_last`.
    unsafe { mi_option_set_default(PURGE_DELAY, NEVER) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use libmimalloc_sys::mi_option_get;

    /// The purge delay in force (ms; -1: never).
    fn purge_delay() -> std::ffi::c_long {
        // SAFETY: reading an option is valid at any time; PURGE_DELAY is
        // within `_mi_option_last`.
        unsafe { mi_option_get(PURGE_DELAY) }
    }

    /// The position is mimalloc's purge delay: its documented default
    /// (1 000 ms in v3) before, "never" after; the test process has no
    /// MIMALLOC_PURGE_DELAY (the test says so when it does).
    #[test]
    fn purge_delay_default_then_never() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            msctp_testkit::skip("MIMALLOC_PURGE_DELAY is set in the environment");
            return;
        }
        assert_eq!(purge_delay(), 1000);
        keep_freed_memory();
        assert_eq!(purge_delay(), NEVER);
    }
}
