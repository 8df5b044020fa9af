//! The `exec` member (spec §2.1): each key classified by its text alone into a
//! directory, a selector, a file or a bare name, and each policy checked. Pure: nothing
//! here consults the disk (that is the freeze's job).

use super::codes;
use super::profile::{ExecEntry, ExecKeyForm, ExecPolicy, Spanned};
use crate::diag::Diagnostic;
use crate::eval::{Value, ValueKind};
use std::collections::BTreeSet;

/// Selector names (spec §3.4).
pub const SELECTORS: [&str; 13] = [
    "path", "system", "cargo", "rustup", "go", "npm", "nvm", "volta", "pyenv", "rbenv", "asdf",
    "homebrew", "nix",
];

/// Places that make a key a file path (spec §3.1).
pub const PLACE_PREFIXES: [&str; 5] = ["cwd:", "tempdir:", "gitdir:", "xdg:", "~"];

/// Classify an exec key by its text. `Err` is the text after a selector's colon, which
/// a selector never takes (`'path:/'`).
pub fn classify(key: &str) -> Result<ExecKeyForm, String> {
    if let Some((name, rest)) = key.split_once(':') {
        if SELECTORS.contains(&name) {
            return if rest.is_empty() {
                Ok(ExecKeyForm::Selector(name.to_string()))
            } else {
                Err(rest.to_string())
            };
        }
    }
    if key.ends_with('/') || key.ends_with('\\') {
        return Ok(ExecKeyForm::Dir);
    }
    if key.contains('/') || key.contains('\\') || PLACE_PREFIXES.iter().any(|p| key.starts_with(p))
    {
        return Ok(ExecKeyForm::File);
    }
    Ok(ExecKeyForm::Name)
}

pub fn check_exec(v: &Value, diags: &mut Vec<Diagnostic>) -> Option<Spanned<Vec<ExecEntry>>> {
    let Some(fields) = super::as_record(v) else {
        diags.push(
            Diagnostic::error(
                codes::E0205,
                format!(
                    "`exec` takes a record from command to policy, not {}",
                    v.kind.type_name()
                ),
            )
            .at(v.span)
            .with_help(
                "write `exec: [git: 'allow', '/usr/bin/': 'allow']`; `exec: []` admits nothing",
            ),
        );
        return None;
    };
    let mut out = Vec::new();
    let mut ok = true;
    for f in fields {
        let form = match classify(&f.key) {
            Ok(form) => form,
            Err(rest) => {
                let name = f.key.split(':').next().unwrap_or("");
                diags.push(
                    Diagnostic::error(
                        codes::E0216,
                        format!(
                            "the selector `{name}:` takes no slash or sub-path (found `{}`)",
                            f.key
                        ),
                    )
                    .at(f.key_span)
                    .with_help(format!(
                        "write `'{name}:'` for the selector{}",
                        if rest.trim_matches(['/', '\\']).is_empty() {
                            ""
                        } else {
                            ", or name the directory itself"
                        }
                    )),
                );
                ok = false;
                continue;
            }
        };
        match policy(&f.key, &form, &f.value, diags) {
            Some(p) => out.push(ExecEntry {
                key: f.key.clone(),
                key_span: f.key_span,
                form,
                policy: p,
                policy_span: f.value.span,
            }),
            None => ok = false,
        }
    }
    ok.then(|| Spanned::new(out, v.span))
}

fn policy(
    key: &str,
    form: &ExecKeyForm,
    v: &Value,
    diags: &mut Vec<Diagnostic>,
) -> Option<ExecPolicy> {
    let dir_like = matches!(form, ExecKeyForm::Dir | ExecKeyForm::Selector(_));
    let what = match form {
        ExecKeyForm::Dir => "a directory key",
        ExecKeyForm::Selector(_) => "a selector key",
        _ => "",
    };
    match &v.kind {
        ValueKind::Str(s) if s == "allow" => Some(ExecPolicy::Allow),
        ValueKind::Str(s) if s == "deny" => Some(ExecPolicy::Deny),
        _ if dir_like => {
            diags.push(
                Diagnostic::error(
                    codes::E0210,
                    format!("`{key}` is {what}: its policy is 'allow' or 'deny', not {}", describe(v)),
                )
                .at(v.span)
                .with_help("a directory admits everything beneath it or nothing; name single commands with their own keys to limit subcommands"),
            );
            None
        }
        ValueKind::Str(s) => {
            diags.push(
                Diagnostic::error(codes::E0211, format!("unknown exec policy '{s}'"))
                    .at(v.span)
                    .with_help("the policies are 'allow', 'deny' (lowercase) or a non-empty list of subcommands"),
            );
            None
        }
        ValueKind::Bool(b) => {
            diags.push(
                Diagnostic::error(
                    codes::E0212,
                    format!("an exec policy is not a Bool (`{b}`)"),
                )
                .at(v.span)
                .with_help(format!(
                    "use '{}', 'deny' or a list of subcommands",
                    if *b { "allow" } else { "deny" }
                )),
            );
            None
        }
        ValueKind::List(items) if items.is_empty() => {
            diags.push(
                Diagnostic::error(
                    codes::E0214,
                    format!("an empty subcommand list for `{key}`"),
                )
                .at(v.span)
                .with_help(
                    "an empty list would admit no call: write 'deny', or list the subcommands",
                ),
            );
            None
        }
        ValueKind::List(items) => {
            let mut set = BTreeSet::new();
            let mut ok = true;
            for it in items {
                match &it.kind {
                    ValueKind::Str(s) => {
                        set.insert(s.clone());
                    }
                    other => {
                        diags.push(
                            Diagnostic::error(
                                codes::E0215,
                                format!("a subcommand must be a string, not {}", other.type_name()),
                            )
                            .at(it.span),
                        );
                        ok = false;
                    }
                }
            }
            ok.then_some(ExecPolicy::Subcommands(set))
        }
        other => {
            diags.push(
                Diagnostic::error(
                    codes::E0213,
                    format!(
                        "an exec policy is 'allow', 'deny' or a list of subcommands, not {}",
                        other.type_name()
                    ),
                )
                .at(v.span),
            );
            None
        }
    }
}

fn describe(v: &Value) -> String {
    match &v.kind {
        ValueKind::Str(s) => format!("'{s}'"),
        other => other.type_name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_by_text() {
        assert_eq!(classify("/usr/bin/"), Ok(ExecKeyForm::Dir));
        assert_eq!(classify("cwd:/"), Ok(ExecKeyForm::Dir));
        assert_eq!(classify("C:\\Tools\\"), Ok(ExecKeyForm::Dir));
        assert_eq!(classify("path:"), Ok(ExecKeyForm::Selector("path".into())));
        assert_eq!(
            classify("cargo:"),
            Ok(ExecKeyForm::Selector("cargo".into()))
        );
        assert!(classify("path:/").is_err());
        assert_eq!(classify("/usr/bin/git"), Ok(ExecKeyForm::File));
        assert_eq!(classify("~/bin/x"), Ok(ExecKeyForm::File));
        assert_eq!(classify("cwd:x"), Ok(ExecKeyForm::File));
        assert_eq!(classify("git"), Ok(ExecKeyForm::Name));
        assert_eq!(classify("foo:"), Ok(ExecKeyForm::Name));
    }
}
