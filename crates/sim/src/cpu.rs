//! What the benchmarks measure about the process running them: the CPU
//! time of the calling thread and the peak resident set. Nothing here
//! reaches a simulation's results; `msctp bench`, the ns-3 comparison and
//! the lab's per-run CPU accounting use it.

use std::time::Duration;

/// CPU time the calling thread has run, from
/// `clock_gettime(CLOCK_THREAD_CPUTIME_ID)`, which includes the slice now
/// running (Linux's `/proc/thread-self/schedstat` is only brought up to
/// date at scheduler ticks and switches, so a run of a few milliseconds
/// could read as zero); `None` where the platform does not tell it.
pub fn thread_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: clock_gettime only writes one timespec through the
        // pointer, which points to `ts`, a valid timespec borrowed for the
        // call.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        if rc == 0 {
            let secs = u64::try_from(ts.tv_sec).ok()?;
            let nanos = u32::try_from(ts.tv_nsec).ok()?;
            return Some(Duration::new(secs, nanos));
        }
    }
    None
}

/// Peak resident set size of this process in kB (`VmHWM` of
/// `/proc/self/status`; `None` where that file does not exist).
pub fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_cpu_time_counts_this_threads_work_only() {
        let cpu = || thread_cpu_time().expect("Linux tells the thread's CPU time");
        // Neither another thread's 50 ms nor this thread's sleep is this
        // thread's CPU time.
        let before = cpu();
        std::thread::scope(|s| {
            s.spawn(|| std::thread::sleep(Duration::from_millis(50)));
        });
        std::thread::sleep(Duration::from_millis(30));
        let waited = cpu() - before;
        assert!(waited < Duration::from_millis(25), "{waited:?}");
        // This thread's work is (however busy the machine: up to 20 s of
        // wall time for 20 ms of CPU).
        let start = cpu();
        let t = std::time::Instant::now();
        let mut x = 1u64;
        while cpu() - start < Duration::from_millis(20) {
            assert!(
                t.elapsed() < Duration::from_secs(20),
                "the thread's CPU clock stands still"
            );
            for _ in 0..1000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
    }

    #[test]
    fn peak_rss_is_known_on_linux() {
        assert!(peak_rss_kb().is_some_and(|kb| kb > 0));
    }
}
