//! Microsoft's SARIF multitool (`@microsoft/sarif-multitool` 5.7.0) as the suites' SARIF
//! judge: `./scripts/test` installs it into the repository's ignored `.tools/` folder, and
//! [`validate`] runs `sarif-multitool validate` over the logs a suite wrote and reads its
//! own SARIF answer. It must never be looked for outside the repository (no global
//! install, no `PATH`), and a missing multitool fails the caller: nothing is skipped.
//!
//! What counts as clean is one table, [`ACCEPTED_NOTES`]: every note the multitool may
//! still give ralc's logs, each documented in `docs/cli.md`. Errors and warnings are
//! never accepted.

use std::path::{Path, PathBuf};

/// The pinned version `scripts/test` installs.
pub const VERSION: &str = "5.7.0";

/// Notes that stay, with the reason `docs/cli.md` gives at more length: `(rule, the
/// first argument of the note when the rule is accepted for one property only)`.
pub const ACCEPTED_NOTES: &[(&str, Option<&str>)] = &[
    // message strings: GitHub code scanning shows `message.text`, not `id` + arguments
    ("SARIF2002", None),
    // version control provenance: ralc compiles files, it does not ask git
    ("SARIF2003", None),
    // a URI "not reachable via an HTTP GET": the schema's canonical address and the help
    // pages under the declared home, checked from a machine without a network
    ("SARIF2006", None),
    // rule ids are the lint names and codes users write in `# ralc:` directives
    ("SARIF2009", None),
];

/// Where `scripts/test` installs the multitool: the platform package's own executable,
/// run directly (the npm launcher `bin.js` passes its arguments through a shell, so a
/// path with a space or a quote in it would be split or reinterpreted).
pub fn multitool_path() -> PathBuf {
    crate::bin::workspace_root().join(format!(
        ".tools/sarif-multitool/node_modules/@microsoft/sarif-multitool-{}/Sarif.Multitool",
        match std::env::consts::OS {
            "macos" => "darwin",
            "windows" => "win32",
            os => os,
        }
    ))
}

/// One result of the multitool about one of the logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: String,
    /// `error`, `warning` or `note` (SARIF's default level is `warning`).
    pub level: String,
    /// The message arguments (the first is the JSON path the finding is about).
    pub arguments: Vec<String>,
    /// The log it is about.
    pub file: String,
}

impl Finding {
    /// Whether [`ACCEPTED_NOTES`] lets this finding stand.
    pub fn accepted(&self) -> bool {
        self.level == "note"
            && ACCEPTED_NOTES.iter().any(|(rule, only)| {
                *rule == self.rule
                    && only.is_none_or(|a| self.arguments.first().map(String::as_str) == Some(a))
            })
    }
}

/// Run `sarif-multitool validate` over `logs` (at least one), writing its own log into
/// `work`; every finding at the levels error, warning and note. Panics (failing the
/// test) when the multitool is missing or does not finish.
pub fn validate(logs: &[PathBuf], work: &Path) -> Vec<Finding> {
    assert!(!logs.is_empty(), "nothing to validate");
    let tool = multitool_path();
    assert!(
        tool.is_file(),
        "the SARIF multitool {VERSION} is not at {}: run ./scripts/test, which installs it (npm install --prefix .tools/sarif-multitool @microsoft/sarif-multitool@{VERSION})",
        tool.display()
    );
    let out = work.join("multitool-output.sarif");
    #[allow(
        clippy::disallowed_methods,
        reason = "test: runs the SARIF multitool on the logs a suite wrote"
    )]
    let mut cmd = std::process::Command::new(&tool);
    cmd.arg("validate")
        .args(logs)
        .arg("--output")
        .arg(&out)
        .args([
            "--log",
            "ForceOverwrite",
            "--level",
            "Error",
            "Warning",
            "Note",
        ])
        // a self-contained .NET program: no ICU needed on a bare machine
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .current_dir(work);
    let run = cmd
        .output()
        .unwrap_or_else(|e| panic!("{} did not start: {e}", tool.display()));
    assert!(
        run.status.success(),
        "the multitool failed ({}):\n{}\n{}",
        run.status,
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let text = std::fs::read_to_string(&out)
        .unwrap_or_else(|e| panic!("the multitool wrote no {}: {e}", out.display()));
    let v: serde_json::Value = serde_json::from_str(&text).expect("the multitool's log is JSON");
    let run0 = &v["runs"][0];
    for inv in run0["invocations"].as_array().into_iter().flatten() {
        assert_eq!(
            inv["executionSuccessful"],
            serde_json::Value::Bool(true),
            "the multitool did not finish: {inv}"
        );
    }
    run0["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| Finding {
            rule: r["ruleId"].as_str().unwrap_or_default().to_string(),
            level: r["level"].as_str().unwrap_or("warning").to_string(),
            arguments: r["message"]["arguments"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|a| a.as_str().unwrap_or_default().to_string())
                .collect(),
            file: r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        })
        .collect()
}

/// [`validate`], then fail on any error, any warning and any note not in
/// [`ACCEPTED_NOTES`], naming each. Returns the number of findings accepted.
pub fn assert_clean(logs: &[PathBuf], work: &Path) -> usize {
    let findings = validate(logs, work);
    let bad: Vec<&Finding> = findings.iter().filter(|f| !f.accepted()).collect();
    assert!(
        bad.is_empty(),
        "the SARIF multitool finds {} problem(s) in {} log(s):\n{bad:#?}",
        bad.len(),
        logs.len()
    );
    findings.len()
}
