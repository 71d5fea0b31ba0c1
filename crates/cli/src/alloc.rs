//! The `msctp` command's allocator: mimalloc (docs/DESIGN.md, "Crates
//! chosen"), with its purge delay raised from mimalloc's 10 ms to 1 s.
//!
//! mimalloc gives freed pages back to the operating system ("purges"
//! them) once they have stayed unused for the purge delay. A simulation
//! frees and takes memory all the time: a growing log moves to a larger
//! block, a queue fills and drains. With 10 ms, pages freed that way were
//! often given back and then touched again a few milliseconds later, and
//! each such touch is a page fault whose zeroing the kernel charges to the
//! thread's CPU time. Whether it happened depended on wall-clock timing,
//! not on the simulation. `msctp bench sim --duration 300` on the bulk
//! transfer showed it: six runs gave 4.12 to 5.16 M events per CPU-second,
//! and the slowest spent 0.10 s of its 0.62 s in the kernel, mostly in
//! `clear_page_erms`. With a 1 s delay, six runs gave 4.99 to 5.18, with
//! at most 0.01 s in the kernel. A 1 s delay still gives memory back
//! after a real drop, such as the end of a large run.
//!
//! The `MIMALLOC_PURGE_DELAY` environment variable (or its older name
//! `MIMALLOC_RESET_DELAY`) still decides when it is set.

use std::ffi::c_long;

use libmimalloc_sys::{mi_option_get, mi_option_set, mi_option_t};

/// `mi_option_purge_delay`: index 15 of `mi_option_t` in the `mimalloc.h`
/// of both mimalloc 2 and 3. libmimalloc-sys does not export it as a
/// constant. The test `the_purge_delay_comes_from_the_environment_when_set`
/// (crates/cli/tests/cli_errors.rs) checks that index 15 is the option that
/// mimalloc reads from `MIMALLOC_PURGE_DELAY`.
const PURGE_DELAY: mi_option_t = 15;

/// The purge delay `msctp` sets, in milliseconds.
pub const PURGE_DELAY_MS: c_long = 1000;

/// Environment variables through which mimalloc reads the purge delay.
const PURGE_DELAY_ENV: [&str; 2] = ["MIMALLOC_PURGE_DELAY", "MIMALLOC_RESET_DELAY"];

/// Sets the purge delay to [`PURGE_DELAY_MS`] unless the environment
/// sets it. Call first in `main`, before any other thread exists
/// (mimalloc's options are not thread safe).
pub fn configure() {
    if PURGE_DELAY_ENV
        .iter()
        .any(|v| std::env::var_os(v).is_some())
    {
        return;
    }
    // SAFETY: a plain store into mimalloc's option table, done before any
    // other thread exists; 15 is a valid option index (see PURGE_DELAY).
    unsafe { mi_option_set(PURGE_DELAY, PURGE_DELAY_MS) };
}

/// The purge delay in force, in milliseconds (-1: never purge).
pub fn purge_delay_ms() -> c_long {
    // SAFETY: reads mimalloc's option table; 15 is a valid option index.
    unsafe { mi_option_get(PURGE_DELAY) }
}
