//! `ralc explain CODE`: print the page of a registered code (what it means, an example
//! that triggers it, the fix). It reads nothing but the built-in registry.

use super::args::ExplainArgs;
use crate::diag::codes;

/// The page for a name, or `None` when no code has that name.
pub fn page(name: &str) -> Option<String> {
    codes::lookup(name).map(codes::explain_page)
}

pub fn run(args: &ExplainArgs) -> i32 {
    match page(&args.name) {
        Some(p) => {
            print!("{p}");
            0
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
