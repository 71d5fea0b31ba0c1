//! Statistics for the experiment layer: mean, sample standard deviation,
//! and confidence-interval half-widths with Student's t distribution.
//!
//! Quantiles come from the `statrs` crate, checked here against published
//! table values. statrs loses accuracy for very large degrees of freedom
//! (at df = 1e7 its 97.5% quantile is 1.83 instead of 1.96), so above
//! [`LARGE_DF`] the quantile is the normal quantile corrected by the
//! Cornish-Fisher expansion of Abramowitz and Stegun 26.7.5 (three terms;
//! the error is below 1e-9 there).

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
use thiserror::Error;

/// An invalid statistics query.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum StatsError {
    #[error("no samples")]
    NoSamples,
    #[error("sample {index} is not a finite number")]
    NonFinite { index: usize },
    #[error("need at least two samples for a standard deviation")]
    TooFewSamples,
    #[error("confidence level must be in (0, 1), got {0}")]
    BadLevel(f64),
    #[error("degrees of freedom must be >= 1")]
    BadDegreesOfFreedom,
}

fn check(samples: &[f64]) -> Result<(), StatsError> {
    if samples.is_empty() {
        return Err(StatsError::NoSamples);
    }
    match samples.iter().position(|x| !x.is_finite()) {
        Some(index) => Err(StatsError::NonFinite { index }),
        None => Ok(()),
    }
}

/// Arithmetic mean.
pub fn mean(samples: &[f64]) -> Result<f64, StatsError> {
    check(samples)?;
    Ok(samples.iter().sum::<f64>() / samples.len() as f64)
}

/// Sample standard deviation (divisor n - 1); needs two samples.
pub fn sample_std_dev(samples: &[f64]) -> Result<f64, StatsError> {
    let m = mean(samples)?;
    if samples.len() < 2 {
        return Err(StatsError::TooFewSamples);
    }
    let ss: f64 = samples.iter().map(|x| (x - m) * (x - m)).sum();
    Ok((ss / (samples.len() - 1) as f64).sqrt())
}

/// Degrees of freedom above which the quantile comes from the expansion.
pub const LARGE_DF: u64 = 1000;

/// The quantile `t_{p, df}` of Student's t distribution (e.g. p = 0.975
/// for a two-sided 95% interval).
pub fn student_t_quantile(p: f64, df: u64) -> Result<f64, StatsError> {
    if !(p > 0.0 && p < 1.0) {
        return Err(StatsError::BadLevel(p));
    }
    if df == 0 {
        return Err(StatsError::BadDegreesOfFreedom);
    }
    if df > LARGE_DF {
        let n = Normal::new(0.0, 1.0).map_err(|_| StatsError::BadDegreesOfFreedom)?;
        let x = n.inverse_cdf(p);
        let v = df as f64;
        let (x3, x5, x7) = (x.powi(3), x.powi(5), x.powi(7));
        let g1 = (x3 + x) / 4.0;
        let g2 = (5.0 * x5 + 16.0 * x3 + 3.0 * x) / 96.0;
        let g3 = (3.0 * x7 + 19.0 * x5 + 17.0 * x3 - 15.0 * x) / 384.0;
        return Ok(x + g1 / v + g2 / (v * v) + g3 / (v * v * v));
    }
    let t = StudentsT::new(0.0, 1.0, df as f64).map_err(|_| StatsError::BadDegreesOfFreedom)?;
    Ok(t.inverse_cdf(p))
}

/// Half-width of the two-sided confidence interval of the mean at
/// `level` (e.g. 0.95): `t_{(1 + level)/2, n-1} * s / sqrt(n)`, with `s`
/// the sample standard deviation. Needs two samples.
pub fn student_t_half_width(samples: &[f64], level: f64) -> Result<f64, StatsError> {
    if !(level > 0.0 && level < 1.0) {
        return Err(StatsError::BadLevel(level));
    }
    let s = sample_std_dev(samples)?;
    let n = samples.len();
    let t = student_t_quantile(0.5 + level / 2.0, (n - 1) as u64)?;
    Ok(t * s / (n as f64).sqrt())
}

/// Mean, spread and 95% confidence interval of a set of repetitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation; `None` with a single sample.
    pub std_dev: Option<f64>,
    /// Half-width of the 95% Student-t interval; `None` with one sample.
    pub ci95_half_width: Option<f64>,
    pub min: f64,
    pub max: f64,
}

/// Summarises repetitions (at least one finite sample).
pub fn summarize(samples: &[f64]) -> Result<Summary, StatsError> {
    let m = mean(samples)?;
    let (std_dev, ci) = if samples.len() >= 2 {
        (
            Some(sample_std_dev(samples)?),
            Some(student_t_half_width(samples, 0.95)?),
        )
    } else {
        (None, None)
    };
    Ok(Summary {
        n: samples.len(),
        mean: m,
        std_dev,
        ci95_half_width: ci,
        min: samples.iter().copied().fold(f64::INFINITY, f64::min),
        max: samples.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        // Two-sided 95% critical values (t_{0.975, df}) from standard tables
        // (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.2), 3 decimals.
        let table = [
            (1, 12.706),
            (2, 4.303),
            (3, 3.182),
            (4, 2.776),
            (5, 2.571),
            (9, 2.262),
            (10, 2.228),
            (19, 2.093),
            (29, 2.045),
            (30, 2.042),
            (39, 2.023),
            (100, 1.984),
        ];
        for (df, want) in table {
            let got = student_t_quantile(0.975, df).unwrap();
            assert!((got - want).abs() < 5e-4, "df={df}: {got} vs {want}");
        }
        // More digits for the cases the experiments use most.
        assert!((student_t_quantile(0.975, 1).unwrap() - 12.706_204_736).abs() < 1e-6);
        assert!((student_t_quantile(0.975, 29).unwrap() - 2.045_229_642).abs() < 1e-6);
        assert!((student_t_quantile(0.975, 39).unwrap() - 2.022_690_901).abs() < 1e-6);
        // Large df: 1000 from statrs = 1.962339 (tables), the expansion
        // agrees with statrs at the switch, and tends to the normal 1.959964.
        assert!((student_t_quantile(0.975, 1000).unwrap() - 1.962_339).abs() < 1e-6);
        assert!((student_t_quantile(0.975, 1001).unwrap() - 1.962_335).abs() < 2e-6);
        let z = 1.959_963_985;
        assert!((student_t_quantile(0.975, 1_000_000).unwrap() - (z + 2.372e-6)).abs() < 1e-8);
        assert!((student_t_quantile(0.975, u64::MAX).unwrap() - z).abs() < 1e-8);
        let mut last = f64::INFINITY;
        for df in [1u64, 2, 5, 30, 999, 1000, 1001, 5000, 100_000, 10_000_000] {
            let q = student_t_quantile(0.975, df).unwrap();
            assert!(q < last, "quantile not decreasing at df={df}");
            last = q;
        }
        // 99% and the median.
        assert!((student_t_quantile(0.995, 10).unwrap() - 3.169).abs() < 5e-4);
        assert!(student_t_quantile(0.5, 7).unwrap().abs() < 1e-9);
        assert!(student_t_quantile(1.0, 7).is_err());
        assert!(student_t_quantile(0.975, 0).is_err());
        assert!(student_t_quantile(f64::NAN, 3).is_err());
    }

    #[test]
    fn mean_std_and_interval() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sum of squares 32, s = sqrt(32/7).
        let x = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_eq!(mean(&x).unwrap(), 5.0);
        let s = sample_std_dev(&x).unwrap();
        assert!((s - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        // t_{0.975,7} = 2.364624252; half-width = t * s / sqrt(8) = 1.787 6
        let h = student_t_half_width(&x, 0.95).unwrap();
        assert!((h - 2.364_624_252 * s / 8.0f64.sqrt()).abs() < 1e-6, "{h}");
        let sum = summarize(&x).unwrap();
        assert_eq!(sum.n, 8);
        assert_eq!(sum.min, 2.0);
        assert_eq!(sum.max, 9.0);
        assert_eq!(sum.ci95_half_width, Some(h));
        // Constant samples: zero spread.
        assert_eq!(student_t_half_width(&[3.0, 3.0, 3.0], 0.95).unwrap(), 0.0);
    }

    #[test]
    fn summary_of_five_repetitions() {
        // Goodputs of five runs whose blackout grows by 100 ms each time
        // (msctp-sim's tests/metrics_traces.rs).
        let goodputs = [792_000.0, 784_000.0, 776_000.0, 768_000.0, 760_000.0];
        let s = summarize(&goodputs).unwrap();
        assert_eq!(s.mean, 776_000.0);
        // s = 8000 * sqrt(2.5) = 12 649.1; t_{0.975,4} = 2.776445; half-width
        // = 2.776445 * 12649.1 / sqrt(5) = 15 705.8
        let sd = s.std_dev.unwrap();
        assert!((sd - 8000.0 * 2.5f64.sqrt()).abs() < 1e-6);
        let h = s.ci95_half_width.unwrap();
        assert!((h - 2.776_445 * sd / 5f64.sqrt()).abs() < 0.01, "{h}");
    }

    #[test]
    fn edge_cases_are_errors_or_none() {
        assert_eq!(mean(&[]), Err(StatsError::NoSamples));
        assert_eq!(
            mean(&[1.0, f64::NAN]),
            Err(StatsError::NonFinite { index: 1 })
        );
        assert_eq!(sample_std_dev(&[1.0]), Err(StatsError::TooFewSamples));
        assert_eq!(
            student_t_half_width(&[1.0, 2.0], 1.5),
            Err(StatsError::BadLevel(1.5))
        );
        let one = summarize(&[4.5]).unwrap();
        assert_eq!(
            (one.mean, one.std_dev, one.ci95_half_width),
            (4.5, None, None)
        );
        assert!(summarize(&[f64::INFINITY]).is_err());
    }
}
