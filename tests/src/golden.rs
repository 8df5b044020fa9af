//! The goldens' bless switch, shared by the suites that hold a renderer's output to files
//! under `tests/golden/` (`RALC_BLESS=1` rewrites them after review).

use std::path::PathBuf;

/// Under `RALC_BLESS=1`, write `text` (and a final newline) to `tests/golden/DIR/FILE`
/// and say so; otherwise leave it and answer `false`.
#[allow(
    clippy::disallowed_methods,
    reason = "test: the documented bless switch, RALC_BLESS=1, writes the goldens"
)]
pub fn bless(dir: &str, file: &str, text: &str) -> bool {
    if std::env::var_os("RALC_BLESS").is_none() {
        return false;
    }
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("golden")
        .join(dir)
        .join(file);
    std::fs::write(p, format!("{text}\n")).expect("bless");
    true
}
