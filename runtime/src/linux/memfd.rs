//! Sealed memfds: the hand-off carriers (bwrap's options, the seccomp programs, the
//! warrant). A memfd is written once, sealed against every change, checked sealed, and
//! rewound. It never hands out an unsealed or writable carrier.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// The seals every carrier holds.
pub const SEALS: i32 =
    libc::F_SEAL_SEAL | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE;

/// A sealed memfd holding `bytes`, its offset at 0.
pub fn sealed(name: &str, bytes: &[u8]) -> io::Result<OwnedFd> {
    let cname = CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "memfd name holds a NUL"))?;
    // SAFETY: a valid C string and flags.
    let fd =
        unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: freshly returned by the kernel.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut off = 0usize;
    while off < bytes.len() {
        let rest = &bytes[off..];
        // SAFETY: `rest` is a valid buffer of `rest.len()` bytes.
        let n = unsafe { libc::write(fd.as_raw_fd(), rest.as_ptr().cast(), rest.len()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        off += n as usize;
    }
    // SAFETY: fcntl on an open descriptor.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_ADD_SEALS, SEALS) } != 0 {
        return Err(io::Error::last_os_error());
    }
    if !is_sealed(fd.as_raw_fd()) {
        return Err(io::Error::other("the memfd did not keep its seals"));
    }
    // SAFETY: lseek on an open descriptor.
    if unsafe { libc::lseek(fd.as_raw_fd(), 0, libc::SEEK_SET) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(fd)
}

/// Does `fd` carry every seal?
pub fn is_sealed(fd: RawFd) -> bool {
    // SAFETY: fcntl on a descriptor; -1 when it is not a memfd.
    let seals = unsafe { libc::fcntl(fd, libc::F_GET_SEALS) };
    seals >= 0 && seals & SEALS == SEALS
}

/// Read a sealed memfd whole (from offset 0), at most `cap` bytes; refuse an unsealed one.
pub fn read_sealed(fd: RawFd, cap: usize) -> Result<Vec<u8>, String> {
    if !is_sealed(fd) {
        return Err(format!("descriptor {fd} is not a sealed memfd"));
    }
    // SAFETY: a zeroed `stat` is a valid out-parameter.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: fstat with a valid out-pointer.
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return Err(format!("descriptor {fd}: {}", io::Error::last_os_error()));
    }
    let len = usize::try_from(st.st_size).map_err(|_| "negative size".to_string())?;
    if len > cap {
        return Err(format!(
            "descriptor {fd} holds {len} bytes, more than {cap}"
        ));
    }
    let mut buf = vec![0u8; len];
    let mut off = 0usize;
    while off < len {
        // SAFETY: the buffer has `len - off` bytes left at `off`.
        let n = unsafe {
            libc::pread(
                fd,
                buf[off..].as_mut_ptr().cast(),
                len - off,
                off as libc::off_t,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(format!("descriptor {fd}: {e}"));
        }
        if n == 0 {
            return Err(format!("descriptor {fd} ended early"));
        }
        off += n as usize;
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_memfd_round_trips_and_refuses_writes() {
        let fd = sealed("t", b"hello").unwrap();
        assert_eq!(read_sealed(fd.as_raw_fd(), 100).unwrap(), b"hello");
        assert!(read_sealed(fd.as_raw_fd(), 3).is_err());
        // SAFETY: a valid buffer.
        let n = unsafe { libc::write(fd.as_raw_fd(), b"x".as_ptr().cast(), 1) };
        assert_eq!(n, -1);
    }

    #[test]
    fn unsealed_memfd_is_refused() {
        let cname = CString::new("u").unwrap();
        // SAFETY: valid arguments.
        let fd = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
        assert!(fd >= 0);
        // SAFETY: fresh descriptor.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        assert!(read_sealed(fd.as_raw_fd(), 100).is_err());
    }
}
