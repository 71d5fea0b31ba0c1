//! Goodput (application bytes delivered per second) and file delivery
//! time (docs/MODELS.md section 5).

use std::time::Duration;

use msctp_proto::Time;

use super::records::{Delivery, MetricsError, Window};

/// Goodput over `window`, in bits per second: the application bytes of the
/// deliveries with `window.start <= time < window.end`, times 8, divided by
/// the window's length in seconds. A zero-length window is an error; no
/// delivery gives 0.
pub fn goodput_bps(deliveries: &[Delivery], window: Window) -> Result<f64, MetricsError> {
    let secs = window.duration().as_secs_f64();
    if secs == 0.0 {
        return Err(MetricsError::EmptyWindow);
    }
    let bytes: u64 = deliveries
        .iter()
        .filter(|d| window.contains(d.time))
        .map(|d| d.bytes)
        .sum();
    Ok(bytes as f64 * 8.0 / secs)
}

/// Longest delivery gap: the longest wait between two consecutive
/// deliveries to the receiving application where the later one falls in
/// `window` (the earlier may lie before it). Zero with fewer than two
/// deliveries. A stall that never ends (no delivery after it) is not a
/// gap here; the goodput shows it.
pub fn longest_delivery_gap(deliveries: &[Delivery], window: Window) -> Duration {
    deliveries
        .windows(2)
        .filter(|w| window.contains(w[1].time))
        .map(|w| w[1].time.saturating_since(w[0].time))
        .max()
        .unwrap_or(Duration::ZERO)
}

/// Goodput time series: `window` cut into consecutive bins of width `bin`
/// starting at `window.start` (the last bin ends at `window.end` and may be
/// shorter); for each bin, `(bin start, goodput in bit/s over that bin)`
/// as [`goodput_bps`] defines it. At most `max_bins` bins (error beyond).
pub fn goodput_series(
    deliveries: &[Delivery],
    window: Window,
    bin: Duration,
    max_bins: usize,
) -> Result<Vec<(Time, f64)>, MetricsError> {
    let bin_ns = u64::try_from(bin.as_nanos()).unwrap_or(u64::MAX);
    if bin_ns == 0 {
        return Err(MetricsError::ZeroBin);
    }
    let span = window.end.as_nanos() - window.start.as_nanos();
    if span == 0 {
        return Err(MetricsError::EmptyWindow);
    }
    let n = span.div_ceil(bin_ns);
    if n > max_bins as u64 {
        return Err(MetricsError::TooManyBins { limit: max_bins });
    }
    let n = n as usize;
    let mut bytes = vec![0u64; n];
    for d in deliveries.iter().filter(|d| window.contains(d.time)) {
        let k = ((d.time.as_nanos() - window.start.as_nanos()) / bin_ns) as usize;
        if let Some(b) = bytes.get_mut(k) {
            *b = b.saturating_add(d.bytes);
        }
    }
    Ok(bytes
        .iter()
        .enumerate()
        .map(|(k, b)| {
            let s = window.start.as_nanos() + k as u64 * bin_ns;
            let e = s.saturating_add(bin_ns).min(window.end.as_nanos());
            (
                Time::from_nanos(s),
                *b as f64 * 8.0 / ((e - s) as f64 * 1e-9),
            )
        })
        .collect())
}

/// File delivery time: the time from `start` until the application has
/// received `file_bytes` bytes in deliveries at or after `start`, i.e.
/// `T - start` for the earliest delivery time `T` at which the cumulative
/// bytes delivered in `[start, T]` reach `file_bytes`. `None` if they never
/// do; zero for an empty file.
pub fn file_delivery_time(
    deliveries: &[Delivery],
    start: Time,
    file_bytes: u64,
) -> Option<Duration> {
    if file_bytes == 0 {
        return Some(Duration::ZERO);
    }
    let mut ds: Vec<&Delivery> = deliveries.iter().filter(|d| d.time >= start).collect();
    ds.sort_by_key(|d| d.time);
    let mut total = 0u64;
    for d in ds {
        total = total.saturating_add(d.bytes);
        if total >= file_bytes {
            return Some(d.time - start);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(ms: u64, bytes: u64) -> Delivery {
        Delivery {
            time: Time::from_millis(ms),
            bytes,
        }
    }

    fn w(a: u64, b: u64) -> Window {
        Window::new(Time::from_millis(a), Time::from_millis(b)).unwrap()
    }

    #[test]
    fn goodput_over_a_window() {
        // 1000 + 500 bytes in [0, 2 s): 6000 bit/s; the one at 2 s is out.
        let ds = [d(0, 1000), d(1999, 500), d(2000, 7000)];
        assert_eq!(goodput_bps(&ds, w(0, 2000)).unwrap(), 6000.0);
        assert_eq!(goodput_bps(&ds, w(0, 3000)).unwrap(), 8500.0 * 8.0 / 3.0);
        // No data: zero.
        assert_eq!(goodput_bps(&[], w(0, 1000)).unwrap(), 0.0);
        assert_eq!(goodput_bps(&ds, w(5, 5)), Err(MetricsError::EmptyWindow));
    }

    #[test]
    fn goodput_series_bins() {
        let ds = [
            d(100, 125),
            d(900, 125),
            d(1500, 250),
            d(2200, 100),
            d(2600, 1),
        ];
        let s = goodput_series(&ds, w(0, 2500), Duration::from_secs(1), 10).unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0], (Time::ZERO, 2000.0));
        assert_eq!(s[1], (Time::from_secs(1), 2000.0));
        // Last bin is 0.5 s long: 100 bytes -> 1600 bit/s.
        assert_eq!(s[2], (Time::from_secs(2), 1600.0));
        assert_eq!(
            goodput_series(&ds, w(0, 2500), Duration::ZERO, 10),
            Err(MetricsError::ZeroBin)
        );
        assert_eq!(
            goodput_series(&ds, w(0, 2500), Duration::from_millis(1), 10),
            Err(MetricsError::TooManyBins { limit: 10 })
        );
        assert_eq!(
            goodput_series(&ds, w(3, 3), Duration::from_secs(1), 10),
            Err(MetricsError::EmptyWindow)
        );
        assert!(
            goodput_series(&[], w(0, 1000), Duration::from_millis(500), 10)
                .unwrap()
                .iter()
                .all(|x| x.1 == 0.0)
        );
    }

    #[test]
    fn file_delivery() {
        // Unsorted input; start at 1 s: deliveries before are ignored.
        let ds = [d(3000, 400), d(500, 1000), d(1200, 500), d(2000, 100)];
        let start = Time::from_secs(1);
        assert_eq!(
            file_delivery_time(&ds, start, 600),
            Some(Duration::from_millis(1000))
        );
        assert_eq!(
            file_delivery_time(&ds, start, 601),
            Some(Duration::from_millis(2000))
        );
        assert_eq!(
            file_delivery_time(&ds, start, 1000),
            Some(Duration::from_millis(2000))
        );
        assert_eq!(file_delivery_time(&ds, start, 1001), None);
        assert_eq!(file_delivery_time(&ds, start, 0), Some(Duration::ZERO));
        assert_eq!(file_delivery_time(&[], start, 1), None);
    }

    #[test]
    fn longest_delivery_gap_ends_in_the_window() {
        let d = |ms: u64| Delivery {
            time: Time::from_millis(ms),
            bytes: 1,
        };
        let ds = [d(0), d(10), d(100), d(110), d(400)];
        let w = |a, b| Window::new(Time::from_millis(a), Time::from_millis(b)).unwrap();
        assert_eq!(
            longest_delivery_gap(&ds, Window::ALL),
            Duration::from_millis(290)
        );
        assert_eq!(
            longest_delivery_gap(&ds, w(50, 200)),
            Duration::from_millis(90)
        );
        assert_eq!(longest_delivery_gap(&ds, w(0, 5)), Duration::ZERO);
        assert_eq!(longest_delivery_gap(&[], Window::ALL), Duration::ZERO);
    }
}
