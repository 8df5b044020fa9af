//! What the fuzz targets that freeze share: the fixed anchor they freeze against —
//! `HOME=/home/u`, `PATH=/usr/bin`, the working directory `/work/p` — over the in-memory
//! disk each target builds. It never touches the host: no real disk, no real environment.
//! Not a target itself: `check_pipeline` and `why_batch` include it with `mod common;`.

use ralc::freeze::disk::MemDisk;
use ralc::freeze::FreezeCtx;
use std::sync::Arc;

/// The fixed anchor over `disk`.
pub fn anchor(disk: MemDisk) -> FreezeCtx {
    let env = [("HOME", "/home/u"), ("PATH", "/usr/bin")]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    FreezeCtx::from_parts(env, "/work/p".into(), Arc::new(disk))
}
