//! Identifiers of the simulator's objects: small copyable indices, valid in
//! the [`World`](crate::World) that issued them.

use serde::Serialize;
use std::fmt;

macro_rules! id_type {
    ($(#[$m:meta])* $name:ident, $prefix:literal) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        pub struct $name(pub u32);

        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

id_type!(
    /// A node (host or router).
    NodeId, "n"
);
id_type!(
    /// An interface, numbered per node (0, 1, ... in creation order).
    IfaceId, "if"
);
id_type!(
    /// A point-to-point link.
    LinkId, "l"
);
id_type!(
    /// A wireless access cell.
    CellId, "c"
);
id_type!(
    /// An agent (protocol stack or application) on some node.
    AgentId, "a"
);
