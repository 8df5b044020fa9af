//! `ralc why`.

use super::args::WhyArgs;

pub fn run(_args: &WhyArgs) -> i32 {
    eprintln!("ralc why: not built yet");
    1
}
