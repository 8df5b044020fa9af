//! Speed at scale (issue 17), whole process through the `ralc` binary the bench profile
//! builds (`CARGO_BIN_EXE_ralc`, release settings): generates the profiles — half
//! `fs.read` entries `'cwd:/dK/fI'`, half exec entries `'/opt/toolsK/binI': 'allow'`, paths
//! that do not exist, plus `'system:': 'allow'` — at 1k, 10k, 40k and 100k entries, and
//! reports per size the wall time (best and median of `--runs`) and the CPU time (user +
//! system of the child, best) of `ralc check` and `ralc show`, per entry, and the 40k/10k
//! ratios; then `ralc why --batch` questions/s over 100,000 mixed read/write/exec
//! questions against the 10k profile (spread over its entries and outside them) and
//! against each standard profile, the questions split into files under the batch
//! reader's bound (one `why --batch` per file, the figures summed). It writes only its own temporary directory and never
//! judges anything itself: every figure is a child `ralc` process's.
//!
//! Run: `cargo bench -p ralc --bench scale` (options after `--`: `--runs N`,
//! `--sizes 1000,10000`, `--questions N`). Numbers go to `docs/performance.md`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a bench harness: a failed setup step ends the bench run with its message"
)]

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RALC: &str = env!("CARGO_BIN_EXE_ralc");

struct Opts {
    runs: usize,
    sizes: Vec<usize>,
    questions: usize,
}

fn opts() -> Opts {
    let mut o = Opts {
        runs: 5,
        sizes: vec![1_000, 10_000, 40_000, 100_000],
        questions: 100_000,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut num = |what: &str| -> usize {
            it.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{what} needs a number"))
        };
        match a.as_str() {
            "--runs" => o.runs = num("--runs").max(1),
            "--questions" => o.questions = num("--questions").max(1),
            "--sizes" => {
                o.sizes = it
                    .next()
                    .map(|v| v.split(',').filter_map(|s| s.parse().ok()).collect())
                    .unwrap_or_default()
            }
            // cargo bench passes `--bench`; anything else is ignored the same way
            _ => {}
        }
    }
    o
}

/// The profile of `n` entries: `n/2` (rounded up) exec path entries, the rest
/// `fs.read` entries, 100 per directory, plus `'system:': 'allow'`.
fn profile(n: usize) -> String {
    let reads = n / 2;
    let execs = n - reads;
    // One entry a line, unindented: the 40k profile then stays under the reader's 1 MiB
    // bound (issue 20); indented, it was 1.15 MB and refused.
    let mut s = String::from("[exec: ['system:': 'allow',\n");
    for i in 0..execs {
        let _ = writeln!(s, "'/opt/tools{}/bin{}': 'allow',", i / 100, i % 100);
    }
    s.push_str("], fs: [read: [\n");
    for i in 0..reads {
        let _ = writeln!(s, "'cwd:/d{}/f{}',", i / 100, i % 100);
    }
    s.push_str("]]]\n");
    s
}

/// `q` questions, a third each read, write and exec, cycling over the profile's `n`
/// entries in a scattered order; every other question of each kind names a path outside
/// the entries.
fn questions(q: usize, n: usize, cwd: &str) -> String {
    let half = (n / 2).max(1);
    let mut s = String::with_capacity(q * 32);
    for i in 0..q {
        let j = (i * 7919) % half;
        let inside = (i / 3) % 2 == 0;
        let (d, f) = (j / 100, j % 100);
        let _ = match (i % 3, inside) {
            (0, true) => writeln!(s, "read {cwd}/d{d}/f{f}"),
            (0, false) => writeln!(s, "read {cwd}/e{d}/g{f}"),
            (1, true) => writeln!(s, "write {cwd}/d{d}/f{f}"),
            (1, false) => writeln!(s, "write /etc/x{j}"),
            (_, true) => writeln!(s, "exec /opt/tools{d}/bin{f}"),
            (_, false) => writeln!(s, "exec /usr/bin/t{j}"),
        };
    }
    s
}

/// The children's CPU time so far (user + system).
#[cfg(unix)]
fn children_cpu() -> Duration {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    #[allow(clippy::disallowed_methods, reason = "bench: the children's CPU time")]
    // SAFETY: as above; RUSAGE_CHILDREN is a valid `who`.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    assert_eq!(rc, 0, "getrusage failed");
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Off unix the bench has no children's CPU clock: it reports wall time only (zero CPU).
#[cfg(not(unix))]
fn children_cpu() -> Duration {
    Duration::ZERO
}

struct Timing {
    wall_best: Duration,
    wall_median: Duration,
    cpu_best: Duration,
}

/// Run `ralc ARGS` in `dir` `runs` times (output discarded after checking it); each run
/// must succeed and print at least `min_lines` lines.
fn time(dir: &Path, args: &[&str], runs: usize, min_lines: usize) -> Timing {
    time_all(dir, &[args.to_vec()], runs, min_lines)
}

/// Run each `ralc ARGS` of `all` in turn, `runs` times; a run's figures are the sums over
/// `all` (one batch split into files under the reader's bound), and together they must
/// print at least `min_lines` lines.
fn time_all(dir: &Path, all: &[Vec<&str>], runs: usize, min_lines: usize) -> Timing {
    let mut walls = Vec::new();
    let mut cpus = Vec::new();
    for _ in 0..runs {
        let c0 = children_cpu();
        let t0 = Instant::now();
        let mut lines = 0;
        for args in all {
            #[allow(
                clippy::disallowed_methods,
                reason = "bench: runs the ralc binary measured"
            )]
            let out = Command::new(RALC)
                .args(args)
                .current_dir(dir)
                .stdin(Stdio::null())
                .output()
                .expect("run ralc");
            assert!(
                out.status.success(),
                "ralc {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            lines += out.stdout.iter().filter(|b| **b == b'\n').count();
        }
        walls.push(t0.elapsed());
        cpus.push(children_cpu() - c0);
        assert!(lines >= min_lines, "ralc {all:?}: {lines} lines of output");
    }
    walls.sort();
    cpus.sort();
    Timing {
        wall_best: walls[0],
        wall_median: walls[walls.len() / 2],
        cpu_best: cpus[0],
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let o = opts();
    let dir = tempfile::Builder::new()
        .prefix("ralc-scale-")
        .tempdir()
        .expect("temporary directory");
    let cwd = dir.path().to_str().expect("Unicode temp dir").to_owned();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("ralc: {RALC}");
    println!("load average at start: {}", load.trim());
    println!(
        "runs per measure: {} (wall best/median; CPU = child user+sys, best)",
        o.runs
    );
    println!();
    println!(
        "{:>8} {:>6} {:>10} {:>10} {:>10} {:>12}",
        "entries", "cmd", "wall best", "wall med", "CPU best", "CPU/entry"
    );
    let mut cpu_of = std::collections::BTreeMap::new();
    for &n in &o.sizes {
        let name = format!("p{n}.ral");
        let text = profile(n);
        if text.len() as u64 > ralc::reader::PROFILE_LIMIT {
            println!(
                "{n:>8} skipped: its profile is {} bytes, over the reader's bound of {} (issue 20)",
                text.len(),
                ralc::reader::PROFILE_LIMIT
            );
            continue;
        }
        std::fs::write(dir.path().join(&name), text).expect("write profile");
        for cmd in ["check", "show"] {
            let args: Vec<&str> = match cmd {
                "check" => vec!["check", &name],
                _ => vec!["show", "-p", &name],
            };
            let t = time(dir.path(), &args, o.runs, 1);
            println!(
                "{n:>8} {cmd:>6} {:>8.1}ms {:>8.1}ms {:>8.1}ms {:>10.2}us",
                ms(t.wall_best),
                ms(t.wall_median),
                ms(t.cpu_best),
                t.cpu_best.as_secs_f64() * 1e6 / n as f64
            );
            cpu_of.insert((n, cmd), t);
        }
    }
    for cmd in ["check", "show"] {
        if let (Some(a), Some(b)) = (cpu_of.get(&(10_000, cmd)), cpu_of.get(&(40_000, cmd))) {
            println!(
                "40k/10k {cmd}: CPU {:.2}x, wall best {:.2}x (target <= 4.5x)",
                b.cpu_best.as_secs_f64() / a.cpu_best.as_secs_f64(),
                b.wall_best.as_secs_f64() / a.wall_best.as_secs_f64()
            );
        }
    }
    println!();
    let q = o.questions;
    // the questions in files under the batch reader's bound (issue 20): one batch run is
    // a `why --batch` per file, its figures the sums
    let all = questions(q, 10_000, &cwd);
    let mut files: Vec<String> = Vec::new();
    let mut chunk = String::new();
    for line in all.lines() {
        if (chunk.len() + line.len() + 1) as u64 > ralc::reader::BATCH_LIMIT {
            files.push(std::mem::take(&mut chunk));
        }
        chunk.push_str(line);
        chunk.push('\n');
    }
    if !chunk.is_empty() {
        files.push(chunk);
    }
    let mut qnames: Vec<String> = Vec::new();
    for (i, text) in files.iter().enumerate() {
        let f = dir.path().join(format!("questions-{i}.txt"));
        std::fs::write(&f, text).expect("write questions");
        qnames.push(f.to_str().expect("Unicode").to_owned());
    }
    let p10k = dir.path().join("p10000.ral");
    if !p10k.exists() {
        std::fs::write(&p10k, profile(10_000)).expect("write profile");
    }
    println!(
        "why --batch, {q} questions (read/write/exec, over the entries and outside), in {} files under the {}-byte batch bound",
        qnames.len(),
        ralc::reader::BATCH_LIMIT
    );
    for p in [
        "p10000.ral",
        "std:minimal",
        "std:reasonable",
        "std:dangerous",
    ] {
        let runs: Vec<Vec<&str>> = qnames
            .iter()
            .map(|f| vec!["why", "-p", p, "--batch", f.as_str()])
            .collect();
        let t = time_all(dir.path(), &runs, o.runs, q);
        println!(
            "{p:>15}: wall best {:>7.1}ms ({:>7.0}/s), median {:>7.1}ms; CPU best {:>7.1}ms ({:>7.0}/s)",
            ms(t.wall_best),
            q as f64 / t.wall_best.as_secs_f64(),
            ms(t.wall_median),
            ms(t.cpu_best),
            q as f64 / t.cpu_best.as_secs_f64()
        );
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at end: {}", load.trim());
}
