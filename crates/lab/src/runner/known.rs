//! The runners the command line knows by name (`runner = "..."` in an
//! experiment file, `--runner` on `msctp run` and `msctp sweep`).

use crate::runner::Runner;
use crate::runner::simulator::SimRunner;
use crate::runner::synthetic::SyntheticRunner;

/// The names of the available runners.
pub const NAMES: &[&str] = &["sim", "synthetic"];

/// The runner called `name`, or why there is none.
pub fn by_name(name: &str) -> Result<Box<dyn Runner + Send>, String> {
    match name {
        "synthetic" => Ok(Box::new(SyntheticRunner)),
        "sim" => Ok(Box::new(SimRunner::default())),
        other => Err(format!(
            "unknown runner `{other}` (runners: {})",
            NAMES.join(", ")
        )),
    }
}
