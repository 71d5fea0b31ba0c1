//! A fake runner: a formula model with noise from the seed, counting its
//! runs.

use std::sync::atomic::{AtomicUsize, Ordering};

use msctp_lab::{RunError, RunRecord, Runner};
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};

#[derive(Default)]
pub struct Fake {
    pub runs: AtomicUsize,
    /// Fail every run of this stack.
    pub fail_stack: Option<String>,
    /// Panic on every run of this stack.
    pub panic_stack: Option<String>,
    /// The model version reported (empty by default).
    pub fingerprint: String,
}

impl Fake {
    pub fn count(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }
}

impl Runner for Fake {
    fn name(&self) -> &str {
        "fake"
    }
    fn fingerprint(&self) -> String {
        self.fingerprint.clone()
    }
    fn validate(&self, s: &toml::Table) -> Result<(), RunError> {
        for k in s.keys() {
            if !["stack", "x", "noise"].contains(&k.as_str()) {
                return Err(RunError::Scenario(format!("unknown key `{k}`")));
            }
        }
        Ok(())
    }
    fn run(&self, s: &toml::Table, seed: u64) -> Result<RunRecord, RunError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        let stack = s.get("stack").and_then(|v| v.as_str()).unwrap_or("tcp");
        if self.fail_stack.as_deref() == Some(stack) {
            return Err(RunError::Failed("no route".into()));
        }
        if self.panic_stack.as_deref() == Some(stack) {
            panic!("model bug");
        }
        let x = s
            .get("x")
            .and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)))
            .unwrap_or(0.0);
        let noise = s.get("noise").and_then(|v| v.as_float()).unwrap_or(0.0);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let e = Normal::new(0.0, noise).unwrap().sample(&mut rng);
        let (goodput, delay) = match stack {
            "sctp" => (1.2e6 * (1.0 + e), 0.0),
            _ => ((1.0e6 - 0.05e6 * x) * (1.0 + e), 0.75 * x),
        };
        Ok(RunRecord::new()
            .with_metric("goodput_bps", goodput)
            .with_metric("handoff_delay_s", delay)
            .with_metric("delay_s", delay)
            .with_series("stations", vec![(0.0, 1.0), (1.0, 2.0 + x)]))
    }
}
