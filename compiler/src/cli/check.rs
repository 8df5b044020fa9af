//! `ralc check FILE…`: compile every layer (the library's `pipeline`: parse, evaluate,
//! typecheck, freeze), lint the stack and report all diagnostics of all files in the
//! chosen format; the report renderer by format ([`render`]) is shared by the commands.

use super::args::{CheckArgs, Format};
use crate::diag::{self, Diagnostic, SourceMap};
use std::io::IsTerminal;

/// Exit code when any error was reported (the shared `cli::EXIT_NO`).
pub const EXIT_ERRORS: i32 = super::EXIT_NO;

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
    let levels = match crate::lint::LintLevels::from_cli(&args.allow, &args.warn, &args.deny)
        .and_then(|l| l.forbid(&args.forbid))
    {
        Ok(l) => l,
        Err(e) => {
            eprintln!("ralc check: {e}");
            return super::EXIT_USAGE;
        }
    };
    let req = match args.stack.request(&args.files) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ralc check: {e}");
            return super::EXIT_USAGE;
        }
    };
    let (compiled, mut diagnostics) = super::progress::during("checking the profiles", || {
        let compiled = crate::pipeline::compile(req, &args.stack.loader());
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
    super::emit(&render(
        args.format,
        &diagnostics,
        &compiled.sources,
        color_for_stdout(),
        cwd.as_deref(),
    ));
    exit
}
