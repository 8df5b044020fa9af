//! The command line: clap definitions and one module per subcommand. The only place that
//! reads the process (arguments, environment, files named on the command line) and writes
//! to stdout/stderr. Each subcommand module exposes `run(&Args) -> i32` (the exit code).

pub mod args;
pub mod check;
pub mod deputy;
pub mod explain;
pub mod render;
pub mod render_windows;
pub mod run;
#[cfg(windows)]
pub mod run_windows;
pub mod show;
pub mod why;

use clap::Parser;

/// Exit code for a usage error (clap's own).
pub const EXIT_USAGE: i32 = 2;

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
    match &cli.command {
        args::Command::Check(a) => check::run(a),
        args::Command::Show(a) => show::run(a),
        args::Command::Why(a) => why::run(a),
        args::Command::Render(a) => render::run(a),
        args::Command::Run(a) => run::run(a),
        args::Command::Deputy(a) => deputy::run(a),
        args::Command::Explain(a) => explain::run(a),
    }
}

/// Whether human output may use colour: stdout/stderr is a terminal and `NO_COLOR` is
/// unset or empty.
pub fn use_color(no_color: Option<&str>, is_terminal: bool) -> bool {
    is_terminal && no_color.is_none_or(|v| v.is_empty())
}
