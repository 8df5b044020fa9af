//! `lint-directive`: a `# ralc: …` directive that cannot be honoured as written — no
//! reason, an unknown lint, a malformed body. Reads the parsed directives only.

use super::directive::Directives;
use super::{Finding, Level, Lint, LintInfo, LintInput};

pub static INFO: LintInfo = LintInfo {
    name: "lint-directive",
    default_level: Level::Warn,
    authoring: true,
    summary: "a lint directive without a reason, naming an unknown lint, or malformed",
    what: "Reports a `# ralc: allow(LINT) reason` comment (or `warn`/`deny`) that gives no reason, names a lint that does not exist, or does not parse. A directive on the line before an entry sets the level for findings on that entry; one in the file's leading comment block sets it for the whole file.",
    why: "An exception to a lint is a decision a reviewer must be able to read: the reason is the review trail. A misspelt lint name silently allows nothing.",
    example: "[\n  exec: [\n    # ralc: allow(deputy-prefix)\n    'cwd:/': 'allow',\n  ],\n  fs: [write: ['cwd:']],\n]",
    fix: "Say why after the list (`# ralc: allow(deputy-prefix) the build runs what it builds`), and spell the lint as `ralc explain` lists it.",
};

pub struct LintDirective;

/// The findings for the problems found while parsing directives.
pub fn findings(d: &Directives, out: &mut Vec<Finding>) {
    for p in &d.problems {
        out.push(super::finding(p.message.clone(), Some(p.span)).with_help(p.help.clone()));
    }
}

impl Lint for LintDirective {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        findings(&Directives::parse(input.sources), out);
    }
}
