//! The binaries under test, found beside a suite's own executable: no environment, no
//! build. It never builds or runs anything.

use std::path::{Path, PathBuf};

/// The `ralc` binary beside this test's own (`target/<profile>/ralc`), canonical.
#[allow(
    clippy::disallowed_methods,
    reason = "test: the ralc binary under test, by its real path"
)]
pub fn ralc_bin() -> PathBuf {
    let me = std::env::current_exe().expect("current_exe");
    let dir = me.parent().and_then(Path::parent).expect("target dir");
    let bin = dir.join("ralc");
    assert!(
        bin.is_file(),
        "{} is missing: build it first (`cargo build -p ralc`, as scripts/test does)",
        bin.display()
    );
    std::fs::canonicalize(bin).expect("canonical ralc")
}

/// The build's `target/` directory (where real jobs make their projects, outside `/tmp`).
pub fn target_dir() -> PathBuf {
    let me = std::env::current_exe().expect("current_exe");
    me.parent()
        .and_then(Path::parent)
        .and_then(Path::parent)
        .expect("target dir")
        .to_path_buf()
}
