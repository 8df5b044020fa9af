//! `ralc deputy`.

use super::args::DeputyArgs;

pub fn run(_args: &DeputyArgs) -> i32 {
    eprintln!("ralc deputy: not built yet");
    1
}
