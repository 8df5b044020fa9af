//! Small owned wrappers over Win32: wide strings, handles closed on drop, `LocalFree`d
//! allocations, SIDs from their text, the look-up of an export before it is called (Wine
//! stubs missing exports with an abort), and Wine detection for the tests' skips.
//! It must never call an export it has not looked up first.

use std::ffi::c_void;
use windows_sys::Win32::Foundation::{CloseHandle, LocalFree, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::Security::Authorization::{ConvertSidToStringSidW, ConvertStringSidToSidW};
use windows_sys::Win32::Security::PSID;
use windows_sys::Win32::System::LibraryLoader::{GetProcAddress, LoadLibraryW};

/// `text` as a NUL-terminated UTF-16 string.
pub fn wide(text: &str) -> Vec<u16> {
    text.encode_utf16().chain(std::iter::once(0)).collect()
}

/// A NUL-terminated UTF-16 string read back (lossily).
///
/// `p` must be NULL or point at a NUL-terminated UTF-16 string.
pub(crate) fn from_wide(p: *const u16) -> String {
    if p.is_null() {
        return String::new();
    }
    let mut n = 0usize;
    // SAFETY: the caller passes a NUL-terminated string from a Win32 call
    unsafe {
        while *p.add(n) != 0 {
            n += 1;
        }
        String::from_utf16_lossy(std::slice::from_raw_parts(p, n))
    }
}

/// A kernel handle, closed on drop.
#[derive(Debug)]
pub struct Handle(pub HANDLE);

impl Handle {
    /// `None` for NULL or `INVALID_HANDLE_VALUE`.
    pub fn new(h: HANDLE) -> Option<Handle> {
        (!h.is_null() && h != INVALID_HANDLE_VALUE).then_some(Handle(h))
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: the handle was returned open by a Win32 call and is closed once
        unsafe {
            CloseHandle(self.0);
        }
    }
}

/// Memory Win32 allocated with `LocalAlloc`, freed on drop.
#[derive(Debug)]
pub struct Local(pub *mut c_void);

impl Drop for Local {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: the pointer came from a call documented to allocate with LocalAlloc
            unsafe {
                LocalFree(self.0);
            }
        }
    }
}

/// A binary SID built from its text (`ConvertStringSidToSidW`), freed on drop.
#[derive(Debug)]
pub struct Sid(Local);

impl Sid {
    pub fn parse(text: &str) -> Result<Sid, String> {
        let w = wide(text);
        let mut sid: PSID = std::ptr::null_mut();
        // SAFETY: `w` is NUL-terminated; the SID is LocalAlloc'd and owned by the result
        let ok = unsafe { ConvertStringSidToSidW(w.as_ptr(), &mut sid) };
        if ok == 0 || sid.is_null() {
            return Err(format!("`{text}` is not a SID ({})", last_error()));
        }
        Ok(Sid(Local(sid)))
    }
    pub fn as_psid(&self) -> PSID {
        self.0 .0
    }
    /// The SID's text (`ConvertSidToStringSidW`).
    pub fn text(&self) -> String {
        text_of(self.as_psid())
    }
}

/// The text of a binary SID.
pub(crate) fn text_of(sid: PSID) -> String {
    let mut s: *mut u16 = std::ptr::null_mut();
    // SAFETY: `sid` is a valid SID; the string is LocalAlloc'd and freed below
    let ok = unsafe { ConvertSidToStringSidW(sid, &mut s) };
    if ok == 0 {
        return String::new();
    }
    let out = from_wide(s);
    drop(Local(s.cast()));
    out
}

/// The calling thread's last Win32 error, in words.
pub fn last_error() -> String {
    std::io::Error::last_os_error().to_string()
}

/// Whether `dll` exports `name` (looked up, never called). Wine 8.0 lacks the
/// AppContainer and capability exports and stubs them with an abort.
pub fn api(dll: &str, name: &str) -> bool {
    let w = wide(dll);
    let c: Vec<u8> = name.bytes().chain(std::iter::once(0)).collect();
    // SAFETY: both strings are NUL-terminated; the module stays loaded for the process
    unsafe {
        let m = LoadLibraryW(w.as_ptr());
        !m.is_null() && GetProcAddress(m, c.as_ptr()).is_some()
    }
}

/// Whether this process runs under Wine (ntdll exports `wine_get_version`).
pub fn is_wine() -> bool {
    api("ntdll.dll", "wine_get_version")
}

/// The switch that turns every Wine skip into a failure, for a real Windows runner.
#[allow(
    clippy::disallowed_methods,
    reason = "test switch: RALC_WINDOWS_STRICT, read by the Windows tests' skip helper"
)]
pub fn strict() -> bool {
    std::env::var_os("RALC_WINDOWS_STRICT").is_some_and(|v| v == "1")
}

/// For a test: when this is Wine (and not strict), print a counted skip line with
/// `reason` — straight to stderr, past the harness's capture — and return true.
pub fn skip_under_wine(test: &str, reason: &str) -> bool {
    use std::io::Write;
    if !is_wine() || strict() {
        return false;
    }
    let line = format!("SKIP: {test}: {reason}\n");
    let _ = std::io::stderr().lock().write_all(line.as_bytes());
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::sid::derive_capability_sids;

    #[test]
    fn derived_sids_convert_to_binary_and_back() {
        for name in ["registryRead", "ral.fs.rw.00112233445566778899aabbccddeeff"] {
            let s = derive_capability_sids(name);
            for text in [&s.sid, &s.group_sid] {
                let sid = Sid::parse(text).expect("parses");
                assert_eq!(&sid.text(), text);
            }
        }
        assert!(Sid::parse("S-1-15-x").is_err());
    }

    /// On Windows, `DeriveCapabilitySidsFromName` itself agrees with the Rust derivation.
    #[test]
    fn the_os_derivation_agrees() {
        use windows_sys::Win32::Security::DeriveCapabilitySidsFromName;
        if !api("kernelbase.dll", "DeriveCapabilitySidsFromName") {
            if skip_under_wine(
                "the_os_derivation_agrees",
                "Wine 8.0 does not export DeriveCapabilitySidsFromName",
            ) {
                return;
            }
            panic!("DeriveCapabilitySidsFromName is not exported");
        }
        for name in ["registryRead", "ral.fs.ro.0123456789abcdef0123456789abcdef"] {
            let w = wide(name);
            let mut groups: *mut PSID = std::ptr::null_mut();
            let mut ng = 0u32;
            let mut caps: *mut PSID = std::ptr::null_mut();
            let mut nc = 0u32;
            // SAFETY: out-parameters per the documented signature; the arrays are
            // LocalAlloc'd, as is each SID in them
            let ok = unsafe {
                DeriveCapabilitySidsFromName(w.as_ptr(), &mut groups, &mut ng, &mut caps, &mut nc)
            };
            assert_ne!(ok, 0, "{}", last_error());
            assert!(ng >= 1 && nc >= 1);
            // SAFETY: the counts bound the arrays
            let (cap, group) = unsafe { (text_of(*caps), text_of(*groups)) };
            let want = derive_capability_sids(name);
            assert_eq!((cap, group), (want.sid, want.group_sid), "{name}");
        }
    }
}
