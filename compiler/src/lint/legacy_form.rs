//! `legacy-form` (note): a spelling the language accepts for older profiles (`net: false`,
//! a record of Bools for a verb set), with its canonical spelling. Reads the typecheck's
//! `TypedProfile::legacy` only.

use super::{Finding, Level, Lint, LintInfo, LintInput};

pub static INFO: LintInfo = LintInfo {
    name: "legacy-form",
    default_level: Level::Note,
    authoring: true,
    summary: "an older spelling, with its canonical form",
    what: "Reports an entry written in a legacy spelling the language still accepts: `net: false` (canonical: ``net: `offline``), or a verb set written as a record of Bools (`editor: [read: true, write: false]`; canonical: the list of permitted verbs, `editor: [read]`).",
    why: "The canonical spelling says what it means: `false` reads as \"no network opinion\" to some and as \"offline\" to others; a record of Bools hides that omitted verbs are withheld.",
    example: "[\n  net: false,\n]",
    fix: "Write the canonical spelling the finding gives.",
};

pub struct LegacyFormLint;

impl Lint for LegacyFormLint {
    fn info(&self) -> &'static LintInfo {
        &INFO
    }
    fn check(&self, input: &LintInput<'_>, out: &mut Vec<Finding>) {
        for t in input.typed {
            for l in &t.legacy {
                out.push(
                    super::finding(
                        format!("`{}` is a legacy spelling", l.written),
                        Some(l.span),
                    )
                    .with_help(format!("write `{}`", l.canonical)),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{SourceMap, Span};
    use crate::lint::Places;
    use crate::typecheck::profile::{LegacyForm, TypedProfile};

    fn run(typed: &[TypedProfile]) -> Vec<Finding> {
        let sm = SourceMap::new();
        let input = LintInput {
            layers: &[],
            typed,
            sources: &sm,
            places: &Places::default(),
            stack: None,
            index: None,
        };
        let mut out = Vec::new();
        LegacyFormLint.check(&input, &mut out);
        out
    }

    #[test]
    fn fires_with_the_canonical_spelling() {
        let t = TypedProfile {
            legacy: vec![LegacyForm {
                span: Span::default(),
                written: "net: false".into(),
                canonical: "net: `offline".into(),
            }],
            ..TypedProfile::default()
        };
        let f = run(&[t]);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].help.as_deref(), Some("write `net: `offline`"));
    }

    #[test]
    fn is_silent_on_canonical_profiles() {
        assert!(run(&[TypedProfile::default()]).is_empty());
    }
}
