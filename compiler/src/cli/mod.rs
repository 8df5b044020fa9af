//! The command line: clap definitions and one module per subcommand. The only place that
//! reads the process (arguments, environment, files named on the command line) and writes
//! to stdout/stderr.

/// Run the CLI; returns the process exit code.
pub fn main() -> i32 {
    0
}
