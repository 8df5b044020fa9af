//! Fuzz `why --batch` on any questions text against a fixed stack (an in-memory disk:
//! it never touches the host). It must never panic or overflow, every answer is one JSON
//! line, and no answer echoes more than a bounded prefix of its line.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use ralc::capability::layer::{LayerRole, LayerSource};
use ralc::diag::SourceMap;
use ralc::freeze::disk::MemDisk;
use std::sync::Arc;

const PROFILE: &str = "[exec: [git: [status], '/usr/bin/': 'allow'], fs: [read: ['~', '/usr'], write: ['cwd:'], deny: ['~/.ssh']], net: `offline]\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let disk = MemDisk::new()
        .dir("/home/u/.ssh")
        .dir("/work/p")
        .exe("/usr/bin/git")
        .link("/work/p/up", "/home/u");
    let ctx = common::anchor(disk);
    let mut sources = SourceMap::new();
    let id = sources.add("p.ral", PROFILE.as_bytes().to_vec());
    let (typed, d) = ralc::typecheck::check_source(id, PROFILE.as_bytes());
    assert!(d.is_empty(), "{d:?}");
    let source = LayerSource {
        name: Arc::from("p.ral"),
        role: LayerRole::Policy,
        path: None,
    };
    let typed = typed.expect("the fixed profile checks");
    let (caps, d) = ralc::freeze::freeze(&typed, source, &ctx, &sources);
    assert!(d.is_empty(), "{d:?}");
    let stack = ralc::pipeline::compose(&[caps], &ctx);
    let mut out = String::new();
    let _ = ralc::cli::why::batch(&stack, &ctx, text, &mut out);
    for line in out.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("one JSON answer a line");
        if v.get("error").is_some() {
            // an unparsable line is named by its number, never echoed
            let n = v.get("line").and_then(|l| l.as_u64()).expect("an error names its line");
            assert_eq!(line, ralc::cli::why::json_error(n as usize), "{line}");
        }
    }
});
