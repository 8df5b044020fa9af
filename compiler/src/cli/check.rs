//! `ralc check`.

use super::args::CheckArgs;

pub fn run(_args: &CheckArgs) -> i32 {
    eprintln!("ralc check: not built yet");
    1
}
