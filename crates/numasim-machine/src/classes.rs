//! Access classes: what a memory access from a socket to a memory node is called.
//!
//! Classes are named by the links crossed (`remote_1hop` inside a StarNUMA chassis,
//! `remote_3hop` across chassis), so they follow from the machine's routes; both engines, the
//! migration cost model and the report use these names. They live here, beside the routes,
//! so no engine carries its own copy of the naming rule.

use crate::Machine;

/// Class of a demand access from a socket to a memory node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessClass {
    /// The node is attached to the requesting socket.
    Local,
    /// The node is attached to another socket, `hops` links away.
    Remote { hops: u32 },
    /// The node is memory-only (a CXL pool, a memory blade).
    Pool,
}

/// Class name of cache-to-cache (block) transfers in timing mode.
pub const BLOCK_TRANSFER: &str = "block_transfer";

impl AccessClass {
    /// The name used in results (`local`, `remote_<k>hop`, `pool`).
    pub fn name(self) -> String {
        match self {
            AccessClass::Local => "local".to_string(),
            AccessClass::Remote { hops } => format!("remote_{hops}hop"),
            AccessClass::Pool => "pool".to_string(),
        }
    }
}

impl Machine {
    /// Class of an access from `socket` to memory node `node`.
    pub fn access_class(&self, socket: usize, node: usize) -> AccessClass {
        match self.memory_nodes[node].attached_socket {
            Some(a) if a == socket => AccessClass::Local,
            Some(_) => AccessClass::Remote {
                hops: self.hops(socket, node),
            },
            None => AccessClass::Pool,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starnuma_pool_machine_has_local_remote_and_pool_classes() {
        let m = Machine::load("starnuma16-pool").unwrap();
        let pool = m.memory_nodes.iter().position(|n| n.attached_socket.is_none()).unwrap();
        let own = m.local_memory(0).next().unwrap();
        assert_eq!(m.access_class(0, own), AccessClass::Local);
        assert_eq!(m.access_class(0, pool).name(), "pool");
        let other = m.local_memory(15).next().unwrap();
        let c = m.access_class(0, other);
        assert!(matches!(c, AccessClass::Remote { hops } if hops >= 1), "{c:?}");
        assert_eq!(c.name(), format!("remote_{}hop", m.hops(0, other)));
    }
}
