//! The progress line through the binary: a `why --batch` whose input arrives after 1.5 s
//! is work over a second. On a terminal (util-linux `script` gives the command a pty as
//! stderr) the line shows and is erased before the answer; with `--quiet`, or on a pipe,
//! nothing but the answer is written. `script` is part of Debian's essential `bsdutils`:
//! its absence fails the test, it is not skipped.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use std::process::Output;

const SLOW_BATCH: &str = "(sleep 1.5; echo read /etc/passwd)";

fn sh(cmd: &str) -> Output {
    #[allow(
        clippy::disallowed_methods,
        reason = "test site: runs the ralc binary under test through sh and script"
    )]
    let out = std::process::Command::new("sh")
        .args(["-c", cmd])
        .env("NO_COLOR", "1")
        .output()
        .expect("sh runs");
    out
}

fn on_a_tty(ralc_args: &str) -> String {
    let inner = format!("{SLOW_BATCH} | {} {ralc_args}", env!("CARGO_BIN_EXE_ralc"));
    let out = sh(&format!("script -qec \"sh -c '{inner}'\" /dev/null"));
    assert!(
        out.status.success(),
        "script (util-linux) must run: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn slow_work_on_a_terminal_shows_a_progress_line_and_erases_it() {
    let text = on_a_tty("why -p std:minimal --batch -");
    let line = "\rralc: answering\u{2026}\r\x1b[2K";
    assert!(text.starts_with(line), "{text:?}");
    assert!(
        text[line.len()..].starts_with("{\"question\":\"read\""),
        "{text:?}"
    );
}

#[test]
fn quiet_or_a_pipe_shows_none() {
    let text = on_a_tty("-q why -p std:minimal --batch -");
    assert!(text.starts_with("{\"question\":\"read\""), "{text:?}");
    let out = sh(&format!(
        "{SLOW_BATCH} | {} why -p std:minimal --batch -",
        env!("CARGO_BIN_EXE_ralc")
    ));
    assert!(
        out.stderr.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("{\"question\":\"read\""));
}
