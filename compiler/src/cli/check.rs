//! `ralc check FILE…`: run the front end (parse, evaluate, typecheck) on every layer and
//! report all diagnostics of all files. Reading the named files is this module's one
//! effect; the per-file loop ([`front_end`]) is reusable by the later stages.

use super::args::{CheckArgs, Format};
use crate::diag::{self, Diagnostic, FileId, SourceMap, Span};
use crate::typecheck::profile::TypedProfile;
use std::io::IsTerminal;

/// Exit code when any error was reported (the shared `cli::EXIT_NO`).
pub const EXIT_ERRORS: i32 = super::EXIT_NO;

/// The result of the front end over a list of layers.
#[derive(Debug, Default)]
pub struct FrontEnd {
    pub sources: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
    /// One per layer, in order: `None` where the layer had an error.
    pub typed: Vec<(FileId, Option<TypedProfile>)>,
}

/// The bytes of a layer: `std:NAME` is an embedded standard profile, anything else a
/// file path, read through the reviewed reader (`crate::reader`): a regular file of at
/// most [`crate::reader::PROFILE_LIMIT`] bytes, and — unless `outside_ok` — one whose real
/// path stays in the tree it was named from. `Err` is a message for the unreadable-file
/// diagnostic; it never holds the file's bytes.
pub fn load(name: &str, outside_ok: bool) -> Result<Vec<u8>, String> {
    if let Some(std_name) = name.strip_prefix("std:") {
        return crate::std_profiles::get(std_name)
            .map(|s| s.as_bytes().to_vec())
            .ok_or_else(|| {
                let names: Vec<&str> = crate::std_profiles::ALL.iter().map(|(n, _)| *n).collect();
                format!(
                    "there is no standard profile `{name}` (the standard profiles are {})",
                    names
                        .iter()
                        .map(|n| format!("std:{n}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            });
    }
    let refused = |e: crate::reader::Refusal| format!("cannot read `{name}`: {e}");
    if !outside_ok {
        let cwd = crate::reader::working_dir().map_err(|e| format!("cannot read `{name}`: {e}"))?;
        crate::reader::check_contained(name, &cwd).map_err(refused)?;
    }
    crate::reader::read_bounded(std::path::Path::new(name), crate::reader::PROFILE_LIMIT)
        .map_err(refused)
}

/// Register one layer in `sources` and run the front end on it (`outside_ok`: see
/// [`load`]).
pub fn front_end(
    sources: &mut SourceMap,
    name: &str,
    outside_ok: bool,
) -> (FileId, Option<TypedProfile>, Vec<Diagnostic>) {
    match load(name, outside_ok) {
        Ok(bytes) => {
            let id = sources.add(name, bytes.clone());
            let (t, d) = crate::typecheck::check_source(id, &bytes);
            if let Some(end) = crate::syntax::first_lex_error_end(id, &d) {
                sources.limit_quoting(id, end);
            }
            (id, t, d)
        }
        Err(msg) => {
            let id = sources.add(name, Vec::<u8>::new());
            let d = Diagnostic::error("E0100", msg)
                .at(Span::new(id, 0, 0))
                .with_help("name a readable profile file, or `std:NAME` for a standard profile");
            (id, None, vec![d])
        }
    }
}

/// Run the front end over every layer in order.
pub fn check_files(names: &[String]) -> FrontEnd {
    let mut fe = FrontEnd::default();
    for n in names {
        let (id, t, mut d) = front_end(&mut fe.sources, n, false);
        fe.diagnostics.append(&mut d);
        fe.typed.push((id, t));
    }
    fe
}

/// Render a report for stdout in the chosen format: human, JSON, SARIF 2.1.0 (artifact
/// URIs relative to `cwd` where they lie beneath it) or GitHub workflow annotations.
pub fn render(
    format: Format,
    diags: &[Diagnostic],
    sources: &SourceMap,
    color: bool,
    cwd: Option<&str>,
) -> String {
    match format {
        Format::Human => diag::human::render(diags, sources, color),
        Format::Json => diag::json::render(diags, sources),
        Format::Sarif => crate::lint::sarif_report(diags, sources, cwd),
        Format::Github => diag::github::render(diags, sources),
    }
}

/// The process's working directory as text, for relative SARIF URIs.
pub fn process_cwd() -> Option<String> {
    crate::reader::working_dir()
        .ok()?
        .into_os_string()
        .into_string()
        .ok()
}

/// Whether this process may colour its output.
pub fn color_for_stdout() -> bool {
    #[allow(
        clippy::disallowed_methods,
        reason = "CLI site: NO_COLOR is read once to decide colour of human output"
    )]
    let no_color = std::env::var_os("NO_COLOR");
    let no_color = no_color.map(|v| v.to_string_lossy().into_owned());
    super::use_color(no_color.as_deref(), std::io::stdout().is_terminal())
}

pub fn run(args: &CheckArgs) -> i32 {
    let named = !args.files.is_empty()
        || !args.stack.profiles.is_empty()
        || !args.stack.restrict.is_empty()
        || !args.stack.extend.is_empty();
    if !named {
        eprintln!("ralc check: name at least one profile (FILE, -p FILE or std:NAME)");
        return super::EXIT_USAGE;
    }
    let levels = match crate::lint::LintLevels::from_cli(&args.allow, &args.warn, &args.deny) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("ralc check: {e}");
            return super::EXIT_USAGE;
        }
    };
    let req = match crate::compile::StackRequest::from_args(&args.stack, &args.files) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ralc check: {e}");
            return super::EXIT_USAGE;
        }
    };
    let (compiled, mut diagnostics) = super::progress::during("checking the profiles", || {
        let compiled = crate::compile::compile(req);
        let mut diagnostics = compiled.diagnostics.clone();
        diagnostics.extend(crate::lint::for_compiled(&compiled, &levels));
        (compiled, diagnostics)
    });
    diag::sort(&mut diagnostics);
    let cwd = process_cwd();
    let exit = if diagnostics.iter().any(|d| d.is_error()) {
        EXIT_ERRORS
    } else {
        super::EXIT_OK
    };
    if args.format == Format::Human {
        diagnostics = super::for_humans(&diagnostics);
    }
    print!(
        "{}",
        render(
            args.format,
            &diagnostics,
            &compiled.sources,
            color_for_stdout(),
            cwd.as_deref()
        )
    );
    exit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_profiles_check_clean_and_missing_file_is_e0100() {
        let fe = check_files(&[
            "std:minimal".into(),
            "std:reasonable".into(),
            "std:dangerous".into(),
        ]);
        assert!(fe.diagnostics.is_empty(), "{:?}", fe.diagnostics);
        assert!(fe.typed.iter().all(|(_, t)| t.is_some()));
        let fe = check_files(&["/nonexistent/ralc-test.ral".into(), "std:nope".into()]);
        let codes: Vec<_> = fe.diagnostics.iter().map(|d| d.code.as_str()).collect();
        assert_eq!(codes, vec!["E0100", "E0100"]);
    }
}
