//! The SARIF 2.1.0 rendering of diagnostics, for code-scanning tools: one run, the tool's
//! rules (lints and codes, each with a friendly name, its explain page as help text and
//! a help URI under the project's declared home),
//! one result per diagnostic with its physical location in the profile (RFC 3986 artifact
//! URIs: relative to the working directory with `uriBaseId` `SRCROOT`, else `file:///…`;
//! the region with its snippet, and the whole lines around it as the context region) and
//! its labels as related locations. Pure: it is given the working directory, it never asks
//! for it. Web addresses come from one place, the workspace's `repository`; the help
//! itself travels in the log. Which validator notes stay, and why: `docs/cli.md`.

use super::{Diagnostic, Severity, SourceMap, Span};
use serde_json::{json, Map, Value};

pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
pub const BASE_ID: &str = "SRCROOT";
/// The project's home, as `Cargo.toml` declares it (`repository`).
pub const HOME: &str = env!("CARGO_PKG_REPOSITORY");

/// A page of the repository's documentation, as an absolute URI (`docs/lints.md#x`).
pub fn doc_uri(page_and_anchor: &str) -> String {
    format!("{HOME}/blob/main/{page_and_anchor}")
}

/// One rule of the tool's driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    /// The diagnostic code or lint name, the result's `ruleId`.
    pub id: String,
    /// The friendly name: one Pascal-case identifier ([`friendly_name`]).
    pub name: String,
    pub short: String,
    pub full: String,
    /// The explain page.
    pub help: String,
    /// Absolute ([`doc_uri`]).
    pub help_uri: String,
    /// Default level (`None`: allowed by default).
    pub level: Option<Severity>,
}

/// What the renderer needs to know about the run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// The working directory (absolute), to make artifact URIs relative to it.
    pub cwd: Option<String>,
}

fn level(s: Option<Severity>) -> &'static str {
    match s {
        Some(Severity::Error) => "error",
        Some(Severity::Warning) => "warning",
        Some(Severity::Note) => "note",
        None => "none",
    }
}

/// A rule's friendly name: the words of `text` (split at anything not alphanumeric), each
/// capitalised and the rest lower case (Pascal case has no runs of capitals), joined —
/// `deputy-prefix` → `DeputyPrefix`, `not valid UTF-8` → `NotValidUtf8`.
pub fn friendly_name(text: &str) -> String {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        // articles drop out: a one-letter word would make a run of capitals (`InARecord`)
        .filter(|w| !w.is_empty() && !["a", "an", "the"].contains(&w.to_ascii_lowercase().as_str()))
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|c| c.to_ascii_uppercase().to_string() + &cs.as_str().to_ascii_lowercase())
                .unwrap_or_default()
        })
        .collect()
}

/// Percent-encode a path for a URI: unreserved characters and `/` stay.
pub fn percent_encode_path(p: &str) -> String {
    let mut s = String::new();
    for b in p.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s
}

/// Fold `.` and `..` components lexically (of an absolute or relative path).
fn fold(p: &str) -> String {
    let abs = p.starts_with('/');
    let mut out: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                if out.last().is_some_and(|l| *l != "..") {
                    out.pop();
                } else if !abs {
                    out.push("..");
                }
            }
            c => out.push(c),
        }
    }
    let j = out.join("/");
    if abs {
        format!("/{j}")
    } else {
        j
    }
}

/// The artifact location of a file name as the source map holds it.
pub fn artifact_location(name: &str, opts: &Options) -> Value {
    if name.starts_with("std:") {
        // an embedded standard profile: a URI of its own scheme
        return json!({ "uri": name });
    }
    let cwd = opts.cwd.as_deref().map(fold);
    let abs = if name.starts_with('/') {
        Some(fold(name))
    } else {
        cwd.as_ref().map(|c| fold(&format!("{c}/{name}")))
    };
    if let (Some(abs), Some(cwd)) = (&abs, &cwd) {
        let base = if cwd == "/" {
            "/".to_string()
        } else {
            format!("{cwd}/")
        };
        if let Some(rel) = abs.strip_prefix(&base) {
            return json!({ "uri": percent_encode_path(rel), "uriBaseId": BASE_ID });
        }
        return json!({ "uri": format!("file://{}", percent_encode_path(abs)) });
    }
    match abs {
        Some(abs) => json!({ "uri": format!("file://{}", percent_encode_path(&abs)) }),
        None => {
            let rel = fold(name);
            if rel.starts_with("..") {
                json!({ "uri": percent_encode_path(&rel) })
            } else {
                json!({ "uri": percent_encode_path(&rel), "uriBaseId": BASE_ID })
            }
        }
    }
}

fn physical(span: Span, sources: &SourceMap, opts: &Options) -> Option<Value> {
    sources.try_get(span.file)?;
    let region = |s: Span| {
        let l = sources.locate(s);
        let mut r = json!({
            "startLine": l.line,
            "startColumn": l.column,
            "endLine": l.end_line,
            "endColumn": l.end_column,
        });
        if let Some(text) = sources.bounded_snippet(s) {
            r["snippet"] = json!({ "text": text });
        }
        r
    };
    let l = sources.locate(span);
    let mut loc = json!({
        "artifactLocation": artifact_location(&l.file, opts),
        "region": region(span),
    });
    // SARIF wants the context a proper superset of the region; a span that already
    // covers its whole file has none.
    let context = sources.context_of(span);
    if (context.start, context.end) != (span.start, span.end) {
        loc["contextRegion"] = region(context);
    }
    Some(json!({ "physicalLocation": loc }))
}

/// The SARIF log, with the working directory unknown (relative names stay relative).
pub fn render(diags: &[Diagnostic], sources: &SourceMap, rules: &[Rule]) -> String {
    render_with(diags, sources, rules, &Options::default())
}

/// The SARIF log.
pub fn render_with(
    diags: &[Diagnostic],
    sources: &SourceMap,
    rules: &[Rule],
    opts: &Options,
) -> String {
    let diags = &super::escape::diagnostics(diags);
    let rules_json: Vec<Value> = rules
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.name,
                "shortDescription": {"text": r.short},
                "fullDescription": {"text": r.full},
                "help": {"text": r.help},
                "helpUri": r.help_uri,
                "defaultConfiguration": {"level": level(r.level)},
            })
        })
        .collect();
    let (kept, more) = super::capped(diags, sources);
    let results: Vec<Value> = kept
        .iter()
        .map(|d| {
            let mut text = d.message.clone();
            if let Some(h) = &d.help {
                text.push_str(&format!("\nhelp: {h}"));
            }
            for n in &d.notes {
                text.push_str(&format!("\nnote: {n}"));
            }
            let mut r = Map::new();
            r.insert("ruleId".into(), json!(d.code));
            if let Some(i) = rules.iter().position(|r| r.id == d.code) {
                r.insert("ruleIndex".into(), json!(i));
            }
            r.insert("level".into(), json!(level(Some(d.severity))));
            r.insert("message".into(), json!({ "text": text }));
            let locs: Vec<Value> = d
                .span
                .and_then(|s| physical(s, sources, opts))
                .into_iter()
                .collect();
            r.insert("locations".into(), Value::Array(locs));
            let related: Vec<Value> = d
                .labels
                .iter()
                .enumerate()
                .filter_map(|(i, l)| {
                    let mut v = physical(l.span, sources, opts)?;
                    v["id"] = json!(i);
                    v["message"] = json!({ "text": l.message });
                    Some(v)
                })
                .collect();
            if !related.is_empty() {
                r.insert("relatedLocations".into(), Value::Array(related));
            }
            Value::Object(r)
        })
        .collect();
    let mut run = json!({
        "tool": {
            "driver": {
                "name": "ralc",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": HOME,
                "rules": rules_json,
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": results,
    });
    if !more.is_empty() {
        // the results left out (at most MAX_PER_FILE of a file are listed), said once per
        // file where SARIF says what a run did not report
        let notes: Vec<Value> = more
            .iter()
            .map(|(name, n)| {
                json!({"level": "note", "message": {"text": super::more_not_shown(name, *n)}})
            })
            .collect();
        run["invocations"] = json!([{
            "executionSuccessful": true,
            "toolExecutionNotifications": notes,
        }]);
    }
    if let Some(cwd) = &opts.cwd {
        let c = fold(cwd);
        let c = if c.ends_with('/') { c } else { format!("{c}/") };
        run["originalUriBaseIds"] =
            json!({ BASE_ID: { "uri": format!("file://{}", percent_encode_path(&c)) } });
    }
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [run],
    });
    // `{:#}` is serde_json's pretty form (two-space indent), which cannot fail for a `Value`
    let mut out = super::escape::json(format!("{log:#}"));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(cwd: &str) -> Options {
        Options {
            cwd: Some(cwd.into()),
        }
    }

    #[test]
    fn artifact_uris_are_relative_to_cwd_or_file_uris() {
        assert_eq!(
            artifact_location("./p q.ral", &o("/w")),
            json!({"uri": "p%20q.ral", "uriBaseId": "SRCROOT"})
        );
        assert_eq!(
            artifact_location("/w/sub/p.ral", &o("/w/")),
            json!({"uri": "sub/p.ral", "uriBaseId": "SRCROOT"})
        );
        assert_eq!(
            artifact_location("/etc/ralc/p.ral", &o("/w")),
            json!({"uri": "file:///etc/ralc/p.ral"})
        );
        assert_eq!(
            artifact_location("../x/p.ral", &o("/w/a")),
            json!({"uri": "file:///w/x/p.ral"})
        );
        assert_eq!(
            artifact_location("std:minimal", &o("/w")),
            json!({"uri": "std:minimal"})
        );
        assert_eq!(
            artifact_location("ß.ral", &Options::default()),
            json!({"uri": "%C3%9F.ral", "uriBaseId": "SRCROOT"})
        );
    }

    #[test]
    fn friendly_names_are_pascal_case() {
        assert_eq!(friendly_name("deputy-prefix"), "DeputyPrefix");
        assert_eq!(friendly_name("unknown key `x`"), "UnknownKeyX");
        assert_eq!(friendly_name("not valid UTF-8"), "NotValidUtf8");
        assert_eq!(friendly_name("a key in a record"), "KeyInRecord");
        assert_eq!(friendly_name(""), "");
    }

    #[test]
    fn results_carry_rule_ids_levels_and_regions() {
        let mut sm = SourceMap::new();
        let f = sm.add("p.ral", b"[\n  fs: [write: ['/']]\n]\n".to_vec());
        let d = vec![Diagnostic::warning("broad-write", "m")
            .at(Span::new(f, 16, 19))
            .with_label(Span::new(f, 0, 1), "here")];
        let rules = vec![Rule {
            id: "broad-write".into(),
            short: "s".into(),
            full: "f".into(),
            help: "h".into(),
            name: "BroadWrite".into(),
            help_uri: doc_uri("docs/lints.md#broad-write"),
            level: Some(Severity::Warning),
        }];
        let v: Value = serde_json::from_str(&render_with(&d, &sm, &rules, &o("/w"))).unwrap();
        let r = &v["runs"][0]["results"][0];
        assert_eq!(r["ruleId"], "broad-write");
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["level"], "warning");
        let reg = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!(
            (reg["startLine"].as_u64(), reg["startColumn"].as_u64()),
            (Some(2), Some(15))
        );
        assert_eq!(reg["snippet"]["text"], "['/");
        let ctx = &r["locations"][0]["physicalLocation"]["contextRegion"];
        assert_eq!(ctx["snippet"]["text"], "[\n  fs: [write: ['/']]\n]");
        assert_eq!(
            (ctx["startLine"].as_u64(), ctx["startColumn"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(
            (ctx["endLine"].as_u64(), ctx["endColumn"].as_u64()),
            (Some(3), Some(2))
        );
        assert_eq!(
            v["runs"][0]["tool"]["driver"]["rules"][0]["name"],
            "BroadWrite"
        );
        assert_eq!(r["relatedLocations"][0]["message"]["text"], "here");
        assert_eq!(
            v["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"],
            "file:///w/"
        );
    }
}
