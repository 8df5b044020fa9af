//! The front-end benchmark: parse + evaluate + typecheck of generated 10,000- and
//! 40,000-entry profiles (half exec entries of every key form, half fs paths), timed in
//! release. Run with `cargo bench -p ralc --bench frontend`. Prints the best and median
//! of several runs per size, and the growth ratio (linear growth is 4.0 for 4x entries).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a bench harness: a failed setup step ends the bench run with its message"
)]

use ralc::diag::FileId;
use std::time::{Duration, Instant};

fn profile(entries: usize) -> String {
    let exec = entries / 2;
    let fs = entries - exec;
    let mut s = String::with_capacity(entries * 40);
    s.push_str("# generated\nlet deny = 'deny'\n[\n  exec: [\n");
    for i in 0..exec {
        match i % 5 {
            0 => s.push_str(&format!("    tool{i}: 'allow',\n")),
            1 => s.push_str(&format!("    '/opt/t{i}/bin/': 'allow',\n")),
            2 => s.push_str(&format!("    '/usr/bin/t{i}': [status, log, 'diff{i}'],\n")),
            3 => s.push_str(&format!("    \"~/bin/t{i}\": $deny,\n")),
            _ => s.push_str(&format!("    'cwd:scripts/t{i}': 'allow',\n")),
        }
    }
    s.push_str("  ],\n  fs: [\n    read: [\n");
    for i in 0..fs / 2 {
        s.push_str(&format!("      '/srv/data/r{i}',\n"));
    }
    s.push_str("    ],\n    write: [\n");
    for i in fs / 2..fs {
        s.push_str(&format!("      'cwd:out/w{i}',\n"));
    }
    s.push_str("    ],\n  ],\n  net: `offline,\n  editor: [read, tui],\n]\n");
    s
}

fn time_once(src: &[u8]) -> Duration {
    let t = Instant::now();
    let (typed, diags) = ralc::typecheck::check_source(FileId(0), src);
    let d = t.elapsed();
    assert!(
        diags.is_empty(),
        "generated profile has diagnostics: {:?}",
        &diags[..diags.len().min(3)]
    );
    assert!(typed.is_some());
    d
}

/// Parse, evaluate and typecheck times of one run.
fn stages(src: &[u8]) -> [Duration; 4] {
    let t = Instant::now();
    let _ = ralc::syntax::lexer::lex(FileId(0), std::str::from_utf8(src).expect("UTF-8"));
    let l = t.elapsed();
    let t = Instant::now();
    let (p, _) = ralc::syntax::parse(FileId(0), src);
    let a = t.elapsed();
    let t = Instant::now();
    let (v, _) = ralc::eval::evaluate(&p);
    let b = t.elapsed();
    let t = Instant::now();
    let _ = ralc::typecheck::check_value(&v.expect("a value"));
    [l, a, b, t.elapsed()]
}

fn measure(entries: usize, runs: usize) -> (Duration, Duration) {
    let src = profile(entries);
    let mut v: Vec<Duration> = (0..runs).map(|_| time_once(src.as_bytes())).collect();
    v.sort();
    (v[0], v[v.len() / 2])
}

fn main() {
    // `frontend --once N`: one run on N entries, for instruction counting under
    // `valgrind --tool=callgrind` (independent of the machine's load).
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--once") {
        let n: usize = args
            .get(i + 1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(10_000);
        let d = time_once(profile(n).as_bytes());
        println!("{n} entries: {:.2} ms", d.as_secs_f64() * 1e3);
        return;
    }
    // A warm-up run.
    let _ = measure(1_000, 3);
    let mut results = Vec::new();
    for n in [10_000usize, 40_000] {
        let (best, median) = measure(n, 11);
        println!(
            "{n:>6} entries ({:>7} bytes): best {:>8.2} ms, median {:>8.2} ms",
            profile(n).len(),
            best.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3
        );
        let st = stages(profile(n).as_bytes());
        println!(
            "        stages of one run: lex {:.2} ms, lex+parse {:.2} ms, evaluate {:.2} ms, typecheck {:.2} ms",
            st[0].as_secs_f64() * 1e3,
            st[1].as_secs_f64() * 1e3,
            st[2].as_secs_f64() * 1e3,
            st[3].as_secs_f64() * 1e3
        );
        results.push(median);
    }
    let ratio = results[1].as_secs_f64() / results[0].as_secs_f64();
    println!("growth 10k -> 40k: {ratio:.2}x (linear is 4.00x)");
}
