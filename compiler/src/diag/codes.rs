//! What a diagnostic code is: [`CodeInfo`], the row each stage declares in its own table
//! (`CODES` in its `codes` module, beside a named constant per code). The registry that
//! gathers the tables sits above the stages (`crate::registry`); this module names no
//! stage.

/// One registered code and its explain page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodeInfo {
    /// `E0201`.
    pub code: &'static str,
    /// One line: what went wrong, as a title.
    pub title: &'static str,
    /// What it means, in a paragraph.
    pub meaning: &'static str,
    /// A profile that triggers it (checked by a test to produce exactly this code).
    pub example: &'static str,
    /// How to fix it.
    pub fix: &'static str,
}
