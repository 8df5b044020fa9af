//! `envelope-replaced`: a read or write grant of a path the Linux envelope stands in for
//! with its own (`/dev/shm`, `/dev` itself, a host device, a write beneath `/proc`, a
//! host process's `/proc/N`, a write beneath `/sys`), so the grant cannot be honoured and
//! `ralc run` refuses it.
//! Judged on real paths by `ralc_runtime::plan::envelope_replaced`, the predicate the
//! renderer refuses by.

use super::{Finding, Level, Lint, LintInfo, LintInput};

pub static INFO: LintInfo = LintInfo {
    name: "envelope-replaced",
    default_level: Level::Warn,
    authoring: false,
    summary: "a grant the Linux envelope cannot honour (its own /dev and /proc, a /sys write)",
    what: "Reports a read or write entry whose real path is one the Linux envelope builds itself: anything under `/dev` but the standard device nodes (`/dev/null`, `/dev/zero`, `/dev/tty`, `/dev/pts`, …), a write at or beneath `/proc` other than `/proc/self`, a host process's `/proc/N`, and a write at or beneath `/sys`.",
    why: "Inside the envelope `/dev` and `/proc` are its own (bwrap `--dev`, `--proc`, the kernel-wide `/proc` read-only): a grant there would reach the envelope's copy, never the host's, so the program's writes would vanish silently; `/sys` is the host kernel's own settings, shown read-only at most. `ralc run` refuses such a plan rather than drop the grant.",
    example: "[\n  fs: [write: ['/dev/shm']],\n]",
    fix: "Remove the entry: the envelope's own `/dev/shm` and `/proc/self` are there for every program; a host device or the host's kernel settings are not for a confined program.",
};

pub struct EnvelopeReplaced;

impl Lint for EnvelopeReplaced {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        for l in input.layers {
            let Some(fs) = &l.fs else { continue };
            let entries = fs
                .read
                .iter()
                .map(|e| (e, false))
                .chain(fs.write.iter().map(|e| (e, true)));
            for (e, writable) in entries {
                let p = e.path.real().as_str();
                if let Some(why) = ralc_runtime::plan::envelope_replaced(p, writable) {
                    out.push(
                        super::finding(
                            format!("`{}` cannot be honoured on Linux: {why}", e.origin.written),
                            Some(e.origin.span),
                        )
                        .with_help("remove the entry; `ralc run` refuses a plan that holds it"),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::SourceMap;
    use crate::lint::testkit::{check_with, test_places, LayerBuilder};

    #[test]
    fn fires_on_dev_shm_and_proc_writes() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .write("/dev/shm")
            .write("/proc/sys/kernel")
            .read("/dev/kvm")
            .build(&mut sm)];
        let f = check_with(&EnvelopeReplaced, &layers, &sm, &test_places());
        assert_eq!(f.len(), 3, "{f:?}");
        assert!(f.iter().any(|x| x.message.contains("/dev/shm")));
    }

    #[test]
    fn is_silent_on_what_the_envelope_honours() {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("a.ral")
            .write("/dev/null")
            .write("/home/u/src")
            .read("/proc")
            .read("/dev/urandom")
            .build(&mut sm)];
        assert!(check_with(&EnvelopeReplaced, &layers, &sm, &test_places()).is_empty());
    }
}
