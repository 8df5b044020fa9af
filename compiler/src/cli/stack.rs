//! The shared stack options (`-p`, `--extend`, `--restrict`, the anchor) turned into the
//! library's request and loader, and a stack compiled for a command that needs one, its
//! diagnostics printed. The process's environment and working directory are read here,
//! once, for the library (`pipeline` never reads them).

use super::args::{AnchorArgs, StackArgs};
use crate::capability::stack::GrantStack;
use crate::freeze::{Anchor, FreezeCtx};
use crate::pipeline::{self, Compiled, Files, StackRequest};

impl AnchorArgs {
    /// The library's anchor these options describe.
    pub fn anchor(&self) -> Anchor {
        Anchor {
            home: self.home.clone(),
            cwd: self.cwd.clone(),
            env: self.env.clone(),
            env_clear: self.env_clear,
        }
    }
}

impl StackArgs {
    /// The request: `positional` files first, as policies, then `-p`, `--extend` and
    /// `--restrict` files in the order given, frozen as this process would re-anchored
    /// by the anchor options.
    pub fn request(&self, positional: &[String]) -> Result<StackRequest, String> {
        let ctx = FreezeCtx::from_process()?.with_anchor(&self.anchor.anchor())?;
        Ok(self.request_at(positional, ctx))
    }

    /// The same, frozen at a given anchor.
    pub fn request_at(&self, positional: &[String], ctx: FreezeCtx) -> StackRequest {
        let policies: Vec<String> = positional.iter().chain(&self.profiles).cloned().collect();
        StackRequest::new(&policies, &self.extend, &self.restrict, ctx)
    }

    /// The loader of the named layers: files named from this process's working
    /// directory (`--allow-outside-links` as given), and `std:NAME`.
    pub fn loader(&self) -> Files {
        loader(self.allow_outside_links)
    }

    /// Request and compile in one step (what the test suites and the fuzzers do).
    pub fn compile(&self, positional: &[String]) -> Result<Compiled, String> {
        Ok(pipeline::compile(self.request(positional)?, &self.loader()))
    }
}

/// Files named from this process's working directory, and `std:NAME`.
pub fn loader(outside_ok: bool) -> Files {
    let cwd = crate::reader::working_dir().map_err(|e| e.to_string());
    Files::new(cwd, outside_ok)
}

/// The compiled stack, or the exit code and message of why there is none.
pub fn compile_stack(
    stack: &StackArgs,
    positional: &[String],
    who: &str,
) -> Result<(Compiled, GrantStack), (i32, String)> {
    let req = stack
        .request(positional)
        .map_err(|e| (super::EXIT_USAGE, format!("{who}: {e}")))?;
    compile_request(req, &stack.loader(), who)
}

/// `compile_stack` for a request already anchored (another OS's anchor, say): the
/// warnings printed on stderr, the errors returned with the refusal.
pub fn compile_request(
    req: StackRequest,
    loader: &Files,
    who: &str,
) -> Result<(Compiled, GrantStack), (i32, String)> {
    let mut compiled =
        super::progress::during("compiling the profiles", || pipeline::compile(req, loader));
    let text = super::check::render(
        super::args::Format::Human,
        &super::for_humans(&compiled.diagnostics),
        &compiled.sources,
        false,
        None,
    );
    match compiled.stack.take() {
        Some(s) if !compiled.has_errors() => {
            if !text.is_empty() {
                eprint!("{text}");
            }
            Ok((compiled, s))
        }
        _ => Err((
            super::EXIT_REFUSED,
            format!("{text}{who}: refused: the profiles have errors; nothing ran"),
        )),
    }
}

/// Every layer file a launch reads (`-p`, `--extend`, `--restrict`) is held by its own
/// name: one reached through a symlink (the file or a directory above it) or with a
/// second hard link is refused, since the link's other name could sit in a write region
/// the envelope cannot protect, and the next run would read what the program wrote.
/// `Err` is the refusal's text (paths escaped for a terminal).
#[cfg(unix)]
pub fn layer_files_held(compiled: &Compiled) -> Result<(), String> {
    for l in &compiled.layers {
        let Some(p) = l.source.path.as_ref() else {
            continue;
        };
        held_by_name(p.surface_str())?;
    }
    Ok(())
}

/// `layer_files_held` for one file, by the name it was given (absolute).
#[cfg(unix)]
fn held_by_name(surface: &str) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let shown = crate::diag::escape::text(surface);
    let mut prefix = String::new();
    for part in surface.split('/').filter(|c| !c.is_empty()) {
        prefix.push('/');
        prefix.push_str(part);
        let md =
            std::fs::symlink_metadata(&prefix).map_err(|e| format!("the profile {shown}: {e}"))?;
        if md.file_type().is_symlink() {
            return Err(format!(
                "the profile {shown} is reached through the symlink {}: a link can be pointed \
                 elsewhere between runs; name the file by its real path",
                crate::diag::escape::text(&prefix)
            ));
        }
    }
    let md = std::fs::symlink_metadata(surface).map_err(|e| format!("the profile {shown}: {e}"))?;
    if md.nlink() > 1 {
        return Err(format!(
            "the profile {shown} has {} hard links: another name of it could be rewritten for \
             the next run; keep one link only",
            md.nlink()
        ));
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::held_by_name;

    #[test]
    fn a_layer_file_through_a_symlink_or_with_a_second_link_is_refused() {
        let d = tempfile::tempdir().unwrap();
        // The temp dir's own path (no symlink above it on the test hosts).
        let root = d.path().to_str().unwrap();
        std::fs::create_dir(format!("{root}/real")).unwrap();
        std::fs::write(format!("{root}/real/p.ral"), "[]").unwrap();
        assert_eq!(held_by_name(&format!("{root}/real/p.ral")), Ok(()));
        std::os::unix::fs::symlink("real", format!("{root}/via")).unwrap();
        let e = held_by_name(&format!("{root}/via/p.ral")).unwrap_err();
        assert!(
            e.contains("through the symlink") && e.contains("/via"),
            "{e}"
        );
        std::os::unix::fs::symlink("real/p.ral", format!("{root}/link.ral")).unwrap();
        assert!(held_by_name(&format!("{root}/link.ral")).is_err());
        std::fs::hard_link(format!("{root}/real/p.ral"), format!("{root}/hl.ral")).unwrap();
        let e = held_by_name(&format!("{root}/real/p.ral")).unwrap_err();
        assert!(e.contains("2 hard links"), "{e}");
        std::fs::create_dir(format!("{root}/x\n::error::\u{1b}]8;;\u{202e}")).unwrap();
        let bad = format!("{root}/x\n::error::\u{1b}]8;;\u{202e}/p.ral");
        std::os::unix::fs::symlink("/nonexistent", &bad).unwrap();
        let e = held_by_name(&bad).unwrap_err();
        assert!(
            !e.contains('\n') && !e.contains('\u{1b}') && !e.contains('\u{202e}'),
            "{e:?}"
        );
    }
}
