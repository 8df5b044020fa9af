//! `ralc fmt [--check] FILE…`: lay profiles out in the canonical layout
//! (`crate::format`). Each file is read through the layers' loader (`stack::loader`: the
//! reviewed reader, so a link out of the checkout is refused as everywhere else) and, without `--check`,
//! rewritten in place when its layout differs: a new sibling file, renamed over it. With
//! `--check` nothing is written and a unified diff of each file that is not formatted is
//! printed. A file that does not parse is never rewritten: the parser's diagnostics are
//! printed, with their spans, and the exit is 2 (no answer).
//!
//! Exit: 0 every file formatted (or rewritten), 1 `--check` found a file not formatted,
//! 2 no answer: usage (`EXIT_USAGE`), or a file that cannot be read, does not parse, or
//! could not be written (`EXIT_BROKEN`).

use super::args::FmtArgs;
use crate::diag::{self, Diagnostic, SourceMap, Span};
use crate::format::{self, Refusal};
use crate::pipeline::load::Loader as _;
use crate::syntax::codes;
use std::io::Write as _;

/// What became of one file.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Formatted,
    /// `--check`: its layout differs (the diff was printed).
    Differs,
    /// No answer: unreadable, unparsable or not written (reported).
    Failed,
}

pub fn run(args: &FmtArgs) -> i32 {
    if let Some(name) = args.files.iter().find(|n| n.starts_with("std:")) {
        eprintln!(
            "ralc fmt: `{name}` is a standard profile built into ralc; name its source file (std-profiles/…) instead"
        );
        return super::EXIT_USAGE;
    }
    if args.files.iter().filter(|n| *n == "-").count() > 1 {
        eprintln!("ralc fmt: standard input (`-`) can be named once");
        return super::EXIT_USAGE;
    }
    let mut outcomes = Vec::new();
    for name in &args.files {
        outcomes.push(one(name, args.check));
    }
    if outcomes.contains(&Outcome::Failed) {
        super::EXIT_BROKEN
    } else if outcomes.contains(&Outcome::Differs) {
        super::EXIT_NO
    } else {
        super::EXIT_OK
    }
}

fn one(name: &str, check: bool) -> Outcome {
    let stdin = name == "-";
    let read = if stdin {
        crate::reader::read_stdin_bounded(crate::reader::PROFILE_LIMIT)
            .map_err(|e| format!("cannot read standard input: {e}"))
    } else {
        super::stack::loader(false).load(name)
    };
    let bytes = match read {
        Ok(b) => b,
        Err(msg) => {
            let mut sources = SourceMap::new();
            let id = sources.add(name, Vec::<u8>::new());
            let d = Diagnostic::error(codes::E0100, msg)
                .at(Span::new(id, 0, 0))
                .with_help("name a readable profile file");
            report(&[d], &sources);
            return Outcome::Failed;
        }
    };
    // the name as every line printed here shows it: a name may hold a newline and a
    // workflow command (`d/a\n::error::x.ral`), so it is escaped before any header
    let shown = diag::escape::text(name);
    let mut sources = SourceMap::new();
    let id = sources.add(name, bytes.clone());
    let formatted = match format::format_source(id, &bytes) {
        Ok(t) => t,
        Err(Refusal::Syntax(diags)) => {
            if let Some(end) = crate::syntax::quote_limit(id, &diags) {
                sources.limit_quoting(id, end);
            }
            report(&diags, &sources);
            eprintln!("ralc fmt: {shown}: not formatted: it does not parse");
            return Outcome::Failed;
        }
        Err(Refusal::Unfaithful(why)) => {
            eprintln!(
                "ralc fmt: {shown}: left as it is: {why} (a fault of the formatter; please report it with the file)"
            );
            return Outcome::Failed;
        }
    };
    let same = formatted.as_bytes() == bytes.as_slice();
    if check {
        if same {
            return Outcome::Formatted;
        }
        // the reader made sure of UTF-8: the file parsed
        let old = String::from_utf8_lossy(&bytes);
        let d = format::udiff::unified(&shown, &format!("{shown} (formatted)"), &old, &formatted);
        super::emit(&diag::escape::lines(&d));
        return Outcome::Differs;
    }
    if stdin {
        super::emit(&formatted);
        let _ = std::io::stdout().flush();
        return Outcome::Formatted;
    }
    if same {
        return Outcome::Formatted;
    }
    match write_in_place(name, &formatted) {
        Ok(()) => Outcome::Formatted,
        Err(e) => {
            eprintln!("ralc fmt: {shown}: not written: {e}");
            Outcome::Failed
        }
    }
}

fn report(diags: &[Diagnostic], sources: &SourceMap) {
    let color = super::check::color_for_stdout();
    eprint!("{}", diag::human::render(diags, sources, color));
}

/// Replace the file `name` with `text`: written to a new sibling, given the file's
/// permissions, then renamed over it, so a reader never sees a half-written profile.
/// Never through a link: a name that is a link is refused (format the file it leads to
/// by its own name); the read before it already refused a file outside the tree or in a
/// git directory, whatever directory links led there.
#[allow(
    clippy::disallowed_methods,
    reason = "fmt site: the formatted profile, written to a new sibling file then renamed over the original"
)]
fn write_in_place(name: &str, text: &str) -> Result<(), String> {
    let path = std::fs::canonicalize(name).map_err(|e| e.to_string())?;
    let link = std::fs::symlink_metadata(name).map_err(|e| e.to_string())?;
    if link.file_type().is_symlink() {
        return Err(format!(
            "it is reached through a link (to `{}`); ralc fmt never writes through a link: name the file itself",
            crate::diag::escape::text(&path.display().to_string())
        ));
    }
    let meta = std::fs::metadata(&path).map_err(|e| e.to_string())?;
    let (Some(dir), Some(file)) = (path.parent(), path.file_name()) else {
        return Err("it has no directory".into());
    };
    let tmp = dir.join(format!(
        ".{}.ralc-fmt.{}",
        file.to_string_lossy(),
        std::process::id()
    ));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        drop(f);
        std::fs::set_permissions(&tmp, meta.permissions())?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        e.to_string()
    })
}
