//! Fuzz the whole `check` pipeline on any bytes: parse, evaluate, typecheck, freeze (an
//! in-memory disk: it never touches the host), compose, lint and every renderer. It must
//! never panic, and no rendering may carry a forged line: a workflow command outside the
//! GitHub format's own lines, or an ESC, NUL or C1 character.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use ralc::capability::layer::{LayerRole, LayerSource};
use ralc::pipeline::Compiled;
use ralc::diag::{self, SourceMap};
use ralc::freeze::disk::MemDisk;
use std::sync::Arc;

fn forged(s: &str, github: bool) -> bool {
    s.lines().any(|l| {
        l.chars()
            .any(|c| c == '\u{1b}' || c == '\0' || ('\u{80}'..='\u{9f}').contains(&c))
            || (l.trim_start().starts_with("::") && !github)
            || (github && !l.starts_with("::error") && !l.starts_with("::warning") && !l.starts_with("::notice"))
    })
}

fuzz_target!(|data: &[u8]| {
    let disk = MemDisk::new()
        .dir("/home/u/.ssh")
        .dir("/work/p/src")
        .exe("/usr/bin/git")
        .link("/work/p/link", "/home/u");
    let ctx = common::anchor(disk);
    let mut sources = SourceMap::new();
    let id = sources.add("fuzz.ral", data.to_vec());
    let (typed, mut diagnostics) = ralc::typecheck::check_source(id, data);
    if let Some(end) = ralc::syntax::quote_limit(id, &diagnostics) {
        sources.limit_quoting(id, end);
    }
    let mut layers = Vec::new();
    let mut typed_all = Vec::new();
    if let Some(t) = typed {
        let source = LayerSource {
            name: Arc::from("fuzz.ral"),
            role: LayerRole::Policy,
            path: None,
        };
        let (caps, mut d) = ralc::freeze::freeze(&t, source, &ctx, &sources);
        diagnostics.append(&mut d);
        layers.push(caps);
        typed_all.push(t);
    }
    diag::sort(&mut diagnostics);
    let stack = (!diagnostics.iter().any(|d| d.is_error()) && layers.len() == 1)
        .then(|| ralc::pipeline::compose(&layers, &ctx));
    let compiled = Compiled {
        sources,
        diagnostics,
        typed: typed_all,
        layers,
        stack,
        ctx,
    };
    let mut all = compiled.diagnostics.clone();
    all.extend(ralc::lint::for_compiled(&compiled, &ralc::lint::LintLevels::default()));
    diag::sort(&mut all);
    let human = diag::human::render(&all, &compiled.sources, false);
    assert!(!forged(&human, false), "{human}");
    let json = diag::json::render(&all, &compiled.sources);
    assert!(!forged(&json, false), "{json}");
    let github = diag::github::render(&all, &compiled.sources);
    assert!(!forged(&github, true), "{github}");
    let _ = ralc::lint::sarif_report(&all, &compiled.sources, Some("/work/p"));
    if let Some(stack) = &compiled.stack {
        let _ = ralc::cli::show::render_human(&compiled.layers, &compiled.ctx);
        let _ = stack;
    }
});
