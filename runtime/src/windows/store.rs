//! The stamp store: the completion witnesses of stamps already applied, one JSON file
//! (`stamps.json` under the user's local application data), rewritten atomically (write
//! a temporary file, then rename over), and a named mutex per collision key (plus one for
//! the store file) so two launches never stamp or record the same object at once. A
//! witness is removed before its stamp is reapplied and recorded only after the apply, so
//! a crash in between leaves no witness and the next launch stamps again.
//! It must never record a witness before its stamp is applied.

use super::ffi::{last_error, wide, Handle};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use windows_sys::Win32::Foundation::{WAIT_ABANDONED, WAIT_OBJECT_0};
use windows_sys::Win32::System::Threading::{
    CreateMutexW, ReleaseMutex, WaitForSingleObject, INFINITE,
};

/// A named mutex held until dropped; it stays on the thread that acquired it.
#[derive(Debug)]
pub struct Held(Handle);

impl Drop for Held {
    fn drop(&mut self) {
        // SAFETY: this thread owns the mutex (acquired in `lock`)
        unsafe {
            ReleaseMutex(self.0 .0);
        }
    }
}

/// Take the session-local mutex named for `key` (a collision key, or the store's name).
pub fn lock(key: &str) -> Result<Held, String> {
    let digest = Sha256::digest(key.as_bytes());
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    let name = wide(&format!("Local\\ralc-stamp-{hex}"));
    // SAFETY: the name is NUL-terminated; the handle is owned by `Handle`
    let h = Handle::new(unsafe { CreateMutexW(std::ptr::null(), 0, name.as_ptr()) })
        .ok_or_else(|| format!("cannot create the lock of `{key}`: {}", last_error()))?;
    // SAFETY: a valid mutex handle
    let w = unsafe { WaitForSingleObject(h.0, INFINITE) };
    // an abandoned mutex is owned now: its holder crashed, and the witnesses say what
    // was completed
    if w == WAIT_OBJECT_0 || w == WAIT_ABANDONED {
        Ok(Held(h))
    } else {
        Err(format!("cannot take the lock of `{key}`: {}", last_error()))
    }
}

/// One witnessed stamp: the capability it granted, on the object named by its key.
pub type Witnesses = BTreeMap<String, Vec<String>>;

/// The store file and its contents.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
}

impl Store {
    pub fn at(path: &Path) -> Store {
        Store {
            path: path.to_path_buf(),
        }
    }

    /// The witnesses now (an absent store has none; an unreadable one is an error).
    pub fn read(&self) -> Result<Witnesses, String> {
        match std::fs::read_to_string(&self.path) {
            Ok(t) => serde_json::from_str(&t)
                .map_err(|e| format!("the stamp store {} is damaged: {e}", self.path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Witnesses::new()),
            Err(e) => Err(format!("cannot read {}: {e}", self.path.display())),
        }
    }

    /// Whether `capability` is witnessed on `key`.
    pub fn witnessed(&self, key: &str, capability: &str) -> Result<bool, String> {
        Ok(self
            .read()?
            .get(key)
            .is_some_and(|v| v.iter().any(|c| c == capability)))
    }

    /// Change the witnesses under the store's own lock, written atomically.
    pub fn update(&self, f: impl FnOnce(&mut Witnesses)) -> Result<(), String> {
        let _held = lock(&format!("store:{}", self.path.display()))?;
        let mut w = self.read()?;
        f(&mut w);
        let text = serde_json::to_string_pretty(&w).unwrap_or_default();
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        write_new(&tmp, &text)?;
        std::fs::rename(&tmp, &self.path).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("cannot replace {}: {e}", self.path.display())
        })
    }

    /// Remove the witness of `capability` on `key` (before its stamp is reapplied).
    pub fn forget(&self, key: &str, capability: &str) -> Result<(), String> {
        self.update(|w| {
            if let Some(v) = w.get_mut(key) {
                v.retain(|c| c != capability);
                if v.is_empty() {
                    w.remove(key);
                }
            }
        })
    }

    /// Record the witness of `capability` on `key` (after its stamp is applied).
    pub fn record(&self, key: &str, capability: &str) -> Result<(), String> {
        self.update(|w| {
            let v = w.entry(key.to_string()).or_default();
            if !v.iter().any(|c| c == capability) {
                v.push(capability.to_string());
                v.sort();
            }
        })
    }
}

#[allow(
    clippy::disallowed_methods,
    reason = "stamp-store lifecycle: the store's temporary file, written then renamed over"
)]
fn write_new(path: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    f.write_all(text.as_bytes())
        .and_then(|_| f.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn witnesses_are_recorded_after_and_forgotten_before() {
        let d = tempfile::tempdir().expect("tempdir");
        let s = Store::at(&d.path().join("ralc").join("stamps.json"));
        assert!(!s.witnessed("c:\\p", "ral.fs.rw.x").expect("read"));
        s.record("c:\\p", "ral.fs.rw.x").expect("record");
        s.record("c:\\p", "ral.fs.rw.x").expect("record twice");
        assert!(s.witnessed("c:\\p", "ral.fs.rw.x").expect("read"));
        assert_eq!(s.read().expect("read")["c:\\p"].len(), 1);
        s.forget("c:\\p", "ral.fs.rw.x").expect("forget");
        assert!(!s.witnessed("c:\\p", "ral.fs.rw.x").expect("read"));
        // no temporary file is left behind
        let left: Vec<_> = std::fs::read_dir(d.path().join("ralc"))
            .expect("dir")
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, [std::ffi::OsString::from("stamps.json")]);
    }

    #[test]
    fn a_damaged_store_is_an_error_not_an_empty_one() {
        let d = tempfile::tempdir().expect("tempdir");
        let p = d.path().join("stamps.json");
        std::fs::write(&p, "{not json").expect("write");
        assert!(Store::at(&p).read().is_err());
    }

    #[test]
    fn a_lock_is_held_and_released() {
        let a = lock("c:\\users\\me\\proj").expect("lock");
        drop(a);
        let _b = lock("c:\\users\\me\\proj").expect("again");
    }
}
