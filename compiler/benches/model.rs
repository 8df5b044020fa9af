//! Model benchmarks (harness = false): exec and read judgments per second on a 3-layer
//! stack shaped like `std:reasonable` (a project layer and a restrict layer over it), the
//! growth of judgment cost with 1k/10k/100k entries, and `why --batch` over 100,000
//! questions in process. Prints one line per measurement (the median and best of
//! `ROUNDS` rounds, per core: the thread's own CPU time); numbers go to
//! `docs/performance-model.md`. Run: `cargo bench -p ralc --bench model` (append
//! `-- quick` for the 3-layer section only).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "a bench harness: a failed setup step ends the bench run with its message"
)]

use ralc::capability::fs::FsOp;
use ralc::capability::layer::Capabilities;
use ralc::capability::resolve::Resolve;
use ralc::capability::stack::GrantStack;
use ralc::capability::testkit::{allow, deny, L};
use ralc::cli::why;
use ralc::path::frozen::RealPath;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::Instant;

/// A host whose paths are already real and whose `PATH` is a map: the resolver's own cost
/// stays out of the model's numbers.
struct Host {
    which: HashMap<String, (String, RealPath)>,
}

impl Resolve for Host {
    fn which(&self, name: &str) -> Option<(String, RealPath)> {
        self.which.get(name).cloned()
    }
    fn real(&self, path: &str) -> Option<RealPath> {
        Some(RealPath::from_resolved(path))
    }
    fn cwd(&self) -> &str {
        "/home/u/proj"
    }
}

const HOME: &str = "/home/u";

/// `std:reasonable` as the freeze gives it on a typical Linux host.
fn reasonable() -> Capabilities {
    let mut l = L::new("std:reasonable");
    for d in [
        "/usr/local/sbin",
        "/usr/local/bin",
        "/usr/sbin",
        "/usr/bin",
        "/sbin",
        "/bin",
        "/usr/libexec",
        "/usr/lib/git-core",
        "/home/u/.cargo/bin",
        "/home/u/.rustup/toolchains",
        "/home/u/go/bin",
        "/home/u/.pyenv/shims",
    ] {
        l = l.dir(d, allow());
    }
    for r in [
        "/home/u/.gitconfig",
        "/home/u/.config/git",
        "/home/u/.cargo",
        "/home/u/.rustup",
        "/home/u/go",
        "/home/u/.npm",
        "/home/u/.pyenv",
        "/etc",
        "/usr",
        "/opt",
    ] {
        l = l.read(r);
    }
    for w in [
        "/home/u/proj",
        "/home/u/proj/.git",
        "/tmp",
        "/home/u/.cache",
        "/home/u/.cargo/registry",
        "/home/u/.cargo/git",
    ] {
        l = l.write(w);
    }
    for d in [
        "/home/u/.ssh",
        "/home/u/.gnupg",
        "/home/u/.aws",
        "/home/u/.config/gh",
        "/home/u/.netrc",
        "/home/u/.docker/config.json",
        "/home/u/.cargo/credentials.toml",
    ] {
        l = l.deny(d);
    }
    l.done()
}

fn project() -> Capabilities {
    L::new("project.ral")
        .dir("/usr/bin", allow())
        .dir("/bin", allow())
        .dir("/home/u/.cargo/bin", allow())
        .name("sudo", deny())
        .name(
            "git",
            ralc::capability::testkit::subs(&["status", "diff", "log", "commit"]),
        )
        .read("/usr")
        .read("/etc")
        .read("/home/u/.cargo")
        .read("/home/u/.rustup")
        .write("/home/u/proj")
        .write("/tmp")
        .deny("/home/u/proj/.env")
        .done()
}

fn restrict() -> Capabilities {
    let mut r = L::new("ci-restrict.ral")
        .dir("/usr", allow())
        .dir("/bin", allow())
        .dir("/home/u/.cargo", allow())
        .name("curl", deny())
        .read("/")
        .write("/home/u/proj")
        .write("/tmp")
        .done();
    r.source.path = Some(ralc::capability::testkit::fp("/home/u/ci-restrict.ral"));
    r
}

fn host() -> Host {
    let mut which = HashMap::new();
    for t in [
        "git", "ls", "cat", "sh", "cargo", "rustc", "grep", "sed", "awk", "make",
    ] {
        let dir = if t == "cargo" || t == "rustc" {
            format!("{HOME}/.cargo/bin")
        } else {
            "/usr/bin".into()
        };
        let at = format!("{dir}/{t}");
        which.insert(t.to_owned(), (at.clone(), RealPath::from_resolved(at)));
    }
    Host { which }
}

/// This thread's CPU time in seconds (utime + stime from /proc, in clock ticks of 1/100 s),
/// so a rate is per core even when other work shares the machine.
fn cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let rest = s.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Rounds per measurement: the machine is shared, so each rate is measured this many
/// times and the median and best rounds are printed.
const ROUNDS: usize = 5;

fn rate(label: &str, n: usize, f: impl FnMut(usize) -> bool) -> f64 {
    let mut f = f;
    // warm up
    for i in 0..n.min(10_000) {
        black_box(f(i));
    }
    let mut rates = Vec::new();
    let mut granted = 0usize;
    let mut wall = 0.0;
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let c0 = cpu_secs();
        granted = 0;
        for i in 0..n {
            if black_box(f(i)) {
                granted += 1;
            }
        }
        let secs = t.elapsed().as_secs_f64();
        wall += secs;
        let cpu = match (c0, cpu_secs()) {
            (Some(a), Some(b)) if b > a => b - a,
            _ => secs,
        };
        rates.push(n as f64 / cpu);
    }
    rates.sort_by(f64::total_cmp);
    let median = rates[ROUNDS / 2];
    let best = rates[ROUNDS - 1];
    println!(
        "{label:<58} {median:>10.0}/s per core median, {best:>10.0} best  ({ROUNDS}x{n}, {wall:.2}s wall, {granted} granted per round)"
    );
    median
}

fn main() {
    let h = host();
    let stack = GrantStack::compose(vec![reasonable(), project()], vec![], vec![restrict()]);
    let n = 1_000_000;

    let programs: Vec<String> = (0..1000)
        .map(|i| match i % 5 {
            0 => "git".to_owned(),
            1 => format!("/usr/bin/tool{i}"),
            2 => format!("{HOME}/.cargo/bin/cargo-{i}"),
            3 => format!("/opt/x/bin/t{i}"),
            _ => format!("/usr/local/bin/sudo{}", if i % 10 == 4 { "" } else { "x" }),
        })
        .collect();
    let args: Vec<Vec<String>> = (0..1000)
        .map(|i| vec![["status", "push", "log"][i % 3].to_owned()])
        .collect();
    let paths: Vec<String> = (0..1000)
        .map(|i| match i % 6 {
            0 => format!("{HOME}/proj/src/m{i}.rs"),
            1 => format!("{HOME}/.ssh/id_{i}"),
            2 => format!("/usr/lib/x86_64-linux-gnu/lib{i}.so"),
            3 => format!("/etc/conf{i}"),
            4 => format!("{HOME}/.cargo/registry/src/c{i}/lib.rs"),
            _ => format!("/var/log/l{i}"),
        })
        .collect();
    let reals: Vec<RealPath> = paths.iter().map(RealPath::from_resolved).collect();

    println!("3-layer stack (std:reasonable-shaped, project, restrict), one core:");
    rate(
        "exec judgments (admit: exec table + read of program)",
        n,
        |i| {
            stack
                .admit(&programs[i % 1000], &args[i % 1000], &h)
                .is_ok()
        },
    );
    rate("read judgments (GrantStack::read)", n, |i| {
        stack.read(&paths[i % 1000], &h).is_ok()
    });
    rate("write judgments (GrantStack::write)", n, |i| {
        stack.write(&paths[i % 1000], &h).is_ok()
    });
    rate("read judgments on real paths (judge_real)", n, |i| {
        stack.judge_real(FsOp::Read, &reals[i % 1000], &h).is_ok()
    });

    // `cargo bench -p ralc --bench model -- quick`: the 3-layer section only
    if std::env::args().any(|a| a == "quick") {
        return;
    }
    println!("cost growth with entries (one layer, read + exec):");
    for size in [1_000usize, 10_000, 100_000] {
        let t = Instant::now();
        let mut l = L::new("big.ral");
        for i in 0..size {
            let p = format!("/data/d{}/e{}", i % 97, i);
            l = match i % 4 {
                0 => l.deny(&p),
                1 => l.dir(&p, allow()),
                _ => l.read(&p),
            };
        }
        let big = GrantStack::new(vec![l.done(), reasonable()]);
        let built = t.elapsed().as_secs_f64();
        println!("  {size} entries: stack built in {built:.3}s");
        let subj: Vec<String> = (0..1000)
            .map(|i| format!("/data/d{}/e{}/f", i % 97, (i * 7919) % size))
            .collect();
        rate(&format!("  read, {size} entries"), 200_000, |i| {
            big.read(&subj[i % 1000], &h).is_ok()
        });
        rate(&format!("  exec, {size} entries"), 200_000, |i| {
            big.admit(&subj[i % 1000], &[], &h).is_ok()
        });
    }

    println!("why --batch, 100,000 questions, in process (parse, judge, word, JSON):");
    let mut input = String::new();
    for i in 0..100_000 {
        match i % 4 {
            0 => input.push_str(&format!(
                "exec {} {}\n",
                programs[i % 1000],
                args[i % 1000][0]
            )),
            1 => input.push_str(&format!("read {}\n", paths[i % 1000])),
            2 => input.push_str(&format!("write {}\n", paths[(i * 7) % 1000])),
            _ => input.push_str("flag net\n"),
        }
    }
    let t = Instant::now();
    let c0 = cpu_secs();
    let mut out = String::with_capacity(input.len() * 4);
    let all = why::batch(&stack, &h, &input, &mut out);
    let secs = t.elapsed().as_secs_f64();
    let cpu = match (c0, cpu_secs()) {
        (Some(a), Some(b)) => b - a,
        _ => secs,
    };
    println!(
        "  100000 questions answered in {secs:.3}s wall, {cpu:.2}s cpu ({} lines, all answered: {all})",
        out.lines().count()
    );
}
