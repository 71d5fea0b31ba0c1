//! Script values versus the engine's ("live") values, as packetdrill maps
//! them.
//!
//! The engine chooses its own verification tag and initial TSN at random.
//! The script writes them symbolically in the engine's first INIT (active
//! side) or INIT ACK (passive side), e.g. `tag=1, tsn=0`; from then on
//! every TSN of the engine's space (its DATA TSNs, the Cumulative TSN Ack
//! and duplicate TSNs in the script's SACKs and SHUTDOWNs, ASCONF serial
//! numbers) is shifted by the difference, and the engine's tag replaces
//! the script's. The script's own tags and TSNs are used as written.

/// The learned correspondence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mapping {
    /// The engine's initiate tag as the script writes it, and its value.
    pub script_local_tag: u32,
    pub live_local_tag: u32,
    /// The engine's initial TSN as the script writes it, and its value.
    pub script_local_tsn: u32,
    pub live_local_tsn: u32,
    /// The engine's first INIT or INIT ACK was seen.
    pub learned: bool,
}

impl Mapping {
    /// A TSN (or ASCONF serial) of the engine's space, script to live.
    pub fn local_tsn_to_live(&self, script: u32) -> u32 {
        script.wrapping_add(self.live_local_tsn.wrapping_sub(self.script_local_tsn))
    }

    /// A TSN of the engine's space, live to script.
    pub fn local_tsn_to_script(&self, live: u32) -> u32 {
        live.wrapping_add(self.script_local_tsn.wrapping_sub(self.live_local_tsn))
    }

    /// An initiate tag in a chunk: the engine's own is shown symbolically.
    pub fn local_tag_to_script(&self, live: u32) -> u32 {
        if self.learned && live == self.live_local_tag {
            self.script_local_tag
        } else {
            live
        }
    }

    pub fn local_tag_to_live(&self, script: u32) -> u32 {
        if self.learned && script == self.script_local_tag {
            self.live_local_tag
        } else {
            script
        }
    }

    /// The verification tag of an explicit `sctp(tag=N)` addressed to the
    /// engine: offset from the engine's tag like the script's value is from
    /// the symbolic one; 0 stays 0, and a result of 0 becomes 1.
    pub fn explicit_tag_to_live(&self, script: u32) -> u32 {
        if script == 0 {
            return 0;
        }
        let v = self
            .live_local_tag
            .wrapping_add(script.wrapping_sub(self.script_local_tag));
        if v == 0 { 1 } else { v }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsns_and_tags_map_both_ways() {
        let m = Mapping {
            script_local_tag: 2,
            live_local_tag: 0xdead_beef,
            script_local_tsn: 1,
            live_local_tsn: u32::MAX,
            learned: true,
        };
        assert_eq!(m.local_tsn_to_live(1), u32::MAX);
        assert_eq!(m.local_tsn_to_live(2), 0, "wraps like serial numbers");
        assert_eq!(m.local_tsn_to_script(0), 2);
        assert_eq!(m.local_tag_to_script(0xdead_beef), 2);
        assert_eq!(m.local_tag_to_script(7), 7);
        assert_eq!(m.explicit_tag_to_live(3), 0xdead_bef0);
        assert_eq!(m.explicit_tag_to_live(0), 0);
        let z = Mapping {
            script_local_tag: 2,
            live_local_tag: 1,
            ..m
        };
        assert_eq!(z.explicit_tag_to_live(1), 1, "never 0 unless written 0");
    }
}
