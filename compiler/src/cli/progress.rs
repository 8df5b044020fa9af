//! The progress line: work that takes over a second (compiling a large stack, a long
//! `why --batch`) says what it is doing on stderr, one line rewritten in place, erased
//! when the work ends — only when stderr is a terminal and `--quiet` is off, so a pipe,
//! a file or a CI log never sees it. It never writes to stdout and never prints after
//! the work has ended (the command's output follows a clean line).

use std::io::Write;
use std::sync::mpsc;
use std::time::Duration;

/// How long work runs before the line appears.
pub const DELAY: Duration = Duration::from_secs(1);

/// Whether this process shows progress: stderr is a terminal and `--quiet` is off.
pub fn enabled() -> bool {
    use std::io::IsTerminal;
    !super::quiet() && std::io::stderr().is_terminal()
}

/// Run `work`; if it is still running after `DELAY` and progress is enabled, show
/// `ralc: {what}…` on stderr until it ends.
pub fn during<T>(what: &str, work: impl FnOnce() -> T) -> T {
    if !enabled() {
        return work();
    }
    during_on(what, DELAY, std::io::stderr, work)
}

/// `during` with the delay and the writer given (the terminal's stderr in use, a buffer
/// in tests). The line is written by a helper thread that waits `delay` for the work to
/// end; it erases what it wrote before `during_on` returns.
pub fn during_on<T, W: Write>(
    what: &str,
    delay: Duration,
    writer: impl FnOnce() -> W + Send,
    work: impl FnOnce() -> T,
) -> T {
    let (done, finished) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        let shower = s.spawn(move || {
            if finished.recv_timeout(delay).is_ok() {
                return;
            }
            let mut w = writer();
            let _ = write!(w, "\rralc: {what}\u{2026}");
            let _ = w.flush();
            // wait for the end (or the sender dropped), then erase the line
            let _ = finished.recv();
            let _ = write!(w, "\r\x1b[2K");
            let _ = w.flush();
        });
        let out = work();
        let _ = done.send(());
        let _ = shower.join();
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Buf(Arc<Mutex<Vec<u8>>>);

    impl Write for Buf {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| std::io::ErrorKind::Other)?
                .extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Buf {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().expect("lock")).into_owned()
        }
    }

    #[test]
    fn slow_work_shows_the_line_then_erases_it() {
        let buf = Buf::default();
        let b = buf.clone();
        let v = during_on(
            "compiling",
            Duration::from_millis(20),
            move || b,
            || {
                std::thread::sleep(Duration::from_millis(300));
                7
            },
        );
        assert_eq!(v, 7);
        assert_eq!(buf.text(), "\rralc: compiling\u{2026}\r\x1b[2K");
    }

    #[test]
    fn quick_work_shows_nothing() {
        let buf = Buf::default();
        let b = buf.clone();
        let v = during_on("compiling", Duration::from_secs(5), move || b, || 3);
        assert_eq!(v, 3);
        assert_eq!(buf.text(), "");
    }
}
