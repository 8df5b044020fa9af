//! Stamping: each stamp's ACE (and, for `rw`, the Low mandatory label) is set through a
//! handle held on the very object checked — opened without following a reparse point, the
//! object itself refused if it is one, and its final path compared with the plan's so a
//! redirected ancestor refuses the launch. Two witnesses gate skipping a stamp: the store
//! records it, and a probe of the object's own DACL finds the ACE still there.
//! It must never stamp through a name it has not checked on the open handle.

use super::ffi::{from_wide, last_error, wide, Handle, Local, Sid};
use super::store::{lock, Store};
use crate::plan::windows::Stamp;
use std::ffi::c_void;
use windows_sys::Win32::Foundation::{ERROR_SUCCESS, GENERIC_READ};
use windows_sys::Win32::Security::Authorization::{
    ConvertStringSecurityDescriptorToSecurityDescriptorW, GetSecurityInfo, SetEntriesInAclW,
    SetSecurityInfo, EXPLICIT_ACCESS_W, GRANT_ACCESS, SDDL_REVISION_1, SE_FILE_OBJECT,
    TRUSTEE_IS_SID, TRUSTEE_IS_UNKNOWN, TRUSTEE_W,
};
use windows_sys::Win32::Security::{
    EqualSid, GetAce, GetSecurityDescriptorSacl, ACCESS_ALLOWED_ACE, ACL,
    DACL_SECURITY_INFORMATION, LABEL_SECURITY_INFORMATION, NO_INHERITANCE, PSECURITY_DESCRIPTOR,
    SUB_CONTAINERS_AND_OBJECTS_INHERIT,
};
use windows_sys::Win32::Storage::FileSystem::{
    CreateFileW, FileAttributeTagInfo, GetFileInformationByHandleEx, GetFinalPathNameByHandleW,
    FILE_ATTRIBUTE_REPARSE_POINT, FILE_ATTRIBUTE_TAG_INFO, FILE_FLAG_BACKUP_SEMANTICS,
    FILE_FLAG_OPEN_REPARSE_POINT, FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE,
    OPEN_EXISTING, READ_CONTROL, WRITE_DAC, WRITE_OWNER,
};

/// What became of one stamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Both witnesses held: nothing was written.
    Witnessed,
    /// The ACE (and label) were applied and witnessed.
    Applied,
    /// The object does not exist: nothing to stamp (a missing grant reaches nothing).
    Absent,
}

/// Open `path` itself — a reparse point is opened, never followed — with the rights to
/// read and write its security, and check the handle: not a reparse point, and its final
/// path the plan's (no redirecting ancestor).
pub fn open_checked(path: &str, rights: u32) -> Result<Option<Handle>, String> {
    let w = wide(path);
    // SAFETY: `w` is NUL-terminated; the handle is owned by `Handle`
    let h = unsafe {
        CreateFileW(
            w.as_ptr(),
            rights,
            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
            std::ptr::null(),
            OPEN_EXISTING,
            FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
            std::ptr::null_mut(),
        )
    };
    let Some(h) = Handle::new(h) else {
        let e = std::io::Error::last_os_error();
        if e.kind() == std::io::ErrorKind::NotFound {
            return Ok(None);
        }
        return Err(format!("cannot open `{path}` to stamp it: {e}"));
    };
    let mut tag = FILE_ATTRIBUTE_TAG_INFO {
        FileAttributes: 0,
        ReparseTag: 0,
    };
    // SAFETY: `tag` is the buffer of the class asked, with its size
    let ok = unsafe {
        GetFileInformationByHandleEx(
            h.0,
            FileAttributeTagInfo,
            (&mut tag as *mut FILE_ATTRIBUTE_TAG_INFO).cast(),
            std::mem::size_of::<FILE_ATTRIBUTE_TAG_INFO>() as u32,
        )
    };
    if ok == 0 {
        return Err(format!("cannot inspect `{path}`: {}", last_error()));
    }
    if tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
        return Err(format!(
            "`{path}` is now a reparse point (tag {:#x}): the launch is refused rather than \
             stamp what it redirects to",
            tag.ReparseTag
        ));
    }
    let fin = final_path(&h)?;
    if !same_path(&fin, path) {
        return Err(format!(
            "`{path}` now resolves to `{fin}` (a redirected ancestor): the launch is refused"
        ));
    }
    Ok(Some(h))
}

/// The handle's final path, `\\?\` folded.
fn final_path(h: &Handle) -> Result<String, String> {
    let mut buf = vec![0u16; 32768];
    // SAFETY: the buffer's length is passed
    let n = unsafe { GetFinalPathNameByHandleW(h.0, buf.as_mut_ptr(), buf.len() as u32, 0) };
    if n == 0 || n as usize >= buf.len() {
        return Err(format!("cannot read a final path: {}", last_error()));
    }
    buf.truncate(n as usize);
    buf.push(0);
    let s = from_wide(buf.as_ptr());
    Ok(s.strip_prefix("\\\\?\\").map(str::to_string).unwrap_or(s))
}

/// Two spellings of one path, compared as NTFS compares names (ordinal, ignoring case).
fn same_path(a: &str, b: &str) -> bool {
    let up = |s: &str| -> Vec<u16> { s.to_uppercase().encode_utf16().collect() };
    up(a.trim_end_matches('\\')) == up(b.trim_end_matches('\\'))
}

/// Whether the object's DACL holds an allow ACE for `sid` with every bit of `mask`.
pub fn probe_ace(h: &Handle, sid: &Sid, mask: u32) -> Result<bool, String> {
    let mut dacl: *mut ACL = std::ptr::null_mut();
    let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: out-parameters; `sd` is LocalAlloc'd and owns `dacl`
    let e = unsafe {
        GetSecurityInfo(
            h.0,
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut dacl,
            std::ptr::null_mut(),
            &mut sd,
        )
    };
    let _sd = Local(sd);
    if e != ERROR_SUCCESS {
        return Err(format!("cannot read a DACL: error {e}"));
    }
    Ok(acl_grants(dacl, sid, mask))
}

/// Whether `acl` holds an allow ACE for `sid` carrying `mask`.
pub(crate) fn acl_grants(acl: *const ACL, sid: &Sid, mask: u32) -> bool {
    if acl.is_null() {
        return false;
    }
    // SAFETY: `acl` is a valid ACL; each ACE index is below its count
    unsafe {
        for i in 0..u32::from((*acl).AceCount) {
            let mut ace: *mut c_void = std::ptr::null_mut();
            if GetAce(acl, i, &mut ace) == 0 {
                continue;
            }
            let a = ace as *const ACCESS_ALLOWED_ACE;
            if (*a).Header.AceType != 0 {
                continue; // not ACCESS_ALLOWED_ACE_TYPE
            }
            let ace_sid = std::ptr::addr_of!((*a).SidStart) as *mut c_void;
            if EqualSid(ace_sid, sid.as_psid()) != 0 && (*a).Mask & mask == mask {
                return true;
            }
        }
    }
    false
}

/// A new ACL: `old` plus an allow ACE of `mask` for `sid`, inheritable or not.
pub(crate) fn with_ace(
    old: *const ACL,
    sid: &Sid,
    mask: u32,
    inherit: bool,
) -> Result<Local, String> {
    let ea = EXPLICIT_ACCESS_W {
        grfAccessPermissions: mask,
        grfAccessMode: GRANT_ACCESS,
        grfInheritance: if inherit {
            SUB_CONTAINERS_AND_OBJECTS_INHERIT
        } else {
            NO_INHERITANCE
        },
        Trustee: TRUSTEE_W {
            pMultipleTrustee: std::ptr::null_mut(),
            MultipleTrusteeOperation: 0,
            TrusteeForm: TRUSTEE_IS_SID,
            TrusteeType: TRUSTEE_IS_UNKNOWN,
            ptstrName: sid.as_psid().cast(),
        },
    };
    let mut new: *mut ACL = std::ptr::null_mut();
    // SAFETY: one entry; the new ACL is LocalAlloc'd and owned by the result
    let e = unsafe { SetEntriesInAclW(1, &ea, old, &mut new) };
    if e != ERROR_SUCCESS {
        return Err(format!("cannot build the ACL: error {e}"));
    }
    Ok(Local(new.cast()))
}

/// Apply one stamp: under the object's lock, skip it when both witnesses hold; else
/// forget its witness, set the ACE (and the Low label), and record the witness.
#[allow(
    clippy::disallowed_methods,
    reason = "stamp site: an ACE and label set on an object through its checked handle"
)]
pub fn apply(stamp: &Stamp, store: &Store) -> Result<Outcome, String> {
    let _held = lock(&stamp.lock)?;
    let sid = Sid::parse(&stamp.sid)?;
    let rights = READ_CONTROL | WRITE_DAC | WRITE_OWNER | GENERIC_READ;
    let Some(h) = open_checked(&stamp.path, rights)? else {
        return Ok(Outcome::Absent);
    };
    if store.witnessed(&stamp.lock, &stamp.capability)? && probe_ace(&h, &sid, stamp.access)? {
        return Ok(Outcome::Witnessed);
    }
    store.forget(&stamp.lock, &stamp.capability)?;
    let mut dacl: *mut ACL = std::ptr::null_mut();
    let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: out-parameters; `sd` owns `dacl`
    let e = unsafe {
        GetSecurityInfo(
            h.0,
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut dacl,
            std::ptr::null_mut(),
            &mut sd,
        )
    };
    let _sd = Local(sd);
    if e != ERROR_SUCCESS {
        return Err(format!(
            "cannot read the DACL of `{}`: error {e}",
            stamp.path
        ));
    }
    let new = with_ace(dacl, &sid, stamp.access, stamp.inherit)?;
    // SAFETY: a valid handle opened with WRITE_DAC and a valid ACL
    let e = unsafe {
        SetSecurityInfo(
            h.0,
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            new.0.cast(),
            std::ptr::null(),
        )
    };
    if e != ERROR_SUCCESS {
        return Err(format!("cannot stamp `{}`: error {e}", stamp.path));
    }
    if stamp.low_label {
        set_low_label(&h, &stamp.path, stamp.inherit)?;
    }
    if !probe_ace(&h, &sid, stamp.access)? {
        return Err(format!(
            "the ACE set on `{}` is not in its DACL afterwards: the file system did not \
             store it",
            stamp.path
        ));
    }
    store.record(&stamp.lock, &stamp.capability)?;
    Ok(Outcome::Applied)
}

/// Set the Low mandatory label (no write up) on the object.
fn set_low_label(h: &Handle, path: &str, inherit: bool) -> Result<(), String> {
    let sddl = wide(if inherit {
        "S:(ML;OICI;NW;;;LW)"
    } else {
        "S:(ML;;NW;;;LW)"
    });
    let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
    // SAFETY: a NUL-terminated SDDL string; `sd` is LocalAlloc'd
    let ok = unsafe {
        ConvertStringSecurityDescriptorToSecurityDescriptorW(
            sddl.as_ptr(),
            SDDL_REVISION_1,
            &mut sd,
            std::ptr::null_mut(),
        )
    };
    let _sd = Local(sd);
    if ok == 0 {
        return Err(format!("cannot build the Low label: {}", last_error()));
    }
    let mut present = 0;
    let mut defaulted = 0;
    let mut sacl: *mut ACL = std::ptr::null_mut();
    // SAFETY: `sd` is a valid descriptor that owns `sacl`
    let ok = unsafe { GetSecurityDescriptorSacl(sd, &mut present, &mut sacl, &mut defaulted) };
    if ok == 0 || present == 0 {
        return Err(format!("cannot read the Low label: {}", last_error()));
    }
    // SAFETY: a handle opened with WRITE_OWNER, and a valid SACL
    let e = unsafe {
        SetSecurityInfo(
            h.0,
            SE_FILE_OBJECT,
            LABEL_SECURITY_INFORMATION,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null(),
            sacl,
        )
    };
    if e != ERROR_SUCCESS {
        return Err(format!("cannot label `{path}` Low: error {e}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::sid::derive_capability_sids;

    /// An ACL built in memory carries the capability's ACE (this much Wine implements).
    #[test]
    fn an_acl_built_in_memory_holds_the_ace() {
        let s = derive_capability_sids("ral.fs.rw.00112233445566778899aabbccddeeff");
        let sid = Sid::parse(&s.sid).expect("sid");
        let other = Sid::parse("S-1-15-3-1").expect("sid");
        let acl = with_ace(std::ptr::null(), &sid, 0x0012_00a9, true).expect("acl");
        assert!(acl_grants(acl.0.cast(), &sid, 0x0012_00a9));
        assert!(!acl_grants(acl.0.cast(), &other, 0x0012_00a9));
        assert!(!acl_grants(acl.0.cast(), &sid, 0x0002), "a bit not granted");
    }

    #[test]
    fn a_missing_object_is_absent_and_paths_compare_as_ntfs_does() {
        let d = tempfile::tempdir().expect("tempdir");
        let p = format!("{}\\absent", d.path().to_str().expect("utf-8"));
        assert!(matches!(open_checked(&p, READ_CONTROL), Ok(None)));
        assert!(same_path("C:\\Users\\Me", "c:\\users\\me\\"));
        assert!(!same_path("C:\\Users\\Me", "C:\\Users\\Meow"));
    }

    /// A stamp set on a real file is stored (Wine maps DACLs onto mode bits and drops it).
    #[test]
    fn a_stamp_is_stored_and_witnessed() {
        if super::super::ffi::skip_under_wine(
            "a_stamp_is_stored_and_witnessed",
            "Wine 8.0 accepts SetSecurityInfo on a file and does not store the ACE",
        ) {
            return;
        }
        let d = tempfile::tempdir().expect("tempdir");
        let dir = d.path().join("granted");
        std::fs::create_dir(&dir).expect("mkdir");
        let path = dir.to_str().expect("utf-8").to_string();
        let stamp = Stamp::new(
            &path,
            crate::plan::windows::GrantKind::Rw,
            path.to_lowercase(),
        );
        let store = Store::at(&d.path().join("stamps.json"));
        assert_eq!(apply(&stamp, &store), Ok(Outcome::Applied));
        assert_eq!(apply(&stamp, &store), Ok(Outcome::Witnessed));
    }
}
