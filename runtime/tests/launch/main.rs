//! Entry of the runtime's launch suite (harness = false): on Linux, the real-kernel suite
//! in `../launch.rs`; on every other OS a line saying why nothing ran, in the shape
//! `scripts/test` sums. It must never pretend a launch test passed off Linux.

#[cfg(target_os = "linux")]
#[path = "../launch.rs"]
mod linux;

#[cfg(target_os = "linux")]
fn main() {
    linux::main();
}

#[cfg(not(target_os = "linux"))]
fn main() {
    println!(
        "launch tests: 0 ran, 0 failed; 1 skipped: the suite launches under bwrap, Landlock \
         and seccomp, which exist only on Linux"
    );
}
