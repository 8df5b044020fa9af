//! `Resolve`: the one way the model learns about the live host at judgment time — where a
//! bare command name lands on the process's own `PATH`, and what a path resolves to now.
//! The model itself stays pure: it calls this trait, and tests pass a fake.
//!
//! Shared interface: implemented by the freeze's `FreezeCtx` (the live host, or the host
//! as `--home/--cwd/--env` describe it) and by test fakes.

use crate::path::frozen::RealPath;

/// The vouched links a program is reached through, and the file they end at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkChain {
    /// Each link where it sits (its directory real, the link itself not followed), in the
    /// order followed; never empty.
    pub links: Vec<RealPath>,
    /// The real path the last link leads to.
    pub target: RealPath,
}

pub trait Resolve {
    /// A bare command name searched on the process's own `PATH` (absolute entries only,
    /// never a relative or empty one): the path it was found at and its real path.
    fn which(&self, name: &str) -> Option<(String, RealPath)>;
    /// The real form of an absolute path as the host resolves it now: symlinks followed;
    /// for a path that does not exist, its nearest existing ancestor resolved and the rest
    /// appended lexically. `None` when the text is not an absolute path under the host's
    /// rules, or the real path is not Unicode.
    fn real(&self, path: &str) -> Option<RealPath>;
    /// The working directory the stack was frozen at (absolute, real).
    fn cwd(&self) -> &str;
    /// The caller's home directory (`HOME`) as its real path, when set and absolute;
    /// `None` (the default) when unknown.
    fn home_real(&self) -> Option<String> {
        None
    }
    /// The carriers of the executable at `program` (a real path): the `#!` interpreters
    /// the kernel opens to start it, each as its real path, while the host vouches for
    /// each (`freeze::carrier`). Empty (the default) for a binary or an unvouched one.
    fn carriers(&self, program: &RealPath) -> Vec<RealPath> {
        let _ = program;
        Vec::new()
    }
    /// The vouched links from `at` (an absolute path as found or given) to its file, each
    /// where it sits, in the order followed, and the file they end at (`freeze::links`);
    /// `None` when `at` is not a link or some link on the way, or a directory holding one,
    /// is not vouched for.
    fn links(&self, at: &str) -> Option<LinkChain> {
        let _ = at;
        None
    }
    /// The vouched chains of the symlinks directly in the directory `dir` (a real path)
    /// that lead out of it, by name: the candidates of the link rule for the kernel's plan.
    /// Each is what `links` answers for the link's own path.
    fn link_chains_in(&self, dir: &str) -> Vec<LinkChain> {
        let _ = dir;
        Vec::new()
    }
    /// The names in the directory at the real path `dir` now (for the existing spellings an
    /// exclusion also names, spec §3.6). Empty (the default) when unknown.
    fn names(&self, dir: &str) -> Vec<String> {
        let _ = dir;
        Vec::new()
    }
    /// A resolver for one batch of questions asked at one moment (`ralc why --batch`): it
    /// answers as this one does, and may remember what it learns about the host for as
    /// long as it lives. `None` (the default): ask this resolver itself.
    fn for_batch(&self) -> Option<Box<dyn Resolve + '_>> {
        None
    }
}
