//! The denial reader's pure half: the `log show` command line that asks the unified log
//! for the sandbox's reports carrying the launch's denial tag over the run's wall-clock
//! window, and the parsing of what it prints — one JSON object per line (`--style
//! ndjson`, the report in `eventMessage`), or a plain text line holding the kernel's
//! report — into `Denial`s. It runs nothing and reads nothing.
//!
//! A report reads `Sandbox: NAME(PID) deny(N) OPERATION [TARGET]`, and a rule's
//! `(with message TAG)` adds the tag to it: every deny of a launch's profile carries the
//! launch's tag, so a report with it is this run's, whatever process made it (a child
//! that lived a millisecond included), and one without it never is. Reports macOS makes
//! for its own policies (`System Policy: deny…`, the privacy controls) and the
//! `N duplicate reports for …` summaries (which name no pid) are skipped.

use crate::denial::{Denial, Refused};

/// `log`'s own path: never looked up by name.
pub const LOG: &str = "/usr/bin/log";

/// Which unified-log entries are the sandbox's reports: the kernel's sandbox sender and
/// the sandbox's reporting subsystem.
pub const PREDICATE: &str = r#"sender == "Sandbox" OR subsystem == "com.apple.sandbox.reporting""#;

/// The predicate for one launch's reports: the sandbox's, carrying `tag` (a tag is
/// letters, digits, `.`, `_`, `-`: nothing to quote).
pub fn predicate(tag: &str) -> String {
    format!("({PREDICATE}) AND eventMessage CONTAINS \"{tag}\"")
}

/// The arguments of `log show` for a run tagged `tag` that started `window_secs` ago
/// (rounded up; one second of margin is added, so a report written as the program exits
/// is included).
pub fn show_args(window_secs: u64, tag: &str) -> Vec<String> {
    vec![
        "show".to_string(),
        "--style".to_string(),
        "ndjson".to_string(),
        "--last".to_string(),
        format!("{}s", window_secs.saturating_add(1)),
        "--predicate".to_string(),
        predicate(tag),
    ]
}

/// The denial one line reports, if it is a sandbox report of the profile's.
pub fn parse_line(line: &str) -> Option<Denial> {
    let line = line.trim();
    if line.starts_with('{') {
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        return parse_report(v.get("eventMessage")?.as_str()?);
    }
    parse_report(line)
}

/// Parse the report text: the part from `Sandbox: ` on.
pub fn parse_report(text: &str) -> Option<Denial> {
    let at = text.find("Sandbox: ")?;
    let report = &text[at + "Sandbox: ".len()..];
    let deny_at = report.find(" deny(")?;
    let head = &report[..deny_at];
    // `NAME(PID)`; a policy other than the profile's puts its name before `deny(`.
    if head.contains("duplicate report") || head.contains(':') {
        return None;
    }
    let head = head.strip_suffix(')')?;
    let open = head.rfind('(')?;
    let pid: u32 = head[open + 1..].parse().ok()?;
    let process = head[..open].to_string();
    let rest = &report[deny_at + " deny(".len()..];
    let close = rest.find(") ")?;
    if rest[..close].parse::<u32>().is_err() {
        return None;
    }
    let rest = rest[close + 2..].trim_start();
    let (operation, target) = match rest.split_once(' ') {
        Some((op, t)) => (op, t.trim()),
        None => (rest.trim(), ""),
    };
    if operation.is_empty() {
        return None;
    }
    Some(Denial {
        refused: classify(operation),
        target: target.to_string(),
        operation: operation.to_string(),
        pid,
        process,
    })
}

/// What a Seatbelt operation name refuses, in the hint's words.
pub fn classify(operation: &str) -> Refused {
    if operation.starts_with("process-exec") {
        Refused::Exec
    } else if operation.starts_with("file-read") {
        Refused::Read
    } else if operation.starts_with("file-write")
        || operation.starts_with("file-link")
        || operation.starts_with("file-clone")
    {
        Refused::Write
    } else if operation.starts_with("mach-") || operation.starts_with("ipc-") {
        Refused::Service
    } else if operation.starts_with("network-") || operation.starts_with("system-socket") {
        Refused::Network
    } else {
        Refused::Other(operation.to_string())
    }
}

/// The denials of `log show`'s output that carry the launch's `tag`, in the order
/// reported, the tag taken out of what they name. An empty tag finds none.
pub fn denials_of(output: &str, tag: &str) -> Vec<Denial> {
    if tag.is_empty() {
        return Vec::new();
    }
    output
        .lines()
        .filter(|l| l.contains(tag))
        .filter_map(parse_line)
        .filter_map(|mut d| {
            d.target = d.target.replace(tag, "").trim().to_string();
            // The tag in the operation's place: a report without one is no denial.
            (!d.operation.contains(tag)).then_some(d)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines in the shapes the unified log prints them (`--style ndjson`, `--style
    // compact`, and the bare kernel message as `syslog` style shows it).
    const NDJSON_READ: &str = r#"{"traceID":1234567890,"eventMessage":"Sandbox: cat(4217) deny(1) file-read-data \/Users\/u\/.ssh\/id_ed25519","eventType":"logEvent","source":null,"formatString":"%s","activityIdentifier":0,"subsystem":"","category":"","threadID":99,"senderImageUUID":"0A0B","backtrace":{"frames":[]},"bootUUID":"","processImagePath":"\/kernel","timestamp":"2026-12-02 06:10:00.123456+0000","senderImagePath":"\/System\/Library\/Extensions\/Sandbox.kext\/Contents\/MacOS\/Sandbox","machTimestamp":1,"messageType":"Error","processImageUUID":"","processID":0,"senderProgramCounter":1,"parentActivityIdentifier":0}"#;
    const COMPACT_WRITE: &str = "2026-12-02 06:10:00.200 E  kernel[0:1a2b] (Sandbox) Sandbox: sh(4218) deny(1) file-write-create /private/etc/hosts.new";
    const SYSLOG_EXEC: &str = "2026-12-02 06:10:00.300000+0000  localhost kernel[0]: (Sandbox) Sandbox: sh(4218) deny(1) process-exec* /usr/bin/curl";
    const MACH: &str = "Sandbox: python3.12(4219) deny(1) mach-lookup com.apple.pasteboard.1";
    const NET: &str = "Sandbox: curl(4220) deny(1) network-outbound /private/var/run/mDNSResponder";
    const FORK: &str = "Sandbox: make(4221) deny(1) process-fork";
    const SPACES: &str =
        "Sandbox: Google Chrome He(4222) deny(1) file-read-metadata /Users/u/My Files/a (1).txt";
    const POLICY: &str =
        "Sandbox: cat(4217) System Policy: deny(1) file-read-data /Users/u/Desktop/x";
    const DUPLICATES: &str = "Sandbox: 12 duplicate reports for cat deny(1) file-read-data /etc/x";

    #[test]
    fn ndjson_event_message_is_read() {
        let d = parse_line(NDJSON_READ).unwrap();
        assert_eq!(d.refused, Refused::Read);
        assert_eq!(d.target, "/Users/u/.ssh/id_ed25519");
        assert_eq!(d.operation, "file-read-data");
        assert_eq!((d.pid, d.process.as_str()), (4217, "cat"));
        assert_eq!(d.summary(), "refused read /Users/u/.ssh/id_ed25519");
    }

    #[test]
    fn compact_and_syslog_lines_are_read() {
        let w = parse_line(COMPACT_WRITE).unwrap();
        assert_eq!(w.summary(), "refused write /private/etc/hosts.new");
        assert_eq!(w.pid, 4218);
        let x = parse_line(SYSLOG_EXEC).unwrap();
        assert_eq!(x.summary(), "refused exec /usr/bin/curl");
        assert_eq!(x.operation, "process-exec*");
    }

    #[test]
    fn services_network_and_other_operations() {
        let m = parse_line(MACH).unwrap();
        assert_eq!(m.refused, Refused::Service);
        assert_eq!(m.target, "com.apple.pasteboard.1");
        assert_eq!(m.process, "python3.12");
        assert_eq!(parse_line(NET).unwrap().refused, Refused::Network);
        let f = parse_line(FORK).unwrap();
        assert_eq!(f.refused, Refused::Other("process-fork".to_string()));
        assert_eq!(f.target, "");
    }

    #[test]
    fn names_and_paths_with_spaces_and_parentheses() {
        let d = parse_line(SPACES).unwrap();
        assert_eq!(d.process, "Google Chrome He");
        assert_eq!(d.pid, 4222);
        assert_eq!(d.target, "/Users/u/My Files/a (1).txt");
    }

    #[test]
    fn other_policies_summaries_and_noise_are_skipped() {
        for l in [
            POLICY,
            DUPLICATES,
            "",
            "Filtering the log data using \"sender == \\\"Sandbox\\\"\"",
            r#"{"count":3,"finished":1}"#,
            "{not json",
            "Sandbox: cat(notapid) deny(1) file-read-data /x",
            "Sandbox: cat(1) deny(x) file-read-data /x",
            "Sandbox: cat(1) deny(1) ",
        ] {
            assert_eq!(parse_line(l), None, "{l}");
        }
    }

    /// `line` with the tag a rule's `(with message TAG)` adds at the end of its report.
    fn tagged(line: &str, tag: &str) -> String {
        match line.find("\",\"eventType") {
            Some(at) => format!("{} {tag}{}", &line[..at], &line[at..]),
            None => format!("{line} {tag}"),
        }
    }

    #[test]
    fn only_the_reports_carrying_the_tag_are_kept_whatever_their_pid() {
        let tag = "ralc-1f-abc";
        let out = [
            tagged(NDJSON_READ, tag),
            tagged(COMPACT_WRITE, tag),
            // another launch's, and an untagged report of the same pid
            tagged(MACH, "ralc-1f-abd"),
            NET.to_string(),
            // a child seen by no one: its pid is in no tree, its report has the tag
            tagged(FORK, tag),
            tagged(POLICY, tag),
        ]
        .join("\n");
        let got: Vec<String> = denials_of(&out, tag)
            .iter()
            .map(|d| format!("{} {}", d.pid, d.summary()))
            .collect();
        assert_eq!(
            got,
            vec![
                "4217 refused read /Users/u/.ssh/id_ed25519",
                "4218 refused write /private/etc/hosts.new",
                "4221 refused process-fork",
            ]
        );
        assert!(denials_of(&out, "").is_empty());
        // The tag alone in the operation's place is no denial.
        assert!(denials_of(&format!("Sandbox: a(1) deny(1) {tag}"), tag).is_empty());
    }

    #[test]
    fn the_command_line_asks_for_the_window_the_sandbox_and_the_tag() {
        let a = show_args(3, "ralc-1-2");
        assert_eq!(a[0], "show");
        assert!(a.windows(2).any(|w| w == ["--last", "4s"]), "{a:?}");
        assert!(a.windows(2).any(|w| w == ["--style", "ndjson"]), "{a:?}");
        let p = a.iter().position(|x| x == "--predicate").unwrap();
        assert!(a[p + 1].contains("com.apple.sandbox.reporting"));
        assert!(
            a[p + 1].ends_with(") AND eventMessage CONTAINS \"ralc-1-2\""),
            "{}",
            a[p + 1]
        );
        assert_eq!(show_args(u64::MAX, "t")[4], format!("{}s", u64::MAX));
    }

    #[test]
    fn classification_of_operation_names() {
        assert_eq!(classify("process-exec-interpreter"), Refused::Exec);
        assert_eq!(classify("file-read-xattr"), Refused::Read);
        assert_eq!(classify("file-write-unlink"), Refused::Write);
        assert_eq!(classify("file-link"), Refused::Write);
        assert_eq!(classify("ipc-posix-shm-read-data"), Refused::Service);
        assert_eq!(classify("network-bind"), Refused::Network);
        assert_eq!(
            classify("sysctl-write"),
            Refused::Other("sysctl-write".into())
        );
    }
}
