//! `ralc deputy`: the deputy report, for code review (spec §5): deputy prefixes and, a
//! second kind, the files the host runs later that the stack leaves writable
//! (`host-run-writable`). Human, JSON (`{"findings":[{"prefix","surface","exec_entry":
//! {"file","line","column","text"},"write_entry":{…}}],"host_run":[{"path","what",
//! "write_entry"}]}`), SARIF and GitHub annotation output. It reports and never
//! denies: exit 0 whatever it finds, unless `--deny` (then 1 when there is a finding).
//! The report itself (`report`) is pure; only `run` touches the process.

use super::args::{DeputyArgs, Format};
use crate::capability::layer::Origin;
use crate::diag::{Diagnostic, Severity, SourceMap};
use crate::lint::deputy::{self, DeputyFinding};
use crate::lint::host_run_writable::{self as host_run, HostRunFinding};
use serde_json::{json, Value};

fn entry(o: &Option<Origin>) -> Value {
    match o {
        Some(o) => {
            json!({"file": &*o.file, "line": o.line, "column": o.column, "text": &*o.written})
        }
        None => Value::Null,
    }
}

/// Both kinds of finding of one report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub prefixes: Vec<DeputyFinding>,
    pub host_run: Vec<HostRunFinding>,
}

impl Report {
    pub fn is_empty(&self) -> bool {
        self.prefixes.is_empty() && self.host_run.is_empty()
    }
}

/// The `--format json` report.
pub fn json_report(report: &Report) -> String {
    let v = json!({
        "findings": report.prefixes.iter().map(|f| json!({
            "prefix": f.prefix.as_str(),
            "surface": f.surface,
            "exec_entry": entry(&f.exec_entry),
            "write_entry": entry(&f.write_entry),
        })).collect::<Vec<_>>(),
        "host_run": report.host_run.iter().map(|f| json!({
            "path": f.path.as_str(),
            "what": f.what,
            "write_entry": entry(&f.write_entry),
        })).collect::<Vec<_>>(),
    });
    let mut s = crate::diag::escape::json(v.to_string());
    s.push('\n');
    s
}

/// The human report.
pub fn human_report(report: &Report) -> String {
    use crate::diag::escape::text;
    let findings = &report.prefixes;
    let mut s = String::new();
    let at = |o: &Option<Origin>| match o {
        Some(o) => format!(
            "{}:{}:{} `{}`",
            text(&o.file),
            o.line,
            o.column,
            text(&o.written)
        ),
        None => "(every program / no fs opinion)".to_string(),
    };
    for f in findings {
        s.push_str(&format!("deputy prefix: {}\n", text(&f.prefix.to_string())));
        if f.surface != f.prefix.as_str() {
            s.push_str(&format!("  written as: {}\n", text(&f.surface.to_string())));
        }
        s.push_str(&format!("  runnable by: {}\n", at(&f.exec_entry)));
        s.push_str(&format!("  writable by: {}\n", at(&f.write_entry)));
    }
    match findings.len() {
        0 => s.push_str("no deputy prefixes\n"),
        1 => s.push_str("1 deputy prefix (reported, not denied)\n"),
        n => s.push_str(&format!("{n} deputy prefixes (reported, not denied)\n")),
    }
    for f in &report.host_run {
        s.push_str(&format!(
            "host-run file: {} ({})\n",
            text(&f.path.to_string()),
            text(f.what)
        ));
        s.push_str(&format!("  writable by: {}\n", at(&f.write_entry)));
    }
    match report.host_run.len() {
        0 => s.push_str("no writable host-run files\n"),
        1 => s.push_str("1 writable host-run file (reported, not denied)\n"),
        n => s.push_str(&format!(
            "{n} writable host-run files (reported, not denied)\n"
        )),
    }
    s
}

/// The findings as diagnostics (`deputy-prefix` and `host-run-writable` warnings; errors
/// under `--deny`).
pub fn diagnostics(report: &Report, deny: bool) -> Vec<Diagnostic> {
    report
        .prefixes
        .iter()
        .map(deputy::diagnostic)
        .chain(report.host_run.iter().map(host_run::diagnostic))
        .map(|d| {
            if deny {
                Diagnostic {
                    severity: Severity::Error,
                    ..d
                }
            } else {
                d
            }
        })
        .collect()
}

/// The report in a format. `cwd` makes SARIF artifact URIs relative.
pub fn report(
    findings: &Report,
    format: Format,
    deny: bool,
    sources: &SourceMap,
    cwd: Option<&str>,
) -> String {
    match format {
        Format::Human => human_report(findings),
        Format::Json => json_report(findings),
        Format::Github => crate::diag::github::render(&diagnostics(findings, deny), sources),
        Format::Sarif => {
            let rules: Vec<_> = crate::lint::sarif_rules()
                .into_iter()
                .filter(|r| r.id == deputy::INFO.name || r.id == host_run::INFO.name)
                .collect();
            crate::diag::sarif::render_with(
                &diagnostics(findings, deny),
                sources,
                &rules,
                &crate::diag::sarif::Options {
                    cwd: cwd.map(str::to_string),
                },
            )
        }
    }
}

/// The findings less those a reasoned `# ralc: allow(deputy-prefix) …` directive on their
/// exec or write entry (or atop its file) allows: the review trail is the directive.
pub fn without_allowed(findings: Vec<DeputyFinding>, sources: &SourceMap) -> Vec<DeputyFinding> {
    let directives = crate::lint::directive::Directives::parse(sources);
    findings
        .into_iter()
        .filter(|f| {
            crate::lint::directive_level_of(
                &directives,
                deputy::INFO.name,
                &deputy::finding(f),
                sources,
            ) != Some(crate::lint::Level::Allow)
        })
        .collect()
}

/// The host-run findings less those a reasoned `# ralc: allow(host-run-writable) …`
/// directive on their write entry (or atop its file) allows.
pub fn host_run_without_allowed(
    findings: Vec<HostRunFinding>,
    sources: &SourceMap,
) -> Vec<HostRunFinding> {
    let directives = crate::lint::directive::Directives::parse(sources);
    findings
        .into_iter()
        .filter(|f| {
            crate::lint::directive_level_of(
                &directives,
                host_run::INFO.name,
                &host_run::finding(f),
                sources,
            ) != Some(crate::lint::Level::Allow)
        })
        .collect()
}

/// The exit code: 0 whatever it finds, unless `--deny` and there is a finding.
pub fn exit_code(findings: &Report, deny: bool) -> i32 {
    i32::from(deny && !findings.is_empty())
}

/// Diagnostics (when the stack does not compile) in the chosen format.
fn render_diagnostics(
    format: Format,
    diags: &[Diagnostic],
    sources: &SourceMap,
    cwd: Option<&str>,
) -> String {
    match format {
        Format::Human => {
            crate::diag::human::render(diags, sources, super::check::color_for_stdout())
        }
        Format::Json => crate::diag::json::render(diags, sources),
        Format::Sarif => crate::lint::sarif_report(diags, sources, cwd),
        Format::Github => crate::diag::github::render(diags, sources),
    }
}

pub fn run(args: &DeputyArgs) -> i32 {
    let req = match args.stack.request(&args.files) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ralc deputy: {e}");
            return super::EXIT_USAGE;
        }
    };
    if req.layers.is_empty() {
        eprintln!("ralc deputy: name at least one profile (FILE, -p FILE or std:NAME)");
        return super::EXIT_USAGE;
    }
    // SARIF artifact URIs are relative to where the shell that named the files stands.
    let cwd = super::check::process_cwd();
    let compiled = super::progress::during("compiling the profiles", || {
        crate::pipeline::compile(req, &args.stack.loader())
    });
    let Some(stack) = compiled.stack.as_ref().filter(|_| !compiled.has_errors()) else {
        super::emit(&render_diagnostics(
            args.format,
            &compiled.diagnostics,
            &compiled.sources,
            cwd.as_deref(),
        ));
        return super::EXIT_BROKEN;
    };
    let places = crate::lint::Places::from_ctx(&compiled.ctx);
    // --forbid: the reviewed file's directives hide nothing
    let findings = if args.forbid {
        Report {
            prefixes: deputy::deputy_prefixes(stack),
            host_run: host_run::host_run_writable(stack, &places),
        }
    } else {
        Report {
            prefixes: without_allowed(deputy::deputy_prefixes(stack), &compiled.sources),
            host_run: host_run_without_allowed(
                host_run::host_run_writable(stack, &places),
                &compiled.sources,
            ),
        }
    };
    let deny = args.deny || args.forbid;
    // under --quiet a human report is printed only when its findings fail the run
    let silent = super::quiet() && args.format == Format::Human && !deny;
    super::emit(&if silent {
        String::new()
    } else {
        report(
            &findings,
            args.format,
            deny,
            &compiled.sources,
            cwd.as_deref(),
        )
    });
    exit_code(&findings, deny)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::testkit::LayerBuilder;
    use crate::typecheck::profile::ExecPolicy;

    fn sample() -> (SourceMap, Report) {
        let mut sm = SourceMap::new();
        let layers = vec![LayerBuilder::new("p.ral")
            .exec_dir("/w/", ExecPolicy::Allow)
            .write("/w/target")
            .build(&mut sm)];
        let stack = crate::capability::stack::GrantStack::new(layers);
        let places = crate::lint::Places {
            cwd: Some(crate::path::frozen::RealPath::from_resolved("/w/target")),
            ..crate::lint::Places::default()
        };
        let f = Report {
            prefixes: deputy::deputy_prefixes(&stack),
            host_run: host_run::host_run_writable(&stack, &places),
        };
        (sm, f)
    }

    #[test]
    fn json_has_the_exact_shape() {
        let (_, f) = sample();
        assert_eq!(
            json_report(&f),
            "{\"findings\":[{\"prefix\":\"/w/target\",\"surface\":\"/w/target\",\"exec_entry\":{\"file\":\"p.ral\",\"line\":1,\"column\":8,\"text\":\"/w/\"},\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}}],\"host_run\":[{\"path\":\"/w/target/.git/config\",\"what\":\"git's configuration (aliases, core.fsmonitor, core.hooksPath)\",\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}},{\"path\":\"/w/target/.git/hooks\",\"what\":\"git's hooks\",\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}},{\"path\":\"/w/target/.husky\",\"what\":\"husky's git hooks\",\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}},{\"path\":\"/w/target/.idea\",\"what\":\"editor project settings (run configurations)\",\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}},{\"path\":\"/w/target/.pre-commit-config.yaml\",\"what\":\"pre-commit's hooks (commands git runs on commit)\",\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}},{\"path\":\"/w/target/.tool-versions\",\"what\":\"asdf/mise's tool versions (plugins the host runs)\",\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}},{\"path\":\"/w/target/.vscode\",\"what\":\"editor project settings (tasks, launch configurations)\",\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}},{\"path\":\"/w/target/.yarnrc\",\"what\":\"yarn's configuration (yarn-path: the yarn the host runs)\",\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}},{\"path\":\"/w/target/.yarnrc.yml\",\"what\":\"yarn's configuration (yarnPath: the yarn the host runs)\",\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}},{\"path\":\"/w/target/rust-toolchain\",\"what\":\"rustup's toolchain file (`path`: the toolchain the host runs)\",\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}},{\"path\":\"/w/target/rust-toolchain.toml\",\"what\":\"rustup's toolchain file (`path`: the toolchain the host runs)\",\"write_entry\":{\"file\":\"p.ral\",\"line\":2,\"column\":9,\"text\":\"/w/target\"}}]}\n"
        );
        assert_eq!(
            json_report(&Report::default()),
            "{\"findings\":[],\"host_run\":[]}\n"
        );
    }

    #[test]
    fn github_and_exit_codes() {
        let (sm, f) = sample();
        let g = report(&f, Format::Github, false, &sm, None);
        assert!(g.starts_with("::warning file=p.ral,line=2,col=9::deputy-prefix: `/w/target` is both runnable and writable"), "{g}");
        let g = report(&f, Format::Github, true, &sm, None);
        assert!(g.starts_with("::error "));
        assert_eq!(exit_code(&f, false), 0);
        assert_eq!(exit_code(&f, true), 1);
        assert_eq!(exit_code(&Report::default(), true), 0);
        let h = human_report(&f);
        assert!(h.contains("runnable by: p.ral:1:8 `/w/`"), "{h}");
        assert!(
            h.contains("host-run file: /w/target/.git/hooks (git's hooks)"),
            "{h}"
        );
        assert!(h.contains("11 writable host-run files"), "{h}");
        assert!(g.contains("host-run-writable"), "{g}");
        let only_host_run = Report {
            prefixes: vec![],
            host_run: f.host_run.clone(),
        };
        assert_eq!(exit_code(&only_host_run, true), 1);
        let sarif = report(&f, Format::Sarif, false, &sm, None);
        assert!(sarif.contains("\"host-run-writable\""), "{sarif}");
    }
}
