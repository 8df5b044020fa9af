//! The standard streams a launch hands the program: under `` `offline ``, one that is an
//! internet socket (AF_INET/AF_INET6) would carry the network into the envelope, so the
//! launch is refused naming the stream. One that is any other socket (a unix socket to a
//! host daemon, as systemd's journald stream on a service's stdout) is relayed through a
//! pipe for the run (`Relay`): the program gets a pipe carrying the bytes one way only
//! (into stdin, out of stdout/stderr), never the socket itself, so it cannot write to
//! the daemon through its stdin, pass descriptors or credentials, or `connect`/`sendto`
//! through it. Pipes, ttys and files pass as they are. Apart from the relay's copying, it
//! only asks the kernel what each descriptor is.

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

/// Under `` `offline ``: refuse when a standard stream is an internet socket, and relay
/// any other socket stream through a pipe for as long as the returned `Relay` lives
/// (hold it until the program has been waited for).
pub fn check(offline: bool) -> Result<Relay, Refusal> {
    let mut relay = Relay::default();
    if !offline {
        return Ok(relay);
    }
    for (fd, name) in STREAMS {
        if let Some(d) = domain(fd) {
            if d == libc::AF_INET || d == libc::AF_INET6 {
                return Err(Refusal::InternetStream { stream: name, fd });
            }
        }
    }
    for (fd, name) in STREAMS {
        if domain(fd).is_some() {
            relay.add(fd).map_err(|e| {
                Refusal::Other(format!(
                    "`offline is asked and the program's {name} (descriptor {fd}) is a socket, which ralc relays through a pipe; the relay could not be set up: {e}"
                ))
            })?;
        }
    }
    Ok(relay)
}

/// The socket streams relayed through pipes for one run. While it lives, this process's
/// descriptor N is the pipe's program end; dropped, each descriptor is the socket again
/// and the output relays are given a moment to drain.
#[derive(Default)]
pub struct Relay {
    /// (descriptor, the socket saved, the thread copying, done signal for output).
    streams: Vec<(i32, OwnedFd, Option<std::sync::mpsc::Receiver<()>>)>,
}

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut p = [0i32; 2];
    // SAFETY: an array of two descriptors for pipe2 to fill.
    if unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: two fresh descriptors this function owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(p[0]), OwnedFd::from_raw_fd(p[1])) })
}

fn dup(fd: i32) -> std::io::Result<OwnedFd> {
    // SAFETY: F_DUPFD_CLOEXEC on a descriptor; the copy is owned below.
    let d = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 3) };
    if d < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a fresh descriptor.
    Ok(unsafe { OwnedFd::from_raw_fd(d) })
}

fn dup2(from: i32, to: i32) -> std::io::Result<()> {
    // SAFETY: dup2 onto a standard stream this process owns.
    if unsafe { libc::dup2(from, to) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Copy `from` to `to` until end of file or an error.
fn copy(from: OwnedFd, to: OwnedFd) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        // SAFETY: a buffer of the stated length.
        let n = unsafe { libc::read(from.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        if n <= 0 {
            return;
        }
        let mut off = 0usize;
        while off < n as usize {
            // SAFETY: the filled part of the buffer.
            let w = unsafe {
                libc::write(to.as_raw_fd(), buf[off..].as_ptr().cast(), n as usize - off)
            };
            if w < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            if w <= 0 {
                return;
            }
            off += w as usize;
        }
    }
}

impl Relay {
    fn add(&mut self, fd: i32) -> std::io::Result<()> {
        let saved = dup(fd)?;
        let (r, w) = pipe()?;
        let sock = dup(saved.as_raw_fd())?;
        if fd == 0 {
            // socket -> pipe -> the program's stdin; never joined (the socket may never
            // close): it ends on EPIPE once the program is gone, or with this process.
            dup2(r.as_raw_fd(), 0)?;
            drop(r);
            std::thread::spawn(move || copy(sock, w));
            self.streams.push((fd, saved, None));
        } else {
            // the program's stdout/stderr -> pipe -> socket.
            dup2(w.as_raw_fd(), fd)?;
            drop(w);
            let (tx, rx) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                copy(r, sock);
                let _ = tx.send(());
            });
            self.streams.push((fd, saved, Some(rx)));
        }
        Ok(())
    }

    /// The descriptors relayed (for tests and notes).
    pub fn relayed(&self) -> Vec<i32> {
        self.streams.iter().map(|(fd, ..)| *fd).collect()
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        for (fd, saved, done) in self.streams.drain(..).rev() {
            // The socket back in place: this process's copy of the pipe end closes.
            let _ = dup2(saved.as_raw_fd(), fd);
            if let Some(rx) = done {
                let _ = rx.recv_timeout(std::time::Duration::from_secs(2));
            }
        }
    }
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
