//! The lint registry: one file per lint, each with its page, default level and check over
//! the frozen stack. Lints report; they never change a verdict.
