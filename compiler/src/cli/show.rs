//! `ralc show`.

use super::args::ShowArgs;

pub fn run(_args: &ShowArgs) -> i32 {
    eprintln!("ralc show: not built yet");
    1
}
