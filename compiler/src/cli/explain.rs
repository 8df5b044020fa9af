//! `ralc explain CODE|LINT`: print the page of a registered code or lint (what it means,
//! an example that triggers it, the fix). It reads nothing but the built-in registry.

use super::args::ExplainArgs;

/// The page for a name, or `None` when no code or lint has that name.
pub fn page(name: &str) -> Option<String> {
    crate::registry::explain(name)
}

pub fn run(args: &ExplainArgs) -> i32 {
    match page(&args.name) {
        Some(p) => {
            super::emit(&p);
            super::EXIT_OK
        }
        None => {
            eprintln!(
                "ralc explain: no code or lint named `{}` (codes look like E0201)",
                args.name
            );
            super::EXIT_USAGE
        }
    }
}
