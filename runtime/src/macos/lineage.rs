//! The confined program's process tree as seen by polling the process table during the
//! run: the launched pid and every process whose parent is already in the tree. A
//! process that forks and exits between two looks, or is re-parented before it is seen,
//! is missed (its denials are then not shown); a process outside the tree is never
//! attributed to it. Pure: the caller takes the snapshots.

use std::collections::BTreeSet;

/// The pids known to descend from the launched program (the program included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lineage {
    known: BTreeSet<u32>,
}

impl Lineage {
    pub fn new(root: u32) -> Lineage {
        Lineage {
            known: BTreeSet::from([root]),
        }
    }

    /// Add every process of a snapshot of `(pid, ppid)` pairs that descends from a known
    /// pid, through any depth of the snapshot.
    pub fn observe(&mut self, table: &[(u32, u32)]) {
        loop {
            let before = self.known.len();
            for &(pid, ppid) in table {
                if pid != ppid && self.known.contains(&ppid) {
                    self.known.insert(pid);
                }
            }
            if self.known.len() == before {
                return;
            }
        }
    }

    pub fn contains(&self, pid: u32) -> bool {
        self.known.contains(&pid)
    }

    pub fn len(&self) -> usize {
        self.known.len()
    }

    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descendants_at_any_depth_in_any_order() {
        let mut l = Lineage::new(100);
        // Grandchild listed before its parent.
        l.observe(&[(1, 0), (102, 101), (101, 100), (200, 1), (103, 102)]);
        for p in [100, 101, 102, 103] {
            assert!(l.contains(p), "{p}");
        }
        assert!(!l.contains(200));
        assert!(!l.contains(1));
        assert_eq!(l.len(), 4);
    }

    #[test]
    fn a_child_seen_once_stays_after_it_exits() {
        let mut l = Lineage::new(10);
        l.observe(&[(11, 10)]);
        l.observe(&[(12, 1)]);
        assert!(l.contains(11));
        assert!(!l.contains(12));
    }

    #[test]
    fn a_self_parented_entry_adds_nothing() {
        let mut l = Lineage::new(0);
        l.observe(&[(0, 0), (5, 7)]);
        assert_eq!(l.len(), 1);
    }
}
