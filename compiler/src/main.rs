//! The `ralc` binary. Serves the `--warrant` trampoline role before anything else (the
//! trampoline must open and pin nothing before it is confined), then the CLI.

#![forbid(unsafe_code)]

fn main() {
    if let Some(code) = ralc_runtime::serve_warrant_if_asked() {
        std::process::exit(code);
    }
    std::process::exit(ralc::cli::main());
}
