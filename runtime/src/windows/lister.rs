//! The live directory lister of the carve planner on Windows: a directory's entries, each
//! classified without following it (any reparse point — symlink, junction, mount point —
//! is a link, neither granted nor followed). It must never follow a reparse point.

use crate::plan::windows::{EntryKind, ListError, Lister};
use std::os::windows::fs::MetadataExt;
use windows_sys::Win32::Storage::FileSystem::FILE_ATTRIBUTE_REPARSE_POINT;

#[derive(Clone, Copy, Debug, Default)]
pub struct LiveLister;

impl Lister for LiveLister {
    fn list(&self, dir: &str) -> Result<Vec<(String, EntryKind)>, ListError> {
        let read = match std::fs::read_dir(dir) {
            Ok(r) => r,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ListError::Missing),
            Err(e) => return Err(ListError::Unreadable(e.to_string())),
        };
        let mut out = Vec::new();
        for entry in read {
            let entry = entry.map_err(|e| ListError::Unreadable(e.to_string()))?;
            let name = entry
                .file_name()
                .into_string()
                .map_err(|n| ListError::Unreadable(format!("{n:?} is not Unicode")))?;
            // DirEntry::metadata does not follow reparse points on Windows
            let meta = entry
                .metadata()
                .map_err(|e| ListError::Unreadable(format!("{name}: {e}")))?;
            let kind = if meta.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
                EntryKind::Link
            } else if meta.is_dir() {
                EntryKind::Dir
            } else {
                EntryKind::File
            };
            out.push((name, kind));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_a_temp_tree() {
        let d = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(d.path().join("sub")).expect("mkdir");
        std::fs::write(d.path().join("f.txt"), "x").expect("write");
        let dir = d.path().to_str().expect("utf-8");
        let mut got = LiveLister.list(dir).expect("listed");
        got.sort();
        assert_eq!(
            got,
            [
                ("f.txt".to_string(), EntryKind::File),
                ("sub".to_string(), EntryKind::Dir)
            ]
        );
        assert_eq!(
            LiveLister.list(&format!("{dir}\\absent")),
            Err(ListError::Missing)
        );
    }
}
