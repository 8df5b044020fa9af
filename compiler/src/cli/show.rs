//! `ralc show FILE…`: the frozen layers — for each entry its written text, surface, real
//! path, kind, policy and where it came from (file:line:col) — as human text or
//! `--format json`. Running the pipeline (`pipeline::compile`) is `run`'s one effect; the
//! renderers (`layers_json`, `render_human`) are pure over the frozen layers and a
//! `Resolve` (bare names are shown where they land on the anchor's `PATH`).

use super::args::{Format, ShowArgs};
use crate::capability::layer::{Capabilities, ExecKey, ExecRule, FsEntry, LayerRole, Origin};
use crate::capability::resolve::Resolve;
use crate::freeze::places::{read_head, Head};
use crate::typecheck::profile::ExecPolicy;
use serde_json::{json, Map, Value};

/// The kind `show` names an exec entry by: `dir`, `file`, `name` or `selector`.
pub fn exec_kind(rule: &ExecRule) -> &'static str {
    match &rule.key {
        ExecKey::Name(_) => "name",
        ExecKey::File(_) => "file",
        ExecKey::Dir(_) => match read_head(&rule.origin.written) {
            Head::Selector(_) => "selector",
            _ => "dir",
        },
    }
}

fn policy_name(p: &ExecPolicy) -> &'static str {
    match p {
        ExecPolicy::Allow => "allow",
        ExecPolicy::Deny => "deny",
        ExecPolicy::Subcommands(_) => "only",
    }
}

fn fs_kind(e: &FsEntry) -> &'static str {
    match read_head(&e.origin.written) {
        Head::Selector(_) => "selector",
        _ => "prefix",
    }
}

fn origin_fields(m: &mut Map<String, Value>, o: &Origin) {
    m.insert("file".into(), json!(o.file.as_ref()));
    m.insert("line".into(), json!(o.line));
    m.insert("column".into(), json!(o.column));
}

/// (surface, real) of an exec key; a bare name is shown where it lands on `PATH` (or
/// `null` when it is not found there).
fn exec_paths(rule: &ExecRule, resolver: &dyn Resolve) -> (Value, Value) {
    match &rule.key {
        ExecKey::Name(n) => match resolver.which(n) {
            Some((found, real)) => (json!(found), json!(real.as_str())),
            None => (Value::Null, Value::Null),
        },
        ExecKey::File(p) | ExecKey::Dir(p) => (json!(p.surface_str()), json!(p.real().as_str())),
    }
}

fn exec_json(rule: &ExecRule, resolver: &dyn Resolve) -> Value {
    let (surface, real) = exec_paths(rule, resolver);
    let mut m = Map::new();
    m.insert("written".into(), json!(&*rule.origin.written));
    m.insert("surface".into(), surface);
    m.insert("real".into(), real);
    m.insert("kind".into(), json!(exec_kind(rule)));
    m.insert("policy".into(), json!(policy_name(&rule.policy)));
    if let ExecPolicy::Subcommands(s) = &rule.policy {
        m.insert("subcommands".into(), json!(s.iter().collect::<Vec<_>>()));
    }
    origin_fields(&mut m, &rule.origin);
    Value::Object(m)
}

fn fs_json(e: &FsEntry) -> Value {
    let mut m = Map::new();
    m.insert("written".into(), json!(&*e.origin.written));
    m.insert("surface".into(), json!(e.path.surface_str()));
    m.insert("real".into(), json!(e.path.real().as_str()));
    m.insert("kind".into(), json!(fs_kind(e)));
    origin_fields(&mut m, &e.origin);
    Value::Object(m)
}

/// One layer as JSON.
pub fn layer_json(caps: &Capabilities, resolver: &dyn Resolve) -> Value {
    let mut m = Map::new();
    m.insert("file".into(), json!(caps.source.name.as_ref()));
    let exec = match &caps.exec {
        None => Value::Null,
        Some(g) if g.every() => json!("every"),
        Some(g) => Value::Array(g.rules().iter().map(|r| exec_json(r, resolver)).collect()),
    };
    m.insert("exec".into(), exec);
    let fs = match &caps.fs {
        None => Value::Null,
        Some(f) => {
            let mut o = Map::new();
            o.insert("read".into(), f.read.iter().map(fs_json).collect());
            o.insert("write".into(), f.write.iter().map(fs_json).collect());
            o.insert("deny".into(), f.deny.iter().map(fs_json).collect());
            if !f.write_deny.is_empty() {
                o.insert(
                    "write_deny".into(),
                    f.write_deny.iter().map(fs_json).collect(),
                );
            }
            Value::Object(o)
        }
    };
    m.insert("fs".into(), fs);
    m.insert(
        "net".into(),
        json!(if caps.net.is_some() {
            "offline"
        } else {
            "inherit"
        }),
    );
    m.insert(
        "detach".into(),
        caps.detach.as_ref().map_or(Value::Null, |(b, _)| json!(b)),
    );
    m.insert(
        "editor".into(),
        caps.editor.as_ref().map_or(Value::Null, |v| {
            json!(v.verbs.iter().map(|x| x.as_str()).collect::<Vec<_>>())
        }),
    );
    m.insert(
        "shell".into(),
        caps.shell.as_ref().map_or(Value::Null, |v| {
            json!(v.verbs.iter().map(|x| x.as_str()).collect::<Vec<_>>())
        }),
    );
    let dead: Vec<Value> = caps
        .dead
        .iter()
        .map(|d| {
            let mut o = Map::new();
            o.insert("written".into(), json!(&*d.origin.written));
            o.insert("reason".into(), json!(d.reason));
            origin_fields(&mut o, &d.origin);
            Value::Object(o)
        })
        .collect();
    m.insert("dead".into(), Value::Array(dead));
    Value::Object(m)
}

/// Every layer as the `--format json` document.
pub fn layers_json(layers: &[Capabilities], resolver: &dyn Resolve) -> Value {
    json!({ "layers": layers.iter().map(|c| layer_json(c, resolver)).collect::<Vec<_>>() })
}

fn at(o: &Origin) -> String {
    format!("{}:{}:{}", o.file, o.line, o.column)
}

fn role_name(r: LayerRole) -> &'static str {
    match r {
        LayerRole::Policy => "policy",
        LayerRole::Restrict => "restrict",
        LayerRole::Extension => "extension",
    }
}

/// Every layer as human text; every written form, path, name and reason escaped
/// (`diag::escape`), so none can start a line of its own.
pub fn render_human(layers: &[Capabilities], resolver: &dyn Resolve) -> String {
    use crate::diag::escape::text as e;
    let mut s = String::new();
    for caps in layers {
        s.push_str(&format!(
            "{} ({})\n",
            e(&caps.source.name),
            role_name(caps.source.role)
        ));
        human_exec(&mut s, caps, resolver);
        human_fs(&mut s, caps);
        match &caps.net {
            Some(n) => s.push_str(&format!("  net: offline  at {}\n", e(&at(&n.origin)))),
            None => s.push_str("  net: inherit\n"),
        }
        match &caps.detach {
            Some((b, o)) => s.push_str(&format!("  detach: {b}  at {}\n", e(&at(o)))),
            None => s.push_str("  detach: (no opinion)\n"),
        }
        for (name, set) in [
            (
                "editor",
                caps.editor.as_ref().map(|v| {
                    (
                        v.verbs.iter().map(|x| x.as_str()).collect::<Vec<_>>(),
                        &v.origin,
                    )
                }),
            ),
            (
                "shell",
                caps.shell.as_ref().map(|v| {
                    (
                        v.verbs.iter().map(|x| x.as_str()).collect::<Vec<_>>(),
                        &v.origin,
                    )
                }),
            ),
        ] {
            match set {
                Some((verbs, o)) => s.push_str(&format!(
                    "  {name}: [{}]  at {}\n",
                    verbs.join(", "),
                    e(&at(o))
                )),
                None => s.push_str(&format!("  {name}: (no opinion)\n")),
            }
        }
        if !caps.dead.is_empty() {
            s.push_str("  dead grants:\n");
            for d in &caps.dead {
                s.push_str(&format!(
                    "    {}  at {}: {}\n",
                    e(&d.origin.written),
                    e(&at(&d.origin)),
                    e(&d.reason.to_string())
                ));
            }
        }
    }
    s
}

/// A layer's exec rules as human text: each rule's kind, written form, policy and
/// origin, with where it lands on this host.
fn human_exec(s: &mut String, caps: &Capabilities, resolver: &dyn Resolve) {
    use crate::diag::escape::text as e;
    match &caps.exec {
        None => s.push_str("  exec: (no opinion)\n"),
        Some(g) if g.every() => s.push_str("  exec: every program\n"),
        Some(g) => {
            s.push_str("  exec:\n");
            if g.rules().is_empty() {
                s.push_str("    (nothing admitted)\n");
            }
            for r in g.rules() {
                let (surface, real) = exec_paths(r, resolver);
                let policy = match &r.policy {
                    ExecPolicy::Subcommands(l) => {
                        format!(
                            "only {}",
                            e(&l.iter().cloned().collect::<Vec<_>>().join(", "))
                        )
                    }
                    p => policy_name(p).to_string(),
                };
                s.push_str(&format!(
                    "    {:<8} {}  {}  at {}\n",
                    exec_kind(r),
                    e(&r.origin.written),
                    policy,
                    e(&at(&r.origin))
                ));
                match (surface.as_str(), real.as_str()) {
                    (Some(su), Some(re)) => s.push_str(&format!(
                        "             surface {}\n             real    {}\n",
                        e(su),
                        e(re)
                    )),
                    _ => s.push_str("             (not found on PATH here)\n"),
                }
            }
        }
    }
}

/// A layer's fs entries as human text, per list: written form, origin, surface, real.
fn human_fs(s: &mut String, caps: &Capabilities) {
    use crate::diag::escape::text as e;
    match &caps.fs {
        None => s.push_str("  fs: (no opinion)\n"),
        Some(f) => {
            s.push_str("  fs:\n");
            for (name, list) in [
                ("read", &f.read),
                ("write", &f.write),
                ("deny", &f.deny),
                ("write-deny", &f.write_deny),
            ] {
                if list.is_empty() && name == "write-deny" {
                    continue;
                }
                s.push_str(&format!(
                    "    {name}:{}\n",
                    if list.is_empty() { " (none)" } else { "" }
                ));
                for x in list {
                    s.push_str(&format!(
                        "      {}  at {}\n        surface {}\n        real    {}\n",
                        e(&x.origin.written),
                        e(&at(&x.origin)),
                        e(x.path.surface_str()),
                        e(&x.path.real().to_string())
                    ));
                }
            }
        }
    }
}

pub fn run(args: &ShowArgs) -> i32 {
    if args.files.is_empty()
        && args.stack.profiles.is_empty()
        && args.stack.restrict.is_empty()
        && args.stack.extend.is_empty()
    {
        eprintln!("ralc show: name at least one profile (FILE, -p FILE or std:NAME)");
        return super::EXIT_USAGE;
    }
    let req = match args.stack.request(&args.files) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ralc show: {e}");
            return super::EXIT_USAGE;
        }
    };
    let compiled = super::progress::during("compiling the profiles", || {
        crate::pipeline::compile(req, &args.stack.loader())
    });
    let out = match args.format {
        Format::Human => render_human(&compiled.layers, &compiled.ctx),
        Format::Json => {
            let mut s = crate::diag::escape::json(
                serde_json::to_string_pretty(&layers_json(&compiled.layers, &compiled.ctx))
                    .unwrap_or_else(|_| "{}".to_string()),
            );
            s.push('\n');
            s
        }
        Format::Sarif | Format::Github => {
            eprintln!(
                "ralc show: --format {:?} is not offered; use human or json",
                args.format
            );
            return super::EXIT_USAGE;
        }
    };
    super::emit(&out);
    // in the format asked for: `--format json` writes no human report
    let shown = match args.format {
        Format::Human => super::for_humans(&compiled.diagnostics),
        _ => compiled.diagnostics.clone(),
    };
    if !shown.is_empty() {
        eprint!(
            "{}",
            super::check::render(args.format, &shown, &compiled.sources, false, None)
        );
    }
    if compiled.has_errors() {
        super::EXIT_BROKEN
    } else {
        super::EXIT_OK
    }
}
