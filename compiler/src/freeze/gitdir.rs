//! `gitdir:` discovery (spec §3.1): the real git directory found from the working
//! directory upward; outside a repository, the working directory. A `.git` *file* is a
//! pointer that is followed only to a directory that names this working tree back (its
//! `gitdir` back-pointer, or `core.worktree`). Each bad pointer is its own refusal. It
//! reads the disk only through `Disk`, never follows an unclaimed pointer, and refuses a
//! `.git` that is itself a symbolic link.

use super::ctx::FreezeCtx;
use super::disk::EntryKind;
use crate::path::lex::{absolute_under, fold_dots_under, join_under, parse_bytes};

/// Why a `.git` pointer is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BadPointer {
    /// The pointed-at directory does not name this working tree back.
    Unclaimed { pointer: String, target: String },
    /// The pointer file holds no `gitdir:` line.
    NoGitdirLine { pointer: String },
    /// The pointer file cannot be read.
    Unreadable { pointer: String, error: String },
    /// `.git` is a symbolic link: git never writes one, so a checkout holding one is
    /// refused rather than followed (it could name any file or directory of the host).
    Symlinked { pointer: String },
}

/// The git directory for `ctx`'s working directory (surface, folded).
pub fn discover(ctx: &FreezeCtx) -> Result<String, BadPointer> {
    let rules = ctx.rules();
    let cwd = ctx.cwd_surface().to_string();
    if !absolute_under(&cwd, rules) {
        return Ok(cwd);
    }
    let mut dir = cwd.clone();
    loop {
        let Ok(candidate) = join_under(&dir, ".git", rules) else {
            return Ok(cwd);
        };
        if ctx.disk().is_symlink(&candidate) {
            return Err(BadPointer::Symlinked { pointer: candidate });
        }
        match ctx.disk().kind(&candidate) {
            Some(EntryKind::Dir) => return Ok(candidate),
            Some(EntryKind::File) => return follow_pointer(ctx, &dir, &candidate),
            Some(EntryKind::Other) | None => {}
        }
        let head_len = parse_bytes(dir.as_bytes(), rules).head_len;
        if dir.len() <= head_len {
            return Ok(cwd);
        }
        let parent = fold_dots_under(&format!("{dir}{}..", rules.sep() as char), rules);
        if parent == dir {
            return Ok(cwd);
        }
        dir = parent;
    }
}

fn text_of(bytes: &[u8]) -> Option<&str> {
    std::str::from_utf8(bytes).ok()
}

/// An absolute path from a pointer's text, relative ones taken from `base`.
fn resolve_from(base: &str, text: &str, ctx: &FreezeCtx) -> Option<String> {
    let rules = ctx.rules();
    if absolute_under(text, rules) {
        Some(fold_dots_under(text, rules))
    } else {
        join_under(base, text, rules).ok()
    }
}

fn same_real(ctx: &FreezeCtx, a: &str, b: &str) -> bool {
    match (ctx.real_of(a), ctx.real_of(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

fn follow_pointer(ctx: &FreezeCtx, worktree: &str, pointer: &str) -> Result<String, BadPointer> {
    let bytes = ctx
        .disk()
        .read_small(pointer)
        .map_err(|e| BadPointer::Unreadable {
            pointer: pointer.to_string(),
            error: e.to_string(),
        })?;
    let text = text_of(&bytes).ok_or_else(|| BadPointer::Unreadable {
        pointer: pointer.to_string(),
        error: "not UTF-8".to_string(),
    })?;
    let target_text = text
        .lines()
        .find_map(|l| l.strip_prefix("gitdir:"))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| BadPointer::NoGitdirLine {
            pointer: pointer.to_string(),
        })?;
    let unclaimed = |target: &str| BadPointer::Unclaimed {
        pointer: pointer.to_string(),
        target: target.to_string(),
    };
    let target = resolve_from(worktree, target_text, ctx).ok_or_else(|| unclaimed(target_text))?;
    if ctx.disk().kind(&target) != Some(EntryKind::Dir) {
        return Err(unclaimed(&target));
    }
    let rules = ctx.rules();
    // a linked worktree: `<target>/gitdir` names this `.git` file back
    if let Ok(back) = join_under(&target, "gitdir", rules) {
        if let Ok(b) = ctx.disk().read_small(&back) {
            if let Some(p) = text_of(&b).map(str::trim).filter(|t| !t.is_empty()) {
                if let Some(p) = resolve_from(&target, p, ctx) {
                    if same_real(ctx, &p, pointer) {
                        return Ok(target);
                    }
                }
            }
        }
    }
    // a submodule (or any git dir): `core.worktree` names this working tree
    if let Ok(cfg) = join_under(&target, "config", rules) {
        if let Ok(b) = ctx.disk().read_small(&cfg) {
            if let Some(t) = text_of(&b) {
                if let Some(wt) = core_worktree(t) {
                    if let Some(p) = resolve_from(&target, &wt, ctx) {
                        if same_real(ctx, &p, worktree) {
                            return Ok(target);
                        }
                    }
                }
            }
        }
    }
    Err(unclaimed(&target))
}

/// `worktree = X` in the `[core]` section of a git config.
fn core_worktree(config: &str) -> Option<String> {
    let mut in_core = false;
    let mut found = None;
    for line in config.lines() {
        let l = line.trim();
        if l.starts_with('[') {
            in_core = l
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim()
                .eq_ignore_ascii_case("core");
            continue;
        }
        if !in_core {
            continue;
        }
        if let Some((k, v)) = l.split_once('=') {
            if k.trim().eq_ignore_ascii_case("worktree") {
                let v = v.trim().trim_matches('"');
                found = Some(v.to_string());
            }
        }
    }
    found
}

// Unix only: its tests make POSIX symlinks and pointer files.
#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use crate::freeze::disk::MemDisk;

    #[test]
    fn a_symlinked_git_is_refused_not_followed() {
        let disk = MemDisk::new()
            .dir("/work/p")
            .dir("/elsewhere/repo.git")
            .link("/work/p/.git", "/elsewhere/repo.git");
        let ctx = FreezeCtx::from_parts(
            Default::default(),
            "/work/p".into(),
            std::sync::Arc::new(disk),
        );
        assert_eq!(
            discover(&ctx),
            Err(BadPointer::Symlinked {
                pointer: "/work/p/.git".into()
            })
        );
    }

    #[test]
    fn reads_core_worktree() {
        let c =
            "[core]\n\tbare = false\n\tworktree = ../../../sub\n[remote \"o\"]\n\tworktree = /x\n";
        assert_eq!(super::core_worktree(c).as_deref(), Some("../../../sub"));
        assert_eq!(super::core_worktree("[user]\nworktree=/x\n"), None);
    }
}
