//! The standard streams a launch hands the program: under `` `offline ``, one that is an
//! internet socket (AF_INET/AF_INET6) would carry the network into the envelope, so the
//! launch is refused naming the stream. Pipes, ttys, files and unix socketpairs pass. It
//! only asks the kernel what each descriptor is; it never reads, writes or closes one.

use super::refusal::Refusal;

/// The three streams, by descriptor.
pub const STREAMS: [(i32, &str); 3] = [(0, "stdin"), (1, "stdout"), (2, "stderr")];

/// The socket domain of `fd`, if it is a socket.
fn domain(fd: i32) -> Option<i32> {
    let mut d: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: getsockopt into a c_int of the stated length; a non-socket or closed
    // descriptor just fails.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_DOMAIN,
            (&mut d as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    (rc == 0).then_some(d)
}

/// Under `` `offline ``: refuse when a standard stream is an internet socket.
pub fn check(offline: bool) -> Result<(), Refusal> {
    if !offline {
        return Ok(());
    }
    for (fd, name) in STREAMS {
        if let Some(d) = domain(fd) {
            if d == libc::AF_INET || d == libc::AF_INET6 {
                return Err(Refusal::InternetStream { stream: name, fd });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn a_tcp_socket_is_an_internet_domain_and_a_pipe_is_no_socket() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        assert_eq!(domain(l.as_raw_fd()), Some(libc::AF_INET));
        let (a, _b) = std::os::unix::net::UnixStream::pair().unwrap();
        assert_eq!(domain(a.as_raw_fd()), Some(libc::AF_UNIX));
        let f = tempfile::tempfile().unwrap();
        assert_eq!(domain(f.as_raw_fd()), None);
    }
}
