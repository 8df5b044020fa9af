//! The launch refusal of a write grant spelled through a place that moves with the caller
//! (`cwd:`, `tempdir:`, `gitdir:`) that froze to the caller's home or an ancestor of it
//! (`/`, `/home`): run from `~`, `cwd:` would hand the program every start-up file of the
//! home (`.bash_aliases`, `.local/bin`, user-site `.pth`, `.cargo/env`). A profile that
//! writes `~` by name (any layer's entry not spelled through a moving place) is the
//! author's choice and is not refused here (`broad-write` names it).
//!
//! Pure: it reads the stack and asks the host only through `Resolve`; it never launches.

use crate::capability::resolve::Resolve;
use crate::capability::stack::GrantStack;
use crate::path::identity::{path_within, Identity};

/// The places whose expansion follows the caller (its working directory, its `TMPDIR`,
/// the repository it stands in).
const MOVING: [&str; 3] = ["cwd:", "tempdir:", "gitdir:"];

fn moves(written: &str) -> bool {
    MOVING.iter().any(|m| written.starts_with(m))
}

/// Why the launch is refused: one reason per write entry through a moving place that
/// covers the home, unless some entry that does not move also covers it. Empty: none.
pub fn home_through_moving_place(stack: &GrantStack, r: &dyn Resolve) -> Vec<String> {
    let Some(home) = r.home_real() else {
        return Vec::new();
    };
    let mut by_name = false;
    let mut moving: Vec<(String, String)> = Vec::new();
    for l in stack.layers() {
        let Some(fs) = &l.fs else { continue };
        for w in &fs.write {
            let real = w.path.real().as_str();
            if !path_within(Identity::Stored, real, &home) {
                continue;
            }
            if moves(&w.origin.written) {
                moving.push((w.origin.written.to_string(), real.to_string()));
            } else {
                by_name = true;
            }
        }
    }
    if by_name {
        return Vec::new();
    }
    moving.sort();
    moving.dedup();
    moving
        .into_iter()
        .map(|(written, real)| {
            let what = if real == home {
                "the home directory".to_string()
            } else {
                format!("`{real}`, which holds the home directory `{home}`")
            };
            format!(
                "the write grant `{written}` is {what} from here: the program could plant what the host's shell, PATH and tools start from; run from a project directory, or grant '~' explicitly"
            )
        })
        .collect()
}

#[cfg(all(test, unix))]
mod tests {
    use super::home_through_moving_place;
    use crate::freeze::{FreezeCtx, MemDisk};
    use crate::pipeline::{compile, Memory, StackRequest};
    use std::collections::BTreeMap;
    use std::sync::Arc;

    fn refusals(text: &str, cwd: &str) -> Option<Vec<String>> {
        let ctx = FreezeCtx::from_parts(
            BTreeMap::from([
                ("HOME".to_string(), "/home/u".to_string()),
                ("TMPDIR".to_string(), "/home/u".to_string()),
            ]),
            cwd.to_string(),
            Arc::new(MemDisk::default()),
        );
        let loader = Memory::new().with("p.ral", text);
        let compiled = compile(
            StackRequest::new(&["p.ral".to_string()], &[], &[], ctx),
            &loader,
        );
        assert!(!compiled.has_errors(), "{:?}", compiled.diagnostics);
        compiled
            .stack
            .as_ref()
            .map(|stack| home_through_moving_place(stack, &compiled.ctx))
    }

    #[test]
    fn a_moving_write_that_froze_to_the_home_or_above_is_refused() {
        let r = refusals("[ fs: [ write: ['cwd:'] ] ]", "/home/u").expect("a stack");
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(r[0].contains("grant '~' explicitly"), "{r:?}");
        assert_eq!(
            refusals("[ fs: [ write: ['cwd:'] ] ]", "/home")
                .expect("a stack")
                .len(),
            1
        );
        assert_eq!(
            refusals("[ fs: [ write: ['cwd:'] ] ]", "/")
                .expect("a stack")
                .len(),
            1
        );
        assert_eq!(
            refusals("[ fs: [ write: ['tempdir:'] ] ]", "/home/u/p")
                .expect("a stack")
                .len(),
            1
        );
    }

    #[test]
    fn a_project_directory_and_a_home_named_by_the_author_are_not() {
        assert!(refusals("[ fs: [ write: ['cwd:'] ] ]", "/home/u/proj")
            .expect("a stack")
            .is_empty());
        assert!(refusals("[ fs: [ write: ['cwd:sub'] ] ]", "/home/u")
            .expect("a stack")
            .is_empty());
        assert!(refusals("[ fs: [ write: ['~', 'cwd:'] ] ]", "/home/u")
            .expect("a stack")
            .is_empty());
        assert!(refusals("[ fs: [ read: ['cwd:'] ] ]", "/home/u")
            .expect("a stack")
            .is_empty());
    }
}
