//! `ralc why`: answer one judgment (`exec PROGRAM [ARGS…]`, `read PATH`, `write PATH`,
//! `flag NAME`) with its verdict, reason and deciding entries, in human words or as one
//! JSON object; `--batch FILE|-` answers one question per line, the stack compiled once.
//! Exit 0 granted, 1 withheld or a profile with errors, 2 a usage error (a batch exits 0
//! when every line was answered, 2 when one was not a question): the shared scheme of
//! `cli::EXIT_*`. It decides nothing itself: `GrantStack` judges, `guard` words.

use super::args::{Format, WhyArgs};
use crate::capability::fs::FsOp;
use crate::capability::resolve::Resolve;
use crate::capability::stack::{Flag, GrantStack};
use crate::guard::{self, Decision};
use crate::path::frozen::RealPath;
use serde::Serialize;
use std::cell::RefCell;
use std::collections::HashMap;

pub const EXIT_GRANTED: i32 = super::EXIT_OK;
pub const EXIT_WITHHELD: i32 = super::EXIT_NO;
pub const EXIT_USAGE: i32 = super::EXIT_USAGE;

/// One question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Question {
    Exec(String, Vec<String>),
    Read(String),
    Write(String),
    Flag(String),
}

impl Question {
    pub fn kind(&self) -> &'static str {
        match self {
            Question::Exec(..) => "exec",
            Question::Read(_) => "read",
            Question::Write(_) => "write",
            Question::Flag(_) => "flag",
        }
    }
    /// The subject as written after the kind (`git status`, `/etc/passwd`, `net`).
    pub fn subject(&self) -> String {
        match self {
            Question::Exec(p, args) => {
                let mut s = p.clone();
                for a in args {
                    s.push(' ');
                    s.push_str(a);
                }
                s
            }
            Question::Read(p) | Question::Write(p) | Question::Flag(p) => p.clone(),
        }
    }
}

const USAGE: &str =
    "a question is `exec PROGRAM [ARGS…]`, `read PATH`, `write PATH` or `flag net|detach|editor.read|editor.write|editor.tui|shell.chdir`";

/// Parse a question from its words.
pub fn parse(words: &[String]) -> Result<Question, String> {
    let Some((kind, rest)) = words.split_first() else {
        return Err(format!("no question given: {USAGE}"));
    };
    use crate::path::lex::{within_limits, PathRules, MAX_COMPONENTS, PATH_MAX_BYTES};
    // a subject no real path could be is refused before it is resolved or echoed
    if let Some(w) = rest.iter().find(|w| !within_limits(w, PathRules::host())) {
        return Err(format!(
            "`{}` is longer than {PATH_MAX_BYTES} bytes or {MAX_COMPONENTS} components",
            crate::diag::escape::clip(w, 32)
        ));
    }
    let one = |what: &str| match rest {
        [x] => Ok(x.clone()),
        [] => Err(format!("`{kind}` needs a {what}: {USAGE}")),
        _ => Err(format!("`{kind}` takes one {what}: {USAGE}")),
    };
    match kind.as_str() {
        "exec" => match rest.split_first() {
            Some((p, args)) => Ok(Question::Exec(p.clone(), args.to_vec())),
            None => Err(format!("`exec` needs a program: {USAGE}")),
        },
        "read" => one("path").map(Question::Read),
        "write" => one("path").map(Question::Write),
        "flag" => {
            let f = one("flag name")?;
            match Flag::parse(&f) {
                Some(_) => Ok(Question::Flag(f)),
                None => Err(format!("unknown flag `{f}`: {USAGE}")),
            }
        }
        other => Err(format!(
            "unknown question `{}`: {USAGE}",
            crate::diag::escape::clip(other, 32)
        )),
    }
}

/// Parse one line of a batch (words separated by white space).
pub fn parse_line(line: &str) -> Result<Question, String> {
    let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
    parse(&words)
}

/// Judge a question against the stack, worded.
pub fn answer(stack: &GrantStack, r: &dyn Resolve, q: &Question) -> Decision {
    match q {
        Question::Exec(p, args) => guard::exec(stack, p, args, &stack.admit(p, args, r)),
        Question::Read(p) => guard::fs(stack, FsOp::Read, p, &stack.read(p, r)),
        Question::Write(p) => guard::fs(stack, FsOp::Write, p, &stack.write(p, r)),
        Question::Flag(f) => match Flag::parse(f) {
            Some(flag) => guard::flag(stack, flag, &stack.permits(flag)),
            // `parse` refuses unknown flags; a hand-built question fails closed
            None => Decision {
                granted: false,
                reason: Some("missing-allowance"),
                decided_by: Vec::new(),
                message: format!("flag {f}: unknown flag"),
                hint: None,
            },
        },
    }
}

#[derive(Serialize)]
struct JsonEntry<'a> {
    file: std::borrow::Cow<'a, str>,
    line: u32,
    column: u32,
    entry: std::borrow::Cow<'a, str>,
}

#[derive(Serialize)]
struct JsonAnswer<'a> {
    question: &'static str,
    subject: String,
    verdict: &'static str,
    reason: Option<&'static str>,
    decided_by: Vec<JsonEntry<'a>>,
}

/// The JSON answer of issue 4 part 6, on one line.
pub fn json(q: &Question, d: &Decision) -> String {
    let a = JsonAnswer {
        question: q.kind(),
        subject: crate::diag::escape::text(&q.subject()).into_owned(),
        verdict: if d.granted { "granted" } else { "withheld" },
        reason: d.reason,
        decided_by: d
            .decided_by
            .iter()
            .map(|e| JsonEntry {
                file: crate::diag::escape::text(&e.file),
                line: e.line,
                column: e.column,
                entry: crate::diag::escape::text(&e.entry),
            })
            .collect(),
    };
    crate::diag::escape::json(serde_json::to_string(&a).unwrap_or_else(|_| String::from("{}")))
}

/// A batch line that is not a question, as JSON: its 1-based line number and what a
/// question is. The line's text is never echoed: a questions file may be anything (a
/// link to a secret), and only what parsed as a question is repeated.
pub fn json_error(line: usize) -> String {
    serde_json::json!({ "line": line, "error": format!("not a question: {USAGE}") }).to_string()
}

/// The human answer: the verdict with its reason, each deciding entry, the hint; every
/// line escaped (`diag::escape`), so no path or entry can start a line of its own.
pub fn human(d: &Decision) -> String {
    use crate::diag::escape::text;
    let mut s = text(&d.message).into_owned();
    s.push('\n');
    if let Some(r) = d.reason {
        s.push_str(&format!("  reason: {r}\n"));
    }
    for e in &d.decided_by {
        if e.line == 0 {
            s.push_str(&format!(
                "  decided by: {} (layer {})",
                text(&e.file),
                e.layer
            ));
        } else {
            s.push_str(&format!(
                "  decided by: {}:{}:{} (layer {})",
                text(&e.file),
                e.line,
                e.column,
                e.layer
            ));
        }
        if !e.entry.is_empty() {
            s.push_str(&format!(" `{}`", text(&e.entry)));
        }
        s.push('\n');
    }
    if let Some(h) = &d.hint {
        s.push_str(&format!("  help: {}\n", text(h)));
    }
    s
}

/// The host as one batch sees it: each distinct `which` and `real` question is put to the
/// live resolver once and its answer reused for the rest of the batch (a batch is one
/// moment: every line is judged against the host as it was when the answer was first
/// needed). It answers nothing itself.
pub struct BatchHost<'a> {
    /// The resolver's own batch form (`Resolve::for_batch`), when it has one.
    batch: Option<Box<dyn Resolve + 'a>>,
    host: &'a dyn Resolve,
    which: RefCell<HashMap<String, Option<(String, RealPath)>>>,
    real: RefCell<HashMap<String, Option<RealPath>>>,
}

impl<'a> BatchHost<'a> {
    pub fn new(host: &'a dyn Resolve) -> Self {
        BatchHost {
            batch: host.for_batch(),
            host,
            which: RefCell::default(),
            real: RefCell::default(),
        }
    }
    fn inner(&self) -> &dyn Resolve {
        self.batch.as_deref().unwrap_or(self.host)
    }
}

/// Look `key` up in `memo`, asking `ask` (and remembering its answer) on a miss.
fn memo<T: Clone>(memo: &RefCell<HashMap<String, T>>, key: &str, ask: impl FnOnce() -> T) -> T {
    if let Some(v) = memo.borrow().get(key) {
        return v.clone();
    }
    let v = ask();
    memo.borrow_mut().insert(key.to_owned(), v.clone());
    v
}

impl Resolve for BatchHost<'_> {
    fn which(&self, name: &str) -> Option<(String, RealPath)> {
        memo(&self.which, name, || self.inner().which(name))
    }
    fn real(&self, path: &str) -> Option<RealPath> {
        memo(&self.real, path, || self.inner().real(path))
    }
    fn cwd(&self) -> &str {
        self.host.cwd()
    }
    // the rest of the host's answers as the batch resolver gives them (a batch judges as
    // one question does: the link rule and carriers included)
    fn carriers(&self, program: &RealPath) -> Vec<RealPath> {
        self.inner().carriers(program)
    }
    fn links(&self, at: &str) -> Option<crate::capability::resolve::LinkChain> {
        self.inner().links(at)
    }
    fn link_chains_in(&self, dir: &str) -> Vec<crate::capability::resolve::LinkChain> {
        self.inner().link_chains_in(dir)
    }
    fn names(&self, dir: &str) -> Vec<String> {
        self.inner().names(dir)
    }
}

/// Answer every line of a batch into `out` (blank lines and `#` comments skipped);
/// returns whether every line was a question. The host is consulted through a
/// `BatchHost`, so a repeated subject costs the live resolver nothing.
pub fn batch(stack: &GrantStack, r: &dyn Resolve, input: &str, out: &mut String) -> bool {
    let host = BatchHost::new(r);
    let r: &dyn Resolve = &host;
    let mut all = true;
    for (n, line) in input.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        match parse_line(t) {
            Ok(q) => out.push_str(&json(&q, &answer(stack, r, &q))),
            Err(_) => {
                all = false;
                out.push_str(&json_error(n + 1));
            }
        }
        out.push('\n');
    }
    all
}

/// The exit code of one answer.
pub fn exit_code(d: &Decision) -> i32 {
    if d.granted {
        EXIT_GRANTED
    } else {
        EXIT_WITHHELD
    }
}

/// Answer the command line's question (or batch) against a compiled stack, writing to
/// `out`; returns the exit code. `input` reads the batch file (`-`: stdin).
pub fn respond(
    args: &WhyArgs,
    stack: &GrantStack,
    r: &dyn Resolve,
    input: &dyn Fn(&str) -> Result<String, String>,
    out: &mut String,
    err: &mut String,
) -> i32 {
    if matches!(args.format, Format::Sarif | Format::Github) {
        err.push_str("ralc why: --format sarif and github are not offered; use human or json\n");
        return EXIT_USAGE;
    }
    if let Some(file) = &args.batch {
        if !args.question.is_empty() {
            err.push_str("ralc why: give either --batch or a question, not both\n");
            return EXIT_USAGE;
        }
        let text = match input(file) {
            Ok(t) => t,
            Err(e) => {
                err.push_str(&format!("ralc why: error[E0100]: {e}\n"));
                return EXIT_USAGE;
            }
        };
        return if batch(stack, r, &text, out) {
            EXIT_GRANTED
        } else {
            EXIT_USAGE
        };
    }
    let q = match parse(&args.question) {
        Ok(q) => q,
        Err(e) => {
            err.push_str(&format!("ralc why: {e}\n"));
            return EXIT_USAGE;
        }
    };
    let d = answer(stack, r, &q);
    match args.format {
        Format::Json => {
            out.push_str(&json(&q, &d));
            out.push('\n');
        }
        _ => out.push_str(&human(&d)),
    }
    exit_code(&d)
}

/// Read a batch through the reviewed reader: a regular file named on the command line
/// (contained as a layer is, unless `--allow-outside-links`), or stdin for `-`; at most
/// [`crate::reader::BATCH_LIMIT`] bytes either way.
fn read_batch(name: &str, outside_ok: bool) -> Result<String, String> {
    use crate::reader::{self, BATCH_LIMIT};
    let bytes = if name == "-" {
        reader::read_stdin_bounded(BATCH_LIMIT).map_err(|e| format!("cannot read stdin: {e}"))?
    } else {
        let refused = |e: reader::Refusal| format!("cannot read `{name}`: {e}");
        if !outside_ok {
            let cwd = reader::working_dir().map_err(|e| format!("cannot read `{name}`: {e}"))?;
            reader::check_contained(name, &cwd).map_err(refused)?;
        }
        reader::read_reviewed(std::path::Path::new(name), BATCH_LIMIT).map_err(refused)?
    };
    String::from_utf8(bytes).map_err(|_| format!("cannot read `{name}`: it is not UTF-8 text"))
}

pub fn run(args: &WhyArgs) -> i32 {
    if args.stack.profiles.is_empty() && args.stack.restrict.is_empty() {
        eprintln!("ralc why: name at least one profile (-p FILE or -p std:NAME)");
        return EXIT_USAGE;
    }
    let req = match args.stack.request(&[]) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ralc why: {e}");
            return EXIT_USAGE;
        }
    };
    let compiled = super::progress::during("compiling the profiles", || {
        crate::pipeline::compile(req, &args.stack.loader())
    });
    let Some(stack) = compiled.stack.as_ref().filter(|_| !compiled.has_errors()) else {
        // in the format asked for: `--format json` writes no human report
        let shown = match args.format {
            Format::Human => super::for_humans(&compiled.diagnostics),
            _ => compiled.diagnostics.clone(),
        };
        eprint!(
            "{}",
            super::check::render(
                args.format,
                &shown,
                &compiled.sources,
                false,
                super::check::process_cwd().as_deref()
            )
        );
        eprintln!("ralc why: the profiles have errors; nothing is answered");
        return super::EXIT_BROKEN;
    };
    let mut out = String::new();
    let mut err = String::new();
    let outside_ok = args.stack.allow_outside_links;
    let read = |name: &str| read_batch(name, outside_ok);
    let code = super::progress::during("answering", || {
        respond(args, stack, &compiled.ctx, &read, &mut out, &mut err)
    });
    // under --quiet a human answer is its exit code alone
    if !(super::quiet() && args.format == Format::Human && args.batch.is_none()) {
        super::emit(&out);
    }
    eprint!("{err}");
    code
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capability::testkit::*;

    fn stack() -> GrantStack {
        GrantStack::new(vec![L::new("p.ral")
            .read("/home/u")
            .deny("/home/u/.ssh")
            .name("git", subs(&["status"]))
            .read("/usr/bin")
            .done()])
    }

    #[test]
    fn json_shape() {
        let h = FakeHost::new().on_path("git", "/usr/bin/git");
        let s = stack();
        let q = parse_line("read /home/u/.ssh/id").unwrap();
        assert_eq!(
            json(&q, &answer(&s, &h, &q)),
            r#"{"question":"read","subject":"/home/u/.ssh/id","verdict":"withheld","reason":"excluded","decided_by":[{"file":"p.ral","line":3,"column":3,"entry":"/home/u/.ssh"}]}"#
        );
        let q = parse_line("exec git status").unwrap();
        let j = json(&q, &answer(&s, &h, &q));
        assert!(
            j.starts_with(
                r#"{"question":"exec","subject":"git status","verdict":"granted","reason":null"#
            ),
            "{j}"
        );
        assert!(parse_line("flag nett").is_err());
        assert!(parse_line("read").is_err());
        let mut out = String::new();
        assert!(batch(&s, &h, "exec git push\n\nflag net\n", &mut out));
        assert_eq!(out.lines().count(), 2);
        assert!(out.contains(r#""reason":"subcommand""#));
        let mut bad = String::new();
        assert!(!batch(
            &s,
            &h,
            "# a comment\nextraheader = AUTHORIZATION: basic c2VjcmV0\n",
            &mut bad
        ));
        assert!(bad.starts_with(r#"{"line":2,"#), "{bad}");
        assert!(
            !bad.contains("c2VjcmV0") && !bad.contains("extraheader"),
            "{bad}"
        );
    }

    /// A resolver that counts the questions put to it.
    struct Counting<'a> {
        inner: &'a FakeHost,
        asked: std::cell::Cell<usize>,
    }

    impl Resolve for Counting<'_> {
        fn which(&self, name: &str) -> Option<(String, RealPath)> {
            self.asked.set(self.asked.get() + 1);
            self.inner.which(name)
        }
        fn real(&self, path: &str) -> Option<RealPath> {
            self.asked.set(self.asked.get() + 1);
            self.inner.real(path)
        }
        fn cwd(&self) -> &str {
            self.inner.cwd()
        }
    }

    #[test]
    fn a_batch_asks_the_host_once_per_distinct_question() {
        let h = FakeHost::new().on_path("git", "/usr/bin/git");
        let s = stack();
        let lines = "read /home/u/a\nexec git status\nread /home/u/.ssh/id\n";
        let mut one = String::new();
        assert!(batch(&s, &h, lines, &mut one));
        let counting = Counting {
            inner: &h,
            asked: std::cell::Cell::new(0),
        };
        let mut once = String::new();
        assert!(batch(&s, &counting, lines, &mut once));
        let first = counting.asked.get();
        let mut many = String::new();
        counting.asked.set(0);
        assert!(batch(&s, &counting, &lines.repeat(50), &mut many));
        // the same answers, and the same number of host questions for 50 copies as for one
        assert_eq!(once, one);
        assert_eq!(many, one.repeat(50));
        assert_eq!(counting.asked.get(), first);
        assert!(first > 0);
    }
}
