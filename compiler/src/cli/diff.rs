//! `ralc diff OLD NEW`: what a profile change grants that was not granted before (and
//! what it takes away), judged after the freeze by the model (`capability::residual`),
//! both sides frozen at one anchor. Human, JSON (`{"verdict", "changes":[{"direction",
//! "axis","subject","entry","file","line","column"}]}`), SARIF and GitHub output. Exit 0
//! when NEW does not widen, 1 when it does (or is incomparable), 2 on a usage error or a
//! broken profile. The reports (`report`) are pure; only `run` touches the process.

use super::args::{DiffArgs, Format, StackArgs};
use crate::capability::residual::{self, Change, Direction, Side, Verdict};
use crate::diag::{Diagnostic, FileId, Severity, SourceMap, Span};
use crate::pipeline::{compile, Compiled};
use serde_json::{json, Value};

/// Exit code when NEW widens (the shared `cli::EXIT_WIDENS`).
pub const EXIT_WIDENS: i32 = super::EXIT_WIDENS;

/// The per-side layers from `--old ROLE FILE` pairs.
pub fn side_args(pairs: &[String]) -> Result<StackArgs, String> {
    let mut s = StackArgs::default();
    for pair in pairs.chunks(2) {
        let [role, file] = pair else {
            return Err("each --old/--new takes a role and a file".into());
        };
        match role.as_str() {
            "-p" | "--profile" => s.profiles.push(file.clone()),
            "--restrict" => s.restrict.push(file.clone()),
            "--extend" => s.extend.push(file.clone()),
            other => {
                return Err(format!(
                    "unknown layer role `{other}`: use -p, --restrict or --extend"
                ))
            }
        }
    }
    Ok(s)
}

/// The rule ids of a diff's results.
pub const WIDENS: &str = "widens";
pub const NARROWS: &str = "narrows";

/// The changes as diagnostics over `sources` (OLD's files, then NEW's at `new_base`).
pub fn diagnostics(changes: &[Change], new_base: u32) -> Vec<Diagnostic> {
    changes
        .iter()
        .map(|c| {
            let (code, sev) = match c.direction {
                Direction::Widens => (WIDENS, Severity::Warning),
                Direction::Narrows => (NARROWS, Severity::Note),
            };
            let mut d = Diagnostic::new(
                code,
                sev,
                format!(
                    "{} {}: {}",
                    c.axis.as_str(),
                    c.direction.as_str(),
                    c.region.display()
                ),
            );
            if let Some((side, o)) = &c.entry {
                let file = match side {
                    Side::Old => o.span.file,
                    Side::New => FileId(o.span.file.0 + new_base),
                };
                d.span = Some(Span::new(file, o.span.start, o.span.end));
                d.notes.push(format!(
                    "decided by `{}` in {} ({}:{}:{})",
                    o.written,
                    match side {
                        Side::Old => "OLD",
                        Side::New => "NEW",
                    },
                    o.file,
                    o.line,
                    o.column
                ));
            }
            d
        })
        .collect()
}

/// The SARIF rules of a diff.
pub fn sarif_rules() -> Vec<crate::diag::sarif::Rule> {
    [
        (WIDENS, "NEW grants a subject OLD withholds", Some(Severity::Warning)),
        (NARROWS, "NEW withholds a subject OLD grants", Some(Severity::Note)),
    ]
    .into_iter()
    .map(|(id, short, level)| crate::diag::sarif::Rule {
        id: id.into(),
        // SARIF1001: a friendly name must differ from the id (case aside)
        name: crate::diag::sarif::friendly_name(&format!("{id} authority")),
        short: short.into(),
        full: format!("{short}: `ralc diff` judges both stacks, frozen at one anchor, with the model's own judgments and reports each region with the entry that decides it."),
        help: "Review the entry: a widening grants authority the old profile withheld; narrow the entry, or accept it in review.".into(),
        help_uri: crate::diag::sarif::doc_uri("docs/cli.md#ralc-diff"),
        level,
    })
    .collect()
}

/// The JSON report.
pub fn json_report(changes: &[Change]) -> String {
    let v = json!({
        "verdict": residual::verdict(changes).as_str(),
        "changes": changes.iter().map(|c| {
            let (entry, file, line, column, side) = match &c.entry {
                Some((side, o)) => (
                    json!(&*o.written),
                    json!(&*o.file),
                    json!(o.line),
                    json!(o.column),
                    json!(match side { Side::Old => "old", Side::New => "new" }),
                ),
                None => (Value::Null, Value::Null, Value::Null, Value::Null, Value::Null),
            };
            json!({
                "direction": c.direction.as_str(),
                "axis": c.axis.as_str(),
                "subject": c.region.display(),
                "entry": entry,
                "side": side,
                "file": file,
                "line": line,
                "column": column,
            })
        }).collect::<Vec<_>>(),
    });
    let mut s = crate::diag::escape::json(v.to_string());
    s.push('\n');
    s
}

/// The human report.
pub fn human_report(changes: &[Change]) -> String {
    use crate::diag::escape::text;
    let mut s = String::new();
    for c in changes {
        let sign = match c.direction {
            Direction::Widens => '+',
            Direction::Narrows => '-',
        };
        s.push_str(&format!(
            "{sign} {:<8} {}\n",
            c.axis.as_str(),
            text(&c.region.display())
        ));
        match &c.entry {
            Some((side, o)) => s.push_str(&format!(
                "    {} `{}` at {}:{}:{}\n",
                match (c.direction, side) {
                    (Direction::Widens, Side::New) => "granted by",
                    (Direction::Widens, Side::Old) => "no longer withheld by",
                    (Direction::Narrows, Side::New) => "withheld by",
                    (Direction::Narrows, Side::Old) => "no longer granted by",
                },
                text(&o.written),
                text(&o.file),
                o.line,
                o.column
            )),
            None => s.push_str("    (the axis is no longer restricted at all)\n"),
        }
    }
    let v = residual::verdict(changes);
    let w = changes
        .iter()
        .filter(|c| c.direction == Direction::Widens)
        .count();
    let n = changes.len() - w;
    s.push_str(&format!(
        "verdict: {} ({w} widening, {n} narrowing)\n",
        v.as_str()
    ));
    s
}

/// The report in a format; `sources` holds OLD's files then NEW's from `new_base`.
pub fn report(
    changes: &[Change],
    format: Format,
    sources: &SourceMap,
    new_base: u32,
    cwd: Option<&str>,
) -> String {
    match format {
        Format::Human => human_report(changes),
        Format::Json => json_report(changes),
        Format::Github => crate::diag::github::render(&diagnostics(changes, new_base), sources),
        Format::Sarif => crate::diag::sarif::render_with(
            &diagnostics(changes, new_base),
            sources,
            &sarif_rules(),
            &crate::diag::sarif::Options {
                cwd: cwd.map(str::to_string),
            },
        ),
    }
}

/// The exit code of a verdict.
pub fn exit_code(v: Verdict) -> i32 {
    match v {
        Verdict::Same | Verdict::Narrows => 0,
        Verdict::Widens | Verdict::Incomparable => EXIT_WIDENS,
    }
}

/// OLD's and NEW's source maps as one: OLD's files, then NEW's (from the returned base).
pub fn merged_sources(old: &SourceMap, new: &SourceMap) -> (SourceMap, u32) {
    let mut m = SourceMap::new();
    let mut base = 0;
    for (_, f) in old.files() {
        m.add(f.name.clone(), f.bytes.clone());
        base += 1;
    }
    for (_, f) in new.files() {
        m.add(f.name.clone(), f.bytes.clone());
    }
    (m, base)
}

fn broken(c: &Compiled, format: Format, cwd: Option<&str>) -> String {
    match format {
        Format::Human => {
            crate::diag::human::render(&c.diagnostics, &c.sources, super::check::color_for_stdout())
        }
        Format::Json => crate::diag::json::render(&c.diagnostics, &c.sources),
        Format::Sarif => crate::lint::sarif_report(&c.diagnostics, &c.sources, cwd),
        Format::Github => crate::diag::github::render(&c.diagnostics, &c.sources),
    }
}

pub fn run(args: &DiffArgs) -> i32 {
    let usage = |e: &str| {
        eprintln!("ralc diff: {e}");
        super::EXIT_USAGE
    };
    let (old, new) = match (side_args(&args.old), side_args(&args.new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => return usage(&e),
    };
    let short = match (
        args.files.as_slice(),
        old.profiles.is_empty() && old.restrict.is_empty() && old.extend.is_empty(),
        new.profiles.is_empty() && new.restrict.is_empty() && new.extend.is_empty(),
    ) {
        ([o, n], true, true) => Some((o.clone(), n.clone())),
        ([], false, false) => None,
        _ => {
            return usage("name OLD and NEW: two files, or --old ROLE FILE … and --new ROLE FILE …")
        }
    };
    let ctx = match crate::freeze::FreezeCtx::from_process()
        .and_then(|c| c.with_anchor(&args.anchor.anchor()))
    {
        Ok(c) => c,
        Err(e) => return usage(&e),
    };
    let (old_pos, new_pos) = match &short {
        Some((o, n)) => (vec![o.clone()], vec![n.clone()]),
        None => (Vec::new(), Vec::new()),
    };
    let cwd = super::check::process_cwd();
    let old_c = compile(old.request_at(&old_pos, ctx.clone()), &old.loader());
    let new_c = compile(new.request_at(&new_pos, ctx.clone()), &new.loader());
    for c in [&old_c, &new_c] {
        if c.has_errors() || c.stack.is_none() {
            super::emit(&broken(c, args.format, cwd.as_deref()));
            return super::EXIT_BROKEN;
        }
    }
    let (Some(o), Some(n)) = (&old_c.stack, &new_c.stack) else {
        return super::EXIT_USAGE;
    };
    // one moment, one memo of the host: each path is resolved once however many
    // boundaries ask (the resolver's own batch form)
    let memo = crate::capability::resolve::Resolve::for_batch(&ctx);
    let r: &dyn crate::capability::resolve::Resolve = memo.as_deref().unwrap_or(&ctx);
    let mut changes = residual::residual(o, n, r);
    changes.extend(super::dormant::changes(
        (&old_c.typed, &old_c.layers, &old_c.sources),
        (&new_c.typed, &new_c.layers, &new_c.sources),
    ));
    changes.extend(super::dormant::names(&old_c.layers, &new_c.layers));
    let (sources, base) = merged_sources(&old_c.sources, &new_c.sources);
    super::emit(&report(
        &changes,
        args.format,
        &sources,
        base,
        cwd.as_deref(),
    ));
    exit_code(residual::verdict(&changes))
}
