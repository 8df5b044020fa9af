//! The command line: clap definitions and one module per subcommand. The only place that
//! reads the process (arguments, environment, files named on the command line) and writes
//! to stdout/stderr. Each subcommand module exposes `run(&Args) -> i32` (the exit code).

pub mod args;
pub mod check;
pub mod completions;
pub mod deputy;
pub mod diff;
pub mod dormant;
pub mod explain;
pub mod fmt;
pub mod progress;
pub mod render;
pub mod render_windows;
pub mod run;
#[cfg(windows)]
pub mod run_windows;
pub mod show;
pub mod stack;
pub mod why;

use clap::Parser;
use std::sync::atomic::{AtomicBool, Ordering};

/// `--quiet`, set once from the command line before any subcommand runs.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Whether `--quiet` was given: print errors only.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// The exit codes every command shares (`docs/cli.md`, "Exit codes"):
/// 0 the command did its work and the answer is yes (clean, shown, granted, rendered);
/// 1 the answer is no (withheld, the plan refuses, a denied finding, NEW widens; for
/// `check`, whose question is "does it compile?", errors found);
/// 2 no answer: a usage error (clap's own code) or a named profile that does not compile
/// (cannot be read, parsed, typed or frozen), so that "no" is never confused with "could
/// not tell". `ralc run` alone differs, its 0–125 being the program's: a broken profile or
/// a refusal is 126 (nothing ran) and a missing program 127.
pub const EXIT_OK: i32 = 0;
/// The answer is no.
pub const EXIT_NO: i32 = 1;
/// No answer: a usage error (clap's own code).
pub const EXIT_USAGE: i32 = 2;
/// No answer: a named profile does not compile (the same code as a usage error).
pub const EXIT_BROKEN: i32 = 2;
/// `ralc diff`: NEW widens what OLD grants (or the two are incomparable).
pub const EXIT_WIDENS: i32 = EXIT_NO;
/// `ralc run`: nothing ran — the stack refused, or the confinement could not be
/// established.
pub const EXIT_REFUSED: i32 = 126;
/// `ralc run`: the program does not exist.
pub const EXIT_MISSING: i32 = 127;

/// The exit status of a launch the library refused: usage when no program was named; 127
/// when the program does not exist wherever that is found out (a path the guard judged
/// lexically, with nothing there, counts too); else 126.
#[allow(
    clippy::disallowed_methods,
    reason = "CLI site: whether a refused program's real path exists (exit 127)"
)]
pub fn exit_for(refused: &crate::pipeline::Refusal) -> i32 {
    use crate::pipeline::RefusalKind;
    match &refused.kind {
        RefusalKind::NoProgram => EXIT_USAGE,
        RefusalKind::NotFound => EXIT_MISSING,
        RefusalKind::Withheld { real: Some(p) } if std::fs::metadata(p).is_err() => EXIT_MISSING,
        RefusalKind::Withheld { .. } | RefusalKind::Confinement => EXIT_REFUSED,
    }
}

/// Write a command's output to stdout, whole, and flush it. A reader that closed the pipe
/// early (`| head`) has what it wanted: the rest is dropped quietly, and the command goes
/// on to its own exit code (it never panics). Any other write failure (a full disk) is
/// an answer not given: reported, and the process exits 2.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    let r = o.write_all(text.as_bytes()).and_then(|()| o.flush());
    match r {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => {
            drop(o);
            eprintln!("ralc: cannot write the output: {e}");
            std::process::exit(EXIT_BROKEN);
        }
    }
}

/// Run the CLI; returns the process exit code.
pub fn main() -> i32 {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    QUIET.store(cli.quiet, Ordering::Relaxed);
    match &cli.command {
        args::Command::Check(a) => check::run(a),
        args::Command::Show(a) => show::run(a),
        args::Command::Why(a) => why::run(a),
        args::Command::Render(a) => render::run(a),
        args::Command::Run(a) => run::run(a),
        args::Command::Deputy(a) => deputy::run(a),
        args::Command::Explain(a) => explain::run(a),
        args::Command::Diff(a) => diff::run(a),
        args::Command::Fmt(a) => fmt::run(a),
        args::Command::Completions(a) => completions::run(a),
    }
}

/// The diagnostics a human reader is shown: all of them, or under `--quiet` the errors
/// only (machine formats always carry all).
pub fn for_humans(diags: &[crate::diag::Diagnostic]) -> Vec<crate::diag::Diagnostic> {
    diags
        .iter()
        .filter(|d| !quiet() || d.is_error())
        .cloned()
        .collect()
}

/// Whether human output may use colour: stdout/stderr is a terminal and `NO_COLOR` is
/// unset or empty.
pub fn use_color(no_color: Option<&str>, is_terminal: bool) -> bool {
    is_terminal && no_color.is_none_or(|v| v.is_empty())
}
