//! The judgment suite: every `tests/judgments/*.case` is compiled through
//! the real front end and freeze, asked its question through `ralc why --format json`'s
//! own code path, and checked for verdict, reason and deciding entries.
//!
//! Case format (sections opened by `== KIND [NAME]`):
//! `== profile NAME` / `== restrict NAME` / `== extend NAME` (the file's text follows),
//! `== std NAME` (a standard profile layer), `== files` (paths under `$T` created as
//! executables, one a line), `== ask` (one `why` question), `== want`
//! (`granted|withheld REASON|- ENTRY…`, an entry being `NAME:LINE@NEEDLE`, located in the
//! file at the first occurrence of NEEDLE on that line, `NAME:0` for a synthetic entry of
//! that file, or `std:NAME` for any entry of a standard profile). `$T` is a fresh
//! temporary directory; the freeze runs with `--home $T/home --cwd $T/proj` and
//! `PATH=$T/bin`.
#![cfg_attr(
    test,
    allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        reason = "a test's helpers fail the test when a fixture or a run goes wrong"
    )
)]

use std::path::{Path, PathBuf};

struct Case {
    layers: Vec<(String, String, String)>,
    files: Vec<String>,
    ask: String,
    want: String,
}

fn parse(text: &str) -> Case {
    let mut c = Case {
        layers: Vec::new(),
        files: Vec::new(),
        ask: String::new(),
        want: String::new(),
    };
    let mut cur: Option<(String, String)> = None;
    let mut body = String::new();
    let flush = |cur: &mut Option<(String, String)>, body: &mut String, c: &mut Case| {
        if let Some((kind, name)) = cur.take() {
            match kind.as_str() {
                "profile" | "restrict" | "extend" | "std" => {
                    c.layers.push((kind, name, std::mem::take(body)))
                }
                "files" => c.files = body.lines().map(str::to_owned).collect(),
                "ask" => c.ask = body.trim().to_owned(),
                "want" => c.want = body.trim().to_owned(),
                other => panic!("unknown section {other}"),
            }
        }
        body.clear();
    };
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("== ") {
            flush(&mut cur, &mut body, &mut c);
            let (k, n) = h.split_once(' ').unwrap_or((h, ""));
            cur = Some((k.to_owned(), n.to_owned()));
        } else {
            body.push_str(line);
            body.push('\n');
        }
    }
    flush(&mut cur, &mut body, &mut c);
    c
}

/// Expected entry → (file, line, column) or a file-only match.
fn expect_entry(
    tok: &str,
    t: &str,
    layers: &[(String, String, String)],
) -> (String, Option<(u32, u32)>) {
    if tok.starts_with("std:") {
        return (tok.to_owned(), None);
    }
    if let Some((name, _)) = tok.split_once(":0").filter(|(_, rest)| rest.is_empty()) {
        return (format!("{t}/{name}"), Some((0, 0)));
    }
    let (loc, needle) = tok.split_once('@').expect("NAME:LINE@NEEDLE");
    let (name, line) = loc.split_once(':').expect("NAME:LINE");
    let line: u32 = line.parse().expect("a line number");
    let body = &layers
        .iter()
        .find(|(_, n, _)| n == name)
        .expect("a layer")
        .2;
    let text = body.replace("$T", t);
    let l = text.lines().nth(line as usize - 1).expect("the line");
    let needle = needle.replace("$T", t);
    let byte = l.find(&needle).expect("the needle on its line");
    let col = l[..byte].chars().count() as u32 + 1;
    (format!("{t}/{name}"), Some((line, col)))
}

fn run_case(path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let case = parse(&text);
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let t = dir.path().to_str().ok_or("temp dir not UTF-8")?.to_owned();
    for sub in ["home", "proj", "bin"] {
        std::fs::create_dir_all(dir.path().join(sub)).map_err(|e| e.to_string())?;
    }
    for f in &case.files {
        let p: PathBuf = dir.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap_or(dir.path())).map_err(|e| e.to_string())?;
        std::fs::write(&p, b"#!/bin/sh\n").map_err(|e| e.to_string())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755))
                .map_err(|e| e.to_string())?;
        }
    }
    let mut stack = ralc::cli::args::StackArgs::default();
    for (kind, name, body) in &case.layers {
        let arg = if kind == "std" {
            format!("std:{name}")
        } else {
            let p = format!("{t}/{name}");
            std::fs::write(&p, body.replace("$T", &t)).map_err(|e| e.to_string())?;
            p
        };
        match kind.as_str() {
            "restrict" => stack.restrict.push(arg),
            "extend" => stack.extend.push(arg),
            _ => stack.profiles.push(arg),
        }
    }
    stack.anchor.home = Some(dir.path().join("home"));
    stack.anchor.cwd = Some(dir.path().join("proj"));
    stack.anchor.env.push(format!("PATH={t}/bin"));
    stack.anchor.env.push(format!("HOME={t}/home"));
    stack.anchor.env_clear = true;

    // The pipeline (the lead's): compile once, then the question through `why`.
    let compiled = stack.compile(&[])?;
    let grant_stack = compiled
        .stack
        .as_ref()
        .ok_or_else(|| format!("profile errors: {:?}", compiled.diagnostics))?;
    let q = ralc::cli::why::parse_line(&case.ask.replace("$T", &t))?;
    let d = ralc::cli::why::answer(grant_stack, &compiled.ctx, &q);
    let json: serde_json::Value =
        serde_json::from_str(&ralc::cli::why::json(&q, &d)).map_err(|e| e.to_string())?;

    let mut want = case.want.split_whitespace();
    let verdict = want.next().ok_or("empty want")?;
    let reason = want.next().ok_or("want needs a reason or -")?;
    let got = format!("{json}");
    if json["verdict"] != verdict {
        return Err(format!("verdict: want {verdict}, got {got}"));
    }
    let got_reason = json["reason"].as_str().unwrap_or("-");
    if got_reason != reason {
        return Err(format!("reason: want {reason}, got {got}"));
    }
    let entries = json["decided_by"].as_array().cloned().unwrap_or_default();
    let wanted: Vec<_> = want
        .map(|tok| expect_entry(tok, &t, &case.layers))
        .collect();
    if wanted.len() != entries.len() {
        return Err(format!("decided_by: want {wanted:?}, got {got}"));
    }
    for ((file, at), e) in wanted.iter().zip(&entries) {
        let ok_file = e["file"] == file.as_str();
        let ok_at = at.is_none_or(|(l, c)| e["line"] == l && e["column"] == c);
        if !(ok_file && ok_at) {
            return Err(format!("decided_by: want {wanted:?}, got {got}"));
        }
    }
    Ok(())
}

#[test]
fn judgments() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("judgments");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/judgments")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "case"))
        .collect();
    paths.sort();
    assert!(
        paths.len() >= 60,
        "at least 60 cases, found {}",
        paths.len()
    );
    let failures: Vec<String> = paths
        .iter()
        .filter_map(|p| run_case(p).err().map(|e| format!("{}: {e}", p.display())))
        .collect();
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
