//! The per-launch check of every exclusion: an AuthZ client context made from this
//! process's token with the child's AppContainer and capability SIDs set on it, and
//! `AuthzAccessCheck` of every object at and beneath each exclusion (reparse points
//! checked as themselves, never followed). Any right granted — an ALL APPLICATION
//! PACKAGES ACE, a stamp left from an earlier grant, a hard link carrying a granted
//! file's ACE — refuses the launch. It must never pass an exclusion it could not read.

use super::ffi::{api, last_error, Handle, Local, Sid};
use super::stamp::open_checked;
use std::os::windows::fs::MetadataExt;
use windows_sys::Win32::Foundation::{ERROR_SUCCESS, HANDLE, LUID};
use windows_sys::Win32::Security::Authorization::{
    AuthzAccessCheck, AuthzFreeContext, AuthzFreeResourceManager, AuthzInitializeContextFromToken,
    AuthzInitializeResourceManager, AuthzSetAppContainerInformation, GetSecurityInfo,
    AUTHZ_ACCESS_REPLY, AUTHZ_ACCESS_REQUEST, AUTHZ_CLIENT_CONTEXT_HANDLE,
    AUTHZ_RESOURCE_MANAGER_HANDLE, AUTHZ_RM_FLAG_NO_AUDIT, SE_FILE_OBJECT,
};
use windows_sys::Win32::Security::{
    DACL_SECURITY_INFORMATION, GROUP_SECURITY_INFORMATION, LABEL_SECURITY_INFORMATION,
    OWNER_SECURITY_INFORMATION, PSECURITY_DESCRIPTOR, SID_AND_ATTRIBUTES, TOKEN_QUERY,
};
use windows_sys::Win32::Storage::FileSystem::{FILE_ATTRIBUTE_REPARSE_POINT, READ_CONTROL};
use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcessToken};

const SE_GROUP_ENABLED: u32 = 4;
const MAXIMUM_ALLOWED: u32 = 0x0200_0000;

/// An AuthZ context standing for the child: this token, with the AppContainer SID and
/// the capability SIDs the child's token will carry.
pub struct ChildContext {
    rm: AUTHZ_RESOURCE_MANAGER_HANDLE,
    ctx: AUTHZ_CLIENT_CONTEXT_HANDLE,
}

impl Drop for ChildContext {
    fn drop(&mut self) {
        // SAFETY: both handles were initialised by AuthZ and are freed once
        unsafe {
            AuthzFreeContext(self.ctx);
            AuthzFreeResourceManager(self.rm);
        }
    }
}

impl ChildContext {
    pub fn new(appcontainer: &Sid, capabilities: &[Sid]) -> Result<ChildContext, String> {
        if !api("authz.dll", "AuthzSetAppContainerInformation") {
            return Err("this system has no AuthzSetAppContainerInformation".to_string());
        }
        let mut token: HANDLE = std::ptr::null_mut();
        // SAFETY: the pseudo-handle of this process; the token is owned below
        if unsafe { OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &mut token) } == 0 {
            return Err(format!(
                "cannot open this process's token: {}",
                last_error()
            ));
        }
        let token = Handle::new(token).ok_or("no token")?;
        let mut rm: AUTHZ_RESOURCE_MANAGER_HANDLE = std::ptr::null_mut();
        // SAFETY: no callbacks, no name; `rm` is freed by ChildContext
        let ok = unsafe {
            AuthzInitializeResourceManager(
                AUTHZ_RM_FLAG_NO_AUDIT,
                None,
                None,
                None,
                std::ptr::null(),
                &mut rm,
            )
        };
        if ok == 0 {
            return Err(format!("AuthzInitializeResourceManager: {}", last_error()));
        }
        let mut ctx: AUTHZ_CLIENT_CONTEXT_HANDLE = std::ptr::null_mut();
        // SAFETY: a token opened for query and a live resource manager
        let ok = unsafe {
            AuthzInitializeContextFromToken(
                0,
                token.0,
                rm,
                std::ptr::null(),
                LUID {
                    LowPart: 0,
                    HighPart: 0,
                },
                std::ptr::null(),
                &mut ctx,
            )
        };
        if ok == 0 {
            let e = last_error();
            // SAFETY: freed once
            unsafe { AuthzFreeResourceManager(rm) };
            return Err(format!("AuthzInitializeContextFromToken: {e}"));
        }
        let out = ChildContext { rm, ctx };
        let caps: Vec<SID_AND_ATTRIBUTES> = capabilities
            .iter()
            .map(|s| SID_AND_ATTRIBUTES {
                Sid: s.as_psid(),
                Attributes: SE_GROUP_ENABLED,
            })
            .collect();
        // SAFETY: the SIDs outlive the call, which copies them
        let ok = unsafe {
            AuthzSetAppContainerInformation(
                out.ctx,
                appcontainer.as_psid(),
                caps.len() as u32,
                caps.as_ptr(),
            )
        };
        if ok == 0 {
            return Err(format!("AuthzSetAppContainerInformation: {}", last_error()));
        }
        Ok(out)
    }

    /// The rights the child would be granted on the object `path` (0: none).
    pub fn granted(&self, path: &str) -> Result<Option<u32>, String> {
        let Some(h) = open_checked_any(path)? else {
            return Ok(None);
        };
        let mut sd: PSECURITY_DESCRIPTOR = std::ptr::null_mut();
        // SAFETY: out-parameters; `sd` is LocalAlloc'd
        let e = unsafe {
            GetSecurityInfo(
                h.0,
                SE_FILE_OBJECT,
                OWNER_SECURITY_INFORMATION
                    | GROUP_SECURITY_INFORMATION
                    | DACL_SECURITY_INFORMATION
                    | LABEL_SECURITY_INFORMATION,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                &mut sd,
            )
        };
        let sd = Local(sd);
        if e != ERROR_SUCCESS {
            return Err(format!("cannot read the security of `{path}`: error {e}"));
        }
        let request = AUTHZ_ACCESS_REQUEST {
            DesiredAccess: MAXIMUM_ALLOWED,
            PrincipalSelfSid: std::ptr::null_mut(),
            ObjectTypeList: std::ptr::null_mut(),
            ObjectTypeListLength: 0,
            OptionalArguments: std::ptr::null_mut(),
        };
        let mut granted = 0u32;
        let mut error = 0u32;
        let mut reply = AUTHZ_ACCESS_REPLY {
            ResultListLength: 1,
            GrantedAccessMask: &mut granted,
            SaclEvaluationResults: std::ptr::null_mut(),
            Error: &mut error,
        };
        // SAFETY: a live context, a valid descriptor, and a reply of one result
        let ok = unsafe {
            AuthzAccessCheck(
                0,
                self.ctx,
                &request,
                std::ptr::null_mut(),
                sd.0,
                std::ptr::null(),
                0,
                &mut reply,
                std::ptr::null_mut(),
            )
        };
        if ok == 0 {
            return Err(format!("AuthzAccessCheck on `{path}`: {}", last_error()));
        }
        Ok(Some(if error == 0 { granted } else { 0 }))
    }
}

/// Open an object to read its security, itself (a reparse point included, never
/// followed): `open_checked` less the reparse refusal, which an exclusion does not need.
fn open_checked_any(path: &str) -> Result<Option<Handle>, String> {
    match open_checked(path, READ_CONTROL) {
        Err(e) if e.contains("reparse point") => {
            // checked as itself: its own descriptor, through the same open
            open_reparse(path)
        }
        other => other,
    }
}

fn open_reparse(path: &str) -> Result<Option<Handle>, String> {
    use super::ffi::wide;
    use windows_sys::Win32::Storage::FileSystem::{
        CreateFileW, FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT, FILE_SHARE_DELETE,
        FILE_SHARE_READ, FILE_SHARE_WRITE, OPEN_EXISTING,
    };
    let w = wide(path);
    // SAFETY: NUL-terminated; the handle is owned by `Handle`
    let h = unsafe {
        CreateFileW(
            w.as_ptr(),
            READ_CONTROL,
            FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
            std::ptr::null(),
            OPEN_EXISTING,
            FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT,
            std::ptr::null_mut(),
        )
    };
    Handle::new(h)
        .map(Some)
        .ok_or_else(|| format!("cannot open `{path}`: {}", last_error()))
}

/// Any right at all: what an exclusion must not grant.
pub const ANY_RIGHT: u32 = u32::MAX;
/// The rights that change an object: write data (add file), append (add subdirectory),
/// write extended attributes, delete child, write attributes, delete, write DAC, write
/// owner — what a write exclusion must not grant (reading stays).
pub const WRITE_RIGHTS: u32 = 0x2 | 0x4 | 0x10 | 0x40 | 0x100 | 0x1_0000 | 0x4_0000 | 0x8_0000;

/// Check every object at and beneath each exclusion; the first one on which the child
/// would be granted a right in `forbidden` refuses the launch.
pub fn ensure_unreachable(
    ctx: &ChildContext,
    exclusions: &[String],
    forbidden: u32,
) -> Result<(), String> {
    for x in exclusions {
        let mut pending = vec![x.clone()];
        while let Some(p) = pending.pop() {
            match ctx.granted(&p)? {
                None => continue,
                Some(mask) if mask & forbidden == 0 => {}
                Some(mask) => {
                    return Err(format!(
                        "the exclusion `{x}` is reachable: the child would be granted \
                         {mask:#x} on `{p}`; nothing ran"
                    ))
                }
            }
            let meta = match std::fs::symlink_metadata(&p) {
                Ok(m) => m,
                Err(e) => return Err(format!("cannot read `{p}` beneath `{x}`: {e}")),
            };
            let reparse = meta.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0;
            if meta.is_dir() && !reparse {
                let entries = std::fs::read_dir(&p)
                    .map_err(|e| format!("cannot list `{p}` beneath `{x}`: {e}"))?;
                for e in entries {
                    let e = e.map_err(|e| format!("cannot list `{p}`: {e}"))?;
                    let name = e
                        .file_name()
                        .into_string()
                        .map_err(|n| format!("{n:?} beneath `{x}` is not Unicode"))?;
                    pending.push(format!("{p}\\{name}"));
                }
            }
        }
    }
    Ok(())
}
